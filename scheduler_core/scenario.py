"""Kubernetes manifests -> a Scenario value.

A scenario is what ``kubectl get ... -o yaml`` prints (a ``List`` or multi-document
YAML, or JSON): Nodes, Pods, Services, ReplicationControllers, ReplicaSets,
StatefulSets, PriorityClasses, PodDisruptionBudgets, Namespaces and at most one
KubeSchedulerConfiguration. Bad input raises ``ScenarioError`` naming the file, the
object and the field; unknown kinds become warnings. Priority is resolved as the
Priority admission plugin does (plugin/pkg/admission/priority/admission.go, v1.34).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from . import config as sconfig
from .errors import ScenarioError
from .k8s import manifests as mf
from .k8s import types as t
from .k8s.decode import Decoder
from .k8s.defaults import DEFAULT_NAMESPACE, namespace_labels
from .scenario_io import read_documents
from .workloads import expand_workloads, replica_set_for
from .columnar import kernels

# Built-in PriorityClasses every cluster has (pkg/apis/scheduling/types.go).
SYSTEM_PRIORITY_CLASSES = {
    "system-node-critical": t.PriorityClass("system-node-critical", 2000001000),
    "system-cluster-critical": t.PriorityClass("system-cluster-critical", 2000000000),
}
WORKLOAD_KINDS = ("ReplicationController", "ReplicaSet", "StatefulSet")
IGNORED_KINDS: tuple[str, ...] = ()
CONFIG_KIND = "KubeSchedulerConfiguration"
NAMESPACED = {"Pod", "Service", "ReplicationController", "ReplicaSet", "StatefulSet",
              "PodDisruptionBudget", "Deployment"}


@dataclass(frozen=True)
class Scenario:
    """Everything the engine reads, as frozen values (pods in file order)."""

    nodes: tuple[t.Node, ...] = ()
    pods: tuple[t.Pod, ...] = ()
    services: tuple[t.Service, ...] = ()
    workloads: tuple[t.Workload, ...] = ()
    priority_classes: Mapping[str, t.PriorityClass] = field(default_factory=dict)
    pdbs: tuple[t.PodDisruptionBudget, ...] = ()
    namespaces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    config: sconfig.SchedulerConfiguration = field(
        default_factory=sconfig.default_configuration)
    warnings: tuple[str, ...] = ()
    source: str = "scenario.yaml"

    def pod(self, key: str) -> t.Pod | None:
        """The pod named ``namespace/name``, or None."""
        for p in self.pods:
            if p.key == key:
                return p
        return None


def load_scenario_file(path: str | Path, config_path: str | Path | None = None) -> Scenario:
    """Read a scenario (and optionally a separate KubeSchedulerConfiguration) from disk."""
    text = _read_text(str(path))
    config_text = _read_text(str(config_path)) if config_path is not None else None
    return load_scenario(text, str(path), config_text,
                         str(config_path) if config_path is not None else "config.yaml")


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(path, "", "", "no such file") from None
    except IsADirectoryError:
        raise ScenarioError(path, "", "", "is a directory") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ScenarioError(path, "", "", f"cannot read: {e}") from None


def load_scenario(text: str, filename: str = "scenario.yaml", config_text: str | None = None,
                  config_filename: str = "config.yaml", parsed: list | None = None) -> Scenario:
    """Parse manifests (and an optional separate configuration) into a Scenario;
    ``parsed``: the text's documents from ``scenario_io.parse_fast``, if already read."""
    try:
        builder = _Builder(filename)
        for doc in read_documents(text, filename, parsed):
            builder.add(doc)
        return builder.build(config_text, config_filename)
    except RecursionError:
        raise ScenarioError(filename, "", "", "objects are nested too deeply") from None


