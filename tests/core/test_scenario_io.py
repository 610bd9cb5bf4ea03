"""Reading manifest text: the fast YAML path (ryaml) and PyYAML's YAML 1.1 must agree.

ryaml reads YAML 1.2; kubectl (go-yaml v2) and PyYAML read YAML 1.1. Texts in which a
plain value would read differently go to PyYAML, so every manifest means what kubectl
would make of it; what kubectl prints takes the fast path.
"""
from __future__ import annotations

import copy
import os
import random
import re

import pytest
import yaml

from scheduler_core import ScenarioError, load_scenario, scenario_io
from scheduler_core.scenario_io import _LOADER, _fast_yaml, parse_fast, read_documents
from tests.bench.generate import generate, to_yaml

POD = """apiVersion: v1
kind: Pod
metadata: {{name: p, labels: {{app: {value}}}}}
spec: {{containers: [{{name: c}}]}}
"""


@pytest.mark.parametrize("value", [
    "yes", "No", "on", "OFF", "0777", "1_000", "0o17", "1e3", "1:20", "-.5",
])
def test_a_yaml_1_1_value_is_read_as_kubectl_reads_it(value) -> None:
    text = f"a: {value}\nb: [x, {value}]\n"
    assert _fast_yaml(text) is None
    assert list(read_documents(f"kind: X\n{text}", "t.yaml")) == \
        list(yaml.load_all(f"kind: X\n{text}", Loader=_LOADER))


def test_an_unquoted_yes_label_is_refused_as_a_boolean() -> None:
    with pytest.raises(ScenarioError, match="metadata.labels.app: must be a string, not a boolean"):
        load_scenario(POD.format(value="yes"))


@pytest.mark.parametrize("text", [
    "a: &x 1\nb: *x\n", "a: !!str 5\n", "<<: {a: 1}\n", "a: 1\na: 2\n",
    "x: 123456789012345678901234567890\n",
], ids=["anchors", "tags", "merge key", "duplicate key", "big integer"])
def test_anchors_tags_and_what_ryaml_refuses_take_the_pyyaml_path(text) -> None:
    assert _fast_yaml(text) is None


def test_a_kubectl_dump_takes_the_fast_path_and_reads_the_same() -> None:
    text = to_yaml(generate("30x60", seed=2).objects)
    fast = _fast_yaml(text)
    assert fast is not None
    assert fast == list(yaml.load_all(text, Loader=_LOADER))
    assert load_scenario(text).pods  # and the scenario loads


def test_a_bare_equals_sign_is_the_yaml_1_1_error_it_always_was() -> None:
    with pytest.raises(ScenarioError, match="could not determine a constructor"):
        load_scenario(POD.format(value="="))


@pytest.mark.parametrize("size", ["small", "500"])
def test_loading_leaves_the_parsed_documents_as_they_were(size) -> None:
    # the web app hands the documents it parsed once (and keeps for its pages) to the engine
    text = to_yaml(generate(size, 3).objects)
    docs = parse_fast(text)
    assert docs is not None
    before = copy.deepcopy(docs)
    scenario = load_scenario(text, filename="s.yaml", parsed=docs)
    assert docs == before
    assert len(scenario.nodes) == {"small": 100, "500": 500}[size]


KUBECTL_LIST = """apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {zone: a}
# a comment between items
- apiVersion: v1
  kind: Pod
  metadata:
    name: p1
    annotations:
      note: |
        two lines

        of text
  spec:
    containers:
    - name: c
      args: ["a", "b: c"]
- apiVersion: v1
  kind: Pod
  metadata: {name: p2}
kind: List
metadata:
  resourceVersion: ""
"""


