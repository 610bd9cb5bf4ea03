"""Every scoring strategy stays within 0..MaxNodeScore for any requests and capacities."""
from hypothesis import given, strategies as st

from scheduler_core.config_args import ResourceSpec, UtilizationShapePoint
from scheduler_core.plugins.noderesources.balanced_allocation import balanced_resource_scorer
from scheduler_core.plugins.noderesources.least_allocated import least_resource_scorer
from scheduler_core.plugins.noderesources.most_allocated import most_resource_scorer
from scheduler_core.plugins.noderesources.requested_to_capacity_ratio import (
    requested_to_capacity_ratio_scorer)

RES = (ResourceSpec("cpu", 3), ResourceSpec("memory", 1), ResourceSpec("example.com/x", 100))
SHAPE = (UtilizationShapePoint(0, 10), UtilizationShapePoint(40, 2), UtilizationShapePoint(100, 7))
AMOUNTS = st.lists(st.integers(0, 10**12), min_size=3, max_size=3)


@given(AMOUNTS, AMOUNTS)
def test_scores_are_between_0_and_100(requested, allocatable):
    for scorer in (least_resource_scorer(RES), most_resource_scorer(RES),
                   requested_to_capacity_ratio_scorer(RES, SHAPE), balanced_resource_scorer):
        assert 0 <= scorer(requested, allocatable) <= 100


@given(st.integers(1, 10**9), st.integers(0, 10**9))
def test_least_and_most_allocated_are_complementary_for_one_resource(cap, req):
    one = (ResourceSpec("cpu", 1),)
    least, most = least_resource_scorer(one)([req], [cap]), most_resource_scorer(one)([req], [cap])
    if req <= cap:
        assert least + most in (99, 100)  # each truncates separately
    else:
        assert (least, most) == (0, 100)
