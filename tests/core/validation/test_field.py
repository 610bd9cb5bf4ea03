"""FieldError, the error constructors and field paths (apimachinery field package)."""
from __future__ import annotations

from scheduler_core.validation import FieldError
from scheduler_core.validation import field


def test_to_dict_has_exactly_the_contract_keys() -> None:
    err = field.invalid("spec.nodeSelector", {"a": "b"}, "bad")
    assert err.to_dict() == {"field": "spec.nodeSelector", "type": "FieldValueInvalid", "detail": "bad"}


def test_error_renders_like_kubectl() -> None:
    assert field.invalid("spec.x", "v", "must be y").error() == 'spec.x: Invalid value: "v": must be y'
    assert field.forbidden("spec", "no").error() == "spec: Forbidden: no"
    assert field.required("spec.containers", "").error() == "spec.containers: Required value"
    assert field.duplicate("spec.schedulingGates[1]", "g").error() == 'spec.schedulingGates[1]: Duplicate value: "g"'
    assert field.invalid("spec.w", 0, "d").error() == "spec.w: Invalid value: 0: d"


def test_not_supported_lists_quoted_values() -> None:
    err = field.not_supported("spec.tolerations[0].operator", "Gt", ["Equal", "Exists"])
    assert err == FieldError("FieldValueNotSupported", "spec.tolerations[0].operator",
                             'supported values: "Equal", "Exists"', "Gt")


def test_field_error_is_frozen_and_hashable_with_a_list_value() -> None:
    err = field.invalid("spec.x", ["a"], "d")
    assert hash(err) == hash(field.invalid("spec.x", ["b"], "d"))
    assert err != field.invalid("spec.x", ["b"], "d")


def test_paths() -> None:
    assert field.child("", "spec") == "spec"
    assert field.child("spec", "affinity", "nodeAffinity") == "spec.affinity.nodeAffinity"
    assert field.index("spec.tolerations", 2) == "spec.tolerations[2]"
    assert field.key("metadata.annotations", "a/b") == "metadata.annotations[a/b]"


def test_dedupe_keeps_the_first_of_equal_errors() -> None:
    a, b = field.invalid("x", "v", "d"), field.forbidden("x", "d")
    assert field.dedupe([a, b, field.invalid("x", "v", "d"), b]) == [a, b]