@pytest.mark.parametrize("text, chunked", [
    pytest.param(KUBECTL_LIST, True, id="kubectl's List, items at column 0"),
    pytest.param(KUBECTL_LIST.replace("\n", "\r\n"), True, id="with CRLF line ends"),
    pytest.param("kind: List\nmetadata: {}\nitems:\n" + KUBECTL_LIST.split("items:\n", 1)[1]
                 .split("kind: List")[0], True, id="items last"),
    pytest.param(KUBECTL_LIST.replace("\n- ", "\n  - ").replace("\n  ", "\n    ")
                 .replace("\n    - ", "\n  - ", 3), False, id="items indented (read whole)"),
    pytest.param(KUBECTL_LIST + "---\nkind: Node\nmetadata: {name: n2}\n", False,
                 id="two documents (read whole)"),
    pytest.param("apiVersion: v1\nitems: []\nkind: List\n", False, id="no items"),
    pytest.param("- a: 1\n- b: 2\n", False, id="a top-level sequence (read whole)"),
])
def test_a_large_list_read_in_chunks_reads_as_the_whole_text(text, chunked, monkeypatch) -> None:
    import ryaml

    from scheduler_core import scenario_io

    monkeypatch.setattr(scenario_io, "CHUNKED_MIN_CHARS", 0)
    monkeypatch.setattr(scenario_io, "CHUNK_CHARS", 40)  # a chunk or two per item
    assert parse_fast(text) == ryaml.loads_all(text)
    assert (scenario_io._list_in_chunks(text) is not None) == chunked


def test_a_generated_cluster_read_in_chunks_loads_the_same_scenario(monkeypatch) -> None:
    from scheduler_core import scenario_io

    text = to_yaml(generate("dense-40x60").objects)
    whole = parse_fast(text)
    monkeypatch.setattr(scenario_io, "CHUNKED_MIN_CHARS", 0)
    monkeypatch.setattr(scenario_io, "CHUNK_CHARS", 50_000)
    assert scenario_io._list_in_chunks(text) == whole


# The fast path's two checks are searches split for speed; each must answer as the single
# regex it replaced (the combined value pattern, and _NODE_PROPERTIES) on every text.
_COMBINED_YAML11 = re.compile(r"""
 (?:[:?-][ \t]+|[\[{,][ \t]*)
 (?:yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|=|<<
   |[-+]?(?:0[0-9_]+(?:\.[0-9_]*)?|[0-9.][0-9._]*_[0-9._]*|0[oO][0-7_]+
            |[0-9]*\.?[0-9_]*[eE][-+]?[0-9]+|[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
            |\.[0-9]+))
 (?=[ \t]*(?:$|\#|,|\]|}|:(?:[ \t]|$)))
""", re.MULTILINE | re.VERBOSE)
_PIECES = ["a", "b: ", "- ", "? ", ": ", "[", "]", "{", "}", ",", " ", "\t", "\n", "\r\n", "#", ":",
           "yes", "No", "on", "=", "<<", "0", "07", "1_0", "0o7", "1e3", "e5", "_", ".5", "1:20", "+",
           "-", "&", "*", "!", "&a", "*a", "!!str", "x", "\u2028", "\xa0", "é", '"', "'"]


def _random_texts(seed: int, n: int = 3000) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 14))) for _ in range(n)]


@pytest.mark.parametrize("texts", [
    ["a: yes\n", "a:  0777 # note\n", "[x,1_000]", "{a: on}", "- e5\n", "a: e5x\n", "a: -.5:\n",
     "a: 1.5\n", "a: 'yes'\n", "a: yes please\n", "key:on\n", "a: 1:70\n", "a:\t=\n"],
    _random_texts(1), _random_texts(2),
], ids=["by hand", "random 1", "random 2"])
def test_the_split_yaml_1_1_search_finds_what_the_single_pattern_finds(texts) -> None:
    wrong = [t for t in texts if scenario_io._yaml11_value(t) != (_COMBINED_YAML11.search(t) is not None)]
    assert wrong == []


def _chunks_of_repeated_lines(seed: int, n: int = 400) -> list[str]:
    """Texts of lines drawn from a few random lines, as a kubectl List repeats its lines."""
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        lines = [line.replace("\n", " ") for line in _random_texts(rng.randrange(10 ** 6), rng.randint(1, 6))]
        texts.append("\n".join(rng.choice(lines) for _ in range(rng.randint(1, 12))) + rng.choice(["", "\n"]))
    return texts


