"""Shared builders for test data; tests call these instead of repeating model set-up."""

from django.contrib.auth import get_user_model

DEFAULT_PASSWORD = "correct-horse-battery-staple-42"


def make_player(username: str = "alice", *, password: str = DEFAULT_PASSWORD, **fields):
    """A registered player (a plain Django user; the profile comes with it)."""
    fields.setdefault("email", f"{username}@example.test")
    return get_user_model().objects.create_user(username=username, password=password, **fields)


_table_count = 0


def make_table(**overrides):
    """A table (poker.models.Table): pot-limit Omaha $0.50/$1, 6 seats, unless overridden."""
    from poker.models import Table

    global _table_count
    _table_count += 1
    fields = {
        "name": f"Table {_table_count}",
        "game": Table.Game.OMAHA,
        "structure": Table.Structure.POT_LIMIT,
        "small_blind": 50,
        "big_blind": 100,
        "max_seats": 6,
    }
    fields.update(overrides)
    return Table.objects.create(**fields)


def make_funded_player(username: str = "alice", *, cents: int = 100_000, **fields):
    """A player whose wallet holds `cents` (deposited through the cashier, $1,000 by default)."""
    from cashier.services import wallet_deposit

    player = make_player(username, **fields)
    if cents:
        wallet_deposit(player=player, amount=cents, idempotency_key=f"test-fund-{username}")
    return player


def make_seated_player(table, username: str, seat: int, *, buy_in=None, post_big_blind=False):
    """A funded player sat at `table` in `seat` through the table service (max buy-in)."""
    from poker.services import table_sit

    player = make_funded_player(username)
    table_sit(
        table=table,
        player=player,
        seat_number=seat,
        buy_in=buy_in or table.max_buy_in,
        post_big_blind=post_big_blind,
        idempotency_key=f"test-sit-{username}-{table.pk}",
    )
    return player
