"""Drafts: one user's unsaved edits of a scenario, run and saved through services."""

from django.utils import timezone

from . import engine, services
from .manifests import documents, edits
from .models import Draft, Run


def summary(manifests, config=""):
    """(ok, message, warnings, object, field): the engine's verdict on a text, for the editor
    (remembered per text: opening a large draft again does not load it into the engine again)."""
    config_key = engine.text_key(config or "").hex()
    return dict(documents.memo(f"check:{config_key}", manifests, lambda: _summary(manifests, config)))


def _summary(manifests, config=""):
    try:
        scenario = engine.load(manifests, config, keep=False)  # typed, not saved
    except engine.ScenarioInvalid as e:
        return {"ok": False, "message": str(e), "object": e.object, "field": e.field,
                "input": e.input, "warnings": []}
    pods = list(scenario.pods)
    pending = sum(1 for p in pods if not p.node_name)
    gated = sum(1 for p in pods if p.scheduling_gates)
    return {
        "ok": True, "object": "", "field": "", "input": "",
        "message": f"valid: {len(scenario.nodes)} nodes, {len(pods)} pods ({pending} pending, {gated} gated)",
        "warnings": [str(w) for w in scenario.warnings],
        "nodes": len(scenario.nodes), "pods": len(pods), "pending": pending, "gated": gated,
    }


def get_or_start(scenario, user):
    """The user's draft of the scenario, started from the current revision if there is none."""
    draft = Draft.objects.filter(scenario=scenario, author=user).select_related("base_revision").first()
    if draft is None:
        head = scenario.head()
        draft, _ = Draft.objects.get_or_create(
            scenario=scenario, author=user,
            defaults={"base_revision": head, "manifests": head.manifests, "config": head.config},
        )
    return draft


def find(scenario, user):
    return Draft.objects.filter(scenario=scenario, author=user).select_related("base_revision").first()


def set_text(draft, manifests, config=None):
    """Store the text as typed (validity is shown, not enforced: a draft may be mid-edit)."""
    draft.manifests = manifests
    if config is not None:
        draft.config = config
    draft.edits = list(draft.edits) + [{"op": "text"}]
    draft.updated_at = timezone.now()
    draft.save()
    return draft


def apply(draft, edit):
    """Apply one structured edit; raises edits.EditError / engine.ScenarioInvalid, draft unchanged."""
    draft.manifests = edits.apply_edit(draft.manifests, edit, draft.config)
    draft.edits = list(draft.edits) + [edit]
    draft.updated_at = timezone.now()
    draft.save()
    return draft


def run(draft, user, seed=0):
    """Queue a Run of the draft's text (label "draft"), based on its base revision."""
    engine.validate(draft.manifests, draft.config)
    return services.queue_run(draft.scenario, draft.base_revision, user=user, source=Run.Source.DRAFT,
                              seed=seed, manifests=draft.manifests, config=draft.config, label="draft")


def save(draft, user, message=""):
    """A new revision from the draft (stale-checked against its base), then the draft is gone."""
    revision = services.save_revision(
        draft.scenario, manifests=draft.manifests, config=draft.config, author=user,
        message=message or describe(draft.edits), base=draft.base_revision.number,
    )
    draft.delete()
    return revision


def rebase(draft):
    """Keep the draft's text but base it on the current revision (after a stale save)."""
    draft.base_revision = draft.scenario.head()
    draft.save()
    return draft


def describe(edit_list):
    ops = [e.get("op", "?") for e in edit_list if isinstance(e, dict)]
    if not ops:
        return "Draft"
    return "Draft: " + ", ".join(ops[:8]) + (" …" if len(ops) > 8 else "")


def latest_runs(draft):
    """(the draft's latest run, the base revision's latest plain run)."""
    mine = draft.scenario.runs.filter(source=Run.Source.DRAFT, created_by=draft.author) \
        .order_by("-created_at", "-id").first()
    saved = draft.scenario.runs.filter(revision=draft.base_revision, source=Run.Source.REVISION) \
        .order_by("-created_at", "-id").first()
    return mine, saved
