"""Table incidents, RNG checks and responsible-gaming events are in the audit log, each once,
in the transaction that made them."""

import pytest
from django.db import transaction

from audit.models import AuditRecord
from audit.verify import audit_verify
from poker import services as poker
from poker.engine.rng_battery import MIN_RAW_DRAWS, MIN_SHUFFLES
from poker.models import HandIncident
from poker.rng_checks import rng_check_run
from responsible.models import ResponsibleGamingEvent
from responsible.services import deposit_limit_set, exclusion_start
from tests.factories import deal_hand, make_player, make_seated_player, make_table


def records(action: str) -> list[AuditRecord]:
    return list(AuditRecord.objects.filter(action=action).order_by("id"))


@pytest.mark.django_db(transaction=True)
def test_a_cancelled_hand_is_recorded_once_without_cards():
    table = make_table()
    make_seated_player(table, "ann", 1)
    make_seated_player(table, "ben", 2)
    hand = deal_hand(table)
    assert poker.hand_cancel(hand=hand, reason="staff test", code="stuck", detail="no move")
    assert not poker.hand_cancel(hand=hand, reason="again", code="stuck")  # already over
    [record] = records("table.hand_cancelled")
    incident = HandIncident.objects.get(hand=hand)
    assert record.subject_type == "poker.hand" and record.subject_id == str(hand.pk)
    assert record.reason == "staff test" and record.actor is None
    assert record.payload["incident_id"] == incident.pk and record.payload["code"] == "stuck"
    hand.refresh_from_db()
    dumped = str(record.payload) + record.subject_label
    for card in hand.deck:
        assert f"'{card}'" not in dumped
    assert audit_verify().ok


@pytest.mark.django_db(transaction=True)
def test_an_rng_check_is_recorded_with_its_verdict():
    check = rng_check_run(shuffles=MIN_SHUFFLES, raw_draws=MIN_RAW_DRAWS)
    [record] = records("rng.check")
    assert record.subject_id == str(check.pk) and record.actor_kind == "system"
    assert record.payload["passed"] == check.passed
    assert record.payload["shuffles"] == MIN_SHUFFLES
    assert record.payload["failed"] == [s["name"] for s in check.statistics if not s["passed"]]


@pytest.mark.django_db(transaction=True)
def test_responsible_gaming_events_are_recorded_each_once():
    alice = make_player("alice")
    deposit_limit_set(player=alice, period="day", amount=5_000)
    exclusion_start(player=alice, kind="time_out", length=1)
    events = list(ResponsibleGamingEvent.objects.order_by("id"))
    recorded = list(AuditRecord.objects.filter(action__startswith="responsible.").order_by("id"))
    assert [r.action for r in recorded] == [f"responsible.{e.kind}" for e in events]
    assert [r.payload["event_id"] for r in recorded] == [e.pk for e in events]
    for record, event in zip(recorded, events, strict=True):
        assert record.actor == alice and record.subject_id == str(alice.pk)
        assert record.payload["detail"] == event.detail and record.created_at == event.created_at


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_event_leaves_no_record():
    alice = make_player("alice")
    with pytest.raises(RuntimeError), transaction.atomic():
        deposit_limit_set(player=alice, period="week", amount=5_000)
        raise RuntimeError("after the change")
    assert not AuditRecord.objects.filter(action__startswith="responsible.").exists()


@pytest.mark.django_db(transaction=True)
def test_a_timeout_that_sits_a_player_out_is_recorded_once():
    from datetime import timedelta

    from django.utils import timezone

    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand

    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal_hand(table)
    slow = EngineHand.from_dict(hand.state).to_act
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    assert poker.hand_turn_timeout(hand_id=hand.pk, turn=1) == "fold"
    [record] = records("table.timeout_sat_out")
    assert record.subject_type == "poker.table" and record.subject_id == str(table.pk)
    assert record.payload == {"player_id": players[slow].pk, "seat": slow}
    assert record.actor is None and record.actor_kind == "system"


@pytest.mark.django_db(transaction=True)
def test_an_eviction_is_recorded_once():
    from datetime import timedelta

    from django.utils import timezone

    from poker.models import Seat

    table = make_table(sit_out_limit_seconds=600)
    ann = make_seated_player(table, "ann", 1)
    poker.table_sit_out(table=table, player=ann)
    assert poker.tables_sweep()["evicted"] == 0
    assert not records("table.eviction")
    Seat.objects.filter(player=ann).update(sat_out_at=timezone.now() - timedelta(seconds=601))
    assert poker.tables_sweep()["evicted"] == 1
    [record] = records("table.eviction")
    assert record.payload == {
        "player_id": ann.pk,
        "seat": 1,
        "reason": "sit_out_limit",
        "after_hand": False,
    }
    cash_out = AuditRecord.objects.filter(action="ledger.entry", payload__reason="cash_out")
    assert cash_out.count() == 1
    assert audit_verify().ok
