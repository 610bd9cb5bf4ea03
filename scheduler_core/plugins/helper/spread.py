"""The default spreading selector of a pod.

Mirrors kube-scheduler v1.34 ``pkg/scheduler/framework/plugins/helper/spread.go``
(DefaultSelector, GetPodServices): the labels of the Services selecting the pod, plus the
selector of the ReplicationController, ReplicaSet or StatefulSet that controls it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from ...k8s import labels as klabels
from ...k8s.types import OwnerReference, Pod, Service, Workload

# (apiVersion, kind) of the controllers DefaultSelector knows (spread.go rcKind/rsKind/ssKind).
RC_KIND = ("v1", "ReplicationController")
RS_KIND = ("apps/v1", "ReplicaSet")
SS_KIND = ("apps/v1", "StatefulSet")


@dataclass(frozen=True, slots=True)
class DefaultSelectorResult:
    """The selector and the objects that contributed to it ("Service default/web", ...)."""

    selector: klabels.Selector
    sources: tuple[str, ...]


def _values(objs: Iterable[Any] | Mapping[Any, Any] | None) -> Iterable[Any]:
    if objs is None:
        return ()
    return objs.values() if isinstance(objs, Mapping) else objs


def get_pod_services(pod: Pod, services: Iterable[Service]) -> list[Service]:
    """GetPodServices: Services in the pod's namespace whose selector matches its labels.

    A Service without a selector matches nothing (spread.go).
    """
    out = []
    for svc in _values(services):
        if svc.namespace != pod.namespace or not svc.selector:
            continue
        if klabels.selector_from_set(svc.selector).matches(pod.labels):
            out.append(svc)
    return out


def controller_of(pod: Pod) -> OwnerReference | None:
    """metav1.GetControllerOfNoCopy: the first owner reference with controller=true."""
    for ref in pod.owner_references:
        if ref.controller:
            return ref
    return None


def _find_workload(workloads: Iterable[Workload], kind: str, ns: str, name: str
                   ) -> Workload | None:
    for w in _values(workloads):
        if w.kind == kind and w.namespace == ns and w.name == name:
            return w
    return None


def default_selector_with_sources(pod: Pod, services: Iterable[Service],
                                  workloads: Iterable[Workload]) -> DefaultSelectorResult:
    """DefaultSelector, also naming the Services and controller that gave the selector."""
    label_set: dict[str, str] = {}
    sources: list[str] = []
    for svc in get_pod_services(pod, services):
        label_set.update(svc.selector)  # labels.Merge: later entries win
        sources.append(f"Service {svc.namespace}/{svc.name}")
    selector = klabels.selector_from_set(label_set)
    owner = controller_of(pod)
    if owner is None:
        return DefaultSelectorResult(selector, tuple(sources))
    gvk = (owner.api_version, owner.kind)
    if gvk not in (RC_KIND, RS_KIND, SS_KIND):
        return DefaultSelectorResult(selector, tuple(sources))
    w = _find_workload(workloads, owner.kind, pod.namespace, owner.name)
    if w is None:
        return DefaultSelectorResult(selector, tuple(sources))
    sources.append(f"{w.kind} {w.namespace}/{w.name}")
    if gvk == RC_KIND:
        # the RC's map selector is merged into the Services' label set, then re-compiled
        rc_labels = dict(w.selector.match_labels) if w.selector is not None else {}
        selector = klabels.selector_from_set({**label_set, **rc_labels})
    elif w.selector is not None:
        # a nil selector compiles to Nothing, whose requirements are not added
        other = klabels.selector_from_label_selector(w.selector)
        selector = selector.add(*other.requirements)
    return DefaultSelectorResult(selector, tuple(sources))


def default_selector(pod: Pod, services: Iterable[Service],
                     workloads: Iterable[Workload]) -> klabels.Selector:
    """DefaultSelector (helper/spread.go): the selector deduced from the pod's Services
    and its controlling ReplicationController, ReplicaSet or StatefulSet."""
    return default_selector_with_sources(pod, services, workloads).selector
