"""Integrity officers work the queue in the admin: the ranked entries, an entry's signals,
a case with its finished hands' every card, a note and the close; other roles see none of it,
and a case never shows a running hand."""

from datetime import timedelta

import pytest
from django.utils import timezone

from integrity.models import Case, Queue, QueueEntry, Run, Signal
from poker.engine.hand import Hand as EngineHand
from tests.factories import call_down, deal_hand, make_seated_player, make_staff, make_table

pytestmark = pytest.mark.django_db


def test_an_officer_works_a_case_from_the_queue(client):
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "bob", 2)}
    finished = call_down(deal_hand(table), players)
    running = deal_hand(table)
    holes = EngineHand.from_dict(finished.state).hole_cards
    run = Run.objects.create(since=timezone.now() - timedelta(days=1), until=timezone.now())
    entry = QueueEntry.objects.create(
        run=run, queue=Queue.COLLUSION, player=players[1], partner=players[2], score=4, rank=1
    )
    hands = [finished.pk, running.pk]
    Signal.objects.create(entry=entry, kind="soft_play", figure=3.5, score=4, hand_ids=hands,
                          detail={"folds_to_partner": 9})  # fmt: skip

    client.force_login(make_staff("sue", "support"))
    assert client.get("/admin/integrity/queueentry/").status_code == 403
    client.force_login(make_staff("ivy", "integrity officers"))
    queue = client.get("/admin/integrity/queueentry/").content.decode()
    assert "ann and bob" in queue and "soft play 3.5" in queue
    page = client.get(f"/admin/integrity/queueentry/{entry.pk}/change/").content.decode()
    assert "folds_to_partner 9" in page and "Open a case" in page

    opened = client.post(f"/admin/integrity/queueentry/{entry.pk}/open/", {"confirm": "1"})
    case = Case.objects.get()
    assert opened.status_code == 302 and opened.url == f"/admin/integrity/case/{case.pk}/change/"
    page = client.get(opened.url).content.decode()
    assert " ".join(holes[0]) in page and " ".join(holes[1]) in page  # finished: every card
    running_holes = EngineHand.from_dict(running.state).hole_cards
    assert " ".join(running_holes[0]) not in page  # running: not read at all

    client.post(f"/admin/integrity/case/{case.pk}/note/", {"text": "folds every river"})
    closed = client.post(f"/admin/integrity/case/{case.pk}/close/",
                         {"outcome": "warned", "reason": "first time"})  # fmt: skip
    assert closed.status_code == 302
    case.refresh_from_db()
    assert case.outcome == "warned" and case.notes.get().text == "folds every river"
    page = client.get(f"/admin/integrity/case/{case.pk}/change/").content.decode()
    assert "warned" in page and "Close the case" not in page
