"""Required and preferred node affinity, compiled once per pod.

Mirrors kube-scheduler v1.34
``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``:
``GetRequiredNodeAffinity`` (nodeSelector AND required terms), ``LazyErrorNodeSelector``
(a term that fails to parse matches nothing, the other terms still count),
``PreferredSchedulingTerms``. Label requirements follow apimachinery ``labels.Requirement``
(Gt/Lt compare int64 values; a label that does not parse as an integer does not match);
field requirements support ``metadata.name`` with In/NotIn and exactly one value.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from . import labels as klabels
from .types import Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod

IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT = "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"
OBJECT_NAME_FIELD = "metadata.name"  # metav1.ObjectNameField


class NodeSelectorParseError(ValueError):
    """A node selector requirement that labels.NewRequirement or the field selector rejects."""


# apimachinery util/validation: qualified names, DNS-1123 subdomains, label values
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _valid_label_key(key: str) -> bool:
    """validation.IsQualifiedName: [prefix/]name, name <= 63, prefix a DNS subdomain."""
    parts = key.split("/")
    if len(parts) == 2:
        prefix, name = parts
        if not prefix or len(prefix) > 253 or not _DNS1123_SUBDOMAIN.fullmatch(prefix):
            return False
    elif len(parts) == 1:
        name = parts[0]
    else:
        return False
    return 0 < len(name) <= 63 and bool(_QUALIFIED_NAME.fullmatch(name))


def _valid_label_value(v: str) -> bool:
    """validation.IsValidLabelValue: empty, or a qualified name part of <= 63 characters."""
    return v == "" or (len(v) <= 63 and bool(_QUALIFIED_NAME.fullmatch(v)))


def _parse_int64(s: str) -> int | None:
    """strconv.ParseInt(s, 10, 64): None when s is not a base-10 int64."""
    body = s[1:] if s[:1] in ("+", "-") else s
    if not body or not body.isascii() or not body.isdigit():
        return None
    v = int(s)
    return v if -(1 << 63) <= v < (1 << 63) else None


@dataclass(frozen=True, slots=True)
class _LabelReq:
    """labels.Requirement for a node selector: In/NotIn/Exists/DoesNotExist/Gt/Lt."""

    key: str
    operator: str
    values: frozenset[str]
    bound: int = 0  # Gt/Lt: the parsed value

    def matches(self, node_labels: Mapping[str, str]) -> bool:
        op = self.operator
        if op in (GT, LT):
            v = node_labels.get(self.key)
            n = _parse_int64(v) if v is not None else None
            if n is None:
                return False
            return n > self.bound if op == GT else n < self.bound
        v = node_labels.get(self.key)
        if op == IN:
            return v is not None and v in self.values
        if op == NOT_IN:
            return v is None or v not in self.values
        if op == EXISTS:
            return v is not None
        return v is None  # DoesNotExist

    def __str__(self) -> str:
        """labels.Requirement.String: "k in (a,b)", "k notin (a)", "k", "!k", "k>5", "k<5"."""
        op, vals = self.operator, ",".join(sorted(self.values))
        if op in (GT, LT):
            return f"{self.key}{'>' if op == GT else '<'}{vals}"
        if op == EXISTS:
            return self.key
        if op == DOES_NOT_EXIST:
            return f"!{self.key}"
        return f"{self.key} {'in' if op == IN else 'notin'} ({vals})"


def _label_req(r: NodeSelectorRequirement) -> _LabelReq:
    """labels.NewRequirement's checks (nodeSelectorRequirementsAsSelector): key, operator,
    value count, Gt/Lt integers, and every value a valid label value."""
    op, vals = r.operator, r.values
    if not _valid_label_key(r.key):
        raise NodeSelectorParseError(f"key: invalid label key {r.key!r}")
    bad = [v for v in vals if not _valid_label_value(v)]
    if bad:
        raise NodeSelectorParseError(f"values: invalid label value {bad[0]!r}")
    if op in (IN, NOT_IN):
        if not vals:
            raise NodeSelectorParseError(f"{op}: values must be non-empty")
        return _LabelReq(r.key, op, frozenset(vals))
    if op in (EXISTS, DOES_NOT_EXIST):
        if vals:
            raise NodeSelectorParseError(f"{op}: values must be empty")
        return _LabelReq(r.key, op, frozenset())
    if op in (GT, LT):
        n = _parse_int64(vals[0]) if len(vals) == 1 else None
        if n is None:
            raise NodeSelectorParseError(f"{op}: values must be one integer")
        return _LabelReq(r.key, op, frozenset(vals), n)
    raise NodeSelectorParseError(f"{op!r} is not a valid label selector operator")


@dataclass(frozen=True, slots=True)
class _FieldReq:
    """fields.OneTermEqualSelector / OneTermNotEqualSelector over the node's fields."""

    key: str
    equal: bool
    value: str

    def matches(self, node_fields: Mapping[str, str]) -> bool:
        return (node_fields.get(self.key, "") == self.value) == self.equal

    def __str__(self) -> str:
        return f"{self.key}{'=' if self.equal else '!='}{self.value}"


