"""VolumeBinding PreFilter/Filter/Reserve and the binder, re-expressing upstream v1.34
volume_binding_test.go (TestVolumeBinding) and binder_test.go (FindPodVolumes with bound,
unbound and provisioned claims; FindMatchingVolume from pv_helpers_test.go)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Status
from scheduler_core.k8s import storage as st
from scheduler_core.k8s.types import Node, Pod
from scheduler_core.plugins.volumebinding import VolumeBinding
from scheduler_core.plugins.volumebinding.binder import (
    ERR_REASON_BIND_CONFLICT, ERR_REASON_NODE_CONFLICT, ERR_REASON_PV_NOT_EXIST,
    find_matching_volume)
from scheduler_core.plugins.volumebinding.volume_binding import ERR_REASON_UNBOUND_IMMEDIATE
from scheduler_core.plugins.volumebinding.assume_cache import VolumeCache
from tests.core.plugins.volumebinding.fake_handle import FakeHandle
from tests.core.wrappers import (GI, make_class, make_node, make_pod, make_pv, make_pvc,
                                 selector, storage)

OK = Status()
SKIP = Status(Code.Skip)
WAIT = "wait-sc"  # WaitForFirstConsumer, no provisioner
IMMEDIATE = "immediate-sc"
WAIT_HDD = "wait-hdd-sc"
PROVISIONING = "provisioning-sc"  # WaitForFirstConsumer with a provisioner, zone a only
CLASSES = [make_class(WAIT, provisioner=st.NOT_SUPPORTED_PROVISIONER),
           make_class(IMMEDIATE, st.IMMEDIATE),
           make_class(WAIT_HDD, provisioner=st.NOT_SUPPORTED_PROVISIONER),
           make_class(PROVISIONING, zones=("a",))]


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UnschedulableAndUnresolvable, reasons)


def node1(**labels: str) -> Node:
    w = make_node("node-a")
    for k, v in labels.items():
        w.label(k, v)
    return w.obj()


@dataclass
class Case:
    name: str
    pod: Pod
    node: Node
    pvcs: list = field(default_factory=list)
    pvs: list = field(default_factory=list)
    want_pre_filter: Status = OK
    want_filter: Status = OK


CASES = [
    Case("pod has not pvcs", make_pod("pod-a").obj(), node1(), want_pre_filter=SKIP),
    Case("all bound", make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         [make_pvc("pvc-a", volume="pv-a")], [make_pv("pv-a", claim="default/pvc-a")]),
    Case("PVC does not exist", make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         want_pre_filter=unresolvable('persistentvolumeclaim "pvc-a" not found')),
    Case("Part of PVCs do not exist", make_pod("pod-a").pvc("pvc-a").pvc("pvc-b").obj(),
         node1(), [make_pvc("pvc-a", volume="pv-a")], [make_pv("pv-a", claim="default/pvc-a")],
         want_pre_filter=unresolvable('persistentvolumeclaim "pvc-b" not found')),
    Case("immediate claims not bound", make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         [make_pvc("pvc-a", cls=IMMEDIATE)],
         want_pre_filter=unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)),
    Case("unbound claims no matches", make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         [make_pvc("pvc-a", cls=WAIT)], want_filter=unresolvable(ERR_REASON_BIND_CONFLICT)),
    Case("bound and unbound unsatisfied",
         make_pod("pod-a").pvc("pvc-a").pvc("pvc-b").obj(), node1(foo="barbar"),
         [make_pvc("pvc-a", volume="pv-a"), make_pvc("pvc-b", cls=WAIT)],
         [make_pv("pv-a", claim="default/pvc-a", affinity=("foo", "In", ["bar"]))],
         want_filter=unresolvable(ERR_REASON_NODE_CONFLICT, ERR_REASON_BIND_CONFLICT)),
    Case("pvc not found", make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         want_pre_filter=unresolvable('persistentvolumeclaim "pvc-a" not found')),
    Case("pv not found", make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         [make_pvc("pvc-a", volume="pv-a")],
         want_filter=unresolvable(ERR_REASON_PV_NOT_EXIST)),
    Case("local volume with match", make_pod("pod-a").pvc("pvc-a").obj(),
         node1(**{"kubernetes.io/hostname": "node-a"}),
         [make_pvc("pvc-a", cls=WAIT)],
         [make_pv("pv-a", cls=WAIT, affinity=("kubernetes.io/hostname", "In", ["node-a"]))]),
    Case("local volume on another node", make_pod("pod-a").pvc("pvc-a").obj(),
         node1(**{"kubernetes.io/hostname": "node-a"}),
         [make_pvc("pvc-a", cls=WAIT)],
         [make_pv("pv-a", cls=WAIT, affinity=("kubernetes.io/hostname", "In", ["node-b"]))],
         want_filter=unresolvable(ERR_REASON_BIND_CONFLICT)),
    Case("a pre-bound claim (volumeName, not bound yet) counts as immediate",
         make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         [make_pvc("pvc-a", cls=WAIT, volume="pv-a", phase=st.CLAIM_PENDING, annotations={})],
         [make_pv("pv-a", cls=WAIT)], want_pre_filter=unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)),
    Case("a lost claim is unresolvable", make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         [make_pvc("pvc-a", volume="pv-gone", phase=st.CLAIM_LOST)],
         want_pre_filter=unresolvable('persistentvolumeclaim "pvc-a" bound to non-existent '
                                      'persistentvolume "pv-gone"')),
    Case("provisioning within allowedTopologies",
         make_pod("pod-a").pvc("pvc-a").obj(), node1(**{"topology.kubernetes.io/zone": "a"}),
         [make_pvc("pvc-a", cls=PROVISIONING)]),
    Case("provisioning outside allowedTopologies",
         make_pod("pod-a").pvc("pvc-a").obj(), node1(**{"topology.kubernetes.io/zone": "b"}),
         [make_pvc("pvc-a", cls=PROVISIONING)], want_filter=unresolvable(ERR_REASON_BIND_CONFLICT)),
    Case("a claim whose provisioning started on another node",
         make_pod("pod-a").pvc("pvc-a").obj(), node1(),
         [make_pvc("pvc-a", cls=PROVISIONING, annotations={st.ANN_SELECTED_NODE: "node-b"})],
         want_filter=unresolvable(ERR_REASON_BIND_CONFLICT)),
]


def run(case: Case) -> tuple[Status, Status | None, FakeHandle, CycleState]:
    h = FakeHandle([case.node], [], storage(case.pvs, case.pvcs, CLASSES))
    pl = VolumeBinding(None, h)
    state = CycleState()
    _, pre = pl.pre_filter(state, case.pod, h.snapshot.list())
    if not pre.is_success():
        return pre, None, h, state
    return pre, pl.filter(state, case.pod, h.snapshot.list()[0]), h, state


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_volume_binding(case: Case) -> None:
    pre, got, _, _ = run(case)
    assert pre == case.want_pre_filter
    if pre.is_success():
        assert got == case.want_filter


def test_reserve_binds_the_matched_static_volume() -> None:
    case = CASES[[c.name for c in CASES].index("local volume with match")]
    _, _, h, state = run(case)
    VolumeBinding(None, h).reserve(state, case.pod, "node-a")
    claim = h.cache.pvc("default", "pvc-a")
    assert (claim.volume_name, claim.fully_bound(), h.cache.pv("pv-a").claim_ref) == \
        ("pv-a", True, ("default", "pvc-a"))


def test_reserve_provisions_a_volume_pinned_to_the_node_zone() -> None:
    case = CASES[[c.name for c in CASES].index("provisioning within allowedTopologies")]
    _, _, h, state = run(case)
    VolumeBinding(None, h).reserve(state, case.pod, "node-a")
    pv = h.cache.pv("pvc-default-pvc-a")
    term = pv.node_affinity.node_selector_terms[0].match_expressions[0]
    assert (h.cache.pvc("default", "pvc-a").volume_name, term.key, term.values) == \
        ("pvc-default-pvc-a", "topology.kubernetes.io/zone", ("a",))
    assert h.cache.bindings == [{"claim": "default/pvc-a", "volume": "pvc-default-pvc-a",
                                 "node": "node-a", "provisioned": True}]


def test_pre_score_skips_without_storage_capacity_scoring() -> None:
    assert VolumeBinding(None, FakeHandle([node1()])).pre_score(CycleState(), make_pod("p").obj(),
                                                                 []) == SKIP


# --- FindMatchingVolume (pv_helpers_test.go) --------------------------------------------
CLAIM = make_pvc("claim01", cls=WAIT, request=GI, modes=(st.READ_WRITE_ONCE,))
MATCH = [
    ("the smallest volume that fits is chosen",
     [make_pv("gce-pd-5", 5 * GI, WAIT), make_pv("gce-pd-1", GI, WAIT),
      make_pv("gce-pd-10", 10 * GI, WAIT)], CLAIM, "gce-pd-1"),
    ("a volume too small is not chosen", [make_pv("small", GI // 2, WAIT)], CLAIM, None),
    ("a volume of another class is not chosen", [make_pv("other", GI, WAIT_HDD)], CLAIM, None),
    ("access modes must all be offered",
     [make_pv("rox", GI, WAIT, modes=(st.READ_ONLY_MANY,))], CLAIM, None),
    ("a volume bound to another claim is not chosen",
     [make_pv("taken", GI, WAIT, claim="default/other")], CLAIM, None),
    ("a volume pre-bound to the claim wins over a smaller free one",
     [make_pv("free", GI, WAIT), make_pv("mine", 10 * GI, WAIT, claim="default/claim01")],
     CLAIM, "mine"),
    ("the claim's selector filters volumes by label",
     [make_pv("plain", GI, WAIT), make_pv("ssd", 2 * GI, WAIT, labels={"disk": "ssd"})],
     make_pvc("claim01", cls=WAIT, selector=selector({"disk": "ssd"})), "ssd"),
    ("volume modes must agree",
     [make_pv("block", GI, WAIT, volume_mode=st.BLOCK)], CLAIM, None),
]


@pytest.mark.parametrize("name,pvs,claim,want", MATCH, ids=[m[0] for m in MATCH])
def test_find_matching_volume(name, pvs, claim, want) -> None:
    cache = VolumeCache(storage(pvs, [claim], CLASSES))
    got = find_matching_volume(cache, claim, cache.list_pvs(WAIT), node1(), set())
    assert (got.name if got else None) == want
