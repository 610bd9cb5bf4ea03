"""An engine error that names an object and a field (not a line) is placed on the line of that field in the
text, so that the editor can mark it; a missing field falls back to the object's name line."""

import pytest

from webapp.scenarios.manifests.documents import line_of
from webapp.scenarios.management.commands.load_examples import EXAMPLES_DIR

TEXT = (EXAMPLES_DIR / "min-domains.yaml").read_text()
LINES = TEXT.split("\n")


@pytest.mark.parametrize(("obj", "field", "line"), [
    ("ReplicaSet default/api-5b7d9c8f4", "spec.template.spec.topologySpreadConstraints[0].maxSkew", "maxSkew: 2"),
    ("ReplicaSet/default/api-5b7d9c8f4 spec.template", "minDomains", "minDomains: 5"),
    ("Node node-b", "metadata.labels", "labels:"),
    ("Node/node-a", "spec.taints", "name: node-a"),  # no such field: the object's name line
    ("Pod default/api-5b7d9c8f4-d3e4f", "spec.containers[0].resources", "resources:"),
])
def test_the_line_of_an_objects_field(obj, field, line):
    n = line_of(TEXT, obj, field)
    assert LINES[n - 1].strip() == line


def test_the_field_is_looked_for_in_that_object_only():
    first = line_of(TEXT, "Pod default/api-5b7d9c8f4-a1b2c", "spec.containers[0].resources")
    second = line_of(TEXT, "Pod default/api-5b7d9c8f4-d3e4f", "spec.containers[0].resources")
    assert first < second
    assert line_of(TEXT, "Pod default/api-5b7d9c8f4-a1b2c", "spec.nodeSelector") < second


@pytest.mark.parametrize("obj", ["Node/node-x", "", "Pod"])
def test_an_object_not_in_the_text_has_no_line(obj):
    assert line_of(TEXT, obj, "spec") is None


def test_an_owner_reference_is_not_taken_for_its_owner():
    pods_first = TEXT[TEXT.index("- apiVersion: v1\n  kind: Pod"):].rstrip() + "\n" + \
        TEXT[TEXT.index("- apiVersion: apps/v1\n  kind: ReplicaSet"):TEXT.index("- apiVersion: v1\n  kind: Pod")]
    n = line_of(pods_first, "ReplicaSet default/api-5b7d9c8f4", "spec.replicas")
    assert pods_first.split("\n")[n - 1].strip() == "replicas: 10"
