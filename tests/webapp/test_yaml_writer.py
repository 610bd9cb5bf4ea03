"""What a quick edit writes back reads back as the same objects, in YAML 1.1 and in the engine's reader.

``documents.dump`` writes plain manifest data itself (PyYAML's representer took 50 s for a 29 MB cluster);
these tables pin that every value it writes reads back equal through libyaml, through PyYAML's pure-Python
loader and through the engine's fast reader, and that what it cannot write safely goes through PyYAML."""

import pytest
import yaml

from scheduler_core.scenario_io import parse_fast
from tests.bench.generate import generate
from webapp.scenarios.manifests import documents

TRICKY_STRINGS = [
    "", " ", "web", "web-1", "a b", "yes", "No", "on", "OFF", "true", "False", "null", "Null", "~", "y", "n",
    "123", "0123", "0x1F", "0o17", "1_000", "1e3", "1.5", ".5", "-1", "+1", ".inf", "-.inf", ".nan", "1:30",
    "12:30:45", "2026-11-01", "2026-11-01T00:00:00Z", "a:b", "a: b", "a:", ":a", "#x", "a #b", "a#b", "-", "- a",
    "-a", "?", "? a", "[a]", "{a: 1}", "a,b", "*ref", "&anchor", "!tag", "%x", "@x", "`x", "|", ">", "'q'",
    '"dq"', "back\\slash", "line\nbreak", "tab\there", "trailing ", " leading", "<<", "=", "/var/lib",
    "registry.example.com/shop/web:1.2.0", "http://example.com/a?b=c", "cpu", "100m", "8Gi", "1", "0",
    "\x00nul", "\x1b esc", "bell\x07",
]


@pytest.mark.parametrize("value", TRICKY_STRINGS, ids=repr)
def test_a_string_value_or_key_reads_back_as_itself(value) -> None:
    doc = {"metadata": {"name": value, "labels": {value: value or "x"}}, "list": [value, {"k": value}]}
    text = documents.dump(doc)
    assert yaml.load(text, Loader=yaml.CSafeLoader) == doc
    assert yaml.load(text, Loader=yaml.SafeLoader) == doc
    fast = parse_fast(text)
    assert fast is None or fast == [doc]


@pytest.mark.parametrize("value", [
    0, -7, 2**40, 0.5, -2.25, 1e20, float("inf"), float("nan"), True, False, None, {}, [], [[]], [{}],
    [[1, 2], [3]], {"a": {"b": {"c": []}}}, [{"a": [{"b": 1}]}],
], ids=repr)
def test_other_values_read_back_as_themselves(value) -> None:
    doc = {"spec": {"value": value}, "items": [value]}
    loaded = yaml.load(documents.dump(doc), Loader=yaml.CSafeLoader)
    if isinstance(value, float) and value != value:
        assert loaded["spec"]["value"] != loaded["spec"]["value"]
    else:
        assert loaded == doc


@pytest.mark.parametrize("value", ["é", "日本", "emoji 😀", "\x7f", "\u2028"], ids=repr)
def test_text_beyond_ascii_goes_through_pyyaml_and_reads_back(value) -> None:
    doc = {"metadata": {"annotations": {"note": value}}}
    for allow_unicode in (False, True):
        text = documents.dump(doc, allow_unicode=allow_unicode)
        assert yaml.load(text, Loader=yaml.CSafeLoader) == doc


def test_keys_that_are_not_strings_go_through_pyyaml() -> None:
    doc = {"data": {80: "http", True: "yes"}}
    assert yaml.load(documents.dump(doc), Loader=yaml.CSafeLoader) == doc


def test_a_generated_cluster_reads_back_the_same_and_takes_the_engines_fast_reader() -> None:
    doc = {"apiVersion": "v1", "kind": "List", "items": generate("small", 3).objects,
           "metadata": {"resourceVersion": ""}}
    text = documents.dump(doc)
    assert yaml.load(text, Loader=yaml.CSafeLoader) == doc
    assert parse_fast(text) == [doc]


def test_documents_are_separated_as_yaml_dump_all_does() -> None:
    docs = [{"kind": "Node", "metadata": {"name": "a"}}, {"kind": "Pod", "metadata": {"name": "p"}}]
    text = documents.dump_all(docs)
    assert list(yaml.load_all(text, Loader=yaml.CSafeLoader)) == docs
    assert text == yaml.safe_dump_all(docs, sort_keys=False, default_flow_style=False)
