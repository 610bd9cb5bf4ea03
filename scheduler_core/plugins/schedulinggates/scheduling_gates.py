"""SchedulingGates (kube-scheduler v1.34
``framework/plugins/schedulinggates/scheduling_gates.go``)."""
from __future__ import annotations

from ...framework.interface import SUCCESS, Code, Plugin, Status
from ...k8s.types import Pod
from .. import names


class SchedulingGates(Plugin):
    """PreEnqueue: a pod with scheduling gates waits, UnschedulableAndUnresolvable."""

    NAME = names.SCHEDULING_GATES

    def __init__(self, args=None, handle=None) -> None:
        self.handle = handle

    def pre_enqueue(self, pod: Pod) -> Status:
        if not pod.scheduling_gates:
            return SUCCESS
        # scheduling_gates.go: fmt.Sprintf("waiting for scheduling gates: %v", gates)
        gates = " ".join(pod.scheduling_gates)
        return Status(Code.UnschedulableAndUnresolvable, (f"waiting for scheduling gates: [{gates}]",))