@pytest.mark.skipif(scenario_io._ryml is None, reason="rapidyaml's checks")
@pytest.mark.parametrize("texts", [
    ["- a: yes\n- a: yes\n", "- a: 1\n  b: [x]\n- a: 1\n", "a: &x\na: &x\n", "- {}\n- key: |\n- key: |\n",
     "- x\r\n- x\r\n", "a: b\n&c\n", "- 1: a\n- 1: a\n", "a: b\n", ""],
    _chunks_of_repeated_lines(5), _chunks_of_repeated_lines(6),
], ids=["by hand", "random 5", "random 6"])
def test_a_chunks_checks_on_its_distinct_lines_answer_as_on_the_whole_chunk(texts, monkeypatch) -> None:
    on_distinct_lines = [scenario_io._chunk_checks(t) for t in texts]
    monkeypatch.setattr(scenario_io, "_distinct_lines", lambda text: text)
    assert on_distinct_lines == [scenario_io._chunk_checks(t) for t in texts]
    assert {refused for refused, _ in on_distinct_lines} == {True, False}  # (both answers are met)
    assert any(ryml for _, ryml in on_distinct_lines)


@pytest.mark.parametrize("scan_max", [10_000, 0], ids=["found by str.find", "many: the regex"])
@pytest.mark.parametrize("texts", [
    ["a: &x 1\nb: *x\n", "&a", "a&b", "a: *\n", "a: * b\n", "[*a]", "{!t x}", "a: x!y\n", "*", "x *",
     "x *}", "\u2028&a", "\xa0*b", "a: é!x\n", "- !!str 5\n", "a:&b"],
    _random_texts(3), _random_texts(4),
], ids=["by hand", "random 3", "random 4"])
def test_the_anchor_alias_and_tag_scan_answers_as_the_pattern(texts, scan_max, monkeypatch) -> None:
    monkeypatch.setattr(scenario_io, "_PROPERTY_SCAN_MAX", scan_max)
    found = [t for t in texts if scenario_io.node_properties(t)]
    assert found == [t for t in texts if scenario_io._NODE_PROPERTIES.search(t)]
    assert found  # (the texts hold anchors, aliases or tags to find)


@pytest.fixture
def parallel_parse(monkeypatch):
    """Every List of more than one chunk parsed by three processes."""
    monkeypatch.setattr(scenario_io, "CHUNKED_MIN_CHARS", 0)
    monkeypatch.setattr(scenario_io, "CHUNK_CHARS", 20_000)
    monkeypatch.setattr(scenario_io, "PARALLEL_MIN_CHARS", 0)
    monkeypatch.setattr(scenario_io, "_processors", lambda: 3)


DENSE_TEXT = to_yaml(generate("dense-40x60").objects)


def test_a_list_parsed_by_several_processes_reads_as_parsed_by_one(parallel_parse) -> None:
    import ryaml

    assert parse_fast(DENSE_TEXT) == ryaml.loads_all(DENSE_TEXT)


def _fail_in_children(monkeypatch, how):
    parent, parts_of = os.getpid(), scenario_io._parts_of

    def failing(text, spans):
        if os.getpid() != parent:
            how()
        return parts_of(text, spans)

    monkeypatch.setattr(scenario_io, "_parts_of", failing)


@pytest.mark.parametrize("how", [
    pytest.param(lambda: os._exit(9), id="a child dies"),
    pytest.param(lambda: 1 / 0, id="a child raises"),
    pytest.param(lambda: os.kill(os.getpid(), 9), id="a child is killed"),
])
def test_chunks_a_child_could_not_parse_are_parsed_by_the_loading_process(parallel_parse, monkeypatch,
                                                                           how) -> None:
    import ryaml

    _fail_in_children(monkeypatch, how)
    assert parse_fast(DENSE_TEXT) == ryaml.loads_all(DENSE_TEXT)


def test_an_error_in_a_childs_chunks_is_the_error_a_single_process_gives(parallel_parse) -> None:
    at = DENSE_TEXT.rindex("\n- ") + 1  # (the last item: a child's chunk)
    broken = DENSE_TEXT[:at] + "- kind: Pod\n  metadata: {name: [unclosed\n" + DENSE_TEXT[at:]
    with pytest.raises(ScenarioError) as parallel:
        load_scenario(broken)
    scenario_io.PARALLEL_MIN_CHARS = 10 ** 12
    with pytest.raises(ScenarioError) as single:
        load_scenario(broken)
    assert str(parallel.value) == str(single.value)
    assert "line" in str(single.value)


