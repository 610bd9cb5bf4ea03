"""Toleration.ToleratesTaint and FindMatchingUntoleratedTaint (k8s/taints.py).

Cases from the Kubernetes "Taints and Tolerations" page and upstream
staging/src/k8s.io/api/core/v1/toleration_test.go, re-expressed.
"""
from dataclasses import dataclass

import pytest

from scheduler_core.k8s.taints import (do_not_schedule_taints_filter,
                                       find_matching_untolerated_taint,
                                       toleration_tolerates_taint)
from scheduler_core.k8s.types import Taint, Toleration


@dataclass
class Case:
    name: str
    tol: Toleration
    taint: Taint
    want: bool


TAINT = Taint("foo", "bar", "NoSchedule")
CASES = [
    Case("equal key, value and effect tolerates", Toleration("foo", "Equal", "bar", "NoSchedule"),
         TAINT, True),
    Case("empty operator means Equal", Toleration("foo", "", "bar", "NoSchedule"), TAINT, True),
    Case("different value does not tolerate", Toleration("foo", "Equal", "baz", "NoSchedule"),
         TAINT, False),
    Case("different effect does not tolerate", Toleration("foo", "Equal", "bar", "NoExecute"),
         TAINT, False),
    Case("empty effect matches every effect", Toleration("foo", "Equal", "bar", ""), TAINT, True),
    Case("Exists ignores the value", Toleration("foo", "Exists", "", "NoSchedule"), TAINT, True),
    Case("Exists with another key does not tolerate", Toleration("other", "Exists"), TAINT, False),
    Case("Exists with empty key tolerates everything", Toleration("", "Exists"), TAINT, True),
    Case("Exists with empty key still honours the effect",
         Toleration("", "Exists", "", "NoExecute"), TAINT, False),
    Case("unknown operator tolerates nothing", Toleration("foo", "Gt", "bar"), TAINT, False),
    Case("Equal with empty value matches an empty taint value",
         Toleration("foo", "Equal", "", "PreferNoSchedule"), Taint("foo", "", "PreferNoSchedule"),
         True),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_toleration_tolerates_taint(case):
    assert toleration_tolerates_taint(case.tol, case.taint) is case.want


def test_first_untolerated_taint_in_node_order_is_returned():
    taints = (Taint("a", "1"), Taint("b", "2"), Taint("c", "3"))
    assert find_matching_untolerated_taint(taints, (Toleration("a", "Equal", "1"),)) == taints[1]


def test_all_tolerated_returns_none():
    assert find_matching_untolerated_taint((Taint("a", "1"),), (Toleration("", "Exists"),)) is None


def test_inclusion_filter_skips_prefer_no_schedule():
    taints = (Taint("soft", "", "PreferNoSchedule"), Taint("hard", "", "NoExecute"))
    got = find_matching_untolerated_taint(taints, (), do_not_schedule_taints_filter)
    assert got == taints[1]
    assert find_matching_untolerated_taint(taints[:1], (), do_not_schedule_taints_filter) is None
