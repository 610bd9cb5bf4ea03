"""Quick structured edits of a scenario's manifests.

Every edit is a pure function: manifests text in (a `kind: List` or a
multi-document YAML stream), new text out, in the same shape. `apply_edit`
runs one edit described by a dict (``{"op": "set_max_skew", ...}``) and loads
the result through the engine, so an edit never yields a scenario the engine
refuses. Bad targets raise EditError naming the object and field.

Comments in the YAML are not kept (the text is re-serialised).
"""

import copy
import hashlib
from pathlib import Path

import yaml

from .. import after_response, engine, texts
from . import documents, limits

WORKLOAD_KINDS = ("Deployment", "ReplicaSet", "StatefulSet", "ReplicationController")
ZONE_KEY = "topology.kubernetes.io/zone"
HOSTNAME_KEY = "kubernetes.io/hostname"
MAX_EDITS = 200
# A quick-edit form lists its pods, workloads or nodes in a menu up to this many (a 5,000-node
# cluster's 35,000 menu entries took seconds to open); past it, the name is typed.
QUICK_LIST_MAX = 500


class EditError(engine.ScenarioInvalid):
    """An edit that cannot apply (unknown workload, node, bad value)."""


# --- parsing -----------------------------------------------------------------------------

def parse(text, read_only=False):
    """(objects, shape): the objects of a List or of a multi-document stream, for an edit to change.

    Timestamps stay the strings they are written as (``documents.read``), so an edit writes them
    back unchanged. The objects are the ones ``documents.read`` keeps, shared, when they are plain
    trees (``documents.read_plain``: no YAML anchor or alias): the list is then a ``CopyOnWrite``, and
    an edit copies each object it changes first (``own``), in its place in the list; copying all
    of a 5,000-node cluster's objects took most of a quick edit. Otherwise (anchors tie objects
    together) each object is a copy sharing no list or dict, and the list a plain one.
    `read_only`: for a caller that only looks (the forms' outline): the shared documents in a plain list."""
    try:
        docs, plain = documents.read_plain(text or "")  # limits are checked before aliases are expanded
        if not read_only and not plain:
            with engine.without_cycle_collection():  # (a million new containers: 2.2 s with it running, 0.4 s paused)
                docs = [_unshared(d) for d in docs]  # (apply_edit pauses it throughout; this is for other callers)
    except limits.TooLarge as e:
        raise EditError(str(e)) from e
    except yaml.YAMLError as e:
        raise EditError(f"scenario.yaml is not valid YAML: {e}") from e
    docs = _typed_items(docs)
    wrap = CopyOnWrite if plain and not read_only else list
    if len(docs) == 1 and isinstance(docs[0], dict) and docs[0].get("kind") == "List":
        return wrap(docs[0].get("items") or []), ("list", docs[0])
    if not all(isinstance(d, dict) for d in docs):
        raise EditError("scenario.yaml: every document must be a Kubernetes object")
    return wrap(docs), ("multi", None)


class CopyOnWrite(list):
    """An edit's objects while they are still the shared documents ``documents.read`` keeps: ``own(obj)``
    puts a copy of obj (sharing nothing with it) in its place and returns it, so that the edit changes the
    copy; the objects it never owns stay the shared ones, unchanged. Ops find what to change without
    changing anything (``meta`` only reads) and own it before they change it."""

    def __init__(self, items):
        super().__init__(items)
        self.read = items  # (the shared list, never changed: changed_in_place compares with it)
        self.copies = {}  # id of a copy -> the shared object it copies
        self._at = {}  # id of an object -> its index (rebuilt when the list has moved)

    def own(self, obj):
        if id(obj) in self.copies:
            return obj
        i = self._at.get(id(obj))
        if i is None or i >= len(self) or self[i] is not obj:
            self._at = {id(o): k for k, o in enumerate(self)}
            i = self._at.get(id(obj))
            if i is None:
                raise LookupError(f"{ref(obj)} is not among the edit's objects")
        mine = _unshared(obj)
        self[i] = mine
        self._at[id(mine)] = i
        self.copies[id(mine)] = obj
        return mine


def own(objects, obj):
    """obj, made the edit's own to change: a copy in its place when `objects` is a CopyOnWrite, else obj (the
    objects are copies already)."""
    return objects.own(obj) if isinstance(objects, CopyOnWrite) else obj


def _typed_items(docs):
    """The documents with each typed list (NodeList, PodList: what the raw API and `kubectl cluster-info dump`
    write) replaced by its items, which take their kind and apiVersion from the list as kubectl reads them; an
    edit writes them back as documents of their own."""
    out = []
    for doc in docs:
        if documents.list_item_kind(doc):  # a typed list ("" is a `kind: List`, kept as the file's shape)
            out.extend(documents.objects([doc]) + [i for i in doc["items"] if not isinstance(i, dict)])
        else:
            out.append(doc)
    return out


