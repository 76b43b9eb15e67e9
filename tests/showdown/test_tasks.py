"""The daily beat task voids rounds unresolved for 90 days, run by a real Celery worker."""

from datetime import timedelta

import pytest
from django.utils import timezone

from cashier.models import Account
from cashier.verify import ledger_verify
from showdown.models import ShowdownRound
from showdown.services import round_deal
from showdown.tasks import void_stale_rounds
from tests.factories import make_funded_player, make_showdown_table


@pytest.mark.django_db(transaction=True)
def test_a_worker_voids_a_stale_round_to_charity(celery_worker_process):
    player = make_funded_player("sleeper")
    table = make_showdown_table()
    old = round_deal(
        player=player,
        table=table,
        ante=500,
        final_hand_bonus=200,
        idempotency_key="old",
        now=timezone.now() - timedelta(days=100),
    )
    assert void_stale_rounds.delay().get(timeout=60) == 1
    old.refresh_from_db()
    assert old.status == ShowdownRound.Status.VOIDED
    assert Account.objects.get(kind="charity").balance == 700
    assert ledger_verify().ok
