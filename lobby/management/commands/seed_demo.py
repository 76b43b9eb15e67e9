"""Demo data for the embedded room: players to log in as, and a staff account.

Safe to run again: it only adds what is missing. Later parts of the room (cashier, tables)
extend it with funded wallets and tables of every game.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.services import account_register
from cashier.selectors import wallet_balance
from cashier.services import wallet_deposit
from poker.engine.rake import default_rake_schedule
from poker.models import RakeSchedule, Table
from responsible.rules import terms_pending
from responsible.services import terms_accept, terms_publish_documents
from showdown.models import ShowdownTable
from tournaments.models import TournamentTemplate
from tournaments.services import tournaments_open_missing

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
        self.seed_sit_and_gos()

    def seed_terms(self) -> None:
        """The newest text of the terms and of the fair-play policy (responsible/documents/),
        published when the version in force says something else, accepted by every demo
        player, so they play at once."""
        terms_publish_documents()
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
            ("Bering", {"game": "omaha", **pot_limit, "max_seats": 6, "run_it_twice": True}),
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

    # --- tournaments: a Sit & Go template of every game, each with an open Sit & Go ------------
    def seed_sit_and_gos(self) -> None:
        """One Sit & Go template per game (6-max pays 65/35, 9-max 50/30/20, heads-up 100; fewer
        entrants than seats fall back to the smaller tables' payouts), and an open Sit & Go for
        each active template. Staff edit them in the admin; a rerun adds only what is missing."""
        for name, fields in SIT_AND_GO_TEMPLATES:
            template = TournamentTemplate(name=name, **fields)
            template.full_clean(
                validate_unique=False
            )  # the admin's checks: the defaults must pass them too
            TournamentTemplate.objects.get_or_create(name=name, defaults=fields)
        opened = tournaments_open_missing()
        self.stdout.write(
            "Demo Sit & Go templates: "
            + ", ".join(name for name, _ in SIT_AND_GO_TEMPLATES)
            + f" ({len(opened)} Sit & Go(s) opened)"
        )


def _levels(blinds: list[tuple[int, int]], *, minutes: int, ante_from: int | None) -> list[dict]:
    """Levels of `minutes` each; from level `ante_from` on, an ante of a tenth of the big
    blind (rounded down; pot-limit structures only)."""
    return [
        {"small_blind": small, "big_blind": big, "minutes": minutes,
         "ante": big // 10 if ante_from is not None and number >= ante_from else 0}
        for number, (small, big) in enumerate(blinds, start=1)
    ]  # fmt: skip


BLINDS = [(10, 20), (15, 30), (25, 50), (50, 100), (75, 150), (100, 200), (150, 300),
          (200, 400), (300, 600), (400, 800), (600, 1200), (800, 1600), (1000, 2000),
          (1500, 3000), (2000, 4000)]  # fmt: skip
PAY_HEADS_UP = [{"min_entrants": 2, "max_entrants": 2, "percents": [100]}]
PAY_6_MAX = [
    {"min_entrants": 2, "max_entrants": 3, "percents": [100]},
    {"min_entrants": 4, "max_entrants": 6, "percents": [65, 35]},
]
PAY_9_MAX = [*PAY_6_MAX, {"min_entrants": 7, "max_entrants": 9, "percents": [50, 30, 20]}]
SIT_AND_GO_TEMPLATES = [
    ("PLO 6-max $10", {
        "game": "omaha", "structure": "pot-limit", "seats": 6, "buy_in": 1000, "fee": 100,
        "starting_chips": 1500, "blind_levels": _levels(BLINDS, minutes=5, ante_from=5),
        "breaks": [], "payouts": PAY_6_MAX}),
    ("Omaha Hi/Lo PL 9-max $5", {
        "game": "omaha8", "structure": "pot-limit", "seats": 9, "buy_in": 500, "fee": 50,
        "starting_chips": 1500, "blind_levels": _levels(BLINDS, minutes=6, ante_from=5),
        "breaks": [{"after_level": 8, "minutes": 5}], "payouts": PAY_9_MAX}),
    ("Omaha High FL heads-up $20", {
        "game": "omaha", "structure": "limit", "seats": 2, "buy_in": 2000, "fee": 100,
        "starting_chips": 1500, "blind_levels": _levels(BLINDS, minutes=4, ante_from=None),
        "breaks": [], "payouts": PAY_HEADS_UP}),
    ("Omaha Hi/Lo FL 6-max $5", {
        "game": "omaha8", "structure": "limit", "seats": 6, "buy_in": 500, "fee": 50,
        "starting_chips": 1500, "blind_levels": _levels(BLINDS, minutes=5, ante_from=None),
        "breaks": [], "payouts": PAY_6_MAX}),
]  # fmt: skip
