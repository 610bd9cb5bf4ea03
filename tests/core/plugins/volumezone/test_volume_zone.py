"""VolumeZone PreFilter/Filter, re-expressing upstream v1.34 volume_zone_test.go
(TestSingleZone, TestWithBinding)."""
from __future__ import annotations

from dataclasses import dataclass

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import Code, Status
from scheduler_core.k8s import storage as st
from scheduler_core.k8s.types import Node, Pod
from scheduler_core.plugins.volumezone import VolumeZone
from scheduler_core.plugins.volumezone.volume_zone import ERR_REASON_CONFLICT
from tests.core.plugins.volumebinding.fake_handle import FakeHandle
from tests.core.wrappers import make_class, make_node, make_pod, make_pv, make_pvc, storage

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"

OK = Status()
SKIP = Status(Code.Skip)
CONFLICT = Status(Code.UnschedulableAndUnresolvable, (ERR_REASON_CONFLICT,))

PVS = [
    make_pv("Vol_1", labels={BETA_ZONE: "us-west1-a"}),
    make_pv("Vol_2", labels={BETA_REGION: "us-west1-b", "uselessLabel": "none"}),
    make_pv("Vol_3", labels={BETA_REGION: "us-west1-c"}),
    make_pv("Vol_Stable_1", labels={ZONE: "us-west1-a"}),
    make_pv("Vol_Stable_2", labels={REGION: "us-west1-b", "uselessLabel": "none"}),
    make_pv("Vol_Stable_3", labels={ZONE: "us-west1-a", REGION: "us-west1-b"}),
    make_pv("Vol_Multi", labels={ZONE: "us-west1-a__us-west1-c"}),
]
PVCS = [
    make_pvc("PVC_1", volume="Vol_1"), make_pvc("PVC_2", volume="Vol_2"),
    make_pvc("PVC_3", volume="Vol_3"), make_pvc("PVC_4", volume="Vol_not_exist"),
    make_pvc("PVC_Stable_1", volume="Vol_Stable_1"),
    make_pvc("PVC_Stable_2", volume="Vol_Stable_2"),
    make_pvc("PVC_Stable_3", volume="Vol_Stable_3"),
    make_pvc("PVC_Multi", volume="Vol_Multi"),
    # TestWithBinding's claims
    make_pvc("PVC_EmptySC", cls=""), make_pvc("PVC_WaitSC", cls="Class_Wait"),
    make_pvc("PVC_ImmediateSC", cls="Class_Immediate"),
]
CLASSES = [make_class("Class_Wait"), make_class("Class_Immediate", st.IMMEDIATE)]


def labelled(labels: dict) -> Node:
    w = make_node("host1")
    for k, v in labels.items():
        w.label(k, v)
    return w.obj()


def pod(claim: str | None) -> Pod:
    w = make_pod("pod_1")
    return (w.pvc(claim, "vol_1") if claim else w).obj()


@dataclass
class Case:
    name: str
    pod: Pod
    node: Node
    want_pre_filter: Status = OK
    want_filter: Status = OK


CASES = [
    Case("pod without volume", pod(None), labelled({BETA_ZONE: "us-west1-a"}), SKIP),
    Case("node without labels", pod("PVC_1"), labelled({})),
    Case("beta zone label matched", pod("PVC_1"),
         labelled({BETA_ZONE: "us-west1-a", "uselessLabel": "none"})),
    Case("beta region label matched", pod("PVC_2"),
         labelled({BETA_REGION: "us-west1-b", "uselessLabel": "none"})),
    Case("beta region label doesn't match", pod("PVC_2"),
         labelled({BETA_REGION: "no_us-west1-b", "uselessLabel": "none"}),
         want_filter=CONFLICT),
    Case("beta zone label doesn't match", pod("PVC_1"),
         labelled({BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"}), want_filter=CONFLICT),
    Case("zone label matched", pod("PVC_Stable_1"),
         labelled({ZONE: "us-west1-a", "uselessLabel": "none"})),
    Case("region label matched", pod("PVC_Stable_2"),
         labelled({REGION: "us-west1-b", "uselessLabel": "none"})),
    Case("region label doesn't match", pod("PVC_Stable_2"),
         labelled({REGION: "no_us-west1-b", "uselessLabel": "none"}), want_filter=CONFLICT),
    Case("zone label doesn't match", pod("PVC_Stable_1"),
         labelled({ZONE: "no_us-west1-a", "uselessLabel": "none"}), want_filter=CONFLICT),
    Case("pv with zone and region, node with only zone", pod("PVC_Stable_3"),
         labelled({ZONE: "us-west1-a"}), want_filter=CONFLICT),
    Case("pv with zone,node with beta zone", pod("PVC_Stable_1"),
         labelled({BETA_ZONE: "us-west1-a"}), want_filter=CONFLICT),
    Case("pv with beta label,node with ga label, matched", pod("PVC_1"),
         labelled({ZONE: "us-west1-a"})),
    Case("pv with beta label,node with ga label, don't match", pod("PVC_1"),
         labelled({ZONE: "us-west1-b"}), want_filter=CONFLICT),
    Case("a volume in two zones (a__c) accepts either", pod("PVC_Multi"),
         labelled({ZONE: "us-west1-c"})),
    Case("PV not found", pod("PVC_4"), labelled({ZONE: "us-west1-a"}),
         Status(Code.UnschedulableAndUnresolvable, ('persistentvolume "Vol_not_exist" not found',))),
    Case("PVC not found", pod("PVC_missing"), labelled({ZONE: "us-west1-a"}),
         Status(Code.UnschedulableAndUnresolvable,
                ('persistentvolumeclaim "PVC_missing" not found',))),
    # TestWithBinding
    Case("unbound volume empty storage class", pod("PVC_EmptySC"),
         labelled({ZONE: "us-west1-a"}),
         Status(Code.UnschedulableAndUnresolvable,
                ("PersistentVolumeClaim had no pv name and storageClass name",))),
    Case("unbound volume immediate binding mode", pod("PVC_ImmediateSC"),
         labelled({ZONE: "us-west1-a"}),
         Status(Code.UnschedulableAndUnresolvable, ("PersistentVolume had no name",))),
    Case("unbound volume wait binding mode", pod("PVC_WaitSC"), labelled({ZONE: "us-west1-a"}),
         SKIP),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_volume_zone(case: Case) -> None:
    handle = FakeHandle([case.node], [], storage(PVS, PVCS, CLASSES))
    pl = VolumeZone(None, handle)
    state = CycleState()
    _, pre = pl.pre_filter(state, case.pod, handle.snapshot.list())
    assert pre == case.want_pre_filter
    if pre.is_success():
        assert pl.filter(state, case.pod, handle.snapshot.list()[0]) == case.want_filter
