"""Proposed updates of one pod's scheduling directives (KEP-3838), checked as kube-apiserver does.

`propose()` finds the pod in the head revision's manifests, builds the new Pod (a JSON merge
patch, RFC 7386, or a whole Pod), asks the engine whether the apiserver would accept the
update, and stores the attempt. An accepted update becomes a new revision in which only that
Pod object is replaced, and a run of it is queued once the transaction commits. A rejected one
changes nothing but the attempt log.
"""

import copy
import re

import yaml
from django.db import transaction

from . import activity, documents, engine, limits, manifests, services
from .models import PodUpdateAttempt

DOC_SEPARATOR = re.compile(r"(?m)^---[ \t]*(?:#.*)?$")


class PodNotFound(Exception):
    def __init__(self, namespace, name, revision):
        super().__init__(f"Pod {namespace}/{name} is not in revision r{revision} of this scenario.")
        self.namespace, self.name = namespace, name


class BadProposal(Exception):
    """The body is not a Pod or a merge patch we can apply; names the field."""

    def __init__(self, message, field="pod"):
        super().__init__(message)
        self.field = field


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
    for document in docs:
        item_kind = _item_kind(document)
        items = document.get("items") if item_kind is not None else [document]
        for obj in items or []:
            if isinstance(obj, dict) and obj.get("kind", item_kind) == "Pod":
                out.setdefault(pod_key(obj), obj if "kind" in obj else dict(obj, kind="Pod", apiVersion="v1"))
    return out


def _item_kind(document):
    """The kind of a list's items that carry none: "" for a `kind: List`, "Pod" for a PodList (the raw API and
    `kubectl cluster-info dump` write typed lists, whose items take their kind from the list, as kubectl reads
    them); None when the document is no list."""
    kind = document.get("kind") if isinstance(document, dict) else None
    if not isinstance(kind, str) or not kind.endswith("List") or not isinstance(document.get("items"), list):
        return None
    return kind[: -len("List")]


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
        item_kind = _item_kind(document)
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


def gated_pods(revision):
    """[{namespace, name, gates, node_selector, required_terms, ...}] of the revision's gated pods (the caller's
    own): kept in the revision's summary once worked out, so that a page does not read a large text again."""
    stored = (revision.summary or {}).get("gated")
    if stored is not None:
        return copy.deepcopy(stored)
    rows = _gated_pods(revision)
    manifests.remember(revision, "gated", copy.deepcopy(rows))
    return rows


def _gated_pods(revision):
    rows = []
    by_key = pods(revision.manifests)
    for namespace, name, _gates in engine.gated_pods(revision.manifests, revision.config):
        pod = by_key.get((namespace, name))
        if pod is not None:
            rows.append({"namespace": namespace, "name": name, **summary(pod)})
    return rows


def propose(scenario, namespace, name, *, author, patch=None, pod=None, base=None):
    """Validate and store a proposed update; apply it as a new revision if the apiserver would.

    Exactly one of `patch` (a merge patch dict) or `pod` (a whole Pod dict) is given.
    Raises PodNotFound, BadProposal or services.StaleRevision (when `base` is not the head).
    Returns the PodUpdateAttempt.
    """
    head = scenario.head()
    if base is not None and base != head.number:
        raise services.StaleRevision(head.number)
    old = find_pod(head.manifests, namespace, name)
    if old is None:
        raise PodNotFound(namespace, name, head.number)
    if patch is not None:
        if not isinstance(patch, dict):
            raise BadProposal("A merge patch must be a JSON object, e.g. {\"spec\": {\"schedulingGates\": null}}.", "patch")
        proposed = merge_patch(old, patch)
    else:
        if not isinstance(pod, dict) or pod.get("kind") != "Pod":
            raise BadProposal("The body must be a whole Pod object (kind: Pod) or a merge patch.", "pod")
        proposed = copy.deepcopy(pod)
    verdict = engine.validate_pod_update(old, proposed)
    attempt = PodUpdateAttempt(
        scenario=scenario, pod_namespace=namespace, pod_name=name, base_revision=head,
        patch=patch, proposed=proposed, allowed=bool(verdict["allowed"]),
        errors=list(verdict["errors"]), explanation=engine.explain_node_affinity_update(old, proposed),
        author=author,
    )
    if not attempt.allowed:
        attempt.save()
        _record(attempt)
        return attempt
    manifests = replace_pod(head.manifests, namespace, name, proposed)
    try:
        with transaction.atomic():
            revision = services.save_revision(
                scenario, manifests=manifests, config=head.config, author=author, base=head.number,
                message=f"Pod update {namespace}/{name}: {describe(old, proposed)}",
            )
            attempt.revision = revision
            attempt.run = services.queue_run(scenario, revision, user=author)
            attempt.save()
    except engine.ScenarioInvalid as e:
        # The apiserver would take it, but the scenario would no longer load: keep nothing but the attempt.
        attempt.allowed = False
        attempt.errors = [{"field": e.field or "", "type": "ScenarioInvalid", "detail": str(e)}]
        attempt.save()
    _record(attempt)
    return attempt


def _record(attempt):
    outcome = f"applied as revision {attempt.revision.number}" if attempt.allowed else "rejected"
    activity.record(attempt.author, activity.Verb.POD_UPDATE_PROPOSED, scenario=attempt.scenario,
                    object=f"{attempt.pod_namespace}/{attempt.pod_name} ({outcome})", attempt=attempt.pk)


def describe(old, new):
    """A short revision message: which directives changed."""
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    changed = [f for f in ("schedulingGates", "nodeSelector", "affinity", "tolerations")
               if old_spec.get(f) != new_spec.get(f)]
    old_gates, new_gates = summary(old)["gates"], summary(new)["gates"]
    parts = [f"removed gate {g}" for g in old_gates if g not in new_gates]
    parts += [f for f in changed if f != "schedulingGates"]
    return ", ".join(parts) or "no directive changed"


def pod_outcome(run, namespace, name):
    """The engine's row for this pod in a finished run's result, or None."""
    for row in (run.result or {}).get("pods", []) if run else []:
        if row.get("pod") in (f"{namespace}/{name}", name):
            return row
    return None
