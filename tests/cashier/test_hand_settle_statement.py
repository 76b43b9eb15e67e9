"""A hand's settlement (lock the accounts, insert the entry and its postings, move the
balances, clear the in-hand marks, and its audit record) is one statement, which outside a
caller's transaction is its own transaction: one round trip, the deferred checks at its end."""

from unittest import mock

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from audit.models import AuditRecord
from audit.verify import audit_verify
from cashier.models import Account
from cashier.services import hand_settle, hand_stacks_commit, table_buy_in
from cashier.verify import ledger_verify
from tests.factories import make_funded_player, make_table, table_stakes

Kind = Account.Kind
PLAYERS = 5
BET, RAKE = 100, 20


def _deal_and_settle(table, players, hand_id: int, *, winner: int = 0):
    """Mark the stacks as playing `hand_id`, then settle it: everyone loses BET but the
    winner, who takes the pot less the rake (five stacks and the rake: six legs)."""
    hand_stacks_commit(table_id=table.pk, hand_id=hand_id, players=players)
    assert Account.objects.filter(kind=Kind.TABLE_STACK, in_hand_id=hand_id).count() == PLAYERS
    nets = {player.pk: -BET for player in players}
    nets[players[winner].pk] = BET * (PLAYERS - 1) - RAKE
    return nets


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_six_leg_hand_settlement_is_one_statement():
    table = make_table()
    players = [make_funded_player(f"p{n}", cents=table.max_buy_in) for n in range(PLAYERS)]
    for player in players:
        table_buy_in(
            player=player, **table_stakes(table), amount=table.max_buy_in, idempotency_key="sit"
        )
    # The table's first settlement opens its rake account and the process learns the ids.
    nets = _deal_and_settle(table, players, 1)
    hand_settle(table_id=table.pk, hand_id=1, net_by_player=nets, rake=RAKE)

    nets = _deal_and_settle(table, players, 2, winner=3)
    wrapper = connections["default"]
    with (
        mock.patch.object(wrapper, "set_autocommit", wraps=wrapper.set_autocommit) as opened,
        CaptureQueriesContext(connection) as statements,
    ):
        entry = hand_settle(table_id=table.pk, hand_id=2, net_by_player=nets, rake=RAKE)
    # No transaction of Django's around it (no BEGIN and COMMIT): the statement is its own.
    assert opened.call_count == 0 and not connection.in_atomic_block
    assert len(statements) == 1, [q["sql"][:60] for q in statements]
    (sql,) = [q["sql"] for q in statements]
    assert "INSERT INTO cashier_posting" in sql and "INSERT INTO audit_auditrecord" in sql
    assert not sql.lstrip().upper().startswith(("BEGIN", "SAVEPOINT"))

    # What the one statement did: six legs, the balances moved, the marks cleared, audited.
    legs = sorted(entry.postings.values_list("account__kind", "account__owner_id", "amount"))
    assert len(legs) == PLAYERS + 1 and sum(amount for _, _, amount in legs) == 0
    assert (Kind.TABLE_RAKE, None, RAKE) in legs
    assert not Account.objects.filter(in_hand_id__isnull=False).exists()
    rake = Account.objects.get(kind=Kind.TABLE_RAKE, table=table)
    assert rake.balance == 2 * RAKE
    stacks = dict(Account.objects.filter(kind=Kind.TABLE_STACK).values_list("owner_id", "balance"))
    won = BET * (PLAYERS - 1) - RAKE
    assert stacks[players[0].pk] == table.max_buy_in + won - BET
    assert stacks[players[3].pk] == table.max_buy_in - BET + won
    assert stacks[players[1].pk] == table.max_buy_in - 2 * BET
    assert AuditRecord.objects.filter(
        subject_type="cashier.entry", subject_id=str(entry.pk)
    ).exists()
    assert ledger_verify(skip={"hand_settlements_match_hands"}).ok
    assert audit_verify().ok
