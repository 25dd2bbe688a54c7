"""Create the demo account and give it the sample datasets (idempotent)."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from corelsweb.datasets.samples import SAMPLES
from corelsweb.datasets.services import add_sample


class Command(BaseCommand):
    help = "Create the demo account (demo / the given password) with every sample dataset."

    def add_arguments(self, parser):
        parser.add_argument("--username", default="demo")
        parser.add_argument("--password", default="demo-corelsweb")

    def handle(self, *args, username, password, **options):
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_password(password)
            user.save()
        have = set(user.datasets.values_list("name", flat=True))
        added = [add_sample(user, key).name for key, s in SAMPLES.items() if s.name not in have]
        self.stdout.write(
            f"demo account {username!r}: {'created' if created else 'exists'}; "
            f"samples added: {', '.join(added) or 'none'}"
        )
