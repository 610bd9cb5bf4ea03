"""NodePorts: PreFilter (Skip without host ports), Filter.

CycleState keys written: ``"PreFilterNodePorts"`` (the pod's host ports). Mirrors
kube-scheduler v1.34 ``framework/plugins/nodeports``.
"""
from .node_ports import NodePorts

__all__ = ["NodePorts"]
