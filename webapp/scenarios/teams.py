"""Teams and memberships as users manage them: every rule about owners lives here.

The views (pages and API) check who may call an operation; these functions check what the
team must keep: one membership per user, and at least one owner.
"""

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from . import activity, services
from .models import Membership, Team

Role = Membership.Role
Verb = activity.Verb


class TeamError(Exception):
    """An operation the team's rules refuse; `field` names the input at fault."""

    def __init__(self, message, field="non_field_errors"):
        super().__init__(message)
        self.field = field


def create_team(name, owner):
    name = name.strip()
    if not name:
        raise TeamError("A team needs a name.", "name")
    try:
        with transaction.atomic():
            team = Team.objects.create(name=name)
            Membership.objects.create(team=team, user=owner, role=Role.OWNER)
    except IntegrityError:
        raise TeamError(f"A team named “{name}” already exists.", "name")
    activity.record(owner, Verb.TEAM_CREATED, team=team, object=team.name)
    return team


def find_user(username):
    user = get_user_model().objects.filter(username=username.strip(), is_active=True).first()
    if user is None:
        raise TeamError(f"No user is named “{username}”.", "username")
    return user


def check_role(role):
    if role not in Role.values:
        raise TeamError(f"“{role}” is not a role; choose viewer, editor or owner.", "role")


def add_member(team, username, role, *, by):
    check_role(role)
    user = find_user(username)
    try:
        with transaction.atomic():
            membership = Membership.objects.create(team=team, user=user, role=role)
    except IntegrityError:
        raise TeamError(f"{user.username} is already a member of {team.name}.", "username")
    activity.record(by, Verb.MEMBER_ADDED, team=team, object=f"{user.username} as {role}")
    return membership


def _locked(team, username):
    """The team's memberships locked for the change, and the one of `username` (TeamError if none)."""
    rows = list(Membership.objects.select_for_update().filter(team=team).select_related("user").order_by("pk"))
    for m in rows:
        if m.user.username == username:
            return rows, m
    raise TeamError(f"{username} is not a member of {team.name}.", "username")


def _owners_left(rows, without):
    return [m for m in rows if m.role == Role.OWNER and m.pk != without.pk]


def change_role(team, username, role, *, by):
    check_role(role)
    with transaction.atomic():
        rows, m = _locked(team, username)
        if m.role == Role.OWNER and role != Role.OWNER and not _owners_left(rows, m):
            raise TeamError(f"{username} is the last owner of {team.name}: make someone else an owner first.", "role")
        old, m.role = m.role, role
        m.save(update_fields=["role"])
    if old != role:
        activity.record(by, Verb.MEMBER_ROLE_CHANGED, team=team, object=f"{username}: {old} → {role}")
    return m


def remove_member(team, username, *, by):
    """Remove a member (`by` is an owner) or leave the team (`by` is the member)."""
    with transaction.atomic():
        rows, m = _locked(team, username)
        if m.role == Role.OWNER and not _owners_left(rows, m):
            leaving = by is not None and by.pk == m.user_id
            raise TeamError(
                f"{'You are' if leaving else username + ' is'} the last owner of {team.name}: "
                "hand ownership to another member first.", "username")
        m.delete()
    if by is not None and by.pk == m.user_id:
        activity.record(by, Verb.MEMBER_LEFT, team=team, object=username)
    else:
        activity.record(by, Verb.MEMBER_REMOVED, team=team, object=username)


def transfer_ownership(team, username, *, by):
    """Make `username` an owner and `by` (an owner) an editor, in one step."""
    with transaction.atomic():
        rows, target = _locked(team, username)
        mine = next((m for m in rows if m.user_id == by.pk), None)
        if mine is None or mine.role != Role.OWNER:
            raise TeamError("Only an owner can hand over ownership.")
        if target.pk == mine.pk:
            raise TeamError("You already own this team; choose another member.", "username")
        target.role = Role.OWNER
        target.save(update_fields=["role"])
        mine.role = Role.EDITOR
        mine.save(update_fields=["role"])
    activity.record(by, Verb.MEMBER_ROLE_CHANGED, team=team,
                    object=f"ownership handed to {username} ({by.username} is now an editor)")


def editable_teams(user):
    """Teams where `user` may create scenarios (editor or owner)."""
    return Team.objects.filter(memberships__user=user, memberships__role__in=[Role.EDITOR, Role.OWNER])


def fork_scenario(scenario, *, team, name, author):
    """A new scenario in `team` with the source's current text as its revision 1, linked to the source."""
    head = scenario.head()
    copy = services.create_scenario(
        team=team, name=name, manifests=head.manifests, config=head.config, author=author,
        message=f"Forked from “{scenario.name}” r{head.number}", record=False,
    )
    copy.forked_from, copy.forked_from_revision = scenario, head.number
    copy.save(update_fields=["forked_from", "forked_from_revision"])
    activity.record(author, Verb.SCENARIO_FORKED, scenario=copy,
                    object=f"from {scenario.name} r{head.number}", source=scenario.pk, revision=head.number)
    if scenario.team_id != team.pk:
        # The source's team sees that its scenario was copied out, not where to: the target may be private.
        activity.record(author, Verb.SCENARIO_FORKED, scenario=scenario,
                        object=f"r{head.number} into another team")
    else:
        activity.record(author, Verb.SCENARIO_FORKED, scenario=scenario,
                        object=f"r{head.number} as {name}", fork=copy.pk)
    return copy
