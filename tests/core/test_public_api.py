"""The package's public surface stays callable however its submodules were imported."""
import importlib

import scheduler_core

SCENARIO = """
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: default}, spec: {containers: [{name: c, image: x}]}}
"""


def test_simulate_is_still_the_function_after_its_module_is_imported():
    importlib.import_module("scheduler_core.simulate")
    scenario = scheduler_core.load_scenario(SCENARIO)
    for _ in range(2):  # a second call used to hit the shadowing submodule
        result = scheduler_core.simulate(scenario, seed=0)
        assert result["pods"][0]["pod"] == "default/p"
        assert result["pods"][0]["outcome"] == "Scheduled"
        assert result["pods"][0]["node"] == "n1"
