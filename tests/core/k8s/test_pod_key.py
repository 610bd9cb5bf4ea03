"""A pod's key (namespace/name), the identity every output uses, however the pod was made."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

from scheduler_core.k8s.types import Pod, replace_pod


def _made(how: str) -> Pod:
    base = Pod(name="web-1", namespace="shop", labels={"app": "web"})
    return {
        "constructed": lambda: base,
        "default namespace": lambda: Pod(name="web-1"),
        "renamed by replace_pod": lambda: replace_pod(base, name="web-2"),
        "moved by replace_pod": lambda: replace_pod(base, namespace="data"),
        "bound by replace_pod": lambda: replace_pod(base, node_name="n1", phase="Running"),
        "renamed by dataclasses.replace": lambda: dataclasses.replace(base, name="web-3", namespace="data"),
        "pickled and read back": lambda: pickle.loads(pickle.dumps(replace_pod(base, name="web-4"))),
    }[how]()


@pytest.mark.parametrize("how, key", [
    ("constructed", "shop/web-1"),
    ("default namespace", "default/web-1"),
    ("renamed by replace_pod", "shop/web-2"),
    ("moved by replace_pod", "data/web-1"),
    ("bound by replace_pod", "shop/web-1"),
    ("renamed by dataclasses.replace", "data/web-3"),
    ("pickled and read back", "shop/web-4"),
])
def test_a_pods_key_is_its_namespace_and_name(how, key) -> None:
    pod = _made(how)
    assert pod.key == key == f"{pod.namespace}/{pod.name}"

