"""What a client of the table socket holds (docs/protocol.md "Frames"): the public parts of the
table from `snapshot` and `update` frames and the player's own part from `snapshot` and
`private` frames, composed into the STATE a fresh snapshot would show.

static/js/table_state.js does the same for the page (tested under node, tests/js/); this is its
Python twin for the sockets of the tests (tests/factories.py) and of bench/load.py, so the tests
check that the small frames add up to the whole state. Not part of the room: nothing in it
imports this.
"""

from __future__ import annotations

from typing import Any


def own_part(state: dict[str, Any]) -> dict[str, Any]:
    """A snapshot's STATE split like a `private` frame: `you` and the player's own hand part."""
    hand = state.get("hand")
    mine = None
    if hand is not None and hand.get("you") is not None:
        seat = next(s for s in hand["seats"] if s["seat"] == hand["you"])
        mine = {
            "id": hand["id"],
            "turn": hand["turn"],
            "seat": hand["you"],
            "cards": seat["cards"],
            "legal_actions": hand["legal_actions"],
        }
    return {"version": state["version"], "you": state.get("you"), "hand": mine}


def compose(public: dict[str, Any], own: dict[str, Any] | None) -> dict[str, Any]:
    """The public STATE with the player's own part laid over it: `you`, their hole cards and,
    when the hand is at the turn their part was made for, their legal actions."""
    state = {**public, "you": own["you"] if own is not None else public.get("you")}
    hand = public.get("hand")
    if hand is not None:
        hand = {**hand, "you": None, "legal_actions": None}
        mine = own["hand"] if own is not None else None
        if mine is not None and mine["id"] == hand["id"]:
            hand["you"] = mine["seat"]
            hand["seats"] = [
                {**s, "cards": mine["cards"]} if s["seat"] == mine["seat"] else s
                for s in hand["seats"]
            ]
            if mine["turn"] == hand["turn"] and hand["to_act"] == mine["seat"]:
                hand["legal_actions"] = mine["legal_actions"]
        state["hand"] = hand
    return state


# How long a client waits for a missing version before it gives up on it and asks for a
# snapshot (static/js/table_state.js waits as long: HOLD_MS).
HOLD_SECONDS = 0.3


class TableMirror:
    """Apply frames as they come; `state` is the composed STATE (None before the snapshot).

    An update that skips a version is held (`held`), not applied: broadcasts from different
    processes may cross, and the missing one usually comes a few milliseconds later; it is
    then applied with the held ones in order. A client that still misses it after a moment
    calls `held_give_up` and asks for a snapshot. `gaps` counts updates that could not be
    applied in order (the client should ask for a snapshot), `stale` frames older than what
    it shows (ignored)."""

    def __init__(self) -> None:
        self.public: dict[str, Any] | None = None
        self.own: dict[str, Any] | None = None
        self.held: dict[int, dict[str, Any]] = {}
        self.gaps = 0
        self.stale = 0

    @property
    def version(self) -> int:
        return self.public["version"] if self.public is not None else 0

    @property
    def state(self) -> dict[str, Any] | None:
        return None if self.public is None else compose(self.public, self.own)

    def apply(self, frame: dict[str, Any]) -> bool:
        """True when the frame changed what the client shows."""
        kind = frame.get("type")
        if kind == "snapshot":
            state = frame["state"]
            self.public = dict(state)
            if self.own is None or self.own["version"] <= state["version"]:
                self.own = own_part(state)
            self.held = {v: held for v, held in self.held.items() if v > state["version"]}
            self._held_apply()
            return True
        if kind == "private":
            if self.own is not None and frame["version"] < self.own["version"]:
                self.stale += 1
                return False
            self.own = {"version": frame["version"], "you": frame["you"], "hand": frame["hand"]}
            return True
        if kind == "update" and self.public is not None:
            version = frame["version"]
            if version <= self.public["version"] or version in self.held:
                self.stale += 1
                return False
            if version > self.public["version"] + 1:
                self.held[version] = frame  # until the versions before it come
                return False
            changed = self._update(frame)
            return self._held_apply() or changed
        return False

    def held_give_up(self) -> bool:
        """The versions before the held updates did not come: apply the held ones in order
        anyway (a gap: the client asks for a snapshot). True when that changed the state."""
        if not self.held:
            return False
        self.gaps += 1
        changed = False
        for version in sorted(self.held):
            frame = self.held.pop(version)
            if version > self.public["version"]:
                changed = self._update(frame) or changed
        return changed

    def _held_apply(self) -> bool:
        changed = False
        while self.public is not None and self.public["version"] + 1 in self.held:
            changed = self._update(self.held.pop(self.public["version"] + 1)) or changed
        return changed

    def _update(self, frame: dict[str, Any]) -> bool:
        """Apply the next update (False: it changes a hand this client never saw)."""
        version = frame["version"]
        public = {**self.public, "version": version}
        if "hand_changes" in frame:
            changes = frame["hand_changes"]
            hand = public.get("hand")
            if hand is None or hand["id"] != changes["id"]:
                self.gaps += 1  # a change to a hand this client never saw: snapshot
                return False
            moved = {s["seat"]: s for s in changes["seats"]}
            seats = [moved.get(s["seat"], s) for s in hand["seats"]]
            public["hand"] = {**hand, **changes, "seats": seats}
        else:
            public["hand"] = frame["hand"]
        if "seats" in frame:
            public["seats"] = frame["seats"]
        elif public["hand"] is not None:
            # Only the betting moved: the seats' stacks are the hand's.
            stacks = {s["seat"]: s["stack"] for s in public["hand"]["seats"]}
            public["seats"] = [
                {**s, "stack": stacks[s["seat"]]} if s["seat"] in stacks else s
                for s in public["seats"]
            ]
        if "last_result" in frame:
            public["last_result"] = frame["last_result"]
        if frame.get("waiting") is not None:
            public["waiting"] = frame["waiting"]
        if "next_server_seed_hash" in frame:
            public["next_server_seed_hash"] = frame["next_server_seed_hash"]
        self.public = public
        return True
