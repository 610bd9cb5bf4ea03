"""Constraint building (common.go) and the default selector (helper/spread.go)."""
from __future__ import annotations

import pytest

from scheduler_core.framework.types import new_pod_info
from scheduler_core.k8s import labels as klabels
from scheduler_core.k8s.types import (DO_NOT_SCHEDULE, HONOR, IGNORE, LABEL_HOSTNAME,
                                      SCHEDULE_ANYWAY, Service,
                                      TopologySpreadConstraint, Workload)
from scheduler_core.plugins.helper.spread import default_selector, default_selector_with_sources
from scheduler_core.plugins.podtopologyspread.common import (
    ORIGIN_CLUSTER_DEFAULT, Constraint, build_default_constraints, count_pods_match_selector,
    filter_topology_spread_constraints)
from tests.core.wrappers import make_pod, selector

FOO = selector({"foo": "bar"})


def req(key: str, *values: str, op: str = klabels.IN) -> klabels.Requirement:
    return klabels.Requirement(key, op, frozenset(values))


def sel(*reqs: klabels.Requirement) -> klabels.Selector:
    return klabels.Selector(tuple(reqs))


BUILD_CASES = [
    ("only constraints with the requested action are kept",
     [TopologySpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO),
      TopologySpreadConstraint(2, "node", SCHEDULE_ANYWAY, FOO)], {}, DO_NOT_SCHEDULE,
     [Constraint(1, "zone", sel(req("foo", "bar")), 1, HONOR, IGNORE, DO_NOT_SCHEDULE)]),
    ("unset minDomains and policies read as 1, Honor and Ignore",
     [TopologySpreadConstraint(1, "zone", SCHEDULE_ANYWAY, FOO)], {}, SCHEDULE_ANYWAY,
     [Constraint(1, "zone", sel(req("foo", "bar")), 1, HONOR, IGNORE, SCHEDULE_ANYWAY)]),
    ("set minDomains and policies are kept",
     [TopologySpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO, 3, IGNORE, HONOR)], {},
     DO_NOT_SCHEDULE,
     [Constraint(1, "zone", sel(req("foo", "bar")), 3, IGNORE, HONOR, DO_NOT_SCHEDULE)]),
    ("matchLabelKeys: the pod's values come first, ANDed with the selector",
     [TopologySpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO,
                               match_label_keys=("hash", "missing"))],
     {"hash": "abc", "foo": "bar"}, DO_NOT_SCHEDULE,
     [Constraint(1, "zone", sel(req("hash", "abc"), req("foo", "bar")), 1, HONOR, IGNORE,
                 DO_NOT_SCHEDULE)]),
    ("matchLabelKeys all missing from the pod leave the selector unchanged",
     [TopologySpreadConstraint(1, "zone", DO_NOT_SCHEDULE, FOO, match_label_keys=("hash",))],
     {}, DO_NOT_SCHEDULE,
     [Constraint(1, "zone", sel(req("foo", "bar")), 1, HONOR, IGNORE, DO_NOT_SCHEDULE)]),
    ("a null labelSelector compiles to Nothing",
     [TopologySpreadConstraint(1, "zone", DO_NOT_SCHEDULE, None)], {}, DO_NOT_SCHEDULE,
     [Constraint(1, "zone", klabels.NOTHING, 1, HONOR, IGNORE, DO_NOT_SCHEDULE)]),
]


@pytest.mark.parametrize("name,constraints,pod_labels,action,want", BUILD_CASES,
                         ids=[c[0] for c in BUILD_CASES])
def test_filter_topology_spread_constraints(name, constraints, pod_labels, action, want):
    assert filter_topology_spread_constraints(constraints, pod_labels, action) == want


def test_count_pods_match_selector_rules() -> None:
    pis = [new_pod_info(p) for p in (
        make_pod("match").label("foo", "bar").obj(),
        make_pod("other-ns", "ns2").label("foo", "bar").obj(),
        make_pod("terminating").label("foo", "bar").terminating().obj(),
        make_pod("mismatch").label("foo", "baz").obj())]
    s = klabels.selector_from_label_selector(FOO)
    assert (count_pods_match_selector(pis, s, "default"),
            count_pods_match_selector(pis, s, "ns2"),
            count_pods_match_selector(pis, klabels.EVERYTHING, "default"),
            count_pods_match_selector(pis, klabels.NOTHING, "default")) == (1, 1, 0, 0)


