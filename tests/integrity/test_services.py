"""The integrity run reads finished hands only and logins; cases are opened, annotated and
closed by integrity officers alone, each step audited, a suspension through the account tool."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import timezone

from audit.models import AuditRecord
from integrity.models import Case, Queue, QueueEntry, Run, Signal
from integrity.selectors import finished_hands
from integrity.services import (
    IntegrityRefused,
    case_close,
    case_note_add,
    case_open,
    integrity_run,
)
from integrity.tasks import run_nightly
from tests.factories import (
    DEFAULT_PASSWORD,
    act_for_the_player_to_act,
    call_down,
    deal_hand,
    make_player,
    make_seated_player,
    make_staff,
    make_table,
)

pytestmark = pytest.mark.django_db


def test_a_running_hand_is_never_read():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "bob", 2)}
    finished = call_down(deal_hand(table), players)
    running = deal_hand(table)
    act_for_the_player_to_act(running, players, "call")
    now = timezone.now()
    read = list(finished_hands(since=now - timedelta(hours=1), until=now + timedelta(hours=1)))
    assert [hand.id for hand in read] == [finished.pk]
    assert {event["type"] for event, _at in read[0].events} >= {"hole_cards_dealt", "hand_ended"}
    run = integrity_run(since=now - timedelta(hours=1), until=now + timedelta(hours=1))
    assert run.hands == 1
    hands = {h for signal in Signal.objects.filter(entry__run=run) for h in signal.hand_ids}
    assert running.pk not in hands


def test_players_logging_in_from_one_browser_and_address_are_a_pair(client):
    ann, bob = make_player("ann"), make_player("bob")
    here = {"REMOTE_ADDR": "203.0.113.9", "HTTP_USER_AGENT": "Firefox/133"}
    for name in ("ann", "bob"):
        client.post(
            reverse("lobby:login"), {"username": name, "password": DEFAULT_PASSWORD}, **here
        )
        client.post(reverse("lobby:logout"))
    login = AuditRecord.objects.filter(action="security.login").first()
    assert login.payload["user_agent"] == "Firefox/133"
    run = integrity_run()
    entry = QueueEntry.objects.get(run=run, queue=Queue.COLLUSION)
    assert {entry.player, entry.partner} == {ann, bob} and entry.rank == 1
    kinds = set(entry.signals.values_list("kind", flat=True))
    assert kinds == {Signal.Kind.SHARED_ADDRESS, Signal.Kind.SHARED_DEVICE}


def test_the_nightly_run_is_scheduled_and_writes_a_run():
    assert settings.CELERY_BEAT_SCHEDULE["integrity-run-nightly"]["task"] == "integrity.run_nightly"
    run = Run.objects.get(pk=run_nightly())
    assert run.player is None and run.by is None
    assert AuditRecord.objects.filter(action="integrity.run", actor__isnull=True).exists()


def _entry(player, partner=None) -> QueueEntry:
    run = Run.objects.create(since=timezone.now() - timedelta(days=7), until=timezone.now())
    entry = QueueEntry.objects.create(
        run=run, queue=Queue.COLLUSION, player=player, partner=partner, score=3.0, rank=1
    )
    Signal.objects.create(entry=entry, kind="chip_flow", figure=5000, score=3.0, hand_ids=[7, 3])
    return entry


def test_a_case_is_opened_annotated_and_closed_with_a_suspension():
    ann, bob = make_player("ann"), make_player("bob")
    officer = make_staff("ivy", "integrity officers")
    case = case_open(entry=_entry(ann, bob), staff=officer)
    assert case.hand_ids == [3, 7]
    with pytest.raises(IntegrityRefused) as again:
        case_open(entry=_entry(ann, bob), staff=officer)
    assert again.value.code == "case_open"
    case_note_add(case=case, staff=officer, text=" bob folds the nuts to ann ")
    case_close(case=case, staff=officer, outcome="suspended", reason="chip dumping",
               suspend=[bob.pk])  # fmt: skip
    bob.refresh_from_db()
    ann.refresh_from_db()
    assert not bob.is_active and ann.is_active
    case.refresh_from_db()
    assert case.outcome == "suspended" and case.suspended == [bob.pk] and case.closed_by == officer
    records = AuditRecord.objects.filter(actor=officer).order_by("id")
    actions = list(records.values_list("action", flat=True))
    assert actions == [
        "integrity.case_open",
        "integrity.case_note",
        "security.power_change",  # is_active, recorded by the database
        "staff.account_suspend",
        "integrity.case_close",
    ]
    with pytest.raises(IntegrityRefused) as closed:
        case_note_add(case=case, staff=officer, text="late")
    assert closed.value.code == "case_closed"


@pytest.mark.parametrize(
    ("role", "outcome", "suspend", "code"),
    [
        ("support", "cleared", [], "not_your_role"),
        ("cashier managers", "warned", [], "not_your_role"),
        ("integrity officers", "suspended", [], "suspend_whom"),
        ("integrity officers", "suspended", ["stranger"], "suspend_whom"),
        ("integrity officers", "warned", ["ann"], "suspend_whom"),
        ("integrity officers", "banned", [], "bad_outcome"),
    ],
)
def test_refused_closes_change_nothing(role, outcome, suspend, code):
    ann, stranger = make_player("ann"), make_player("stranger")
    case = case_open(entry=_entry(ann), staff=make_staff("ivy", "integrity officers"))
    staff = make_staff("sue", role)
    ids = {"ann": ann.pk, "stranger": stranger.pk}
    with pytest.raises(IntegrityRefused) as refused:
        case_close(case=case, staff=staff, outcome=outcome, reason="because",
                   suspend=[ids[name] for name in suspend])  # fmt: skip
    assert refused.value.code == code
    case.refresh_from_db()
    ann.refresh_from_db()
    assert case.closed_at is None and ann.is_active
    assert not AuditRecord.objects.filter(action="integrity.case_close").exists()


def test_only_integrity_officers_run_the_checks_for_a_player():
    ann = make_player("ann")
    with pytest.raises(IntegrityRefused):
        integrity_run(player=ann, by=make_staff("sue", "support"))
    run = integrity_run(player=ann, by=make_staff("ivy", "integrity officers"))
    assert run.player == ann
    assert Case.objects.count() == 0