def _with(text: str, where: str, what: str) -> str:
    if where == "the List's own fields":
        return text.replace("kind: List\n", f"kind: List\nnote: {what}\n", 1)
    at = text.index("\n- ", 1) + 1 if where == "the first item" else text.rindex("\n- ") + 1
    return text[:at] + f"- kind: Namespace\n  metadata: {{name: extra, labels: {{x: {what}}}}}\n" + text[at:]


@pytest.mark.parametrize("what", ["yes", "0777", "&anchor a"], ids=["1.1 boolean", "1.1 octal", "anchor"])
@pytest.mark.parametrize("where", ["the first item", "the last item", "the List's own fields"])
def test_a_large_list_with_what_yaml_1_1_reads_differently_anywhere_goes_to_pyyaml(
        parallel_parse, where, what) -> None:
    text = _with(DENSE_TEXT, where, what)
    assert _fast_yaml(text) is None
    assert _fast_yaml(DENSE_TEXT) is not None


@pytest.mark.parametrize("setting, forks", [("1", 0), ("2", 1), ("x", 2), (None, 2)])
def test_whatif_parse_processes_bounds_the_forked_readers(parallel_parse, monkeypatch, setting, forks) -> None:
    import ryaml

    started = []
    fork_parser = scenario_io._fork_parser
    monkeypatch.setattr(scenario_io, "_fork_parser", lambda *a: started.append(1) or fork_parser(*a))
    if setting is None:
        monkeypatch.delenv("WHATIF_PARSE_PROCESSES", raising=False)
    else:
        monkeypatch.setenv("WHATIF_PARSE_PROCESSES", setting)
    assert parse_fast(DENSE_TEXT) == ryaml.loads_all(DENSE_TEXT)
    assert len(started) == forks  # (three processors in this fixture: at most two children)


# rapidyaml reads the chunks of a large List and writes them out as JSON, which orjson reads;
# where it could read a chunk otherwise than ryaml (some plain scalars, keys, indicators), the
# chunk is read by ryaml. Every reading is compared strictly: 1, 1.0 and True are not equal here.
def _strictly(docs):
    return repr(docs)


def _read(text: str):
    """The documents as read_documents gives them, or the error it raises."""
    try:
        return _strictly(list(read_documents(text, "t.yaml")))
    except ScenarioError as e:
        return f"error: {e}"


@pytest.fixture
def chunked_reads(monkeypatch):
    """Every List read in chunks of an item or two; the chunks rapidyaml read are counted."""
    monkeypatch.setattr(scenario_io, "CHUNKED_MIN_CHARS", 0)
    monkeypatch.setattr(scenario_io, "CHUNK_CHARS", 200)
    read_by_ryml = []
    ryml_json = scenario_io._ryml_json

    def counted(chunk):
        out = ryml_json(chunk)
        read_by_ryml.append(out is not None)
        return out

    monkeypatch.setattr(scenario_io, "_ryml_json", counted)
    return read_by_ryml


