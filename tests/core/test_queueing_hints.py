"""AssignedPodAdd queueing hints of PodTopologySpread and InterPodAffinity."""
import pytest

from scheduler_core.queueing_hints import (inter_pod_affinity_hint, spread_hint,
                                           worth_retrying_after_delete,
                                           worth_retrying_after_bind)
from tests.core.wrappers import make_pod, selector

SPREAD = make_pod("p").label("app", "web").spread(1, "zone", "DoNotSchedule", {"app": "web"}).obj()
AFFINITY = make_pod("p").pod_affinity("zone", selector({"app": "db"})).obj()

CASES = [
    ("spread: a matching pod in the namespace queues", spread_hint, SPREAD,
     make_pod("q").label("app", "web").obj(), True),
    ("spread: a pod with other labels is skipped", spread_hint, SPREAD,
     make_pod("q").label("app", "db").obj(), False),
    ("spread: a matching pod in another namespace is skipped", spread_hint, SPREAD,
     make_pod("q", "other").label("app", "web").obj(), False),
    ("spread: default constraints always queue", spread_hint, make_pod("p").obj(),
     make_pod("q").obj(), True),
    ("affinity: a pod matching a required term queues", inter_pod_affinity_hint, AFFINITY,
     make_pod("q").label("app", "db").obj(), True),
    ("affinity: a pod matching no term is skipped", inter_pod_affinity_hint, AFFINITY,
     make_pod("q").label("app", "web").obj(), False),
    ("affinity: no pod affinity (rejected by anti-affinity) is skipped",
     inter_pod_affinity_hint, make_pod("p").pod_anti_affinity("zone", selector({"a": "b"})).obj(),
     make_pod("q").obj(), False),
]


@pytest.mark.parametrize("hint,pending,added,want", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_hint(hint, pending, added, want) -> None:
    assert hint(pending, added) is want


def test_retry_when_any_rejector_queues_or_none_recorded() -> None:
    other = make_pod("q").label("app", "db").obj()
    assert worth_retrying_after_bind(SPREAD, {"PodTopologySpread", "NodeResourcesFit"},
                                     other) is False
    assert worth_retrying_after_bind(AFFINITY, {"InterPodAffinity"}, other) is True
    assert worth_retrying_after_bind(SPREAD, set(), other) is True


@pytest.mark.parametrize("rejectors,deleted,want", [
    ({"NodeAffinity", "TaintToleration"}, make_pod("v").obj(), False),
    ({"NodeAffinity", "NodeResourcesFit"}, make_pod("v").obj(), True),
    ({"NodePorts"}, make_pod("v").obj(), False),
    ({"NodePorts"}, make_pod("v").host_port(80).obj(), True),
    (set(), make_pod("v").obj(), True),
], ids=["node-only rejectors ignore pod deletions", "resources can be freed",
        "NodePorts ignores pods without host ports", "NodePorts reacts to freed host ports",
        "an error is retried on any event"])
def test_retry_after_delete(rejectors, deleted, want) -> None:
    assert worth_retrying_after_delete(make_pod("p").obj(), rejectors, deleted) is want
