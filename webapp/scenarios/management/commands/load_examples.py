from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from webapp.scenarios import services
from webapp.scenarios.models import Membership, Scenario, Team

EXAMPLES_DIR = Path(__file__).resolve().parents[2] / "examples"


def example_files():
    return sorted(EXAMPLES_DIR.glob("*.yaml"))


def title(path):
    return path.stem.replace("-", " ").capitalize()


def description(text):
    """The example's leading comment (what it shows, then "Try first: ..."), as paragraphs."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        lines.append(line[1:].strip())
    said = " ".join(lines)
    return said.replace(" Try first:", "\n\nTry first:")


class Command(BaseCommand):
    help = "Create the demo user (demo/demo), the team 'demo' and one scenario per example file. Idempotent."

    def handle(self, *args, **options):
        user, created = get_user_model().objects.get_or_create(username="demo")
        if created:
            user.set_password("demo")
            user.save()
        team, _ = Team.objects.get_or_create(name="demo")
        Membership.objects.update_or_create(team=team, user=user, defaults={"role": Membership.Role.OWNER})
        added = 0
        for path in example_files():
            name = title(path)
            if Scenario.objects.alive().filter(team=team, name=name).exists():
                continue
            text = path.read_text()
            scenario = services.create_scenario(
                team=team, name=name, manifests=text, author=user, message=f"Loaded from {path.name}",
            )
            Scenario.objects.filter(pk=scenario.pk).update(description=description(text))
            added += 1
        self.stdout.write(f"demo user 'demo' (password 'demo'), team 'demo': {added} example scenario(s) added")