def _without_rapidyaml(text: str, monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(scenario_io, "_ryml", None)
        return _read(text)


_ITEM = "- kind: ConfigMap\n  metadata:\n    name: c{n}\n  data:\n    {line}\n"


def _list_with(line: str) -> str:
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(
        _ITEM.format(n=n, line=line if n == 2 else "a: b") for n in range(4)) + "metadata: {}\n"


@pytest.mark.parametrize("line", [
    # plain values ryaml reads as booleans, nulls, infinities, NaN or numbers, rapidyaml as strings
    "a: True", "a: FALSE", "a: Null", "a: ~", "a: .inf", "a: -.Inf", "a: .NaN", "a: 0x1F", "a: 0b101",
    # what rapidyaml writes otherwise: plain "nan" as ".nan"; a number too long for a double
    "a: nan", "a: -inf", "a: 123456789012345678901", "a: +1",
    # keys ryaml reads as numbers, booleans or nulls; keys rapidyaml writes otherwise, quoted or not
    "1: a", "-2: a", "1.5: a", "true: a", "null: a", "~: a", "'nan': a", '".INF": a', "- 1: a",
    # what YAML forbids and rapidyaml accepts; flow collections; escapes JSON cannot hold
    "a: @b", "a: `b", "a: %b", "a: ]b", ": a", "? a", "a: [b, 1]", "a: {b: 1}", "a: |1\n      b",
    "a: >x", "a: b\tc", "a: b: c", 'a: "b\\0c"', 'a: "\\ud800"', "a: b\r", "a: b\u2028c",
    # read the same either way (rapidyaml reads these chunks)
    "a: 1", "a: 1.5", "a: -0", "a: true", "a: null", "a: []", "a: {}", "a: |\n      b", "a: >-\n      b",
    "a: 'True'", 'a: "nan"', "a: é", 'a: "\\u00e9\\t"', "a: 100m", "a: b # c",
])
def test_a_chunk_rapidyaml_might_read_otherwise_reads_as_without_it(line, chunked_reads,
                                                                    monkeypatch) -> None:
    text = _list_with(line)
    assert _read(text) == _without_rapidyaml(text, monkeypatch)


def test_a_kubectl_list_is_read_by_rapidyaml_and_reads_as_without_it(chunked_reads, monkeypatch) -> None:
    text = _list_with("a: b")
    assert _read(text) == _without_rapidyaml(text, monkeypatch)
    assert chunked_reads and all(chunked_reads)


def test_a_generated_cluster_is_read_by_rapidyaml_and_reads_as_without_it(monkeypatch) -> None:
    import orjson

    monkeypatch.setattr(scenario_io, "CHUNKED_MIN_CHARS", 0)
    monkeypatch.setattr(scenario_io, "CHUNK_CHARS", 50_000)
    read_by_ryml = []
    ryml_json = scenario_io._ryml_json
    monkeypatch.setattr(scenario_io, "_ryml_json", lambda c: read_by_ryml.append(ryml_json(c)) or read_by_ryml[-1])
    fast = scenario_io._list_in_chunks(DENSE_TEXT)
    with monkeypatch.context() as m:
        m.setattr(scenario_io, "_ryml", None)
        assert orjson.dumps(fast) == orjson.dumps(scenario_io._list_in_chunks(DENSE_TEXT))
    assert len(read_by_ryml) > 40 and None not in read_by_ryml  # (every chunk)


_SCALAR_PIECES = ["true", "True", "TRUE", "false", "NULL", "null", "~", ".inf", ".NaN", "nan", "inf", "0x",
                  "0o", "0b", "1e", "+", "-", ".", "0", "1", "9", "_", "a", "E", "x", "yes", "@", "`", "%",
                  "&", "!", "|", ">", "[", "]", "{", "}", ",", "#", "'", '"', "?", ":", " ", "12345678901234567890"]


def _random_scalars(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_SCALAR_PIECES) for _ in range(rng.randint(1, 3))) for _ in range(n)]


@pytest.mark.parametrize("where", [
    "a: {s}", "{s}: a", "- {s}", "'{s}': a", '"{s}": a', "a: '{s}'", "a: |{s}\n      b", "a: [{s}]",
])
def test_random_scalars_read_as_without_rapidyaml(where, chunked_reads, monkeypatch) -> None:
    wrong = []
    for scalar in _random_scalars(len(where), 150):
        text = _list_with(where.format(s=scalar))
        if _read(text) != _without_rapidyaml(text, monkeypatch):
            wrong.append(scalar)
    assert wrong == []
    assert any(chunked_reads)  # (some of them rapidyaml read)


def test_what_rapidyaml_refuses_is_worded_by_pyyaml_and_it_prints_nothing(chunked_reads, capfd) -> None:
    with pytest.raises(ScenarioError, match="mapping values are not allowed in this context"):
        list(read_documents(_list_with("a: b: c"), "t.yaml"))
    assert capfd.readouterr() == ("", "")


def test_a_read_in_a_servers_thread_leaves_its_error_output_alone(chunked_reads, monkeypatch) -> None:
    # (pointing descriptor 2 elsewhere would lose other threads' output meanwhile: a threaded server's log)
    import threading

    redirected = []
    monkeypatch.setattr(scenario_io.os, "dup2", lambda *a: redirected.append(a))
    errors = []

    def read():
        try:
            list(read_documents(_list_with("a: b: c"), "t.yaml"))
        except ScenarioError as e:
            errors.append(str(e))

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert "mapping values are not allowed in this context" in errors[0]
    assert redirected == []