class _Builder:
    """Collects decoded objects document by document, then resolves cross references."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.order = 0
        self.seen: set[tuple[str, str, str]] = set()
        self.nodes: list[t.Node] = []
        self.raw_pods: list[tuple[int, Decoder, t.Pod]] = []
        self.services: list[t.Service] = []
        self.workloads: list[tuple[int, t.Workload, float]] = []
        self.deployments: list[tuple[int, t.Workload, float]] = []
        self.deployment_owned: set[tuple[str, str]] = set()  # (namespace, Deployment name)
        self.classes: dict[str, t.PriorityClass] = {}
        self.pdbs: list[t.PodDisruptionBudget] = []
        self.namespaces: dict[str, dict[str, str]] = {}
        self.config_doc: dict | None = None
        self.warnings: list[str] = []
        self.memo: dict = {}  # Decoder.interned: repeated manifest values decoded once

    def add(self, doc: dict) -> None:
        """Decode one document and dispatch it by kind (unknown kinds warn)."""
        self.order += 1
        kind = doc.get("kind")
        if kind is None:
            raise ScenarioError(self.file, f"object #{self.order}", "kind", "Required value")
        if not isinstance(kind, str):
            raise ScenarioError(self.file, f"object #{self.order}", "kind", "must be a string")
        if kind == CONFIG_KIND:
            return self._add_config(doc)
        handler = _HANDLERS.get(kind)
        if handler is None:
            if kind not in IGNORED_KINDS:
                self.warnings.append(f"{self.file}: ignoring object #{self.order} of unsupported "
                                     f"kind {kind!r}")
            return
        d, name, ns = self._identify(kind, doc)
        handler(self, d, doc, name, ns)

    def _identify(self, kind: str, doc: dict) -> tuple[Decoder, str, str]:
        meta = doc.get("metadata")
        d0 = Decoder(self.file, f"{kind} #{self.order}")
        meta = d0.obj(meta, "metadata")
        name = d0.str(meta.get("name"), "metadata.name")
        if not name:
            raise d0.fail("metadata.name", "Required value: name or generateName is required")
        ns = ""
        if kind in NAMESPACED:
            ns = sys.intern(d0.str(meta.get("namespace"), "metadata.namespace")
                            or DEFAULT_NAMESPACE)
            self.namespaces.setdefault(ns, namespace_labels(ns))
        label = f"{kind} {ns}/{name}" if ns else f"{kind} {name}"
        if (kind, ns, name) in self.seen:
            raise ScenarioError(self.file, label, "metadata.name",
                                f"duplicate object: {label} appears more than once")
        self.seen.add((kind, ns, name))
        return Decoder(self.file, label, self.memo), name, ns

    def _add_config(self, doc: dict) -> None:
        if self.config_doc is not None:
            raise ScenarioError(self.file, CONFIG_KIND, "",
                                "at most one KubeSchedulerConfiguration may be given")
        self.config_doc = doc

    def build(self, config_text: str | None, config_filename: str) -> Scenario:
        """Resolve priorities, drop unschedulable pods, expand workloads: the Scenario."""
        cfg, cfg_warnings = self._configuration(config_text, config_filename)
        classes = {**SYSTEM_PRIORITY_CLASSES, **self.classes}
        pods = [(o, d, _resolve_priority(d, p, classes)) for o, d, p in self.raw_pods]
        workloads = [(o, replace(w, template=_resolve_template(w, classes, self.file)), ts)
                     for o, w, ts in self.workloads + self._deployment_replica_sets()]
        pods = self._keep_schedulable(pods)
        ordered = expand_workloads(pods, workloads, self.file)
        final = tuple(t.replace_pod(p, file_index=i) for i, p in enumerate(ordered))
        if len(self.nodes) >= kernels.MIN_NODES:
            kernels.warm()  # a large cluster runs compiled loops: get them ready now
        return Scenario(
            nodes=tuple(self.nodes), pods=final, services=tuple(self.services),
            workloads=tuple(w for _, w, _ in workloads), priority_classes=dict(self.classes),
            pdbs=tuple(self.pdbs), namespaces=self.namespaces, config=cfg,
            warnings=tuple(self.warnings + cfg_warnings), source=self.file)

    def _configuration(self, config_text: str | None, config_filename: str):
        if config_text is not None:
            docs = [d for d in read_documents(config_text, config_filename)]
            docs = [d for d in docs if d.get("kind") == CONFIG_KIND] or docs
            if len(docs) != 1:
                raise ScenarioError(config_filename, CONFIG_KIND, "",
                                    "expected exactly one KubeSchedulerConfiguration")
            return sconfig.parse_configuration(docs[0], config_filename)
        if self.config_doc is not None:
            return sconfig.parse_configuration(self.config_doc, self.file)
        return sconfig.default_configuration(), []

    def _deployment_replica_sets(self) -> list[tuple[int, t.Workload, float]]:
        """A Deployment without a ReplicaSet in the scenario gets the one its controller
        would create (``<name>-<pod-template-hash>``), so scaling it is a what-if."""
        return [(o, replica_set_for(w), ts) for o, w, ts in self.deployments
                if (w.namespace, w.name) not in self.deployment_owned]

    def _keep_schedulable(self, pods: list) -> list[tuple[int, t.Pod]]:
        """Drop finished pods and pods bound to unknown nodes (with a warning)."""
        node_names = {n.name for n in self.nodes}
        out = []
        for order, d, p in pods:
            if p.phase in ("Succeeded", "Failed"):
                continue
            if p.node_name and p.node_name not in node_names:
                self.warnings.append(f"{self.file}: {d.label}: spec.nodeName: node "
                                     f"{p.node_name!r} is not in the scenario; pod ignored")
                continue
            out.append((order, p))
        return out

    # --- per kind ----------------------------------------------------------------------
    def _node(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        self.nodes.append(t.Node(name=name, file_index=len(self.nodes),
                                 **mf.read_node_fields(d, doc)))

    def _pod(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        fields = mf.read_pod_meta(d, doc.get("metadata"), "metadata")
        fields.update(mf.read_pod_spec(d, doc.get("spec"), "spec"))
        status = d.obj(doc.get("status"), "status")
        fields["nominated_node_name"] = d.str(status.get("nominatedNodeName"),
                                              "status.nominatedNodeName")
        fields["phase"] = d.str(status.get("phase"), "status.phase") or "Pending"
        if fields["node_name"] and fields["scheduling_gates"]:
            raise d.fail("spec.nodeName", "Forbidden: cannot be set until all schedulingGates "
                         "have been cleared")
        self.raw_pods.append((self.order, d, _raw_pod(name, ns, fields)))

    def _service(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        spec = d.obj(doc.get("spec"), "spec")
        self.services.append(t.Service(name, ns, d.str_map(spec.get("selector"),
                                                           "spec.selector")))

    def _workload(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        kind = doc["kind"]
        meta = d.obj(doc.get("metadata"), "metadata")
        spec = d.obj(doc.get("spec"), "spec")
        if kind == "ReplicationController":
            sel = spec.get("selector")
            selector = t.LabelSelector(d.str_map(sel, "spec.selector")) if sel else None
        else:
            selector = mf.read_label_selector(d, spec.get("selector"), "spec.selector")
        replicas = d.int(spec.get("replicas"), "spec.replicas", 1)  # API default 1
        if replicas < 0:
            raise d.fail("spec.replicas", f"Invalid value: {replicas}: must be greater than "
                         "or equal to 0")
        template = self._template(d, spec.get("template"), ns)
        if kind == "ReplicationController" and selector is None and template is not None:
            selector = t.LabelSelector(dict(template.labels))  # RC defaults to template labels
        w = t.Workload(kind, name, ns, d.str(meta.get("uid"), "metadata.uid"), selector,
                       replicas, template)
        entry = (self.order, w, d.time(meta.get("creationTimestamp"), "metadata.creationTimestamp"))
        if kind == "Deployment":
            self.deployments.append(entry)
            return
        for ref in mf.read_pod_meta(d, meta, "metadata")["owner_references"]:
            if ref.kind == "Deployment":
                self.deployment_owned.add((ns, ref.name))
        self.workloads.append(entry)

    def _template(self, d: Decoder, v: Any, ns: str) -> t.Pod | None:
        if v is None:
            return None
        tpl = d.obj(v, "spec.template")
        fields = mf.read_pod_meta(d, tpl.get("metadata"), "spec.template.metadata")
        fields.update(mf.read_pod_spec(d, tpl.get("spec"), "spec.template.spec"))
        fields["creation_timestamp"] = 0.0
        return _raw_pod("", ns, fields)

    def _priority_class(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        if doc.get("value") is None:
            raise d.fail("value", "Required value")
        self.classes[name] = t.PriorityClass(
            name, d.int(doc.get("value"), "value"),
            d.bool(doc.get("globalDefault"), "globalDefault"),
            d.enum(doc.get("preemptionPolicy"), "preemptionPolicy", mf.PREEMPTION_POLICIES,
                   t.PREEMPT_LOWER_PRIORITY))

    def _pdb(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        spec = d.obj(doc.get("spec"), "spec")
        status = d.obj(doc.get("status"), "status")
        self.pdbs.append(t.PodDisruptionBudget(
            name, ns, mf.read_label_selector(d, spec.get("selector"), "spec.selector"),
            _int_or_percent(d, spec.get("minAvailable"), "spec.minAvailable"),
            _int_or_percent(d, spec.get("maxUnavailable"), "spec.maxUnavailable"),
            d.int(status.get("disruptionsAllowed"), "status.disruptionsAllowed")
            if "disruptionsAllowed" in status else None))

    def _namespace(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        meta = d.obj(doc.get("metadata"), "metadata")
        self.namespaces[name] = namespace_labels(name, d.str_map(meta.get("labels"),
                                                                 "metadata.labels"))


_HANDLERS = {
    "Node": _Builder._node, "Pod": _Builder._pod, "Service": _Builder._service,
    "ReplicationController": _Builder._workload, "ReplicaSet": _Builder._workload,
    "StatefulSet": _Builder._workload, "Deployment": _Builder._workload,
    "PriorityClass": _Builder._priority_class,
    "PodDisruptionBudget": _Builder._pdb, "Namespace": _Builder._namespace,
}


def _raw_pod(name: str, ns: str, fields: dict) -> t.Pod:
    """A Pod whose priority / preemption policy may still be unresolved (None)."""
    fields = dict(fields)
    prio, policy = fields.pop("priority"), fields.pop("preemption_policy")
    pod = t.Pod(name=name, namespace=ns, **fields)
    object.__setattr__(pod, "priority", prio)
    object.__setattr__(pod, "preemption_policy", policy)
    return pod


def _resolve_priority(d: Decoder, pod: t.Pod, classes: Mapping[str, t.PriorityClass],
                      spec_path: str = "spec") -> t.Pod:
    """Priority admission: spec.priority, else the named class, else the global default."""
    prio, policy = pod.priority, pod.preemption_policy
    cls = None
    if pod.priority_class_name:
        cls = classes.get(pod.priority_class_name)
        if cls is None and prio is None:
            raise d.fail(f"{spec_path}.priorityClassName",
                         f"no PriorityClass with name {pod.priority_class_name} was found")
    else:
        cls = next((c for c in classes.values() if c.global_default), None)
    if prio is None:
        prio = cls.value if cls else 0
    if policy is None:
        policy = cls.preemption_policy if cls else t.PREEMPT_LOWER_PRIORITY
    return t.replace_pod(pod, priority=prio, preemption_policy=policy)


def _resolve_template(w: t.Workload, classes: Mapping[str, t.PriorityClass],
                      file: str) -> t.Pod | None:
    if w.template is None:
        return None
    d = Decoder(file, f"{w.kind} {w.namespace}/{w.name}")
    return _resolve_priority(d, w.template, classes, "spec.template.spec")


def _int_or_percent(d: Decoder, v: Any, path: str) -> int | str | None:
    if v is None or isinstance(v, str):
        return v
    return d.int(v, path)
