"""What one action costs the database at a table its owner holds: the statements sent, and
which of them read the table back (its row, seats, hand) rather than write it.

At an owned table a mid-hand action is one statement, written from the owner's memory (the
events, the hand, the player's seq and the table's version, fenced by version and lease
epoch). The action that ends a hand settles it with its ledger entry in one transaction;
it reads neither the seats nor the hand back (the owner remembers them), only the table's row
under its lock and the money the settlement moved. These are the counts measured; a change
that adds a statement or a read to every action fails here.

The tests commit (`transaction=True`): the owner's memory is kept on commit."""

import pytest
from django.db import connection

from poker.engine.hand import Hand as EngineHand
from poker.models import Hand
from poker.services import table_act
from tests.factories import deal_hand, make_seated_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)

# Reads of the table's own state (seats, hand, players, events): the owner remembers them.
TABLE_STATE = ('FROM "poker_seat"', 'FROM "poker_hand"', 'FROM "poker_handplayer"',
               'FROM "poker_handevent"')  # fmt: skip
# The hand's end, counted: the table's row locked, the cashier's settlement (one statement),
# its audit record, the deal revealed, the events, the players' results, the hand, the seats,
# the table's fenced version, the stacks and wallets read once for the seats and the frames.
MOST_STATEMENTS_TO_END_A_HAND = 16


class Sent:
    """Every statement sent while it is on, but savepoints."""

    def __init__(self) -> None:
        self.sql: list[str] = []

    def __call__(self, execute, sql, params, many, context):
        if not sql.startswith(("SAVEPOINT", "RELEASE SAVEPOINT")):
            self.sql.append(sql)
        return execute(sql, params, many, context)

    def table_reads(self) -> list[str]:
        return [s for s in self.sql if s.startswith("SELECT") and any(t in s for t in TABLE_STATE)]


def play_one(table, players) -> tuple[Sent, bool]:
    """The player to act calls or checks; the statements it sent, and whether the hand ended."""
    hand = Hand.objects.filter(table=table, status="running").get()
    engine = EngineHand.from_dict(hand.state)
    kind = "call" if engine.legal_actions().call else "check"
    sent = Sent()
    with connection.execute_wrapper(sent):
        table_act(
            table=table.pk, player=players[engine.to_act], action=kind, amount=None,
            turn=hand.turn, seq=hand.turn,
        )  # fmt: skip
    return sent, Hand.objects.get(pk=hand.pk).status != Hand.Status.RUNNING


def test_an_owned_table_s_actions_cost_the_statements_counted():
    table = make_table(max_seats=3, next_hand_delay_seconds=3600)
    players = {n: make_seated_player(table, f"s{n}", n) for n in (1, 2, 3)}
    deal_hand(table)  # the deal's change makes this process the table's owner
    # A first hand, not counted: the table's first settlement also makes its rake account
    # (cashier.services._settle), which no later hand's end does.
    for _ in range(40):
        if play_one(table, players)[1]:
            break
    deal_hand(table)
    mid_hand: list[int] = []
    for _ in range(40):
        sent, ended = play_one(table, players)
        if ended:
            break
        mid_hand.append(len(sent.sql))
        assert len(sent.sql) == 1, [s[:80] for s in sent.sql]
        assert sent.sql[0].startswith("WITH fenced AS"), "one fenced write, from memory"
        assert sent.table_reads() == []
    assert ended and mid_hand, "the hand ended after some mid-hand actions"
    print(f"\nmid-hand: {mid_hand}; hand end: {len(sent.sql)}")
    for s in sent.sql:
        print("  ", s[:110])
    assert len(sent.sql) <= MOST_STATEMENTS_TO_END_A_HAND, [s[:80] for s in sent.sql]
    assert sent.table_reads() == [], "the hand's end reads neither the seats nor the hand"
