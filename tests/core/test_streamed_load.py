"""Loading a large List while its chunks are still being read (scenario_io.stream_documents).

Forked children read the chunks and hand each one over as soon as it is read, while the
loading process decodes the objects of the chunks it already has. The scenario, and any
error, must be what reading the whole text first gives: whatever only a whole read decides
sends the text back to that read.
"""
from __future__ import annotations

import json
import os

import pytest

from scheduler_core import ScenarioError, load_scenario, scenario_io, simulate
from scheduler_core.scenario_io import parse_fast
from tests.bench.generate import generate, to_yaml
from tests.core.test_scenario_io import _fail_in_children

TEXT = to_yaml(generate("dense-40x60").objects)


@pytest.fixture
def streamed(monkeypatch):
    """Every List of more than a few items streamed, in chunks of a few items, by two children;
    what happened is counted: children started, texts sent back to a whole read."""
    monkeypatch.setattr(scenario_io, "STREAM_MIN_CHARS", 0)
    monkeypatch.setattr(scenario_io, "CHUNKED_MIN_CHARS", 0)
    monkeypatch.setattr(scenario_io, "CHUNK_CHARS", 20_000)
    monkeypatch.setattr(scenario_io, "_processors", lambda: 2)
    monkeypatch.delenv("WHATIF_PARSE_PROCESSES", raising=False)
    seen = {"children": 0, "streams": 0, "read_again": 0}
    fork, stream = scenario_io._fork_streamer, scenario_io.stream_documents
    _forked.clear()

    def counted_fork(*a):
        seen["children"] += 1
        child = fork(*a)
        if child is not None:
            _forked.append(child[0])
        return child

    def counted_stream(*a):
        docs = stream(*a)
        if docs is not None:
            seen["streams"] += 1
            chunks = docs._chunks

            def watched():
                try:
                    yield from chunks
                except scenario_io.ReadAgain:
                    seen["read_again"] += 1
                    raise
            docs._chunks = watched()
        return docs

    monkeypatch.setattr(scenario_io, "_fork_streamer", counted_fork)
    monkeypatch.setattr("scheduler_core.scenario.stream_documents", counted_stream)
    return seen


def _outcome(text: str) -> str:
    """The simulation's result of the loaded text, or the load's error."""
    try:
        return json.dumps(simulate(load_scenario(text, filename="c.yaml"), seed=3), sort_keys=True,
                          default=str)
    except ScenarioError as e:
        return f"error: {e}"


def _whole(text: str) -> str:
    """The same, the text read whole before any object is decoded (as below the size that streams)."""
    saved = scenario_io.STREAM_MIN_CHARS
    scenario_io.STREAM_MIN_CHARS = 10 ** 12
    try:
        return _outcome(text)
    finally:
        scenario_io.STREAM_MIN_CHARS = saved


_forked: list[int] = []  # the pids of the children the streamed fixture saw started


def _no_children_left() -> bool:
    """Every child the stream started has been waited for: none is running, none is left unreaped
    (the test process may have children of its own, such as a worker other tests started)."""
    for pid in _forked:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return False
    return True


def test_a_streamed_list_loads_the_scenario_a_whole_read_loads(streamed) -> None:
    assert _outcome(TEXT) == _whole(TEXT)
    assert streamed == {"children": 2, "streams": 1, "read_again": 0}
    assert _no_children_left()


def test_the_objects_streamed_are_the_documents_of_a_whole_read(streamed) -> None:
    docs = scenario_io.stream_documents(TEXT, "c.yaml")
    try:
        assert list(docs) == parse_fast(TEXT)[0]["items"]
    finally:
        docs.close()
    assert _no_children_left()


@pytest.mark.parametrize("processes, children", [("1", 0), ("2", 2), ("3", 2)])
def test_whatif_parse_processes_bounds_the_streaming_readers(streamed, monkeypatch, processes, children) -> None:
    monkeypatch.setenv("WHATIF_PARSE_PROCESSES", processes)
    assert _outcome(TEXT) == _whole(TEXT)
    assert streamed["children"] == children  # (two processors here; 1: read in the loading process)


def test_one_processor_or_no_fork_streams_without_children(streamed, monkeypatch) -> None:
    monkeypatch.setattr(scenario_io, "_processors", lambda: 1)  # (what it says where os has no fork)
    assert _outcome(TEXT) == _whole(TEXT)
    assert streamed == {"children": 0, "streams": 1, "read_again": 0}


def _with_last_item(text: str, item: str) -> str:
    at = text.rindex("\n- ") + 1
    return text[:at] + item + text[at:]


