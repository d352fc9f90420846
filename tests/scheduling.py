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
# (2026-12-03 15:35 UTC, `.ci/run` on a fresh clone, idle but for it: made by `scripts/suite_costs.py` from the
# run's junit XML). A function's figure is shared evenly among its parameters; a group takes its own.
# Figures under 2 s are left to DEFAULT_COST. Only the order of the units depends on them: a figure that is
# off makes the run slower, never wrong.
COSTS: Mapping[str, float] = {
    "merge-request-release": 167.3,
    "torch-training": 143.4,
    "realworld": 134.3,
    "real-release-equivalence": 132.4,
    "tests/test_add_rule.py::test_a_scaffolded_rule_of_each_kind_fires_from_the_cli_on_what_it_declares": 105.6,
    "import-safety": 102.3,
    "fixed-point": 88.1,
    "fix-alone-releases": 74.5,
    "tests/test_tiers.py::test_fixtures_and_examples_every_file_parsed": 62.1,
    "dists": 61.4,
    "tests/test_hostile_speed.py::test_fix_regions_spliced_from_statements_are_the_whole_modules": 55.4,
    "tests/test_pre_commit.py::test_check_fails_fix_rewrites_then_both_pass": 36.6,
    "tests/test_number_displays.py::test_holding_displays_out_changes_no_finding_and_no_fixed_byte": 36.1,
    "tests/test_ast_findings.py::test_fixtures_and_examples_are_reported_alike": 34.3,
    "tests/test_excerpts.py::test_each_shape": 31.6,
    "tests/test_excerpts.py::test_padded_fixtures": 30.6,
    "tests/realworld/test_i18n_releases.py::test_every_finding_of_a_release_reads_in_chinese": 29.3,
    "tests/test_real_trees.py::test_installed_environment_check_and_fix_diff": 29.2,
    "tests/test_safety_input.py::test_odd_file_is_named_and_the_others_are_fixed": 27.2,
    "tests/test_batch.py::test_same_result_as_the_plain_engine_alone_and_in_a_pool": 25.3,
    "tests/realworld/test_upgrade_release.py::test_upgrade_to_2_14_lists_every_kept_override_with_what_the_sources_say_changed": 24.7,  # noqa: E501
    "tests/test_fix_reports_truth.py::test_fix_reports_what_a_fresh_check_of_the_fixed_tree_reports": 24.1,
    "tests/realworld/test_proof_mutants.py::test_no_behaviour_changing_mutant_is_removed": 23.4,
    "tests/test_release.py::test_dry_run_changes_nothing_and_the_release_commits_builds_and_tags": 23.2,
    "tests/test_diff_applies.py::test_git_apply_of_the_diff_gives_what_fix_writes": 22.2,
    "tests/test_fix_alone.py::test_each_reported_fix_applied_alone_leaves_working_code": 21.8,
    "tests/test_rule_cases.py::test_rule_case_matches_its_snapshot": 21.8,
    "tests/test_hostile_speed.py::test_warm_held_back_verdict_sees_an_importer_changed_with_its_time_put_back": 21.6,
    "tests/test_fix_transactions.py::test_sigint_sigterm_sighup_at_random_points_leave_every_group_all_old_or_all_new": 21.1,
    "tests/test_excerpts.py::test_fixtures_and_examples": 19.3,
    "tests/test_docs.py::test_the_example_output_is_what_the_tool_prints": 16.4,
    "tests/test_excerpts.py::test_comments_after_a_hidden_statement_stay_where_libcst_puts_them": 16.1,
    "tests/test_quiet_kept.py::test_text_formats_list_kept_findings_only_when_asked": 15.9,
    "tests/test_excerpts.py::test_every_fixture_file_alone": 15.8,
    "tests/test_import_probe.py::test_it_agrees_with_a_fresh_interpreter": 15.5,
    "tests/realworld/test_no_broken_imports.py::test_no_untrue_broken_import_in_a_real_release": 15.3,
    "tests/test_ast_findings.py::test_every_rule_case_is_reported_alike": 15.2,
    "tests/test_hostile_speed.py::test_warm_fsu306_sees_a_same_size_edit_whose_time_was_put_back": 15.0,
    "tests/test_rewrite_meaning.py::test_kept_code_still_reaches_the_modules_the_dropped_imports_loaded": 14.9,
    "tests/test_rewrite_meaning.py::test_a_dynamic_export_holds_the_fix_back_and_the_importer_still_works": 14.8,
    "tests/test_excerpts.py::test_a_hidden_string_statement_counts_as_libcst_counts_it": 14.1,
    "tests/test_tiers.py::test_installed_torch_sources": 14.0,
    "tests/test_lsp_server.py::test_fix_all_on_each_file_of_the_example_is_fix_of_the_project": 13.7,
    "tests/test_rewrite_meaning.py::test_package_loads_are_what_the_installed_torch_loads": 13.1,
    "tests/test_excerpts.py::test_installed_torch_sources": 12.2,
    "tests/test_merge_request_template.py::test_the_ascend_change_lists_each_removal_with_its_proof_and_what_stays": 12.1,
    "tests/test_fixable_count.py::test_check_counts_as_fixable_exactly_what_fix_then_fixes": 10.6,
    "tests/test_merge_request_template.py::test_the_template_is_ascend_in_chinese_unless_chosen": 10.5,
    "tests/test_excerpts.py::test_a_hidden_rebinding_of_a_module_alias_stops_the_rewrite": 10.4,
    "tests/test_batch.py::test_cli_json_is_the_same_with_one_and_two_jobs": 10.1,
    "tests/test_quiet_kept.py::test_machine_formats_list_every_finding": 9.5,
    "tests/test_i18n.py::test_machine_formats_stay_english": 9.3,
    "tests/test_boundaries.py::test_an_importer_through_a_namespace_package_keeps_the_installer": 9.3,
    "tests/test_boundaries.py::test_a_relative_import_inside_a_namespace_package_keeps_the_installer": 9.2,
    "tests/test_fix_journal.py::test_a_fix_of_a_member_in_another_folder_finds_the_groups_journal": 8.9,
    "tests/test_i18n_reasons.py::test_a_stream_that_cannot_show_chinese_gets_english_and_one_warning": 8.9,
    "tests/test_downstream.py::test_remaining_tests_pass_after_migration": 8.4,
    "tests/test_partial_runs.py::test_installer_named_by_a_file_outside_the_run_stays": 8.1,
    "tests/test_merge_request_template.py::test_the_design_document_is_linked_when_configured": 8.1,
    "tests/test_properties.py::test_planted_patch_is_found_and_removed_and_nothing_else_changes": 8.1,
    "tests/test_unchanged_index.py::test_a_warm_linked_group_loads_no_libcst": 7.9,
    "tests/test_example_migration.py::test_fix_gives_the_expected_tree": 7.4,
    "tests/test_flake8_plugin.py::test_flake8_and_check_agree_on_a_whole_tree": 7.0,
    "tests/test_fix_journal.py::test_check_and_diff_report_an_interrupted_group_and_write_nothing": 6.9,
    "tests/test_prefilter.py::test_every_file_with_a_finding_passes_the_prefilter": 6.9,
    "tests/test_excerpts.py::test_a_caller_through_an_import_alias_of_a_name_only_the_run_removes": 6.9,
    "tests/test_i18n_commands.py::test_doctor_prints_chinese": 6.8,
    "tests/test_libcst_runner.py::test_a_project_with_its_own_codemods_package_keeps_it": 6.7,
    "tests/test_excerpts.py::test_tabs_line_endings_and_no_final_newline": 6.6,
    "tests/test_one_count.py::test_a_held_back_fix_is_held_back_in_every_format": 6.3,
    "tests/test_merge_request_template.py::test_the_ascend_change_in_chinese_is_chinese": 6.2,
    "tests/test_cache_safety.py::test_an_unsafe_cache_folder_is_not_used_and_clean_handles_it": 6.2,
    "tests/test_properties.py::test_fix_without_a_patch_changes_nothing": 6.2,
    "tests/test_downstream.py::test_safe_fix_leaves_tests_alone_and_counts_unsafe_fixes": 6.1,
    "tests/test_excerpts.py::test_a_form_feed_libcst_does_not_give_back_in_hidden_code": 6.0,
    "tests/test_rewrite_meaning.py::test_a_deleted_del_leaves_fsdp2s_method_in_place": 5.8,
    "tests/test_merge_request.py::test_the_verification_cites_verify": 5.7,
    "tests/test_libcst_runner.py::test_runner_with_the_shipped_configuration_and_its_formatter": 5.6,
    "tests/test_lsp_server.py::test_an_editor_session": 5.6,
    "tests/test_hostile_outputs.py::test_line_formats_quote_control_characters_in_paths": 5.5,
    "tests/test_api.py::test_a_source_in_its_project_is_what_check_and_fix_make_of_its_file": 5.5,
    "tests/test_fix_journal.py::test_a_forged_journal_is_not_acted_on": 5.4,
    "tests/test_one_count.py::test_without_a_hold_every_format_counts_the_same_fixable": 5.4,
    "tests/test_safety_interrupt.py::test_sigint_mid_run_leaves_every_file_wholly_old_or_wholly_new": 5.3,
    "tests/test_i18n.py::test_the_locale_decides_when_nothing_else_does": 5.3,
    "tests/test_ast_findings.py::test_each_other_way_to_a_finding_leaves_the_file_to_libcst": 5.2,
    "tests/test_planner_on_ast.py::test_positions_one_statement_at_a_time_equal_libcsts_whole_module_pass": 5.1,
    "tests/test_semantic_model.py::test_the_ast_model_equals_the_libcst_facts_on_the_repositorys_sources": 4.9,
    "tests/test_hostile_outputs.py::test_fifos_in_the_cache_folder_never_hang_a_run": 4.9,
    "tests/test_libcst_runner.py::test_unpatch_under_libcst_runner_equals_fsdp_unpatch_fix": 4.9,
    "tests/test_libcst_runner.py::test_single_file_run_needs_the_installer_named": 4.9,
    "tests/test_merge_request.py::test_the_precondition_cites_doctor": 4.8,
    "tests/test_merge_request_template.py::test_the_audit_table_is_the_audit_of_the_tree_with_what_the_change_does": 4.8,
    "tests/test_i18n.py::test_a_chinese_locale_prints_chinese_findings_and_summary": 4.7,
    "tests/test_properties.py::test_check_never_crashes_and_reports_only_real_errors": 4.6,
    "tests/test_cli_habits.py::test_fix_from_stdin_gives_what_fix_path_writes_for_every_file_of_the_example": 4.4,
    "tests/test_bindings_walk.py::test_every_file_of_the_repository_reads_the_same": 4.3,
    "tests/test_lsp_server.py::test_quick_fixes_name_what_they_fix_and_say_why_not": 4.3,
    "tests/test_i18n.py::test_the_lang_flag_anywhere_on_the_command_line": 4.3,
    "tests/test_fix_journal.py::test_a_journal_through_a_symbolic_link_is_not_followed": 4.3,
    "tests/test_cache_safety.py::test_a_cache_dir_that_holds_other_files_is_not_used_and_clean_keeps_them": 4.3,
    "tests/test_fix_journal.py::test_a_file_edited_after_the_crash_stops_the_repair": 4.3,
    "tests/test_i18n.py::test_lang_en_wins_over_a_chinese_locale": 4.2,
    "tests/test_doctor.py::test_target_torch_older_than_native_since_fails": 4.1,
    "tests/test_i18n_reasons.py::test_a_stream_that_cannot_show_chinese_does_not_change_english_runs": 4.1,
    "tests/test_tiers.py::test_every_file_alone": 4.0,
    "tests/test_add_rule.py::test_a_site_rule_is_scaffolded_and_dispatched_with_each_site_and_its_verdict": 4.0,
    "tests/test_input_errors.py::test_five_thousand_implicitly_joined_string_literals_parse": 4.0,
    "tests/test_quiet_kept.py::test_github_annotates_no_kept_finding_unless_asked": 4.0,
    "tests/test_removed_names_remembered.py::test_strings_naming_a_function_the_fix_removed_are_still_reported_afterwards": 3.9,
    "tests/test_excerpts.py::test_a_match_class_keyword_is_a_use": 3.9,
    "tests/test_quiet_kept.py::test_the_summary_counts_what_it_does_not_list": 3.8,
    "tests/test_merge_request.py::test_the_removed_overrides_are_the_ones_check_proved": 3.8,
    "tests/test_tiers.py::test_each_way_to_a_finding": 3.8,
    "tests/test_merge_request.py::test_files_changed_and_summary_follow_what_was_written": 3.7,
    "tests/test_import_probe.py::test_nothing_of_an_earlier_tree_is_left_for_a_later_one": 3.7,
    "tests/test_flake8_plugin.py::test_flake8_on_the_migrated_example_agrees_with_check": 3.7,
    "tests/test_fix_transactions.py::test_a_file_that_cannot_be_edited_holds_back_its_whole_group": 3.7,
    "tests/test_release.py::test_a_bad_version_is_refused_and_nothing_changes": 3.6,
    "tests/test_fix_journal.py::test_a_journal_of_another_user_is_not_acted_on": 3.6,
    "tests/test_excerpts.py::test_a_lone_carriage_return_in_hidden_code_moves_no_noqa_comment": 3.6,
    "tests/test_safety_input.py::test_symlink_leaving_the_walked_folder_is_read_but_never_written": 3.6,
    "tests/test_libcst_runner.py::test_unpatch_on_the_downstream_fixture_equals_fix_references_included": 3.5,
    "tests/test_merge_request.py::test_the_description_in_chinese_follows_the_same_findings": 3.5,
    "tests/test_dispatch.py::test_each_kind_of_subject_is_handed_to_every_rule_the_registry_says_checks_it": 3.5,
    "tests/test_rule_registry.py::test_no_rule_code_as_a_literal_outside_its_declaration": 3.5,
    "tests/test_import_probe.py::test_it_names_the_modules_that_import_and_only_those": 3.4,
    "tests/test_excerpts.py::test_a_name_only_hidden_code_spells_decides_the_native_spelling": 3.4,
    "tests/test_fix_journal.py::test_sigkill_after_the_first_rename_is_finished_by_the_next_fix": 3.4,
    "tests/test_cache_safety.py::test_a_changed_file_outside_a_partial_run_gives_a_fresh_result": 3.4,
    "tests/test_excerpts.py::test_a_large_module_is_analysed_through_a_small_excerpt": 3.4,
    "tests/test_merge_request.py::test_everything_else_the_fix_removed_is_listed_with_it": 3.4,
    "tests/test_safety_input.py::test_huge_file_is_cheap": 3.4,
    "tests/test_lsp_server.py::test_a_fix_that_fix_holds_back_is_not_offered": 3.4,
    "tests/test_cache_safety.py::test_a_malicious_pickle_in_the_cache_is_never_loaded": 3.3,
    "tests/test_api.py::test_fix_paths_reports_what_is_left_as_the_fixed_tree_holds_it": 3.2,
    "tests/test_cache_safety.py::test_a_forged_entry_is_ignored": 3.2,
    "tests/realworld/test_proof_mutants.py::test_a_harmless_edit_still_removes_the_copies": 3.1,
    "tests/test_parse_once.py::test_a_linked_groups_fixes_are_computed_once": 3.1,
    "tests/test_dispatch.py::test_a_deselected_rule_of_the_linking_changes_no_other_rules_findings": 3.1,
    "tests/test_declared_torch.py::test_a_pinned_torch_gives_exactly_the_findings_of_target_torch": 3.1,
    "tests/test_cache_safety.py::test_an_outside_file_edited_to_the_same_size_with_its_time_put_back_gives_a_fresh_result": 3.0,
    "tests/test_dispatch.py::test_a_deselected_fsu001_changes_no_other_rules_findings_or_fixes": 3.0,
    "tests/test_safety_input.py::test_non_utf8_file_name": 2.9,
    "tests/test_fix_journal.py::test_a_journal_its_run_never_finished_writing_is_removed": 2.9,
    "tests/test_add_rule.py::test_the_scaffolded_module_alone_is_dispatched": 2.9,
    "tests/test_cache_safety.py::test_entries_signed_by_another_user_are_ignored": 2.8,
    "tests/test_i18n.py::test_lang_in_the_configuration_over_the_locale_under_the_flag": 2.8,
    "tests/test_merge_request.py::test_each_chinese_removal_carries_its_proof_not_the_whole_message": 2.8,
    "tests/test_ci_flags.py::test_audit_shows_the_bar_too_at_a_terminal": 2.8,
    "tests/test_merge_request.py::test_every_sentence_of_the_description_goes_through_the_templates": 2.7,
    "tests/test_fix_journal.py::test_a_journal_of_an_earlier_run_with_this_process_id_is_finished": 2.7,
    "tests/test_safety_static.py::test_command_line_runs_execute_nothing_they_scan": 2.7,
    "tests/test_fix_fixtures.py::test_fix_gives_expected_output": 2.7,
    "tests/test_excerpts.py::test_another_file_calls_the_installer_from_hidden_code": 2.7,
    "tests/test_ci_flags.py::test_colour_at_a_terminal_unless_no_color": 2.7,
    "tests/test_fixable_count.py::test_the_cached_verdict_follows_the_tree": 2.7,
    "tests/test_held_back_cost.py::test_check_analyses_a_linked_group_once_even_with_a_safe_fix": 2.7,
    "tests/test_merge_request_template.py::test_a_proof_outside_the_target_is_said_and_not_ticked": 2.6,
    "tests/test_declared_torch.py::test_a_bad_declaration_is_a_message_and_the_next_source_decides": 2.6,
    "tests/test_batch.py::test_check_creates_the_cache_at_the_project_root_and_clean_removes_it": 2.6,
    "tests/test_ci_flags.py::test_progress_bar_only_for_long_runs_at_a_terminal_outside_ci": 2.6,
    "tests/test_hostile_outputs.py::test_a_report_to_a_full_disk_exits_2_with_one_line": 2.6,
    "tests/test_tiers.py::test_the_screen_decides_most_fixture_files": 2.6,
    "tests/test_example_migration.py::test_check_on_the_legacy_project_reports_every_part": 2.6,
    "tests/test_removed_names_remembered.py::test_a_name_the_module_binds_again_by_import_or_assignment_is_not_removed": 2.6,
    "tests/test_flake8_plugin.py::test_flake8_ignore_and_clean_files": 2.6,
    "tests/test_batch.py::test_fix_writes_the_same_files_with_and_without_a_pool": 2.5,
    "tests/test_excerpts.py::test_excerpts_map_back_to_the_file": 2.5,
    "tests/test_fix_reports_truth.py::test_the_example_reports_the_kept_patch_where_it_now_is": 2.5,
    "tests/test_declared_torch.py::test_an_installed_torch_outside_the_declaration_is_one_warning": 2.5,
    "tests/test_downstream.py::test_unsafe_fix_migrates_the_whole_project": 2.5,
    "tests/test_hostile_outputs.py::test_a_fifo_in_the_tree_in_place_of_a_settings_file_never_hangs_a_run": 2.5,
    "tests/test_lsp_server.py::test_a_stray_print_does_not_corrupt_the_protocol": 2.5,
    "tests/test_fix_journal.py::test_a_journal_copied_with_its_tree_is_not_acted_on_from_the_copy": 2.4,
    "tests/test_merge_request_template.py::test_a_public_name_removed_is_an_interface_change": 2.4,
    "tests/test_batch.py::test_changed_configuration_gives_fresh_findings": 2.4,
    "tests/test_downstream.py::test_diff_shows_the_deleted_module": 2.3,
    "tests/test_batch.py::test_corrupt_entries_are_misses_not_crashes": 2.3,
    "tests/test_fix_transactions.py::test_the_cli_exits_2_and_names_the_blocking_file": 2.3,
    "tests/test_flake8_plugin.py::test_flake8_reports_the_same_findings_as_check": 2.3,
    "tests/test_startup_imports.py::test_a_finding_still_brings_rich_in_to_print_it": 2.3,
    "tests/test_hostile_speed.py::test_hostile_text_of_a_review_only_file_is_reported_as_libcst_reports_it": 2.3,
    "tests/test_i18n.py::test_the_chinese_readme_shows_what_the_tool_prints": 2.3,
    "test_no_torch": 2.3,
    "tests/test_fixable_count.py::test_json_says_which_fixes_are_held_back": 2.2,
    "tests/test_downstream.py::test_findings_and_their_places": 2.2,
    "tests/test_i18n.py::test_the_catalogs_are_current": 2.2,
    "tests/test_parse_once.py::test_a_linked_group_is_parsed_once": 2.2,
    "tests/test_declared_torch.py::test_a_fifo_or_device_named_like_a_requirements_file_is_named_never_read": 2.2,
    "tests/test_project.py::test_a_project_reached_through_a_link_is_the_real_one": 2.2,
    "tests/test_declared_torch.py::test_the_cache_does_not_outlive_a_changed_declaration": 2.2,
    "tests/test_i18n.py::test_fix_summary_errors_and_grouped_output_in_chinese": 2.2,
    "tests/test_removed_names_remembered.py::test_a_downstream_copy_of_the_patch_is_remembered_after_the_fix": 2.2,
    "tests/test_fixable_count.py::test_a_held_back_fix_is_marked_in_the_listing_and_in_the_statistics": 2.2,
    "tests/test_i18n_commands.py::test_audit_foreach_copy_in_english_and_json_are_unchanged": 2.1,
    "tests/test_declared_torch.py::test_a_hostile_requirements_file_name_stays_on_its_line_in_the_summary_and_the_warnings": 2.1,
    "tests/test_i18n_commands.py::test_doctor_in_english_and_its_json_stay_english": 2.1,
    "tests/test_startup_imports.py::test_a_fixable_file_brings_libcst_in": 2.1,
    "tests/test_rule_examples.py::test_rule_example": 2.1,
    "tests/test_declared_torch.py::test_a_range_whose_floor_is_safe_removes_all_of_it": 2.1,
    "tests/test_i18n.py::test_the_target_torch_and_its_warnings_in_chinese": 2.1,
    "tests/test_input_errors.py::test_a_gbk_file_is_told_its_coding_cookie_and_reads_with_it": 2.1,
    "tests/test_declared_torch.py::test_the_summary_and_show_settings_name_the_declaration": 2.0,
    "tests/test_hostile_outputs.py::test_a_replacement_in_syntax_this_python_cannot_compile_is_one_finding": 2.0,
    "tests/test_removed_names_remembered.py::test_without_a_project_nothing_is_remembered": 2.0,
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
