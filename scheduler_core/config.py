"""KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) -> profiles.

Mirrors kube-scheduler v1.34: ``pkg/scheduler/apis/config/v1/default_plugins.go``
(default plugins, mergePlugins), ``v1/defaults.go`` (profile and args defaults),
``framework/runtime/framework.go`` (MultiPoint expansion and score weights) and
``apis/config/validation``. Plugin args are parsed by ``config_plugin_args.py``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .errors import ScenarioError
from .k8s.decode import Decoder
from .k8s.types import DEFAULT_SCHEDULER_NAME
from .plugins import names as n
from .plugins import registry as reg
from .config_plugin_args import default_args, parse_args

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"

# default_plugins.go getDefaultPlugins: MultiPoint enabled list with weights (v1.34).
DEFAULT_MULTI_POINT: tuple[tuple[str, int], ...] = (
    (n.SCHEDULING_GATES, 0), (n.PRIORITY_SORT, 0), (n.NODE_UNSCHEDULABLE, 0),
    (n.NODE_NAME, 0), (n.TAINT_TOLERATION, 3), (n.NODE_AFFINITY, 2), (n.NODE_PORTS, 0),
    (n.NODE_RESOURCES_FIT, 1), (n.VOLUME_RESTRICTIONS, 0), (n.NODE_VOLUME_LIMITS, 0),
    (n.VOLUME_BINDING, 0), (n.VOLUME_ZONE, 0), (n.POD_TOPOLOGY_SPREAD, 2),
    (n.INTER_POD_AFFINITY, 2), (n.DYNAMIC_RESOURCES, 0), (n.DEFAULT_PREEMPTION, 0),
    (n.NODE_RESOURCES_BALANCED_ALLOCATION, 1), (n.IMAGE_LOCALITY, 1), (n.DEFAULT_BINDER, 0),
)
POINT_FIELDS = ("multiPoint",) + reg.EXTENSION_POINTS


@dataclass(frozen=True)
class PluginSet:
    """config.PluginSet: enabled (name, weight) in order, disabled names."""

    enabled: tuple[tuple[str, int], ...] = ()
    disabled: tuple[str, ...] = ()


@dataclass(frozen=True)
class Profile:
    """One KubeSchedulerProfile after defaulting, merging and MultiPoint expansion."""

    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    plugins: dict[str, tuple[str, ...]] = field(default_factory=dict)  # point -> names
    weights: dict[str, int] = field(default_factory=dict)  # score plugin -> weight
    args: dict[str, Any] = field(default_factory=dict)  # plugin -> typed args
    percentage_of_nodes_to_score: int | None = None

    def points(self, point: str) -> tuple[str, ...]:
        """The plugins of one extension point, in run order."""
        return self.plugins.get(point, ())

    def all_plugins(self) -> tuple[str, ...]:
        """Every plugin of the profile, in first-seen order."""
        seen: dict[str, None] = {}
        for point in reg.EXTENSION_POINTS:
            for name in self.points(point):
                seen.setdefault(name, None)
        return tuple(seen)


@dataclass(frozen=True)
class SchedulerConfiguration:
    """The parsed configuration: profiles by schedulerName and the global percentage."""

    profiles: dict[str, Profile]
    percentage_of_nodes_to_score: int | None = None
    pod_initial_backoff_seconds: int = 1  # v1 default 1
    pod_max_backoff_seconds: int = 10  # v1 default 10


def default_configuration() -> SchedulerConfiguration:
    """The configuration kube-scheduler runs with when given none."""
    return SchedulerConfiguration({DEFAULT_SCHEDULER_NAME: build_profile(
        DEFAULT_SCHEDULER_NAME, {}, {}, None, [])})


def parse_configuration(doc: dict, file: str) -> tuple[SchedulerConfiguration, list[str]]:
    """Decode, default and validate a KubeSchedulerConfiguration document."""
    d = Decoder(file, KIND)
    api_version = doc.get("apiVersion")
    if api_version != API_VERSION:
        raise d.fail("apiVersion", f"Unsupported value: {api_version!r}: supported values: "
                     f"\"{API_VERSION}\"")
    pct = _percentage(d, doc.get("percentageOfNodesToScore"), "percentageOfNodesToScore")
    warnings: list[str] = []
    profiles: dict[str, Profile] = {}
    raw_profiles = d.list(doc.get("profiles"), "profiles") or [{}]
    for i, raw in enumerate(raw_profiles):
        prof = _profile(d, raw, f"profiles[{i}]", warnings)
        if prof.scheduler_name in profiles:
            raise d.fail(f"profiles[{i}].schedulerName",
                         f"Duplicate value: \"{prof.scheduler_name}\"")
        profiles[prof.scheduler_name] = prof
    _check_same_queue_sort(d, list(profiles.values()))
    initial, maximum = _backoff(d, doc)
    return SchedulerConfiguration(profiles, pct, initial, maximum), warnings


def _backoff(d: Decoder, doc: dict) -> tuple[int, int]:
    """podInitialBackoffSeconds / podMaxBackoffSeconds, checked as validation.go does."""
    initial = d.int(doc.get("podInitialBackoffSeconds"), "podInitialBackoffSeconds", 1)
    maximum = d.int(doc.get("podMaxBackoffSeconds"), "podMaxBackoffSeconds", 10)
    if initial <= 0:
        raise d.fail("podInitialBackoffSeconds", f"Invalid value: {initial}: must be greater "
                     "than 0")
    if maximum < initial:
        raise d.fail("podMaxBackoffSeconds", f"Invalid value: {maximum}: must be greater than "
                     "or equal to PodInitialBackoffSeconds")
    return initial, maximum


def _percentage(d: Decoder, v: Any, path: str) -> int | None:
    pct = d.int(v, path)
    if pct is not None and not 0 <= pct <= 100:
        raise d.fail(path, f"Invalid value: {pct}: not in valid range [0-100]")
    return pct


def _profile(d: Decoder, raw: Any, path: str, warnings: list[str]) -> Profile:
    m = d.obj(raw, path)
    name = d.str(m.get("schedulerName"), f"{path}.schedulerName", DEFAULT_SCHEDULER_NAME)
    if not name:
        raise d.fail(f"{path}.schedulerName", "Required value")
    pct = _percentage(d, m.get("percentageOfNodesToScore"), f"{path}.percentageOfNodesToScore")
    custom = _plugin_sets(d, m.get("plugins"), f"{path}.plugins", warnings)
    configs = _plugin_configs(d, m.get("pluginConfig"), f"{path}.pluginConfig")
    return build_profile(name, custom, configs, pct, warnings, d, path)


def _plugin_sets(d: Decoder, v: Any, path: str, warnings: list[str]) -> dict[str, PluginSet]:
    m = d.obj(v, path)
    out: dict[str, PluginSet] = {}
    for point in POINT_FIELDS:
        if m.get(point) is None:
            continue
        p = f"{path}.{point}"
        s = d.obj(m[point], p)
        enabled = d.items(s.get("enabled"), f"{p}.enabled", lambda x, q: _plugin(d, x, q))
        disabled = d.items(s.get("disabled"), f"{p}.disabled", lambda x, q: _plugin(d, x, q)[0])
        for i, (name, _) in enumerate(enabled):
            _check_known(d, name, f"{p}.enabled[{i}].name", warnings)
        out[point] = PluginSet(tuple(e for e in enabled if e[0] not in reg.UNREGISTERED),
                               disabled)
    return out


def _plugin(d: Decoder, v: Any, path: str) -> tuple[str, int]:
    m = d.obj(v, path)
    name = d.str(m.get("name"), f"{path}.name")
    if not name:
        raise d.fail(f"{path}.name", "Required value")
    return name, d.int(m.get("weight"), f"{path}.weight", 0)


def _check_known(d: Decoder, name: str, path: str, warnings: list[str]) -> None:
    if name in reg.UNREGISTERED:
        warnings.append(f"{d.file}: {KIND}: {path}: plugin {name!r} is not supported "
                        "(scenarios have no resource claims); ignored")
    elif name not in reg.REGISTRY:
        raise d.fail(path, f"plugin \"{name}\" does not exist")


def _plugin_configs(d: Decoder, v: Any, path: str) -> dict[str, tuple[Any, str]]:
    out: dict[str, tuple[Any, str]] = {}
    for i, item in enumerate(d.list(v, path)):
        m = d.obj(item, f"{path}[{i}]")
        name = d.str(m.get("name"), f"{path}[{i}].name")
        if name in out:
            raise d.fail(f"{path}[{i}].name", f"Duplicate value: \"{name}\"")
        out[name] = (m.get("args"), f"{path}[{i}].args")
    return out


def merge_plugin_set(default: PluginSet, custom: PluginSet | None) -> PluginSet:
    """default_plugins.go mergePluginSet: disabled (or "*") defaults dropped, re-configured
    defaults replaced in place, other custom plugins appended."""
    if custom is None:
        return default
    disabled = set(custom.disabled) | set(default.disabled)
    custom_by_name = {name: i for i, (name, _) in enumerate(custom.enabled)}
    enabled: list[tuple[str, int]] = []
    replaced: set[int] = set()
    if "*" not in disabled:
        for name, weight in default.enabled:
            if name in disabled:
                continue
            if name in custom_by_name:
                idx = custom_by_name[name]
                replaced.add(idx)
                name, weight = custom.enabled[idx]
            enabled.append((name, weight))
    enabled += [e for i, e in enumerate(custom.enabled) if i not in replaced]
    return PluginSet(tuple(enabled), tuple(custom.disabled) + tuple(default.disabled))


def build_profile(name: str, custom: dict[str, PluginSet], configs: dict[str, tuple[Any, str]],
                  pct: int | None, warnings: list[str], d: Decoder | None = None,
                  path: str = "profiles[0]") -> Profile:
    """Merge with the defaults, expand MultiPoint, compute weights and plugin args."""
    d = d or Decoder("", KIND)
    default_mp = PluginSet(tuple(e for e in DEFAULT_MULTI_POINT if e[0] not in reg.UNREGISTERED))
    sets = {"multiPoint": merge_plugin_set(default_mp, custom.get("multiPoint"))}
    for point in reg.EXTENSION_POINTS:
        sets[point] = merge_plugin_set(PluginSet(), custom.get(point))
    plugins = {point: _expand(d, point, sets[point], sets["multiPoint"], path)
               for point in reg.EXTENSION_POINTS}
    plugins = {k: v for k, v in plugins.items() if v}
    weights = _score_weights(plugins.get(reg.SCORE, ()),
                             sets[reg.SCORE].enabled + sets["multiPoint"].enabled)
    enabled = {p for names in plugins.values() for p in names}
    args = {}
    for plugin in sorted(enabled):
        raw, arg_path = configs.get(plugin, (None, f"{path}.pluginConfig"))
        parsed = parse_args(d, plugin, raw, arg_path) if plugin in configs else default_args(plugin)
        if parsed is not None:
            args[plugin] = parsed
    _check_queue_sort(d, plugins, path)
    return Profile(name, plugins, weights, args, pct)


def _expand(d: Decoder, point: str, specific: PluginSet, multi: PluginSet,
            path: str) -> tuple[str, ...]:
    """framework.go expandMultiPointPlugins for one extension point."""
    enabled = [name for name, _ in specific.enabled]
    for i, name in enumerate(enabled):
        if point not in reg.extension_points(name):
            raise d.fail(f"{path}.plugins.{point}.enabled[{i}]",
                         f"plugin \"{name}\" does not extend {point} plugin")
        if name in enabled[:i]:
            raise d.fail(f"{path}.plugins.{point}.enabled[{i}]",
                         f"plugin \"{name}\" already registered as {point} plugin")
    disabled = set(specific.disabled)
    if "*" in disabled:
        return tuple(enabled)
    overrides: list[str] = []
    multi_enabled: list[str] = []
    for name, _ in multi.enabled:
        if point not in reg.extension_points(name) or name in disabled:
            continue
        if name in enabled:
            overrides.append(name)
            continue
        if name in multi_enabled:
            raise d.fail(f"{path}.plugins.multiPoint",
                         f"plugin \"{name}\" already registered as {point} plugin")
        multi_enabled.append(name)
    part1 = [x for x in enabled if x in overrides]
    part3 = [x for x in enabled if x not in overrides]
    return tuple(part1 + multi_enabled + part3)


def _score_weights(score_plugins: tuple[str, ...],
                   entries: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """framework.go getScoreWeights: Score's own entry wins over MultiPoint; 0 -> 1."""
    weights: dict[str, int] = {}
    for name, weight in entries:
        if name in score_plugins and name not in weights:
            weights[name] = weight or 1
    return weights


def _check_queue_sort(d: Decoder, plugins: dict[str, tuple[str, ...]], path: str) -> None:
    qs = plugins.get(reg.QUEUE_SORT, ())
    if len(qs) != 1:
        raise d.fail(f"{path}.plugins.queueSort",
                     "exactly one queue sort plugin must be enabled")
    if not plugins.get(reg.BIND):
        raise d.fail(f"{path}.plugins.bind", "at least one bind plugin is needed")


def _check_same_queue_sort(d: Decoder, profiles: list[Profile]) -> None:
    """validation.go validateCommonQueueSort."""
    first = profiles[0]
    for i, p in enumerate(profiles[1:], start=1):
        if p.points(reg.QUEUE_SORT) != first.points(reg.QUEUE_SORT):
            raise d.fail(f"profiles[{i}].plugins.queueSort",
                         "Invalid value: queueSort must be the same for all profiles")
        if p.args.get(first.points(reg.QUEUE_SORT)[0]) != first.args.get(
                first.points(reg.QUEUE_SORT)[0]):
            raise d.fail(f"profiles[{i}].pluginConfig",
                         "Invalid value: queueSort must be the same for all profiles")
