"""The types of a hand's events: what the engine appends to `Hand.events` (poker/engine/hand.py),
the hand log stores (`HandEvent.kind`), `update` frames carry (docs/protocol.md "Events") and
the replayer and hand histories read. One list, checked against the engine's code and the
protocol's page by tests/poker/test_protocol_names.py; the room's own events at a table (a
player sitting down, a timeout, ...) are `poker.services.unit.TableEventType`."""

from __future__ import annotations

from typing import Literal, get_args

HandEventType = Literal[
    "hand_started",
    "blind_posted",
    "hole_cards_dealt",
    "action",
    "uncalled_bet_returned",
    "street_dealt",
    "showdown",
    "cards_shown",
    "cards_mucked",
    "pot_awarded",
    "hand_ended",
]

HAND_EVENT_TYPES: frozenset[str] = frozenset(get_args(HandEventType))
