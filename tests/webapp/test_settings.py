import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from webapp.settings import envbool, envint, envlist

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value, expected", [("true", True), ("1", True), ("off", False), ("False", False)])
def test_it_reads_booleans(monkeypatch, value, expected):
    monkeypatch.setenv("X_FLAG", value)
    assert envbool("X_FLAG", "false") is expected


def test_it_refuses_a_boolean_it_cannot_read(monkeypatch):
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG must be true or false"):
        envbool("X_FLAG", "false")


def test_it_reads_integers_and_none(monkeypatch):
    monkeypatch.setenv("X_INT", "None")
    assert envint("X_INT", "3") is None
    monkeypatch.delenv("X_INT")
    assert envint("X_INT", "3") == 3
    monkeypatch.setenv("X_INT", "ten")
    with pytest.raises(ImproperlyConfigured):
        envint("X_INT", "3")


def test_it_splits_lists(monkeypatch):
    monkeypatch.setenv("X_LIST", " a, b ,,c ")
    assert envlist("X_LIST", "") == ["a", "b", "c"]


@pytest.mark.parametrize("name, value, message", [
    ("RUN_DETAIL", "sometimes", "error: RUN_DETAIL must be failed, all or none, not 'sometimes'"),
    ("DEBUG", "maybe", "error: DEBUG must be true or false, not 'maybe'"),
])
def test_manage_py_names_a_bad_setting_in_one_line(name, value, message):
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env[name] = value
    out = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert out.stderr.strip() == message
