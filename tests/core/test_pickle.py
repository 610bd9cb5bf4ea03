"""A loaded scenario survives pickling (the web app keeps loaded scenarios on disk for its
workers): the copy simulates exactly as the original, explanations included, and runs on
the same compiled paths (template caches rely on pods of one workload sharing objects)."""

import pickle

import pytest

from scheduler_core import load_scenario, simulate
from tests.bench.generate import generate, to_yaml


@pytest.mark.parametrize("size", ["60x400", "dense-40x60"])
def test_an_unpickled_scenario_simulates_exactly_as_the_loaded_one(size) -> None:
    text = to_yaml(generate(size, seed=7).objects)
    loaded = load_scenario(text)
    copy = pickle.loads(pickle.dumps(loaded, protocol=pickle.HIGHEST_PROTOCOL))
    assert (copy.pods, copy.nodes, copy.workloads) == (loaded.pods, loaded.nodes, loaded.workloads)
    assert any(p.affinity for p in copy.pods) and any(p.tolerations for p in copy.pods)
    assert simulate(copy, seed=1, detail=True) == simulate(loaded, seed=1, detail=True)


def test_pods_of_one_workload_still_share_their_decoded_parts() -> None:
    text = to_yaml(generate("20x100", seed=3).objects)
    copy = pickle.loads(pickle.dumps(load_scenario(text)))
    by_owner: dict = {}
    for pod in copy.pods:
        if pod.owner_references:
            by_owner.setdefault(pod.owner_references[0].name, []).append(pod)
    shared = [pods for pods in by_owner.values() if len(pods) > 1]
    assert shared
    for pods in shared:
        assert all(p.tolerations is pods[0].tolerations for p in pods)
        assert all(p.topology_spread_constraints is pods[0].topology_spread_constraints for p in pods)
