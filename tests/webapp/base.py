"""Shared set-up for the webapp tests: a team with one user per role, and a small scenario."""

from django.contrib.auth import get_user_model
from django.test import TestCase
from rest_framework.test import APIClient

from webapp.scenarios import services
from webapp.scenarios.models import Membership, Team

SMALL = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    labels: {kubernetes.io/hostname: node-a, topology.kubernetes.io/zone: z1}
  status:
    allocatable: {cpu: "2", memory: 4Gi, pods: "110"}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: default, labels: {app: web}}
  spec:
    containers:
    - name: web
      image: nginx
      resources: {requests: {cpu: 100m, memory: 64Mi}}
"""

# Same scenario, but the pod's spread constraint has maxSkew 0, which the engine refuses.
BAD_SKEW = SMALL + """\
    topologySpreadConstraints:
    - maxSkew: 0
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
      labelSelector: {matchLabels: {app: web}}
"""

# SMALL with a valid spread constraint on web-1 and a PriorityClass to choose.
SPREAD_AND_CLASS = SMALL + """\
    topologySpreadConstraints:
    - maxSkew: 1
      topologyKey: topology.kubernetes.io/zone
      whenUnsatisfiable: DoNotSchedule
      labelSelector: {matchLabels: {app: web}}
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata: {name: high}
  value: 1000
"""

TWO_PODS = SMALL + """\
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2, namespace: default, labels: {app: web}}
  spec:
    containers:
    - name: web
      image: nginx
      resources: {requests: {cpu: 100m, memory: 64Mi}}
"""


def make_user(name, password=None):
    user = get_user_model().objects.create_user(name, password=password)
    return user


def owner_and_small_scenario():
    """An owner ("olga") of a team ("platform") and its "Small cluster" scenario: the set-up of a test that
    cannot share BaseTestCase's class-wide data (a TransactionTestCase, whose queries may break a transaction)."""
    owner = make_user("olga")
    team = Team.objects.create(name="platform")
    Membership.objects.create(team=team, user=owner, role="owner")
    return owner, services.create_scenario(team=team, name="Small cluster", manifests=SMALL, author=owner,
                                           message="first")


class BaseTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.owner = make_user("olga")
        cls.editor = make_user("ed")
        cls.viewer = make_user("vic")
        cls.outsider = make_user("mallory")
        cls.team = Team.objects.create(name="platform")
        cls.other_team = Team.objects.create(name="elsewhere")
        for user, role in ((cls.owner, "owner"), (cls.editor, "editor"), (cls.viewer, "viewer")):
            Membership.objects.create(team=cls.team, user=user, role=role)
        Membership.objects.create(team=cls.other_team, user=cls.outsider, role="owner")
        cls.scenario = services.create_scenario(
            team=cls.team, name="Small cluster", manifests=SMALL, author=cls.owner, message="first"
        )

    def api(self, user):
        client = APIClient()
        client.force_authenticate(user)
        return client

    def url(self, suffix=""):
        return f"/api/scenarios/{self.scenario.pk}/{suffix}"


def browser_log_in(page, live_server, username, password):
    """Log in through the login form in a Playwright page; waits for the scenario list."""
    page.goto(f"{live_server.url}/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("heading", name="Scenarios").wait_for()
