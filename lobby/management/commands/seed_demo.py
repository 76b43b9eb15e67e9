"""Demo data for the embedded room: players to log in as, and a staff account.

Safe to run again: it only adds what is missing. Later parts of the room (cashier, tables)
extend it with funded wallets and tables of every game.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from lobby.services import account_register

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
                )
        if not users.filter(username=STAFF_USERNAME).exists():
            users.create_superuser(
                username=STAFF_USERNAME, email="staff@demo.omaha-room.test", password=DEMO_PASSWORD
            )
        self.stdout.write(
            f"Demo players: {', '.join(DEMO_PLAYERS)}; staff: {STAFF_USERNAME}; "
            f"password for all: {DEMO_PASSWORD}"
        )
        self.seed_wallets()

    # --- cashier (H-cashier): funded demo wallets -------------------------------------------
    def seed_wallets(self) -> None:
        """$1,000 in each demo player's wallet, through the ledger; the fixed idempotency key
        makes a rerun move nothing."""
        from cashier.selectors import wallet_balance
        from cashier.services import wallet_deposit

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
