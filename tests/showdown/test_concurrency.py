"""Rounds of many players at once over the house's split accounts: every round
settles exactly, each shard holds what its players left in play, and the house's figure is
the sum of its shards; live tables' boards, each settling several seats in one entry, race
the online rounds on the same shards."""

import threading

import pytest
from django.db import connections
from django.db.models import Sum

from audit.verify import audit_verify
from cashier.models import HOUSE_SHARDS, Account, house_shard
from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from showdown.live import live_decide, live_seat_take, live_wagers_place
from showdown.models import LiveRound, ShowdownRound
from showdown.services import round_deal, round_decide
from tests.factories import make_funded_player, make_showdown_table

pytestmark = pytest.mark.django_db(transaction=True)

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


# Live tables, each with seats that wager and decide at once, board after board, while online
# players play their rounds: 12 live and 8 online players, made in that order, so the online
# players' shards wrap round to the first live players' (one at each table).
LIVE_TABLES = 3
LIVE_SEATS = 4
BOARDS = 2
ONLINE = 8
# A thread waits this long at most for the others (a failed one breaks the barriers at once).
BARRIER_SECONDS = 120


def _sit_and_play(player, table, start, board_barrier, failures) -> None:
    """One seated player's boards: every seat wagers at once (the last wager deals the cards),
    then every seat decides at once (the last decision settles the board for all). The thread
    holds no connection while it waits for the others: 20 threads share the pool's 16."""
    try:
        start.wait(BARRIER_SECONDS)
        for board in range(BOARDS):
            live_wagers_place(
                player=player,
                table_id=table.pk,
                ante=500,
                hole_card_bonus=100,
                final_hand_bonus=100,
                idempotency_key=f"live-wager-{board}",
            )
            connections.close_all()
            board_barrier.wait(BARRIER_SECONDS)  # every seat in: the cards are out
            live_decide(
                player=player,
                table_id=table.pk,
                decision=DECISIONS[(player.pk + board) % len(DECISIONS)],
                idempotency_key=f"live-decide-{board}",
            )
            connections.close_all()
            board_barrier.wait(BARRIER_SECONDS)  # every seat decided: the board settled
    except Exception as error:  # every failure is reported by the test
        failures.append(f"{player.username}: {error!r}")
        board_barrier.abort()
        start.abort()
    finally:
        connections.close_all()


def test_live_boards_and_online_rounds_racing_on_the_same_shards_settle_exactly(showdown_table):
    tables = [
        make_showdown_table(seats=7, bet_seconds=600, action_seconds=600)
        for _ in range(LIVE_TABLES)
    ]
    live_players = [
        make_funded_player(f"live{n}", cents=START) for n in range(LIVE_TABLES * LIVE_SEATS)
    ]
    online = [make_funded_player(f"online{n}", cents=START) for n in range(ONLINE)]
    seated = {table.pk: live_players[i :: len(tables)] for i, table in enumerate(tables)}
    for table in tables:
        for number, player in enumerate(seated[table.pk], start=1):
            live_seat_take(player=player, table_id=table.pk, seat=number)
    online_shards = {house_shard(player.pk) for player in online}
    # Each table's board settles at least one seat on a shard the online rounds move too.
    assert all({house_shard(p.pk) for p in seated[t.pk]} & online_shards for t in tables)

    start = threading.Barrier(len(live_players) + len(online))
    failures: list[str] = []
    threads = [
        threading.Thread(target=_play, args=(player, showdown_table, start, failures))
        for player in online
    ]
    for table in tables:
        board_barrier = threading.Barrier(LIVE_SEATS)
        threads += [
            threading.Thread(
                target=_sit_and_play, args=(player, table, start, board_barrier, failures)
            )
            for player in seated[table.pk]
        ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []

    # Every board settled all its seats in one entry; each online player's last round waits.
    boards = LiveRound.objects.all()
    assert boards.count() == LIVE_TABLES * BOARDS
    assert set(boards.values_list("phase", flat=True)) == {LiveRound.Phase.SETTLED}
    for board in boards:
        shares = board.seat_rounds.all()
        assert shares.count() == LIVE_SEATS
        assert len({share.result_entry_id for share in shares}) == 1
    rounds = ShowdownRound.objects.all()
    assert rounds.count() == LIVE_TABLES * BOARDS * LIVE_SEATS + ONLINE * ROUNDS
    open_ = rounds.filter(status=ShowdownRound.Status.DEALT)
    assert set(open_.values_list("player", flat=True)) == {player.pk for player in online}
    assert not open_.filter(live_round__isnull=False).exists()

    # Each wallet moved by exactly its rounds' net, less the stakes still in play.
    for player in live_players + online:
        mine = rounds.filter(player=player)
        net = sum(r.net for r in mine if r.net is not None)
        waiting = sum(r.staked for r in mine if r.status == ShowdownRound.Status.DEALT)
        assert wallet_balance(player=player) == START + net - waiting, player.username

    # Each shard's bets in play are its players' open stakes; the house's figure, the sum of
    # its shards, is what the settled rounds lost to it.
    for account in Account.objects.filter(kind=Kind.BANKED_BETS_IN_PLAY):
        assert account.balance == sum(
            r.staked for r in open_ if house_shard(r.player_id) == account.shard
        ), account.shard
    house = Account.objects.filter(kind=Kind.HOUSE_BANKROLL)
    assert set(house.values_list("shard", flat=True)) <= {
        house_shard(p.pk) for p in live_players + online
    }
    settled = rounds.filter(status=ShowdownRound.Status.SETTLED)
    assert (
        house.aggregate(total=Sum("balance"))["total"]
        == -settled.aggregate(total=Sum("net"))["total"]
    )
    assert sum(Account.objects.values_list("balance", flat=True)) == 0
    report = ledger_verify()
    assert report.ok, report.problems
    audit = audit_verify()
    assert audit.ok, audit.problems
