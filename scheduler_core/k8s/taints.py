"""Taints and tolerations.

Mirrors kube-scheduler v1.34 ``staging/src/k8s.io/api/core/v1/toleration.go``
(Toleration.ToleratesTaint) and
``staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go``
(TolerationsTolerateTaint, FindMatchingUntoleratedTaint). v1.34 has no Gt/Lt toleration
operators: any operator other than Equal, "" or Exists tolerates nothing.
"""
from __future__ import annotations

from typing import Callable, Iterable

from .types import NO_EXECUTE, NO_SCHEDULE, Taint, Toleration

TOLERATION_OP_EQUAL = "Equal"
TOLERATION_OP_EXISTS = "Exists"


def toleration_tolerates_taint(tol: Toleration, taint: Taint) -> bool:
    """Toleration.ToleratesTaint: empty effect matches all effects, empty key all keys."""
    if tol.effect and tol.effect != taint.effect:
        return False
    if tol.key and tol.key != taint.key:
        return False
    if tol.operator in ("", TOLERATION_OP_EQUAL):
        return tol.value == taint.value
    return tol.operator == TOLERATION_OP_EXISTS


def tolerations_tolerate_taint(tolerations: Iterable[Toleration], taint: Taint) -> bool:
    """TolerationsTolerateTaint: some toleration tolerates the taint."""
    return any(toleration_tolerates_taint(t, taint) for t in tolerations)


def find_matching_untolerated_taint(taints: Iterable[Taint], tolerations: Iterable[Toleration],
                                    include: Callable[[Taint], bool] | None = None
                                    ) -> Taint | None:
    """FindMatchingUntoleratedTaint: the first included taint no toleration tolerates."""
    tolerations = tuple(tolerations)
    for taint in taints:
        if include is not None and not include(taint):
            continue
        if not tolerations_tolerate_taint(tolerations, taint):
            return taint
    return None


def do_not_schedule_taints_filter(taint: Taint) -> bool:
    """helper.DoNotScheduleTaintsFilterFunc: NoSchedule and NoExecute taints."""
    return taint.effect in (NO_SCHEDULE, NO_EXECUTE)
