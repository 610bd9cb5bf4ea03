import re

from django.contrib.staticfiles import finders

from .base import BaseTestCase, make_user


class LoginTestCase(BaseTestCase):
    def test_it_logs_in_and_goes_to_the_scenarios(self):
        make_user("pat", password="correct horse")
        r = self.client.post("/login/", {"username": "pat", "password": "correct horse"})
        self.assertRedirects(r, "/scenarios/")

    def test_it_shows_an_error_for_a_wrong_password(self):
        make_user("pat", password="correct horse")
        r = self.client.post("/login/", {"username": "pat", "password": "nope"})
        self.assertContains(r, 'role="alert"')

    def test_it_logs_out_with_post(self):
        self.client.force_login(self.viewer)
        self.assertRedirects(self.client.post("/logout/"), "/login/")

    def test_pages_name_an_icon_that_our_static_files_hold(self):
        # without one, every browser asks for /favicon.ico and logs a 404
        r = self.client.get("/login/")
        href = re.search(r'<link rel="icon" href="/static/([^"]+)"', r.content.decode()).group(1)
        self.assertIsNotNone(finders.find(href))
