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
# (2026-12-02 00:49 UTC, main at e1d26ed, load 4 to 6: about 1.6x an idle machine's figures; made by
# `scripts/suite_costs.py` from the run's junit XML). A function's figure is shared evenly among its
# parameters; a group takes its own. Figures under 2 s are left to DEFAULT_COST. Only the order of the units
# depends on them: a figure that is off makes the run slower, never wrong.
COSTS: Mapping[str, float] = {
    "tests/test_tiers.py::test_real_releases": 324.9,
    "tests/test_tiers.py::test_fixtures_and_examples_every_file_parsed": 237.2,
    "import-safety": 121.5,
    "torch-training": 120.7,
    "fixed-point": 113.9,
    "realworld": 97.1,
    "tests/test_release.py::test_dry_run_changes_nothing_and_the_release_commits_builds_and_tags": 88.4,
    "tests/test_safety_input.py::test_odd_file_is_named_and_the_others_are_fixed": 76.8,
    "dists": 50.5,
    "tests/test_excerpts.py::test_fixtures_and_examples": 49.4,
    "tests/realworld/test_fix_alone_releases.py::test_each_reported_fix_of_a_release_applied_alone_leaves_working_code": 38.2,
    "tests/test_excerpts.py::test_real_releases": 37.9,
    "tests/test_excerpts.py::test_each_shape": 35.8,
    "tests/test_rule_cases.py::test_rule_case_matches_its_snapshot": 32.5,
    "tests/test_excerpts.py::test_a_hidden_string_statement_counts_as_libcst_counts_it": 30.7,
    "tests/test_excerpts.py::test_a_large_module_is_analysed_through_a_small_excerpt": 28.1,
    "tests/test_tiers.py::test_installed_torch_sources": 26.2,
    "tests/test_pre_commit.py::test_check_fails_fix_rewrites_then_both_pass": 26.0,
    "tests/test_diff_applies.py::test_git_apply_of_the_diff_gives_what_fix_writes": 24.1,
    "tests/test_fix_alone.py::test_each_reported_fix_applied_alone_leaves_working_code": 23.8,
    "tests/test_semantic_verdicts.py::test_the_verdicts_from_the_ast_model_equal_the_planners_on_the_repositorys_sources": 23.5,
    "tests/test_real_trees.py::test_installed_environment_check_and_fix_diff": 21.8,
    "tests/test_excerpts.py::test_comments_after_a_hidden_statement_stay_where_libcst_puts_them": 18.8,
    "tests/test_fix_transactions.py::test_sigint_sigterm_sighup_at_random_points_leave_every_group_all_old_or_all_new": 17.9,
    "tests/test_fix_journal.py::test_sigkill_at_every_write_of_a_three_file_group_is_finished_by_the_next_fix": 17.6,
    "tests/test_excerpts.py::test_padded_fixtures": 16.5,
    "tests/test_excerpts.py::test_a_hidden_rebinding_of_a_module_alias_stops_the_rewrite": 15.4,
    "tests/test_fix_reports_truth.py::test_fix_reports_what_a_fresh_check_of_the_fixed_tree_reports": 14.3,
    "tests/test_batch.py::test_same_result_as_the_plain_engine_alone_and_in_a_pool": 13.8,
    "tests/test_safety_interrupt.py::test_sigint_mid_run_leaves_every_file_wholly_old_or_wholly_new": 13.7,
    "tests/test_semantic_model.py::test_the_ast_model_equals_the_libcst_facts_on_the_repositorys_sources": 12.7,
    "tests/test_removed_names_remembered.py::test_strings_naming_a_function_the_fix_removed_are_still_reported_afterwards": 12.3,
    "tests/test_quiet_kept.py::test_machine_formats_list_every_finding": 11.7,
    "tests/test_removed_names_remembered.py::test_a_downstream_copy_of_the_patch_is_remembered_after_the_fix": 11.7,
    "tests/test_boundaries.py::test_an_importer_through_a_namespace_package_keeps_the_installer": 11.5,
    "tests/realworld/test_i18n_releases.py::test_every_finding_of_a_release_reads_in_chinese": 11.0,
    "tests/test_quiet_kept.py::test_text_formats_list_kept_findings_only_when_asked": 9.7,
    "tests/test_safety_input.py::test_non_utf8_file_name": 9.7,
    "tests/test_tiers.py::test_each_way_to_a_finding": 9.6,
    "tests/test_boundaries.py::test_a_relative_import_inside_a_namespace_package_keeps_the_installer": 9.3,
    "tests/test_safety_input.py::test_huge_file_is_cheap": 9.1,
    "tests/test_import_probe.py::test_it_agrees_with_a_fresh_interpreter": 9.1,
    "tests/test_excerpts.py::test_tabs_line_endings_and_no_final_newline": 8.8,
    "tests/test_tiers.py::test_every_file_alone": 8.7,
    "tests/test_excerpts.py::test_a_caller_through_an_import_alias_of_a_name_only_the_run_removes": 8.6,
    "tests/test_excerpts.py::test_another_file_calls_the_installer_from_hidden_code": 8.0,
    "tests/test_partial_runs.py::test_installer_named_by_a_file_outside_the_run_stays": 7.8,
    "tests/test_cache_safety.py::test_an_unsafe_cache_folder_is_not_used_and_clean_handles_it": 7.7,
    "tests/test_excerpts.py::test_every_fixture_file_alone": 7.6,
    "tests/test_docs.py::test_the_example_output_is_what_the_tool_prints": 7.6,
    "tests/test_release.py::test_a_bad_version_is_refused_and_nothing_changes": 7.6,
    "tests/test_fixable_count.py::test_check_counts_as_fixable_exactly_what_fix_then_fixes": 7.3,
    "tests/test_doctor.py::test_target_torch_older_than_native_since_fails": 7.2,
    "tests/test_safety_static.py::test_command_line_runs_execute_nothing_they_scan": 7.0,
    "tests/test_i18n_reasons.py::test_a_stream_that_cannot_show_chinese_gets_english_and_one_warning": 7.0,
    "tests/test_ruff_flags.py::test_color": 6.7,
    "tests/test_excerpts.py::test_installed_torch_sources": 6.7,
    "tests/test_i18n.py::test_machine_formats_stay_english": 6.6,
    "tests/test_api.py::test_fix_paths_reports_what_is_left_as_the_fixed_tree_holds_it": 6.5,
    "tests/test_downstream.py::test_remaining_tests_pass_after_migration": 6.0,
    "tests/test_batch.py::test_cli_json_is_the_same_with_one_and_two_jobs": 6.0,
    "tests/test_safety_input.py::test_symlink_leaving_the_walked_folder_is_read_but_never_written": 6.0,
    "tests/test_excerpts.py::test_a_match_class_keyword_is_a_use": 5.9,
    "tests/test_removed_names_remembered.py::test_a_name_the_module_binds_again_by_import_or_assignment_is_not_removed": 5.8,
    "tests/realworld/test_merge_request_release.py::test_the_description_of_a_real_release_in_chinese": 5.3,
    "tests/test_prefilter.py::test_every_file_with_a_finding_passes_the_prefilter": 5.2,
    "tests/test_unchanged_index.py::test_a_warm_linked_group_loads_no_libcst": 5.1,
    "tests/test_excerpts.py::test_a_lone_carriage_return_in_hidden_code_moves_no_noqa_comment": 5.1,
    "tests/test_example_migration.py::test_check_on_the_legacy_project_reports_every_part": 5.1,
    "tests/test_add_rule.py::test_a_site_rule_is_scaffolded_and_dispatched_with_each_site_and_its_verdict": 5.0,
    "tests/test_excerpts.py::test_a_form_feed_libcst_does_not_give_back_in_hidden_code": 4.8,
    "tests/test_ruff_habits.py::test_unfixable_rules_have_no_fix_to_apply_or_count": 4.8,
    "tests/test_rule_examples.py::test_rule_example": 4.7,
    "tests/test_flake8_plugin.py::test_flake8_and_check_agree_on_a_whole_tree": 4.5,
    "tests/test_ruff_habits.py::test_fixable_and_unfixable_from_the_configuration": 4.5,
    "tests/test_cache_safety.py::test_entries_signed_by_another_user_are_ignored": 4.5,
    "tests/test_session_caches.py::test_the_engine_asks_the_session_memo": 4.4,
    "tests/test_declared_torch.py::test_a_pinned_torch_gives_exactly_the_findings_of_target_torch": 4.4,
    "tests/test_add_rule.py::test_the_scaffolded_module_alone_is_dispatched": 4.3,
    "tests/test_properties.py::test_planted_patch_is_found_and_removed_and_nothing_else_changes": 4.3,
    "tests/test_safety_input.py::test_folder_named_like_a_module_is_walked": 4.3,
    "tests/test_import_probe.py::test_it_names_the_modules_that_import_and_only_those": 4.1,
    "tests/realworld/test_merge_request_release.py::test_the_description_of_a_real_release_follows_its_findings": 4.1,
    "tests/test_fix_journal.py::test_sigkill_after_the_first_rename_is_finished_by_the_next_check": 4.1,
    "tests/test_cache_safety.py::test_a_changed_file_outside_a_partial_run_gives_a_fresh_result": 4.0,
    "tests/test_i18n_reasons.py::test_a_stream_that_cannot_show_chinese_does_not_change_english_runs": 4.0,
    "tests/test_rule_registry.py::test_no_rule_code_as_a_literal_outside_its_declaration": 4.0,
    "tests/test_libcst_runner.py::test_a_project_with_its_own_codemods_package_keeps_it": 4.0,
    "tests/test_safety_input.py::test_newest_syntax_is_parsed_and_kept": 4.0,
    "tests/test_example_migration.py::test_fix_gives_the_expected_tree": 3.9,
    "tests/test_startup_imports.py::test_a_finding_still_brings_rich_in_to_print_it": 3.8,
    "tests/test_declared_torch.py::test_an_installed_torch_outside_the_declaration_is_one_warning": 3.8,
    "tests/test_downstream.py::test_safe_fix_leaves_tests_alone_and_counts_unsafe_fixes": 3.8,
    "tests/test_lsp_server.py::test_an_editor_session": 3.8,
    "tests/test_api.py::test_a_source_in_its_project_is_what_check_and_fix_make_of_its_file": 3.8,
    "tests/test_ruff_flags.py::test_color_goes_through_the_console_script": 3.7,
    "tests/test_properties.py::test_check_never_crashes_and_reports_only_real_errors": 3.7,
    "tests/test_lsp_server.py::test_the_bundled_example_is_fixed_as_fix_fixes_its_file": 3.6,
    "tests/test_removed_names_remembered.py::test_a_partial_run_reads_the_remembered_module_where_it_lies": 3.5,
    "tests/test_fix_fixtures.py::test_fix_gives_expected_output": 3.5,
    "tests/test_cache_safety.py::test_a_forged_entry_is_ignored": 3.5,
    "tests/test_batch.py::test_fix_writes_the_same_files_with_and_without_a_pool": 3.4,
    "tests/test_safety_input.py::test_read_only_file_keeps_its_mode": 3.4,
    "tests/test_libcst_runner.py::test_single_file_run_needs_the_installer_named": 3.3,
    "tests/test_removed_names_remembered.py::test_a_copy_of_the_catalogs_module_is_left_to_the_catalog": 3.3,
    "tests/test_declared_torch.py::test_a_bad_declaration_is_a_message_and_the_next_source_decides": 3.3,
    "tests/test_downstream.py::test_unsafe_fix_migrates_the_whole_project": 3.3,
    "tests/test_release.py::test_an_unready_repository_is_refused_and_nothing_changes": 3.2,
    "tests/test_excerpts.py::test_excerpts_map_back_to_the_file": 3.2,
    "tests/test_libcst_runner.py::test_runner_with_the_shipped_configuration_and_its_formatter": 3.2,
    "tests/test_libcst_runner.py::test_unpatch_under_libcst_runner_equals_fsdp_unpatch_fix": 3.2,
    "tests/test_cache_safety.py::test_a_malicious_pickle_in_the_cache_is_never_loaded": 3.2,
    "tests/test_unchanged_fixtures.py::test_left_byte_identical_with_expected_findings": 3.1,
    "tests/test_merge_request.py::test_the_removed_overrides_are_the_ones_check_proved": 3.0,
    "tests/test_safety_input.py::test_missing_path_is_named_and_the_others_are_fixed": 3.0,
    "tests/test_ruff_habits.py::test_inline_config_overrides_the_file_and_a_path_still_works": 2.9,
    "tests/test_planner_on_ast.py::test_positions_one_statement_at_a_time_equal_libcsts_whole_module_pass": 2.9,
    "tests/test_ruff_habits.py::test_a_standalone_file_is_found_upward_and_wins_over_pyproject": 2.9,
    "tests/test_safety_concurrent.py::test_other_files_are_still_fixed_and_the_command_exits_2": 2.8,
    "tests/test_import_probe.py::test_nothing_of_an_earlier_tree_is_left_for_a_later_one": 2.8,
    "tests/test_cache_safety.py::test_a_cache_dir_that_holds_other_files_is_not_used_and_clean_keeps_them": 2.8,
    "tests/test_lsp_server.py::test_a_fix_that_fix_holds_back_is_not_offered": 2.7,
    "tests/test_tiers.py::test_the_screen_decides_most_fixture_files": 2.7,
    "tests/test_downstream.py::test_findings_and_their_places": 2.6,
    "tests/test_merge_request.py::test_the_precondition_cites_doctor": 2.6,
    "tests/test_merge_request.py::test_files_changed_and_summary_follow_what_was_written": 2.6,
    "tests/test_declared_torch.py::test_the_cache_does_not_outlive_a_changed_declaration": 2.6,
    "tests/test_input_errors.py::test_five_thousand_implicitly_joined_string_literals_parse": 2.5,
    "tests/test_properties.py::test_fix_without_a_patch_changes_nothing": 2.5,
    "tests/test_i18n.py::test_the_locale_decides_when_nothing_else_does": 2.5,
    "tests/test_declared_torch.py::test_a_range_whose_floor_is_safe_removes_all_of_it": 2.4,
    "tests/test_ci_flags.py::test_progress_bar_only_for_long_runs_at_a_terminal_outside_ci": 2.4,
    "test_no_torch": 2.4,
    "tests/test_safety_writes.py::test_permission_bits_are_kept": 2.4,
    "tests/test_merge_request.py::test_the_verification_cites_verify": 2.4,
    "tests/test_import_net.py::test_an_importer_of_a_second_name_of_the_patch_module_still_imports": 2.4,
    "tests/test_excerpts.py::test_a_name_only_hidden_code_spells_decides_the_native_spelling": 2.3,
    "tests/test_i18n.py::test_the_chinese_readme_shows_what_the_tool_prints": 2.2,
    "tests/test_downstream.py::test_diff_shows_the_deleted_module": 2.2,
    "tests/test_hostile_outputs.py::test_line_formats_quote_control_characters_in_paths": 2.2,
    "tests/test_dispatch.py::test_a_deselected_fsu001_changes_no_other_rules_findings_or_fixes": 2.2,
    "tests/test_hostile_outputs.py::test_fifos_in_the_cache_folder_never_hang_a_run": 2.2,
    "tests/test_cli.py::test_unparsable_file_exit_2_others_still_processed": 2.2,
    "tests/test_libcst_runner.py::test_unpatch_on_the_downstream_fixture_equals_fix_references_included": 2.1,
    "tests/test_fixable_count.py::test_json_says_which_fixes_are_held_back": 2.1,
    "tests/test_ruff_habits.py::test_the_cache_keeps_ignore_noqa_and_unfixable_apart": 2.1,
    "tests/test_flake8_plugin.py::test_flake8_on_the_migrated_example_agrees_with_check": 2.1,
    "tests/test_ci_flags.py::test_colour_at_a_terminal_unless_no_color": 2.1,
    "test_prefilter_search": 2.1,
    "tests/test_removed_names_remembered.py::test_a_name_defined_again_is_no_longer_removed": 2.1,
    "tests/test_quiet_kept.py::test_github_annotates_no_kept_finding_unless_asked": 2.0,
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
