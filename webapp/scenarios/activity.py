"""One helper writes the activity rows; the services call it where each action happens."""

from django.utils import timezone

from .models import Activity, ScenarioVisit

Verb = Activity.Verb


def record(actor, verb, *, team=None, scenario=None, object="", **data):
    """Note that `actor` did `verb` (on `object`, in `scenario` or else `team`)."""
    team_id = team.pk if team is not None else scenario.team_id
    return Activity.objects.create(
        actor=actor if actor is not None and actor.is_authenticated else None,
        verb=verb, team_id=team_id, scenario=scenario, object=str(object)[:300], data=data,
    )


def of_scenario(scenario):
    return Activity.objects.filter(scenario=scenario).select_related("actor")


def of_team(team):
    return Activity.objects.filter(team=team).select_related("actor", "scenario")


def mark_seen(user, scenario):
    """Remember that `user` has just looked at `scenario`."""
    ScenarioVisit.objects.update_or_create(user=user, scenario=scenario, defaults={"seen_at": timezone.now()})


# How the scenario list names what others did since a user's last look.
CHANGE_NOUNS = {
    Verb.REVISION_SAVED: ("revision", "revisions"),
    Verb.RUN_QUEUED: ("run", "runs"),
    Verb.SWEEP_STARTED: ("sweep", "sweeps"),
    Verb.POD_UPDATE_PROPOSED: ("pod update", "pod updates"),
    Verb.SHARE_LINK_CREATED: ("share link", "share links"),
    Verb.SHARE_LINK_REVOKED: ("revoked link", "revoked links"),
    Verb.SCENARIO_RENAMED: ("rename", "renames"),
    Verb.SCENARIO_FORKED: ("fork", "forks"),
}


def changes_since_seen(user, scenarios):
    """{scenario id: {"seen": bool, "changes": ["2 revisions", "1 run"], "by": ["ed"]}}: what others did
    in each scenario since `user` last opened it (nothing listed for a scenario never opened)."""
    ids = [s.pk for s in scenarios]
    seen = dict(ScenarioVisit.objects.filter(user=user, scenario_id__in=ids).values_list("scenario_id", "seen_at"))
    out = {pk: {"seen": pk in seen, "changes": [], "by": []} for pk in ids}
    rows = (Activity.objects.filter(scenario_id__in=list(seen)).exclude(actor=user)
            .values_list("scenario_id", "verb", "created_at", "actor__username").order_by("created_at"))
    counts = {}
    for pk, verb, at, who in rows:
        if at <= seen[pk] or verb not in CHANGE_NOUNS:
            continue
        counts.setdefault(pk, {}).setdefault(verb, 0)
        counts[pk][verb] += 1
        by = out[pk]["by"]
        if (who or "someone") not in by:
            by.append(who or "someone")
    for pk, per_verb in counts.items():
        out[pk]["changes"] = [f"{n} {CHANGE_NOUNS[v][0 if n == 1 else 1]}"
                              for v, n in sorted(per_verb.items(), key=lambda kv: list(CHANGE_NOUNS).index(kv[0]))]
    return out
