"""Plugin registry: name -> factory and the extension points it serves.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/registry.go``. The
extension points are listed here (rather than discovered) so a profile can be expanded
without importing every plugin; ``load_plugin_class`` imports on profile build and fails
loudly when a module is missing. DynamicResources is not registered: scenarios carry no
ResourceClaims.
"""
from __future__ import annotations

from importlib import import_module

from . import names as n

PRE_ENQUEUE = "preEnqueue"
QUEUE_SORT = "queueSort"
PRE_FILTER = "preFilter"
FILTER = "filter"
POST_FILTER = "postFilter"
PRE_SCORE = "preScore"
SCORE = "score"
RESERVE = "reserve"
PERMIT = "permit"
PRE_BIND = "preBind"
BIND = "bind"
POST_BIND = "postBind"
EXTENSION_POINTS = (PRE_ENQUEUE, QUEUE_SORT, PRE_FILTER, FILTER, POST_FILTER, PRE_SCORE,
                    SCORE, RESERVE, PERMIT, PRE_BIND, BIND, POST_BIND)

_PKG = "scheduler_core.plugins"

# name -> ("module:Class", extension points it implements upstream)
REGISTRY: dict[str, tuple[str, frozenset[str]]] = {
    n.SCHEDULING_GATES: (f"{_PKG}.schedulinggates.scheduling_gates:SchedulingGates",
                         frozenset({PRE_ENQUEUE})),
    n.PRIORITY_SORT: (f"{_PKG}.queuesort.priority_sort:PrioritySort", frozenset({QUEUE_SORT})),
    n.NODE_UNSCHEDULABLE: (f"{_PKG}.nodeunschedulable.node_unschedulable:NodeUnschedulable",
                           frozenset({FILTER})),
    n.NODE_NAME: (f"{_PKG}.nodename.node_name:NodeName", frozenset({FILTER})),
    n.TAINT_TOLERATION: (f"{_PKG}.tainttoleration.taint_toleration:TaintToleration",
                         frozenset({FILTER, PRE_SCORE, SCORE})),
    n.NODE_AFFINITY: (f"{_PKG}.nodeaffinity.node_affinity:NodeAffinity",
                      frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE})),
    n.NODE_PORTS: (f"{_PKG}.nodeports.node_ports:NodePorts", frozenset({PRE_FILTER, FILTER})),
    n.NODE_RESOURCES_FIT: (f"{_PKG}.noderesources.fit:Fit",
                           frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE})),
    n.POD_TOPOLOGY_SPREAD: (f"{_PKG}.podtopologyspread.plugin:PodTopologySpread",
                            frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE})),
    n.INTER_POD_AFFINITY: (f"{_PKG}.interpodaffinity.plugin:InterPodAffinity",
                           frozenset({PRE_FILTER, FILTER, PRE_SCORE, SCORE})),
    n.DEFAULT_PREEMPTION: (f"{_PKG}.defaultpreemption.default_preemption:DefaultPreemption",
                           frozenset({POST_FILTER})),
    n.NODE_RESOURCES_BALANCED_ALLOCATION: (
        f"{_PKG}.noderesources.balanced_allocation:BalancedAllocation",
        frozenset({PRE_SCORE, SCORE})),
    n.IMAGE_LOCALITY: (f"{_PKG}.imagelocality.image_locality:ImageLocality",
                       frozenset({SCORE})),
    n.DEFAULT_BINDER: (f"{_PKG}.defaultbinder.default_binder:DefaultBinder", frozenset({BIND})),
    # --- volume plugins (claims, volumes, classes, CSI limits) ---
    n.VOLUME_RESTRICTIONS: (f"{_PKG}.volumerestrictions.volume_restrictions:VolumeRestrictions",
                            frozenset({PRE_FILTER, FILTER})),
    n.NODE_VOLUME_LIMITS: (f"{_PKG}.nodevolumelimits.csi:CSILimits",
                           frozenset({PRE_FILTER, FILTER})),
    n.VOLUME_BINDING: (f"{_PKG}.volumebinding.volume_binding:VolumeBinding",
                       frozenset({PRE_FILTER, FILTER, RESERVE, PRE_BIND, PRE_SCORE, SCORE})),
    n.VOLUME_ZONE: (f"{_PKG}.volumezone.volume_zone:VolumeZone", frozenset({PRE_FILTER, FILTER})),
}

# Upstream plugins we know but do not register (no ResourceClaims in scenarios; the
# in-tree volume limit plugins are gone upstream too).
UNREGISTERED = frozenset({
    n.DYNAMIC_RESOURCES, "EBSLimits", "GCEPDLimits", "AzureDiskLimits", "CinderLimits",
})


def extension_points(name: str) -> frozenset[str]:
    """The extension points a registered plugin serves."""
    return REGISTRY[name][1]


def load_plugin_class(name: str) -> type:
    """Import a registered plugin's class (ImportError / KeyError propagate loudly)."""
    module, cls = REGISTRY[name][0].split(":")
    return getattr(import_module(module), cls)
