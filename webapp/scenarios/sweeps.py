"""Sweeps: a grid of edits of one revision, each cell simulated as its own Run on the workers."""

from django.db import transaction

from . import activity, fixes, services
from .manifests import edits
from .models import Run, Sweep

MAX_CELLS = 48
KEEP = object()  # minDomains not swept: left as it is


class SweepInvalid(edits.EditError):
    pass


def _values(raw, name):
    """The values of one axis: a list, or text such as "1,2,3", "1..4" (a range) or "none,3..5"."""
    if isinstance(raw, str):
        raw = [x for x in raw.replace(" ", ",").split(",") if x]
    if not isinstance(raw, list) or not raw:
        raise SweepInvalid(f"{name} needs at least one value", object="sweep", field=name)
    out = []
    for v in raw:
        if str(v).lower() in ("none", "unset", "-") and name == "minDomains":
            out.append(None)
            continue
        if isinstance(v, str) and ".." in v:
            out += _range(v, name)
            continue
        try:
            out.append(int(v))
        except (TypeError, ValueError):
            raise SweepInvalid(f"{name}: {v!r} is not a whole number", object="sweep", field=name)
    # (every cell's value is checked here: the workers apply the other cells' edits after the sweep is accepted)
    for v in out:
        if v is not None and v < 1:
            raise SweepInvalid(f"{name}: {v} is not allowed; it must be greater than zero", object="sweep",
                               field=name)
    return out


def _range(text, name):
    low, _, high = text.partition("..")
    try:
        low, high = int(low), int(high)
    except ValueError:
        raise SweepInvalid(f"{name}: {text!r} is not a range such as 1..4", object="sweep", field=name)
    if not low <= high or high - low >= MAX_CELLS:
        raise SweepInvalid(f"{name}: the range {text} must go up, by at most {MAX_CELLS} values",
                           object="sweep", field=name)
    return list(range(low, high + 1))


def cells(revision, spec):
    """[(label, variant, edit list)] of a sweep spec; raises SweepInvalid."""
    kind = spec.get("type")
    if kind == "skew":
        workload = spec.get("workload")
        index = spec.get("index", 0)
        skews = _values(spec.get("maxSkew"), "maxSkew")
        keep = spec.get("minDomains") in (None, "", [])
        domains = [KEEP] if keep else _values(spec.get("minDomains"), "minDomains")
        grid = [(s, d) for s in skews for d in domains]
        _bound(len(grid))
        out = []
        for s, d in grid:
            edit = {"op": "set_spread", "workload": workload, "index": index, "maxSkew": s}
            if d is KEEP:
                out.append((f"maxSkew={s}", {"maxSkew": s}, [edit]))
                continue
            edit["minDomains"] = "unset" if d is None else d
            out.append((f"maxSkew={s} minDomains={'-' if d is None else d}",
                        {"maxSkew": s, "minDomains": d}, [edit]))
        return out
    if kind == "zones":
        key = spec.get("key") or edits.ZONE_KEY
        zones = edits.outline_zones(revision.manifests, key)
        if not zones:
            raise SweepInvalid(f"no node has a {key} label", object="sweep", field="key")
        _bound(len(zones))
        return [(f"without {key}={z}", {"removed_zone": z}, [{"op": "remove_zone", "zone": z, "key": key}])
                for z in zones]
    if kind == "fixes":  # the candidate fixes of a run's pending pods (fixes.py)
        run = revision.runs.filter(pk=spec.get("run"), status=Run.Status.SUCCEEDED).first()
        found = fixes.candidates(run.result, revision.manifests) if run else []
        if not found:
            raise SweepInvalid("no change of the pods' own spread constraints or of cordoned nodes to try",
                               object="sweep", field="run")
        return [(label, {"edit": edit}, [edit]) for label, edit in found]
    raise SweepInvalid("type must be \"skew\" (maxSkew × minDomains) or \"zones\" (remove each zone)",
                       object="sweep", field="type")


def _bound(n):
    if n > MAX_CELLS:
        raise SweepInvalid(f"the grid has {n} cells; at most {MAX_CELLS} are allowed", object="sweep",
                           field="cells")


def start(scenario, revision, spec, user):
    """Create the Sweep and one queued Run per cell; raises SweepInvalid / engine.ScenarioInvalid.

    Only the first cell's edits are applied here, which checks the spec against the text (an unknown workload or
    index, an invalid value) before anything is stored; each other cell's worker applies its own edits (a cell
    whose edits fail then fails with the error). Writing and checking every cell's text in the request took
    minutes on a 5,000-node cluster, past a proxy's patience; the workers do it side by side."""
    planned = cells(revision, spec)
    if not planned:
        raise SweepInvalid("the sweep has no cells", object="sweep", field="cells")
    first = edits.apply_edits(revision.manifests, planned[0][2], revision.config)
    with transaction.atomic():
        sweep = Sweep.objects.create(scenario=scenario, revision=revision, spec=spec, created_by=user)
        runs = [services.queue_run(scenario, revision, user=user, source=Run.Source.SWEEP_CELL,
                                   manifests=first if i == 0 else "", edits=None if i == 0 else edit_list,
                                   config=revision.config, label=label, sweep=sweep, variant=variant, record=False)
                for i, (label, variant, edit_list) in enumerate(planned)]
    activity.record(user, activity.Verb.SWEEP_STARTED, scenario=scenario,
                    object=f"sweep {sweep.pk} of revision {revision.number} ({len(runs)} runs)", sweep=sweep.pk)
    return sweep


def form_outline(revision):
    """What the sweep form offers for a revision: its workloads (with whether they have spread constraints)
    and zones, as kept in its summary when it was saved."""
    return revision.summary["sweep_outline"]


def table(sweep):
    """One row per cell: its run, counts and the max skew observed per constraint."""
    rows = []
    for run in sweep.runs.defer("result", "manifests").order_by("id"):
        row = {"run": run, "label": run.label, "variant": run.variant, "status": run.status,
               "scheduled": None, "pending": None, "skew": {}, "error": run.error}
        if run.status == Run.Status.SUCCEEDED:
            found = run.summary  # kept with the cell when it finished
            if found is not None:
                row.update(scheduled=found["scheduled"], pending=found["pending"], skew=found["skew"])
        rows.append(row)
    return rows


def finished(sweep):
    return not sweep.runs.exclude(status__in=Run.FINISHED).exists()
