"""Proposed updates of one pod's scheduling directives (KEP-3838), checked as kube-apiserver does.

`propose()` finds the pod in the head revision's manifests, builds the new Pod (a JSON merge
patch, RFC 7386, or a whole Pod), asks the engine whether the apiserver would accept the
update, and stores the attempt. An accepted update becomes a new revision in which only that
Pod object is replaced, and a run of it is queued once the transaction commits. A rejected one
changes nothing but the attempt log.
"""

import copy

from django.db import transaction

from . import activity, engine, services
from .manifests.pods import PodNotFound, find_pod, merge_patch, replace_pod, summary
from .models import PodUpdateAttempt

class BadProposal(Exception):
    """The body is not a Pod or a merge patch we can apply; names the field."""

    def __init__(self, message, field="pod"):
        super().__init__(message)
        self.field = field


def gated_pods(revision):
    """[{namespace, name, gates, node_selector, required_terms, ...}] of the revision's gated pods (the caller's
    own), as kept in its summary when it was saved."""
    return copy.deepcopy(revision.summary["gated"])


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
