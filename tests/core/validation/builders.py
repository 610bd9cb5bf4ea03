"""Builders for Pod manifests (dicts, as parsed from YAML) used by the validation tests.

``make_pod("p").gate("example.com/wait").node_selector("zone", "a").obj()`` builds a Pod;
every method returns a new builder, so one base pod can be varied per case.
"""
from __future__ import annotations

import copy
from typing import Any

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def req(key: str, operator: str, *values: Any) -> dict:
    """A node selector requirement; values are omitted for Exists/DoesNotExist."""
    out = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def term(*requirements: dict, fields: tuple = ()) -> dict:
    """A node selector term with matchExpressions (and optional matchFields)."""
    out: dict = {}
    if requirements:
        out["matchExpressions"] = list(requirements)
    if fields:
        out["matchFields"] = list(fields)
    return out


class PodBuilder:
    """Chainable, copy-on-write Pod manifest builder."""

    def __init__(self, manifest: dict) -> None:
        self._m = manifest

    def obj(self) -> dict:
        return copy.deepcopy(self._m)

    def _with(self, fn) -> "PodBuilder":
        m = copy.deepcopy(self._m)
        fn(m)
        return PodBuilder(m)

    def set(self, path: str, value: Any) -> "PodBuilder":
        """Set a dotted path (``spec.restartPolicy``); ``None`` removes it."""
        def apply(m: dict) -> None:
            *parents, last = path.split(".")
            node = m
            for p in parents:
                node = node.setdefault(p, {})
            if value is None:
                node.pop(last, None)
            else:
                node[last] = copy.deepcopy(value)
        return self._with(apply)

    def name(self, name: str) -> "PodBuilder":
        return self.set("metadata.name", name)

    def namespace(self, namespace: str) -> "PodBuilder":
        return self.set("metadata.namespace", namespace)

    def label(self, k: str, v: str) -> "PodBuilder":
        return self._with(lambda m: m["metadata"].setdefault("labels", {}).__setitem__(k, v))

    def gate(self, name: str) -> "PodBuilder":
        return self._with(lambda m: m["spec"].setdefault("schedulingGates", []).append({"name": name}))

    def node_selector(self, k: str, v: Any) -> "PodBuilder":
        return self._with(lambda m: m["spec"].setdefault("nodeSelector", {}).__setitem__(k, v))

    def required(self, *terms: dict) -> "PodBuilder":
        """Append required node affinity terms."""
        def apply(m: dict) -> None:
            na = m["spec"].setdefault("affinity", {}).setdefault("nodeAffinity", {})
            na.setdefault(REQUIRED, {}).setdefault("nodeSelectorTerms", []).extend(copy.deepcopy(terms))
        return self._with(apply)

    def preferred(self, weight: int, preference: dict) -> "PodBuilder":
        def apply(m: dict) -> None:
            na = m["spec"].setdefault("affinity", {}).setdefault("nodeAffinity", {})
            na.setdefault(PREFERRED, []).append({"weight": weight, "preference": copy.deepcopy(preference)})
        return self._with(apply)

    def pod_anti_affinity(self, topology_key: str, app: str) -> "PodBuilder":
        terms = [{"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": topology_key}]
        anti = {REQUIRED: terms}
        return self._with(lambda m: m["spec"].setdefault("affinity", {}).__setitem__("podAntiAffinity", anti))

    def toleration(self, key: str = "", operator: str = "Equal", value: str = "", effect: str = "",
                   seconds: int | None = None) -> "PodBuilder":
        t: dict = {"key": key, "operator": operator}
        if value:
            t["value"] = value
        if effect:
            t["effect"] = effect
        if seconds is not None:
            t["tolerationSeconds"] = seconds
        return self._with(lambda m: m["spec"].setdefault("tolerations", []).append(t))

    def container(self, name: str, image: str, **extra: Any) -> "PodBuilder":
        c = {"name": name, "image": image, **extra}
        return self._with(lambda m: m["spec"]["containers"].append(c))


def make_pod(name: str = "p", image: str = "registry.k8s.io/pause:3.10") -> PodBuilder:
    """A minimal Pod in namespace ``default`` with one container."""
    return PodBuilder({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "app", "image": image}]},
    })
