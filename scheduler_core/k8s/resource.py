"""Pod resource requests as kube-scheduler aggregates them.

Mirrors ``k8s.io/component-helpers/resource`` ``PodRequests`` (v1.34) without pod-level
resources: the sum of the containers, compared with each init container (restartable init
containers, i.e. sidecars, add to both), plus pod overhead. Units as in ``k8s/types.py``.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from .types import CPU, MEMORY, Container

# schedutil.DefaultMilliCPURequest / DefaultMemoryRequest (pkg/scheduler/util/pod_resources.go):
# used for containers that omit a cpu/memory request, when scoring ("non-zero" requests).
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024
NON_ZERO_DEFAULTS = {CPU: DEFAULT_MILLI_CPU_REQUEST, MEMORY: DEFAULT_MEMORY_REQUEST}


def _container_requests(c: Container, non_missing: Mapping[str, int] | None) -> dict[str, int]:
    reqs = dict(c.requests)
    if non_missing:
        for k, v in non_missing.items():
            if k not in reqs:  # only a missing key takes the default; an explicit 0 stays 0
                reqs[k] = v
    return reqs


def _add(into: dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


def pod_requests(containers: Iterable[Container], init_containers: Iterable[Container],
                 overhead: Mapping[str, int],
                 non_missing: Mapping[str, int] | None = None) -> dict[str, int]:
    """Effective requests of a pod (resourcehelper.PodRequests)."""
    reqs: dict[str, int] = {}
    for c in containers:
        _add(reqs, _container_requests(c, non_missing))
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in init_containers:
        creqs = _container_requests(c, non_missing)
        if c.restart_policy == "Always":
            _add(reqs, creqs)
            _add(sidecars, creqs)
            step = dict(sidecars)
        else:
            step = dict(creqs)
            _add(step, sidecars)
        _max(init_max, step)
    _max(reqs, init_max)
    _add(reqs, overhead)
    return reqs
