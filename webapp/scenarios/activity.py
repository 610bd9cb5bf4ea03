"""One helper writes the activity rows; the services call it where each action happens."""

from django.db.models import Count, Min, OuterRef, Subquery
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
    seen = set(ScenarioVisit.objects.filter(user=user, scenario_id__in=ids).values_list("scenario_id", flat=True))
    out = {pk: {"seen": pk in seen, "changes": [], "by": []} for pk in ids}
    last_seen = ScenarioVisit.objects.filter(user=user, scenario=OuterRef("scenario")).values("seen_at")[:1]
    since = (Activity.objects.filter(scenario_id__in=seen, verb__in=list(CHANGE_NOUNS))
             .exclude(actor=user).filter(created_at__gt=Subquery(last_seen)))
    order = list(CHANGE_NOUNS)
    counts = since.order_by().values_list("scenario_id", "verb").annotate(n=Count("id"))
    for pk, verb, n in sorted(counts, key=lambda row: (row[0], order.index(row[1]))):
        out[pk]["changes"].append(f"{n} {CHANGE_NOUNS[verb][0 if n == 1 else 1]}")
    actors = since.values_list("scenario_id", "actor__username").annotate(first=Min("created_at")).order_by("first")
    for pk, who, _ in actors:
        out[pk]["by"].append(who or "someone")
    return out
