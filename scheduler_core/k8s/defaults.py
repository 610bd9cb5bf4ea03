"""API defaults applied when a manifest omits a field.

Mirrors ``pkg/apis/core/v1/defaults.go`` (v1.34) for the fields the scheduler reads:
namespace ``default``, schedulerName ``default-scheduler``, toleration operator
``Equal``, container port protocol ``TCP``, and requests defaulted from limits
(SetDefaults_ResourceRequirements / defaults for containers: a limit with no request
for the same resource becomes the request).
"""
from __future__ import annotations

from typing import Mapping

from .types import DEFAULT_SCHEDULER_NAME, NO_EXECUTE, PREEMPT_LOWER_PRIORITY, Toleration

DEFAULT_NAMESPACE = "default"
DEFAULT_PROTOCOL = "TCP"
DEFAULT_TOLERATION_OPERATOR = "Equal"
DEFAULT_PREEMPTION_POLICY = PREEMPT_LOWER_PRIORITY
DEFAULT_SCHEDULER = DEFAULT_SCHEDULER_NAME
DEFAULT_PHASE = "Pending"

# Label every Namespace carries (kube-apiserver NamespaceDefaultLabelName feature, GA).
LABEL_METADATA_NAME = "kubernetes.io/metadata.name"


def requests_with_limit_defaults(requests: Mapping[str, int],
                                 limits: Mapping[str, int]) -> dict[str, int]:
    """Container requests after defaulting: a resource with a limit but no request
    gets request = limit (core/v1 defaults.go SetDefaults_Pod)."""
    out = dict(requests)
    for name, amount in limits.items():
        out.setdefault(name, amount)
    return out


def namespace_labels(name: str, labels: Mapping[str, str] | None = None) -> dict[str, str]:
    """A namespace's labels including the immutable ``kubernetes.io/metadata.name``."""
    out = dict(labels or {})
    out[LABEL_METADATA_NAME] = name
    return out


# plugin/pkg/admission/defaulttolerationseconds (enabled by default): every pod tolerates
# the not-ready / unreachable NoExecute taints for 300s unless it already does.
TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable"
DEFAULT_TOLERATION_SECONDS = 300


def _tolerates_key(tolerations: tuple[Toleration, ...], key: str) -> bool:
    return any((t.key == key or not t.key) and (t.effect == NO_EXECUTE or not t.effect)
               for t in tolerations)


def with_default_tolerations(tolerations: tuple[Toleration, ...]) -> tuple[Toleration, ...]:
    """DefaultTolerationSeconds admission: add the not-ready / unreachable tolerations a
    pod lacks."""
    out = tuple(tolerations)
    for key in (TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE):
        if not _tolerates_key(out, key):
            out += (Toleration(key, "Exists", "", NO_EXECUTE, DEFAULT_TOLERATION_SECONDS),)
    return out
