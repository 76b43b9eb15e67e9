"""Wallet, table-stake and hand services: the money moves once, balanced, or not at all."""

import pytest
from django.db import transaction
from django.db.models import Sum

from cashier.models import Account, Entry, Posting
from cashier.selectors import (
    buy_in_range,
    player_postings,
    table_stack_balance,
    table_stacks,
    wallet_balance,
)
from cashier.services import (
    CashierError,
    hand_release,
    hand_settle,
    hand_stacks_commit,
    table_buy_in,
    table_cash_out,
    table_top_up,
    wallet_deposit,
    wallet_withdraw,
)
from config.inputs import MAX_CENTS
from tests.factories import make_funded_player, make_player, make_table, table_stakes

pytestmark = pytest.mark.django_db


def ledger_snapshot():
    return (
        Entry.objects.count(),
        Posting.objects.count(),
        list(Account.objects.order_by("pk").values_list("pk", "balance", "in_hand_id")),
    )


def assert_ledger_sound():
    assert Account.objects.aggregate(total=Sum("balance"))["total"] in (0, None)
    for account in Account.objects.all():
        assert account.balance == (account.postings.aggregate(s=Sum("amount"))["s"] or 0)
    for entry in Entry.objects.all():
        assert (entry.postings.aggregate(s=Sum("amount"))["s"] or 0) == 0


def test_deposit_and_withdraw_move_money_through_the_outside_world(player):
    entry = wallet_deposit(player=player, amount=50_000, idempotency_key="d1")
    assert entry.reason == Entry.Reason.DEPOSIT
    assert entry.created_by == player
    assert sorted(entry.postings.values_list("amount", flat=True)) == [-50_000, 50_000]
    wallet_withdraw(player=player, amount=12_345, idempotency_key="w1")
    assert wallet_balance(player=player) == 37_655
    world = Account.objects.get(kind=Account.Kind.OUTSIDE_WORLD)
    assert world.balance == -37_655
    assert_ledger_sound()


def test_same_key_same_request_moves_money_once(player):
    first = wallet_deposit(player=player, amount=1_000, idempotency_key="k")
    again = wallet_deposit(player=player, amount=1_000, idempotency_key="k")
    assert again.pk == first.pk
    assert wallet_balance(player=player) == 1_000


def test_same_key_different_request_is_refused(player):
    wallet_deposit(player=player, amount=1_000, idempotency_key="k")
    before = ledger_snapshot()
    with pytest.raises(CashierError) as error:
        wallet_deposit(player=player, amount=2_000, idempotency_key="k")
    assert error.value.code == "idempotency_conflict"
    with pytest.raises(CashierError) as error:
        wallet_withdraw(player=player, amount=1_000, idempotency_key="k")
    assert error.value.code == "idempotency_conflict"
    assert ledger_snapshot() == before


def test_keys_belong_to_their_player(player, other_player):
    wallet_deposit(player=player, amount=1_000, idempotency_key="shared")
    wallet_deposit(player=other_player, amount=2_000, idempotency_key="shared")
    assert wallet_balance(player=player) == 1_000
    assert wallet_balance(player=other_player) == 2_000


def test_withdraw_more_than_the_wallet_is_refused(player):
    wallet_deposit(player=player, amount=1_000, idempotency_key="d")
    before = ledger_snapshot()
    with pytest.raises(CashierError) as error:
        wallet_withdraw(player=player, amount=1_001, idempotency_key="w")
    assert error.value.code == "insufficient_funds"
    assert "$10.00" in error.value.message
    assert ledger_snapshot() == before


@pytest.mark.parametrize(
    "amount",
    [0, -1, -500, 1.5, 100.0, "100", None, True, MAX_CENTS + 1, 10**30],
    ids=repr,
)
def test_bad_amounts_are_refused_and_move_nothing(player, table, amount):
    wallet_deposit(player=player, amount=20_000, idempotency_key="fund")
    before = ledger_snapshot()
    for call in (
        lambda: wallet_deposit(player=player, amount=amount, idempotency_key="x1"),
        lambda: wallet_withdraw(player=player, amount=amount, idempotency_key="x2"),
        lambda: table_buy_in(
            player=player, **table_stakes(table), amount=amount, idempotency_key="x3"
        ),
        lambda: table_top_up(
            player=player, **table_stakes(table), amount=amount, idempotency_key="x4"
        ),
    ):
        with pytest.raises(CashierError) as error:
            call()
        assert error.value.code == "bad_amount"
        assert error.value.message
    assert ledger_snapshot() == before