def _field_req(r: NodeSelectorRequirement) -> _FieldReq:
    """nodeSelectorRequirementsAsFieldSelector: In/NotIn with exactly one value."""
    if r.operator not in (IN, NOT_IN):
        raise NodeSelectorParseError(f"{r.operator!r} is not a valid node field selector operator")
    if len(r.values) != 1:
        raise NodeSelectorParseError("values: must have one element")
    return _FieldReq(r.key, r.operator == IN, r.values[0])


def _node_fields(node: Node) -> dict[str, str]:
    """extractNodeFields: metadata.name when set."""
    return {OBJECT_NAME_FIELD: node.name} if node.name else {}


@dataclass(frozen=True, slots=True)
class CompiledNodeSelectorTerm:
    """nodeSelectorTerm: ANDed label and field requirements, or a parse error."""

    match_labels: tuple[_LabelReq, ...] = ()
    match_fields: tuple[_FieldReq, ...] = ()
    parse_error: str = ""

    def match(self, node_labels: Mapping[str, str], node_fields: Mapping[str, str]) -> bool:
        """nodeSelectorTerm.match; a term with a parse error never matches."""
        if self.parse_error:
            return False
        if not all(r.matches(node_labels) for r in self.match_labels):
            return False
        if self.match_fields and node_fields and \
                not all(r.matches(node_fields) for r in self.match_fields):
            return False
        return True

    def __str__(self) -> str:
        """The term as "req,req,..." (ANDed), or the parse error."""
        if self.parse_error:
            return f"<invalid: {self.parse_error}>"
        return ",".join(str(r) for r in self.match_labels + self.match_fields)


def is_empty_node_selector_term(term: NodeSelectorTerm) -> bool:
    """isEmptyNodeSelectorTerm: no expressions and no fields (selects nothing)."""
    return not term.match_expressions and not term.match_fields


def compile_node_selector_term(term: NodeSelectorTerm) -> CompiledNodeSelectorTerm:
    """newNodeSelectorTerm: parse once; errors are kept on the term."""
    try:
        return CompiledNodeSelectorTerm(tuple(_label_req(r) for r in term.match_expressions),
                                        tuple(_field_req(r) for r in term.match_fields))
    except NodeSelectorParseError as e:
        return CompiledNodeSelectorTerm(parse_error=str(e))


def node_selector_term_matches(term: NodeSelectorTerm, node: Node) -> bool:
    """Whether one (uncompiled) term matches the node; an empty term matches nothing."""
    if is_empty_node_selector_term(term):
        return False
    return compile_node_selector_term(term).match(node.labels, _node_fields(node))


