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
