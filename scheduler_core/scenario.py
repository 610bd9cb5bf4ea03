"""Kubernetes manifests -> a Scenario value.

A scenario is what ``kubectl get ... -o yaml`` prints (a ``List`` or multi-document
YAML, or JSON; typed lists such as ``NodeList`` too): Nodes, Pods, Services,
ReplicationControllers, ReplicaSets, StatefulSets, Deployments, DaemonSets,
PriorityClasses, PodDisruptionBudgets, Namespaces and at most one
KubeSchedulerConfiguration. Bad input raises ``ScenarioError`` naming the file, the
object and the field; unknown kinds become one warning per kind, and the load's summary
(``Scenario.summary``) says what was read, ignored and added. Priority is resolved as the
Priority admission plugin does (plugin/pkg/admission/priority/admission.go, v1.34).
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from . import config as sconfig
from .errors import ScenarioError
from .k8s import labels as klabels
from .k8s import manifests as mf
from .k8s import types as t
from .k8s.decode import Decoder
from .k8s.defaults import DEFAULT_NAMESPACE, namespace_labels
from . import api_versions, daemonsets
from .load_report import LoadReport
from .scenario_io import (ReadAgain, decode_bytes, read_documents, stream_documents,
                          without_cycle_collection)
from .storage_scenario import STORAGE_KINDS, StorageBuilder
from .k8s.storage import StorageObjects
from .workloads import expand_workloads, pods_by_replica_set, replica_set_for
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
              "PodDisruptionBudget", "Deployment", "DaemonSet", "PersistentVolumeClaim"}
# Why an object of a kind the engine does not read is left out (summary and warning).
NOT_READ = "kind not read by the scheduler"
# apps/v1 workloads: spec.selector is required and must select the template's labels.
SELECTOR_REQUIRED = ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")


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
    # what the load did (load_report.LoadReport.summary): objects read and ignored per
    # kind and why, pods added by workloads and DaemonSets, the warnings
    summary: Mapping[str, Any] = field(default_factory=dict)
    storage: StorageObjects = field(default_factory=StorageObjects)  # volumes and claims

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
        return decode_bytes(Path(path).read_bytes(), path)
    except FileNotFoundError:
        raise ScenarioError(path, "", "", "no such file") from None
    except IsADirectoryError:
        raise ScenarioError(path, "", "", "is a directory") from None
    except OSError as e:
        raise ScenarioError(path, "", "", f"cannot read: {e}") from None


def load_scenario(text: str, filename: str = "scenario.yaml", config_text: str | None = None,
                  config_filename: str = "config.yaml", parsed: list | None = None,
                  decoded: DecodedDocuments | None = None, warm: bool = True) -> Scenario:
    """Parse manifests (and an optional separate configuration) into a Scenario;
    ``parsed``: the text's documents from ``scenario_io.parse_fast``, if already read.

    ``decoded`` (with ``parsed``): what an earlier load of documents decoded, by document
    identity; the Node and Pod documents it holds are taken over, not decoded again, and it
    then holds this load's. For a caller whose documents are never changed in place, only
    replaced: a quick edit that copies the objects it changes, and only those, then costs a
    load the decoding of those alone.

    ``warm``: a large cluster's compiled loops are made ready as part of loading it; False
    for a caller that checks scenarios without running them (the web app's web process)."""
    try:
        with without_cycle_collection():
            seen = decoded if parsed is not None and decoded is not None else None
            builder = _streamed(text, filename) if parsed is None else None
            if builder is None:
                builder = _Builder(filename, seen)
                for doc in read_documents(text, filename, parsed):
                    builder.add(doc)
            scenario = builder.build(config_text, config_filename, warm)
            if seen is not None:
                seen.take(builder.decoded)
            return scenario
    except RecursionError:
        raise ScenarioError(filename, "", "", "objects are nested too deeply") from None


def _streamed(text: str, filename: str) -> _Builder | None:
    """A builder given a large List's objects while its chunks are still being read
    (scenario_io.stream_documents); None when the text is not streamed, or when the stream
    asks for the text to be read again whole (scenario_io.ReadAgain). An object's error is
    raised only once the rest of the text is read, so that the text's own error, when it has
    one, comes first, as when the text is read before its objects."""
    docs = stream_documents(text, filename)
    if docs is None:
        return None
    builder = _Builder(filename, None)
    try:
        try:
            for doc in docs:
                builder.add(doc)
        except (ScenarioError, RecursionError):  # (anything else, such as a time limit, at once)
            docs.finish()
            raise
    except ReadAgain:
        return None
    finally:
        docs.close()
    return builder


class DecodedDocuments:
    """What a load decoded from each Node and Pod document, by the document's identity
    (each entry holds its document, so an id is never another object's): a Node's
    constructor fields, a Pod as read (priority unresolved); and that load's
    ``Decoder.interned`` values, so that a pod decoded again shares its template's values
    with the pods taken over (the columnar fast path matches templates by identity).
    It holds the documents of the latest load given it: ``clear`` lets them go."""

    MEMO_MAX = 200_000  # interned values carried from load to load, at most

    def __init__(self, file: str = "", memo: dict | None = None) -> None:
        self.file = file
        self.by_id: dict[int, tuple[dict, Any]] = {}
        self.memo: dict = memo if memo is not None and len(memo) <= self.MEMO_MAX else {}

    def get(self, doc: dict, file: str) -> Any:
        hit = self.by_id.get(id(doc)) if file == self.file else None
        return hit[1] if hit is not None and hit[0] is doc else None

    def put(self, doc: dict, value: Any) -> None:
        self.by_id[id(doc)] = (doc, value)

    def take(self, other: DecodedDocuments) -> None:
        self.file, self.by_id, self.memo = other.file, other.by_id, other.memo

    def clear(self) -> None:
        self.take(DecodedDocuments())

    def __len__(self) -> int:
        return len(self.by_id)

    # A pickle holds the documents with what they decoded to; pickled together with the
    # documents themselves (one pickle keeps one object one object), it comes back keyed
    # by their new identities.
    def __getstate__(self) -> tuple:
        return self.file, list(self.by_id.values()), self.memo

    def __setstate__(self, state: tuple) -> None:
        self.file, entries, self.memo = state
        self.by_id = {id(doc): (doc, value) for doc, value in entries}


class _Builder:
    """Collects decoded objects document by document, then resolves cross references."""

    def __init__(self, file: str, seen: DecodedDocuments | None = None) -> None:
        self.file = file
        self.seen_before = seen  # a previous load's decoded documents, to take over
        self.decoded = DecodedDocuments(file, seen.memo if seen is not None and seen.file == file else None)
        self.order = 0
        self.seen: set[tuple[str, str, str]] = set()
        self.nodes: list[t.Node] = []
        self.raw_pods: list[tuple[int, Decoder, t.Pod]] = []
        self.services: list[t.Service] = []
        self.workloads: list[tuple[int, t.Workload, float]] = []
        self.deployments: list[tuple[int, t.Workload, float]] = []
        self.deployment_owned: set[tuple[str, str]] = set()  # (namespace, Deployment name)
        self.daemon_sets: list[tuple[int, t.Workload, float]] = []
        self.host_network: set[tuple[str, str]] = set()  # DaemonSets with hostNetwork
        self.classes: dict[str, t.PriorityClass] = {}
        self.pdbs: list[t.PodDisruptionBudget] = []
        self.namespaces: dict[str, dict[str, str]] = {}
        self.config_doc: dict | None = None
        self.report = LoadReport(file)
        self.removed: dict[tuple[str, str], list[str]] = {}  # (apiVersion, kind) -> objects
        self.memo: dict = self.decoded.memo  # Decoder.interned: repeated manifest values decoded once
        self.storage = StorageBuilder(file)

    def add(self, doc: dict) -> None:
        """Decode one document and dispatch it by kind (unknown kinds warn)."""
        self.order += 1
        kind = doc.get("kind")
        if kind is None:
            name = _object_name(doc)
            raise ScenarioError(self.file, f"object #{self.order}" + (f" ({name})" if name else ""),
                                "kind", "Required value")
        if not isinstance(kind, str):
            raise ScenarioError(self.file, f"object #{self.order}", "kind", "must be a string")
        if kind == CONFIG_KIND:
            return self._add_config(doc)
        handler = _HANDLERS.get(kind)
        if handler is None and kind in STORAGE_KINDS:
            d, name, ns = self._identify(kind, doc)
            self.report.count_read(kind)
            return self.storage.add(kind, d, doc, name, ns)
        if handler is None:
            self.report.ignore(kind, NOT_READ, _object_name(doc), warn=kind not in IGNORED_KINDS)
            return
        d, name, ns = self._identify(kind, doc)
        self.report.count_read(kind)
        api_version = doc.get("apiVersion")
        if isinstance(api_version, str) and api_versions.removed(api_version, kind):
            self.removed.setdefault((api_version, kind), []).append(f"{ns}/{name}" if ns else name)
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
        self.report.count_read(CONFIG_KIND)
        if self.config_doc is not None:
            raise ScenarioError(self.file, CONFIG_KIND, "",
                                "at most one KubeSchedulerConfiguration may be given")
        self.config_doc = doc

    def build(self, config_text: str | None, config_filename: str, warm: bool = True) -> Scenario:
        """Resolve priorities, drop unschedulable pods, expand workloads: the Scenario."""
        cfg, cfg_warnings = self._configuration(config_text, config_filename)
        classes = {**SYSTEM_PRIORITY_CLASSES, **self.classes}
        # Each pod is given its position in the file's pods as its index; the pods keep it
        # when the final order is the same (nothing dropped or added before them, the usual
        # case), so that most pods are copied once rather than twice.
        pods = [(o, d, _resolve_priority(d, p, classes, file_index=k))
                for k, (o, d, p) in enumerate(self.raw_pods)]
        workloads = [(o, replace(w, template=_resolve_template(w, classes, self.file)), ts)
                     for o, w, ts in self.workloads + self._deployment_replica_sets()]
        pods = self._keep_schedulable(pods)
        daemon_pods = self._daemon_set_pods(classes, [p for _, p in pods])
        ordered = expand_workloads(pods, workloads, daemon_pods, self.file)
        final = tuple(p if p.file_index == i else t.replace_pod(p, file_index=i)
                      for i, p in enumerate(ordered))
        self._report_added(ordered)
        self._foreign_schedulers(final, cfg)
        self._removed_versions()
        final, storage = self.storage.finish(final)
        for warning in self.storage.warnings:
            self.report.warn(warning)
        if warm and len(self.nodes) >= kernels.MIN_NODES:
            kernels.warm()  # a large cluster runs compiled loops: get them ready now
        warnings = tuple(self.report.ignored_warnings() + self.report.warnings + cfg_warnings)
        return Scenario(
            nodes=tuple(self.nodes), pods=final, services=tuple(self.services),
            workloads=tuple(w for _, w, _ in workloads), priority_classes=dict(self.classes),
            pdbs=tuple(self.pdbs), namespaces=self.namespaces, config=cfg,
            warnings=warnings, source=self.file, summary=self.report.summary(warnings),
            storage=storage)

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
        keeps (``<name>-<pod-template-hash>``): the hash of its running pods' ReplicaSet
        when the file has such pods, so they count as its replicas; so scaling it is a
        what-if and no replica is added twice."""
        orphans = [w for _, w, _ in self.deployments
                   if (w.namespace, w.name) not in self.deployment_owned]
        by_rs = pods_by_replica_set(p for _, _, p in self.raw_pods
                                    if orphans and p.phase not in ("Succeeded", "Failed"))
        return [(o, replica_set_for(w, by_rs.get(w.namespace)), ts)
                for o, w, ts in self.deployments
                if (w.namespace, w.name) not in self.deployment_owned]

    def _keep_schedulable(self, pods: list) -> list[tuple[int, t.Pod]]:
        """Drop finished pods and pods bound to nodes the file lacks (one warning per
        node); a file whose pods are bound but that has no node at all is refused."""
        node_names = {n.name for n in self.nodes}
        out, orphans = [], {}
        for order, d, p in pods:
            if p.phase in ("Succeeded", "Failed"):
                self.report.ignore("Pod", f"phase {p.phase}: a finished pod holds no "
                                   "resources", p.key, warn=False)
                continue
            if p.node_name and p.node_name not in node_names:
                orphans.setdefault(p.node_name, []).append(p.key)
                self.report.ignore("Pod", "bound to a node that is not in the file", p.key,
                                   warn=False)
                continue
            out.append((order, p))
        if orphans and not self.nodes:
            count = sum(len(v) for v in orphans.values())
            raise ScenarioError(self.file, "", "", f"the file has {count} pod(s) bound to "
                                f"nodes ({', '.join(sorted(orphans)[:3])}"
                                f"{', ...' if len(orphans) > 3 else ''}) but no Node objects: "
                                "add the nodes (kubectl get nodes -o yaml) to simulate")
        for node, keys in orphans.items():
            self.report.warn_group("Pod", keys, len(keys), "spec.nodeName",
                                   f"node {node!r} is not in the scenario; "
                                   + ("pod ignored" if len(keys) == 1
                                      else f"{len(keys)} pods ignored"))
        return out

    def _daemon_set_pods(self, classes: Mapping[str, t.PriorityClass], pods: list[t.Pod]
                         ) -> list[tuple[int, list[t.Pod]]]:
        """Each DaemonSet's pods for the eligible nodes that lack one (daemonsets.py)."""
        out = []
        for order, ds, ts in self.daemon_sets:
            ds = replace(ds, template=_resolve_template(ds, classes, self.file))
            host_network = (ds.namespace, ds.name) in self.host_network
            out.append((order, daemonsets.missing_pods(ds, ts, self.nodes, pods, host_network)))
        return out

    def _report_added(self, ordered: list[t.Pod]) -> None:
        """Count the pods the engine created, per owner."""
        counts: dict[str, int] = {}
        for p in ordered:
            if p.uid.startswith("generated-") and p.owner_references:
                ref = p.owner_references[0]
                owner = f"{ref.kind} {p.namespace}/{ref.name}"
                counts[owner] = counts.get(owner, 0) + 1
        for owner, n in counts.items():
            self.report.add(owner, n)

    def _foreign_schedulers(self, pods: tuple[t.Pod, ...], cfg) -> None:
        """Pending pods whose schedulerName matches no profile: kube-scheduler never
        takes them (another scheduler's), one warning per scheduler name."""
        foreign: dict[str, list[str]] = {}
        for p in pods:
            if not p.node_name and p.scheduler_name not in cfg.profiles:
                foreign.setdefault(p.scheduler_name, []).append(p.key)
        for name, keys in foreign.items():
            reason = f"schedulerName {name!r} matches no profile: another scheduler's pod"
            for key in keys:
                self.report.ignore("Pod", reason, key, warn=False)
            self.report.warn_group("Pod", keys, len(keys), "spec.schedulerName",
                                   f"{name!r} matches no profile of the configuration; "
                                   "kube-scheduler leaves the pod to that scheduler, so it is "
                                   "not simulated (listed under \"ignored\")")

    def _removed_versions(self) -> None:
        for (api_version, kind), names in self.removed.items():
            release, current = api_versions.removed(api_version, kind)
            self.report.warn_group(kind, names, len(names), "apiVersion",
                                   f"{api_version} is no longer served since Kubernetes "
                                   f"{release} (kube-apiserver v1.34 refuses it); read as "
                                   f"{current}")

    # --- per kind ----------------------------------------------------------------------
    def _taken_over(self, doc: dict) -> Any:
        """What the previous load decoded from this very document, else None."""
        return self.seen_before.get(doc, self.file) if self.seen_before is not None else None

    def _node(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        fields = self._taken_over(doc)
        if fields is None:
            fields = mf.read_node_fields(d, doc)
        self.decoded.put(doc, fields)
        self.nodes.append(t.Node(name=name, file_index=len(self.nodes), **fields))

    def _pod(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        pod = self._taken_over(doc)
        if pod is None:
            pod = self._read_pod(d, doc, name, ns)
        self.decoded.put(doc, pod)
        self.raw_pods.append((self.order, d, pod))

    def _read_pod(self, d: Decoder, doc: dict, name: str, ns: str) -> t.Pod:
        fields = mf.read_pod_meta(d, doc.get("metadata"), "metadata")
        fields.update(mf.read_pod_spec(d, doc.get("spec"), "spec"))
        status = d.obj(doc.get("status"), "status")
        fields["nominated_node_name"] = d.str(status.get("nominatedNodeName"),
                                              "status.nominatedNodeName")
        fields["phase"] = d.str(status.get("phase"), "status.phase") or "Pending"
        if status.get("startTime") is not None:  # GetPodStartTime reads it (preemption)
            fields["start_time"] = d.time(status.get("startTime"), "status.startTime")
        if status.get("conditions") is not None:
            fields["disruption_target_reason"] = mf.read_disruption_target(
                d, status.get("conditions"), "status.conditions")
        if fields["node_name"] and fields["scheduling_gates"]:
            raise d.fail("spec.nodeName", "Forbidden: cannot be set until all schedulingGates "
                         "have been cleared")
        return _raw_pod(name, ns, fields)

    def _service(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        spec = d.obj(doc.get("spec"), "spec")
        self.services.append(t.Service(name, ns, mf._labels(d, spec.get("selector"),
                                                            "spec.selector")))

    def _workload(self, d: Decoder, doc: dict, name: str, ns: str) -> None:
        kind = doc["kind"]
        meta = d.obj(doc.get("metadata"), "metadata")
        spec = d.obj(doc.get("spec"), "spec")
        if kind == "ReplicationController":
            sel = spec.get("selector")
            selector = t.LabelSelector(mf._labels(d, sel, "spec.selector")) if sel else None
        else:
            selector = mf.read_label_selector(d, spec.get("selector"), "spec.selector")
        replicas = d.int(spec.get("replicas"), "spec.replicas", 1)  # API default 1
        if replicas < 0:
            raise d.fail("spec.replicas", f"Invalid value: {replicas}: must be greater than "
                         "or equal to 0")
        template = self._template(d, spec.get("template"), ns)
        if kind == "ReplicationController" and selector is None and template is not None:
            selector = t.LabelSelector(dict(template.labels))  # RC defaults to template labels
        selector = self._check_selector(d, doc, selector, template)
        w = t.Workload(kind, name, ns, d.str(meta.get("uid"), "metadata.uid"), selector,
                       replicas, template)
        if kind == "StatefulSet" and spec.get("volumeClaimTemplates") is not None:
            w = replace(w, volume_claim_templates=self.storage.claim_templates(d, spec, ns, name))
        entry = (self.order, w, d.time(meta.get("creationTimestamp"), "metadata.creationTimestamp"))
        if kind == "Deployment":
            self.deployments.append(entry)
            return
        if kind == "DaemonSet":
            self.daemon_sets.append(entry)
            tpl = spec.get("template") or {}
            if isinstance(tpl, dict) and (tpl.get("spec") or {}).get("hostNetwork") is True:
                self.host_network.add((ns, name))
            return
        for ref in mf.read_pod_meta(d, meta, "metadata")["owner_references"]:
            if ref.kind == "Deployment":
                self.deployment_owned.add((ns, ref.name))
        self.workloads.append(entry)

    def _check_selector(self, d: Decoder, doc: dict, selector: t.LabelSelector | None,
                        template: t.Pod | None) -> t.LabelSelector | None:
        """apps/v1 validation (ValidateDeploymentSpec and its siblings): a selector is
        required, not empty, and selects the template's labels. The removed versions
        that defaulted it from the template's labels still do (with their warning)."""
        kind, api_version = doc["kind"], doc.get("apiVersion")
        if kind not in SELECTOR_REQUIRED or template is None:
            return selector
        if selector is None and api_version in api_versions.SELECTOR_FROM_TEMPLATE:
            return t.LabelSelector(dict(template.labels))
        if api_version != "apps/v1" and not api_versions.removed(str(api_version), kind):
            return selector  # no apiVersion: read as written
        if selector is None:
            raise d.fail("spec.selector", "Required value")
        if not selector.match_labels and not selector.match_expressions:
            raise d.fail("spec.selector", "Invalid value: {}: empty selector is invalid for "
                         f"{kind.lower()}")
        if not klabels.selector_from_label_selector(selector).matches(template.labels):
            raise d.fail("spec.template.metadata.labels", "Invalid value: "
                         f"{dict(template.labels)}: `selector` does not match template `labels`")
        return selector

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
    "DaemonSet": _Builder._workload,
    "PriorityClass": _Builder._priority_class,
    "PodDisruptionBudget": _Builder._pdb, "Namespace": _Builder._namespace,
}


def _object_name(doc: dict) -> str:
    """``ns/name`` or ``name`` of a raw object, for naming it in a warning ("" if none)."""
    meta = doc.get("metadata")
    if not isinstance(meta, dict):
        return ""
    name, ns = meta.get("name"), meta.get("namespace")
    if not isinstance(name, str):
        return ""
    return f"{ns}/{name}" if isinstance(ns, str) and ns else name


def _raw_pod(name: str, ns: str, fields: dict) -> t.Pod:
    """A Pod whose priority / preemption policy may still be unresolved (None)."""
    fields = dict(fields)
    prio, policy = fields.pop("priority"), fields.pop("preemption_policy")
    pod = t.Pod(name=name, namespace=ns, **fields)
    object.__setattr__(pod, "priority", prio)
    object.__setattr__(pod, "preemption_policy", policy)
    return pod


def _resolve_priority(d: Decoder, pod: t.Pod, classes: Mapping[str, t.PriorityClass],
                      spec_path: str = "spec", file_index: int | None = None) -> t.Pod:
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
    if file_index is None:
        return t.replace_pod(pod, priority=prio, preemption_policy=policy)
    return t.replace_pod(pod, priority=prio, preemption_policy=policy, file_index=file_index)


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
