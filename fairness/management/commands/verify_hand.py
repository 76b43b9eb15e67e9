"""`manage.py verify_hand HAND_ID` (or `--round ROUND_ID`): every check of a deal, one line
each; exits 1 when one fails. A running deal shows its commitment only."""

from django.core.management.base import BaseCommand, CommandError

from fairness.selectors import hand_check, round_check
from fairness.services import FairnessRefused


class Command(BaseCommand):
    help = "Check a poker hand (or, with --round, a Showdown round) against its commitment."

    def add_arguments(self, parser) -> None:
        parser.add_argument("deal_id", type=int, help="the hand's id (or the round's, --round)")
        parser.add_argument(
            "--round", action="store_true", help="the id is an Omaha Showdown round's"
        )

    def handle(self, *args, deal_id: int, round: bool, **options) -> None:
        try:
            check = (round_check if round else hand_check)(
                **({"round_id": deal_id} if round else {"hand_id": deal_id})
            )
        except FairnessRefused as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"{check.title}")
        self.stdout.write(f"  commitment   {check.commitment}")
        if not check.revealed:
            raise CommandError("The deal is not over: nothing is revealed before it ends.")
        self.stdout.write(f"  salt         {check.salt}")
        self.stdout.write(f"  server seed  {check.server_seed}")
        if check.server_seed_hash:
            published = check.server_seed_published_at.isoformat()
            self.stdout.write(f"  seed hash    {check.server_seed_hash} (published {published})")
        for seat, seed in check.client_seeds.items():
            self.stdout.write(f"  client seed  seat {seat}: {seed}")
        self.stdout.write(f"  deck         {''.join(check.deck)}")
        for item in check.verification.checks:
            self.stdout.write(f"  {'pass' if item.ok else 'FAIL':4}  {item.name:10}  {item.detail}")
        if not check.verification.ok:
            raise CommandError("The deal does NOT verify.")
        self.stdout.write("The deal verifies.")
