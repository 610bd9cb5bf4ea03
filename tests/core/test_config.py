"""KubeSchedulerConfiguration: default profile, merging, MultiPoint expansion, weights, args."""
from __future__ import annotations

import pytest
import yaml

from scheduler_core import config_args as ca
from scheduler_core.config import (PluginSet, default_configuration, merge_plugin_set,
                                   parse_configuration)
from scheduler_core.errors import ScenarioError
from scheduler_core.k8s.types import TopologySpreadConstraint

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def parse(body: str):
    cfg, warnings = parse_configuration(yaml.safe_load(HEAD + body), "config.yaml")
    return cfg, warnings


def profile(body: str, name: str = "default-scheduler"):
    return parse(body)[0].profiles[name]


def test_default_profile_matches_upstream_v1_34() -> None:
    p = default_configuration().profiles["default-scheduler"]
    vols = ("VolumeRestrictions", "NodeVolumeLimits", "VolumeBinding", "VolumeZone")
    assert p.plugins == {
        "preEnqueue": ("SchedulingGates",),
        "queueSort": ("PrioritySort",),
        "preFilter": ("NodeAffinity", "NodePorts", "NodeResourcesFit", *vols,
                      "PodTopologySpread", "InterPodAffinity"),
        "filter": ("NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
                   "NodePorts", "NodeResourcesFit", *vols, "PodTopologySpread",
                   "InterPodAffinity"),
        "postFilter": ("DefaultPreemption",),
        "preScore": ("TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding",
                     "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation"),
        "score": ("TaintToleration", "NodeAffinity", "NodeResourcesFit", "VolumeBinding",
                  "PodTopologySpread", "InterPodAffinity", "NodeResourcesBalancedAllocation",
                  "ImageLocality"),
        "reserve": ("VolumeBinding",),
        "preBind": ("VolumeBinding",),
        "bind": ("DefaultBinder",),
    }
    # VolumeBinding has no weight in getDefaultPlugins: getScoreWeights makes it 1
    assert p.weights == {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1,
                         "VolumeBinding": 1, "PodTopologySpread": 2, "InterPodAffinity": 2,
                         "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}
    assert p.args["PodTopologySpread"] == ca.PodTopologySpreadArgs()


MERGE_CASES = [
    ("disabled default is dropped", PluginSet((("A", 0), ("B", 0))), PluginSet((), ("A",)),
     PluginSet((("B", 0),), ("A",))),
    ("star disables every default", PluginSet((("A", 0), ("B", 0))),
     PluginSet((("C", 0),), ("*",)), PluginSet((("C", 0),), ("*",))),
    ("re-configured default keeps its place", PluginSet((("A", 1), ("B", 1))),
     PluginSet((("A", 5), ("C", 0))), PluginSet((("A", 5), ("B", 1), ("C", 0)))),
    ("no custom set keeps defaults", PluginSet((("A", 1),)), None, PluginSet((("A", 1),))),
]


@pytest.mark.parametrize("default,custom,want", [c[1:] for c in MERGE_CASES],
                         ids=[c[0] for c in MERGE_CASES])
def test_merge_plugin_set(default, custom, want) -> None:
    assert merge_plugin_set(default, custom) == want


def test_score_weight_from_multipoint_and_score_point() -> None:
    p = profile("""profiles:
- plugins:
    multiPoint: {enabled: [{name: ImageLocality, weight: 7}]}
    score: {enabled: [{name: TaintToleration, weight: 9}]}
""")
    assert (p.weights["ImageLocality"], p.weights["TaintToleration"]) == (7, 9)
    # An explicit Score entry comes first (override), MultiPoint order follows.
    assert p.plugins["score"][0] == "TaintToleration"


def test_disabling_a_plugin_at_one_point_keeps_it_elsewhere() -> None:
    p = profile("""profiles:
- plugins:
    score: {disabled: [{name: PodTopologySpread}]}
""")
    assert "PodTopologySpread" not in p.plugins["score"]
    assert "PodTopologySpread" in p.plugins["filter"]
    assert "PodTopologySpread" not in p.weights


def test_multipoint_star_disable_leaves_only_explicit_plugins() -> None:
    p = profile("""profiles:
- plugins:
    multiPoint:
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: NodeName}]
      disabled: [{name: "*"}]
""")
    assert p.plugins == {"queueSort": ("PrioritySort",), "filter": ("NodeName",),
                         "bind": ("DefaultBinder",)}


def test_several_profiles_and_percentages() -> None:
    cfg, _ = parse("""percentageOfNodesToScore: 40
profiles:
- schedulerName: default-scheduler
- schedulerName: batch
  percentageOfNodesToScore: 100
""")
    assert sorted(cfg.profiles) == ["batch", "default-scheduler"]
    assert cfg.percentage_of_nodes_to_score == 40
    assert cfg.profiles["batch"].percentage_of_nodes_to_score == 100


def test_volume_plugins_can_be_disabled_as_upstream_allows() -> None:
    p = profile("""profiles:
- plugins:
    multiPoint: {disabled: [{name: VolumeBinding}, {name: VolumeZone}]}
    filter: {disabled: [{name: NodeVolumeLimits}]}
""")
    assert "VolumeBinding" not in p.all_plugins() and "VolumeZone" not in p.all_plugins()
    assert "NodeVolumeLimits" in p.points("preFilter")
    assert "NodeVolumeLimits" not in p.points("filter")
    assert "VolumeRestrictions" in p.points("filter")


def test_dynamic_resources_is_dropped_with_a_warning() -> None:
    cfg, warnings = parse("""profiles:
- plugins: {filter: {enabled: [{name: DynamicResources}]}}
""")
    assert "DynamicResources" not in cfg.profiles["default-scheduler"].plugins["filter"]
    assert warnings == ["config.yaml: KubeSchedulerConfiguration: profiles[0].plugins.filter."
                        "enabled[0].name: plugin 'DynamicResources' is not supported (scenarios "
                        "have no resource claims); ignored"]


def test_plugin_args_are_parsed_and_defaulted() -> None:
    p = profile("""profiles:
- pluginConfig:
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway}]
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 3}]
        requestedToCapacityRatio: {shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]}
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 5}
""")
    assert p.args["PodTopologySpread"] == ca.PodTopologySpreadArgs(
        (TopologySpreadConstraint(1, "zone", "ScheduleAnyway"),), "List")
    assert p.args["NodeResourcesFit"].scoring_strategy == ca.ScoringStrategy(
        "RequestedToCapacityRatio", (ca.ResourceSpec("cpu", 3),),
        (ca.UtilizationShapePoint(0, 10), ca.UtilizationShapePoint(100, 0)))
    assert p.args["InterPodAffinity"] == ca.InterPodAffinityArgs(5, False)


P = "profiles[0].pluginConfig[0].args"
BAD = [
    ("default constraint with a selector", "PodTopologySpread",
     "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: z, "
     "whenUnsatisfiable: ScheduleAnyway, labelSelector: {}}]}",
     f"{P}.defaultConstraints[0].labelSelector: Forbidden: constraint must not define a "
     "selector, as they deduced for each pod"),
    ("System defaulting with constraints", "PodTopologySpread",
     "{defaultConstraints: [{maxSkew: 1, topologyKey: z, whenUnsatisfiable: ScheduleAnyway}]}",
     f"{P}.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"),
    ("default maxSkew zero", "PodTopologySpread",
     "{defaultingType: List, defaultConstraints: [{maxSkew: 0, topologyKey: z, "
     "whenUnsatisfiable: ScheduleAnyway}]}",
     f"{P}.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)"),
    ("unknown scoring strategy", "NodeResourcesFit", "{scoringStrategy: {type: Random}}",
     f"{P}.scoringStrategy.type: Unsupported value: \"Random\": supported values: "
     "\"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""),
    ("resource weight out of range", "NodeResourcesFit",
     "{scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 101}]}}",
     f"{P}.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not "
     "in valid range (0, 100]"),
    ("shape missing", "NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio}}",
     f"{P}.scoringStrategy.requestedToCapacityRatio: Required value: must be specified when "
     "type is RequestedToCapacityRatio"),
    ("balanced weight not 1", "NodeResourcesBalancedAllocation",
     "{resources: [{name: cpu, weight: 2}]}",
     f"{P}.resources[0].weight: Invalid value: 2: must be 1"),
    ("hard affinity weight too big", "InterPodAffinity", "{hardPodAffinityWeight: 101}",
     f"{P}.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"),
    ("both preemption minimums zero", "DefaultPreemption",
     "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}",
     f"{P}.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as "
     "minCandidateNodesAbsolute"),
]


@pytest.mark.parametrize("plugin,args,message", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_args_use_upstream_messages(plugin, args, message) -> None:
    with pytest.raises(ScenarioError) as e:
        parse(f"profiles:\n- pluginConfig:\n  - name: {plugin}\n    args: {args}\n")
    assert str(e.value) == f"config.yaml: KubeSchedulerConfiguration: {message}"


@pytest.mark.parametrize("body,message", [
    ("profiles:\n- plugins: {filter: {enabled: [{name: Nope}]}}\n",
     "profiles[0].plugins.filter.enabled[0].name: plugin \"Nope\" does not exist"),
    ("percentageOfNodesToScore: 120\n",
     "percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]"),
    ("profiles:\n- schedulerName: a\n- schedulerName: a\n",
     "profiles[1].schedulerName: Duplicate value: \"a\""),
    ("profiles:\n- plugins: {score: {enabled: [{name: NodeName}]}}\n",
     "profiles[0].plugins.score.enabled[0]: plugin \"NodeName\" does not extend score plugin"),
], ids=["unknown plugin", "percentage out of range", "duplicate scheduler name",
        "plugin at a point it does not serve"])
def test_bad_configuration(body, message) -> None:
    with pytest.raises(ScenarioError) as e:
        parse(body)
    assert str(e.value) == f"config.yaml: KubeSchedulerConfiguration: {message}"


def test_added_affinity_that_does_not_compile_is_rejected() -> None:
    with pytest.raises(ScenarioError) as e:
        parse("profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args: {addedAffinity: "
              "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
              "[{matchExpressions: [{key: 'a b', operator: Exists}]}]}}}\n")
    assert str(e.value).startswith(
        "config.yaml: KubeSchedulerConfiguration: profiles[0].pluginConfig[0].args.addedAffinity."
        "requiredDuringSchedulingIgnoredDuringExecution: Invalid value: ")


def test_backoff_seconds_are_parsed_and_checked() -> None:
    cfg, _ = parse("podInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 5\n")
    assert (cfg.pod_initial_backoff_seconds, cfg.pod_max_backoff_seconds) == (2, 5)
    with pytest.raises(ScenarioError) as e:
        parse("podInitialBackoffSeconds: 4\npodMaxBackoffSeconds: 3\n")
    assert str(e.value) == ("config.yaml: KubeSchedulerConfiguration: podMaxBackoffSeconds: "
                            "Invalid value: 3: must be greater than or equal to "
                            "PodInitialBackoffSeconds")
