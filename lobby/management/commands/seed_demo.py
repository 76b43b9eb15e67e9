"""Demo data for the embedded room: players to log in as, and a staff account.

Safe to run again: it only adds what is missing. Later parts of the room (cashier, tables)
extend it with funded wallets and tables of every game.
"""

from pathlib import Path

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.services import account_register
from cashier.selectors import wallet_balance
from cashier.services import wallet_deposit
from poker.engine.rake import default_rake_schedule
from poker.models import RakeSchedule, Table
from responsible.rules import terms_current, terms_pending
from responsible.services import terms_accept, terms_publish
from showdown.models import ShowdownTable

DEMO_PASSWORD = "omaha-demo-2026"
DEMO_PLAYERS = ["alice", "bob", "carol", "dave", "erin", "frank"]
STAFF_USERNAME = "staff"
DEMO_WALLET_CENTS = 100_000  # cashier: $1,000 per demo player


class Command(BaseCommand):
    help = "Create the demo players and a staff user (idempotent); prints their password."

    @transaction.atomic
    def handle(self, *args, **options) -> None:
        users = get_user_model().objects
        for username in DEMO_PLAYERS:
            if not users.filter(username=username).exists():
                account_register(
                    username=username,
                    email=f"{username}@demo.omaha-room.test",
                    password=DEMO_PASSWORD,
                    display_name=username.capitalize(),
                    email_verified=True,
                )
        if not users.filter(username=STAFF_USERNAME).exists():
            users.create_superuser(
                username=STAFF_USERNAME, email="staff@demo.omaha-room.test", password=DEMO_PASSWORD
            )
        self.stdout.write(
            f"Demo players: {', '.join(DEMO_PLAYERS)}; staff: {STAFF_USERNAME}; "
            f"password for all: {DEMO_PASSWORD}"
        )
        self.seed_terms()
        self.seed_wallets()
        self.seed_tables()
        self.seed_live_showdown()

    def seed_terms(self) -> None:
        """The newest version of the terms and of the fair-play policy in
        responsible/documents/ (`<kind>_v<n>.txt`) when none is published, accepted by every
        demo player, so they play at once."""
        published = {version.kind for version in terms_current()}
        for kind, title in (
            ("terms", "Terms and conditions"),
            ("fair_play", "Fair-play policy"),
        ):
            if kind not in published:
                path = Path(apps.get_app_config("responsible").path) / "documents"
                newest = max(path.glob(f"{kind}_v*.txt"), key=lambda p: int(p.stem.split("_v")[1]))
                body = newest.read_text(encoding="utf-8")
                terms_publish(staff=None, kind=kind, title=title, body=body)
        users = get_user_model().objects
        for username in DEMO_PLAYERS:
            player = users.get(username=username)
            pending = terms_pending(player=player)
            if pending:
                terms_accept(player=player, versions=[version.pk for version in pending])

    # --- cashier (H-cashier): funded demo wallets -------------------------------------------
    def seed_wallets(self) -> None:
        """$1,000 in each demo player's wallet, through the ledger; the fixed idempotency key
        makes a rerun move nothing."""
        users = get_user_model().objects
        for username in DEMO_PLAYERS:
            player = users.get(username=username)
            wallet_deposit(
                player=player, amount=DEMO_WALLET_CENTS, idempotency_key=f"seed-demo-{username}"
            )
        self.stdout.write(
            "Demo wallets: "
            + ", ".join(
                f"{u} ${wallet_balance(player=users.get(username=u)) / 100:,.2f}"
                for u in DEMO_PLAYERS
            )
        )

    # --- end cashier ------------------------------------------------------------------------

    # --- live tables (H-poker): a table of every game and structure ---------------------------
    def seed_tables(self) -> None:
        """Tables of all four games (pot limit 6-max, fixed limit 6-max and a 10-seat one) with
        the house rake schedules of RULES.md 8 saved as staff-editable rows."""
        schedules = {}
        for structure, name in (("limit", "House fixed limit"), ("pot-limit", "House pot limit")):
            schedules[structure], _ = RakeSchedule.objects.get_or_create(
                name=name, defaults={"schedule": default_rake_schedule(structure).to_data()}
            )
        limit = {"structure": "limit", "small_bet": 100, "big_bet": 200}
        pot_limit = {"structure": "pot-limit", "small_blind": 50, "big_blind": 100}
        tables = [
            ("Bering", {"game": "omaha", **pot_limit, "max_seats": 6}),
            ("Cortez", {"game": "omaha8", **pot_limit, "max_seats": 6}),
            ("Dover", {"game": "omaha", **limit, "max_seats": 6}),
            ("Erie", {"game": "omaha8", **limit, "max_seats": 6}),
            ("Fundy", {"game": "omaha8", **limit, "max_seats": 10}),
            ("Galway", {"game": "omaha", **limit, "small_bet": 200, "big_bet": 400,
                        "max_seats": 10}),
        ]  # fmt: skip
        for name, fields in tables:
            Table.objects.get_or_create(
                name=name, defaults={**fields, "rake_schedule": schedules[fields["structure"]]}
            )
        self.stdout.write(
            "Demo tables: "
            + ", ".join(str(t) for t in Table.objects.filter(name__in=[n for n, _ in tables]))
        )

    # --- end live tables ----------------------------------------------------------------------

    def seed_live_showdown(self) -> None:
        """A seven-seat live Omaha Showdown table beside the online ones (the data migration
        makes those), on the same limits and paytables as the room's first banked table."""
        online = ShowdownTable.objects.filter(seats=1).order_by("ante_min", "name").first()
        if online is None:
            return
        live, _ = ShowdownTable.objects.get_or_create(
            name="Showdown Live",
            defaults={
                field.name: getattr(online, field.name)
                for field in ShowdownTable._meta.concrete_fields
                if field.name not in ("id", "name", "seats")
            }
            | {"seats": 7},
        )
        self.stdout.write(f"Demo live Showdown table: {live.name} ({live.seats} seats)")
