"""How the suite's tests are spread over the pytest-xdist workers (`-n 2 --dist loadgroup`, pyproject.toml).

A unit of work is a group of `WORKER_GROUPS` (its tests run on one worker, one after the other) or a single
test. Units start longest first, from the CPU time each took in a measured full run (`COSTS`), so that the run
does not end with one worker busy alone on a training or a release migration that started last.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Mapping

# The tests of these files stay on one worker, each group run as one unit. Every other test goes to whichever
# worker is free. Given by file here, not with `xdist_group` marks: pytest-xdist 3.8 tags a marked test by
# renaming `item._nodeid`, which pytest 9.2 no longer reads, and the marks would be ignored.
WORKER_GROUPS = {
    # the trainings: train.py picks its gloo port with free_port() before rank 0 binds it, and a training
    # on the other worker could take it meanwhile; also the module's trainings (`train_runs`, `probe_reports`)
    # run once only when all its tests are on one worker, and so does a `verify` run that two tests give the
    # same inputs (tests/training_memo.py)
    "tests/test_example_runs.py": "torch-training",
    "tests/test_verify.py": "torch-training",
    "tests/test_verify_path.py": "torch-training",
    # one build of the wheel and sdist (`dists`, tests/conftest.py) and one clean venv for the action's steps
    # (`action_venv`, tests/packaging.py) per worker
    "tests/test_packaging.py": "dists",
    "tests/test_ci_templates.py": "dists",
    "tests/test_examples_ci.py": "dists",
    # each release is migrated once per process (`migrate`, `_MIGRATIONS`)
    "tests/realworld/test_releases.py": "realworld",
    # each release's `check` is made once per process for its two tests (`_CHECKED`)
    "tests/realworld/test_merge_request_release.py": "merge-request-release",
    # the first `fix` of each case is kept for the test after it (`_FIXED_ONCE`)
    "tests/test_fixed_point.py": "fixed-point",
    # each tree's plain fix is made once per process (`_PLAIN`)
    "tests/test_import_safety_property.py": "import-safety",
    # the releases share most files: each file's names are read once per process (test_fix_alone.py's
    # `_module_facts`), so the releases pay once only on one worker
    "tests/realworld/test_fix_alone_releases.py": "fix-alone-releases",
    # module-scoped fixtures
    "tests/test_no_torch.py": "test_no_torch",
    "tests/test_prefilter_search.py": "test_prefilter_search",
}

# Seconds that a group or a test function (all its parameters) took in a measured full run on two workers
# (2026-12-02 02:36 UTC, `.ci/run` on a fresh clone, load about 1: made by `scripts/suite_costs.py` from the
# run's junit XML). A function's figure is shared evenly among its parameters; a group takes its own.
# Figures under 2 s are left to DEFAULT_COST. Only the order of the units depends on them: a figure that is
# off makes the run slower, never wrong.
COSTS: Mapping[str, float] = {
    "torch-training": 91.4,
    "import-safety": 63.2,
    "tests/test_tiers.py::test_real_releases": 60.2,
    "realworld": 49.7,
    "fixed-point": 41.7,
    "dists": 31.6,
    "fix-alone-releases": 30.3,
    "tests/test_ast_findings.py::test_fixtures_and_examples_are_reported_alike": 29.4,
    # measured apart (2026-12-03, `-n 0`, CPU user+sys with its subprocesses, load about 2): the group's four
    # `check`/`fix --diff --report` pairs of torch-npu 2.10.0.post7 and 2.9.1, checks made once per release
    "merge-request-release": 99.3,
    # measured apart (2026-12-02, load about 2): 62 checks of mutants of a release's patch module
    "tests/realworld/test_proof_mutants.py::test_no_behaviour_changing_mutant_is_removed": 25.0,
    "tests/test_excerpts.py::test_real_releases": 28.9,
    "tests/test_hostile_speed.py::test_fix_regions_spliced_from_statements_are_the_whole_modules": 28.3,
    "tests/test_tiers.py::test_fixtures_and_examples_every_file_parsed": 24.3,
    "tests/test_pre_commit.py::test_check_fails_fix_rewrites_then_both_pass": 18.3,
    "tests/test_excerpts.py::test_each_shape": 15.7,
    "tests/test_hostile_speed.py::test_warm_held_back_verdict_sees_an_importer_changed_with_its_time_put_back": 15.2,
    "tests/test_release.py::test_dry_run_changes_nothing_and_the_release_commits_builds_and_tags": 12.8,
    "tests/test_fix_transactions.py::test_sigint_sigterm_sighup_at_random_points_leave_every_group_all_old_or_all_new": 12.4,
    "tests/test_excerpts.py::test_padded_fixtures": 12.3,
    "tests/test_fix_reports_truth.py::test_fix_reports_what_a_fresh_check_of_the_fixed_tree_reports": 11.9,
    "tests/test_hostile_speed.py::test_warm_fsu306_sees_a_same_size_edit_whose_time_was_put_back": 11.9,
    "tests/test_safety_input.py::test_odd_file_is_named_and_the_others_are_fixed": 11.5,
    "tests/realworld/test_i18n_releases.py::test_every_finding_of_a_release_reads_in_chinese": 11.4,
    "tests/test_real_trees.py::test_installed_environment_check_and_fix_diff": 11.3,
    "tests/test_tiers.py::test_installed_torch_sources": 10.7,
    "tests/test_batch.py::test_same_result_as_the_plain_engine_alone_and_in_a_pool": 10.5,
    "tests/test_ast_findings.py::test_every_rule_case_is_reported_alike": 9.0,
    "tests/test_fix_alone.py::test_each_reported_fix_applied_alone_leaves_working_code": 8.4,
    "tests/test_rule_cases.py::test_rule_case_matches_its_snapshot": 8.4,
    "tests/test_diff_applies.py::test_git_apply_of_the_diff_gives_what_fix_writes": 7.4,
    "tests/test_import_probe.py::test_it_agrees_with_a_fresh_interpreter": 7.4,
    "tests/test_excerpts.py::test_comments_after_a_hidden_statement_stay_where_libcst_puts_them": 7.3,
    "tests/test_excerpts.py::test_fixtures_and_examples": 6.9,
    "tests/test_fix_journal.py::test_sigkill_after_the_first_rename_is_finished_by_the_next_fix": 6.9,
    "tests/test_docs.py::test_the_example_output_is_what_the_tool_prints": 6.8,
    "tests/test_quiet_kept.py::test_text_formats_list_kept_findings_only_when_asked": 6.5,
    "tests/test_excerpts.py::test_every_fixture_file_alone": 5.9,
    "tests/test_excerpts.py::test_installed_torch_sources": 5.8,
    "tests/test_boundaries.py::test_an_importer_through_a_namespace_package_keeps_the_installer": 5.5,
    "tests/test_boundaries.py::test_a_relative_import_inside_a_namespace_package_keeps_the_installer": 5.1,
    "tests/test_fixable_count.py::test_check_counts_as_fixable_exactly_what_fix_then_fixes": 5.0,
    "tests/test_properties.py::test_planted_patch_is_found_and_removed_and_nothing_else_changes": 5.0,
    "tests/test_i18n_reasons.py::test_a_stream_that_cannot_show_chinese_gets_english_and_one_warning": 5.0,
    "tests/test_excerpts.py::test_a_hidden_string_statement_counts_as_libcst_counts_it": 4.9,
    "tests/test_prefilter.py::test_every_file_with_a_finding_passes_the_prefilter": 4.4,
    "tests/test_downstream.py::test_remaining_tests_pass_after_migration": 4.3,
    "tests/test_partial_runs.py::test_installer_named_by_a_file_outside_the_run_stays": 4.0,
    "tests/test_excerpts.py::test_a_hidden_rebinding_of_a_module_alias_stops_the_rewrite": 3.9,
    "tests/test_quiet_kept.py::test_machine_formats_list_every_finding": 3.8,
    "tests/test_batch.py::test_cli_json_is_the_same_with_one_and_two_jobs": 3.7,
    "tests/realworld/test_merge_request_release.py::test_the_description_of_a_real_release_follows_its_findings": 3.7,
    "tests/test_cache_safety.py::test_an_unsafe_cache_folder_is_not_used_and_clean_handles_it": 3.6,
    "tests/test_excerpts.py::test_tabs_line_endings_and_no_final_newline": 3.5,
    "tests/test_i18n.py::test_machine_formats_stay_english": 3.5,
    "tests/test_properties.py::test_check_never_crashes_and_reports_only_real_errors": 3.1,
    "tests/test_flake8_plugin.py::test_flake8_and_check_agree_on_a_whole_tree": 3.1,
    "tests/test_downstream.py::test_safe_fix_leaves_tests_alone_and_counts_unsafe_fixes": 3.1,
    "tests/test_hostile_outputs.py::test_line_formats_quote_control_characters_in_paths": 3.1,
    "tests/realworld/test_merge_request_release.py::test_the_description_of_a_real_release_in_chinese": 3.0,
    "tests/test_lsp_server.py::test_an_editor_session": 3.0,
    "tests/test_hostile_outputs.py::test_fifos_in_the_cache_folder_never_hang_a_run": 2.9,
    "tests/test_properties.py::test_fix_without_a_patch_changes_nothing": 2.9,
    "tests/test_ast_findings.py::test_each_other_way_to_a_finding_leaves_the_file_to_libcst": 2.8,
    "tests/test_i18n.py::test_the_locale_decides_when_nothing_else_does": 2.8,
    "tests/test_example_migration.py::test_fix_gives_the_expected_tree": 2.7,
    "tests/test_cache_safety.py::test_a_cache_dir_that_holds_other_files_is_not_used_and_clean_keeps_them": 2.7,
    "tests/test_doctor.py::test_target_torch_older_than_native_since_fails": 2.5,
    "tests/test_api.py::test_a_source_in_its_project_is_what_check_and_fix_make_of_its_file": 2.5,
    "tests/test_libcst_runner.py::test_unpatch_under_libcst_runner_equals_fsdp_unpatch_fix": 2.5,
    "tests/test_libcst_runner.py::test_single_file_run_needs_the_installer_named": 2.5,
    "tests/test_planner_on_ast.py::test_positions_one_statement_at_a_time_equal_libcsts_whole_module_pass": 2.4,
    "tests/test_excerpts.py::test_a_caller_through_an_import_alias_of_a_name_only_the_run_removes": 2.4,
    "tests/test_tiers.py::test_each_way_to_a_finding": 2.4,
    "tests/test_libcst_runner.py::test_runner_with_the_shipped_configuration_and_its_formatter": 2.4,
    "tests/test_libcst_runner.py::test_a_project_with_its_own_codemods_package_keeps_it": 2.3,
    "tests/test_import_probe.py::test_nothing_of_an_earlier_tree_is_left_for_a_later_one": 2.3,
    "tests/test_libcst_runner.py::test_unpatch_on_the_downstream_fixture_equals_fix_references_included": 2.3,
    "tests/test_i18n.py::test_a_chinese_locale_prints_chinese_findings_and_summary": 2.2,
    "tests/test_safety_interrupt.py::test_sigint_mid_run_leaves_every_file_wholly_old_or_wholly_new": 2.2,
    "tests/test_lsp_server.py::test_a_fix_that_fix_holds_back_is_not_offered": 2.2,
    "tests/test_fix_journal.py::test_a_forged_journal_is_not_acted_on": 2.1,
    "tests/test_merge_request.py::test_files_changed_and_summary_follow_what_was_written": 2.1,
    "tests/test_i18n.py::test_lang_en_wins_over_a_chinese_locale": 2.1,
    "tests/test_excerpts.py::test_a_match_class_keyword_is_a_use": 2.1,
    "tests/test_input_errors.py::test_five_thousand_implicitly_joined_string_literals_parse": 2.1,
    "tests/test_fix_journal.py::test_a_journal_through_a_symbolic_link_is_not_followed": 2.1,
    "tests/test_semantic_model.py::test_the_ast_model_equals_the_libcst_facts_on_the_repositorys_sources": 2.0,
}

# A test that no figure covers: about what the typical test costs.
DEFAULT_COST = 0.3


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its file's group, or the test alone."""
    return WORKER_GROUPS.get(nodeid.split("::", 1)[0], nodeid)


