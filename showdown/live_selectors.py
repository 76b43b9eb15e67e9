"""What one person may see of a live Showdown table (docs/protocol.md "Live Omaha Showdown").

A change's frames are built once (`live_table_frames`): the public view, the same for every
socket at the table (the seats, the round's phase and deadline, each seat's wagers and whether
it has decided; every seat's cards, decisions, the board and the results only once the round
is settled), and each player's own part (`you`: their seat and wallet; their seat's hole
cards, decision and bet in the latest round), which goes to that player's sockets alone. A
socket's snapshot is the public view with its player's own part laid over it (`view_merge`,
what the page does with the frames). The deck is never in any of them; players are shown by
their display names, never their logins.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable
from typing import Any, cast

from django.contrib.auth import get_user_model

from cashier.models import Account
from fairness.models import Commitment
from fairness.published import commitment_of
from showdown.frames import (
    LiveCards,
    LiveHand,
    LiveOwnPart,
    LivePrivateFrame,
    LiveRoundJson,
    LiveRoundSeat,
    LiveView,
    StateFrame,
)
from showdown.models import LiveRound, LiveSeat, ShowdownRound, ShowdownTable


def _iso(moment) -> str | None:
    return moment.isoformat() if moment is not None else None


def _shown_name(user) -> str:
    """The name other players see: the display name, never the login."""
    profile = getattr(user, "profile", None)
    return profile.display_name if profile is not None else f"player {user.pk}"


def _dumps(frame: StateFrame | LivePrivateFrame) -> str:
    return json.dumps(frame, separators=(",", ":"))


class _Table:
    """A live table as one change left it: read once, for every frame of the change."""

    def __init__(self, table: ShowdownTable) -> None:
        self.table = table
        self.seats = list(LiveSeat.objects.filter(table=table).select_related("player__profile"))
        self.live = LiveRound.objects.filter(table=table).order_by("-id").first()
        self.shares: list[ShowdownRound] = []
        if self.live is not None:
            self.shares = list(
                self.live.seat_rounds.select_related("player__profile").order_by("live_seat")
            )

    def public(self) -> LiveView:
        table, live = self.table, self.live
        round_view: LiveRoundJson | None = None
        if live is not None:
            settled = live.phase == LiveRound.Phase.SETTLED
            round_seats: list[LiveRoundSeat] = []
            for mine in self.shares:
                entry: LiveRoundSeat = {
                    "seat": cast(int, mine.live_seat),  # every share of a live round has one
                    "player": _shown_name(mine.player),
                    "you": False,
                    "ante": mine.ante,
                    "hole_card_bonus": mine.hole_card_bonus,
                    "final_hand_bonus": mine.final_hand_bonus,
                    "decided": bool(mine.decision),
                }
                if settled:
                    entry.update(_own_cards(mine))
                    if mine.result:
                        entry["result"] = mine.result["seats"][0]
                        entry["net"] = mine.net
                round_seats.append(entry)
            round_view = {
                "id": live.pk,
                "phase": live.phase,
                "deadline": _iso(live.deadline) if not settled else None,
                "board": live.state["board"] if settled else [],
                "seats": round_seats,
                "payout_cap": live.state["result"]["payout_cap"] if settled else None,
                # Fixed with the deck at the deal, before any hole card shows (docs/fairness.md).
                "commitment": commitment_of(kind=Commitment.Kind.LIVE, ref_id=live.pk),
            }
        return {
            "version": table.version,
            "table": {
                "id": table.pk,
                "name": table.name,
                "seats": table.seats,
                "is_open": table.is_open,
                "bet_seconds": table.bet_seconds,
                "action_seconds": table.action_seconds,
                "limits": table.limits().to_dict(),
            },
            "seats": [
                {"seat": seat.number, "player": _shown_name(seat.player), "you": False}
                for seat in self.seats
            ],
            "round": round_view,
            "you": None,
        }

    def players(self) -> dict[int, Any]:
        """The players whose own part this table has: seated, or with wagers in its round."""
        players = {seat.player_id: seat.player for seat in self.seats}
        players.update({mine.player_id: mine.player for mine in self.shares})
        return players

    def own(self, user, wallets: dict[int, int]) -> LiveOwnPart:
        """`user`'s own part: their seat and wallet, their seat in the latest round."""
        my_seat = next((seat for seat in self.seats if seat.player_id == user.pk), None)
        mine = next((share for share in self.shares if share.player_id == user.pk), None)
        hand: LiveHand | None = None
        if mine is not None and self.live is not None:
            hand = {"round": self.live.pk, "seat": cast(int, mine.live_seat), **_own_cards(mine)}
        return {
            "you": {
                "player": _shown_name(user),
                "seat": my_seat.number if my_seat else None,
                "wallet": wallets.get(user.pk, 0),
            },
            "hand": hand,
        }


def _own_cards(mine: ShowdownRound) -> LiveCards:
    return {
        "hole": (mine.state.get("holes") or {}).get("1", []),
        "decision": mine.decision or None,
        "bet": mine.bet,
    }


def _wallets(user_ids: Iterable[int]) -> dict[int, int]:
    return dict(
        Account.objects.filter(kind=Account.Kind.WALLET, owner_id__in=list(user_ids)).values_list(
            "owner_id", "balance"
        )
    )


def view_merge(public: LiveView, own: LiveOwnPart | LivePrivateFrame | None) -> LiveView:
    """The view of one player: the public view with their own part laid over it (what the
    page does with a `state` frame and the `private` frame of its version)."""
    view = copy.deepcopy(public)
    if own is None:
        return view
    view["you"] = own["you"]
    seat = own["you"]["seat"]
    for entry in view["seats"]:
        entry["you"] = entry["seat"] == seat
    hand, live = own["hand"], view["round"]
    if hand is not None and live is not None and live["id"] == hand["round"]:
        for entry in live["seats"]:
            if entry["seat"] == hand["seat"]:
                entry.update(
                    LiveCards(hole=hand["hole"], decision=hand["decision"], bet=hand["bet"])
                )
                entry["you"] = True
    return view


def live_table_view(*, table_id: int, user) -> LiveView | None:
    """The snapshot frame's body for `user` (None: no such live table)."""
    table = ShowdownTable.objects.filter(pk=table_id, seats__gt=1).first()
    if table is None:
        return None
    read = _Table(table)
    if not getattr(user, "is_authenticated", False):
        return read.public()
    return view_merge(read.public(), read.own(user, _wallets([user.pk])))


def live_table_frames(
    table: ShowdownTable, *, extra_user_ids: Iterable[int] = ()
) -> tuple[str, dict[int, str]]:
    """A change's frames, as JSON text, numbered with the table's version: the public `state`
    frame, and {user id: their `private` frame} for every seated player, every player with
    wagers in the latest round, and `extra_user_ids` (a player who just left still learns
    their own part)."""
    read = _Table(table)
    players = read.players()
    missing = [user_id for user_id in extra_user_ids if user_id not in players]
    if missing:
        users = get_user_model().objects.filter(pk__in=missing).select_related("profile")
        players.update({user.pk: user for user in users})
    wallets = _wallets(players)
    version = table.version
    public = _dumps(StateFrame(type="state", version=version, state=read.public()))
    private = {
        user_id: _dumps(
            LivePrivateFrame(type="private", version=version, **read.own(user, wallets))
        )
        for user_id, user in players.items()
    }
    return public, private


def live_table_versions() -> dict[int, int]:
    """{table id: version} of every live table a socket may be open at (the heartbeat's)."""
    tables = ShowdownTable.objects.filter(seats__gt=1)
    return dict(tables.values_list("pk", "version"))
