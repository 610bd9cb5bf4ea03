"""Junk input never raises: random values planted anywhere in the two manifests give an
``allowed``/``errors`` answer whose errors have the contract's keys and upstream types."""
from __future__ import annotations

import copy
import random

import pytest

from scheduler_core.validation import validate_pod_update

from .builders import make_pod, req, term

JUNK = [None, 0, -1, 7, 1.5, True, False, "", "x", " In ", [], [1], ["a"], {}, {"a": 1}, {"a": None},
        [{"key": 1}], [None], {"nodeSelectorTerms": [None]}]
TYPES = {"FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden", "FieldValueNotSupported",
         "FieldValueDuplicate"}
BASE = (make_pod().gate("example.com/g").node_selector("zone", "a")
        .required(term(req("zone", "In", "a"), fields=(req("metadata.name", "In", "n1"),)))
        .preferred(5, term(req("disk", "Exists")))
        .toleration("k", "Equal", "v", "NoExecute", 30)
        .set("spec.activeDeadlineSeconds", 100)
        .label("app", "web")
        .container("side", "busybox:1", ports=[{"containerPort": 80}], resources={"limits": {"cpu": "1"}})
        .obj())
KEYS = ["metadata", "spec", "name", "namespace", "labels", "nodeSelector", "affinity", "nodeAffinity",
        "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution",
        "nodeSelectorTerms", "matchExpressions", "matchFields", "values", "operator", "key", "weight",
        "preference", "tolerations", "tolerationSeconds", "effect", "schedulingGates", "containers",
        "initContainers", "image", "ports", "resources", "requests", "limits", "activeDeadlineSeconds",
        "terminationGracePeriodSeconds", "nodeName", "podAffinity", "generation", "uid"]


def _paths(value, prefix=()):
    """Every (container, key) location in a manifest."""
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, prefix + (i,))


def _plant(manifest, rng):
    out = copy.deepcopy(manifest)
    paths = [p for p in _paths(out) if p]
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths)
        node = out
        try:
            for step in path[:-1]:
                node = node[step]
            target = path[-1]
            if isinstance(node, dict) and rng.random() < 0.3:
                target = rng.choice(KEYS)
            node[target] = copy.deepcopy(rng.choice(JUNK))
        except (KeyError, IndexError, TypeError):
            continue
    return out


@pytest.mark.parametrize("seed", range(60))
def test_junk_never_raises(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        old = _plant(BASE, rng) if rng.random() < 0.3 else copy.deepcopy(BASE)
        new = _plant(BASE, rng)
        result = validate_pod_update(old, new)
        assert set(result) == {"allowed", "errors"}
        assert result["allowed"] == (not result["errors"])
        for err in result["errors"]:
            assert set(err) == {"field", "type", "detail"}
            assert err["type"] in TYPES
            assert isinstance(err["detail"], str)


@pytest.mark.parametrize("junk", JUNK + [42, "pod", b"bytes"], ids=repr)
def test_junk_at_the_top_never_raises(junk) -> None:
    for old, new in ((BASE, junk), (junk, BASE), (junk, junk), ({"spec": junk}, {"metadata": junk})):
        result = validate_pod_update(old, new)
        assert set(result) == {"allowed", "errors"}
