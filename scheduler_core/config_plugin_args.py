"""pluginConfig args -> the typed classes of ``config_args.py``, defaulted and validated.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/apis/config/v1/defaults.go``
(SetDefaults_*Args) and ``apis/config/validation/validation_pluginargs.go`` (error
paths and wording). Errors name ``profiles[i].pluginConfig[j].args.<field>``.
"""
from __future__ import annotations

from typing import Any, Callable

from . import config_args as ca
from .k8s import manifests as mf
from .k8s import types as t
from .k8s.decode import Decoder
from .plugins import names as n
from .validation import field as vf

_DEFAULT_RESOURCES = (ca.ResourceSpec("cpu", 1), ca.ResourceSpec("memory", 1))
_STRATEGIES = (ca.LEAST_ALLOCATED, ca.MOST_ALLOCATED, ca.REQUESTED_TO_CAPACITY_RATIO)
MAX_CUSTOM_PRIORITY_SCORE = 10  # config.MaxCustomPriorityScore


def default_args(plugin: str) -> Any:
    """The args a plugin gets when pluginConfig does not name it (None: takes none)."""
    factory = _DEFAULTS.get(plugin)
    return factory() if factory else None


def parse_args(d: Decoder, plugin: str, raw: Any, path: str) -> Any:
    """Typed, defaulted and validated args of one pluginConfig entry."""
    parser = _PARSERS.get(plugin)
    if parser is None:
        return None
    return parser(d, d.obj(raw, path), path)


def _check(d: Decoder, errs: list[vf.FieldError]) -> None:
    if errs:
        raise d.fail_field(errs[0])


def _pod_topology_spread(d: Decoder, m: dict, path: str) -> ca.PodTopologySpreadArgs:
    cpath = f"{path}.defaultConstraints"
    raw = d.list(m.get("defaultConstraints"), cpath)
    dtype = d.str(m.get("defaultingType"), f"{path}.defaultingType") or ca.SYSTEM_DEFAULTING
    errs: list[vf.FieldError] = []
    if dtype not in (ca.SYSTEM_DEFAULTING, ca.LIST_DEFAULTING):
        errs.append(vf.not_supported(f"{path}.defaultingType", dtype,
                                     (ca.SYSTEM_DEFAULTING, ca.LIST_DEFAULTING)))
    elif dtype == ca.SYSTEM_DEFAULTING and raw:
        errs.append(vf.invalid(f"{path}.defaultingType", dtype,
                               "when .defaultConstraints are not empty"))
    constraints = []
    for i, item in enumerate(raw):
        c, cerrs = _default_constraint(d, item, f"{cpath}[{i}]", constraints)
        errs += cerrs
        constraints.append(c)
    _check(d, errs)
    return ca.PodTopologySpreadArgs(tuple(constraints), dtype)


def _default_constraint(d: Decoder, v: Any, path: str, previous: list
                        ) -> tuple[t.TopologySpreadConstraint, list[vf.FieldError]]:
    m = d.obj(v, path)
    errs: list[vf.FieldError] = []
    skew = d.int(m.get("maxSkew"), f"{path}.maxSkew", 0)
    if skew <= 0:
        errs.append(vf.invalid(f"{path}.maxSkew", skew, "not in valid range (0, inf)"))
    key = d.str(m.get("topologyKey"), f"{path}.topologyKey")
    if not key:
        errs.append(vf.required(f"{path}.topologyKey", "can not be empty"))
    when = d.str(m.get("whenUnsatisfiable"), f"{path}.whenUnsatisfiable")
    if not when:
        errs.append(vf.required(f"{path}.whenUnsatisfiable", "can not be empty"))
    elif when not in mf.WHEN_UNSATISFIABLE:
        errs.append(vf.not_supported(f"{path}.whenUnsatisfiable", when, mf.WHEN_UNSATISFIABLE))
    if m.get("labelSelector") is not None:
        errs.append(vf.forbidden(f"{path}.labelSelector", "constraint must not define a "
                                 "selector, as they deduced for each pod"))
    if any(p.topology_key == key and p.when_unsatisfiable == when for p in previous):
        base = path[:path.rindex("[")]
        errs.append(vf.duplicate(f"{base}[{len(previous)}]", f"{{{key}, {when}}}"))
    c = t.TopologySpreadConstraint(
        max_skew=skew, topology_key=key, when_unsatisfiable=when,
        min_domains=d.int(m.get("minDomains"), f"{path}.minDomains"),
        node_affinity_policy=d.enum(m.get("nodeAffinityPolicy"), f"{path}.nodeAffinityPolicy",
                                    mf.INCLUSION_POLICIES),
        node_taints_policy=d.enum(m.get("nodeTaintsPolicy"), f"{path}.nodeTaintsPolicy",
                                  mf.INCLUSION_POLICIES),
        match_label_keys=d.str_list(m.get("matchLabelKeys"), f"{path}.matchLabelKeys"))
    return c, errs


