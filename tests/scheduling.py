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

# CPU seconds (user + system, the test process and the processes it waited for) that a group, a test file or a
# test function (all its parameters) took (2026-12-01, a full run on two workers at load 5 to 9, and
# `-m "not slow"`; see docs/development.md). A file's or a function's figure is shared evenly among its tests;
# a group takes its own. Figures under 2 s are left to DEFAULT_COST. Only the order of the units depends on
# them: a figure that is off makes the run slower, never wrong.
COSTS: Mapping[str, float] = {
    "torch-training": 128,
    "realworld": 75,
    "fixed-point": 51,
    "tests/test_excerpts.py::test_real_releases": 47.0,
    "import-safety": 46,
    "dists": 45,
    "tests/realworld/test_fix_alone_releases.py::test_each_reported_fix_of_a_release_applied_alone_leaves_working_code": 45.0,
    "tests/test_excerpts.py::test_each_shape": 26.9,
    "tests/test_excerpts.py::test_a_large_module_is_analysed_through_a_small_excerpt": 26.9,
    "tests/test_excerpts.py::test_padded_fixtures": 25.0,
    "tests/test_batch.py::test_same_result_as_the_plain_engine_alone_and_in_a_pool": 21.7,
    "tests/test_excerpts.py::test_fixtures_and_examples": 16.2,
    "tests/test_diff_applies.py::test_git_apply_of_the_diff_gives_what_fix_writes": 15.0,
    "tests/realworld/test_i18n_releases.py::test_every_finding_of_a_release_reads_in_chinese": 14.4,
    "tests/test_excerpts.py::test_a_hidden_string_statement_counts_as_libcst_counts_it": 13.6,
    "tests/test_docs.py::test_the_example_output_is_what_the_tool_prints": 13.5,
    "tests/test_excerpts.py::test_comments_after_a_hidden_statement_stay_where_libcst_puts_them": 13.0,
    "tests/test_excerpts.py::test_every_fixture_file_alone": 12.3,
    "tests/test_excerpts.py::test_installed_torch_sources": 10.4,
    "tests/test_excerpts.py::test_a_hidden_rebinding_of_a_module_alias_stops_the_rewrite": 9.4,
    "tests/test_batch.py::test_cli_json_is_the_same_with_one_and_two_jobs": 9.0,
    "tests/test_downstream.py::test_remaining_tests_pass_after_migration": 8.0,
    "tests/test_excerpts.py::test_a_caller_through_an_import_alias_of_a_name_only_the_run_removes": 6.8,
    "tests/realworld/test_merge_request_release.py::test_the_description_of_a_real_release_follows_its_findings": 5.7,
    "tests/test_example_migration.py::test_fix_gives_the_expected_tree": 5.1,
    "tests/test_excerpts.py::test_tabs_line_endings_and_no_final_newline": 4.9,
    "tests/realworld/test_merge_request_release.py::test_the_description_of_a_real_release_in_chinese": 4.7,
    "tests/test_excerpts.py::test_a_form_feed_libcst_does_not_give_back_in_hidden_code": 4.4,
    "tests/test_downstream.py::test_safe_fix_leaves_tests_alone_and_counts_unsafe_fixes": 4.3,
    "tests/test_cache_safety.py::test_an_unsafe_cache_folder_is_not_used_and_clean_handles_it": 4.0,
    "tests/test_excerpts.py::test_a_match_class_keyword_is_a_use": 3.4,
    "tests/test_api.py::test_a_source_in_its_project_is_what_check_and_fix_make_of_its_file": 3.4,
    "tests/test_declared_torch.py::test_a_range_whose_floor_is_safe_removes_all_of_it": 3.3,
    "tests/test_cli.py::test_fix_then_check_is_clean_and_second_fix_changes_nothing": 3.2,
    "tests/test_cache_safety.py::test_a_cache_dir_that_holds_other_files_is_not_used_and_clean_keeps_them": 3.0,
    "tests/test_excerpts.py::test_a_name_only_hidden_code_spells_decides_the_native_spelling": 3.0,
    "tests/test_declared_torch.py::test_a_pinned_torch_gives_exactly_the_findings_of_target_torch": 2.9,
    "tests/test_excerpts.py::test_another_file_calls_the_installer_from_hidden_code": 2.7,
    "tests/test_doctor.py::test_target_torch_older_than_native_since_fails": 2.6,
    "tests/test_declared_torch.py::test_a_bad_declaration_is_a_message_and_the_next_source_decides": 2.3,
    "tests/test_declared_torch.py::test_the_cache_does_not_outlive_a_changed_declaration": 2.2,
    "tests/test_downstream.py::test_unsafe_fix_migrates_the_whole_project": 2.2,
    "tests/test_declared_torch.py::test_an_installed_torch_outside_the_declaration_is_one_warning": 2.2,
    "tests/test_api.py::test_fix_paths_reports_what_is_left_as_the_fixed_tree_holds_it": 2.1,
    "tests/test_example_migration.py::test_check_on_the_legacy_project_reports_every_part": 2.1,
    "tests/test_cli.py::test_unparsable_file_exit_2_others_still_processed": 2.0,
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
