"""load_scenario(parsed=..., decoded=...): documents decoded by an earlier load are taken over by identity.

A quick edit hands the engine the documents it wrote its text from: the same objects as the previous text's,
but for copies of the ones it changed. Whatever the edit, the scenario (and so every placement) must be the one
a load from scratch gives.
"""
import copy

import pytest

from scheduler_core import DecodedDocuments, ScenarioError, load_scenario, simulate
from scheduler_core.scenario_io import parse_fast
from tests.bench.generate import generate, to_yaml

TEXT = to_yaml(generate("dense-20x60", seed=5).objects)


def documents():
    """The generated List's items as separate documents (each object one document), as an edit hands them."""
    return list(parse_fast(TEXT)[0]["items"])


def kind_at(docs, kind, k=0):
    return [i for i, d in enumerate(docs) if d["kind"] == kind][k]


def edited(docs, kind, change, k=0):
    """docs with a copy of the k-th object of that kind changed by change(copy), as a quick edit leaves them."""
    out = list(docs)
    i = kind_at(out, kind, k)
    out[i] = copy.deepcopy(out[i])
    change(out[i])
    return out


def pending(docs, k=0):
    return [i for i, d in enumerate(docs) if d["kind"] == "Pod" and not d["spec"].get("nodeName")][k]


def set_priority(pod):
    pod["spec"]["priority"] = 999_999
    pod["spec"].pop("priorityClassName", None)


def unbind_first_pod(docs):
    out = list(docs)
    i = next(i for i, d in enumerate(out) if d["kind"] == "Pod" and d["spec"].get("nodeName"))
    out[i] = copy.deepcopy(out[i])
    out[i]["spec"].pop("nodeName")
    out[i].get("status", {}).pop("phase", None)
    return out


def relabel_node(node):
    node["metadata"]["labels"]["topology.kubernetes.io/zone"] = "elsewhere"


EDITS = {
    "nothing": lambda docs: list(docs),
    "a pending pod's priority": lambda docs: [_changed(d, set_priority) if i == pending(docs) else d
                                              for i, d in enumerate(docs)],
    "a bound pod unbound": unbind_first_pod,
    "a node's zone": lambda docs: edited(docs, "Node", relabel_node, 3),
    "a node removed": lambda docs: [d for i, d in enumerate(docs) if i != kind_at(docs, "Node", 2)],
    "a node copied": lambda docs: docs + [_changed(docs[kind_at(docs, "Node", 0)],
                                                   lambda n: n["metadata"].update(name="copy-of-first"))],
    "the pods in another order": lambda docs: [d for d in docs if d["kind"] != "Pod"] + [
        d for d in reversed(docs) if d["kind"] == "Pod"],
}


def _changed(obj, change):
    obj = copy.deepcopy(obj)
    change(obj)
    return obj


def placements(scenario):
    return [(p["pod"], p["node"], p["outcome"]) for p in simulate(scenario, seed=1)["pods"]]


@pytest.mark.parametrize("name", EDITS)
def test_a_load_that_takes_over_decoded_documents_gives_the_scenario_a_fresh_load_gives(name):
    memo = DecodedDocuments()
    before = documents()
    load_scenario("", parsed=before, decoded=memo)
    assert len(memo) == len(before) - sum(d["kind"] not in ("Node", "Pod") for d in before)
    after = EDITS[name](before)
    taken = load_scenario("", parsed=after, decoded=memo)
    fresh = load_scenario("", parsed=copy.deepcopy(after))
    assert taken.nodes == fresh.nodes
    assert taken.pods == fresh.pods
    assert taken.warnings == fresh.warnings and taken.summary == fresh.summary
    assert placements(taken) == placements(fresh)


def test_an_edit_after_an_edit_takes_over_the_first_edits_documents():
    memo = DecodedDocuments()
    docs = documents()
    for k in range(3):  # three quick edits in a row, each from the previous one's documents
        docs = edited(docs, "Pod", set_priority, k)
        taken = load_scenario("", parsed=docs, decoded=memo)
    fresh = load_scenario("", parsed=copy.deepcopy(docs))
    assert taken.pods == fresh.pods
    assert [p.priority for p in taken.pods if p.name == fresh.pods[0].name] == [fresh.pods[0].priority]


def test_a_load_that_fails_leaves_what_was_decoded_for_the_next():
    memo = DecodedDocuments()
    docs = documents()
    load_scenario("", parsed=docs, decoded=memo)
    held = len(memo)
    bad = edited(docs, "Pod", lambda p: p["spec"].update(priority="high"))
    with pytest.raises(ScenarioError) as e:
        load_scenario("", parsed=bad, decoded=memo)
    assert e.value.field == "spec.priority"
    assert len(memo) == held
    again = load_scenario("", parsed=docs, decoded=memo)
    assert again.pods == load_scenario("", parsed=copy.deepcopy(docs)).pods


def test_a_document_decoded_for_another_file_is_decoded_again_naming_this_one():
    memo = DecodedDocuments()
    docs = documents()
    load_scenario("", filename="one.yaml", parsed=docs, decoded=memo)
    bad = edited(docs, "Pod", lambda p: p["spec"].update(nodeName="nowhere", schedulingGates=[{"name": "g"}]))
    with pytest.raises(ScenarioError) as e:
        load_scenario("", filename="two.yaml", parsed=bad, decoded=memo)
    assert e.value.file == "two.yaml" and e.value.field == "spec.nodeName"


def test_pickled_with_its_documents_it_takes_them_over_by_their_new_identities():
    import pickle

    memo = DecodedDocuments()
    docs = documents()
    load_scenario("", parsed=docs, decoded=memo)
    docs_again, memo_again = pickle.loads(pickle.dumps((docs, memo)))
    node = docs_again[kind_at(docs_again, "Node", 0)]
    assert memo_again.get(node, "scenario.yaml") == memo.get(docs[kind_at(docs, "Node", 0)], "scenario.yaml")
    after = edited(docs_again, "Node", relabel_node, 1)
    taken = load_scenario("", parsed=after, decoded=memo_again)
    assert len(memo_again) == len(memo)
    assert taken.nodes == load_scenario("", parsed=copy.deepcopy(after)).nodes