def _unshared(value):
    """A copy in which a YAML alias (*ref) is its own value: an edit of a workload's template must not
    also change, through a shared list, the pods that alias it (copy.deepcopy would keep them shared)."""
    if isinstance(value, dict):
        return {k: _unshared(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unshared(v) for v in value]
    return value


def written_documents(objects, shape):
    """The documents ``dump`` writes for these objects."""
    kind, wrapper = shape
    objects = list(objects)  # (a CopyOnWrite is no list to YAML's writers)
    if kind == "list":
        return [{**wrapper, "items": objects}]
    return objects


def dump(objects, shape):
    docs = written_documents(objects, shape)
    return documents.dump(docs[0]) if shape[0] == "list" else documents.dump_all(docs)


def meta(obj):
    """obj's metadata, to read (finding things must not change a shared object)."""
    m = obj.get("metadata")
    return {} if m is None else m


def ns_of(obj):
    return meta(obj).get("namespace") or "default"


def ref(obj):
    m = obj.get("metadata") or {}
    if obj.get("kind") == "Node":
        return f"Node/{m.get('name')}"
    return f"{obj.get('kind')}/{m.get('namespace') or 'default'}/{m.get('name')}"


# --- finding things ------------------------------------------------------------------------

def nodes(objects):
    return [o for o in objects if o.get("kind") == "Node"]


def pods(objects):
    return [o for o in objects if o.get("kind") == "Pod"]


def find_node(objects, name, field="node"):
    for o in nodes(objects):
        if meta(o).get("name") == name:
            return o
    raise EditError(f"Node/{name}: no such node", object=f"Node/{name}", field=field)


def split_ref(text, default_kind="Pod"):
    """'Kind/ns/name', 'Kind/name', 'ns/name' or 'name' → (kind, ns, name)."""
    parts = [p for p in str(text or "").strip().split("/") if p]
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2:
        if parts[0] in WORKLOAD_KINDS or parts[0] == "Pod":
            return parts[0], "default", parts[1]
        return default_kind, parts[0], parts[1]
    if len(parts) == 1:
        return default_kind, "default", parts[0]
    return default_kind, "default", ""


def owned_by(obj, kind, name):
    return any(r.get("kind") == kind and r.get("name") == name
               for r in (meta(obj).get("ownerReferences") or []))


def workload_targets(objects, workload, field="workload"):
    """(controllers, pods) of a workload: 'Kind/ns/name' or a label group 'key=value'."""
    workload = str(workload or "").strip()
    if not workload:
        raise EditError("no workload given", object="", field=field)
    if "=" in workload and "/" not in workload.split("=", 1)[0]:
        key, value = workload.split("=", 1)
        group = [p for p in pods(objects) if (meta(p).get("labels") or {}).get(key) == value]
        controllers = [o for o in objects if o.get("kind") in WORKLOAD_KINDS and
                       ((o.get("spec", {}).get("template", {}).get("metadata") or {}).get("labels") or {}).get(key) == value]
        if not group and not controllers:
            raise EditError(f"no pod or workload has the label {key}={value}",
                            object=f"pods {workload}", field=field)
        return controllers, group
    kind, ns, name = split_ref(workload, default_kind="ReplicaSet")
    if kind == "Pod":
        for p in pods(objects):
            if meta(p).get("name") == name and ns_of(p) == ns:
                return [], [p]
        raise EditError(f"Pod/{ns}/{name}: no such pod", object=f"Pod/{ns}/{name}", field=field)
    top = [o for o in objects if o.get("kind") == kind and meta(o).get("name") == name and ns_of(o) == ns]
    if not top:
        raise EditError(f"{kind}/{ns}/{name}: no such workload", object=f"{kind}/{ns}/{name}", field=field)
    controllers = list(top)
    if kind == "Deployment":
        controllers += [o for o in objects if o.get("kind") == "ReplicaSet" and ns_of(o) == ns
                        and owned_by(o, "Deployment", name)]
    group = [p for p in pods(objects) if ns_of(p) == ns and any(
        owned_by(p, c.get("kind"), meta(c).get("name")) for c in controllers)]
    return controllers, group


def spread_constraint(text, workload, index):
    """topologySpreadConstraints[index] as the text has it in the pod spec set_spread changes first (a controller's
    template, else a pod's), read only; None when there is none. Read from the documents the edit reads next, not
    from the quick-edit outline: the outline of a text no page showed yet is tens of MB to fetch at 5,000 nodes."""
    try:
        controllers, group = workload_targets(parse(text, read_only=True)[0], workload)
        holder = (controllers or group)[0]
        spec = holder.get("spec") or {}
        if controllers:
            spec = (spec.get("template") or {}).get("spec") or {}
        at = int(index)
        found = spec.get("topologySpreadConstraints")[at] if at >= 0 else None
    except (EditError, IndexError, TypeError, ValueError, AttributeError):
        return None
    return found if isinstance(found, dict) else None


def pod_specs(objects, target, field="workload"):
    """[(where, pod spec, its holder)] of a workload's controllers' templates and its pods, owned: to change."""
    controllers, group = workload_targets(objects, target, field)
    controllers = [own(objects, c) for c in controllers]
    group = [own(objects, p) for p in group]
    specs = []
    for c in controllers:
        template = c.setdefault("spec", {}).setdefault("template", {})
        specs.append((ref(c) + " spec.template", template.setdefault("spec", {}), template))
    for p in group:
        specs.append((ref(p), p.setdefault("spec", {}), p))
    return specs


# --- edits -------------------------------------------------------------------------------

def _int(value, name, obj, minimum=None, maximum=2 ** 31 - 1):
    """A whole number within [minimum, maximum] (every field edited here is an int32)."""
    if isinstance(value, str) and len(value) > 30:  # (int() of a long string is slow, and refused below)
        raise EditError(f"{name} must be ≤ {maximum}, got a {len(value)}-character value",
                        object=obj, field=name)
    try:
        n = int(value)
        if str(value).strip() != str(n) and not isinstance(value, int):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        raise EditError(f"{name} must be a whole number, got {value!r}", object=obj, field=name)
    if minimum is not None and n < minimum:
        raise EditError(f"{name} must be ≥ {minimum}, got {n}", object=obj, field=name)
    if n > maximum:
        raise EditError(f"{name} must be ≤ {maximum}, got {n}", object=obj, field=name)
    return n


# Pod.spec.priority is an int32 (k8s.io/api core/v1 types.go).
PRIORITY_MIN, PRIORITY_MAX = -(2 ** 31), 2 ** 31 - 1


def _qualified_name(value, name, obj):
    """A label key, taint key or gate name as upstream's IsQualifiedName accepts it."""
    errors = engine.qualified_name_errors(str(value))
    if errors:
        raise EditError(f"{name} {value!r}: {errors[0]}", object=obj, field=name)
    return str(value)


def set_spread(objects, workload, index=0, maxSkew=None, minDomains=None, whenUnsatisfiable=None,
               topologyKey=None):
    """Set fields of topologySpreadConstraints[index] (index == count adds a constraint)."""
    specs = pod_specs(objects, workload)
    index = _int(index, "index", workload, 0)
    if topologyKey not in (None, ""):
        _qualified_name(topologyKey, "topologyKey", str(workload))
    for where, spec, holder in specs:
        constraints = spec.setdefault("topologySpreadConstraints", [])
        field = f"spec.topologySpreadConstraints[{index}]"
        if index == len(constraints):
            labels = (meta(holder).get("labels") or {})
            labels = {k: v for k, v in labels.items() if k != "pod-template-hash"}
            constraints.append({
                "maxSkew": 1, "topologyKey": topologyKey or ZONE_KEY,
                "whenUnsatisfiable": whenUnsatisfiable or "DoNotSchedule",
                "labelSelector": {"matchLabels": labels},
            })
        elif index > len(constraints):
            raise EditError(f"{where} has {len(constraints)} spread constraint(s); no index {index}",
                            object=where, field=field)
        c = constraints[index]
        if maxSkew not in (None, ""):
            c["maxSkew"] = _int(maxSkew, "maxSkew", where)
        if minDomains not in (None, ""):
            if str(minDomains).lower() in ("none", "unset", "-"):
                c.pop("minDomains", None)
            else:
                c["minDomains"] = _int(minDomains, "minDomains", where)
        if whenUnsatisfiable not in (None, ""):
            c["whenUnsatisfiable"] = whenUnsatisfiable
        if topologyKey not in (None, ""):
            c["topologyKey"] = topologyKey
    return objects


def spread_fields(edit):
    """A set_spread edit that changes fields of an existing constraint, as the engine can put it into a loaded scenario
    without the documents (engine.scenario_ahead): (workload, index, {field: value} under the engine's names, None
    unsetting minDomains), each value as set_spread writes it; None for any other edit, or one set_spread refuses
    (it says why when it is applied)."""
    if not isinstance(edit, dict) or edit.get("op") != "set_spread" or \
            set(edit) - {"op", "workload", "index", "maxSkew", "minDomains", "whenUnsatisfiable", "topologyKey"}:
        return None
    workload = edit.get("workload")
    try:
        index = _int(edit.get("index", 0), "index", workload, 0)
        fields = {}
        if edit.get("maxSkew") not in (None, ""):
            fields["max_skew"] = _int(edit["maxSkew"], "maxSkew", workload)
        if edit.get("minDomains") not in (None, ""):
            unset = str(edit["minDomains"]).lower() in ("none", "unset", "-")
            fields["min_domains"] = None if unset else _int(edit["minDomains"], "minDomains", workload)
        if edit.get("whenUnsatisfiable") not in (None, ""):
            fields["when_unsatisfiable"] = edit["whenUnsatisfiable"]
        if edit.get("topologyKey") not in (None, ""):
            fields["topology_key"] = _qualified_name(edit["topologyKey"], "topologyKey", str(workload))
    except EditError:
        return None
    return (workload, index, fields) if fields and isinstance(workload, str) else None


def scenario_targets(workload, pods, workloads):
    """workload_targets over a loaded scenario's pods and workloads (the engine's objects: their labels, namespace,
    name, ownerReferences, kind and template): (pod keys, workload (kind, namespace, name)), or None where the
    documents could hold more targets than the scenario shows (a Deployment or another kind it does not keep)."""
    workload = str(workload or "").strip()
    if not workload:
        return None
    if "=" in workload and "/" not in workload.split("=", 1)[0]:
        key, value = workload.split("=", 1)
        keys = [p.key for p in pods if p.labels.get(key) == value]
        refs = [(w.kind, w.namespace, w.name) for w in workloads
                if w.template is not None and w.template.labels.get(key) == value]
        return (keys, refs) if keys or refs else None
    kind, ns, name = split_ref(workload, default_kind="ReplicaSet")
    if kind == "Pod":
        found = [p.key for p in pods if p.name == name and p.namespace == ns]
        return (found[:1], []) if found else None
    if kind not in WORKLOAD_KINDS or kind == "Deployment":
        return None
    if not any((w.kind, w.namespace, w.name) == (kind, ns, name) for w in workloads):
        return None
    keys = [p.key for p in pods if p.namespace == ns and
            any(r.kind == kind and r.name == name for r in p.owner_references)]
    return keys, [(kind, ns, name)]


def scenario_with_fields(scenario, spread):
    """A loaded scenario with spread_fields' (workload, index, fields) set in the pods and templates the edit names,
    found as scenario_targets finds them (engine.with_spread_fields); None where that could differ from the edited
    text (the worker then reads the documents the edit changed)."""
    if not (isinstance(spread, tuple) and len(spread) == 3):
        return None
    workload, index, fields = spread
    found = scenario_targets(workload, scenario.pods, scenario.workloads)
    if found is None or not _as_the_edit_keeps(scenario, *found, index, fields):
        return None
    return engine.with_spread_fields(scenario, found[0], found[1], index, fields)


def _as_the_edit_keeps(scenario, pods, workloads, index, fields):
    """Whether setting every one of ``fields`` in every pod and template named gives what the edit gives. A constraint
    form sends every field, and the edit keeps those that differ from the constraint in the first object it changes
    (views_edit.only_changed_fields); so a field is set, or left as each object has it, by that object alone. The
    same either way only when the objects named agree on it."""
    wanted, named = set(pods), set(workloads)
    held = {id(p.topology_spread_constraints): p.topology_spread_constraints for p in scenario.pods if p.key in wanted}
    held.update((id(w.template.topology_spread_constraints), w.template.topology_spread_constraints)
                for w in scenario.workloads if (w.kind, w.namespace, w.name) in named and w.template is not None)
    if not held or any(index >= len(cs) for cs in held.values()):
        return False
    return all(len({getattr(cs[index], name) for cs in held.values()}) == 1 for name in fields)


def remove_spread(objects, workload, index=0):
    """Remove topologySpreadConstraints[index] of a workload's template and pods (or of one pod)."""
    index = _int(index, "index", workload, 0)
    for where, spec, _ in pod_specs(objects, workload):
        constraints = spec.get("topologySpreadConstraints") or []
        if index >= len(constraints):
            raise EditError(f"{where} has no spread constraint {index}", object=where,
                            field=f"spec.topologySpreadConstraints[{index}]")
        del constraints[index]
        if not constraints:
            spec.pop("topologySpreadConstraints")
    return objects


def set_replicas(objects, workload, replicas):
    controllers, group = workload_targets(objects, workload)
    if not controllers:
        raise EditError(f"{workload}: replicas need a ReplicaSet, StatefulSet, RC or Deployment",
                        object=str(workload), field="replicas")
    n = _int(replicas, "replicas", ref(controllers[0]), 0, engine.MAX_PODS)
    for c in controllers:
        own(objects, c).setdefault("spec", {})["replicas"] = n
    # Fewer replicas: drop the surplus pods, pending ones first, newest first.
    surplus = len(group) - n
    if surplus > 0:
        order = sorted(group, key=lambda p: (bool(p.get("spec", {}).get("nodeName")),
                                             str(meta(p).get("creationTimestamp", ""))), reverse=False)
        doomed = {id(p) for p in order[:surplus]}
        objects[:] = [o for o in objects if id(o) not in doomed]
    return objects


def add_node(objects, node, name, zone=None):
    source = find_node(objects, node)
    name = str(name or "").strip()
    if not name:
        raise EditError("the new node needs a name", object=f"Node/{node}", field="name")
    if any(meta(o).get("name") == name for o in nodes(objects)):
        raise EditError(f"Node/{name} already exists", object=f"Node/{name}", field="name")
    new = copy.deepcopy(source)
    m = new.setdefault("metadata", {})
    m["name"] = name
    for key in ("uid", "resourceVersion", "creationTimestamp"):
        m.pop(key, None)
    labels = m.setdefault("labels", {})
    labels[HOSTNAME_KEY] = name
    if zone:
        labels[ZONE_KEY] = zone
    objects.append(new)
    return objects


def _unbind(objects, names):
    for p in pods(objects):
        if (p.get("spec") or {}).get("nodeName") in names:
            p = own(objects, p)
            spec = p["spec"]
            spec.pop("nodeName", None)
            (p.get("status") or {}).pop("phase", None)


def remove_node(objects, node):
    find_node(objects, node)
    objects[:] = [o for o in objects if not (o.get("kind") == "Node" and meta(o).get("name") == node)]
    _unbind(objects, {node})
    return objects


def remove_zone(objects, zone, key=ZONE_KEY):
    gone = {meta(o).get("name") for o in nodes(objects) if (meta(o).get("labels") or {}).get(key) == zone}
    if not gone:
        raise EditError(f"no node has {key}={zone}", object=f"zone {zone}", field=f"metadata.labels[{key}]")
    objects[:] = [o for o in objects if not (o.get("kind") == "Node" and meta(o).get("name") in gone)]
    _unbind(objects, gone)
    return objects


def cordon(objects, node, unschedulable=True):
    obj = find_node(objects, node)
    if bool((obj.get("spec") or {}).get("unschedulable")) == unschedulable:
        return objects  # (so already: the node stays as written)
    spec = own(objects, obj).setdefault("spec", {})
    if unschedulable:
        spec["unschedulable"] = True
    else:
        spec.pop("unschedulable", None)
    return objects


def uncordon(objects, node):
    return cordon(objects, node, False)


EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
# Built into every cluster (pkg/apis/scheduling/types.go), so a pod may name them without a PriorityClass object.
SYSTEM_CLASSES = {"system-cluster-critical", "system-node-critical"}


def add_taint(objects, node, key, value="", effect="NoSchedule"):
    obj = own(objects, find_node(objects, node))
    if not key:
        raise EditError("a taint needs a key", object=f"Node/{node}", field="spec.taints.key")
    _qualified_name(key, "spec.taints.key", f"Node/{node}")
    if effect not in EFFECTS:
        raise EditError(f"effect must be one of {', '.join(EFFECTS)}", object=f"Node/{node}",
                        field="spec.taints.effect")
    taints = obj.setdefault("spec", {}).setdefault("taints", [])
    taints[:] = [t for t in taints if not (t.get("key") == key and t.get("effect") == effect)]
    taint = {"key": key, "effect": effect}
    if value:
        taint["value"] = value
    taints.append(taint)
    return objects


def remove_taint(objects, node, key, effect=None):
    obj = own(objects, find_node(objects, node))
    taints = obj.get("spec", {}).get("taints") or []
    kept = [t for t in taints if not (t.get("key") == key and (not effect or t.get("effect") == effect))]
    if len(kept) == len(taints):
        raise EditError(f"Node/{node} has no taint {key}", object=f"Node/{node}", field="spec.taints")
    obj["spec"]["taints"] = kept
    return objects


def set_priority(objects, target, priority=None, priorityClassName=None):
    """A pod's or a workload template's priority: a PriorityClass by name, or a plain number.

    A number overrides the class's value (the engine reads spec.priority first) and keeps the class.
    """
    if priority in (None, "") and priorityClassName in (None, ""):
        raise EditError("give a priority or a priorityClassName", object=str(target), field="priority")
    classes = {meta(o).get("name") for o in objects if o.get("kind") == "PriorityClass"} | SYSTEM_CLASSES
    for where, spec, _ in pod_specs(objects, target, field="target"):
        if priorityClassName not in (None, "") and priorityClassName not in classes:
            raise EditError(f"no PriorityClass named {priorityClassName!r}; the scenario has "
                            f"{', '.join(sorted(classes))}", object=where, field="spec.priorityClassName")
        if priority not in (None, ""):
            spec["priority"] = _int(priority, "priority", where, PRIORITY_MIN)
            if spec["priority"] > PRIORITY_MAX:
                raise EditError(f"priority must be ≤ {PRIORITY_MAX} (an int32), got {spec['priority']}",
                                object=where, field="priority")
        if priorityClassName not in (None, ""):
            spec["priorityClassName"] = priorityClassName
            if priority in (None, ""):
                spec.pop("priority", None)  # the admission plugin fills it from the class
    return objects


def add_gate(objects, target, name):
    if not name:
        raise EditError("a scheduling gate needs a name", object=str(target), field="spec.schedulingGates")
    _qualified_name(name, "spec.schedulingGates.name", str(target))
    for _, spec, _ in pod_specs(objects, target, field="target"):
        gates = spec.setdefault("schedulingGates", [])
        if not any(g.get("name") == name for g in gates):
            gates.append({"name": name})
    return objects


def remove_gate(objects, target, name=None):
    """Remove the named gate (every gate without a name) from a workload's template and pods, or a pod."""
    specs = pod_specs(objects, target, field="target")
    if name and not any(g.get("name") == name for _, spec, _ in specs for g in spec.get("schedulingGates") or []):
        raise EditError(f"{target} has no scheduling gate {name}", object=str(target), field="spec.schedulingGates")
    for _, spec, _ in specs:
        gates = spec.get("schedulingGates") or []
        spec["schedulingGates"] = [g for g in gates if name and g.get("name") != name]
        if not spec["schedulingGates"]:
            spec.pop("schedulingGates")
    return objects


def _spread_field(field):
    def edit(objects, workload, value, index=0):
        return set_spread(objects, workload, index, **{field: value})
    return edit


OPS = {
    "set_max_skew": _spread_field("maxSkew"),
    "set_min_domains": _spread_field("minDomains"),
    "set_when_unsatisfiable": _spread_field("whenUnsatisfiable"),
    "set_topology_key": _spread_field("topologyKey"),
    "set_spread": set_spread,
    "add_spread": None,  # set_spread with index = count, filled in apply_edit
    "remove_spread": remove_spread,
    "set_replicas": set_replicas,
    "add_node": add_node,
    "remove_node": remove_node,
    "remove_zone": remove_zone,
    "cordon": cordon,
    "uncordon": uncordon,
    "add_taint": add_taint,
    "remove_taint": remove_taint,
    "set_priority": set_priority,
    "add_gate": add_gate,
    "remove_gate": remove_gate,
}


def describe(edit):
    """One edit as a person would say it ("Removed zone eu-west-1c", "maxSkew 3 on ReplicaSet/default/web")."""
    if not isinstance(edit, dict):
        return "an edit"
    op, e = edit.get("op", "?"), {k: v for k, v in edit.items() if v not in (None, "")}
    on = e.get("workload") or e.get("target") or ""
    spread_fields = [f"{k} {e[k]}" for k in ("maxSkew", "minDomains", "whenUnsatisfiable", "topologyKey") if k in e]
    one_field = {"set_max_skew": "maxSkew", "set_min_domains": "minDomains",
                 "set_when_unsatisfiable": "whenUnsatisfiable", "set_topology_key": "topologyKey"}.get(op)
    if one_field:
        spread_fields = [f"{one_field} {e.get('value', '')}".strip()]
    sentences = {
        "text": "Edited the YAML",
        "set_spread": f"{', '.join(spread_fields) or 'spread constraint'} on {on}",
        "add_spread": f"Added a spread constraint to {on}" + (f" ({', '.join(spread_fields)})" if spread_fields else ""),
        "remove_spread": f"Removed spread constraint {e.get('index', 0)} of {on}",
        "set_replicas": f"{on} scaled to {e.get('replicas', '?')} replicas",
        "add_node": f"Added node {e.get('name', '')} like {e.get('node', '')}"
                    + (f" in zone {e['zone']}" if "zone" in e else ""),
        "remove_node": f"Removed node {e.get('node', '')}",
        "remove_zone": f"Removed zone {e.get('zone', '')}",
        "cordon": f"Cordoned {e.get('node', '')}",
        "uncordon": f"Uncordoned {e.get('node', '')}",
        "add_taint": f"Tainted {e.get('node', '')} with {e.get('key', '')}"
                     + (f"={e['value']}" if "value" in e else "") + f":{e.get('effect', 'NoSchedule')}",
        "remove_taint": f"Removed taint {e.get('key', '')} from {e.get('node', '')}",
        "set_priority": f"Priority of {on} set to {e.get('priority', e.get('priorityClassName', '?'))}",
        "add_gate": f"Gate {e.get('name', '')} added to {on}",
        "remove_gate": f"Gate {e.get('name', 'every gate')} removed from {on}",
    }
    if one_field:
        return f"{spread_fields[0]} on {on}"
    return sentences.get(op, op)


def apply_edit(text, edit, config="", checked=None, changed=None):
    """New manifests text after one edit dict; raises EditError / engine.ScenarioInvalid. Python's cycle
    collector is paused meanwhile: an edit of a large cluster allocates millions of containers and makes
    no cycles, and each full collection it set off walked all of them (a second or more at 5,000 nodes).
    ``checked(text, scenario)``: called with the new text and the scenario the engine's check of it loaded
    (the draft editor's verdict is worked out from it: a large text is not kept loaded in this process).
    ``changed(documents)``: called as soon as the edit is made, before its text is written, with the documents
    it changed when it changed them in place (none added, removed or moved: changed_in_place); true when it
    started a run of the edited text (which then simulates beside the rest of the edit)."""
    with engine.without_cycle_collection():
        return _apply_edits(text, [edit], config, keep_written=True, checked=checked, changed=changed)


def apply_edits(text, edits, config=""):
    """New manifests text after the edits in turn (at most MAX_EDITS; a sweep cell's): the same text as
    apply_edit gives one edit at a time, but the edits change one copy of the objects, which is written and
    checked by the engine once. The documents of ``text`` stay the ones ``documents.read`` keeps (the next cell
    of a sweep starts from the same text: at 150,000 pods, reading it again took half a minute a cell)."""
    edits = list(edits[:MAX_EDITS])
    if not edits:
        return text
    with engine.without_cycle_collection():
        return _apply_edits(text, edits, config, keep_written=False)


def _apply_edits(text, edit_list, config, keep_written, checked=None, changed=None):
    for edit in edit_list:
        if not isinstance(edit, dict) or not isinstance(edit.get("op"), str) or edit["op"] not in OPS:
            raise EditError(f"unknown edit op {edit.get('op') if isinstance(edit, dict) else edit!r}; "
                            f"known: {', '.join(sorted(OPS))}", object="edit", field="op")
    objects, shape = parse(text)
    shared = isinstance(objects, CopyOnWrite)  # (else copies: the ops change them in place)
    # (what dump_keeping compares a multi-document stream's documents with; a List's items are compared
    # with the documents the text was read into, found by where each object was in the list)
    before = None if shape[0] != "multi" else list(objects) if shared else copy.deepcopy(objects)
    origin = {id(o): i for i, o in enumerate(objects)} if shape[0] == "list" else None
    for edit in edit_list:
        _apply_op(objects, edit)
    running = False  # (a run of the edited text started by ``changed``: it simulates beside what follows)
    docs = changed_in_place(objects) if changed is not None or checked is not None else None
    if changed is not None and docs is not None:
        running = bool(changed(docs))
    if origin is not None and shared:  # a copy is compared with what it copies
        origin.update((mine, origin[id(obj)]) for mine, obj in objects.copies.items() if id(obj) in origin)
    new = dump_keeping(text, before, objects, shape, origin)
    if keep_written and not running:  # (a draft's edit: its text is stored next, compressed meanwhile beside the
        texts.prepare(new)  # engine's check; not while a run simulates on a core that thread would take)
    # the engine reads the objects just written, not the text again (they read back the same), and so does
    # the next edit of this text when they are kept (a draft's)
    written = written_documents(objects, shape)
    if checked is not None:
        scenario = _checked_scenario(text, new, config, edit_list, written, docs)
        engine.check_size(scenario)
        checked(new, scenario)
    else:
        engine.validate(new, config, parsed=written)
    if keep_written:
        documents.remember(new, written)
    return new


def _checked_scenario(text, new, config, edit_list, written, docs=None):
    """The engine's scenario of the edited text ``new``, made from the scenario of ``text`` (held by this process or
    the disk cache: engine.checked_before) when the edit changed only scheduling directives: a spread constraint's
    fields set in it (scenario_with_fields), or the documents the edit changed in place (``docs``: changed_in_place's)
    read into it (engine.with_changed_documents), each what loading the new text gives; else the new text loaded from
    the documents it was written from (which also says why the engine refuses it). Kept for the next edit either way
    (engine.keep_checked), on disk once the response has gone when it was not loaded."""
    spread = spread_fields(edit_list[0]) if len(edit_list) == 1 else None
    before = made = None
    # (a text over the size limit, or documents the limits' walk would refuse, are loaded, for the load's message)
    if (spread is not None or docs is not None) and limits.within_size(new):
        before = engine.checked_before(text, config)
    if before is not None and spread is not None:
        made = scenario_with_fields(before, spread)
        how = "set its spread constraint fields in"
    if made is None and before is not None and docs is not None and limits.documents_problem(docs) is None:
        made = engine.with_changed_documents(before, docs)
        how = f"put the {len(docs)} documents it changed into"
    if made is not None:
        engine.keep_checked(new, config, made, made=True, later=after_response.later, how=how)
        return made
    scenario = engine.load(new, config, parsed=written)
    engine.keep_checked(new, config, scenario)
    return scenario


def changed_in_place(objects):
    """The documents an edit of the shared documents changed, each in the place of the one it copies, when that
    is all it did (none added, removed or moved); else None."""
    if not isinstance(objects, CopyOnWrite) or len(objects) != len(objects.read):
        return None
    copies, docs = objects.copies, []
    for obj, was in zip(objects, objects.read):
        if obj is not was:
            if copies.get(id(obj)) is not was:
                return None
            docs.append(obj)
    return docs


def _apply_op(objects, edit):
    """One edit on the objects, in place."""
    args = {k: v for k, v in edit.items() if k != "op"}
    op = edit["op"]
    try:
        if op == "add_spread":
            target = args.pop("workload", None)
            specs = pod_specs(objects, target)
            count = len(specs[0][1].get("topologySpreadConstraints") or []) if specs else 0
            set_spread(objects, target, count, **args)
        else:
            OPS[op](objects, **args)
    except TypeError as e:
        raise EditError(f"{op}: wrong fields ({e})", object="edit", field="op") from e


def leading_comments(text):
    """The comment block (and blank lines) the file opens with."""
    lines = []
    for line in (text or "").splitlines(keepends=True):
        if line.strip() and not line.lstrip().startswith("#"):
            break
        lines.append(line)
    return "".join(lines).rstrip("\n") + "\n" if any(line.strip() for line in lines) else ""


def document_spans(text):
    """(start, end) character offsets of each non-empty document of a YAML stream."""
    spans, start = [], None
    # libyaml's marks count characters like the Python parser's on ASCII text
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader) if text.isascii() else yaml.SafeLoader
    for event in yaml.parse(text, Loader=loader):
        if isinstance(event, yaml.DocumentStartEvent):
            start = None
        elif start is None and isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent,
                                                  yaml.ScalarEvent)):
            start = event.start_mark.index
        elif isinstance(event, yaml.DocumentEndEvent) and start is not None:
            spans.append((start, event.start_mark.index))
    return spans