@pytest.mark.parametrize("item, why", [
    ("- kind: Namespace\n  metadata: {name: extra, labels: {x: &a yes}}\n", "an anchor: PyYAML reads it"),
    ("- kind: Namespace\n  metadata: {name: extra, labels: {x: yes}}\n", "a YAML 1.1 boolean"),
    ("- kind: Pod\n  metadata: {name: [unclosed\n", "a syntax error: PyYAML words it"),
])
def test_a_last_chunk_only_a_whole_read_decides_sends_the_text_back_to_it(streamed, item, why) -> None:
    text = _with_last_item(TEXT, item)
    assert _outcome(text) == _whole(text)
    assert streamed["read_again"] == 1
    assert _no_children_left()


def test_flow_nesting_deeper_than_ryaml_takes_sends_the_text_back_to_the_whole_read(streamed) -> None:
    deep = "[" * 300 + "]" * 300
    text = _with_last_item(TEXT, f"- kind: Namespace\n  metadata: {{name: deep, labels: {{x: y}}}}\n  note: {deep}\n")
    assert _outcome(text) == _whole(text)
    assert streamed["read_again"] == 1
    docs = scenario_io.stream_documents(text, "c.yaml")
    with pytest.raises(scenario_io.ReadAgain):  # (before any chunk is parsed: none reaches ryaml)
        next(iter(docs))
    docs.close()
    assert _no_children_left()
    in_the_lists_own_fields = text.replace("kind: List\n", f"kind: List\nnote: {deep}\n", 1)
    assert scenario_io.stream_documents(in_the_lists_own_fields, "c.yaml") is None


def test_an_objects_error_gives_way_to_a_syntax_error_later_in_the_text(streamed) -> None:
    """Read whole, the text's syntax error is found before any object is decoded."""
    bad_object = TEXT.replace("\n  kind: Node\n", "\n  kinds: Node\n", 1)  # (an early item: no kind)
    assert bad_object != TEXT
    broken = _with_last_item(bad_object, "- kind: Pod\n  metadata: {name: [unclosed\n")
    outcome = _outcome(broken)
    assert outcome == _whole(broken)
    assert outcome.startswith("error: ") and "line" in outcome and "kind" not in outcome
    alone = _outcome(bad_object)  # the object's own error, without the other
    assert alone == _whole(bad_object)
    assert "kind: Required value" in alone
    assert _no_children_left()


@pytest.mark.parametrize("how", [
    pytest.param(lambda: os._exit(9), id="a child dies"),
    pytest.param(lambda: 1 / 0, id="a child raises"),
    pytest.param(lambda: os.kill(os.getpid(), 9), id="a child is killed"),
])
def test_chunks_a_child_could_not_read_are_read_by_the_loading_process(streamed, monkeypatch, how) -> None:
    expected = _whole(TEXT)
    _fail_in_children(monkeypatch, how)
    assert _outcome(TEXT) == expected
    assert streamed["read_again"] == 0
    assert _no_children_left()


def test_children_are_stopped_when_the_load_stops_early(streamed) -> None:
    docs = scenario_io.stream_documents(TEXT, "c.yaml")
    first = next(iter(docs))
    docs.close()
    assert first["kind"]
    assert _no_children_left()


def test_a_typed_list_streams_its_items_with_its_kind(streamed) -> None:
    """A PodList's items carry no kind: they take it from the list, as in a whole read."""
    pods = [o for o in generate("dense-40x60").objects if o["kind"] == "Pod"]
    for pod in pods:
        del pod["kind"]
    text = to_yaml(pods).replace("kind: List\n", "kind: PodList\n", 1)
    assert "kind: PodList\n" in text
    docs = scenario_io.stream_documents(text, "c.yaml")
    assert docs is not None
    try:
        streamed_docs = list(docs)
    finally:
        docs.close()
    assert streamed_docs == list(scenario_io.read_documents(text, "c.yaml", parse_fast(text)))
    assert {d["kind"] for d in streamed_docs} == {"Pod"}


@pytest.mark.parametrize("text, why", [
    ('{"kind": "List", "items": []}', "JSON"),
    ("kind: Pod\nmetadata: {name: p}\n", "not a List"),
    ("a: &x 1\nkind: List\nitems:\n- {kind: Pod}\n", "an anchor outside the items"),
])
def test_texts_that_are_not_a_list_the_fast_path_reads_are_not_streamed(streamed, text, why) -> None:
    assert scenario_io.stream_documents(text, "c.yaml") is None
