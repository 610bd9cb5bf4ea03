"""FitError: why a pod fits no node, and its FailedScheduling message.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/types.go`` (FitError.Error,
NoNodeAvailableMsg) and ``schedule_one.go`` (ErrNoNodesAvailable).
"""
from __future__ import annotations

from ..k8s.types import Pod
from .interface import Diagnosis

# types.go NoNodeAvailableMsg
NO_NODE_AVAILABLE_MSG = "0/{} nodes are available"
# schedule_one.go ErrNoNodesAvailable
ERR_NO_NODES_AVAILABLE = "no nodes available to schedule pods"


class FitError(Exception):
    """framework.FitError: the pod, how many nodes there were and the Diagnosis."""

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis
        super().__init__()

    def __str__(self) -> str:
        return fit_error_message(self.num_all_nodes, self.diagnosis)


def reasons_histogram(num_all_nodes: int, diagnosis: Diagnosis) -> dict[str, int]:
    """Reason -> node count over explicit statuses, absent nodes adding theirs."""
    if diagnosis.reasons is not None:
        return diagnosis.reasons
    reasons: dict[str, int] = {}
    for status in diagnosis.node_to_status.values():
        for r in status.reasons:
            reasons[r] = reasons.get(r, 0) + 1
    absent = num_all_nodes - len(diagnosis.node_to_status)
    if absent > 0:
        for r in diagnosis.absent_nodes_status.reasons:
            reasons[r] = reasons.get(r, 0) + absent
    return reasons


def fit_error_message(num_all_nodes: int, diagnosis: Diagnosis) -> str:
    """FitError.Error(): "0/N nodes are available: <PreFilterMsg>. <sorted "k reason">.
    <PostFilterMsg>" (the histogram is sorted as strings, so "10 x" sorts before "2 y")."""
    msg = NO_NODE_AVAILABLE_MSG.format(num_all_nodes) + ":"
    if diagnosis.pre_filter_msg:
        msg += f" {diagnosis.pre_filter_msg}."
    else:
        hist = sorted(f"{v} {k}" for k, v in reasons_histogram(num_all_nodes, diagnosis).items())
        if hist:
            msg += f" {', '.join(hist)}."
    if diagnosis.post_filter_msg:
        msg += f" {diagnosis.post_filter_msg}"
    return msg
