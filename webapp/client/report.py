"""What a run's result says, for people (text), scripts (JSON) and CI systems (JUnit XML).

Everything here reads the engine's result as stored: outcomes and messages from `pods`,
preemptions from the `Nominated` / `Preempted` events, the spread skews the engine worked out
in the explanations of the pods it left pending, and each spread constraint's skew at the end
of the run (`spreadDomains`). Nothing is recomputed.
"""

from xml.etree import ElementTree as ET

SCHEDULED, UNSCHEDULABLE, GATED = "Scheduled", "Unschedulable", "Gated"


def preemptions(result):
    """[{"pod", "node", "victims"}]: each nomination, with the pods the engine evicted for it."""
    out, by_cycle = [], {}
    for event in result.get("events", []):
        if event.get("reason") == "Nominated":
            entry = {"pod": event.get("pod"), "node": event.get("node"), "victims": []}
            out.append(entry)
            by_cycle[(event.get("cycle"), event.get("node"))] = entry
        elif event.get("reason") == "Preempted":
            entry = by_cycle.get((event.get("cycle"), event.get("node")))
            if entry is not None:
                entry["victims"].append(event.get("pod"))
    return out


def spread_violations(result, keys):
    """Pending pods the engine found no domain for within maxSkew, on a constraint over one of `keys`.

    The skews are the engine's: per domain, the skew that placing the pod there would give
    (its explanation of the pod's latest cycle).
    """
    out = []
    explanations = result.get("explanations") or {}
    for row in result.get("pods", []):
        if row.get("outcome") != UNSCHEDULABLE:
            continue
        plugin = ((explanations.get(row["pod"]) or {}).get("plugins") or {}).get("PodTopologySpread") or {}
        for c in plugin.get("constraints") or []:
            skews = c.get("skews") or {}
            if c.get("topologyKey") in keys and skews and min(skews.values()) > c.get("maxSkew", 1):
                out.append({"pod": row["pod"], "topologyKey": c["topologyKey"], "maxSkew": c.get("maxSkew"),
                            "whenUnsatisfiable": c.get("whenUnsatisfiable"), "selector": c.get("selector"),
                            "skews": skews})
    return out


def skew_exceeded(result, keys):
    """Spread constraints over one of `keys` that end the run with a skew above their maxSkew (the engine's
    final count: ScheduleAnyway constraints, and skew that was there before the run, included)."""
    return [{"topologyKey": c["topologyKey"], "selector": c.get("selector"), "maxSkew": c.get("maxSkew"),
             "whenUnsatisfiable": c.get("whenUnsatisfiable"), "skew": c.get("skew"), "domains": c.get("domains") or {},
             "workloads": c.get("workloads") or []}
            for c in result.get("spreadDomains") or []
            if c.get("topologyKey") in keys and c.get("withinMaxSkew") is False]


def summarize(result, spread_keys=()):
    pods = result.get("pods", [])
    return {
        "scheduled": sum(1 for p in pods if p.get("outcome") == SCHEDULED),
        "placed": [{"pod": p["pod"], "node": p.get("node")} for p in pods if p.get("outcome") == SCHEDULED],
        "pending": [{"pod": p["pod"], "message": p.get("message") or "", "nominatedNode": p.get("nominatedNode")}
                    for p in pods if p.get("outcome") == UNSCHEDULABLE],
        "gated": [p["pod"] for p in pods if p.get("outcome") == GATED],
        "evicted": list(result.get("evicted", [])),
        "preemptions": preemptions(result),
        "spread": spread_violations(result, set(spread_keys)),
        "skew": skew_exceeded(result, set(spread_keys)),
    }


def verdict(summary, allow_pending=False):
    """(passed, reasons): a check fails on pending pods (unless allowed) and on spread violations."""
    reasons = []
    if summary["pending"] and not allow_pending:
        reasons.append(f"{len(summary['pending'])} pod(s) stay pending")
    if summary["spread"]:
        reasons.append(f"{len(summary['spread'])} pod(s) cannot be placed within a chosen spread constraint's maxSkew")
    if summary["skew"]:
        reasons.append(f"{len(summary['skew'])} chosen spread constraint(s) end the run above their maxSkew")
    return not reasons, reasons


def text(summary, title):
    lines = [title,
             f"  scheduled {summary['scheduled']}, pending {len(summary['pending'])}, gated {len(summary['gated'])}, "
             f"evicted {len(summary['evicted'])}"]
    if summary["pending"]:
        lines.append("  pending:")
        for p in summary["pending"]:
            nominated = f" (nominated to {p['nominatedNode']})" if p.get("nominatedNode") else ""
            lines.append(f"    {p['pod']}{nominated}: {p['message']}")
    if summary["gated"]:
        lines.append("  gated: " + ", ".join(summary["gated"]))
    if summary["preemptions"]:
        lines.append("  preemptions:")
        for p in summary["preemptions"]:
            victims = ", ".join(p["victims"]) or "no victim recorded"
            lines.append(f"    {p['pod']} nominated to {p['node']}, evicting {victims}")
    for v in summary["spread"]:
        skews = ", ".join(f"{d}={s}" for d, s in sorted(v["skews"].items()))
        lines.append(f"  spread: {v['pod']}: {v['topologyKey']} maxSkew {v['maxSkew']} exceeded in every domain "
                     f"(skew if placed: {skews})")
    for c in summary["skew"]:
        lines.append(f"  skew: {exceeded(c)}")
    return "\n".join(lines)


def exceeded(c):
    """One line for a constraint that ends above its maxSkew."""
    domains = ", ".join(f"{d}={n}" for d, n in sorted(c["domains"].items()))
    return (f"{c['topologyKey']} ({c['selector'] or 'all pods'}, {c['whenUnsatisfiable']}): skew {c['skew']} > "
            f"maxSkew {c['maxSkew']} at the end of the run (matching pods: {domains})")


def junit(summary, suite, allow_pending=False):
    """A JUnit XML report: one test case per pod the run placed or left pending, one per spread violation."""
    root = ET.Element("testsuites")
    cases = [(f"{p['pod']} scheduled on {p['node']}", None) for p in summary["placed"]]
    for p in summary["pending"]:
        cases.append((p["pod"], None if allow_pending else f"pending: {p['message']}"))
    for v in summary["spread"]:
        cases.append((f"{v['pod']} spread {v['topologyKey']}",
                      f"maxSkew {v['maxSkew']} exceeded in every domain: {v['skews']}"))
    for c in summary["skew"]:
        cases.append((f"spread {c['topologyKey']} ({c['selector'] or 'all pods'})", exceeded(c)))
    failures = sum(1 for _, f in cases if f)
    ts = ET.SubElement(root, "testsuite", name=suite, tests=str(len(cases)), failures=str(failures), errors="0")
    for name, failure in cases:
        case = ET.SubElement(ts, "testcase", classname=suite, name=name)
        if failure:
            ET.SubElement(case, "failure", message=failure.splitlines()[0][:500]).text = failure
    return ET.tostring(root, encoding="unicode", xml_declaration=True)
