"""What one person may see of a live Showdown table (docs/protocol.md, "showdown" frames).

Every socket builds its own view for its own user: the seats, the round's phase and deadline,
each seat's wagers and whether it has decided; the viewer's own hole cards once dealt; other
seats' cards, their decisions, the board and the results only once the round is settled. The
deck is never in it.
"""

from __future__ import annotations

from typing import Any

from cashier.models import Account
from fairness.models import Commitment
from fairness.published import commitment_of
from showdown.models import LiveRound, LiveSeat, ShowdownTable


def _iso(moment) -> str | None:
    return moment.isoformat() if moment is not None else None


def _shown_name(user) -> str:
    """The name other players see (issue 24 item 5): the display name, never the login."""
    profile = getattr(user, "profile", None)
    return profile.display_name if profile is not None else f"player {user.pk}"


def live_table_view(*, table_id: int, user) -> dict[str, Any] | None:
    """The snapshot frame's body for `user` (None: no such live table)."""
    table = ShowdownTable.objects.filter(pk=table_id, seats__gt=1).first()
    if table is None:
        return None
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    seats = list(LiveSeat.objects.filter(table=table).select_related("player__profile"))
    live = LiveRound.objects.filter(table=table).order_by("-id").first()
    round_view = None
    if live is not None:
        settled = live.phase == LiveRound.Phase.SETTLED
        shares = {
            mine.live_seat: mine
            for mine in live.seat_rounds.select_related("player__profile").order_by("live_seat")
        }
        round_seats = []
        for number, mine in shares.items():
            own = mine.player_id == user_id
            entry: dict[str, Any] = {
                "seat": number,
                "player": _shown_name(mine.player),
                "you": own,
                "ante": mine.ante,
                "hole_card_bonus": mine.hole_card_bonus,
                "final_hand_bonus": mine.final_hand_bonus,
                "decided": bool(mine.decision),
            }
            if own or settled:
                entry["hole"] = (mine.state.get("holes") or {}).get("1", [])
                entry["decision"] = mine.decision or None
                entry["bet"] = mine.bet
            if settled and mine.result:
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
    you = None
    if user_id is not None:
        my_seat = next((seat for seat in seats if seat.player_id == user_id), None)
        wallet = (
            Account.objects.filter(kind=Account.Kind.WALLET, owner_id=user_id)
            .values_list("balance", flat=True)
            .first()
        )
        you = {
            "player": _shown_name(user),
            "seat": my_seat.number if my_seat else None,
            "wallet": wallet or 0,
        }
    return {
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
            {
                "seat": seat.number,
                "player": _shown_name(seat.player),
                "you": seat.player_id == user_id,
            }
            for seat in seats
        ],
        "round": round_view,
        "you": you,
    }
