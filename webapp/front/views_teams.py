"""Team pages (list, create, members, activity) and a scenario's fork form and activity page.

Outsiders get 404 for a team they are not in; a member without the role a form
needs gets 403; a rule of the team (its last owner stays) is shown as a message.
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from webapp.scenarios import activity, teams
from webapp.scenarios.models import Membership, Team

from .views import get_scenario

Role = Membership.Role


class TeamForm(forms.Form):
    name = forms.CharField(max_length=100, label="Team name")


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Role.choices, initial=Role.VIEWER)


class ForkForm(forms.Form):
    team = forms.ModelChoiceField(queryset=Team.objects.none(), label="Into team",
                                  help_text="Teams where you are an editor or owner.")
    name = forms.CharField(max_length=200)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["team"].queryset = teams.editable_teams(user).order_by("name")


def get_team(request, pk, role=Role.VIEWER):
    """The team if the user is in it (else 404) with at least `role` (else 403), and the user's role."""
    team = get_object_or_404(Team.objects.filter(memberships__user=request.user), pk=pk)
    mine = team.memberships.get(user=request.user).role
    if Membership.RANK[mine] < Membership.RANK[role]:
        raise PermissionDenied
    return team, mine


@login_required
def team_list(request):
    form = TeamForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            team = teams.create_team(form.cleaned_data["name"], request.user)
        except teams.TeamError as e:
            form.add_error("name", str(e))
        else:
            messages.success(request, f"Team “{team.name}” created; you are its owner.")
            return redirect("team-detail", pk=team.pk)
    rows = (Membership.objects.filter(user=request.user).select_related("team").order_by("team__name"))
    return render(request, "front/team_list.html", {"memberships": rows, "form": form})


@login_required
def team_detail(request, pk):
    team, mine = get_team(request, pk)
    members = team.memberships.select_related("user").order_by("user__username")
    return render(request, "front/team_detail.html", {
        "team": team, "role": mine, "is_owner": mine == Role.OWNER, "members": members,
        "roles": Role.choices, "form": MemberForm(),
        "activity": activity.of_team(team)[:50],
        "scenarios": team.scenarios.alive()[:50],
    })


def _team_action(request, team, action, done):
    """Run a team operation; its rule violations become an error message on the team page."""
    try:
        action()
    except teams.TeamError as e:
        messages.error(request, str(e))
    else:
        messages.success(request, done)
    return redirect("team-detail", pk=team.pk)


@login_required
@require_POST
def team_member_add(request, pk):
    team, _ = get_team(request, pk, Role.OWNER)
    form = MemberForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give a username and a role (viewer, editor or owner).")
        return redirect("team-detail", pk=team.pk)
    username, role = form.cleaned_data["username"], form.cleaned_data["role"]
    return _team_action(request, team, lambda: teams.add_member(team, username, role, by=request.user),
                        f"{username} added as {role}.")


@login_required
@require_POST
def team_member_role(request, pk, username):
    team, _ = get_team(request, pk, Role.OWNER)
    get_object_or_404(Membership, team=team, user__username=username)
    role = request.POST.get("role", "")
    return _team_action(request, team, lambda: teams.change_role(team, username, role, by=request.user),
                        f"{username} is now {role}.")


@login_required
@require_POST
def team_member_remove(request, pk, username):
    team, _ = get_team(request, pk, Role.OWNER)
    get_object_or_404(Membership, team=team, user__username=username)
    return _team_action(request, team, lambda: teams.remove_member(team, username, by=request.user),
                        f"{username} removed from {team.name}.")


@login_required
@require_POST
def team_leave(request, pk):
    team, _ = get_team(request, pk)
    try:
        teams.remove_member(team, request.user.username, by=request.user)
    except teams.TeamError as e:
        messages.error(request, str(e))
        return redirect("team-detail", pk=team.pk)
    messages.success(request, f"You left {team.name}.")
    return redirect("team-list")


@login_required
@require_POST
def team_transfer(request, pk):
    team, _ = get_team(request, pk, Role.OWNER)
    username = request.POST.get("username", "")
    return _team_action(request, team, lambda: teams.transfer_ownership(team, username, by=request.user),
                        f"{username} now owns {team.name}; you are an editor.")


@login_required
def scenario_activity(request, pk):
    scenario = get_scenario(request, pk)
    return render(request, "front/scenario_activity.html", {
        "scenario": scenario, "activity": activity.of_scenario(scenario)[:200],
    })


@login_required
def scenario_fork(request, pk):
    scenario = get_scenario(request, pk)
    form = ForkForm(request.POST or None, user=request.user, initial={"name": f"{scenario.name} (fork)"})
    if request.method == "POST" and form.is_valid():
        copy = teams.fork_scenario(scenario, team=form.cleaned_data["team"], name=form.cleaned_data["name"],
                                   author=request.user)
        messages.success(request, f"Forked “{scenario.name}” r{scenario.current_revision} into {copy.team.name}.")
        return redirect("scenario-detail", pk=copy.pk)
    return render(request, "front/scenario_fork.html", {"scenario": scenario, "form": form})
