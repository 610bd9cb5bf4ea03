"""ImageLocality Score and the per-node image summaries.

Cases re-expressed from upstream imagelocality/image_locality_test.go (image sizes 40MB,
250MB, 300MB, 2GB spread over nodes); scores worked out by hand in comments.
"""
from dataclasses import dataclass

import pytest

from scheduler_core.framework.cycle_state import CycleState
from scheduler_core.framework.interface import SUCCESS
from scheduler_core.framework.snapshot import Snapshot
from scheduler_core.framework.types import ImageStateSummary
from scheduler_core.k8s.types import Container, ContainerImage, Node, Pod
from scheduler_core.plugins.imagelocality import ImageLocality, image_states_for
from scheduler_core.plugins.imagelocality.image_locality import normalized_image_name
from tests.core.wrappers import node_infos

MB = 1024 * 1024


class FakeHandle:
    """snapshot_shared_lister() over the test's NodeInfos."""

    def __init__(self, infos) -> None:
        self.snapshot = Snapshot(infos)

    def snapshot_shared_lister(self) -> Snapshot:
        return self.snapshot


def node(name: str, *images: tuple) -> Node:
    return Node(name=name, images=tuple(ContainerImage(tuple(names), size)
                                        for names, size in images))


IMG_40 = (["gcr.io/40:latest", "gcr.io/40:v1"], 40 * MB)
IMG_300 = (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB)
IMG_2000 = (["gcr.io/2000:latest"], 2000 * MB)
IMG_250 = (["gcr.io/250:latest"], 250 * MB)
IMG_10 = (["gcr.io/10:v1"], 10 * MB)


def pod_with(*images: str, init: tuple = ()) -> Pod:
    return Pod(name="p", containers=tuple(Container(f"c{i}", image=im)
                                          for i, im in enumerate(images)),
               init_containers=tuple(Container(f"i{i}", image=im) for i, im in enumerate(init)))


@dataclass
class Case:
    name: str
    pod: Pod
    nodes: list
    want: list


CASES = [
    # n1: 40MB on 1 of 2 nodes -> 20MB < 23MB -> 0
    # n2: 250MB/2 = 125MB -> 100*(125-23)/(2000-23) = 5
    Case("two images spread on two nodes prefer the larger one",
         pod_with("gcr.io/40", "gcr.io/250"),
         [node("n1", IMG_40, IMG_300), node("n2", IMG_10, IMG_250)],
         [("n1", 0), ("n2", 5)]),
    # n1: 40MB*2/2 + 300MB/2 = 190MB -> 100*(190-23)/(2000-23) = 8; n2: 40MB -> 0 (rounded)
    Case("an image on every node is worth its full size",
         pod_with("gcr.io/40", "gcr.io/300"),
         [node("n1", IMG_40, IMG_300), node("n2", IMG_40, IMG_10)],
         [("n1", 8), ("n2", 0)]),
    # 2000MB on 1 of 2 -> 1000MB, max threshold for one container is 1000MB -> 100
    Case("a huge image is capped at the per-container maximum", pod_with("gcr.io/2000"),
         [node("n1", IMG_2000), node("n2", IMG_10)], [("n1", 100), ("n2", 0)]),
    Case("an untagged name matches :latest only", pod_with("gcr.io/300:v2"),
         [node("n1", IMG_300), node("n2")], [("n1", 0), ("n2", 0)]),
    # init containers count too: 300MB/2 = 150 -> 100*(150-23)/(2000-23) = 6
    Case("init container images count", pod_with("gcr.io/none", init=("gcr.io/300:v1",)),
         [node("n1", IMG_300), node("n2")], [("n1", 6), ("n2", 0)]),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_score(case):
    infos = node_infos(case.nodes)
    states = image_states_for(case.nodes)
    for ni in infos:
        ni.image_states = states[ni.name]
    pl = ImageLocality(None, FakeHandle(infos))
    got = []
    for ni in infos:
        s, st = pl.score(CycleState(), case.pod, ni)
        assert st == SUCCESS
        got.append((ni.name, s))
    assert got == case.want
    assert pl.score_extensions() is None


def test_image_states_count_nodes_per_name():
    states = image_states_for([node("a", IMG_40, IMG_300), node("b", IMG_40), node("c")])
    assert states == {
        "a": {"gcr.io/40:latest": ImageStateSummary(40 * MB, 2),
              "gcr.io/40:v1": ImageStateSummary(40 * MB, 2),
              "gcr.io/300:latest": ImageStateSummary(300 * MB, 1),
              "gcr.io/300:v1": ImageStateSummary(300 * MB, 1)},
        "b": {"gcr.io/40:latest": ImageStateSummary(40 * MB, 2),
              "gcr.io/40:v1": ImageStateSummary(40 * MB, 2)},
        "c": {},
    }


@pytest.mark.parametrize("name,want", [
    ("nginx", "nginx:latest"),
    ("nginx:1.25", "nginx:1.25"),
    ("localhost:5000/app", "localhost:5000/app:latest"),
    ("localhost:5000/app:v2", "localhost:5000/app:v2"),
    ("docker.io/library/nginx", "docker.io/library/nginx:latest"),
])
def test_normalized_image_name(name, want):
    assert normalized_image_name(name) == want
