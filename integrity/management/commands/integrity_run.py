"""Run the integrity checks now: every player (as the nightly run does) or one player.

    manage.py integrity_run [--player USERNAME] [--days N]

Writes a run and its review queue entries (integrity/services.py); prints each queue's top."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from integrity.models import QueueEntry
from integrity.services import integrity_run


class Command(BaseCommand):
    help = "Run the integrity checks over the last days' finished hands (all players or one)."

    def add_arguments(self, parser):
        parser.add_argument("--player", help="only this player's pairs and figures")
        parser.add_argument("--days", type=int, help="days of hands (INTEGRITY_WINDOW_DAYS)")
        parser.add_argument("--top", type=int, default=5, help="entries printed per queue")

    def handle(self, *args, **options):
        player = None
        if options["player"]:
            player = get_user_model().objects.filter(username=options["player"]).first()
            if player is None:
                raise CommandError(f"no player {options['player']!r}")
        since = None
        if options["days"]:
            since = timezone.now() - timedelta(days=options["days"])
        run = integrity_run(player=player, since=since)
        self.stdout.write(f"run #{run.pk}: {run.hands} finished hands, {run.entries} entries")
        for entry in QueueEntry.objects.filter(run=run, rank__lte=options["top"]).select_related(
            "player", "partner"
        ):
            who = f"{entry.player} + {entry.partner}" if entry.partner_id else str(entry.player)
            self.stdout.write(f"  {entry.queue:9} #{entry.rank} {entry.score:7.2f}  {who}")
