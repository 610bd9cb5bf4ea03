"""Manifest dicts -> the frozen API values of ``k8s/types.py``.

Each ``read_*`` function takes a ``Decoder`` (which names the file and object in its
errors) and the raw value with its JSON path. Validation follows the apiserver's where
the scheduler depends on it (``pkg/apis/core/validation/validation.go`` v1.34):
enum values, topology spread constraints, tolerations, quantities.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..validation import apimachinery as am
from ..validation import field as vf
from . import types as t
from .decode import Decoder
from .containers import host_network_ports, read_container, with_pod_level
from .defaults import with_default_tolerations
from .resource import pod_requests
from .selector_manifests import (  # noqa: F401 - readers elsewhere take them from here too
    LABEL_OPS, NODE_OPS, _check_label_values, _labels, _node_requirement, check_label_name,
    check_labels, read_label_selector, read_node_selector_term)
from . import storage_manifests as smf

TAINT_EFFECTS = (t.NO_SCHEDULE, t.PREFER_NO_SCHEDULE, t.NO_EXECUTE)
WHEN_UNSATISFIABLE = (t.DO_NOT_SCHEDULE, t.SCHEDULE_ANYWAY)
INCLUSION_POLICIES = (t.HONOR, t.IGNORE)
PREEMPTION_POLICIES = ("Never", t.PREEMPT_LOWER_PRIORITY)
# validation.go isNotPositiveErrorMsg
IS_NOT_POSITIVE = "must be greater than zero"


def read_node_affinity(d: Decoder, v: Any, path: str, api: bool = True
                       ) -> t.NodeAffinity | None:
    """v1.NodeAffinity: required terms (at least one) and weighted preferred terms
    (``api`` False for scheduler args: label names and values are not checked)."""
    if v is None:
        return None
    m = d.obj(v, path)
    req_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution"
    required = None
    if m.get("requiredDuringSchedulingIgnoredDuringExecution") is not None:
        r = d.obj(m["requiredDuringSchedulingIgnoredDuringExecution"], req_path)
        required = t.NodeSelector(d.items(
            r.get("nodeSelectorTerms"), f"{req_path}.nodeSelectorTerms",
            lambda x, p: read_node_selector_term(d, x, p, True, api)))
        if not required.node_selector_terms:
            raise d.fail_field(vf.required(f"{req_path}.nodeSelectorTerms",
                                           "must have at least one node selector term"))
    pref_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    preferred = d.items(m.get("preferredDuringSchedulingIgnoredDuringExecution"), pref_path,
                        lambda x, p: _preferred_term(d, x, p, api))
    return t.NodeAffinity(required, preferred)


def _weight(d: Decoder, v: Any, path: str) -> int:
    w = d.int(v, path, 0)
    if not 1 <= w <= 100:
        raise d.fail_field(vf.invalid(path, w, "must be in the range 1-100"))
    return w


def _preferred_term(d: Decoder, v: Any, path: str, api: bool = True
                    ) -> t.PreferredSchedulingTerm:
    m = d.obj(v, path)
    return t.PreferredSchedulingTerm(_weight(d, m.get("weight"), f"{path}.weight"),
                                     read_node_selector_term(d, m.get("preference"),
                                                             f"{path}.preference", False,
                                                             api))


def _pod_affinity_term(d: Decoder, v: Any, path: str) -> t.PodAffinityTerm:
    """validation.go validatePodAffinityTerm: selectors, namespaces, label keys, topologyKey."""
    m = d.obj(v, path)
    term = t.PodAffinityTerm(
        topology_key=d.str(m.get("topologyKey"), f"{path}.topologyKey"),
        label_selector=read_label_selector(d, m.get("labelSelector"), f"{path}.labelSelector"),
        namespaces=d.str_list(m.get("namespaces"), f"{path}.namespaces"),
        namespace_selector=read_label_selector(d, m.get("namespaceSelector"),
                                               f"{path}.namespaceSelector"),
        match_label_keys=d.str_list(m.get("matchLabelKeys"), f"{path}.matchLabelKeys"),
        mismatch_label_keys=d.str_list(m.get("mismatchLabelKeys"), f"{path}.mismatchLabelKeys"))
    for name in term.namespaces:  # ValidateNamespaceName, reported at ".namespace" upstream
        for msg in am.is_dns1123_label(name):
            raise d.fail_field(vf.invalid(f"{path}.namespace", name, msg))
    for field_name, keys in (("matchLabelKeys", term.match_label_keys),
                             ("mismatchLabelKeys", term.mismatch_label_keys)):
        for i, k in enumerate(keys):
            check_label_name(d, k, f"{path}.{field_name}[{i}]")
    if not term.topology_key:
        raise d.fail_field(vf.required(f"{path}.topologyKey", "can not be empty"))
    check_label_name(d, term.topology_key, f"{path}.topologyKey")
    return term


def _weighted_pod_term(d: Decoder, v: Any, path: str) -> t.WeightedPodAffinityTerm:
    m = d.obj(v, path)
    return t.WeightedPodAffinityTerm(
        _weight(d, m.get("weight"), f"{path}.weight"),
        _pod_affinity_term(d, m.get("podAffinityTerm"), f"{path}.podAffinityTerm"))


def _pod_affinity(d: Decoder, v: Any, path: str) -> t.PodAffinity | None:
    if v is None:
        return None
    m = d.obj(v, path)
    return t.PodAffinity(
        d.items(m.get("requiredDuringSchedulingIgnoredDuringExecution"),
                f"{path}.requiredDuringSchedulingIgnoredDuringExecution",
                lambda x, p: _pod_affinity_term(d, x, p)),
        d.items(m.get("preferredDuringSchedulingIgnoredDuringExecution"),
                f"{path}.preferredDuringSchedulingIgnoredDuringExecution",
                lambda x, p: _weighted_pod_term(d, x, p)))


def read_affinity(d: Decoder, v: Any, path: str) -> t.Affinity | None:
    """v1.Affinity: node affinity, pod affinity and pod anti-affinity."""
    if v is None:
        return None
    m = d.obj(v, path)
    return t.Affinity(read_node_affinity(d, m.get("nodeAffinity"), f"{path}.nodeAffinity"),
                      _pod_affinity(d, m.get("podAffinity"), f"{path}.podAffinity"),
                      _pod_affinity(d, m.get("podAntiAffinity"), f"{path}.podAntiAffinity"))


# --- taints and tolerations ----------------------------------------------------------
def read_taint(d: Decoder, v: Any, path: str) -> t.Taint:
    """v1.Taint: key and effect required, effect one of the three."""
    m = d.obj(v, path)
    key = d.str(m.get("key"), f"{path}.key")
    if not key:
        raise d.fail_field(vf.required(f"{path}.key", ""))
    check_label_name(d, key, f"{path}.key")  # validateNodeTaints: key, then value
    value = d.str(m.get("value"), f"{path}.value")
    if am.is_valid_label_value(value):
        raise d.fail_field(vf.invalid(f"{path}.value", value,
                                      ";".join(am.is_valid_label_value(value))))
    if m.get("effect") is None:
        raise d.fail_field(vf.required(f"{path}.effect", ""))
    return t.Taint(key, value, d.enum(m.get("effect"), f"{path}.effect", TAINT_EFFECTS))


def read_toleration(d: Decoder, v: Any, path: str) -> t.Toleration:
    """v1.Toleration, checked as validation.go validateTolerations does."""
    m = d.obj(v, path)
    key = d.str(m.get("key"), f"{path}.key")
    op = d.str(m.get("operator"), f"{path}.operator") or "Equal"
    value = d.str(m.get("value"), f"{path}.value")
    if key:
        check_label_name(d, key, f"{path}.key")
    if op == "Equal" and am.is_valid_label_value(value):  # joined at .operator upstream
        raise d.fail_field(vf.invalid(f"{path}.operator", value,
                                      ";".join(am.is_valid_label_value(value))))
    if op not in ("Equal", "Exists"):
        raise d.fail_field(vf.not_supported(f"{path}.operator", op, ("Equal", "Exists")))
    if not key and op != "Exists":
        raise d.fail_field(vf.invalid(
            f"{path}.operator", op,
            'operator must be Exists when `key` is empty, which means "match all values and all keys"'))
    if op == "Exists" and value:
        raise d.fail_field(vf.invalid(f"{path}.operator", value,
                                      "value must be empty when `operator` is 'Exists'"))
    effect = d.enum(m.get("effect"), f"{path}.effect", TAINT_EFFECTS + ("",), "")
    return t.Toleration(key, op, value, effect,
                        d.int(m.get("tolerationSeconds"), f"{path}.tolerationSeconds"))


# --- topology spread -----------------------------------------------------------------
def read_spread_constraints(d: Decoder, v: Any, path: str
                            ) -> tuple[t.TopologySpreadConstraint, ...]:
    """spec.topologySpreadConstraints, validated as validateTopologySpreadConstraints."""
    cs = d.items(v, path, lambda x, p: _spread_constraint(d, x, p))
    for i, c in enumerate(cs):
        for other in cs[i + 1:]:
            if (c.topology_key, c.when_unsatisfiable) == (other.topology_key,
                                                          other.when_unsatisfiable):
                raise d.fail_field(vf.duplicate(
                    f"{path}[{i}].{{topologyKey, whenUnsatisfiable}}",
                    f"{{{c.topology_key}, {c.when_unsatisfiable}}}"))
    return cs


def _spread_constraint(d: Decoder, v: Any, path: str) -> t.TopologySpreadConstraint:
    m = d.obj(v, path)
    max_skew = d.int(m.get("maxSkew"), f"{path}.maxSkew", 0)
    if max_skew <= 0:
        raise d.fail_field(vf.invalid(f"{path}.maxSkew", max_skew, IS_NOT_POSITIVE))
    key = d.str(m.get("topologyKey"), f"{path}.topologyKey")
    if not key:
        raise d.fail_field(vf.required(f"{path}.topologyKey", "can not be empty"))
    when = d.str(m.get("whenUnsatisfiable"), f"{path}.whenUnsatisfiable")
    if when not in WHEN_UNSATISFIABLE:
        raise d.fail_field(vf.not_supported(f"{path}.whenUnsatisfiable", when,
                                            WHEN_UNSATISFIABLE))
    min_domains = d.int(m.get("minDomains"), f"{path}.minDomains")
    _check_min_domains(d, f"{path}.minDomains", min_domains, when)
    selector = read_label_selector(d, m.get("labelSelector"), f"{path}.labelSelector")
    keys = d.str_list(m.get("matchLabelKeys"), f"{path}.matchLabelKeys")
    for i, k in enumerate(keys):
        check_label_name(d, k, f"{path}.matchLabelKeys[{i}]")
    _check_match_label_keys(d, f"{path}.matchLabelKeys", keys, selector)
    return t.TopologySpreadConstraint(
        max_skew=max_skew, topology_key=key, when_unsatisfiable=when,
        label_selector=selector, min_domains=min_domains,
        node_affinity_policy=d.enum(m.get("nodeAffinityPolicy"), f"{path}.nodeAffinityPolicy",
                                    INCLUSION_POLICIES),
        node_taints_policy=d.enum(m.get("nodeTaintsPolicy"), f"{path}.nodeTaintsPolicy",
                                  INCLUSION_POLICIES),
        match_label_keys=keys)


def _check_min_domains(d: Decoder, path: str, min_domains: int | None, when: str) -> None:
    if min_domains is None:
        return
    if min_domains <= 0:
        raise d.fail_field(vf.invalid(path, min_domains, IS_NOT_POSITIVE))
    if when != t.DO_NOT_SCHEDULE:
        raise d.fail_field(vf.invalid(
            path, min_domains,
            f"can only use minDomains if whenUnsatisfiable={t.DO_NOT_SCHEDULE}, not {when}"))


def _check_match_label_keys(d: Decoder, path: str, keys: tuple[str, ...],
                            selector: t.LabelSelector | None) -> None:
    if not keys:
        return
    in_selector = set()
    if selector is not None:
        in_selector = set(selector.match_labels) | {e.key for e in selector.match_expressions}
    for i, k in enumerate(keys):
        if k in in_selector:
            raise d.fail_field(vf.invalid(f"{path}[{i}]", k,
                                          "exists in both matchLabelKeys and labelSelector"))


def read_owner_ref(d: Decoder, v: Any, path: str) -> t.OwnerReference:
    """metav1.OwnerReference (kind and name identify the owner)."""
    m = d.obj(v, path)
    return t.OwnerReference(d.str(m.get("apiVersion"), f"{path}.apiVersion"),
                            d.str(m.get("kind"), f"{path}.kind"),
                            d.str(m.get("name"), f"{path}.name"),
                            d.str(m.get("uid"), f"{path}.uid"),
                            d.bool(m.get("controller"), f"{path}.controller"))


def read_pod_spec(d: Decoder, spec: Any, path: str) -> dict:
    """The scheduling-relevant fields of a PodSpec as Pod constructor keywords
    (priority left for the caller to resolve). The pods of one workload write the same spec
    but for nodeName: it is decoded once (``Decoder.interned``), and a pod that repeats it
    shares every decoded part with the first."""
    s = d.obj(spec, path)
    node_name = d.str(s.get("nodeName"), f"{path}.nodeName")
    rest = {k: v for k, v in s.items() if k != "nodeName"} if "nodeName" in s else s
    fields = d.interned("podSpec", rest, lambda: _read_pod_spec(d, s, path))
    return {**fields, "node_name": node_name}


def _read_pod_spec(d: Decoder, s: Mapping[str, Any], path: str) -> dict:
    """read_pod_spec's fields but nodeName."""
    host_network = d.bool(s.get("hostNetwork"), f"{path}.hostNetwork")

    def read_containers(key: str):
        found = d.items(s.get(key), f"{path}.{key}", lambda x, p: read_container(d, x, p))
        return host_network_ports(found) if host_network else found
    containers = d.interned("containers", (s.get("containers"), host_network),
                            lambda: read_containers("containers"))
    inits = d.interned("initContainers", (s.get("initContainers"), host_network),
                       lambda: read_containers("initContainers"))
    overhead = d.interned("overhead", s.get("overhead"), lambda: d.resource_list(
        s.get("overhead"), f"{path}.overhead"))
    gates = d.items(s.get("schedulingGates"), f"{path}.schedulingGates",
                    lambda x, p: d.str(d.obj(x, p).get("name"), f"{p}.name"))
    return dict(
        scheduler_name=d.str(s.get("schedulerName"), f"{path}.schedulerName")
        or t.DEFAULT_SCHEDULER_NAME,
        priority=d.int(s.get("priority"), f"{path}.priority"),
        priority_class_name=d.str(s.get("priorityClassName"), f"{path}.priorityClassName"),
        preemption_policy=d.enum(s.get("preemptionPolicy"), f"{path}.preemptionPolicy",
                                 PREEMPTION_POLICIES),
        node_selector=d.interned("nodeSelector", s.get("nodeSelector"), lambda: _labels(
            d, s.get("nodeSelector"), f"{path}.nodeSelector")),
        affinity=d.interned("affinity", s.get("affinity"), lambda: read_affinity(
            d, s.get("affinity"), f"{path}.affinity")),
        tolerations=d.interned("tolerations", s.get("tolerations"), lambda:
                               with_default_tolerations(d.items(
                                   s.get("tolerations"), f"{path}.tolerations",
                                   lambda x, p: read_toleration(d, x, p)))),
        topology_spread_constraints=d.interned(
            "topologySpreadConstraints", s.get("topologySpreadConstraints"),
            lambda: read_spread_constraints(d, s.get("topologySpreadConstraints"),
                                            f"{path}.topologySpreadConstraints")),
        scheduling_gates=gates,
        volumes=() if s.get("volumes") is None else d.interned(
            "volumes", s.get("volumes"),
            lambda: smf.read_volumes(d, s.get("volumes"), f"{path}.volumes")),
        containers=containers,
        init_containers=inits,
        overhead=overhead,
        requests=d.interned(
            "requests", (s.get("containers"), s.get("initContainers"), s.get("overhead"),
                         s.get("resources")),
            lambda: with_pod_level(d, s.get("resources"), f"{path}.resources",
                                   pod_requests(containers, inits, overhead), overhead)),
    )


