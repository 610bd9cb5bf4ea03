"""NodePorts over the nodes that hold host ports.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/nodeports/node_ports.go``
(PreFilter: the pod's host ports, Skip without any; Filter: a conflict with a port in use
is Unschedulable). Only nodes where some pod with host ports was ever bound can
conflict; the reference Filter decides for those, on their NodeInfos.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.types import PodInfo
from ...k8s.types import Pod
from ...plugins.nodeports import node_ports as np_
from . import ColumnarPlugin


class NodePorts(ColumnarPlugin):
    NAME = np_.NODE_PORTS

    def _verdict(self, state: CycleState, pod: Pod, ni) -> int:
        st = self.ref.filter(state, pod, ni)
        return 0 if st.is_success() else self.ctx.statuses.intern(st.with_plugin(self.NAME))

    def filter_ok(self, state: CycleState, pod: Pod) -> np.ndarray:
        ok = np.ones(self.ctx.table.n, bool)
        for i in self.ctx.table.port_nodes:
            ok[i] = self._verdict(state, pod, self.ctx.node_infos[i]) == 0
        return ok

    def filter_status(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        infos = self.ctx.node_infos
        return np.array([self._verdict(state, pod, infos[i]) for i in idx], np.int32)

    def filter_status_with(self, state: CycleState, pod: Pod, idx: np.ndarray,
                           added: Sequence[Sequence[PodInfo]], key=None) -> np.ndarray:
        out = np.zeros(len(idx), np.int32)
        for k, i in enumerate(idx):
            ni = self.ctx.node_infos[i].clone()
            for pi in added[k]:
                ni.add_pod_info(pi)
            out[k] = self._verdict(state, pod, ni)
        return out
