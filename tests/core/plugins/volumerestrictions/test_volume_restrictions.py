"""VolumeRestrictions PreFilter/Filter, re-expressing upstream v1.34
volume_restrictions_test.go (TestGCEDiskConflicts, TestAWSDiskConflicts,
TestRBDDiskConflicts, TestISCSIDiskConflicts, TestAccessModeConflicts)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Status
from scheduler_core.framework.types import new_pod_info
from scheduler_core.k8s import storage as st
from scheduler_core.k8s.storage import Volume
from scheduler_core.k8s.types import Pod
from scheduler_core.plugins.volumerestrictions import VolumeRestrictions
from scheduler_core.plugins.volumerestrictions.volume_restrictions import (
    ERR_REASON_DISK_CONFLICT, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
from tests.core.plugins.volumebinding.fake_handle import FakeHandle
from tests.core.wrappers import make_node, make_pod, make_pvc, storage

OK = Status()
SKIP = Status(Code.Skip)
DISK = Status(Code.Unschedulable, (ERR_REASON_DISK_CONFLICT,))
RWOP = Status(Code.Unschedulable, (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,))


def with_volumes(name: str, *vols: Volume, on: str = "") -> Pod:
    w = make_pod(name)
    for v in vols:
        w.volume(v)
    return (w.node(on) if on else w).obj()


@dataclass
class Case:
    name: str
    pod: Pod
    existing: list[Pod]
    want_pre_filter: Status = OK
    want_filter: Status = OK
    claims: list = field(default_factory=list)


GCE_FOO, GCE_BAR = Volume("v", gce_pd="foo"), Volume("v", gce_pd="bar")
AWS_FOO, AWS_BAR = Volume("v", aws_ebs="foo"), Volume("v", aws_ebs="bar")
RBD_1 = Volume("v", rbd=(("a", "b"), "foo", "bar"))
RBD_2 = Volume("v", rbd=(("c", "d"), "foo", "bar"))
ISCSI_1 = Volume("v", iscsi_iqn="iqn.2016-12.server:storage.target01")
ISCSI_2 = Volume("v", iscsi_iqn="iqn.2016-12.server:storage.target02")


def disk_cases(kind: str, a: Volume, b: Volume) -> list[Case]:
    return [
        Case(f"{kind}: nothing", with_volumes("p"), [], SKIP),
        Case(f"{kind}: one state", with_volumes("p"), [with_volumes("e", a, on="n1")], SKIP),
        Case(f"{kind}: same state", with_volumes("p", a), [with_volumes("e", a, on="n1")],
             want_filter=DISK),
        Case(f"{kind}: different state", with_volumes("p", b),
             [with_volumes("e", a, on="n1")]),
    ]


RO = dict(read_only=True)
CASES = (
    disk_cases("GCE", GCE_FOO, GCE_BAR) + disk_cases("AWS", AWS_FOO, AWS_BAR)
    + disk_cases("RBD", RBD_1, RBD_2) + disk_cases("ISCSI", ISCSI_1, ISCSI_2) + [
        Case("GCE: the same disk read-only on both sides does not conflict",
             with_volumes("p", Volume("v", gce_pd="foo", **RO)),
             [with_volumes("e", Volume("v", gce_pd="foo", **RO), on="n1")]),
        Case("AWS: read-only does not help, the same EBS volume conflicts",
             with_volumes("p", Volume("v", aws_ebs="foo", **RO)),
             [with_volumes("e", Volume("v", aws_ebs="foo", **RO), on="n1")], want_filter=DISK),
        Case("RBD: monitors overlap in one address, same pool and image",
             with_volumes("p", Volume("v", rbd=(("b", "z"), "foo", "bar"))),
             [with_volumes("e", RBD_1, on="n1")], want_filter=DISK),
        # TestAccessModeConflicts
        Case("nothing running", make_pod("p").pvc("claim-with-rwop").obj(), [], SKIP,
             claims=[make_pvc("claim-with-rwop", volume="pv", modes=(st.READ_WRITE_ONCE_POD,))]),
        Case("failed to get PVC", make_pod("p").pvc("claim-with-rwop").obj(), [],
             Status(Code.UnschedulableAndUnresolvable,
                    ('persistentvolumeclaim "claim-with-rwop" not found',))),
        Case("no access mode conflict", make_pod("p").pvc("claim-with-rwop").obj(),
             [make_pod("e").pvc("claim-with-rwx").node("n1").obj()], SKIP,
             claims=[make_pvc("claim-with-rwop", volume="pv", modes=(st.READ_WRITE_ONCE_POD,)),
                     make_pvc("claim-with-rwx", volume="pv2", modes=(st.READ_WRITE_MANY,))]),
        Case("access mode conflict, unschedulable", make_pod("p").pvc("claim-with-rwop").obj(),
             [make_pod("e").pvc("claim-with-rwop").node("n1").obj()], want_filter=RWOP,
             claims=[make_pvc("claim-with-rwop", volume="pv", modes=(st.READ_WRITE_ONCE_POD,))]),
    ])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_volume_restrictions(case: Case) -> None:
    h = FakeHandle([make_node("n1").obj()], case.existing, storage(pvcs=case.claims))
    pl = VolumeRestrictions(None, h)
    state = CycleState()
    _, pre = pl.pre_filter(state, case.pod, h.snapshot.list())
    assert pre == case.want_pre_filter
    if pre.is_success():
        assert pl.filter(state, case.pod, h.snapshot.list()[0]) == case.want_filter


def test_preemption_removing_the_pod_that_uses_the_claim_lifts_the_conflict() -> None:
    """RemovePod/AddPod follow the conflicting pod (preemption's dry run)."""
    claim = make_pvc("c", volume="pv", modes=(st.READ_WRITE_ONCE_POD,))
    user = make_pod("e").pvc("c").node("n1").obj()
    pod = make_pod("p").pvc("c").obj()
    h = FakeHandle([make_node("n1").obj()], [user], storage(pvcs=[claim]))
    pl = VolumeRestrictions(None, h)
    state = CycleState()
    pl.pre_filter(state, pod, h.snapshot.list())
    ni = h.snapshot.list()[0]
    pl.remove_pod(state, pod, new_pod_info(user), ni)
    assert pl.filter(state, pod, ni) == OK
    pl.add_pod(state, pod, new_pod_info(user), ni)
    assert pl.filter(state, pod, ni) == RWOP
