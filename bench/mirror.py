"""What a client of the table socket holds (docs/protocol.md "Frames"): the public parts of the
table from `snapshot` and `update` frames and the player's own part from `snapshot` and
`private` frames, composed into the STATE a fresh snapshot would show.

static/js/table_state.js does the same for the page, with the updates in order from
static/js/table_socket.js (both tested under node, tests/js/); this is their Python twin for the
sockets of the tests (tests/factories.py), so the tests check that the small frames add up to
the whole state (bench/load.py's bots keep less, more cheaply: bench/bot_mirror.py). Not part
of the room: nothing in it imports this. The frames are poker/frames.py's TypedDicts (read for
their types only: a client need not load the room's modules).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, TypedDict, cast

if TYPE_CHECKING:
    from poker.frames import PrivateHand, TableFrame, TableState, UpdateFrame, YouJson


class OwnPart(TypedDict):
    """A player's own part as of `version`: a `private` frame but its `type`."""

    version: int
    you: YouJson | None
    hand: PrivateHand | None


def own_part(state: TableState) -> OwnPart:
    """A snapshot's STATE split like a `private` frame: `you` and the player's own hand part."""
    hand = state.get("hand")
    mine: PrivateHand | None = None
    if hand is not None and hand.get("you") is not None:
        seat = next(s for s in hand["seats"] if s["seat"] == hand["you"])
        mine = {
            "id": hand["id"],
            "turn": hand["turn"],
            "seat": hand["you"],
            "cards": seat["cards"],
            "reading": hand["reading"],
            "legal_actions": hand["legal_actions"],
        }
    return {"version": state["version"], "you": state.get("you"), "hand": mine}


def compose(public: TableState, own: OwnPart | None) -> TableState:
    """The public STATE with the player's own part laid over it: `you`, their hole cards, the
    reading of their hand and, when the hand is at the turn their part was made for, their legal
    actions."""
    state: TableState = {**public, "you": own["you"] if own is not None else public.get("you")}
    hand = public.get("hand")
    if hand is not None:
        hand = {**hand, "you": None, "legal_actions": None, "reading": None}
        mine = own["hand"] if own is not None else None
        if mine is not None and mine["id"] == hand["id"]:
            hand["you"] = mine["seat"]
            hand["reading"] = mine["reading"]
            hand["seats"] = [
                {**s, "cards": mine["cards"]} if s["seat"] == mine["seat"] else s
                for s in hand["seats"]
            ]
            if mine["turn"] == hand["turn"] and hand["to_act"] == mine["seat"]:
                hand["legal_actions"] = mine["legal_actions"]
        state["hand"] = hand
    return state


# How long a client waits for a missing version before it asks for what it missed with
# `resync`, at first and at most (static/js/table_socket.js: GAP_WAIT_MS, GAP_WAIT_MAX_MS).
GAP_WAIT_SECONDS = 0.05
GAP_WAIT_MAX_SECONDS = 1.0


class GapWait:
    """How long a client's gaps wait for their missing version, as static/js/table_socket.js's
    `GapWait`: a quarter more than the largest crossing measured lately (each measure lets the
    older ones count for a fifth less), between GAP_WAIT_SECONDS and GAP_WAIT_MAX_SECONDS. A
    crossing is measured when a gap fills itself, or when a missing frame the client asked
    `resync` for comes after all. The mirrors (this module's and bench/bot_mirror.py's) say
    when a gap opens and closes, when they ask and when an answer is replayed."""

    def __init__(self) -> None:
        self.crossing = 0.0
        self.replaying = False  # applying a `resync`'s frames, which are not late arrivals
        self._opened_at: float | None = None
        self._asked = False  # a `resync` not answered yet
        # The gap a `resync` was asked for: when it opened and the last version it missed.
        self._asked_gap: tuple[float, int] | None = None

    @property
    def seconds(self) -> float:
        return min(GAP_WAIT_MAX_SECONDS, max(GAP_WAIT_SECONDS, 1.25 * self.crossing))

    def observe(self, seconds: float) -> None:
        self.crossing = max(seconds, 0.8 * self.crossing)

    def arrived(self, version: int) -> None:
        """A versioned frame came over the socket."""
        asked = self._asked_gap
        if not self.replaying and asked is not None and version <= asked[1]:
            self.observe(time.monotonic() - asked[0])  # crossed longer than the client waited
            self._asked_gap = None

    def opened(self) -> None:
        if self._opened_at is None:
            self._opened_at = time.monotonic()

    def closed(self) -> None:
        if self._opened_at is not None and not self._asked and not self.replaying:
            self.observe(time.monotonic() - self._opened_at)  # the gap filled itself
        self._opened_at = None

    def asked(self, pending: dict[int, Any]) -> None:
        if pending:
            self._asked_gap = (self._opened_at or time.monotonic(), min(pending) - 1)
        self._opened_at, self._asked = None, True

    def answered(self) -> None:
        self._asked = False

    def snapshot(self) -> None:
        self._opened_at, self._asked_gap, self._asked = None, None, False