def dump_keeping(text, before, objects, shape, origin=None):
    """The edited manifests, keeping what a person wrote where the edit did not reach: the
    comments the file opens with, and in a multi-document stream every document the edit left
    unchanged, as written (comments, order, flow style). A changed document is written anew.
    In a List written as kubectl writes it (items at column 0), every item the edit left
    unchanged is kept as written too (``origin``: id of each object as parsed -> its index)."""
    if shape[0] == "list" and origin is not None:
        kept = _keeping_list_items(text, objects, origin)
        if kept is not None:
            return kept
    if shape[0] == "multi" and len(before) == len(objects):
        spans = document_spans(text)
        if len(spans) == len(objects):
            out, pos = [], 0
            for (start, end), old, obj in zip(spans, before, objects):
                out.append(text[pos:start])
                if old == obj:
                    out.append(text[start:end])
                else:
                    out.append(documents.dump(obj))
                pos = end
            out.append(text[pos:])
            return "".join(out)
    new = dump(objects, shape)
    head = leading_comments(text)
    return head + new if head and not new.startswith(head) else new


def _keeping_list_items(text, objects, origin):
    """The List's text with its items replaced by the objects: the text of each item the edit left
    unchanged (equal to the item as the text reads), each other item written anew, or only the entry the edit
    changed in it (documents.dump_list_items); None when the text is not in kubectl's layout, may tie items
    together through anchors, or the List ends up empty. A quick edit of a 29 MB cluster wrote every item
    again: 3 s of its 7."""
    if not objects:
        return None
    properties, found = documents.memo(LIST_LAYOUT, text, lambda: _list_layout(text))
    if properties:
        return None
    docs = documents.read(text)  # (the documents parse() copied: read once, kept)
    if found is None or len(docs) != 1 or not isinstance(docs[0], dict):
        return None
    items_at, starts, end = found
    read = docs[0].get("items")
    if not isinstance(read, list) or len(read) != len(starts):
        return None
    bounds = starts + [end]
    out = [text[:starts[0]]]
    changed = []  # (where in out, (the item's text and the item as read from it, or None, None; the object))
    for obj in objects:
        i = origin.get(id(obj))
        if i is None:
            changed.append((len(out), (None, None, obj)))
        else:
            item = text[bounds[i]:bounds[i + 1]]
            item = item if item.endswith("\n") else item + "\n"
            if obj == read[i]:
                out.append(item)
                continue
            changed.append((len(out), (item, read[i], obj)))
        out.append("")
    written = documents.dump_list_items([edited for _, edited in changed])
    for (at, _), item in zip(changed, written):
        out[at] = item
    out.append(text[end:])
    new = "".join(out)
    # (the next edit of the new text is told where its items are, as this one put them, instead of finding them
    # again: 0.05 s of a 29 MB text; the items written anew are whole lines, looked at alone for a node property)
    new_starts, at = [], len(out[0])
    for item in out[1:-1]:
        new_starts.append(at)
        at += len(item)
    if not any(engine.node_properties(item) for item in written):
        documents.memo_put(LIST_LAYOUT, new, (False, (items_at, new_starts, at)))
    return new


