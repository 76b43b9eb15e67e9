"""Many connections at once against one wallet: never below zero, exactly the right balance,
and one idempotency key moves money once however many times it arrives together."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connections

from cashier.models import Account, Entry
from cashier.selectors import table_stack_balance, wallet_balance
from cashier.services import CashierError, table_buy_in, wallet_deposit, wallet_withdraw
from tests.factories import make_funded_player, make_table, table_stakes

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 12


def run_together(calls):
    """Run the calls in threads released at the same moment, each on its own connection."""
    barrier = threading.Barrier(len(calls))

    def run(call):
        try:
            barrier.wait()
            return call()
        except CashierError as error:
            return error
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(run, calls))


def test_concurrent_withdrawals_never_overdraw():
    alice = make_funded_player("alice", cents=10_000)
    results = run_together(
        [
            (lambda i=i: wallet_withdraw(player=alice, amount=1_500, idempotency_key=f"w{i}"))
            for i in range(THREADS)
        ]
    )
    done = [r for r in results if isinstance(r, Entry)]
    refused = [r for r in results if isinstance(r, CashierError)]
    assert len(done) == 6 and len(refused) == THREADS - 6
    assert {r.code for r in refused} == {"insufficient_funds"}
    assert wallet_balance(player=alice) == 10_000 - 6 * 1_500


def test_concurrent_withdrawals_and_buy_ins_from_one_wallet():
    alice = make_funded_player("alice", cents=30_000)
    tables = [make_table(name=f"T{i}") for i in range(THREADS // 2)]
    calls = []
    for i, table in enumerate(tables):
        calls.append(
            lambda t=table, i=i: table_buy_in(
                player=alice, **table_stakes(t), amount=6_000, idempotency_key=f"b{i}"
            )
        )
        calls.append(
            lambda i=i: wallet_withdraw(player=alice, amount=6_000, idempotency_key=f"w{i}")
        )
    results = run_together(calls)
    done = [r for r in results if isinstance(r, Entry)]
    assert len(done) == 5  # 30,000 / 6,000
    stacks = sum(table_stack_balance(player=alice, table=t) for t in tables)
    withdrawn = 6_000 * sum(1 for r in done if r.reason == "withdrawal")
    assert wallet_balance(player=alice) == 0
    assert stacks + withdrawn == 30_000
    assert sum(Account.objects.values_list("balance", flat=True)) == 0


def test_one_key_sent_concurrently_moves_money_once():
    alice = make_funded_player("alice", cents=0)
    results = run_together(
        [
            lambda: wallet_deposit(player=alice, amount=2_500, idempotency_key="same")
            for _ in range(THREADS)
        ]
    )
    assert all(isinstance(r, Entry) for r in results), results
    assert len({r.pk for r in results}) == 1
    assert wallet_balance(player=alice) == 2_500


def test_one_buy_in_key_sent_concurrently_moves_money_once():
    alice = make_funded_player("alice", cents=50_000)
    table = make_table()
    results = run_together(
        [
            lambda: table_buy_in(
                player=alice, **table_stakes(table), amount=8_000, idempotency_key="sit"
            )
            for _ in range(THREADS)
        ]
    )
    assert all(isinstance(r, Entry) for r in results), results
    assert table_stack_balance(player=alice, table=table) == 8_000
    assert wallet_balance(player=alice) == 42_000


def test_a_hand_settled_from_two_places_at_once_settles_once():
    from cashier.services import hand_settle, hand_stacks_commit

    table = make_table()
    players = [make_funded_player(name) for name in ("alice", "bob", "carol")]
    for p in players:
        table_buy_in(player=p, **table_stakes(table), amount=10_000, idempotency_key="sit")
    hand_stacks_commit(table_id=table.pk, hand_id=77, players=players)
    nets = {players[0].pk: 180, players[1].pk: -100, players[2].pk: -100}
    results = run_together(
        [
            lambda: hand_settle(table_id=table.pk, hand_id=77, net_by_player=nets, rake=20)
            for _ in range(THREADS)
        ]
    )
    settled = [r for r in results if isinstance(r, Entry)]
    refused = [r for r in results if isinstance(r, CashierError)]
    assert len(settled) == 1 and len(refused) == THREADS - 1
    assert {r.code for r in refused} == {"already_settled"}
    assert table_stack_balance(player=players[0], table=table) == 10_180
    assert Account.objects.get(kind="table_rake", table=table).balance == 20
    assert not Account.objects.filter(in_hand_id__isnull=False).exists()
