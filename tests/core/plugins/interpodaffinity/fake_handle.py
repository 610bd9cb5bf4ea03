"""A minimal framework Handle for InterPodAffinity tests: a Snapshot and namespaces."""
from __future__ import annotations

from types import SimpleNamespace
from typing import Mapping

from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.k8s.types import LABEL_HOSTNAME, LabelSelector, Node, Pod
from tests.core.wrappers import make_node, node_infos, selector

# Namespaces of upstream filtering_test.go / scoring_test.go: two teams, two subteams each.
TEAM_NAMESPACES = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}


class FakeHandle:
    """Handle with snapshot_shared_lister() and objects.namespaces (name -> labels)."""

    def __init__(self, nodes: list[Node], pods: list[Pod] = (),
                 namespaces: Mapping[str, Mapping[str, str]] | None = None) -> None:
        self.snapshot = Snapshot(node_infos(nodes, list(pods)))
        self.objects = SimpleNamespace(namespaces=dict(namespaces or {}))

    def snapshot_shared_lister(self) -> Snapshot:
        return self.snapshot


def node(name: str, **labels: str) -> Node:
    """A node carrying exactly these labels (no hostname label unless given)."""
    w = make_node(name).without_label(LABEL_HOSTNAME)
    for k, v in labels.items():
        w.label(k, v)
    return w.obj()


def sel_in(key: str, *values: str) -> LabelSelector:
    return selector(None, (key, "In", list(values)))


def sel_not_in(key: str, *values: str) -> LabelSelector:
    return selector(None, (key, "NotIn", list(values)))


def sel_exists(key: str) -> LabelSelector:
    return selector(None, (key, "Exists"))