def prepare(text, config=""):
    """Read into this process, from the engine's disk cache, what the next quick edit of ``text`` reads first when
    this process has read nothing of it: its documents, the engine's scenario of it (the edit's check starts from it)
    and where the items of a List are. Nothing is parsed or loaded: (whether the documents, whether the scenario
    were there)."""
    if not documents.take_from_disk(text):
        return False, False
    documents.memo(LIST_LAYOUT, text, lambda: _list_layout(text))
    scenario = engine.checked_before(text, config)
    if scenario is not None:
        engine.keep_checked(text, config, scenario)
    return True, scenario is not None


LIST_LAYOUT = "list layout"  # (documents.memo's name of _list_layout's)


def _list_layout(text):
    """(whether the text may hold an anchor, alias or tag: engine.node_properties; if not, its list_item_starts)."""
    properties = engine.node_properties(text)
    return properties, None if properties else engine.list_item_starts(text)


# --- what can be edited --------------------------------------------------------------------

def outline(text, keep=True):
    """What the quick-edit forms offer: workloads with their spread constraints, pods, nodes, zones,
    PriorityClasses and the topology keys on nodes (shared between pages: not to be changed). Worked out once
    per text and kept in the database (texts.fact: a 5,000-node text takes half a minute to parse). `keep`
    False: not remembered in this process for later pages (a caller that keeps what it needs of it)."""
    if not keep:
        return texts.fact(text, OUTLINE_FACT, _outline)
    return documents.memo("outline", text, lambda: texts.fact(text, OUTLINE_FACT, _outline))