WEB = make_pod("web-1").labels({"app": "web", "tier": "fe"})
RS = Workload("ReplicaSet", "web-rs", selector=selector(None, ("app", "In", ["web"])))
SS = Workload("StatefulSet", "web-ss", selector=selector({"app": "web"}))
RC = Workload("ReplicationController", "web-rc", selector=selector({"rc": "1"}))
SVC_APP = Service("svc-app", selector={"app": "web"})
SVC_TIER = Service("svc-tier", selector={"tier": "fe"})

SELECTOR_CASES = [
    ("nothing selects the pod: empty", WEB.obj(), (), (), sel(), ()),
    ("Services selecting the pod are merged",
     WEB.obj(), (SVC_APP, SVC_TIER, Service("other", selector={"app": "db"})), (),
     sel(req("app", "web"), req("tier", "fe")), ("Service default/svc-app",
                                                 "Service default/svc-tier")),
    ("a Service without a selector selects nothing", WEB.obj(), (Service("headless"),), (),
     sel(), ()),
    ("a Service in another namespace doesn't select the pod", WEB.obj(),
     (Service("svc", "other", {"app": "web"}),), (), sel(), ()),
    ("the controlling ReplicaSet adds its requirements",
     WEB.owner("ReplicaSet", "web-rs").obj(), (SVC_TIER,), (RS,),
     sel(req("tier", "fe"), req("app", "web")), ("Service default/svc-tier",
                                                 "ReplicaSet default/web-rs")),
    ("the controlling StatefulSet adds its requirements",
     WEB.owner("StatefulSet", "web-ss").obj(), (), (SS,), sel(req("app", "web")),
     ("StatefulSet default/web-ss",)),
    ("a ReplicationController's map is merged with the Services' labels",
     make_pod("p").labels({"app": "web", "rc": "1"})
     .owner_ref("v1", "ReplicationController", "web-rc").obj(),
     (SVC_APP,), (RC,), sel(req("app", "web"), req("rc", "1")),
     ("Service default/svc-app", "ReplicationController default/web-rc")),
    ("an owner that doesn't exist adds nothing", WEB.owner("ReplicaSet", "gone").obj(), (),
     (RS,), sel(), ()),
    ("a ReplicaSet with another apiVersion is not a known controller",
     make_pod("p").labels({"app": "web"})
     .owner_ref("extensions/v1beta1", "ReplicaSet", "web-rs").obj(),
     (), (RS,), sel(), ()),
    ("a non-controller owner reference is ignored",
     make_pod("p").labels({"app": "web"})
     .owner_ref("apps/v1", "ReplicaSet", "web-rs", controller=False).obj(),
     (), (RS,), sel(), ()),
]


@pytest.mark.parametrize("name,pod,services,workloads,want,sources", SELECTOR_CASES,
                         ids=[c[0] for c in SELECTOR_CASES])
def test_default_selector(name, pod, services, workloads, want, sources) -> None:
    got = default_selector_with_sources(pod, services, workloads)
    assert (got.selector, got.sources) == (want, sources)
    assert default_selector(pod, services, workloads) == want


def test_build_default_constraints_use_the_deduced_selector() -> None:
    defaults = (TopologySpreadConstraint(1, LABEL_HOSTNAME, DO_NOT_SCHEDULE),
                TopologySpreadConstraint(2, "zone", SCHEDULE_ANYWAY))
    pod = WEB.owner("ReplicaSet", "web-rs").obj()
    got = build_default_constraints(defaults, pod, (), (RS,), DO_NOT_SCHEDULE)
    assert got == [Constraint(1, LABEL_HOSTNAME, sel(req("app", "web")), 1, HONOR, IGNORE,
                              DO_NOT_SCHEDULE, ORIGIN_CLUSTER_DEFAULT,
                              ("ReplicaSet default/web-rs",))]


def test_build_default_constraints_need_a_non_empty_selector() -> None:
    defaults = (TopologySpreadConstraint(1, LABEL_HOSTNAME, DO_NOT_SCHEDULE),)
    assert build_default_constraints(defaults, WEB.obj(), (), (), DO_NOT_SCHEDULE) == []
