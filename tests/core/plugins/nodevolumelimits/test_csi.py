"""NodeVolumeLimits (CSILimits) Filter, re-expressing upstream v1.34 csi_test.go
(TestCSILimits): bound claims count by their PV's driver and handle, unbound ones by
their class's provisioner, a volume shared with a pod on the node counts once."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Status
from scheduler_core.k8s import storage as st
from scheduler_core.k8s.types import Pod
from scheduler_core.plugins.nodevolumelimits import CSILimits
from scheduler_core.plugins.nodevolumelimits.csi import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED
from tests.core.plugins.volumebinding.fake_handle import FakeHandle
from tests.core.wrappers import make_class, make_node, make_pod, make_pv, make_pvc, storage

EBS = "ebs.csi.aws.com"
OK = Status()
SKIP = Status(Code.Skip)
EXCEEDED = Status(Code.Unschedulable, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))

# csi-ebs-0..3 bound to PVs with EBS handles; one unbound claim of a provisioning class
PVS = [make_pv(f"csi-ebs-{i}", claim=f"default/csi-ebs-{i}", csi_driver=EBS,
               csi_handle=f"vol-{i}") for i in range(4)]
PVCS = [make_pvc(f"csi-ebs-{i}", volume=f"csi-ebs-{i}") for i in range(4)]
PVCS += [make_pvc("unbound-ebs", cls="ebs-sc"), make_pvc("other-driver", cls="hostpath-sc")]
CLASSES = [make_class("ebs-sc", provisioner=EBS), make_class("hostpath-sc",
                                                             provisioner="hostpath.csi.k8s.io")]


def csi_node(limit: int | None) -> st.CSINode:
    return st.CSINode("n1", (st.CSINodeDriver(EBS, limit),))


def pod(name: str, *claims: str, on: str = "") -> Pod:
    w = make_pod(name)
    for c in claims:
        w.pvc(c)
    return (w.node(on) if on else w).obj()


@dataclass
class Case:
    name: str
    pod: Pod
    existing: list[Pod]
    limit: int | None
    want: Status = OK
    want_pre_filter: Status = OK
    drivers: list = field(default_factory=list)


CASES = [
    Case("a pod without claims skips", pod("p"), [], 1, want_pre_filter=SKIP),
    Case("fits under the limit", pod("p", "csi-ebs-0"), [pod("e", "csi-ebs-1", on="n1")], 2),
    Case("exceeds the limit", pod("p", "csi-ebs-0", "csi-ebs-2"),
         [pod("e", "csi-ebs-1", on="n1")], 2, EXCEEDED),
    Case("a volume already attached for another pod counts once",
         pod("p", "csi-ebs-1"), [pod("e", "csi-ebs-1", on="n1"), pod("f", "csi-ebs-2", on="n1")],
         2),
    Case("an unbound claim counts by its class's provisioner",
         pod("p", "unbound-ebs"), [pod("e", "csi-ebs-1", on="n1")], 1, EXCEEDED),
    Case("another driver's volumes do not count against this one",
         pod("p", "other-driver"), [pod("e", "csi-ebs-1", on="n1")], 1),
    Case("a node without a CSINode has no limit", pod("p", "csi-ebs-0", "csi-ebs-2"),
         [pod("e", "csi-ebs-1", on="n1")], None),
    Case("a driver that needs no attach is not counted",
         pod("p", "csi-ebs-0", "csi-ebs-2"), [pod("e", "csi-ebs-1", on="n1")], 2,
         drivers=[st.CSIDriver(EBS, attach_required=False)]),
    Case("a missing claim of the new pod is unresolvable", pod("p", "nope"), [], 2,
         Status(Code.UnschedulableAndUnresolvable, (
             'looking up PVC default/nope: persistentvolumeclaim "nope" not found',))),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_csi_limits(case: Case) -> None:
    nodes = [csi_node(case.limit)] if case.limit is not None else []
    h = FakeHandle([make_node("n1").obj()], case.existing,
                   storage(PVS, PVCS, CLASSES, nodes, case.drivers))
    pl = CSILimits(None, h)
    state = CycleState()
    _, pre = pl.pre_filter(state, case.pod, h.snapshot.list())
    assert pre == case.want_pre_filter
    if pre.is_success():
        assert pl.filter(state, case.pod, h.snapshot.list()[0]) == case.want
