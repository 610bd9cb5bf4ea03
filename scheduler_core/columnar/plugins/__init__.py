"""Columnar plugins: one module per upstream plugin, holding its vectorized extension points.

Each class wraps the reference plugin of the same name (``self.ref``) and reuses its
arguments, constants and explanations; only the per-node loops are replaced by array
operations over ``Context.table``. The methods, by extension point:

- PreFilter: ``pre_filter(state, pod, nodes)``, as the reference (writes CycleState);
- Filter: ``filter_ok(state, pod)`` -> bool per node; ``filter_status(state, pod, idx)``
  -> status ids of nodes ``idx``; ``filter_status_with(state, pod, idx, added)`` -> the
  same with nominated pods ``added[k]`` on node ``idx[k]``
  (RunFilterPluginsWithNominatedPods);
- PreScore: ``pre_score(state, pod, idx)``; Score: ``score(state, pod, idx)`` -> raw
  scores of nodes ``idx``; NormalizeScore: ``normalize(state, pod, scores)``.

NodeUnschedulable, NodeName, TaintToleration's and NodeAffinity's Filters read only the
node objects and fixed pod fields; ``static.StaticFilters`` runs them once per pod template.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.types import PodInfo
from ...k8s.types import Pod
from .. import kernels
from ..context import Context


class ColumnarPlugin:
    """Base: the reference plugin's PreFilter and explain; nominated pods change nothing."""

    NAME = ""
    # normalize() returns 0..100 by construction (the reference plugins' range check is
    # then skipped; the differential tests hold both paths to the same scores)
    SCORES_IN_RANGE = True

    def __init__(self, ref, ctx: Context) -> None:
        self.ref = ref
        self.ctx = ctx
        self._names: dict[str, str] = {}

    def name(self, what: str) -> str:
        """A ``Context.template`` name of this plugin instance (profiles differ in args)."""
        found = self._names.get(what)
        if found is None:
            found = self._names[what] = f"{self.NAME}@{id(self)}.{what}"
        return found

    def per_template(self, pod: Pod, name: str, parts, compute, *args):
        """``compute(*args)``, once per pod template: kept in the template store of the cycle when ``pod`` is its pod
        (ColumnarFramework's template key holds every pod field these plugins read), else by ``Context.template``
        under ``parts(pod)``, the fields compute reads. (No closure here: a function holding one makes its cells at
        every call, and this is asked several times a cycle.)"""
        cycle_pod, shared = self.ctx.cycle
        if cycle_pod is pod:
            found = shared.get(name)
            if found is None:
                found = shared[name] = compute(*args)
            return found
        return self._by_template(pod, name, parts, compute, args)

    def _by_template(self, pod: Pod, name: str, parts, compute, args: tuple):
        return self.ctx.template(name, parts(pod), lambda: compute(*args))

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence):
        return self.ref.pre_filter(state, pod, nodes)

    def filter_status_with(self, state: CycleState, pod: Pod, idx: np.ndarray,
                           added: Sequence[Sequence[PodInfo]], key=None) -> np.ndarray:
        return self.filter_status(state, pod, idx)

    def filter_status(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def normalize(self, state: CycleState, pod: Pod, scores: np.ndarray) -> np.ndarray:
        return scores

    def constant_score(self, state: CycleState, pod: Pod) -> int | None:
        """The normalized score when it is the same on every node, else None."""
        return None

    def constant_raw(self, state: CycleState, pod: Pod, normalized: int) -> int:
        """The raw score (before NormalizeScore) behind a constant normalized score:
        the same, for a plugin whose normalize leaves scores as they are."""
        return normalized

    def explain(self, state: CycleState, pod: Pod) -> dict | None:
        fn = getattr(self.ref, "explain", None)
        return fn(state, pod) if fn is not None else None


def default_normalize(scores: np.ndarray, reverse: bool) -> np.ndarray:
    """helper.DefaultNormalizeScore(MaxNodeScore, reverse) over an int array."""
    if kernels.numba is not None and len(scores) >= 64:
        return kernels.default_normalize(scores, reverse)
    top = max(int(np.maximum.reduce(scores)) if len(scores) else 0, 0)
    if top == 0:
        return np.full(len(scores), 100, np.int64) if reverse else scores
    scaled = (100 * scores) // top  # scores are >= 0 here: floor is Go's truncation
    return 100 - scaled if reverse else scaled
