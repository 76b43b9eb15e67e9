"""Loss limits: a net loss cap per rolling window across poker and the banked game, checked
before a seat, a buy-in, a top-up or a banked round; lower at once, higher after 24 hours."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from poker import services as poker
from responsible.models import LossLimit, ResponsibleGamingEvent
from responsible.rules import check_play, loss_room, net_result_since
from responsible.services import ResponsibleError, deposit_limit_set, loss_limit_set
from showdown.services import ShowdownRefused, round_deal, round_decide
from tests.factories import (
    call_down,
    deal_hand,
    make_funded_player,
    make_seated_player,
    make_showdown_table,
    make_table,
    sit_refusal,
)
from tests.poker.engine.conftest import build_deck

pytestmark = pytest.mark.django_db


def lose_a_round(player, table, key: str) -> None:
    """A banked round folded: the ante is lost."""
    dealt = round_deal(player=player, table=table, ante=500, idempotency_key=f"deal-{key}")
    round_decide(player=player, round_id=dealt.pk, decision="fold", idempotency_key=f"fold-{key}")


def test_a_loss_limit_reached_stops_new_rounds_and_seats_until_the_window_moves_on():
    alice = make_funded_player("alice")
    banked = make_showdown_table()
    start = timezone.now()
    loss_limit_set(player=alice, period="day", amount=1_000)
    lose_a_round(alice, banked, "1")
    assert net_result_since(player=alice, since=start) == -500
    assert loss_room(player=alice)["day"] == {"limit": 1_000, "used": 500, "left": 500}
    lose_a_round(alice, banked, "2")
    with pytest.raises(ShowdownRefused) as refused:
        round_deal(player=alice, table=banked, ante=500, idempotency_key="deal-3")
    assert refused.value.code == "loss_limit"
    assert "$10.00" in refused.value.message and "24 hours" in refused.value.message
    assert sit_refusal(alice, idempotency_key="sit").code == "loss_limit"
    # The window is rolling: a day later the losses are out of it.
    check_play(
        player=alice, error=ShowdownRefused, now=timezone.now() + timedelta(hours=24, seconds=5)
    )
    # A week's cap counts the same losses over 7 days.
    loss_limit_set(player=alice, period="week", amount=5_000)
    later = timezone.now() + timedelta(days=2)
    assert loss_room(player=alice, now=later) == {
        "day": {"limit": 1_000, "used": 0, "left": 1_000},
        "week": {"limit": 5_000, "used": 1_000, "left": 4_000},
    }


def test_poker_results_count_and_a_winner_plays_on():
    table = make_table()
    alice = make_seated_player(table, "alice", 1)
    bob = make_seated_player(table, "bob", 2)
    since = timezone.now()
    deck = build_deck(["AhAdKhKd", "2c3c7d8s"], "As Ks Kc 9h 4d")
    call_down(deal_hand(table, deck), {1: alice, 2: bob})
    results = {p: net_result_since(player=p, since=since) for p in (alice, bob)}
    loser = min(results, key=results.get)
    winner = max(results, key=results.get)
    lost = -results[loser]
    assert lost > 0
    for player in (loser, winner):
        loss_limit_set(player=player, period="day", amount=lost)
    with pytest.raises(poker.TableError) as refused:
        check_play(player=loser, error=poker.TableError)  # lost exactly the cap: reached
    assert refused.value.code == "loss_limit"
    check_play(player=winner, error=poker.TableError)
    loss_limit_set(player=loser, period="day", amount=lost + 1)  # a raise: waits
    with pytest.raises(poker.TableError):
        check_play(player=loser, error=poker.TableError)


def test_lower_at_once_higher_after_24_hours_as_deposit_limits():
    alice = make_funded_player("alice")
    start = timezone.now()
    loss_limit_set(player=alice, period="day", amount=10_000, now=start)
    lowered = loss_limit_set(player=alice, period="day", amount=5_000, now=start)
    assert lowered.amount == 5_000 and lowered.pending_from is None
    raised = loss_limit_set(player=alice, period="day", amount=20_000, now=start)
    assert raised.amount == 5_000 and raised.pending_amount == 20_000
    assert raised.pending_from == start + timedelta(hours=24)
    assert loss_room(player=alice, now=start)["day"]["limit"] == 5_000
    assert (
        loss_room(player=alice, now=start + timedelta(hours=24, seconds=1))["day"]["limit"]
        == 20_000
    )
    removed = loss_limit_set(player=alice, period="day", amount=None, now=start)
    assert removed.pending_from is not None and removed.pending_amount is None
    kinds = list(
        ResponsibleGamingEvent.objects.filter(player=alice)
        .order_by("id")
        .values_list("kind", flat=True)
    )
    assert kinds == [
        "loss_limit_lowered",
        "loss_limit_lowered",
        "loss_limit_raise_pending",
        "loss_limit_raise_pending",
    ]
    # Deposit limits are their own rows.
    deposit_limit_set(player=alice, period="day", amount=1_000, now=start)
    assert LossLimit.objects.get(player=alice).pending_amount is None


@pytest.mark.parametrize(("period", "amount"), [("year", 100), ("day", 0), ("day", "5")])
def test_a_bad_loss_limit_is_refused_and_changes_nothing(period, amount):
    alice = make_funded_player("alice", cents=0)
    with pytest.raises(ResponsibleError):
        loss_limit_set(player=alice, period=period, amount=amount)
    assert not LossLimit.objects.exists()


def test_profile_page_and_api():
    alice = make_funded_player("alice")
    browser = Client()
    browser.force_login(alice)
    page = browser.post(
        "/responsible/loss-limits/", {"period": "week", "amount": "25.00"}, follow=True
    )
    assert b"data-loss-limits" in page.content
    assert LossLimit.objects.get(player=alice, period="week").amount == 2_500
    answer = browser.post(
        "/api/responsible/loss-limits/",
        {"period": "day", "amount": 1_000},
        content_type="application/json",
    )
    assert answer.status_code == 200
    rows = {row["period"]: row for row in answer.json()["loss_limits"]}
    assert rows["day"]["limit"] == 1_000 and rows["week"]["left"] == 2_500
    bad = browser.post(
        "/api/responsible/loss-limits/",
        {"period": "day", "amount": -1},
        content_type="application/json",
    )
    assert bad.status_code == 400 and bad.json()["code"] == "bad_amount"
