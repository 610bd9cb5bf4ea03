"""ImageLocality plugin.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/imagelocality/
image_locality.go`` (score from the sizes of the pod's images already on the node, scaled
by how many nodes have them) and ``backend/cache/cache.go`` addNodeImageStates (the
per-node image summaries). Image names are matched as written, after appending
``:latest`` to an untagged name; like upstream, no registry (``docker.io/library/``)
normalization is done.
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ...framework.cycle_state import CycleState
from ...framework.interface import MAX_NODE_SCORE, SUCCESS, Plugin, Status
from ...framework.types import ImageStateSummary, NodeInfo
from ...k8s.types import Node, Pod
from ..helper.normalize_score import go_div
from ..names import IMAGE_LOCALITY

MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB  # minThreshold: images this small score nothing
MAX_CONTAINER_THRESHOLD = 1000 * MB  # maxContainerThreshold, per container


def image_states_for(nodes: Iterable[Node]) -> dict[str, dict[str, ImageStateSummary]]:
    """node name -> image name -> ImageStateSummary(size, number of nodes having it).

    Every name of every ``status.images`` entry counts (cache.addNodeImageStates); the size
    is the first one seen for that name.
    """
    nodes = list(nodes)
    sizes: dict[str, int] = {}
    holders: dict[str, set[str]] = {}
    for n in nodes:
        for img in n.images:
            for name in img.names:
                sizes.setdefault(name, img.size_bytes)
                holders.setdefault(name, set()).add(n.name)
    out: dict[str, dict[str, ImageStateSummary]] = {}
    for n in nodes:
        names = {name for img in n.images for name in img.names}
        out[n.name] = {name: ImageStateSummary(sizes[name], len(holders[name])) for name in names}
    return out


def normalized_image_name(name: str) -> str:
    """normalizedImageName: append ":latest" when the name carries no tag."""
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name


def scaled_image_score(state: ImageStateSummary, total_num_nodes: int) -> int:
    """scaledImageScore: size * numNodes / totalNumNodes, in float64 then truncated."""
    spread = state.num_nodes / total_num_nodes
    return int(float(state.size) * spread)


def sum_image_scores(image_states: Mapping[str, ImageStateSummary], pod: Pod,
                     total_num_nodes: int) -> int:
    """sumImageScores over init containers then containers."""
    total = 0
    for c in pod.init_containers + pod.containers:
        st = image_states.get(normalized_image_name(c.image))
        if st is not None:
            total += scaled_image_score(st, total_num_nodes)
    return total


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    """calculatePriority: clamp to [minThreshold, 1000MB * containers] and scale to 0..100."""
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return go_div(MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD), max_threshold - MIN_THRESHOLD)


class ImageLocality(Plugin):
    """imagelocality.ImageLocality."""

    NAME = IMAGE_LOCALITY

    def __init__(self, args: None = None, handle=None) -> None:
        self.handle = handle

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status]:
        """Score: 0..100 from the pod's images present on the node."""
        total_num_nodes = self.handle.snapshot_shared_lister().num_nodes()
        s = sum_image_scores(node_info.image_states, pod, total_num_nodes)
        return calculate_priority(s, len(pod.init_containers) + len(pod.containers)), SUCCESS

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                    ) -> list[int]:
        """Score for all nodes at once (fast path): the node count read once, nodes
        without image records share one computed value."""
        total_num_nodes = self.handle.snapshot_shared_lister().num_nodes()
        num_containers = len(pod.init_containers) + len(pod.containers)
        empty = calculate_priority(0, num_containers)
        return [calculate_priority(sum_image_scores(ni.image_states, pod, total_num_nodes),
                                   num_containers) if ni.image_states else empty
                for ni in nodes]

    def score_extensions(self) -> None:
        return None
