"""Defaults, semantic equality and the spec diff behind the generic forbidden message."""
from __future__ import annotations

import pytest

from scheduler_core.validation import semantic


@pytest.mark.parametrize("image, want", [
    ("nginx", "Always"),
    ("nginx:latest", "Always"),
    ("nginx:1.25", "IfNotPresent"),
    ("registry:5000/team/app", "Always"),
    ("registry:5000/team/app:v2", "IfNotPresent"),
    ("nginx@sha256:abc", "IfNotPresent"),
    ("nginx:latest@sha256:abc", "Always"),
    ("", "IfNotPresent"),
])
def test_image_pull_policy_default(image: str, want: str) -> None:
    spec = semantic.with_defaults({"containers": [{"name": "c", "image": image}]})
    assert spec["containers"][0]["imagePullPolicy"] == want


def test_defaults_fill_only_absent_fields() -> None:
    spec = semantic.with_defaults({"restartPolicy": "Never", "containers": []})
    assert spec["restartPolicy"] == "Never"
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["terminationGracePeriodSeconds"] == 30


@pytest.mark.parametrize("a, b", [
    ("1", "1000m"), ("1Gi", "1024Mi"), ("0.5", "500m"), ("1e3", "1k"), (2, "2"),
])
def test_equal_quantities(a, b) -> None:
    assert semantic.semantic_equal({"requests": {"cpu": a}}, {"requests": {"cpu": b}})


@pytest.mark.parametrize("a, b, equal", [
    ({}, None, True),
    ({"nodeSelector": {}}, {}, True),
    ({"tolerations": []}, {"tolerations": None}, True),
    ({"hostNetwork": False}, {}, True),
    ({"automountServiceAccountToken": False}, {}, False),
    ({"priority": 0}, {}, False),
    ({"x": True}, {"x": 1}, False),
    ({"requests": {"cpu": "1"}}, {"requests": {"cpu": "2"}}, False),
])
def test_semantic_equal(a, b, equal) -> None:
    assert semantic.semantic_equal(a, b) is equal


def test_diff_lines_name_the_changed_leaves() -> None:
    old = {"nodeSelector": {"zone": "a", "a.io/k": "1"}, "containers": [{"resources": {"limits": {"cpu": "1"}}}]}
    new = {"nodeSelector": {"zone": "b", "a.io/k": "1"}, "containers": [{"resources": {"limits": {"cpu": "1000m"}}}],
           "nodeName": "n1"}
    assert semantic.diff_lines(old, new) == [
        '- spec.nodeSelector.zone: "a"', '+ spec.nodeSelector.zone: "b"', '+ spec.nodeName: "n1"',
    ]
