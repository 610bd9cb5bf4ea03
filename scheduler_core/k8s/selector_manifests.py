"""Manifest label maps, label selectors and node selector terms -> the API values of
``k8s/types.py``, checked as the apiserver checks them (``ValidateLabels``,
``ValidateLabelSelector``, ``ValidateNodeSelectorTerm`` in ``pkg/apis/core/validation``, v1.34).

The readers of pods, workloads and storage objects all take their selectors from here.
"""
from __future__ import annotations

from typing import Any

from ..validation import apimachinery as am
from ..validation import field as vf
from . import types as t
from .decode import Decoder

LABEL_OPS = ("DoesNotExist", "Exists", "In", "NotIn")
NODE_OPS = ("DoesNotExist", "Exists", "Gt", "In", "Lt", "NotIn")


# --- selectors -------------------------------------------------------------------------
def read_label_selector(d: Decoder, v: Any, path: str) -> t.LabelSelector | None:
    """metav1.LabelSelector; None when absent (selects nothing where that matters)."""
    if v is None:
        return None
    m = d.obj(v, path)
    exprs = d.items(m.get("matchExpressions"), f"{path}.matchExpressions",
                    lambda x, p: _label_requirement(d, x, p))
    match_labels = d.str_map(m.get("matchLabels"), f"{path}.matchLabels")
    check_labels(d, match_labels, f"{path}.matchLabels")
    return t.LabelSelector(match_labels, exprs)


def _label_requirement(d: Decoder, v: Any, path: str) -> t.LabelSelectorRequirement:
    """metav1validation.ValidateLabelSelectorRequirement wording (operator and values,
    then the key as a label name, then each value as a label value)."""
    m = d.obj(v, path)
    r = t.LabelSelectorRequirement(
        d.str(m.get("key"), f"{path}.key"), d.str(m.get("operator"), f"{path}.operator"),
        d.str_list(m.get("values"), f"{path}.values"))
    _check_values(d, path, r.operator, r.values, LABEL_OPS)
    check_label_name(d, r.key, f"{path}.key")
    _check_label_values(d, r.values, f"{path}.values")
    return r


def _node_requirement(d: Decoder, v: Any, path: str, check_values: bool = True,
                      api: bool = True) -> t.NodeSelectorRequirement:
    """validation.go ValidateNodeSelectorRequirement wording; values are label values
    unless the term is preferred (upstream always allows invalid values there). ``api``
    False: not an API object (scheduler args), no label checks."""
    m = d.obj(v, path)
    r = t.NodeSelectorRequirement(
        d.str(m.get("key"), f"{path}.key"), d.str(m.get("operator"), f"{path}.operator"),
        d.str_list(m.get("values"), f"{path}.values"))
    _check_values(d, path, r.operator, r.values, NODE_OPS)
    if not api:
        return r
    check_label_name(d, r.key, f"{path}.key")
    if check_values:
        _check_label_values(d, r.values, f"{path}.values")
    return r


# --- label names and values (apimachinery validation, as the apiserver checks them) ---
def check_label_name(d: Decoder, name: str, path: str) -> None:
    """metav1validation.ValidateLabelName: the first message, at ``path``."""
    for err in am.validate_label_name(name, path):
        raise d.fail_field(err)


def _check_label_values(d: Decoder, values: tuple[str, ...], path: str) -> None:
    for i, value in enumerate(values):
        for msg in am.is_valid_label_value(value):
            raise d.fail_field(vf.invalid(f"{path}[{i}]", value, msg))


def check_labels(d: Decoder, labels: dict[str, str], path: str) -> None:
    """metav1validation.ValidateLabels: keys and values, reported at ``path`` itself."""
    for err in am.validate_labels(labels, path):
        raise d.fail_field(err)


def _field_requirement(d: Decoder, v: Any, path: str) -> t.NodeSelectorRequirement:
    """validation.go validateNodeFieldSelectorRequirement: metadata.name In/NotIn one value."""
    m = d.obj(v, path)
    r = t.NodeSelectorRequirement(
        d.str(m.get("key"), f"{path}.key"), d.str(m.get("operator"), f"{path}.operator"),
        d.str_list(m.get("values"), f"{path}.values"))
    if r.operator not in ("In", "NotIn"):
        raise d.fail_field(vf.invalid(f"{path}.operator", r.operator,
                                      "not a valid selector operator"))
    if len(r.values) != 1:
        raise d.fail_field(vf.required(f"{path}.values", "must be only one value when "
                                       "`operator` is 'In' or 'NotIn' for node field selector"))
    if r.key != "metadata.name":
        raise d.fail_field(vf.invalid(f"{path}.key", r.key, "not a valid field selector key"))
    return r


def _check_values(d: Decoder, path: str, op: str, values: tuple[str, ...],
                  allowed: tuple[str, ...]) -> None:
    if op not in allowed:
        raise d.fail_field(vf.invalid(f"{path}.operator", op, "not a valid selector operator"))
    if op in ("In", "NotIn") and not values:
        raise d.fail_field(vf.required(f"{path}.values",
                                       "must be specified when `operator` is 'In' or 'NotIn'"))
    if op in ("Exists", "DoesNotExist") and values:
        raise d.fail_field(vf.forbidden(
            f"{path}.values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    if op in ("Gt", "Lt") and len(values) != 1:
        raise d.fail_field(vf.required(
            f"{path}.values", "must be specified single value when `operator` is 'Lt' or 'Gt'"))


def read_node_selector_term(d: Decoder, v: Any, path: str, check_values: bool = True,
                            api: bool = True) -> t.NodeSelectorTerm:
    """v1.NodeSelectorTerm (matchExpressions and matchFields)."""
    m = d.obj(v, path)
    return t.NodeSelectorTerm(
        d.items(m.get("matchExpressions"), f"{path}.matchExpressions",
                lambda x, p: _node_requirement(d, x, p, check_values, api)),
        d.items(m.get("matchFields"), f"{path}.matchFields",
                lambda x, p: _field_requirement(d, x, p)))


def _labels(d: Decoder, v: Any, path: str) -> dict[str, str]:
    """A label map (metadata.labels, spec.nodeSelector), checked as ValidateLabels does."""
    labels = d.str_map(v, path)
    check_labels(d, labels, path)
    return labels
