"""Poker hands are dealt provably fair: through real sockets every seated player gets the
commitment in a frame before any frame with a hole card; after the hand its reveal verifies,
the players are told where, and verify_hand catches a changed deck or salt; a client seed
changes the deck."""

import json
from io import StringIO

import pytest
from channels.db import database_sync_to_async as sync_to_async
from django.core.management import CommandError, call_command

from fairness.models import Commitment
from fairness.selectors import hand_check
from fairness.services import client_seed_set
from poker import services
from poker.engine import fairness as scheme
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Table
from tests.factories import TableSocket, make_seated_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def seated_table(seeds: dict[int, str | None]):
    table = make_table(next_hand_delay_seconds=3600)  # the test deals, not a timer
    players = {}
    for seat, seed in seeds.items():
        players[seat] = make_seated_player(table, f"p{seat}", seat)
        if seed is not None:
            client_seed_set(player=players[seat], seed=seed)
    return table, players


@sync_to_async
def deal(table) -> Hand:
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    services.table_hand_start(table=table)
    return Hand.objects.get(table=table, status=Hand.Status.RUNNING)


@sync_to_async
def fold_to_the_end(hand: Hand, players) -> Hand:
    for seq in range(1, 20):
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            return hand
        to_act = EngineHand.from_dict(hand.state).to_act
        services.table_act(
            table=hand.table_id,
            player=players[to_act],
            action="fold",
            amount=None,
            turn=hand.turn,
            seq=seq,
        )
    raise AssertionError("the hand did not end")


@sync_to_async
def stored_deck(hand_id) -> list[str]:
    return Hand.objects.values_list("deck", flat=True).get(pk=hand_id)


def commitment_events(frame) -> list[dict]:
    return [e for e in frame.get("events", []) if e.get("type") == "hand_commitment"]


def shows_a_hole_card(frame, cards) -> bool:
    text = json.dumps(frame)
    return any(f'"{card}"' in text for card in cards)


async def test_the_commitment_reaches_every_seat_before_any_hole_card_and_verifies():
    table, players = await seated_table({2: "ann-seed", 4: None, 6: "cat's-seed"})
    sockets = {}
    for seat, player in players.items():
        sockets[seat] = await TableSocket.open(table.pk, player)
        assert sockets[seat].connected
        await sockets[seat].receive()  # the snapshot
    hand = await deal(table)
    engine = EngineHand.from_dict(hand.state)
    row = await sync_to_async(Commitment.objects.get)(kind="hand", ref_id=hand.pk)
    for seat, socket in sockets.items():
        cards = engine.hole_cards[engine.seats.index(seat)]
        await socket.until(lambda f, cards=cards: shows_a_hole_card(f, cards))
        first_card = next(k for k, f in enumerate(socket.frames) if shows_a_hole_card(f, cards))
        told = [k for k, f in enumerate(socket.frames) if commitment_events(f)]
        assert told and told[0] < first_card, socket.frames
        event = commitment_events(socket.frames[told[0]])[0]
        assert event["commitment"] == row.commitment
        assert event["hand_number"] == hand.number and event["seats"] == [2, 4, 6]
        # Nothing that opens it travels while the hand runs.
        for frame in socket.frames:
            text = json.dumps(frame)
            assert row.salt not in text and row.server_seed not in text
            assert "ann-seed" not in text and "cat's-seed" not in text

    ended = await fold_to_the_end(hand, players)
    for socket in sockets.values():
        frame = await socket.until(
            lambda f: any(e.get("type") == "hand_revealed" for e in f.get("events", []))
        )
        revealed = next(e for e in frame["events"] if e["type"] == "hand_revealed")
        assert revealed == {
            "type": "hand_revealed",
            "hand_id": hand.pk,
            "url": f"/fairness/hand/{hand.pk}/",
        }
        await socket.close()
    check = await sync_to_async(hand_check)(hand_id=hand.pk, viewer=players[4])
    assert check.revealed and check.verification.ok, check.verification
    assert check.deck == await stored_deck(ended.pk)
    assert check.client_seeds[2] == "ann-seed" and check.client_seeds[6] == "cat's-seed"
    assert len(check.dealt) == 12  # the hole cards; nobody saw a flop


