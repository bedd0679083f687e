"""The suite's tiers: which tests CI runs, and which belong to the bench.

CI (``scripts/run test``) runs every test but those marked ``whole``: the whole-space comparisons
of engines over every design, mutant and configuration, and the long searches. Those run from the
bench (``scripts/run whole``, docs/bench.md); CI keeps a small representative of each, named
here, so that every comparison still runs on every change, only on fewer designs.

``WHOLE`` maps a test (its node id without parameters) to the parameter ids CI keeps; a test
with no representative kept runs only from the bench. ``tests/conftest.py`` applies the table,
and a test fails when an entry names no test, or a kept id names no parameter."""

from __future__ import annotations

WHOLE: dict[str, tuple[str, ...]] = {
    # every manifest entry reproduced by exploration
    "tests/specs/test_manifest.py::test_entry_reproduces": (
        "zk-lock@std",
        "table/HBASE-27214@t-add-peer",
        "table/hfile-refs-after-commit@t-hfile",
    ),
    "tests/specs/test_compiled.py::test_the_c_search_reproduces_every_manifest_entry": (),
    # every mutant's counterexample page drawn again
    "tests/replcheck/test_docs.py::test_each_mutant_has_its_counterexample_drawn": (
        "zk-lock/delete-current-wal",
        "table/position-not-reset",
    ),
    # bounded model checking against exploration, design by design
    "tests/specs/test_bmc.py::test_engines_agree_on_every_zk_design_and_mutant": (
        "zk-lock",
        "zk-lock/delete-current-wal",
    ),
    "tests/specs/test_bmc.py::"
    "test_engines_agree_on_every_table_era_design_and_mutant_to_a_shallow_depth": (
        "table",
        "table/position-not-reset",
    ),
    "tests/specs/test_bmc.py::"
    "test_bmc_finds_each_deep_table_era_violation_where_exploration_does": ("FIRST",),
    "tests/specs/test_bmc.py::test_engines_agree_on_table_era_designs_and_mutants": ("FIRST",),
    "tests/specs/test_bmc.py::test_every_invariant_is_inductive_with_its_lemmas": ("FIRST",),
    "tests/specs/test_lemmas_table.py::test_every_invariant_is_inductive_with_the_lemmas": (
        "FIRST",
    ),
    "tests/model/features/test_sync_layout.py::"
    "test_bmc_finds_each_violation_where_exploration_does": ("FIRST",),
    "tests/model/features/test_migration.py::test_bounded_model_checking_agrees_with_exploration": (
        "FIRST",
    ),
    "tests/model/features/test_migration_legacy.py::"
    "test_bounded_model_checking_agrees_with_exploration": ("FIRST",),
    # the layout's flat text against the design, state space by state space
    "tests/model/zk/test_zk_layout.py::test_every_zk_configuration_matches": ("FIRST",),
    "tests/model/zk/test_zk_layout.py::test_every_zk_mutant_matches_on_its_configuration": (
        "FIRST",
    ),
    "tests/model/table/test_table_layout.py::"
    "test_every_supported_table_mutant_matches_on_its_configuration": ("FIRST",),
    "tests/model/table/test_table_layout.py::test_every_table_configuration_matches": ("FIRST",),
    "tests/model/table/test_table_layout.py::"
    "test_other_supported_designs_and_configurations_match": ("FIRST",),
    "tests/model/features/test_sync_layout.py::test_sync_matches_across_the_state_space": (
        "FIRST",
    ),
    "tests/model/features/test_sync_layout.py::"
    "test_every_sync_design_and_mutant_matches_on_a_prefix": ("FIRST",),
    "tests/model/features/test_sync_layout.py::test_engines_agree_on_sync": ("FIRST",),
    "tests/model/features/test_table_layout_features.py::test_engines_agree": ("FIRST",),
    "tests/model/features/test_sync_remote.py::test_flat_and_model_agree_on_the_state_space": (
        "FIRST",
    ),
    # the generated program against the plain interpreter, step by step
    "tests/model/engine/test_text_model.py::test_every_zookeeper_step_agrees": ("FIRST",),
    "tests/model/engine/test_text_model.py::test_every_step_agrees": ("FIRST",),
    "tests/model/engine/test_plain.py::test_the_plain_interpreter_agrees_on_more_configurations": (
        "FIRST",
    ),
    "tests/model/engine/test_text_model.py::test_a_zombie_agrees": (),
    "tests/model/engine/test_text_model.py::test_peer_toggles_agree": (),
    "tests/model/engine/test_canonical.py::test_many_servers_cost_little": (),
    "tests/specs/test_engines_agree.py::test_plain_generated_c_and_z3_agree": (
        "table-t-bootstrap",
        "table-naive-t-bootstrap",
    ),
    "tests/replcheck/test_list_steps.py::"
    "test_an_added_action_or_choice_runs_alike_on_every_engine": (
        "zk-lock/cleaner-may-skip-lookup",
    ),
    # engines and bounded model checking against exploration, feature by feature: the correct
    # design stays in CI (the mutant's entry is in the manifest's CI representatives or its own)
    "tests/model/features/test_hfile_refs.py::test_engines_agree": ("table",),
    "tests/model/features/test_serial.py::test_bounded_model_checking_agrees_with_exploration": (
        "table-6",
    ),
    "tests/model/engine/test_text_model.py::test_the_table_eras_relay_clusters_agree": (
        "cfg2-6-3156-steps2",
    ),
    # the soak runs an older cluster recorded: one per reason each was flagged for
    "tests/conformance/validate/test_golden.py::test_the_flagged_soak_runs_are_judged": (
        "zk-lock-run-007-seed7607",
        "zk-lock-run-032-seed7032",
        "zk-multi-run-054-seed7054",
        "table-run-022-seed7022",
    ),
    # the gate over a reviewer's added action and choice (one of them on every engine stays)
    "tests/replcheck/test_list_steps.py::test_the_added_action_and_choice_are_caught_by_check": (),
    # Spark's registration retries against a listener that is no master (about a minute)
    "tests/replcheck/test_failure_modes_runs.py::"
    "test_mine_names_a_master_that_is_no_spark_master_in_one_line": (),
    # the conformance search's long run against a cluster mutant
    "tests/replcheck/test_cli_conform.py::"
    "test_ci_profile_finds_a_cluster_mutant_and_prints_a_test": (),
    "tests/replcheck/test_cli_conform.py::test_ci_profile_passes_a_correct_design": ("FIRST",),
}
"""Test -> the parameter ids CI keeps (``FIRST``: the first parameter collected)."""
