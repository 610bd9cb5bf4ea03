"""Compiled label selectors.

Mirrors apimachinery ``pkg/labels`` (Selector, Requirement.Matches) and
``metav1.LabelSelectorAsSelector``: a nil LabelSelector selects nothing, an empty one
selects everything; ``selector_from_set`` of an empty map selects everything.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..validation import apimachinery as am
from ..validation import field as vf
from .types import LabelSelector

IN = "In"
NOT_IN = "NotIn"
EXISTS = "Exists"
DOES_NOT_EXIST = "DoesNotExist"


@dataclass(frozen=True, slots=True)
class Requirement:
    """labels.Requirement: key, operator and a set of values."""

    key: str
    operator: str
    values: frozenset[str] = frozenset()

    def matches(self, labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op == IN:
            v = labels.get(self.key)
            return v is not None and v in self.values
        if op == NOT_IN:
            v = labels.get(self.key)
            return v is None or v not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        return False


@dataclass(frozen=True, slots=True)
class Selector:
    """An AND of requirements; ``nothing`` short-circuits to no match."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.nothing:
            return False
        for r in self.requirements:
            if not r.matches(labels):
                return False
        return True

    def empty(self) -> bool:
        """True when the selector matches everything (labels.Selector.Empty)."""
        return not self.nothing and not self.requirements

    def add(self, *reqs: Requirement) -> "Selector":
        """A new selector with extra requirements (labels.Selector.Add)."""
        if self.nothing:
            return self
        return Selector(self.requirements + tuple(reqs))

    def __str__(self) -> str:
        if self.nothing:
            return "<none>"
        parts = []
        for r in self.requirements:
            vals = ",".join(sorted(r.values))
            if r.operator == IN and len(r.values) == 1:
                parts.append(f"{r.key}={vals}")
            elif r.operator == IN:
                parts.append(f"{r.key} in ({vals})")
            elif r.operator == NOT_IN:
                parts.append(f"{r.key} notin ({vals})")
            elif r.operator == EXISTS:
                parts.append(r.key)
            else:
                parts.append(f"!{r.key}")
        # a requirement repeated (default spreading merges a Service's selector with its
        # ReplicaSet's) matches as once; it is written once
        return ",".join(dict.fromkeys(parts))


EVERYTHING = Selector()
NOTHING = Selector(nothing=True)


def selector_from_set(labels: Mapping[str, str] | None) -> Selector:
    """labels.SelectorFromSet: key=value for each entry; empty or None -> everything."""
    if not labels:
        return EVERYTHING
    return Selector(tuple(Requirement(k, IN, frozenset((v,))) for k, v in sorted(labels.items())))


def selector_from_label_selector(ls: LabelSelector | None) -> Selector:
    """metav1.LabelSelectorAsSelector: None -> nothing; empty -> everything."""
    if ls is None:
        return NOTHING
    if not ls.match_labels and not ls.match_expressions:
        return EVERYTHING
    reqs = [Requirement(k, IN, frozenset((v,))) for k, v in sorted(ls.match_labels.items())]
    for e in ls.match_expressions:
        reqs.append(Requirement(e.key, e.operator, frozenset(e.values)))
    return Selector(tuple(reqs))


# --- parse errors (labels.NewRequirement, metav1.LabelSelectorAsSelector) ---------------
_OPERATORS = (IN, NOT_IN, EXISTS, DOES_NOT_EXIST)


def requirement_errors(key: str, values: tuple[str, ...]) -> list[str]:
    """labels.NewRequirement's key and value checks: ``key: Invalid value: ...`` and
    ``values[i][key]: Invalid value: ...`` (messages joined with "; ")."""
    errs = []
    msgs = am.is_qualified_name(key)
    if msgs:
        errs.append(vf.invalid("key", key, "; ".join(msgs)).error())
    for i, v in enumerate(values):
        msgs = am.is_valid_label_value(v)
        if msgs:
            errs.append(vf.invalid(f"values[{i}][{key}]", v, "; ".join(msgs)).error())
    return errs


def aggregate(errs: list[str]) -> str | None:
    """utilerrors.NewAggregate(...).Error(): None, the one message, or "[a, b]" (repeats
    dropped)."""
    errs = list(dict.fromkeys(errs))
    if not errs:
        return None
    return errs[0] if len(errs) == 1 else "[" + ", ".join(errs) + "]"


def label_selector_parse_error(ls: LabelSelector | None) -> str | None:
    """metav1.LabelSelectorAsSelector's error for a selector the apiserver would refuse:
    matchLabels first (sorted here; upstream walks a map), then matchExpressions."""
    if ls is None:
        return None
    for k, v in sorted(ls.match_labels.items()):
        err = aggregate(requirement_errors(k, (v,)))
        if err:
            return err
    for e in ls.match_expressions:
        if e.operator not in _OPERATORS:
            return f'"{e.operator}" is not a valid label selector operator'
        err = aggregate(requirement_errors(e.key, e.values))
        if err:
            return err
    return None
