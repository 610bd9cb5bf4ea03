"""The events timeline: step cycle by cycle (links + htmx), topology replayed after each step."""

from .base import BaseTestCase
from .test_run_topology import example_run


class RunTimelineTestCase(BaseTestCase):
    @classmethod
    def setUpTestData(cls):
        super().setUpTestData()
        cls.the_run = example_run(cls, "preemption")

    def test_it_shows_the_first_cycle_with_its_events(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/timeline/")
        self.assertContains(r, 'id="step-number">1<')
        self.assertContains(r, "FailedScheduling")
        self.assertContains(r, "Preempted")
        self.assertContains(r, 'id="step-next"')
        self.assertContains(r, "Pending (1)")
        # the tray chip says what the pod's latest attempt so far gave
        self.assertContains(r, 'chip-status chip-status-unschedulable">Unschedulable</span>')
        self.assertContains(r, "nominated: default/checkout-3c5e7a9b2-x3y4z")

    def test_it_steps_to_the_next_cycle_as_a_fragment(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/timeline/?step=2", headers={"HX-Request": "true"})
        self.assertNotContains(r, "<html")
        self.assertContains(r, 'id="step-number">2<')
        self.assertContains(r, "Successfully assigned default/checkout-3c5e7a9b2-x3y4z to node-a")
        self.assertContains(r, "Pending (0)")
        self.assertNotContains(r, "nominated: default/checkout-3c5e7a9b2-x3y4z")  # bound now
        self.assertNotContains(r, 'id="step-next"')

    def test_it_clamps_a_bad_step(self):
        self.client.force_login(self.viewer)
        r = self.client.get(f"/runs/{self.the_run.pk}/timeline/?step=abc")
        self.assertContains(r, 'id="step-number">1<')
        r = self.client.get(f"/runs/{self.the_run.pk}/timeline/?step=99")
        self.assertContains(r, 'id="step-number">2<')