def read_pod_meta(d: Decoder, meta: Any, path: str) -> dict:
    """The metadata fields of a Pod the scheduler reads, as Pod keywords."""
    m = d.obj(meta, path)
    return dict(
        uid=d.str(m.get("uid"), f"{path}.uid"),
        labels=d.interned("labels", m.get("labels"), lambda: _labels(d, m.get("labels"),
                                                                      f"{path}.labels")),
        annotations=d.str_map(m.get("annotations"), f"{path}.annotations"),
        owner_references=d.interned("ownerReferences", m.get("ownerReferences"), lambda: d.items(
            m.get("ownerReferences"), f"{path}.ownerReferences",
            lambda x, p: read_owner_ref(d, x, p))),
        creation_timestamp=d.time(m.get("creationTimestamp"), f"{path}.creationTimestamp"),
        deletion_timestamp=(None if m.get("deletionTimestamp") is None else
                            _timestamp_text(d, m.get("deletionTimestamp"),
                                            f"{path}.deletionTimestamp")),
    )


def _timestamp_text(d: Decoder, v: Any, path: str) -> str:
    """A timestamp kept as written, once checked to be RFC3339 (the apiserver decodes it)."""
    d.time(v, path)
    return str(v)


def read_disruption_target(d: Decoder, v: Any, path: str) -> str:
    """podTerminatingByPreemption's condition: the first DisruptionTarget condition's reason
    when its status is "True", else ""."""
    for i, c in enumerate(d.list(v, path)):
        m = d.obj(c, f"{path}[{i}]")
        if d.str(m.get("type"), f"{path}[{i}].type") == "DisruptionTarget":
            if d.str(m.get("status"), f"{path}[{i}].status") != "True":
                return ""
            return d.str(m.get("reason"), f"{path}[{i}].reason")
    return ""


# --- nodes -----------------------------------------------------------------------------
def read_node_fields(d: Decoder, doc: dict) -> dict:
    """Node constructor keywords (name excluded)."""
    meta = d.obj(doc.get("metadata"), "metadata")
    spec = d.obj(doc.get("spec"), "spec")
    status = d.obj(doc.get("status"), "status")
    alloc_key = "allocatable" if status.get("allocatable") is not None else "capacity"
    images = d.items(status.get("images"), "status.images", lambda x, p: _image(d, x, p))
    return dict(
        labels=_labels(d, meta.get("labels"), "metadata.labels"),
        annotations=d.str_map(meta.get("annotations"), "metadata.annotations"),
        taints=d.items(spec.get("taints"), "spec.taints", lambda x, p: read_taint(d, x, p)),
        unschedulable=d.bool(spec.get("unschedulable"), "spec.unschedulable"),
        allocatable=d.resource_list(status.get(alloc_key), f"status.{alloc_key}"),
        images=images)


def _image(d: Decoder, v: Any, path: str) -> t.ContainerImage:
    m = d.obj(v, path)
    return t.ContainerImage(d.str_list(m.get("names"), f"{path}.names"),
                            d.int(m.get("sizeBytes"), f"{path}.sizeBytes", 0))