@dataclass(frozen=True, slots=True)
class LazyErrorNodeSelector:
    """nodeaffinity.LazyErrorNodeSelector: ORed terms, empty terms dropped."""

    terms: tuple[CompiledNodeSelectorTerm, ...]

    @classmethod
    def from_node_selector(cls, ns: NodeSelector) -> "LazyErrorNodeSelector":
        return cls(tuple(compile_node_selector_term(t) for t in ns.node_selector_terms
                         if not is_empty_node_selector_term(t)))

    def parse_errors(self) -> list[str]:
        return [t.parse_error for t in self.terms if t.parse_error]

    def match(self, node: Node | None) -> bool:
        """LazyErrorNodeSelector.Match, parse errors ignored (no term -> no match)."""
        if node is None:
            return False
        fields = _node_fields(node)
        return any(t.match(node.labels, fields) for t in self.terms)


_FROM_POD: dict = {}  # (id(nodeSelector), id(affinity)) -> (nodeSelector, affinity, value)


@dataclass(frozen=True, slots=True)
class RequiredNodeAffinity:
    """nodeaffinity.RequiredNodeAffinity: the pod's nodeSelector AND required node affinity."""

    label_selector: klabels.Selector | None = None
    node_selector: LazyErrorNodeSelector | None = None

    @classmethod
    def from_pod(cls, pod: Pod) -> "RequiredNodeAffinity":
        """GetRequiredNodeAffinity (compiled once per nodeSelector and affinity object
        pair: preemption asks again for every pod it moves)."""
        key = (id(pod.node_selector), id(pod.affinity))
        hit = _FROM_POD.get(key)
        if hit is not None and hit[0] is pod.node_selector and hit[1] is pod.affinity:
            return hit[2]
        value = cls._from_pod(pod)
        if len(_FROM_POD) > 4096:
            _FROM_POD.clear()
        _FROM_POD[key] = (pod.node_selector, pod.affinity, value)
        return value

    @classmethod
    def _from_pod(cls, pod: Pod) -> "RequiredNodeAffinity":
        sel = klabels.selector_from_set(pod.node_selector) if pod.node_selector else None
        na = pod.affinity.node_affinity if pod.affinity else None
        ns = LazyErrorNodeSelector.from_node_selector(na.required) \
            if na is not None and na.required is not None else None
        return cls(sel, ns)

    def describe(self) -> dict:
        """JSON-ready form for explanations: the nodeSelector and the ORed required terms."""
        out: dict = {}
        if self.label_selector is not None:
            out["nodeSelector"] = str(self.label_selector)
        if self.node_selector is not None:
            out["requiredTerms"] = [str(t) for t in self.node_selector.terms]
        return out

    def match(self, node: Node) -> bool:
        """RequiredNodeAffinity.Match (parse errors count as no match)."""
        if self.label_selector is not None and not self.label_selector.matches(node.labels):
            return False
        if self.node_selector is not None:
            return self.node_selector.match(node)
        return True


@dataclass(frozen=True, slots=True)
class PreferredSchedulingTerms:
    """nodeaffinity.PreferredSchedulingTerms: (term, weight) pairs; Score sums matches."""

    terms: tuple[tuple[CompiledNodeSelectorTerm, int], ...]

    @classmethod
    def from_terms(cls, terms) -> "PreferredSchedulingTerms":
        """NewPreferredSchedulingTerms: skips weight 0 and empty terms; raises on parse errors."""
        parsed, errs = [], []
        for t in terms:
            if t.weight == 0 or is_empty_node_selector_term(t.preference):
                continue
            c = compile_node_selector_term(t.preference)
            if c.parse_error:
                errs.append(c.parse_error)
            else:
                parsed.append((c, t.weight))
        if errs:
            raise NodeSelectorParseError(", ".join(errs))
        return cls(tuple(parsed))

    def describe(self) -> list[dict]:
        """JSON-ready form for explanations: one {"weight", "term"} per term."""
        return [{"weight": w, "term": str(t)} for t, w in self.terms]

    def score(self, node: Node) -> int:
        """PreferredSchedulingTerms.Score: sum of the weights of matching terms."""
        fields = _node_fields(node)
        return sum(w for t, w in self.terms if t.match(node.labels, fields))
