"""The lock files in requirements/ are what every install uses, and they agree with pyproject.toml.

A dependency added to pyproject.toml without `make lock`, a lock edited by hand without hashes, or
an install that did not come from the lock (a package upgraded in .venv) fails here.
"""

import os
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def read_lock(name):
    """The lock file's pins: [(Requirement "name==version ; marker", number of hashes)]."""
    pins = []
    for line in (ROOT / "requirements" / name).read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            pins.append([Requirement(line.rstrip(" \\")), 0])
        elif pins and line.strip().startswith("--hash=sha256:"):
            pins[-1][1] += 1
    return pins


def versions(lock, here=False):
    """package -> pinned version; with here=True only the pins whose marker holds on this Python."""
    return {canonicalize_name(req.name): next(iter(req.specifier)).version for req, _ in lock
            if not here or req.marker is None or req.marker.evaluate()}


APP, DEV = read_lock("app.txt"), read_lock("dev.txt")
APP_REQS = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
DEV_REQS = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]]


@pytest.mark.parametrize(("lock", "reqs"), [(APP, APP_REQS), (DEV, APP_REQS + DEV_REQS)], ids=["app", "dev"])
def test_every_declared_dependency_is_pinned_within_its_bounds(lock, reqs):
    pinned = versions(lock, here=True)
    for req in reqs:
        name = canonicalize_name(req.name)
        assert name in pinned, f"{req.name} is in pyproject.toml but not locked: run `make lock`"
        assert req.specifier.contains(pinned[name], prereleases=True), (
            f"{req.name}=={pinned[name]} is outside pyproject.toml's {req.specifier}: run `make lock`")


@pytest.mark.parametrize("lock", [APP, DEV], ids=["app", "dev"])
def test_every_pin_carries_hashes(lock):
    assert lock, "the lock file has no pins"
    assert [str(req) for req, hashes in lock if hashes == 0] == []


def test_the_app_and_dev_locks_pin_the_same_versions_of_shared_packages():
    app, dev = versions(APP), versions(DEV)
    assert {name: dev.get(name) for name in app} == app


def test_the_docker_image_installs_from_the_app_lock_with_hashes():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    command = " ".join(compose["services"]["migrate"]["command"])
    assert "--require-hashes --no-deps -r /app/requirements/app.txt" in command
    assert "--no-deps --no-build-isolation -e /app" in command


@pytest.mark.skipif(os.environ.get("WHATIF_DEPS") == "latest", reason="`make test-latest` installs the newest versions on purpose")
def test_the_running_environment_was_installed_from_the_dev_lock():
    installed = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    drifted = {name: (version, installed.get(name)) for name, version in versions(DEV, here=True).items()
               if installed.get(name) != version}
    assert drifted == {}, "installed versions differ from requirements/dev.txt (locked, installed): run `make test`"
