from io import StringIO

from django.contrib.auth import authenticate
from django.core.management import call_command
from django.test import TestCase

from webapp.scenarios.management.commands.load_examples import example_files
from webapp.scenarios.models import Membership, Scenario


class LoadExamplesTestCase(TestCase):
    def test_it_creates_the_demo_user_team_and_one_scenario_per_example(self):
        call_command("load_examples", stdout=StringIO())
        user = authenticate(username="demo", password="demo")
        self.assertIsNotNone(user)
        self.assertEqual(Membership.objects.get(user=user).role, "owner")
        self.assertEqual(Scenario.objects.filter(team__name="demo").count(), len(example_files()))
        self.assertGreaterEqual(len(example_files()), 5)

    def test_it_is_idempotent(self):
        call_command("load_examples", stdout=StringIO())
        call_command("load_examples", stdout=StringIO())
        self.assertEqual(Scenario.objects.count(), len(example_files()))
        self.assertTrue(all(s.current_revision == 1 for s in Scenario.objects.all()))

    def test_each_example_says_what_it_shows_and_what_to_try_first_on_its_page(self):
        call_command("load_examples", stdout=StringIO())
        self.client.force_login(authenticate(username="demo", password="demo"))
        for scenario in Scenario.objects.all():
            with self.subTest(scenario=scenario.name):
                page = self.client.get(f"/scenarios/{scenario.pk}/").content.decode()
                shown = page[page.index('<div class="scenario-description">'):]
                self.assertIn("<p>Try first:", shown)
                self.assertGreater(len(shown[:shown.index("Try first:")]), 120)  # what it shows, before that
        minimum = Scenario.objects.get(name="Min domains")
        self.assertTrue(minimum.description.startswith("minDomains forcing pods pending: 3 nodes"))
