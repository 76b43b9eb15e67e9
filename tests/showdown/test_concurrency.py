"""Rounds of many players at once over the house's split accounts (issue 26): every round
settles exactly, each shard holds what its players left in play, and the house's figure is
the sum of its shards."""

import threading

import pytest
from django.db import connection, connections
from django.db.models import Sum

from cashier.models import HOUSE_SHARDS, Account, house_shard
from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from showdown.models import ShowdownRound
from showdown.services import round_deal, round_decide
from tests.factories import make_funded_player

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs real row locks"),
]

Kind = Account.Kind
START = 100_000
# More players than shards, so that some share a shard (and its row locks) and others do not.
PLAYERS = HOUSE_SHARDS + 4
ROUNDS = 3
DECISIONS = ["raise", "call", "fold"]


def _play(player, table, barrier, failures) -> None:
    """One player's rounds, each dealt and decided, started together with everyone else's;
    the last round is left waiting for its decision."""
    try:
        barrier.wait()
        for n in range(ROUNDS):
            dealt = round_deal(
                player=player,
                table=table,
                ante=500,
                hole_card_bonus=100,
                final_hand_bonus=100,
                idempotency_key=f"deal-{n}",
            )
            if n < ROUNDS - 1:
                round_decide(
                    player=player,
                    round_id=dealt.pk,
                    decision=DECISIONS[(player.pk + n) % len(DECISIONS)],
                    idempotency_key=f"decide-{n}",
                )
    except Exception as error:  # every failure is reported by the test
        failures.append(repr(error))
    finally:
        connections.close_all()


def test_concurrent_rounds_of_many_players_settle_exactly_over_the_shards(showdown_table):
    players = [make_funded_player(f"p{n}", cents=START) for n in range(PLAYERS)]
    barrier = threading.Barrier(PLAYERS)
    failures: list[str] = []
    threads = [
        threading.Thread(target=_play, args=(player, showdown_table, barrier, failures))
        for player in players
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []

    rounds = ShowdownRound.objects.all()
    assert rounds.count() == PLAYERS * ROUNDS
    settled = rounds.filter(status=ShowdownRound.Status.SETTLED)
    open_ = rounds.filter(status=ShowdownRound.Status.DEALT)
    assert settled.count() == PLAYERS * (ROUNDS - 1) and open_.count() == PLAYERS
    for player in players:
        mine = rounds.filter(player=player)
        net = sum(r.net for r in mine if r.net is not None)
        waiting = sum(r.staked for r in mine if r.status == ShowdownRound.Status.DEALT)
        assert wallet_balance(player=player) == START + net - waiting

    house = Account.objects.filter(kind=Kind.HOUSE_BANKROLL)
    in_play = Account.objects.filter(kind=Kind.BANKED_BETS_IN_PLAY)
    # Split: one row per shard in use, never more than the fixed number.
    used = {house_shard(player.pk) for player in players}
    assert set(in_play.values_list("shard", flat=True)) == used
    assert len(used) == HOUSE_SHARDS
    # Each shard holds its own players' open stakes; the house's figure is the sum.
    for account in in_play:
        assert account.balance == sum(
            r.staked
            for r in open_.select_related(None)
            if house_shard(r.player_id) == account.shard
        )
    total_net = settled.aggregate(total=Sum("net"))["total"]
    assert house.aggregate(total=Sum("balance"))["total"] == -total_net
    assert sum(Account.objects.values_list("balance", flat=True)) == 0
    report = ledger_verify()
    assert report.ok, report.problems
