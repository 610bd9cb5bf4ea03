from django.core.management.base import BaseCommand

from webapp.scenarios.tasks import reap_stuck


class Command(BaseCommand):
    help = "Re-queue or fail runs stuck in 'running' past the time limit; resend old queued runs."

    def handle(self, *args, **options):
        requeued, failed, resent = reap_stuck()
        self.stdout.write(f"{requeued} re-queued, {failed} failed, {resent} resent")