@pytest.mark.parametrize(
    "key", [None, "", "   ", 42, "k" * 101, "k\x00ey", "k\ud800ey", "k\x1bey"], ids=repr
)
def test_missing_or_bad_idempotency_key_is_refused(player, table, key):
    wallet_deposit(player=player, amount=20_000, idempotency_key="fund")
    before = ledger_snapshot()
    for call in (
        lambda: wallet_deposit(player=player, amount=100, idempotency_key=key),
        lambda: wallet_withdraw(player=player, amount=100, idempotency_key=key),
        lambda: table_buy_in(
            player=player, **table_stakes(table), amount=5_000, idempotency_key=key
        ),
    ):
        with pytest.raises(CashierError) as error:
            call()
        assert error.value.code in {"missing_idempotency_key", "bad_idempotency_key"}
    assert ledger_snapshot() == before


def test_unknown_player_and_table_are_refused(player, table):
    from django.contrib.auth import get_user_model

    ghost = get_user_model()(username="ghost")
    with pytest.raises(CashierError) as error:
        wallet_deposit(player=ghost, amount=100, idempotency_key="g")
    assert error.value.code == "unknown_player"
    with pytest.raises(CashierError) as error:
        wallet_deposit(player=None, amount=100, idempotency_key="g")
    assert error.value.code == "unknown_player"
    # A table is a plain id here: one that is not a positive whole number, or names no table.
    for table_id in (None, 0, True, "1", 10**9):
        with pytest.raises(CashierError) as error:
            table_buy_in(
                player=player,
                table_id=table_id,
                min_buy_in=5_000,
                max_buy_in=10_000,
                amount=5_000,
                idempotency_key="t",
            )
        assert error.value.code == "unknown_table"
    with pytest.raises(CashierError) as error:
        hand_settle(table_id=table.pk, hand_id=1, net_by_player={player.pk + 999: 0}, rake=0)
    assert error.value.code == "unknown_account"
    assert Entry.objects.count() == 0


def test_buy_in_moves_wallet_to_stack_and_refuses_a_second_one(table):
    alice = make_funded_player("alice")
    entry = table_buy_in(player=alice, **table_stakes(table), amount=10_000, idempotency_key="b1")
    assert entry.reason == Entry.Reason.BUY_IN and entry.table == table
    assert table_stack_balance(player=alice, table=table) == 10_000
    assert wallet_balance(player=alice) == 90_000
    with pytest.raises(CashierError) as error:
        table_buy_in(player=alice, **table_stakes(table), amount=5_000, idempotency_key="b2")
    assert error.value.code == "already_seated"
    assert table_stacks(table=table) == {alice.pk: 10_000}


def test_buy_in_out_of_range_names_the_range_in_dollars(table):
    alice = make_funded_player("alice")
    for amount in (4_999, 10_001):
        with pytest.raises(CashierError) as error:
            table_buy_in(
                player=alice, **table_stakes(table), amount=amount, idempotency_key=f"b{amount}"
            )
        assert error.value.code == "buy_in_out_of_range"
        assert "between $50.00 and $100.00" in error.value.message
    assert buy_in_range(player=alice, table=table) == (5_000, 10_000)


def test_limit_table_range_uses_the_small_bet_as_big_blind():
    table = make_table(
        structure="limit", small_blind=None, big_blind=None, small_bet=1000, big_bet=2000
    )
    alice = make_player("alice")
    assert buy_in_range(player=alice, table=table) == (50_000, 100_000)


def test_buy_in_beyond_the_wallet_is_refused(table):
    alice = make_funded_player("alice", cents=6_000)
    with pytest.raises(CashierError) as error:
        table_buy_in(player=alice, **table_stakes(table), amount=7_000, idempotency_key="b")
    assert error.value.code == "insufficient_funds"
    assert wallet_balance(player=alice) == 6_000


def test_top_up_up_to_the_max_and_never_in_a_hand(table):
    alice = make_funded_player("alice")
    bob = make_funded_player("bob")
    table_buy_in(player=alice, **table_stakes(table), amount=6_000, idempotency_key="a")
    table_buy_in(player=bob, **table_stakes(table), amount=6_000, idempotency_key="b")
    with pytest.raises(CashierError) as error:
        table_top_up(player=alice, **table_stakes(table), amount=4_001, idempotency_key="t1")
    assert error.value.code == "top_up_over_max"
    assert "$40.00" in error.value.message
    table_top_up(player=alice, **table_stakes(table), amount=3_000, idempotency_key="t2")
    assert table_stack_balance(player=alice, table=table) == 9_000
    hand_stacks_commit(table_id=table.pk, hand_id=7, players=[alice, bob])
    with pytest.raises(CashierError) as error:
        table_top_up(player=alice, **table_stakes(table), amount=500, idempotency_key="t3")
    assert error.value.code == "in_hand"
    with pytest.raises(CashierError) as error:
        table_cash_out(player=alice, table_id=table.pk)
    assert error.value.code == "in_hand"
    hand_settle(table_id=table.pk, hand_id=7, net_by_player={alice.pk: 300, bob.pk: -300}, rake=0)
    table_top_up(player=alice, **table_stakes(table), amount=700, idempotency_key="t4")
    assert table_stack_balance(player=alice, table=table) == 10_000