class TableMirror:
    """Apply frames as they come; `state` is the composed STATE (None before the snapshot).

    Frame v is applied only after v-1 (docs/protocol.md "Versions and resync"). An update
    that skips a version waits in `pending`: the missing one usually comes a moment later (two
    processes' broadcasts crossed), and the pending ones follow it in order. A client that
    still misses it after `gap_wait_seconds` sends `resync_frame()`, and the server's `resync`
    answer (its frames in order, applied here like any others) fills the gap. The wait follows
    the crossings measured (`GapWait`): a gap that fills itself, or a missing frame that comes
    after the client asked for it. `gaps` counts those requests, `broken` the updates that did
    not fit the hand shown (the client asks for a snapshot), `stale` frames older than what it
    shows (ignored)."""

    def __init__(self) -> None:
        self.public: TableState | None = None  # the public parts (`you` as the snapshot's)
        self.own: OwnPart | None = None
        self.pending: dict[int, UpdateFrame] = {}
        self.gaps = 0
        self.broken = 0
        self.stale = 0
        self.gap_wait = GapWait()

    @property
    def gap_wait_seconds(self) -> float:
        return self.gap_wait.seconds

    @property
    def version(self) -> int:
        return self.public["version"] if self.public is not None else 0

    @property
    def state(self) -> TableState | None:
        return None if self.public is None else compose(self.public, self.own)

    def apply(self, frame: TableFrame) -> bool:
        """True when the frame changed what the client shows."""
        if frame["type"] == "snapshot":
            self.gap_wait.snapshot()
            state = frame["state"]
            self.public = state.copy()
            if self.own is None or self.own["version"] <= state["version"]:
                self.own = own_part(state)
            self._pending_apply()
            return True
        if frame["type"] == "resync":
            changed = False
            self.gap_wait.answered()
            self.gap_wait.replaying = True
            try:
                for missed in frame["frames"]:  # `update` and `private` frames
                    changed = self.apply(cast("TableFrame", missed)) or changed
            finally:
                self.gap_wait.replaying = False
            return self._pending_apply() or changed
        if frame["type"] == "private":
            if self.own is not None and frame["version"] < self.own["version"]:
                self.stale += 1
                return False
            self.own = {"version": frame["version"], "you": frame["you"], "hand": frame["hand"]}
            return True
        if frame["type"] == "update" and self.public is not None:
            version = frame["version"]
            self.gap_wait.arrived(version)
            if version <= self.public["version"] or version in self.pending:
                self.stale += 1
                return False
            if version > self.public["version"] + 1:
                self.pending[version] = frame  # until the versions before it come
                self.gap_wait.opened()
                return False
            changed = self._update(frame)
            return self._pending_apply() or changed
        return False

    def resync_frame(self) -> dict[str, Any]:
        """What to send when the missing version did not come in time: the frames after the
        one shown."""
        self.gaps += 1
        self.gap_wait.asked(self.pending)
        return {"type": "resync", "since": self.version}

    def _pending_apply(self) -> bool:
        changed = False
        for version in [v for v in self.pending if self.public and v <= self.public["version"]]:
            del self.pending[version]
        while self.public is not None and self.public["version"] + 1 in self.pending:
            changed = self._update(self.pending.pop(self.public["version"] + 1)) or changed
        if not self.pending:
            self.gap_wait.closed()
        return changed

    def _update(self, frame: UpdateFrame) -> bool:
        """Apply the next update (False: it changes a hand this client never saw)."""
        version = frame["version"]
        assert self.public is not None, "an update is applied after a snapshot"
        public: TableState = {**self.public, "version": version}
        if "hand_changes" in frame:
            changes = frame["hand_changes"]
            hand = public.get("hand")
            if hand is None or hand["id"] != changes["id"]:
                self.broken += 1  # a change to a hand this client never saw: snapshot
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
        if frame.get("tournament") is not None:
            public["table"] = {**public["table"], "tournament": frame["tournament"]}
        self.public = public
        return True