# the outline's name among a text's stored facts: it changes with this module's code
OUTLINE_FACT = "quick-edit outline " + hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def _outline(text):
    try:
        objects, _ = parse(text, read_only=True)
    except EditError:
        return {"workloads": [], "controllers": [], "nodes": [], "zones": [], "pods": [], "pod_count": 0,
                "priority_classes": [],
                "node_keys": [], "many_targets": False, "many_nodes": False}
    workloads = []
    for o in objects:
        if o.get("kind") in WORKLOAD_KINDS:
            spec = (o.get("spec") or {}).get("template", {}).get("spec") or {}
            workloads.append({"ref": ref(o), "replicas": (o.get("spec") or {}).get("replicas"),
                              "constraints": spec.get("topologySpreadConstraints") or [], **_pod_fields(spec)})
    present = {(o.get("kind"), ns_of(o), meta(o).get("name")) for o in objects if o.get("kind") in WORKLOAD_KINDS}
    groups = {}
    for p in pods(objects):
        owners = [r for r in meta(p).get("ownerReferences") or [] if isinstance(r, dict)]
        if any((r.get("kind"), ns_of(p), r.get("name")) in present for r in owners):
            continue  # (listed under its controller)
        app = (meta(p).get("labels") or {}).get("app")
        if app:  # a bare pod, or one whose controller the text leaves out (`kubectl get pods -o yaml`)
            groups.setdefault(f"app={app}", p)
        elif not meta(p).get("ownerReferences"):  # a bare pod without an app label is a workload of its own
            groups[ref(p)] = p
    for key, p in groups.items():
        spec = p.get("spec") or {}
        workloads.append({"ref": key, "replicas": None,
                          "constraints": spec.get("topologySpreadConstraints") or [], **_pod_fields(spec)})
    node_rows = [{"name": meta(n).get("name"), "zone": (meta(n).get("labels") or {}).get(ZONE_KEY, ""),
                  "unschedulable": bool((n.get("spec") or {}).get("unschedulable")),
                  "taints": (n.get("spec") or {}).get("taints") or []} for n in nodes(objects)]
    zones = sorted({n["zone"] for n in node_rows if n["zone"]})
    classes = sorted(({"name": meta(o).get("name"), "value": o.get("value"),
                       "globalDefault": bool(o.get("globalDefault"))}
                      for o in objects if o.get("kind") == "PriorityClass"), key=lambda c: (c["value"] or 0, c["name"]))
    node_keys = sorted({k for n in nodes(objects) for k in (meta(n).get("labels") or {})})
    all_pods = pods(objects)
    # past this many, the forms take a typed name instead of listing every choice (and the pods are not listed)
    many_targets = len(all_pods) + len(workloads) > QUICK_LIST_MAX
    pod_rows = [] if many_targets else [{"ref": ref(p), **_pod_fields(p.get("spec") or {})} for p in all_pods]
    return {"workloads": workloads, "controllers": [w for w in workloads if w["ref"].split("/")[0] in WORKLOAD_KINDS],
            "nodes": node_rows, "zones": zones, "pods": pod_rows, "pod_count": len(all_pods),
            "priority_classes": classes, "node_keys": node_keys,
            "many_targets": many_targets, "many_nodes": len(node_rows) > QUICK_LIST_MAX}


def _pod_fields(spec):
    """The priority and gates of a pod spec, for the forms' labels."""
    return {"priority": spec.get("priority"), "priorityClassName": spec.get("priorityClassName") or "",
            "gates": [g.get("name") for g in spec.get("schedulingGates") or [] if isinstance(g, dict)]}


def outline_zones(text, key=ZONE_KEY):
    objects, _ = parse(text, read_only=True)
    return sorted({(meta(n).get("labels") or {}).get(key) for n in nodes(objects)} - {None})