def test_top_up_without_chips_is_refused(table):
    alice = make_funded_player("alice")
    with pytest.raises(CashierError) as error:
        table_top_up(player=alice, **table_stakes(table), amount=500, idempotency_key="t")
    assert error.value.code == "not_seated"


def test_cash_out_returns_the_whole_stack_and_none_when_empty(table):
    alice = make_funded_player("alice")
    assert table_cash_out(player=alice, table_id=table.pk) is None
    table_buy_in(player=alice, **table_stakes(table), amount=8_000, idempotency_key="b")
    entry = table_cash_out(player=alice, table_id=table.pk)
    assert entry.reason == Entry.Reason.CASH_OUT
    assert wallet_balance(player=alice) == 100_000
    assert table_stack_balance(player=alice, table=table) == 0
    assert table_cash_out(player=alice, table_id=table.pk) is None
    assert_ledger_sound()


def seat_three(table):
    players = [make_funded_player(name) for name in ("alice", "bob", "carol")]
    for p in players:
        table_buy_in(
            player=p, **table_stakes(table), amount=10_000, idempotency_key=f"buy-{p.username}"
        )
    return players


def test_hand_settle_posts_one_balanced_entry_with_rake(table):
    alice, bob, carol = seat_three(table)
    hand_stacks_commit(table_id=table.pk, hand_id=101, players=[alice.pk, bob.pk, carol.pk])
    entry = hand_settle(
        table_id=table.pk,
        hand_id=101,
        net_by_player={alice.pk: 1_900, bob.pk: -1_000, carol.pk: -1_000},
        rake=100,
    )
    assert entry.reason == Entry.Reason.HAND_SETTLEMENT and entry.hand_id == 101
    assert entry.postings.count() == 4
    assert table_stack_balance(player=alice, table=table) == 11_900
    assert table_stack_balance(player=bob, table=table) == 9_000
    rake = Account.objects.get(kind=Account.Kind.TABLE_RAKE, table=table)
    assert rake.balance == 100
    assert not Account.objects.filter(in_hand_id__isnull=False).exists()
    assert_ledger_sound()


def test_the_in_hand_marks_are_one_update_marking_all_the_stacks_or_none(
    table, django_assert_num_queries
):
    """A deal marks its players' stacks in one statement, which checks what the service's
    reads checked before: a refusal marks none of them."""
    alice, bob, carol = seat_three(table)
    outsider = make_funded_player("outsider")  # no stack at this table
    with django_assert_num_queries(1):
        hand_stacks_commit(table_id=table.pk, hand_id=41, players=[alice, bob])
    hand_stacks_commit(table_id=table.pk, hand_id=41, players=[alice, bob])  # again: fine
    refusals = [
        ([bob, carol], 42, "in_hand"),  # bob is in hand 41: carol stays free too
        ([carol, outsider], 42, "unknown_account"),
    ]
    for players, hand_id, code in refusals:
        with pytest.raises(CashierError) as error:
            hand_stacks_commit(table_id=table.pk, hand_id=hand_id, players=players)
        assert error.value.code == code
        marks = dict(
            Account.objects.filter(kind=Account.Kind.TABLE_STACK).values_list(
                "owner_id", "in_hand_id"
            )
        )
        assert marks == {alice.pk: 41, bob.pk: 41, carol.pk: None}


def test_settling_ends_the_hand_for_every_marked_stack(table):
    alice, bob, carol = seat_three(table)
    hand_stacks_commit(table_id=table.pk, hand_id=31, players=[alice, bob, carol])
    hand_settle(table_id=table.pk, hand_id=31, net_by_player={alice.pk: 100, bob.pk: -100}, rake=0)
    assert not Account.objects.filter(in_hand_id__isnull=False).exists()
    table_cash_out(player=carol, table_id=table.pk)
    assert wallet_balance(player=carol) == 100_000


def test_settling_twice_is_refused(table):
    alice, bob, _ = seat_three(table)
    hand_settle(table_id=table.pk, hand_id=5, net_by_player={alice.pk: 50, bob.pk: -50}, rake=0)
    before = ledger_snapshot()
    with pytest.raises(CashierError) as error:
        hand_settle(table_id=table.pk, hand_id=5, net_by_player={alice.pk: 50, bob.pk: -50}, rake=0)
    assert error.value.code == "already_settled"
    with pytest.raises(CashierError) as error:
        hand_stacks_commit(table_id=table.pk, hand_id=5, players=[alice])
    assert error.value.code == "already_settled"
    assert ledger_snapshot() == before


