"""DefaultBinder (kube-scheduler v1.34 ``framework/plugins/defaultbinder/default_binder.go``)."""
from __future__ import annotations

from ...framework.cycle_state import CycleState
from ...framework.interface import SUCCESS, Plugin, Status
from ...k8s.types import Pod
from .. import names


class DefaultBinder(Plugin):
    """Bind: upstream POSTs a Binding; here the simulation records the pod on the node
    after a Success, so binding itself always succeeds."""

    NAME = names.DEFAULT_BINDER

    def __init__(self, args=None, handle=None) -> None:
        self.handle = handle

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status:
        return SUCCESS
