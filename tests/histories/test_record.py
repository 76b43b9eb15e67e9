"""A stored hand's record as each viewer may see it, and its replay steps, for the four games:
own cards only, shown cards for all, mucked cards for nobody, every amount as the engine had
it (the last step's stacks are the final stacks, the pot empties), side pots, a cancelled hand."""

import pytest

from histories.record import HandNotFound, hand_record
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandPlayer
from poker.services.faults import hand_cancel
from tests.factories import call_down, deal_hand, make_player, make_seated_player
from tests.histories.conftest import dumped, game_table
from tests.sweep import DECK, cards_in

pytestmark = pytest.mark.django_db


def _secrets(hand: Hand):
    """Each seat's hole cards, the shown seats, and the burns, read as only the engine may."""
    engine = EngineHand.from_dict(hand.state)
    holes = dict(zip(engine.seats, (set(c) for c in engine.hole_cards), strict=True))
    shown = {e["seat"] for e in (engine.result or {}).get("showdown", []) if e.get("shown")}
    return holes, shown, set(engine.burns)


def test_each_player_sees_their_own_cards_and_the_shown_ones_never_the_mucked(played):
    game, _, players, calm, wild = played
    for hand in (calm, wild):
        holes, shown, burns = _secrets(hand)
        for seat, player in players.items():
            record = hand_record(hand_id=hand.pk, viewer=player)
            visible = set().union(*(holes[s] for s in shown)) | holes[seat]
            hidden = set().union(*holes.values()) - visible
            seen = cards_in(dumped(record))
            assert not seen & hidden, f"{game}: seat {seat} sees {sorted(seen & hidden)}"
            assert not seen & burns, "burns are not a player's to see"
            assert holes[seat] <= seen and record["you"] == seat
            assert {s["seat"]: s["you"] for s in record["seats"]}[seat]


def test_staff_see_every_card_of_a_hand_that_is_over(played):
    calm = played[3]
    holes, _, burns = _secrets(calm)
    record = hand_record(hand_id=calm.pk, viewer=None, all_cards=True)
    assert set().union(*holes.values()) | burns <= cards_in(dumped(record))


def test_the_replay_follows_every_chip_to_the_final_stacks(played):
    game, _, players, calm, wild = played
    side_pots = 0
    for hand in (calm, wild):
        record = hand_record(hand_id=hand.pk, viewer=players[2])
        steps = record["steps"]
        first = dict(steps[0]["stacks"])
        total = sum(first.values())
        for step in steps:  # chips are only ever in stacks or the pot
            assert sum(dict(step["stacks"]).values()) + step["pot"] + _raked(record, step) == total
        finals = {entry["seat"]: entry["final_stack"] for entry in hand.result["seats"]}
        assert dict(steps[-1]["stacks"]) == finals and steps[-1]["pot"] == 0
        assert steps[-1]["board"] == hand.result["board"]
        nets = {row.seat: row.net for row in HandPlayer.objects.filter(hand=hand)}
        assert nets == {e["seat"]: e["net"] for e in hand.result["seats"]}
        assert sum(nets.values()) + hand.result["rake"] == 0
        side_pots += len(hand.result["pots"]) > 1
    if game.endswith("pot-limit"):
        assert side_pots, f"{game}: the short stack's all-in made a side pot"


def _raked(record, step) -> int:
    """Rake taken by the awards up to this step (it leaves the table)."""
    steps = record["steps"]
    upto = steps.index(step)
    return sum(
        s["event"].get("rake", 0) for s in steps[: upto + 1] if s["event"]["type"] == "pot_awarded"
    )


def test_a_hand_that_is_not_yours_running_or_missing_is_not_found(played):
    game, _, players, calm, _ = played
    outsider = make_player("eve")
    for viewer, hand_id in (
        (outsider, calm.pk),
        (players[1], 10**9),
        (players[1], "1"),
        (players[1], True),
    ):
        with pytest.raises(HandNotFound):
            hand_record(hand_id=hand_id, viewer=viewer)
    table = game_table(game)
    dealt = {1: make_seated_player(table, "dee", 1), 2: make_seated_player(table, "eli", 2)}
    running = deal_hand(table, DECK)
    with pytest.raises(HandNotFound):
        hand_record(hand_id=running.pk, viewer=dealt[2])
    with pytest.raises(HandNotFound):
        hand_record(hand_id=running.pk, viewer=None, all_cards=True)


def test_a_cancelled_hand_shows_what_happened_and_gives_every_bet_back():
    table = game_table("omaha-pot-limit")
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    assert hand_cancel(hand=hand, reason="the dealer's machine failed")
    record = hand_record(hand_id=hand.pk, viewer=players[1])
    assert record["status"] == "cancelled" and "machine failed" in record["cancel_reason"]
    assert all(seat["net"] is None for seat in record["seats"])
    assert [s["event"]["type"] for s in record["steps"]][-1] == "street_dealt"
    holes, _, _ = _secrets(Hand.objects.get(pk=hand.pk))
    assert not cards_in(dumped(record)) & holes[2]
