"""verify_ledger's banked rules on a live board's one shared settlement entry: a
seat's wallet leg altered or dropped, or a house leg moved to a shard none of its seats'
players use, is named by the check that owns the rule, and the entry stays balanced and every
stored balance equal to its postings (only the meaning breaks). Postings are immutable in the
database, so each case tampers with the triggers off, as an intruder with the tables' owner's
rights could."""

import pytest
from django.db import connection

from cashier.models import HOUSE_SHARDS, Account, Posting, house_shard
from cashier.verify import ledger_checks, ledger_verify
from tests.showdown.play import play_a_live_board

pytestmark = pytest.mark.django_db

Kind = Account.Kind
ENTRIES = "banked_entries_match_rounds"
IN_PLAY = "banked_bets_in_play_match_open_rounds"


@pytest.fixture
def board(monkeypatch):
    """The settled board's seats' rounds (Ann, Bob, Cat) and its one entry's id; clean."""
    rounds = play_a_live_board(monkeypatch)
    (entry_id,) = {r.result_entry_id for r in rounds}
    report = ledger_verify()
    assert report.ok, report.problems
    return rounds, entry_id


def leg(entry_id: int, kind: str, *, owner=None, shard: int | None = None) -> Posting:
    postings = Posting.objects.select_related("account").filter(
        entry_id=entry_id, account__kind=kind
    )
    if owner is not None:
        postings = postings.filter(account__owner_id=owner)
    if shard is not None:
        postings = postings.filter(account__shard=shard)
    return postings.get()


def behind_the_triggers(*statements: tuple[str, list]) -> None:
    """Run the statements with the ledger's triggers off (immutable postings included)."""
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        try:
            for sql, params in statements:
                cursor.execute(sql, params)
        finally:
            cursor.execute("SET session_replication_role = origin")


def balance_by(account_id: int, amount: int) -> tuple[str, list]:
    return ("UPDATE cashier_account SET balance = balance + %s WHERE id = %s", [amount, account_id])


def move(posting: Posting, amount: int) -> list[tuple[str, list]]:
    """Change a posting by `amount` and its account's stored balance with it."""
    return [
        ("UPDATE cashier_posting SET amount = amount + %s WHERE id = %s", [amount, posting.pk]),
        balance_by(posting.account_id, amount),
    ]


def move_to(posting: Posting, account: Account) -> list[tuple[str, list]]:
    """Put a posting on another account, the stored balances of both following it."""
    return [
        ("UPDATE cashier_posting SET account_id = %s WHERE id = %s", [account.pk, posting.pk]),
        balance_by(posting.account_id, -posting.amount),
        balance_by(account.pk, posting.amount),
    ]


def assert_named_by(problems: list[str], rules: set[str], *wanted: str) -> None:
    """Every problem is of `rules`, each of them is named, and each `wanted` text is in one."""
    assert problems, "the tampering went unseen"
    checks = [check.name for check in ledger_checks()]
    named = {name for name in checks if any(f"[{name}]" in p for p in problems)}
    assert named == rules, problems
    for text in wanted:
        assert any(text in p for p in problems), (text, problems)


def test_a_seat_s_wallet_leg_altered_in_the_shared_entry_is_named(board):
    """Ann's wallet gets 100 more and her shard of the bankroll 100 less: balanced, balances
    right, but no longer what her round says."""
    rounds, entry_id = board
    ann = rounds[0]
    wallet = leg(entry_id, Kind.WALLET, owner=ann.player_id)
    house = leg(entry_id, Kind.HOUSE_BANKROLL, shard=house_shard(ann.player_id))
    behind_the_triggers(*move(wallet, 100), *move(house, -100))
    assert_named_by(
        ledger_verify().problems,
        {ENTRIES},
        f"its result entry #{entry_id} posts",
        f"{wallet.amount + 100:+d} on player #{ann.player_id}'s wallet",
        "but the rounds say",
        f"{wallet.amount:+d} on player #{ann.player_id}'s wallet",
    )


def test_a_seat_s_wallet_leg_dropped_from_the_shared_entry_is_named(board):
    """Ann's wallet leg deleted and its amount booked to the house instead."""
    rounds, entry_id = board
    ann = rounds[0]
    wallet = leg(entry_id, Kind.WALLET, owner=ann.player_id)
    house = leg(entry_id, Kind.HOUSE_BANKROLL, shard=house_shard(ann.player_id))
    behind_the_triggers(
        ("DELETE FROM cashier_posting WHERE id = %s", [wallet.pk]),
        balance_by(wallet.account_id, -wallet.amount),
        *move(house, wallet.amount),
    )
    problems = ledger_verify().problems
    assert_named_by(problems, {ENTRIES}, f"its result entry #{entry_id} posts")
    (problem,) = [p for p in problems if f"#{entry_id} posts" in p]
    posted = problem.split(" posts ", 1)[1].split(", but the rounds say", 1)[0]
    assert f"player #{ann.player_id}'s wallet" not in posted


def test_a_house_leg_on_a_shard_none_of_its_seats_use_is_named(board):
    """Bob's shard's bankroll leg moved, whole, to a shard of no seat's player: the house's
    total is unchanged, so only the shard rule sees it."""
    rounds, entry_id = board
    bob = rounds[1]
    theirs = {house_shard(r.player_id) for r in rounds}
    stranger = next(shard for shard in range(HOUSE_SHARDS) if shard not in theirs)
    elsewhere = Account.objects.create(kind=Kind.HOUSE_BANKROLL, shard=stranger)
    house = leg(entry_id, Kind.HOUSE_BANKROLL, shard=house_shard(bob.player_id))
    behind_the_triggers(*move_to(house, elsewhere))
    assert_named_by(
        ledger_verify().problems,
        {ENTRIES},
        f"its result entry #{entry_id} moves the house's shard(s) [{stranger}], "
        f"not its players' ({sorted(theirs)})",
    )


def test_a_bets_in_play_leg_on_another_shard_is_named_by_both_banked_rules(board):
    """Cat's stake taken out of another shard's bets in play: the shard rule of the entry and
    the per-shard rule of bets in play (her shard still holds it, the other is short)."""
    rounds, entry_id = board
    cat = rounds[2]
    theirs = {house_shard(r.player_id) for r in rounds}
    stranger = next(shard for shard in range(HOUSE_SHARDS) if shard not in theirs)
    elsewhere = Account.objects.create(kind=Kind.BANKED_BETS_IN_PLAY, shard=stranger)
    in_play = leg(entry_id, Kind.BANKED_BETS_IN_PLAY, shard=house_shard(cat.player_id))
    behind_the_triggers(*move_to(in_play, elsewhere))
    assert_named_by(
        ledger_verify().problems,
        {ENTRIES, IN_PLAY},
        f"moves the house's shard(s) [{stranger}]",
        f"shard {house_shard(cat.player_id)} of banked bets in play holds {-in_play.amount}",
        f"shard {stranger} of banked bets in play holds {in_play.amount}",
    )