def _resources(d: Decoder, v: Any, path: str) -> tuple[ca.ResourceSpec, ...]:
    out = []
    for i, item in enumerate(d.list(v, path)):
        m = d.obj(item, f"{path}[{i}]")
        out.append(ca.ResourceSpec(d.str(m.get("name"), f"{path}[{i}].name"),
                                   d.int(m.get("weight"), f"{path}[{i}].weight", 0) or 1))
    return tuple(out)


def _fit(d: Decoder, m: dict, path: str) -> ca.NodeResourcesFitArgs:
    spath = f"{path}.scoringStrategy"
    s = m.get("scoringStrategy")
    errs: list[vf.FieldError] = []
    if s is None:
        strategy = ca.ScoringStrategy()
    else:
        s = d.obj(s, spath)
        stype = d.str(s.get("type"), f"{spath}.type")
        if stype not in _STRATEGIES:
            errs.append(vf.not_supported(f"{spath}.type", stype, sorted(_STRATEGIES)))
        resources = _resources(d, s.get("resources"), f"{spath}.resources") or _DEFAULT_RESOURCES
        for i, r in enumerate(resources):
            if not 0 < r.weight <= 100:
                errs.append(vf.invalid(f"{spath}.resources[{i}].weight", r.weight,
                                       f"resource weight of {r.name} not in valid range (0, 100]"))
        shape = _strategy_shape(d, s, spath, stype, errs)
        strategy = ca.ScoringStrategy(stype, resources, shape)
    groups = d.str_list(m.get("ignoredResourceGroups"), f"{path}.ignoredResourceGroups")
    for i, g in enumerate(groups):
        if "/" in g:
            errs.append(vf.invalid(f"{path}.ignoredResourceGroups[{i}]", g,
                                   "resource group name can't contain '/'"))
    _check(d, errs)
    return ca.NodeResourcesFitArgs(
        d.str_list(m.get("ignoredResources"), f"{path}.ignoredResources"), groups, strategy)


def _strategy_shape(d: Decoder, s: dict, spath: str, stype: str,
                    errs: list) -> tuple[ca.UtilizationShapePoint, ...]:
    rpath = f"{spath}.requestedToCapacityRatio"
    raw = s.get("requestedToCapacityRatio")
    if stype != ca.REQUESTED_TO_CAPACITY_RATIO:
        if raw is not None:
            errs.append(vf.forbidden(rpath, "must be nil when type is not RequestedToCapacityRatio"))
        return ()
    if raw is None:
        errs.append(vf.required(rpath, "must be specified when type is RequestedToCapacityRatio"))
        return ()
    ppath = f"{rpath}.shape"
    points = []
    for i, item in enumerate(d.list(d.obj(raw, rpath).get("shape"), ppath)):
        pm = d.obj(item, f"{ppath}[{i}]")
        points.append(ca.UtilizationShapePoint(
            d.int(pm.get("utilization"), f"{ppath}[{i}].utilization", 0),
            d.int(pm.get("score"), f"{ppath}[{i}].score", 0)))
    errs += _shape_errors(points, ppath)
    return tuple(points)


def _shape_errors(shape: list[ca.UtilizationShapePoint], path: str) -> list[vf.FieldError]:
    """validation_pluginargs.go validateFunctionShape."""
    if not shape:
        return [vf.required(path, "at least one point must be specified")]
    errs = []
    for i in range(1, len(shape)):
        if shape[i - 1].utilization >= shape[i].utilization:
            errs.append(vf.invalid(f"{path}[{i}].utilization", shape[i].utilization,
                                   "values must be sorted in increasing order"))
            break
    for i, p in enumerate(shape):
        if not 0 <= p.utilization <= 100:
            errs.append(vf.invalid(f"{path}[{i}].utilization", p.utilization,
                                   "not in valid range [0, 100]"))
        if not 0 <= p.score <= MAX_CUSTOM_PRIORITY_SCORE:
            errs.append(vf.invalid(f"{path}[{i}].score", p.score,
                                   f"not in valid range [0, {MAX_CUSTOM_PRIORITY_SCORE}]"))
    return errs


