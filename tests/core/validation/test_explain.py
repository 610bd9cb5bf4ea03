"""explain_node_affinity_update: which requirement of which term was removed or changed."""
from __future__ import annotations

from scheduler_core.validation import explain_node_affinity_update

from .builders import make_pod, req, term

TERMS = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
ZONE = req("zone", "In", "a", "b")
SSD = req("disk", "In", "ssd")
POD = make_pod().gate("example.com/g")


def _explain(old, new):
    return explain_node_affinity_update(old.obj(), new.obj())


def test_only_additions_have_only_added_changes() -> None:
    got = _explain(POD.required(term(ZONE)), POD.required(term(ZONE, SSD)))
    assert got == {"old_terms": 1, "new_terms": 1, "terms": [{
        "field": f"{TERMS}[0]", "term": 0,
        "changes": [{"kind": "added", "list": "matchExpressions", "index": 1, "old": None,
                     "new": {"key": "disk", "operator": "In", "values": ["ssd"]}}],
    }]}


def test_removed_changed_and_moved_requirements_are_named() -> None:
    old = POD.required(term(ZONE, SSD, req("gpu", "Exists")))
    new = POD.required(term(req("gpu", "Exists"), req("zone", "In", "a", "b", "c")))
    changes = _explain(old, new)["terms"][0]["changes"]
    assert [(c["kind"], c["index"]) for c in changes] == [("changed", 0), ("removed", 1), ("moved", 2)]
    assert changes[0]["new"] == {"key": "zone", "operator": "In", "values": ["a", "b", "c"]}


def test_each_term_is_explained_and_term_counts_are_given() -> None:
    got = _explain(POD.required(term(ZONE), term(SSD)), POD.required(term(ZONE), term(req("disk", "In", "hdd")), term(SSD)))
    assert (got["old_terms"], got["new_terms"]) == (2, 3)
    assert [t["changes"] for t in got["terms"]][0] == []
    assert [c["kind"] for c in got["terms"][1]["changes"]] == ["changed"]


def test_no_affinity_and_junk_give_no_terms() -> None:
    assert explain_node_affinity_update({}, "junk") == {"old_terms": 0, "new_terms": 0, "terms": []}
