"""The disk cache of loaded scenarios: a text loaded once on this machine (by the web process
when it validates a save, or by any worker) is not parsed again by the next process; a file
that does not verify, or was written by another build of the engine, is never used."""

import tempfile
from pathlib import Path
from unittest import mock

import pytest
from django.test import override_settings

from webapp.scenarios import engine
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR

EXAMPLES = sorted(EXAMPLES_DIR.glob("*.yaml"))


@pytest.fixture
def cache_dir():
    with tempfile.TemporaryDirectory() as d, override_settings(ENGINE_CACHE_DIR=d):
        engine._LOADED.clear()
        yield Path(d)
        engine._LOADED.clear()


def another_process():
    """What a new worker process has: nothing in memory."""
    engine._LOADED.clear()


def text_never_parsed():
    return mock.patch("scheduler_core.load_scenario", side_effect=AssertionError("parsed the text again"))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_a_scenario_validated_once_is_simulated_elsewhere_without_parsing_it_again(cache_dir, example):
    text = example.read_text()
    engine.validate(text)  # the web process, at save
    expected = engine.simulate(text, seed=3, detail=True)
    another_process()
    with text_never_parsed():
        assert engine.simulate(text, seed=3, detail=True) == expected
    assert len(list(cache_dir.glob("*.scenario"))) == 1


def test_a_cache_file_that_does_not_verify_is_never_unpickled(cache_dir):
    text = EXAMPLES[0].read_text()
    expected = engine.simulate(text)
    (path,) = cache_dir.glob("*.scenario")
    data = bytearray(path.read_bytes())
    data[-1] ^= 1  # one bit of the payload
    path.write_bytes(bytes(data))
    another_process()
    with mock.patch("pickle.loads", side_effect=AssertionError("unpickled an unverified file")):
        assert engine.simulate(text) == expected  # loaded from the text instead


def test_a_file_signed_with_another_secret_is_ignored(cache_dir):
    text = EXAMPLES[0].read_text()
    with override_settings(SECRET_KEY="another deployment's secret"):
        engine.validate(text)
    another_process()
    with mock.patch("pickle.loads", side_effect=AssertionError("unpickled a foreign file")):
        engine.validate(text)


def test_another_build_of_the_engine_does_not_read_the_file(cache_dir):
    text = EXAMPLES[0].read_text()
    engine.validate(text)
    another_process()
    with mock.patch.object(engine, "_FINGERPRINT", "another-build"), \
            mock.patch("pickle.loads", side_effect=AssertionError("read another build's file")):
        engine.validate(text)
    assert len(list(cache_dir.glob("*.scenario"))) == 2


def test_an_invalid_scenario_is_refused_every_time_and_not_kept(cache_dir):
    bad = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x, " \
          "resources: {requests: {cpu: lots}}}]}\n"
    for _ in range(2):
        another_process()
        with pytest.raises(engine.ScenarioInvalid, match="cpu"):
            engine.validate(bad)
    assert list(cache_dir.iterdir()) == []


def test_the_cache_keeps_only_the_most_recently_used_files(cache_dir):
    text = EXAMPLES[0].read_text()
    with mock.patch.object(engine, "DISK_MAX_FILES", 3):
        for i in range(5):
            engine.validate(text + f"\n# variant {i}\n")
    assert len(list(cache_dir.glob("*.scenario"))) == 3


def test_an_empty_setting_turns_the_cache_off():
    import scheduler_core

    text = EXAMPLES[0].read_text()
    with override_settings(ENGINE_CACHE_DIR=""), \
            mock.patch("scheduler_core.load_scenario", wraps=scheduler_core.load_scenario) as parse:
        for _ in range(2):
            another_process()
            engine.validate(text)
    assert parse.call_count == 2
    another_process()


def test_an_unwritable_cache_directory_does_not_fail_a_load(cache_dir):
    blocker = cache_dir / "not-a-dir"
    blocker.write_text("a file where the directory should be")
    with override_settings(ENGINE_CACHE_DIR=str(blocker / "cache")):
        assert engine.validate(EXAMPLES[0].read_text()) is not None


def test_a_text_checked_as_it_is_typed_takes_no_room_in_the_cache(cache_dir):
    from webapp.scenarios import drafts

    text = EXAMPLES[0].read_text()
    for i in range(3):
        assert drafts.summary(text + f"\n# keystroke {i}\n")["ok"]
    assert list(cache_dir.glob("*.scenario")) == []


def test_the_web_processs_check_of_a_large_scenario_leaves_the_compiled_loops_to_the_workers():
    # A web process checks scenarios and never runs them: making the loops ready took a new process a second.
    from scheduler_core.columnar import kernels
    from tests.bench.generate import generate, to_yaml

    text = to_yaml(generate("1000x10", seed=2).objects)
    with override_settings(ENGINE_CACHE_DIR=""), mock.patch.object(kernels, "MIN_NODES", 1000), \
            mock.patch.object(kernels, "warm", side_effect=AssertionError("the loops were made ready")):
        engine._LOADED.clear()
        assert engine.validate(text) == []
        engine._LOADED.clear()


def reading_it_fails():
    raise AssertionError("read the text")


@pytest.mark.django_db
def test_a_large_stored_texts_scenario_is_found_in_the_cache_by_its_key_without_reading_it(cache_dir, monkeypatch):
    from webapp.scenarios import texts

    monkeypatch.setattr(engine, "LOADED_MAX_BYTES", 100)  # (the example counts as large)
    text = EXAMPLES[0].read_text()
    key = texts.put(text)
    size = texts.size_of(key)
    assert engine.cached_file(key, "", size) is None  # not loaded on this machine yet
    engine.validate(text)  # the web process, at save
    expected = engine.simulate(text, seed=3, detail=True)
    another_process()
    path = engine.cached_file(key, "", size)
    with text_never_parsed():
        assert engine.simulate_cached(path, "", reading_it_fails, seed=3, detail=True) == expected
    # under another configuration it is another scenario, not in the cache
    config = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
    assert engine.cached_file(key, config, size) is None
    # a file gone since it was found: the text is read
    path.unlink()
    reads = []
    assert engine.simulate_cached(path, "", lambda: reads.append(1) or text, seed=3, detail=True) == expected
    assert reads == [1]


@pytest.mark.django_db
def test_the_worker_reads_no_text_of_a_run_whose_scenario_it_finds_in_the_cache(cache_dir, monkeypatch):
    from django.contrib.auth import get_user_model

    from webapp.scenarios import services, texts
    from webapp.scenarios.models import Run, Team
    from webapp.scenarios.tasks import execute_run

    monkeypatch.setattr(engine, "LOADED_MAX_BYTES", 100)
    user = get_user_model().objects.create(username="u")
    team = Team.objects.create(name="t")
    text = EXAMPLES[0].read_text()
    scenario = services.create_scenario(team=team, name="s", manifests=text, author=user)  # validated: cached
    run = Run.objects.create(scenario=scenario, revision=scenario.head(), params={"seed": 1})
    another_process()
    texts.forget()
    with mock.patch.object(texts, "get", side_effect=AssertionError("read a text")):
        execute_run(run.pk)
    run.refresh_from_db()
    assert (run.status, run.error) == ("succeeded", "")
    assert run.result == engine.simulate(text, seed=1)
