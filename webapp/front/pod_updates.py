"""Pages for proposed updates of gated pods (KEP-3838): the gated pods panel, the form, the result."""

import copy

import yaml
from django import forms
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from webapp.scenarios import engine, pod_updates, services
from webapp.scenarios.manifests import documents, limits
from webapp.scenarios.manifests import pods as pod_text
from webapp.scenarios.models import Membership, PodUpdateAttempt

from .views import get_scenario

Role = Membership.Role


class PodUpdateForm(forms.Form):
    base_revision = forms.IntegerField(widget=forms.HiddenInput)
    node_selector = forms.CharField(
        label="nodeSelector", required=False,
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false", "class": "code"}),
        help_text="One key=value per line. While the pod is gated, keys may only be added.")
    affinity = forms.CharField(
        label="affinity (YAML)", required=False,
        widget=forms.Textarea(attrs={"rows": 14, "spellcheck": "false", "class": "code"}),
        help_text="The pod's whole spec.affinity as YAML. Required node affinity may only become tighter: "
                  "terms may gain requirements, existing ones stay unchanged.")
    tolerations = forms.CharField(
        label="tolerations (YAML list)", required=False,
        widget=forms.Textarea(attrs={"rows": 8, "spellcheck": "false", "class": "code"}),
        help_text="spec.tolerations as a YAML list. Tolerations may only be added.")
    remove_gates = forms.MultipleChoiceField(
        label="Remove scheduling gates", required=False, widget=forms.CheckboxSelectMultiple,
        help_text="Gates can only be removed. Removing the last one lets kube-scheduler place the pod.")

    def __init__(self, *args, gates=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["remove_gates"].choices = [(g, g) for g in gates]

    def clean_node_selector(self):
        out = {}
        for n, line in enumerate(self.cleaned_data["node_selector"].splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                raise forms.ValidationError(f"nodeSelector line {n}: expected key=value, got “{line}”.")
            out[key.strip()] = value.strip()
        return out

    def clean_yaml(self, name, kind, example):
        text = self.cleaned_data[name]
        if not text.strip():
            return None
        try:
            docs = documents.parse(text, self.fields[name].label)
        except limits.TooLarge as e:
            raise forms.ValidationError(str(e))
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            raise forms.ValidationError(f"{self.fields[name].label}: YAML parse error{where}: "
                                        f"{getattr(e, 'problem', None) or e}")
        if len(docs) > 1:
            raise forms.ValidationError(f"{self.fields[name].label} must be one YAML document, not {len(docs)}.")
        value = docs[0] if docs else None
        if value is not None and not isinstance(value, kind):
            raise forms.ValidationError(f"{self.fields[name].label} must be {example}.")
        return value

    def clean_affinity(self):
        return self.clean_yaml("affinity", dict, "a mapping (e.g. nodeAffinity: ...)")

    def clean_tolerations(self):
        return self.clean_yaml("tolerations", list, "a list (e.g. - key: gpu ...)")

    def proposed(self, old):
        """The whole new Pod: the old one with the four directives as edited."""
        pod = copy.deepcopy(old)
        spec = pod.setdefault("spec", {})
        data = self.cleaned_data
        for field, value in (("nodeSelector", data["node_selector"]), ("affinity", data["affinity"]),
                             ("tolerations", data["tolerations"])):
            if value:
                spec[field] = value
            elif field in spec and not spec[field]:
                pass  # keep an explicit empty value as it was
            else:
                spec.pop(field, None)
        gates = [g for g in spec.get("schedulingGates") or [] if g.get("name") not in data["remove_gates"]]
        if gates:
            spec["schedulingGates"] = gates
        else:
            spec.pop("schedulingGates", None)
        return pod


def yaml_text(value):
    return documents.dump(value) if value else ""


def initial_for(pod, revision):
    spec = pod.get("spec") or {}
    return {
        "base_revision": revision.number,
        "node_selector": "\n".join(f"{k}={v}" for k, v in (spec.get("nodeSelector") or {}).items()),
        "affinity": yaml_text(spec.get("affinity")),
        "tolerations": yaml_text(spec.get("tolerations")),
    }


def attempt_context(attempt):
    """What the result fragment shows; where the pod lands once the run has finished."""
    run = attempt.run
    outcome = pod_updates.pod_outcome(run, attempt.pod_namespace, attempt.pod_name) if run else None
    gates_left = pod_text.summary(attempt.proposed)["gates"]
    return {"attempt": attempt, "run": run, "outcome": outcome, "gates_left": gates_left,
            "changes": [t for t in (attempt.explanation or {}).get("terms", []) if t.get("changes")]
            if isinstance(attempt.explanation, dict) else []}


def pod_attempts(scenario, namespace, name):
    return scenario.pod_updates.filter(pod_namespace=namespace, pod_name=name).select_related(
        "author", "revision", "base_revision", "run")


@login_required
def gated_pods(request, pk):
    """The gated pods of the head revision and every attempt of the scenario (panel or page)."""
    scenario = get_scenario(request, pk)
    head = scenario.head()
    try:
        pods, invalid = pod_updates.gated_pods(head), ""
    except engine.ScenarioInvalid as e:
        pods, invalid = [], str(e)
    context = {
        "scenario": scenario, "head": head, "pods": pods, "invalid": invalid,
        "can_edit": scenario.allows(request.user, Role.EDITOR),
        "attempts": scenario.pod_updates.select_related("author", "revision", "base_revision")[:50],
    }
    if request.htmx:
        return render(request, "front/pod_updates.html#gated-pods", context)
    return render(request, "front/pod_updates.html", {**context, "page": "index"})


@login_required
def pod_update(request, pk, namespace, name):
    """The form for one pod; POST proposes the update and shows the result."""
    scenario = get_scenario(request, pk, Role.EDITOR if request.method == "POST" else Role.VIEWER)
    head = scenario.head()
    old = pod_text.find_pod(head.manifests, namespace, name)
    if old is None:
        raise Http404(f"Pod {namespace}/{name} is not in revision r{head.number}.")
    gates = pod_text.summary(old)["gates"]
    attempt = stale = None
    if request.method == "POST":
        form = PodUpdateForm(request.POST, gates=gates)
        if form.is_valid():
            try:
                attempt = pod_updates.propose(
                    scenario, namespace, name, author=request.user, pod=form.proposed(old),
                    base=form.cleaned_data["base_revision"])
            except services.StaleRevision as e:
                stale = e.current
    else:
        form = PodUpdateForm(initial=initial_for(old, head), gates=gates)
    context = {
        "scenario": scenario, "head": head, "namespace": namespace, "name": name, "pod": old,
        "summary": pod_text.summary(old), "form": form, "stale": stale,
        "can_edit": scenario.allows(request.user, Role.EDITOR),
        "attempts": pod_attempts(scenario, namespace, name)[:50],
    }
    if attempt is not None:
        context.update(attempt_context(attempt))
        if attempt.allowed:  # the form now edits the new head
            new_old = pod_text.find_pod(attempt.revision.manifests, namespace, name)
            context["form"] = PodUpdateForm(initial=initial_for(new_old, attempt.revision),
                                            gates=pod_text.summary(new_old)["gates"])
            context["head"], context["summary"] = attempt.revision, pod_text.summary(new_old)
    if request.htmx and request.method == "POST":
        return render(request, "front/pod_updates.html#pod-update-response", context)
    return render(request, "front/pod_updates.html", {**context, "page": "pod"})


@login_required
def pod_update_attempt(request, pk, attempt_id):
    """One attempt's result; polls while its run is queued or running."""
    scenario = get_scenario(request, pk)
    attempt = get_object_or_404(
        PodUpdateAttempt.objects.select_related("author", "revision", "base_revision", "run"),
        scenario=scenario, pk=attempt_id)
    context = {"scenario": scenario, **attempt_context(attempt)}
    if request.htmx:
        return render(request, "front/_pod_update_result.html", context)
    return render(request, "front/pod_updates.html", {**context, "page": "attempt"})
