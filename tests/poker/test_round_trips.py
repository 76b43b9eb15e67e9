"""Round trips per action: a mid-hand call at six seats costs a known number of
statements, so a change that adds a read to every action fails here rather than in a bench.

Counted with Django's query log inside the test's transaction: SAVEPOINT and RELEASE stand
where the room sends BEGIN and COMMIT. Four statements between them when the table is not in
this process's memory (the first call here; the owner's later calls are one statement without
a transaction: tests/poker/test_table_apply.py): the table lock, the seats with their
players (once per change), the running hand with its players (one query:
`Hand.objects.with_players()`), and one plain-SQL statement writing the table's version,
fenced by the version and lease epoch read, then, only if that row was written, the hand's
new event, the hand and the player's last seq, and reading the stacks with the wallets for the
frames (poker/services/action_write.py)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from poker import services
from poker.models import Hand
from poker.services.unit import peek
from tests.factories import deal_hand, make_seated_player, make_table

pytestmark = pytest.mark.django_db

MOST_STATEMENTS_PER_CALL = 6  # the four, and SAVEPOINT and RELEASE
# The action that ends a hand also settles it in the cashier (one statement locking the
# accounts, writing the entry, its postings and the balances; then the audit record), reveals
# the deal, tidies the seats and sends every seat, its writes ordinary ORM writes (the events,
# every player's result in one `bulk_update`, the hand, the table); the reveal is one UPDATE
# and the stacks with the wallets are read once for the seats and the frames.
MOST_STATEMENTS_TO_END_A_HAND = 14


def test_a_mid_hand_call_takes_no_more_round_trips_than_counted():
    table = make_table(next_hand_delay_seconds=3600)
    players = {n: make_seated_player(table, f"p{n}", n) for n in range(1, 7)}
    hand = deal_hand(table)
    for seq in (1, 2, 3):
        row = Hand.objects.with_deck().get(pk=hand.pk)
        seat = peek(row).to_act
        with CaptureQueriesContext(connection) as statements:
            services.table_act(
                table=table, player=players[seat], action="call", amount=None,
                turn=row.turn, seq=seq,
            )  # fmt: skip
        sql = [query["sql"] for query in statements.captured_queries]
        assert len(sql) <= MOST_STATEMENTS_PER_CALL, "\n".join(s[:120] for s in sql)
        assert sum('FROM "poker_seat"' in s for s in sql) == 1, "seats are read once a change"
        assert sum("FROM cashier_account" in s for s in sql) == 1, "stacks and wallets at once"
        writes = [s for s in sql if s.startswith(("INSERT", "UPDATE", "WITH"))]
        assert len(writes) == 1, "the event, the hand, the player's seq, the table's version"
        [write] = writes
        assert write.startswith('WITH fenced AS (UPDATE "poker_table" SET '), "first, fenced"
        table_part = write.split('WITH fenced AS (UPDATE "poker_table" SET ', 1)[1]
        fence = table_part.split(" WHERE ", 1)[1].split(' RETURNING "id")', 1)[0]
        assert '"version" =' in fence and '"lease_epoch" =' in fence
        assert 'INSERT INTO "poker_handevent"' in write
        assert 'UPDATE "poker_hand" SET' in write and 'UPDATE "poker_handplayer"' in write
        assert write.count("EXISTS (SELECT 1 FROM fenced)") == 3, "only if the fence held"
        assert "FROM fenced LEFT JOIN (SELECT kind, owner_id, balance FROM cashier_account" in (
            write
        ), "its rows tell the fence held, and the money for the frames"
        assert '"deck"' not in "".join(writes), "the deck is written once, by the deal"


def test_the_action_that_ends_a_hand_reads_the_seats_and_the_hand_once():
    table = make_table(next_hand_delay_seconds=3600)
    players = {n: make_seated_player(table, f"p{n}", n) for n in range(1, 7)}
    seqs = dict.fromkeys(players, 0)
    for _ in range(2):  # the table's first settlement also opens its rake account
        hand = deal_hand(table)
        while True:
            row = Hand.objects.with_deck().get(pk=hand.pk)
            engine = peek(row)
            seat = engine.to_act
            seqs[seat] += 1
            action = "check" if engine.legal_actions().can_check else "call"
            with CaptureQueriesContext(connection) as statements:
                services.table_act(
                    table=table, player=players[seat], action=action, amount=None,
                    turn=row.turn, seq=seqs[seat],
                )  # fmt: skip
            row.refresh_from_db()
            if row.status != Hand.Status.RUNNING:
                break
        assert row.status == Hand.Status.FINISHED
    sql = [query["sql"] for query in statements.captured_queries]
    assert len(sql) <= MOST_STATEMENTS_TO_END_A_HAND, "\n".join(s[:120] for s in sql)
    assert sum('FROM "poker_seat"' in s for s in sql) == 1, "the seats are read once"
    assert sum('FROM "poker_hand"' in s for s in sql) == 1, "the hand is read once"


# A deal at six seats after a hand: the table lock, the running hand (none), the
# seats once, the stacks with the wallets once, the server seed taken (one UPDATE ... RETURNING)
# and the next one published (one INSERT), every dealt player's client seed in one read, the
# table's rake schedule, the table's version with the button, the big blind and the hand's
# number (one UPDATE, no MAX over the hands), the last result and the waiting list for the
# frames (read once for the commitment's frame and the deal's), the hand, its events, its
# players, the commitment and its seats, the in-hand marks (one UPDATE, no savepoint), the
# dealt seats with their players' play sessions (one UPDATE and upsert, a session limit's
# clock) and the persist's one statement: 19 (18 here: the table has no
# rake schedule), and the test's SAVEPOINT, RELEASE and next_hand_at cleared; 17 at the
# table's owner, which remembers the seats and that no hand runs. 50 before: every seat its
# own UPDATE, a client seed read per player, the seats read
# three times, the frames of the commitment and of the deal each read afresh.
MOST_STATEMENTS_TO_DEAL = 21


def test_a_deal_reads_the_table_once_for_its_plan_and_both_frames():
    """Counted without the table's memory (these tests do not commit, so it is never kept;
    tests/poker/test_table_memory.py counts the deal that recalls it)."""
    table = make_table(next_hand_delay_seconds=3600)
    players = {n: make_seated_player(table, f"p{n}", n) for n in range(1, 7)}
    seqs = dict.fromkeys(players, 0)
    hand = deal_hand(table)
    while hand.status == Hand.Status.RUNNING:  # a hand ended: the deal has a last result
        row = Hand.objects.with_deck().get(pk=hand.pk)
        engine = peek(row)
        seqs[engine.to_act] += 1
        services.table_act(
            table=table, player=players[engine.to_act], action="fold"
            if engine.legal_actions().call else "check", amount=None, turn=row.turn,
            seq=seqs[engine.to_act],
        )  # fmt: skip
        hand.refresh_from_db()
    with CaptureQueriesContext(connection) as statements:
        dealt = deal_hand(table)
    assert dealt is not None and dealt.number == hand.number + 1
    sql = [query["sql"] for query in statements.captured_queries]
    listing = "\n".join(s[:120] for s in sql)
    assert len(sql) <= MOST_STATEMENTS_TO_DEAL, listing
    assert sum('FROM "poker_seat"' in s for s in sql) == 1, "the seats are read once"
    assert sum("FROM cashier_account" in s and s.startswith("SELECT") for s in sql) == 1
    assert sum('FROM "fairness_clientseed"' in s for s in sql) == 1, "one read of the seeds"
    assert sum('"fairness_serverseed"' in s for s in sql) == 2, "seed taken, next published"
    seat_updates = sum(s.startswith('UPDATE "poker_seat"') or "UPDATE poker_seat" in s for s in sql)
    assert seat_updates == 1, "one UPDATE of seats"
    assert sum(s.startswith("SAVEPOINT") for s in sql) == 1, "the test's own, no other"
    assert not any("MAX(" in s for s in sql), "the hand's number is the table's counter"