@pytest.mark.parametrize(
    ("nets", "rake", "code"),
    [
        ({"a": 100, "b": -50}, 0, "unbalanced"),
        ({"a": 100, "b": -100}, 10, "unbalanced"),
        ({"a": 110, "b": -100}, -10, "bad_amount"),
        ({"a": 1.5, "b": -1.5}, 0, "bad_amount"),
        ({"a": -20_000, "b": 20_000}, 0, "insufficient_funds"),
        ({}, 0, "invalid_settlement"),
    ],
)
def test_bad_settlements_are_refused_and_move_nothing(table, nets, rake, code):
    alice, bob, _ = seat_three(table)
    ids = {"a": alice.pk, "b": bob.pk}
    before = ledger_snapshot()
    with pytest.raises(CashierError) as error:
        hand_settle(
            table_id=table.pk,
            hand_id=9,
            net_by_player={ids[k]: v for k, v in nets.items()},
            rake=rake,
        )
    assert error.value.code == code
    assert ledger_snapshot() == before


def test_an_all_zero_hand_records_its_settlement_without_postings(table):
    alice, bob, _ = seat_three(table)
    entry = hand_settle(
        table_id=table.pk, hand_id=11, net_by_player={alice.pk: 0, bob.pk: 0}, rake=0
    )
    assert entry.postings.count() == 0
    with pytest.raises(CashierError):
        hand_settle(table_id=table.pk, hand_id=11, net_by_player={alice.pk: 0, bob.pk: 0}, rake=0)


def test_a_cancelled_hand_posts_nothing_and_frees_the_stacks(table):
    alice, bob, carol = seat_three(table)
    hand_stacks_commit(table_id=table.pk, hand_id=21, players=[alice, bob, carol])
    before_entries = Entry.objects.count()
    with pytest.raises(CashierError) as error:
        hand_stacks_commit(table_id=table.pk, hand_id=22, players=[alice])
    assert error.value.code == "in_hand"
    hand_release(table_id=table.pk, hand_id=21)
    assert Entry.objects.count() == before_entries
    assert not Account.objects.filter(in_hand_id__isnull=False).exists()
    assert table_stack_balance(player=alice, table=table) == 10_000
    table_cash_out(player=alice, table_id=table.pk)
    assert wallet_balance(player=alice) == 100_000


def test_services_are_safe_inside_an_outer_transaction(table):
    from django.db import transaction

    alice = make_funded_player("alice")
    with transaction.atomic():
        with pytest.raises(CashierError):
            table_buy_in(player=alice, **table_stakes(table), amount=1, idempotency_key="low")
        table_buy_in(player=alice, **table_stakes(table), amount=5_000, idempotency_key="ok")
    assert table_stack_balance(player=alice, table=table) == 5_000


def test_history_shows_only_the_players_own_legs(table):
    alice = make_funded_player("alice")
    bob = make_funded_player("bob")
    table_buy_in(player=alice, **table_stakes(table), amount=5_000, idempotency_key="b")
    history = list(player_postings(player=alice))
    assert {p.account.owner_id for p in history} == {alice.pk}
    assert [p.entry.reason for p in history] == ["buy_in", "buy_in", "deposit"]
    assert all(p.account.owner_id != bob.pk for p in history)


@pytest.mark.django_db
def test_movements_out_of_bets_in_play_refuse_more_than_it_holds_and_say_how_much():
    """The three banked movements out of play (one round settled, a live round's seats, a
    void) share one refusal: nothing moves, and the message names what is in play."""
    from cashier.services import (
        CashierError,
        banked_round_settle,
        banked_round_void,
        banked_rounds_settle,
        banked_wager_place,
    )
    from config.money import dollars

    alice = make_funded_player("alice", cents=10_000)
    banked_wager_place(player=alice, round_id=7, amount=500)
    entries = Entry.objects.count()
    attempts = [
        (lambda: banked_round_settle(player=alice, round_id=7, staked=800, net=0), "settle"),
        (lambda: banked_rounds_settle(settlements=[(alice, 7, 800, 0)], memo="live"), "settle"),
        (lambda: banked_round_void(player=alice, round_id=7, amount=800), "void"),
    ]
    for attempt, verb in attempts:
        with pytest.raises(CashierError) as refused, transaction.atomic():
            attempt()
        assert refused.value.code == "not_in_play"
        assert f"Only {dollars(500)} is in play; round 7 cannot {verb} {dollars(800)}." == str(
            refused.value.message
        )
    assert Entry.objects.count() == entries
    assert Account.objects.get(kind=Account.Kind.WALLET, owner=alice).balance == 9_500