@sync_to_async
def verify_output(hand_id) -> tuple[str, bool]:
    out = StringIO()
    try:
        call_command("verify_hand", hand_id, stdout=out)
    except CommandError:
        return out.getvalue(), False
    return out.getvalue(), True


async def test_verify_hand_checks_a_hand_and_catches_a_changed_deck_or_salt():
    table, players = await seated_table({1: "one", 3: "three"})
    hand = await deal(table)
    output, ok = await verify_output(hand.pk)
    assert not ok and "pass" not in output  # a running hand: the commitment only
    await fold_to_the_end(hand, players)
    output, ok = await verify_output(hand.pk)
    assert ok and output.count("pass") == 5, output  # deck, commitment, seed hash, seeds, dealt

    stored = await stored_deck(hand.pk)
    deck = list(stored)
    deck[30], deck[31] = deck[31], deck[30]  # cards nobody was dealt
    await sync_to_async(Hand.objects.filter(pk=hand.pk).update)(deck=deck)
    output, ok = await verify_output(hand.pk)
    assert not ok and "FAIL  commitment" in output and "FAIL  seeds" in output
    assert "pass  dealt" in output

    await sync_to_async(Hand.objects.filter(pk=hand.pk).update)(deck=stored)
    await sync_to_async(Commitment.objects.filter(kind="hand", ref_id=hand.pk).update)(
        salt="ab" * 32
    )
    output, ok = await verify_output(hand.pk)
    assert not ok and "FAIL  commitment" in output and "pass  seeds" in output


async def test_a_client_seed_changes_the_deck():
    table, _ = await seated_table({1: "first", 2: "second"})
    hand = await deal(table)
    row = await sync_to_async(Commitment.objects.get)(kind="hand", ref_id=hand.pk)
    server_seed = bytes.fromhex(row.server_seed)
    assert row.client_seeds == {"1": "first", "2": "second"}
    deck = await stored_deck(hand.pk)
    assert deck == scheme.seeded_deck(server_seed, {1: "first", 2: "second"})
    assert deck != scheme.seeded_deck(server_seed, {1: "first", 2: "second!"})


async def test_the_rooms_seed_is_published_before_the_hand_that_uses_it():
    """docs/fairness.md: the server seed of a table's next hand is drawn when a player sits
    or the hand before starts, and its SHA-256 is in every page's STATE before that hand; the
    reveal checks the seed against it, and a seed that does not match is caught."""
    table, players = await seated_table({1: "one", 3: "three"})
    watcher = await TableSocket.open(table.pk, players[1])
    before = (await watcher.receive())["state"]["next_server_seed_hash"]
    assert before and len(before) == 64
    hand = await deal(table)
    row = await sync_to_async(Commitment.objects.get)(kind="hand", ref_id=hand.pk)
    assert row.server_seed_hash == before and row.server_seed_published_at < row.created_at
    frame = await watcher.until(lambda f: bool(commitment_events(f)))
    event = commitment_events(frame)[0]
    assert event["server_seed_hash"] == before
    upcoming = event["next_server_seed_hash"]
    assert upcoming != before and frame["state"]["next_server_seed_hash"] == upcoming
    await watcher.close()
    await fold_to_the_end(hand, players)
    check = await sync_to_async(hand_check)(hand_id=hand.pk, viewer=players[3])
    assert [c.name for c in check.verification.checks if c.ok] == [
        "deck", "commitment", "seeds", "server_seed", "dealt",
    ]  # fmt: skip
    await sync_to_async(Commitment.objects.filter(pk=row.pk).update)(server_seed_hash="cd" * 32)
    output, ok = await verify_output(hand.pk)
    assert not ok and "FAIL  server_seed" in output and "pass  commitment" in output
    # The next hand uses the seed published with this one.
    second = await deal(table)
    row = await sync_to_async(Commitment.objects.get)(kind="hand", ref_id=second.pk)
    assert row.server_seed_hash == upcoming
