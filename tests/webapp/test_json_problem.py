"""limits.json_problem: where a parsed text holds a NUL character or is nested too deep (the path named)."""

import pytest

from webapp.scenarios.manifests import limits


def nested(depth, leaf="x"):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("value, limit, problem", [
    pytest.param({"a": {"b": ["x", "y\x00"]}}, 10, ("nul", "a.b.1"), id="NUL in a list's string"),
    pytest.param({"a": {"b\x00": 1}}, 10, ("nul", "a.b\x00"), id="NUL in a key"),
    pytest.param([{"kind": "Pod", "metadata": {"name": "p\x00"}}], 10, ("nul", "0.metadata.name"),
                 id="NUL in a document's name"),
    pytest.param("\x00", 10, ("nul", ""), id="NUL in a bare string"),
    pytest.param(nested(5), 5, None, id="as deep as allowed"),
    pytest.param(nested(6), 5, ("depth", ".".join(["0"] * 5)), id="one level too deep"),
    pytest.param({"a": [1, 2.5, None, True, {"b": "c"}]}, 10, None, id="clean"),
    pytest.param({1: "x", None: ["y"]}, 10, None, id="keys that are not strings"),
])
def test_it_names_the_first_problem_it_finds(value, limit, problem):
    assert limits.json_problem(value, limit) == problem


POD = {"kind": "Pod", "metadata": {"name": "p", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "c"}]}}


def as_list(*items, **fields):
    return [{"kind": "List", "items": list(items), **fields}]


# (documents checked first, then documents checked next: objects of the first by identity, and new ones)
SEEN_THEN = [
    pytest.param([POD], lambda seen: [seen[0]], id="the same object again"),
    pytest.param([POD], lambda seen: [seen[0], {**POD, "spec": nested(8)}], id="a new object too deep"),
    pytest.param([POD], lambda seen: [{**POD, "metadata": {"name": "p\x00"}}, seen[0]], id="a new object with a NUL"),
    pytest.param([{"kind": "Pod", "spec": nested(5)}], lambda seen: as_list(seen[0]),
                 id="an object seen as a document, now a List's item: two levels deeper"),
    pytest.param(as_list({"kind": "Pod", "spec": nested(5)}), lambda seen: [seen[0]["items"][0]],
                 id="a List's item, now a document of its own"),
    pytest.param(as_list(POD), lambda seen: as_list(seen[0]["items"][0], metadata=nested(7)),
                 id="a List whose own fields are too deep"),
    pytest.param(as_list(POD), lambda seen: as_list(seen[0]["items"][0], metadata={"name": "\x00"}),
                 id="a List whose own fields hold a NUL"),
    pytest.param([POD, "text", None], lambda seen: [seen[1], seen[0], "\x00"], id="documents that are not objects"),
]


@pytest.mark.parametrize("first, then", SEEN_THEN)
def test_a_check_that_walks_only_objects_it_has_not_seen_finds_what_a_whole_walk_finds(first, then):
    checked = limits.CheckedObjects()
    assert checked.problem(first, 8) == limits.json_problem(first, 8)
    docs = then(first)
    assert checked.problem(docs, 8) == limits.json_problem(docs, 8)


@pytest.mark.parametrize("first, then", [
    pytest.param(as_list(POD), lambda kept: kept, id="the documents kept"),
    pytest.param(as_list(POD), lambda kept: as_list(kept[0]["items"][0], {**POD, "spec": nested(8)}),
                 id="with a new object too deep"),
    pytest.param([{"kind": "Pod", "spec": nested(5)}], lambda kept: as_list(kept[0]),
                 id="a kept document, now a List's item: two levels deeper"),
])
def test_documents_taken_as_checked_give_what_a_whole_walk_gives(first, then):
    # (documents kept on disk by a process that checked them: taken in without a walk)
    checked = limits.CheckedObjects()
    checked.trust(first, 8)
    docs = then(first)
    assert checked.problem(docs, 8) == limits.json_problem(docs, 8)
