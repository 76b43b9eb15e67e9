"""The least a bot of bench/load.py keeps of its table to decide: whose turn, its legal actions,
the hand and turn, its seat's stack and status, whether the hand is over.

bench/mirror.py composes the whole STATE after every frame, as a page does, so the tests can
check that small frames add up to a snapshot; that costs the benchmark's bots more CPU than the
room they measure. This keeps the same order (update v after v-1, early ones waiting in
`pending`, docs/protocol.md "Versions and resync") and reads only the fields below, with no
copies.
"""

from __future__ import annotations

from typing import Any

from bench.mirror import GapWait

FINISHED = 1 << 30  # the turn of a finished hand: past every turn


class BotMirror:
    """What one bot knows of its table, from its frames (None fields: not shown yet)."""

    def __init__(self) -> None:
        self.version = 0
        self.shown = False  # a snapshot was applied
        self.pending: dict[int, dict[str, Any]] = {}
        self.broken = 0  # a change to a hand never seen: the bot asks for a snapshot
        self.stale = 0
        self.gap_wait = GapWait()
        # The public parts.
        self.hand_id: int | None = None
        self.turn = 0
        self.to_act: int | None = None
        self.over = False  # the shown hand has its result
        self.dealt: frozenset[int] = frozenset()  # seats dealt into the shown hand
        self.stacks: dict[int, int] = {}
        self.status: dict[int, str] = {}
        self.last_result_id: int | None = None
        # The bot's own part: `you` and its hand's (id, turn, legal actions).
        self.own_version = -1
        self.you: dict[str, Any] = {}
        self.own_hand: tuple[int, int, dict[str, Any] | None] | None = None

    # -- what the bot reads

    @property
    def seat(self) -> int | None:
        return self.you.get("seat")

    @property
    def live(self) -> bool:
        return self.hand_id is not None and not self.over

    def legal_actions(self) -> dict[str, Any] | None:
        """The bot's legal actions when it is to act at the shown turn, else None."""
        own = self.own_hand
        if not self.live or own is None or self.to_act != self.seat:
            return None
        hand_id, turn, legal = own
        return legal if hand_id == self.hand_id and turn == self.turn else None

    def progress(self) -> tuple[int, int] | None:
        """(hand id, turn) of the table; a finished hand counts as past every turn."""
        if self.hand_id is not None:
            return self.hand_id, FINISHED if self.over else self.turn
        if self.last_result_id is not None:
            return self.last_result_id, FINISHED
        return None

    @property
    def gap_wait_seconds(self) -> float:
        return self.gap_wait.seconds

    def resync_frame(self) -> dict[str, Any]:
        self.gap_wait.asked(self.pending)
        return {"type": "resync", "since": self.version}

    # -- frames

    def apply(self, frame: dict[str, Any]) -> bool:
        """True when the frame changed what the bot shows."""
        kind = frame["type"]
        if kind == "update":
            if not self.shown:
                return False
            version = frame["version"]
            self.gap_wait.arrived(version)
            if version <= self.version or version in self.pending:
                self.stale += 1
                return False
            if version > self.version + 1:
                self.pending[version] = frame
                self.gap_wait.opened()
                return False
            changed = self._update(frame)
            return self._pending_apply() or changed
        if kind == "private":
            if frame["version"] < self.own_version:
                self.stale += 1
                return False
            self._own(frame["version"], frame["you"], frame["hand"])
            return True
        if kind == "snapshot":
            self.gap_wait.snapshot()
            self._snapshot(frame["state"])
            self._pending_apply()
            return True
        if kind == "resync":
            changed = False
            self.gap_wait.answered()
            self.gap_wait.replaying = True
            try:
                for missed in frame["frames"]:
                    changed = self.apply(missed) or changed
            finally:
                self.gap_wait.replaying = False
            return self._pending_apply() or changed
        return False

    def _own(self, version: int, you: dict[str, Any] | None, hand: dict[str, Any] | None) -> None:
        self.own_version = version
        self.you = you or {}
        self.own_hand = None if hand is None else (hand["id"], hand["turn"], hand["legal_actions"])

    def _snapshot(self, state: dict[str, Any]) -> None:
        self.shown = True
        self.version = state["version"]
        self._seats(state["seats"])
        self._hand(state.get("hand"))
        last = state.get("last_result")
        self.last_result_id = None if last is None else last.get("hand_id", last.get("id"))
        if self.own_version <= self.version:
            hand = state.get("hand")
            mine = None
            if hand is not None and hand.get("you") is not None:
                mine = {"id": hand["id"], "turn": hand["turn"], "legal_actions": None}
                if hand.get("to_act") == hand["you"]:
                    mine["legal_actions"] = hand.get("legal_actions")
            self._own(self.version, state.get("you"), mine)

    def _seats(self, seats: list[dict[str, Any]]) -> None:
        self.stacks = {s["seat"]: s["stack"] for s in seats}
        self.status = {s["seat"]: s["status"] for s in seats}

    def _hand(self, hand: dict[str, Any] | None) -> None:
        if hand is None:
            self.hand_id, self.turn, self.to_act, self.over = None, 0, None, False
            self.dealt = frozenset()
            return
        self.hand_id, self.turn, self.to_act = hand["id"], hand["turn"], hand["to_act"]
        self.over = hand.get("result") is not None
        self.dealt = frozenset(s["seat"] for s in hand["seats"])

    def _pending_apply(self) -> bool:
        changed = False
        for version in [v for v in self.pending if v <= self.version]:
            del self.pending[version]
        while self.version + 1 in self.pending:
            changed = self._update(self.pending.pop(self.version + 1)) or changed
        if not self.pending:
            self.gap_wait.closed()
        return changed

    def _update(self, frame: dict[str, Any]) -> bool:
        """Apply the next update (False: it changes a hand this bot never saw)."""
        hand_seats: list[dict[str, Any]] | None
        if "hand_changes" in frame:
            changes = frame["hand_changes"]
            if self.hand_id != changes["id"]:
                self.broken += 1
                return False
            self.turn, self.to_act = changes["turn"], changes["to_act"]
            self.over = changes.get("result") is not None
            hand_seats = changes["seats"]
        else:
            hand = frame["hand"]
            self._hand(hand)
            hand_seats = None if hand is None else hand["seats"]
        self.version = frame["version"]
        if "seats" in frame:
            self._seats(frame["seats"])
        elif hand_seats:
            for s in hand_seats:  # only the betting moved: a dealt-in seat's stack is the hand's
                self.stacks[s["seat"]] = s["stack"]
        if "last_result" in frame:
            last = frame["last_result"]
            self.last_result_id = None if last is None else last.get("hand_id", last.get("id"))
        return True