def _function(nodeid: str) -> str:
    """`FILE::NAME` of a test, without its parameters."""
    return nodeid.split("[", 1)[0]


def unit_cost(unit: str, nodeids: list[str], per_key: Mapping[str, int]) -> float:
    """The expected CPU seconds of a unit holding `nodeids` (`per_key`: the collection's tests per file and
    per test function)."""
    if unit in COSTS:
        return COSTS[unit]
    total = 0.0
    for nodeid in nodeids:
        function, path = _function(nodeid), nodeid.split("::", 1)[0]
        if function in COSTS:
            total += COSTS[function] / per_key[function]
        elif path in COSTS:
            total += COSTS[path] / per_key[path]
        else:
            total += DEFAULT_COST
    return total


def longest_first(workqueue: Mapping[str, dict]) -> OrderedDict:
    """The units of `workqueue` (unit -> {nodeid: done}) ordered by expected cost, the largest first (ties
    keep their order)."""
    nodeids = [nodeid for tests in workqueue.values() for nodeid in tests]
    per_key = Counter(nodeid.split("::", 1)[0] for nodeid in nodeids) + Counter(map(_function, nodeids))
    costs = {unit: unit_cost(unit, list(tests), per_key) for unit, tests in workqueue.items()}
    return OrderedDict(sorted(workqueue.items(), key=lambda item: -costs[item[0]]))


def make_scheduler(config, log):
    """pytest-xdist's load-scope scheduler over the units above, longest first."""
    from xdist.scheduler import LoadScopeScheduling

    class LongestFirstScheduling(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

        def _assign_work_unit(self, node) -> None:
            # The queue is complete before the first unit is handed out (`schedule`): order it once, then.
            if not self.ordered:
                self.workqueue = longest_first(self.workqueue)
                self.ordered = True
            super()._assign_work_unit(node)

    return LongestFirstScheduling(config, log)
