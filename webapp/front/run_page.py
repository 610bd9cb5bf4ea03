"""The run page's rows, laid out once, when the worker stores the run.

A 5,000-node run's result is 136 MB of JSON: reading it whole takes a web process about two seconds before
the page can start. The run page shows a fraction of it (the pods not scheduled first, at most RUN_PAGE_ROWS
of each list, why pods are pending, who was preempted), so the worker lays those rows out from the result
it has in hand (`rows`), stores them beside the run (RunPage), and the page reads them instead of the result.
Every count in them is the engine's ("counts"); a run stored before them is laid out from its result. The
topology and timeline pages' facts about every pod (the legend's workloads, the pods with spread constraints to
offer) are laid out the same way (results.topology_facts).
"""

from django.dispatch import receiver

from webapp.scenarios.signals import run_computed

from . import results

# A run page lists at most this many pods, events and nodes unless asked for all (?all=1): a
# 5,000-node run's page of every row was 9.6 MB, seconds to lay out in a browser.
RUN_PAGE_ROWS = 1000


def rows(result, show_all=False):
    """The run page's rows of a finished run's ``result`` (all of them with ``show_all``)."""
    result = result or {}
    meta = result.get("podInfo") or {}
    pods = result.get("pods", [])
    placed = {}
    for row in pods:
        if row.get("node"):
            placed.setdefault(row["node"], []).append(row["pod"])
    counts = result.get("counts")
    if counts is not None:
        outcomes = counts["outcomes"]
    else:  # (a result stored before the engine counted)
        outcomes = {}
        for row in pods:
            outcomes[row.get("outcome")] = outcomes.get(row.get("outcome"), 0) + 1
    events = result.get("events", [])
    shown_pods, shown_events = pods, events
    if not show_all:
        if len(pods) > RUN_PAGE_ROWS:  # the pods a what-if is about first: those not scheduled
            shown_pods = [r for r in pods if r.get("outcome") != "Scheduled"]
            shown_pods += [r for r in pods if r.get("outcome") == "Scheduled"][:max(RUN_PAGE_ROWS - len(shown_pods), 0)]
            shown_pods = shown_pods[:RUN_PAGE_ROWS]
        shown_events = events[:RUN_PAGE_ROWS]
    shown = {r["pod"] for r in shown_pods}
    nominated = {e["pod"]: e.get("node") for e in events if e.get("reason") == "Nominated" and e["pod"] in shown}
    return {
        "pods": [dict(r, priority=(meta.get(r["pod"]) or {}).get("priority"), was_nominated=nominated.get(r["pod"]))
                 for r in shown_pods],
        "placed": placed,
        "outcomes": sorted(outcomes.items()),
        "pending_groups": results.pending_groups(result, meta),
        "preempted": results.preempted(result, meta),
        "events": shown_events,
        "evicted": result.get("evicted", []),
        "ignored": result.get("ignored", []),
        "totals": {"pods": len(pods), "events": len(events)},
    }


@receiver(run_computed)
def _rows_to_store(sender, run, result, **kwargs):
    """The worker has a run's result in hand: the page's rows, for it to store with the run."""
    return {"rows": rows(result)}


@receiver(run_computed)
def _topology_facts_to_store(sender, run, result, **kwargs):
    """The worker has a run's result in hand: what the topology and timeline pages read of every pod
    (results.topology_facts), for it to store with the run."""
    return {"topology": results.topology_facts(result or {})}
