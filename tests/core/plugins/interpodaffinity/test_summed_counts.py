"""Count maps handed over as the vectors they sum (counts.SummedCounts, PreFilterState.set_summed).

The fast path's PreFilter gives InterPodAffinity's per topology pair counts as per-value vectors;
the map the reference reads is built from them only when something reads it. Whatever is asked,
the answer must be the one the map built pair by pair gives.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from scheduler_core.framework.types import new_pod_info
from scheduler_core.plugins.interpodaffinity.counts import SummedCounts
from scheduler_core.plugins.interpodaffinity.filtering import PreFilterState
from scheduler_core.plugins.interpodaffinity.plugin import _counts_json
from tests.core.wrappers import make_node, make_pod, selector


def _random_parts(seed: int) -> tuple[SummedCounts, dict]:
    """Parts over two topology keys, some values never counted, vectors shorter and longer than
    the names; and the map the reference adds up pair by pair."""
    rng = random.Random(seed)
    names = {"zone": [f"z{i}" for i in range(rng.randint(1, 6))],
             "kubernetes.io/hostname": [f"node-{rng.randrange(10**6):06d}" for _ in range(rng.randint(1, 400))]}
    names["kubernetes.io/hostname"] = list(dict.fromkeys(names["kubernetes.io/hostname"]))
    summed, want = SummedCounts(), {}
    for _ in range(rng.randint(0, 5)):
        tk = rng.choice(sorted(names))
        vec = np.array([rng.choice((0, 0, 1, 2, 7)) for _ in range(rng.randint(0, len(names[tk]) + 3))],
                       np.int64)
        vec[len(names[tk]):] = 0  # (past the names: values not seen yet, so never counted)
        for v in np.flatnonzero(vec).tolist():
            pair = (tk, names[tk][v])
            want[pair] = want.get(pair, 0) + int(vec[v])
        summed.add(tk, names[tk], vec)
    return summed, want


@pytest.mark.parametrize("seed", range(40))
def test_summed_counts_give_the_map_added_up_pair_by_pair(seed) -> None:
    summed, want = _random_parts(seed)
    assert summed.empty() == (not want)
    pairs, total = summed.first_pairs(100)
    listed = [{"topologyKey": k, "topologyValue": v, "count": n} for k, v, n in pairs]
    assert (listed, total) == (_counts_json(want), len(want))
    assert summed.counts() == want


@pytest.mark.parametrize("seed", range(10))
def test_a_state_given_summed_maps_reads_and_changes_as_one_given_the_maps(seed) -> None:
    """Reading, cloning and updating (AddPod/RemovePod) a state whose maps are summed vectors: the
    same maps as a state given them built, and a clone's change is not the original's."""
    summed, want = _random_parts(seed)
    pod = make_pod("p").label("app", "web").pod_anti_affinity("zone", selector({"app": "web"})).obj()
    lazy = PreFilterState(new_pod_info(pod), {})
    lazy.set_summed(existing=summed)
    built = PreFilterState(new_pod_info(pod), {})
    built.existing_anti_affinity_counts = dict(want)
    assert lazy.has_counts("existing") == bool(want)
    clone = lazy.clone()
    other = make_pod("w").label("app", "web").pod_anti_affinity("zone", selector({"app": "web"})).obj()
    node = make_node("n1").zone("z0").obj()
    for s in (clone, built):
        s.update_with_pod(new_pod_info(other), node, 1)
    assert lazy.existing_anti_affinity_counts == want
    assert clone.existing_anti_affinity_counts == built.existing_anti_affinity_counts
    assert (clone.affinity_counts, clone.anti_affinity_counts) == ({}, {})
