"""Every revision keeps its full summary and every finished sweep cell its row.

Revisions saved before a part of the summary was kept (the engine's load summary, the gated pods, the sweep
form's outline) and sweep cells run before their rows were kept get them now, so pages only read what is
stored. A text the engine no longer accepts keeps its node rows and counts, with no load summary, no gated
pods and an empty outline (its pages say why when they load it).
"""

from django.db import migrations

PARTS = ("nodes", "counts", "load", "gated", "sweep_outline")


def fill(apps, schema_editor):
    from webapp.scenarios import compare, engine
    from webapp.scenarios.manifests import summary

    Revision = apps.get_model("scenarios", "Revision")
    Run = apps.get_model("scenarios", "Run")
    for revision in Revision.objects.only("pk", "manifests", "config", "summary").iterator(chunk_size=20):
        found = revision.summary or {}
        if all(part in found for part in PARTS):
            continue
        try:
            found = summary.of_text(revision.manifests, revision.config)
        except engine.ScenarioInvalid:
            found = dict(summary.summarize(revision.manifests), load=None, gated=[],
                         sweep_outline={"workloads": [], "zones": []})
        Revision.objects.filter(pk=revision.pk).update(summary=found)
    cells = Run.objects.filter(sweep__isnull=False, status="succeeded", summary__isnull=True,
                               result__isnull=False)
    for run in cells.only("pk", "result").iterator(chunk_size=20):
        Run.objects.filter(pk=run.pk).update(summary=compare.cell_summary(run.result))


class Migration(migrations.Migration):
    dependencies = [("scenarios", "0005_teams_activity")]
    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
