"""ImageLocality's Score over node arrays.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/imagelocality/
image_locality.go``: per image name, each node's scaled image score (reference
``scaled_image_score``: size times the share of nodes holding it), summed over the pod's
init containers and containers, then calculatePriority. Node images never change, so
the result is cached per pod image list.
"""
from __future__ import annotations

from operator import attrgetter

import numpy as np

from ...framework.cycle_state import CycleState
from ...framework.interface import MAX_NODE_SCORE
from ...k8s.types import Pod
from ...plugins.imagelocality import image_locality as il
from ..node_groups import TemplateCache
from . import ColumnarPlugin


_CONTAINERS = attrgetter("init_containers", "containers")  # (the pod fields its template scores read)


class ImageLocality(ColumnarPlugin):
    NAME = il.IMAGE_LOCALITY

    def __init__(self, ref, ctx) -> None:
        super().__init__(ref, ctx)
        self._by_image: dict[str, np.ndarray] = {}
        self._by_pod = TemplateCache()
        self._holders: dict[str, list[tuple[int, object]]] | None = None
        self._score_name: str | None = None

    def _image(self, name: str) -> np.ndarray:
        arr = self._by_image.get(name)
        if arr is None:
            if self._holders is None:  # image -> the nodes holding it, in one pass
                self._holders = {}
                for i, ni in enumerate(self.ctx.node_infos):
                    for image, st in ni.image_states.items():
                        self._holders.setdefault(image, []).append((i, st))
            n = self.ctx.table.n
            arr = np.zeros(n, np.int64)
            for i, st in self._holders.get(name, ()):
                arr[i] = il.scaled_image_score(st, n)
            self._by_image[name] = arr
        return arr

    def _scores(self, images: tuple[str, ...]) -> np.ndarray:
        total = np.zeros(self.ctx.table.n, np.int64)
        for image in images:
            total = total + self._image(il.normalized_image_name(image))
        top = il.MAX_CONTAINER_THRESHOLD * len(images)
        clamped = np.where(total < il.MIN_THRESHOLD, il.MIN_THRESHOLD,
                           np.where(total > top, top, total))
        span = top - il.MIN_THRESHOLD
        if span <= 0:  # no containers: the numerator is 0 too
            return np.zeros(self.ctx.table.n, np.int64)
        return MAX_NODE_SCORE * (clamped - il.MIN_THRESHOLD) // span

    def _template(self, pod: Pod) -> tuple[np.ndarray, int | None]:
        """(score per node, the score when it is the same on every node)."""
        name = self._score_name
        if name is None:
            name = self._score_name = self.name("score")
        return self.per_template(pod, name, _CONTAINERS, self._compute, pod)

    def _compute(self, pod: Pod) -> tuple[np.ndarray, int | None]:
        images = tuple(c.image for c in pod.init_containers + pod.containers)
        scores = self._by_pod.get(images, lambda: self._scores(images))
        same = len(scores) > 0 and bool((scores == scores[0]).all())
        return scores, int(scores[0]) if same else None

    def constant_score(self, state: CycleState, pod: Pod) -> int | None:
        return self._template(pod)[1]

    def score(self, state: CycleState, pod: Pod, idx: np.ndarray) -> np.ndarray:
        return self._template(pod)[0][idx]
