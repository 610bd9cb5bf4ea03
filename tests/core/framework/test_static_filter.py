"""The fast path's memo of node-static Filter verdicts (``static_filter.py``)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from scheduler_core.framework.static_filter import (StaticFilterMemo, static_key,
                                                    static_prefix_length)
from scheduler_core.plugins import names
from tests.core.wrappers import make_pod


def _plugins(*plugin_names: str) -> list:
    return [SimpleNamespace(NAME=n) for n in plugin_names]


@pytest.mark.parametrize("plugins, expected", [
    pytest.param(_plugins(names.NODE_UNSCHEDULABLE, names.NODE_NAME, names.TAINT_TOLERATION,
                          names.NODE_AFFINITY, names.NODE_PORTS, names.NODE_RESOURCES_FIT),
                 4, id="the default order: four static plugins lead"),
    pytest.param(_plugins(names.NODE_RESOURCES_FIT, names.NODE_UNSCHEDULABLE), 0,
                 id="a pod-dependent plugin first: no prefix"),
    pytest.param(_plugins(names.TAINT_TOLERATION, names.NODE_PORTS, names.NODE_AFFINITY), 1,
                 id="the prefix stops at the first pod-dependent plugin"),
    pytest.param([], 0, id="no filter plugins"),
])
def test_static_prefix_length(plugins, expected) -> None:
    assert static_prefix_length(plugins) == expected


def test_pods_with_the_same_static_fields_share_a_key() -> None:
    a = make_pod("a").label("app", "x").toleration("k", "v", "NoSchedule").obj()
    b = make_pod("b").label("app", "y").toleration("k", "v", "NoSchedule").obj()
    c = make_pod("c").toleration("other", "v", "NoSchedule").obj()
    d = make_pod("d").toleration("k", "v", "NoSchedule").node_selector({"zone": "z1"}).obj()
    assert static_key(a, set()) == static_key(b, set())
    assert static_key(a, set()) != static_key(c, set())
    assert static_key(a, set()) != static_key(d, set())
    assert static_key(a, set()) != static_key(a, {names.NODE_AFFINITY})


def test_verdicts_belong_to_the_pod_of_the_current_cycle_only() -> None:
    memo = StaticFilterMemo()
    a, b = make_pod("a").obj(), make_pod("b").obj()
    assert memo.verdicts_for(a) is None
    memo.start_cycle(a, set())
    first = memo.verdicts_for(a)
    assert first == {} and memo.verdicts_for(b) is None
    first["n1"] = ("node", "verdict")
    memo.start_cycle(b, set())  # same static fields: the same verdicts are reused
    assert memo.verdicts_for(b) is first and memo.verdicts_for(a) is None
