"""The smallest change that would schedule a run's pending pods, checked by running it.

From the engine's explanation of each group of pending pods (the spread constraints its latest cycle saw), the
candidates are small changes of the workload's own constraint, smallest first: one more maxSkew, minDomains
down to the domains there are, two and three more maxSkew, minDomains unset, ScheduleAnyway; and uncordoning a
cordoned node when the pods were turned away by cordoned nodes. Each candidate is a cell of a sweep ("fixes"),
simulated on the workers like any run; the page offers the first one that leaves no pod pending.
"""

from . import engine
from .manifests import edits

MAX_CANDIDATES = 12


def candidates(result, manifests):
    """[(label, edit)] for the run's pending pods, smallest change first (no two alike)."""
    outline = edits.outline(manifests)
    meta = result.get("podInfo") or {}
    explained = result.get("explanations") or {}
    out = []
    pending = [r for r in result.get("pods", []) if not r.get("node") and r.get("outcome") == "Unschedulable"]
    for row in pending:
        spread = ((explained.get(row["pod"]) or {}).get("plugins") or {}).get("PodTopologySpread") or {}
        workload = _workload_ref(row["pod"], meta, outline)
        for constraint in spread.get("constraints") or []:
            index = _index(workload, constraint)
            if index is None or constraint.get("whenUnsatisfiable") != "DoNotSchedule":
                continue
            ref, skew = workload["ref"], constraint.get("maxSkew", 1)
            base = {"op": "set_spread", "workload": ref, "index": index}
            steps = [dict(base, maxSkew=skew + 1)]
            if constraint.get("minDomainsForcedZero"):
                steps.append(dict(base, minDomains=max(constraint.get("domainCount", 1), 1)))
            steps += [dict(base, maxSkew=skew + 2), dict(base, maxSkew=skew + 3)]
            if constraint.get("minDomains", 1) > 1:
                steps.append(dict(base, minDomains="unset"))
            soft = dict(base, whenUnsatisfiable="ScheduleAnyway")
            steps.append(dict(soft, minDomains="unset") if constraint.get("minDomains", 1) > 1 else soft)
            out += steps
        if "unschedulable" in (row.get("message") or ""):
            out += [{"op": "uncordon", "node": n["name"]} for n in outline["nodes"] if n["unschedulable"]][:3]
    unique = []
    for edit in out:
        if edit not in unique and len(unique) < MAX_CANDIDATES and _applies(manifests, edit):
            unique.append(edit)
    return [(edits.describe(e), e) for e in unique]


def _applies(manifests, edit):
    try:
        edits.apply_edit(manifests, edit)
    except (edits.EditError, engine.ScenarioInvalid):  # (a change the API server would refuse)
        return False
    return True


def _workload_ref(pod, meta, outline):
    """The outline's workload that makes the pod (its owner), else its pod group (app=...)."""
    namespace = pod.split("/")[0]
    owner = (meta.get(pod) or {}).get("owner") or ""
    kind, _, name = owner.partition("/")
    wanted = {f"{kind}/{namespace}/{name}", f"app={(meta.get(pod) or {}).get('labels', {}).get('app')}",
              f"Pod/{pod}"}
    return next((w for w in outline["workloads"] if w["ref"] in wanted), None)


def _index(workload, constraint):
    """Which of the workload's own constraints the explained one is (None for cluster defaults)."""
    if workload is None:
        return None
    for i, c in enumerate(workload["constraints"]):
        if c.get("topologyKey") == constraint.get("topologyKey") and \
                c.get("whenUnsatisfiable", "DoNotSchedule") == constraint.get("whenUnsatisfiable") and \
                c.get("maxSkew") == constraint.get("maxSkew"):
            return i
    return None


def outcome(sweep):
    """[{label, edit, run, status, pending, fixes}] of a fixes sweep, in the candidates' order, and the first that
    leaves no pod pending (or None)."""
    rows = []
    for run in sweep.runs.defer("result", "manifests").order_by("id"):
        found = run.summary or {}
        rows.append({"label": run.label, "edit": run.variant.get("edit"), "run": run, "status": run.status,
                     "pending": found.get("pending"), "fixes": found.get("pending") == 0})
    return rows, next((r for r in rows if r["fixes"]), None)
