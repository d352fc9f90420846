"""How the suite's tests are spread over the pytest-xdist workers (`-n 2 --dist loadgroup`, pyproject.toml).

A unit of work is a group of `WORKER_GROUPS` (its tests run on one worker, one after the other) or a single
test. Units start longest first, from the CPU time each took in a measured full run (`COSTS`), so that the run
does not end with one worker busy alone on a training or a release migration that started last.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Mapping, Optional

# The tests of these files (or test functions, `FILE::NAME`) stay on one worker, each group run as one unit.
# Every other test goes to whichever worker is free. Given by file here, not with `xdist_group` marks:
# pytest-xdist 3.8 tags a marked test by renaming `item._nodeid`, which pytest 9.2 no longer reads, and the
# marks would be ignored.
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
    # a test function (all its parameters): the tier and excerpt comparisons of the real releases plan the same
    # fixes, whose search for broken importers is made once per process (`imports_searched_once`)
    "tests/test_tiers.py::test_real_releases": "real-release-equivalence",
    "tests/test_excerpts.py::test_real_releases": "real-release-equivalence",
}

# Seconds that a group or a test function (all its parameters) took in a measured full run on two workers
# (2026-12-03 18:45 UTC, `.ci/run` on a fresh clone, idle but for it: made by `scripts/suite_costs.py` from the
# run's junit XML). A function's figure is shared evenly among its parameters; a group takes its own.
# Figures under 2 s are left to DEFAULT_COST. Only the order of the units depends on them: a figure that is
# off makes the run slower, never wrong.
COSTS: Mapping[str, float] = {
    "torch-training": 80.6,
    "real-release-equivalence": 62.6,
    "realworld": 61.4,
    "import-safety": 44.7,
    "dists": 35.6,
    "tests/test_add_rule.py::test_a_scaffolded_rule_of_each_kind_fires_from_the_cli_on_what_it_declares": 35.5,
    "fixed-point": 35.2,
    "merge-request-release": 32.7,
    "tests/test_hostile_speed.py::test_fix_regions_spliced_from_statements_are_the_whole_modules": 31.5,
    "fix-alone-releases": 30.0,
    "tests/test_tiers.py::test_fixtures_and_examples_every_file_parsed": 28.6,
    "tests/test_real_trees.py::test_installed_environment_check_and_fix_diff": 19.8,
    "tests/test_number_displays.py::test_holding_displays_out_changes_no_finding_and_no_fixed_byte": 17.5,
    "tests/test_ast_findings.py::test_fixtures_and_examples_are_reported_alike": 16.8,
    "tests/test_pre_commit.py::test_check_fails_fix_rewrites_then_both_pass": 16.3,
    "tests/test_excerpts.py::test_each_shape": 15.6,
    "tests/test_hostile_speed.py::test_warm_held_back_verdict_sees_an_importer_changed_with_its_time_put_back": 15.2,
    "tests/test_excerpts.py::test_padded_fixtures": 14.7,
    "tests/realworld/test_i18n_releases.py::test_every_finding_of_a_release_reads_in_chinese": 13.6,
    "tests/test_release.py::test_dry_run_changes_nothing_and_the_release_commits_builds_and_tags": 13.3,
    "tests/test_safety_input.py::test_odd_file_is_named_and_the_others_are_fixed": 13.0,
    "tests/test_batch.py::test_same_result_as_the_plain_engine_alone_and_in_a_pool": 12.2,
    "tests/test_hostile_speed.py::test_warm_fsu306_sees_a_same_size_edit_whose_time_was_put_back": 12.1,
    "tests/test_fix_reports_truth.py::test_fix_reports_what_a_fresh_check_of_the_fixed_tree_reports": 12.0,
    "tests/test_fix_transactions.py::test_sigint_sigterm_sighup_at_random_points_leave_every_group_all_old_or_all_new": 11.3,
    "tests/test_rule_cases.py::test_rule_case_matches_its_snapshot": 11.1,
    "tests/realworld/test_proof_mutants.py::test_no_behaviour_changing_mutant_is_removed": 10.7,
    "tests/test_diff_applies.py::test_git_apply_of_the_diff_gives_what_fix_writes": 10.3,
    "tests/test_excerpts.py::test_fixtures_and_examples": 10.1,
    "tests/test_fix_alone.py::test_each_reported_fix_applied_alone_leaves_working_code": 9.2,
    "tests/test_tiers.py::test_installed_torch_sources": 8.4,
    "tests/test_import_probe.py::test_it_agrees_with_a_fresh_interpreter": 8.2,
    "tests/test_rewrite_meaning.py::test_kept_code_still_reaches_the_modules_the_dropped_imports_loaded": 8.0,
    "tests/test_excerpts.py::test_comments_after_a_hidden_statement_stay_where_libcst_puts_them": 7.9,
    "tests/realworld/test_no_broken_imports.py::test_no_untrue_broken_import_in_a_real_release": 7.8,
    "tests/test_quiet_kept.py::test_text_formats_list_kept_findings_only_when_asked": 7.5,
    "tests/test_rewrite_meaning.py::test_a_dynamic_export_holds_the_fix_back_and_the_importer_still_works": 7.5,
    "tests/test_excerpts.py::test_every_fixture_file_alone": 7.5,
    "tests/test_docs.py::test_the_example_output_is_what_the_tool_prints": 7.2,
    "tests/test_rewrite_meaning.py::test_package_loads_are_what_the_installed_torch_loads": 7.2,
    "tests/test_excerpts.py::test_installed_torch_sources": 6.4,
    "tests/test_lsp_server.py::test_fix_all_on_each_file_of_the_example_is_fix_of_the_project": 6.3,
    "tests/test_ast_findings.py::test_every_rule_case_is_reported_alike": 6.3,
    "tests/test_excerpts.py::test_a_hidden_string_statement_counts_as_libcst_counts_it": 6.2,
    "tests/test_boundaries.py::test_a_relative_import_inside_a_namespace_package_keeps_the_installer": 5.0,
    "tests/test_boundaries.py::test_an_importer_through_a_namespace_package_keeps_the_installer": 5.0,
    "tests/test_fixable_count.py::test_check_counts_as_fixable_exactly_what_fix_then_fixes": 4.9,
    "tests/test_unchanged_index.py::test_a_warm_linked_group_loads_no_libcst": 4.8,
    "tests/test_batch.py::test_cli_json_is_the_same_with_one_and_two_jobs": 4.7,
    "tests/test_partial_runs.py::test_installer_named_by_a_file_outside_the_run_stays": 4.5,
    "tests/test_merge_request_template.py::test_the_ascend_change_lists_each_removal_with_its_proof_and_what_stays": 4.4,
    "tests/test_quiet_kept.py::test_machine_formats_list_every_finding": 4.3,
    "tests/test_downstream.py::test_remaining_tests_pass_after_migration": 4.2,
    "tests/test_i18n_reasons.py::test_a_stream_that_cannot_show_chinese_gets_english_and_one_warning": 4.2,
    "tests/test_i18n.py::test_machine_formats_stay_english": 4.1,
    "tests/test_fix_journal.py::test_a_fix_of_a_member_in_another_folder_finds_the_groups_journal": 4.1,
    "tests/test_excerpts.py::test_a_hidden_rebinding_of_a_module_alias_stops_the_rewrite": 4.1,
    "tests/test_example_migration.py::test_fix_gives_the_expected_tree": 3.9,
    "tests/test_properties.py::test_fix_without_a_patch_changes_nothing": 3.9,
    "tests/test_fix_journal.py::test_check_and_diff_report_an_interrupted_group_and_write_nothing": 3.8,
    "tests/test_properties.py::test_planted_patch_is_found_and_removed_and_nothing_else_changes": 3.8,
    "tests/test_prefilter.py::test_every_file_with_a_finding_passes_the_prefilter": 3.7,
    "tests/test_excerpts.py::test_a_caller_through_an_import_alias_of_a_name_only_the_run_removes": 3.6,
    "tests/test_excerpts.py::test_tabs_line_endings_and_no_final_newline": 3.6,
    "tests/test_flake8_plugin.py::test_flake8_and_check_agree_on_a_whole_tree": 3.6,
    "tests/test_i18n_commands.py::test_doctor_prints_chinese": 3.5,
    "tests/test_one_count.py::test_a_held_back_fix_is_held_back_in_every_format": 3.5,
    "tests/test_merge_request_template.py::test_the_template_is_ascend_in_chinese_unless_chosen": 3.4,
    "tests/test_safety_input.py::test_huge_file_is_cheap": 3.2,
    "tests/test_merge_request_template.py::test_the_design_document_is_linked_when_configured": 3.1,
    "tests/test_lsp_server.py::test_an_editor_session": 3.1,
    "tests/test_downstream.py::test_safe_fix_leaves_tests_alone_and_counts_unsafe_fixes": 3.1,
    "tests/test_libcst_runner.py::test_a_project_with_its_own_codemods_package_keeps_it": 2.9,
    "tests/test_api.py::test_a_source_in_its_project_is_what_check_and_fix_make_of_its_file": 2.8,
    "tests/test_cache_safety.py::test_an_unsafe_cache_folder_is_not_used_and_clean_handles_it": 2.8,
    "tests/test_rewrite_meaning.py::test_a_deleted_del_leaves_fsdp2s_method_in_place": 2.7,
    "tests/test_semantic_model.py::test_the_ast_model_equals_the_libcst_facts_on_the_repositorys_sources": 2.6,
    "tests/test_ast_findings.py::test_each_other_way_to_a_finding_leaves_the_file_to_libcst": 2.6,
    "tests/test_import_probe.py::test_nothing_of_an_earlier_tree_is_left_for_a_later_one": 2.5,
    "tests/test_one_count.py::test_without_a_hold_every_format_counts_the_same_fixable": 2.5,
    "tests/test_merge_request_template.py::test_the_ascend_change_in_chinese_is_chinese": 2.5,
    "tests/test_safety_interrupt.py::test_sigint_mid_run_leaves_every_file_wholly_old_or_wholly_new": 2.5,
    "tests/test_fix_journal.py::test_a_forged_journal_is_not_acted_on": 2.5,
    "tests/realworld/test_upgrade_release.py::test_upgrade_to_2_14_lists_every_kept_override_with_what_the_sources_say_changed": 2.5,  # noqa: E501
    "tests/test_properties.py::test_check_never_crashes_and_reports_only_real_errors": 2.4,
    "tests/test_hostile_outputs.py::test_fifos_in_the_cache_folder_never_hang_a_run": 2.4,
    "tests/test_merge_request_template.py::test_the_checklist_ticks_what_the_run_shows": 2.4,
    "tests/test_planner_on_ast.py::test_positions_one_statement_at_a_time_equal_libcsts_whole_module_pass": 2.4,
    "tests/test_i18n.py::test_the_locale_decides_when_nothing_else_does": 2.3,
    "tests/test_hostile_outputs.py::test_line_formats_quote_control_characters_in_paths": 2.2,
    "tests/test_libcst_runner.py::test_single_file_run_needs_the_installer_named": 2.2,
    "tests/test_i18n_reasons.py::test_a_stream_that_cannot_show_chinese_does_not_change_english_runs": 2.2,
    "tests/test_excerpts.py::test_a_form_feed_libcst_does_not_give_back_in_hidden_code": 2.2,
    "tests/test_fix_journal.py::test_a_journal_through_a_symbolic_link_is_not_followed": 2.1,
    "tests/test_merge_request.py::test_the_removed_overrides_are_the_ones_check_proved": 2.1,
    "tests/test_libcst_runner.py::test_runner_with_the_shipped_configuration_and_its_formatter": 2.1,
    "tests/test_cache_safety.py::test_a_cache_dir_that_holds_other_files_is_not_used_and_clean_keeps_them": 2.1,
    "tests/test_libcst_runner.py::test_unpatch_under_libcst_runner_equals_fsdp_unpatch_fix": 2.1,
    "tests/test_i18n.py::test_lang_en_wins_over_a_chinese_locale": 2.1,
    "tests/test_lsp_server.py::test_quick_fixes_name_what_they_fix_and_say_why_not": 2.1,
    "tests/test_removed_names_remembered.py::test_strings_naming_a_function_the_fix_removed_are_still_reported_afterwards": 2.1,
    "tests/test_fix_journal.py::test_a_journal_its_run_never_finished_writing_is_removed": 2.1,
    "tests/test_i18n_commands.py::test_doctor_in_english_and_its_json_stay_english": 2.1,
    "tests/test_i18n.py::test_a_chinese_locale_prints_chinese_findings_and_summary": 2.0,
    "tests/test_merge_request.py::test_diff_writes_the_same_description_and_no_file": 2.0,
}

# A test that no figure covers: about what the typical test costs.
DEFAULT_COST = 0.3


def group_of(nodeid: str) -> Optional[str]:
    """The group of `WORKER_GROUPS` a test belongs to (by its function, else by its file), or None."""
    return WORKER_GROUPS.get(_function(nodeid), WORKER_GROUPS.get(nodeid.split("::", 1)[0]))


def unit_of(nodeid: str) -> str:
    """The unit of work a test belongs to: its function's or its file's group, or the test alone."""
    return group_of(nodeid) or nodeid


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
