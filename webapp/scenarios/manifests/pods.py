"""One Pod object of a manifest text: found, merge-patched, summarised and written back.

``replace_pod`` changes only that object: a multi-document file keeps every other document's
text as written; a list is written again with its objects in order.
"""

import copy
import re

import yaml

from .. import engine
from . import documents, limits

DOC_SEPARATOR = re.compile(r"(?m)^---[ \t]*(?:#.*)?$")


class PodNotFound(Exception):
    def __init__(self, namespace, name, revision):
        super().__init__(f"Pod {namespace}/{name} is not in revision r{revision} of this scenario.")
        self.namespace, self.name = namespace, name


def pod_key(obj):
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return (meta.get("namespace") or "default", meta.get("name") or "")


def is_pod(obj, namespace, name):
    return isinstance(obj, dict) and obj.get("kind") == "Pod" and pod_key(obj) == (namespace, name)


def parse(text):
    """The YAML documents of a revision's manifests (empty ones dropped; timestamps as written)."""
    return documents.parse(text)


def pods(text):
    """{(namespace, name): Pod object} of the text, read once (shared: copy before changing one)."""
    try:
        docs = documents.read(text, stored=True)
    except (yaml.YAMLError, limits.TooLarge):
        return {}
    out = {}
    for obj in documents.objects(docs):
        if obj.get("kind") == "Pod":
            out.setdefault(pod_key(obj), obj)
    return out


def find_pod(text, namespace, name):
    """The Pod object (a dict, the caller's own) named namespace/name in `text`, or None."""
    pod = pods(text).get((namespace, name))
    return copy.deepcopy(pod) if pod is not None else None


def merge_patch(target, patch):
    """RFC 7386 JSON merge patch: objects merge, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def dump(obj):
    return documents.dump(obj, allow_unicode=True)


COPY_SUFFIX = "-whatif-"


def with_copies(text, pod_key, count):
    """The text with `count` pending copies of the pod `pod_key` ("namespace/name" or "name") appended, named
    <name>-whatif-1… as the engine names the copies it counts (no node, no owner, no status); None when the pod
    is not in the text."""
    namespace, _, name = pod_key.rpartition("/")
    proto = find_pod(text, namespace or "default", name)
    if proto is None:
        return None
    proto.pop("status", None)
    meta = proto.setdefault("metadata", {})
    for key in ("uid", "resourceVersion", "ownerReferences", "generateName", "creationTimestamp"):
        meta.pop(key, None)
    spec = proto.setdefault("spec", {})
    spec.pop("nodeName", None)
    copies = []
    for i in range(count):
        c = copy.deepcopy(proto)
        c["metadata"]["name"] = f"{name}{COPY_SUFFIX}{i + 1}"
        copies.append(c)
    return text.rstrip("\n") + "\n" + "".join("---\n" + dump(c) for c in copies)


def leading_comments(text):
    lines = []
    for line in text.splitlines(keepends=True):
        if line.startswith("#") or not line.strip():
            lines.append(line)
        else:
            break
    return "".join(lines)


def replace_pod(text, namespace, name, new_pod):
    """`text` with only Pod namespace/name replaced by `new_pod`.

    A multi-document file keeps every other document's text as written; a `kind: List`
    (or a document that holds the pod among others) is re-dumped with its objects in order.
    """
    chunks = DOC_SEPARATOR.split(text)
    separators = DOC_SEPARATOR.findall(text)
    if len(chunks) > 1:
        for i, chunk in enumerate(chunks):
            try:
                docs = parse(chunk)
            except yaml.YAMLError:
                break
            if len(docs) == 1 and is_pod(docs[0], namespace, name):
                chunks[i] = leading_comments(chunk.lstrip("\n")) + dump(new_pod)
                if i > 0 and not chunks[i].startswith("\n"):
                    chunks[i] = "\n" + chunks[i]
                out = chunks[0]
                for separator, chunk_text in zip(separators, chunks[1:]):
                    out += separator + chunk_text
                return out
    docs = parse(text)
    replaced = False
    for d, document in enumerate(docs):
        item_kind = documents.list_item_kind(document)
        if item_kind is not None:
            items = document.get("items") or []
            for k, obj in enumerate(items):
                if isinstance(obj, dict) and is_pod(dict(obj, kind=obj.get("kind", item_kind)), namespace, name):
                    items[k], replaced = new_pod, True
        elif is_pod(document, namespace, name):
            docs[d], replaced = new_pod, True
    if not replaced:
        raise PodNotFound(namespace, name, "?")
    head = leading_comments(text)
    if len(docs) == 1:
        return head + dump(docs[0])
    return head + documents.dump_all(docs, allow_unicode=True)


def summary(pod):
    """What a page shows of a pod's scheduling directives."""
    spec = pod.get("spec") or {}
    required = (((spec.get("affinity") or {}).get("nodeAffinity") or {})
                .get("requiredDuringSchedulingIgnoredDuringExecution") or {})
    terms = []
    for term in required.get("nodeSelectorTerms") or []:
        parts = []
        for list_name in ("matchExpressions", "matchFields"):
            for req in (term or {}).get(list_name) or []:
                values = ", ".join(str(v) for v in req.get("values") or [])
                parts.append(f"{req.get('key')} {req.get('operator')}{' ' + values if values else ''}")
        terms.append(" and ".join(parts) or "(empty term)")
    return {
        "gates": [g.get("name") for g in spec.get("schedulingGates") or [] if isinstance(g, dict)],
        "node_selector": spec.get("nodeSelector") or {},
        "required_terms": terms,
        "tolerations": spec.get("tolerations") or [],
    }


def gated_rows(manifests, config="", scenario=None):
    """[{namespace, name, gates, node_selector, required_terms, tolerations}] of the text's gated pods, in the
    engine's order (raises engine.ScenarioInvalid; ``scenario``: the text loaded already)."""
    by_key = pods(manifests)
    return [{"namespace": ns, "name": name, **summary(by_key[(ns, name)])}
            for ns, name, _gates in engine.gated_pods(manifests, config, scenario) if (ns, name) in by_key]
