"""The AML queue: flags read from ledger entries the real cashier services wrote (deposits,
withdrawals, buy-ins), each with the entries behind it, never on an honest player; a chip flow
to a flagged player flags the giver; the queue ranks them and links to the withdrawal's hold."""

import pytest

from cashier.models import Entry
from cashier.services import table_buy_in, table_cash_out, wallet_deposit, wallet_withdraw
from integrity.models import Queue, QueueEntry, Signal
from integrity.services import integrity_run
from poker.engine.hand import Hand as EngineHand
from tests.factories import (
    act_for_the_player_to_act,
    deal_hand,
    make_player,
    make_seated_player,
    make_staff,
    make_table,
    table_stakes,
)

pytestmark = pytest.mark.django_db
Kind = Signal.Kind


@pytest.fixture
def aml(settings):
    settings.INTEGRITY_AML_LARGE_CENTS = 50_000
    settings.INTEGRITY_AML_MIN_CENTS = 10_000
    settings.WITHDRAWAL_CHECK_ABOVE_CENTS = 40_000  # a large withdrawal waits for checks


def _deposits(player, *amounts):
    return [
        wallet_deposit(player=player, amount=cents, idempotency_key=f"d{i}").pk
        for i, cents in enumerate(amounts)
    ]


def _aml(run) -> dict:
    return {
        entry.player.username: (entry, {s.kind: s for s in entry.signals.all()})
        for entry in QueueEntry.objects.filter(run=run, queue=Queue.AML).select_related("player")
    }


def test_each_flag_fires_on_its_pattern_and_the_queue_ranks_them(aml):
    table = make_table()
    whale, smurf, mule, honest = (make_player(n) for n in ("whale", "smurf", "mule", "honest"))
    big = _deposits(whale, 60_000)
    split = _deposits(smurf, 48_000, 47_000, 49_000, 46_000)
    mule_in = _deposits(mule, 30_000)
    mule_out = wallet_withdraw(player=mule, amount=29_000, idempotency_key="w").pk
    _deposits(honest, 20_000)  # buys in for half of it, plays, leaves and withdraws
    table_buy_in(player=honest, amount=10_000, idempotency_key="b", **table_stakes(table))
    table_cash_out(player=honest, table_id=table.pk)
    wallet_withdraw(player=honest, amount=15_000, idempotency_key="w")

    run = integrity_run()
    found = _aml(run)
    assert set(found) == {"whale", "smurf", "mule"}  # not the honest player
    _whale, whale_flags = found["whale"]
    assert set(whale_flags) == {Kind.LARGE_DEPOSIT}
    assert whale_flags[Kind.LARGE_DEPOSIT].entry_ids == big
    assert whale_flags[Kind.LARGE_DEPOSIT].figure == 60_000
    smurf_entry, smurf_flags = found["smurf"]
    assert set(smurf_flags) == {Kind.STRUCTURING}
    assert smurf_flags[Kind.STRUCTURING].figure == 4
    assert smurf_flags[Kind.STRUCTURING].entry_ids == split
    assert smurf_flags[Kind.STRUCTURING].detail["cents"] == 190_000
    _mule, mule_flags = found["mule"]
    assert set(mule_flags) == {Kind.LITTLE_PLAY}
    assert mule_flags[Kind.LITTLE_PLAY].figure == 0
    assert mule_flags[Kind.LITTLE_PLAY].entry_ids == [*mule_in, mule_out]
    # Four deposits split under the threshold rank above one large deposit and a turnaround.
    assert smurf_entry.rank == 1
    assert sorted(e.rank for e, _ in found.values()) == [1, 2, 3]


def test_a_large_withdrawal_links_to_its_hold_on_the_entry_page(aml, client):
    player = make_player("cashout")
    deposit = _deposits(player, 45_000, 45_000)
    held = wallet_withdraw(player=player, amount=80_000, idempotency_key="w")
    assert held.reason == Entry.Reason.WITHDRAWAL_HELD
    run = integrity_run(player=player, by=make_staff("ivy", "integrity officers"))
    entry, flags = _aml(run)["cashout"]
    assert flags[Kind.LARGE_WITHDRAWAL].entry_ids == [held.pk]
    assert flags[Kind.LITTLE_PLAY].entry_ids == [*deposit, held.pk]

    officer = make_staff("ivy2", "integrity officers", "compliance")
    client.force_login(officer)
    page = client.get(f"/admin/integrity/queueentry/{entry.pk}/change/").content.decode()
    assert f'href="/admin/cashier/entry/{held.pk}/change/"' in page
    pending = held.pending_withdrawal_held
    assert f"/admin/cashier/pendingwithdrawal/{pending.pk}/hold/" in page
    client.force_login(make_staff("ivy3", "integrity officers"))  # not compliance: no hold
    page = client.get(f"/admin/integrity/queueentry/{entry.pk}/change/").content.decode()
    assert f"/admin/cashier/pendingwithdrawal/{pending.pk}/change/" in page
    assert f"/pendingwithdrawal/{pending.pk}/hold/" not in page


def test_chip_flow_to_a_flagged_player_flags_the_giver(aml, settings):
    settings.INTEGRITY_MIN_HANDS_TOGETHER = 3
    table = make_table()
    players = {1: make_seated_player(table, "giver", 1), 2: make_seated_player(table, "taker", 2)}
    _deposits(players[2], 60_000)  # the taker's large deposit: an AML flag
    for _ in range(4):  # the giver folds every hand to the taker
        hand = deal_hand(table)
        while True:
            hand.refresh_from_db()
            if hand.status != hand.Status.RUNNING:
                break
            seat = EngineHand.from_dict(hand.state).to_act
            act_for_the_player_to_act(hand, players, "fold" if seat == 1 else "call")
    run = integrity_run()
    found = _aml(run)
    _entry, flags = found["giver"]
    flow = flags[Kind.FLAGGED_FLOW]
    assert flow.detail["to"] == players[2].pk and flow.detail["taker_has"] == "aml_flag"
    assert len(flow.hand_ids) == 4
    assert set(flow.entry_ids) == set(
        Entry.objects.filter(hand_id__in=flow.hand_ids).values_list("id", flat=True)
    )
    assert set(found["taker"][1]) == {Kind.LARGE_DEPOSIT}