def _balanced(d: Decoder, m: dict, path: str) -> ca.NodeResourcesBalancedAllocationArgs:
    rpath = f"{path}.resources"
    resources = _resources(d, m.get("resources"), rpath) or _DEFAULT_RESOURCES
    errs, seen = [], set()
    for i, r in enumerate(resources):
        if r.name in seen:
            errs.append(vf.duplicate(f"{rpath}[{i}].name", r.name))
        seen.add(r.name)
        if r.weight != 1:
            errs.append(vf.invalid(f"{rpath}[{i}].weight", r.weight, "must be 1"))
    _check(d, errs)
    return ca.NodeResourcesBalancedAllocationArgs(resources)


def _inter_pod_affinity(d: Decoder, m: dict, path: str) -> ca.InterPodAffinityArgs:
    w = d.int(m.get("hardPodAffinityWeight"), f"{path}.hardPodAffinityWeight", 1)
    if not 0 <= w <= 100:
        raise d.fail_field(vf.invalid(f"{path}.hardPodAffinityWeight", w,
                                      "not in valid range [0, 100]"))
    return ca.InterPodAffinityArgs(w, d.bool(m.get("ignorePreferredTermsOfExistingPods"),
                                             f"{path}.ignorePreferredTermsOfExistingPods"))


def _node_affinity(d: Decoder, m: dict, path: str) -> ca.NodeAffinityArgs:
    """ValidateNodeAffinityArgs: the added required terms must compile (label keys and
    values, Gt/Lt integers), as nodeaffinity.NewNodeSelector checks them."""
    added = mf.read_node_affinity(d, m.get("addedAffinity"), f"{path}.addedAffinity",
                                  api=False)
    if added is not None and added.required is not None:
        from .k8s.nodeaffinity import LazyErrorNodeSelector
        errs = LazyErrorNodeSelector.from_node_selector(added.required).parse_errors()
        if errs:
            raise d.fail(f"{path}.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                         f"Invalid value: {', '.join(errs)}")
    return ca.NodeAffinityArgs(added)


def _preemption(d: Decoder, m: dict, path: str) -> ca.DefaultPreemptionArgs:
    pct_path, abs_path = f"{path}.minCandidateNodesPercentage", f"{path}.minCandidateNodesAbsolute"
    pct = d.int(m.get("minCandidateNodesPercentage"), pct_path, 10)
    absolute = d.int(m.get("minCandidateNodesAbsolute"), abs_path, 100)
    errs = []
    if not 0 <= pct <= 100:
        errs.append(vf.invalid(pct_path, pct, "not in valid range [0, 100]"))
    if absolute < 0:
        errs.append(vf.invalid(abs_path, absolute, "not in valid range [0, inf)"))
    if pct == 0 and absolute == 0:
        errs.append(vf.invalid(pct_path, pct,
                               "cannot be zero at the same time as minCandidateNodesAbsolute"))
    _check(d, errs)
    return ca.DefaultPreemptionArgs(pct, absolute)


_PARSERS: dict[str, Callable[[Decoder, dict, str], Any]] = {
    n.POD_TOPOLOGY_SPREAD: _pod_topology_spread,
    n.NODE_RESOURCES_FIT: _fit,
    n.NODE_RESOURCES_BALANCED_ALLOCATION: _balanced,
    n.INTER_POD_AFFINITY: _inter_pod_affinity,
    n.NODE_AFFINITY: _node_affinity,
    n.DEFAULT_PREEMPTION: _preemption,
}
_DEFAULTS: dict[str, Callable[[], Any]] = {
    n.POD_TOPOLOGY_SPREAD: ca.PodTopologySpreadArgs,
    n.NODE_RESOURCES_FIT: ca.NodeResourcesFitArgs,
    n.NODE_RESOURCES_BALANCED_ALLOCATION: ca.NodeResourcesBalancedAllocationArgs,
    n.INTER_POD_AFFINITY: ca.InterPodAffinityArgs,
    n.NODE_AFFINITY: ca.NodeAffinityArgs,
    n.DEFAULT_PREEMPTION: ca.DefaultPreemptionArgs,
}
