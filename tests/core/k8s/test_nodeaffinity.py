"""RequiredNodeAffinity, node selector terms and preferred terms (k8s/nodeaffinity.py).

Cases from the "Assigning Pods to Nodes" page and upstream
component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity_test.go, re-expressed.
"""
from dataclasses import dataclass

import pytest

from scheduler_core.k8s.nodeaffinity import (NodeSelectorParseError, PreferredSchedulingTerms,
                                             RequiredNodeAffinity, node_selector_term_matches)
from scheduler_core.k8s.types import (NodeSelectorRequirement as R, NodeSelectorTerm,
                                      PreferredSchedulingTerm)
from tests.core.wrappers import make_node, make_pod


def term(*exprs, fields=()):
    return NodeSelectorTerm(tuple(R(k, op, tuple(v)) for k, op, v in exprs),
                            tuple(R(k, op, tuple(v)) for k, op, v in fields))


@dataclass
class Case:
    name: str
    term: NodeSelectorTerm
    labels: dict
    want: bool
    node: str = "node-1"


CASES = [
    Case("In matches a listed value", term(("zone", "In", ["a", "b"])), {"zone": "b"}, True),
    Case("In fails on a missing key", term(("zone", "In", ["a"])), {}, False),
    Case("NotIn matches a missing key", term(("zone", "NotIn", ["a"])), {}, True),
    Case("NotIn fails on a listed value", term(("zone", "NotIn", ["a"])), {"zone": "a"}, False),
    Case("Exists matches any value", term(("gpu", "Exists", [])), {"gpu": ""}, True),
    Case("DoesNotExist fails when present", term(("gpu", "DoesNotExist", [])), {"gpu": "x"}, False),
    Case("Gt compares integers", term(("cores", "Gt", ["8"])), {"cores": "16"}, True),
    Case("Gt is strict", term(("cores", "Gt", ["8"])), {"cores": "8"}, False),
    Case("Gt is numeric, not lexical", term(("cores", "Gt", ["8"])), {"cores": "10"}, True),
    Case("Lt compares integers", term(("cores", "Lt", ["8"])), {"cores": "-3"}, True),
    Case("Gt with a non-integer label does not match", term(("cores", "Gt", ["1"])),
         {"cores": "many"}, False),
    Case("Gt with a non-integer value matches nothing", term(("cores", "Gt", ["x"])),
         {"cores": "5"}, False),
    Case("Gt with two values matches nothing", term(("cores", "Gt", ["1", "2"])),
         {"cores": "5"}, False),
    Case("Gt with a negative value is not a valid label value", term(("cores", "Gt", ["-1"])),
         {"cores": "5"}, False),
    Case("In with an invalid label value matches nothing", term(("zone", "In", ["a b"])),
         {"zone": "a b"}, False),
    Case("an invalid key matches nothing", term(("bad key", "Exists", [])), {"bad key": ""},
         False),
    Case("a prefixed key is valid", term(("example.com/gpu", "Exists", [])),
         {"example.com/gpu": "1"}, True),
    Case("Exists with values matches nothing", term(("zone", "Exists", ["a"])), {"zone": "a"},
         False),
    Case("an unknown operator matches nothing", term(("zone", "Equals", ["a"])), {"zone": "a"},
         False),
    Case("In without values matches nothing", term(("zone", "In", [])), {"zone": ""}, False),
    Case("expressions are ANDed", term(("a", "In", ["1"]), ("b", "In", ["2"])),
         {"a": "1", "b": "3"}, False),
    Case("matchFields metadata.name In matches the node name",
         term(fields=[("metadata.name", "In", ["node-1"])]), {}, True),
    Case("matchFields metadata.name In rejects other nodes",
         term(fields=[("metadata.name", "In", ["node-2"])]), {}, False),
    Case("matchFields NotIn excludes the node",
         term(fields=[("metadata.name", "NotIn", ["node-1"])]),
         {}, False),
    Case("matchFields with two values is a parse error",
         term(fields=[("metadata.name", "In", ["node-1", "node-2"])]), {}, False),
    Case("matchFields Exists is not a field operator",
         term(fields=[("metadata.name", "Exists", [])]), {}, False),
    Case("labels and fields are ANDed",
         term(("zone", "In", ["a"]), fields=[("metadata.name", "In", ["node-1"])]), {"zone": "b"},
         False),
    Case("an empty term matches nothing", term(), {"zone": "a"}, False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_node_selector_term_matches(case):
    node = make_node(case.node).obj().__class__(name=case.node, labels=case.labels)
    assert node_selector_term_matches(case.term, node) is case.want


@dataclass
class PodCase:
    name: str
    pod: object
    labels: dict
    want: bool


POD_CASES = [
    PodCase("no selector and no affinity matches every node", make_pod("p").obj(), {}, True),
    PodCase("nodeSelector must match", make_pod("p").node_selector({"disk": "ssd"}).obj(),
            {"disk": "hdd"}, False),
    PodCase("nodeSelector and affinity are ANDed",
            make_pod("p").node_selector({"disk": "ssd"}).node_affinity_in("zone", ["a"]).obj(),
            {"disk": "ssd", "zone": "b"}, False),
    PodCase("required terms are ORed",
            make_pod("p").node_affinity_in("zone", ["a"]).node_affinity_in("zone", ["b"]).obj(),
            {"zone": "b"}, True),
    PodCase("a broken term does not hide a matching one",
            make_pod("p").node_affinity_in("cores", ["x"], "Gt")
            .node_affinity_in("zone", ["b"]).obj(),
            {"zone": "b", "cores": "3"}, True),
    PodCase("both selector and affinity satisfied",
            make_pod("p").node_selector({"disk": "ssd"}).node_affinity_in("zone", ["a"]).obj(),
            {"disk": "ssd", "zone": "a"}, True),
]


@pytest.mark.parametrize("case", POD_CASES, ids=lambda c: c.name)
def test_required_node_affinity(case):
    node = make_node("n").obj().__class__(name="n", labels=case.labels)
    assert RequiredNodeAffinity.from_pod(case.pod).match(node) is case.want


def test_required_affinity_with_no_terms_matches_nothing():
    from scheduler_core.k8s.types import Affinity, NodeAffinity, NodeSelector
    pod = make_pod("p").obj().__class__(name="p", affinity=Affinity(NodeAffinity(NodeSelector(()))))
    assert RequiredNodeAffinity.from_pod(pod).match(make_node("n").obj()) is False


def test_preferred_terms_sum_matching_weights_and_skip_zero_weight():
    prefs = PreferredSchedulingTerms.from_terms((
        PreferredSchedulingTerm(5, term(("zone", "In", ["a"]))),
        PreferredSchedulingTerm(3, term(("disk", "Exists", []))),
        PreferredSchedulingTerm(0, term(("zone", "In", ["a"]))),
        PreferredSchedulingTerm(7, term()),
    ))
    node = make_node("n").label("zone", "a").label("disk", "ssd").obj()
    assert prefs.score(node) == 8
    assert len(prefs.terms) == 2


def test_preferred_terms_parse_error_raises():
    with pytest.raises(NodeSelectorParseError):
        PreferredSchedulingTerms.from_terms((PreferredSchedulingTerm(1, term(("a", "Gt", ["z"]))),))
