"""API versions kube-apiserver no longer serves, for the kinds the engine reads.

A dump from an old cluster, or a chart written for one, still says
``extensions/v1beta1``; kube-apiserver v1.34 answers "no matches for kind". The engine
reads such objects as their current version, with a warning that says so
(removals from the Kubernetes "Deprecated API Migration Guide").
"""
from __future__ import annotations

# (apiVersion, kind) -> (the release that stopped serving it, the version to use)
REMOVED = {
    ("extensions/v1beta1", "Deployment"): ("v1.16", "apps/v1"),
    ("extensions/v1beta1", "DaemonSet"): ("v1.16", "apps/v1"),
    ("extensions/v1beta1", "ReplicaSet"): ("v1.16", "apps/v1"),
    ("apps/v1beta1", "Deployment"): ("v1.16", "apps/v1"),
    ("apps/v1beta1", "StatefulSet"): ("v1.16", "apps/v1"),
    ("apps/v1beta2", "Deployment"): ("v1.16", "apps/v1"),
    ("apps/v1beta2", "StatefulSet"): ("v1.16", "apps/v1"),
    ("apps/v1beta2", "DaemonSet"): ("v1.16", "apps/v1"),
    ("apps/v1beta2", "ReplicaSet"): ("v1.16", "apps/v1"),
    ("scheduling.k8s.io/v1beta1", "PriorityClass"): ("v1.22", "scheduling.k8s.io/v1"),
    ("policy/v1beta1", "PodDisruptionBudget"): ("v1.25", "policy/v1"),
}

# Versions whose workloads defaulted spec.selector to the template's labels (apps/v1
# requires it): extensions/v1beta1 and apps/v1beta1 (pkg/apis/extensions/v1beta1/defaults.go
# before its removal).
SELECTOR_FROM_TEMPLATE = ("extensions/v1beta1", "apps/v1beta1")


def removed(api_version: str, kind: str) -> tuple[str, str] | None:
    """(release that removed it, current version) when ``api_version`` of ``kind`` is
    no longer served; else None."""
    return REMOVED.get((api_version, kind))
