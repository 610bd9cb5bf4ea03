"""Large documents (a run's result, its page's rows) are written out with orjson: the same JSON values as the
json module writes, faster; what orjson refuses goes the json module's way."""

import json

import pytest

from webapp.scenarios.large_json import LargeJSONEncoder, dumps


@pytest.mark.parametrize("value", [
    pytest.param({"pods": [{"pod": "default/web-1", "node": "node-a", "score": 0.125}]}, id="a result's shape"),
    pytest.param({1: "a", 2: {3: [4, 5]}}, id="integer keys become strings"),
    pytest.param({"nodes": ("a", ("b", "c"))}, id="tuples become arrays"),
    pytest.param({"name": "zone-ü ☃ \u2028", "empty": {}, "none": None, "flag": False}, id="text and constants"),
    pytest.param({"huge": 2**70, "small": -(2**70)}, id="integers beyond 64 bits: the json module's way"),
    pytest.param([1e-7, 1.5e300, 0.1, -0.0, 123456789012345678], id="numbers"),
])
def test_large_documents_read_back_as_the_json_module_writes_them(value) -> None:
    assert json.loads(dumps(value)) == json.loads(json.dumps(value))
    assert json.loads(json.dumps(value, cls=LargeJSONEncoder)) == json.loads(json.dumps(value))
