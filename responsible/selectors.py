"""Reads for the profile page, the API and the table page's reality check."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from responsible.models import DepositLimit, LossLimit, RealityCheck, RollingLimit, SessionLimit
from responsible.rules import (
    deposit_room,
    exclusion_active,
    limit_effective,
    loss_room,
    net_result_since,
    play_session_now,
    played_words,
)

__all__ = ["net_result_since", "reality_check_for", "responsible_summary"]


def reality_check_for(*, player, session_started_at: datetime | None, now=None) -> dict:
    """What the table page's reminder shows: the interval (None: off), how long this session
    has lasted and its net result. The session begins at the player's login."""
    now = now or timezone.now()
    setting = RealityCheck.objects.filter(player=player).first()
    started = session_started_at or now
    return {
        "interval_minutes": setting.interval_minutes if setting else None,
        "session_started_at": started.isoformat(),
        "seconds_played": max(int((now - started).total_seconds()), 0),
        "net": net_result_since(player=player, since=started),
    }


def _limits(*, model: type[RollingLimit], room: dict, player, now: datetime) -> list[dict]:
    """Each period's row of the profile's table: the cap in force, what is left, a raise
    waiting."""
    rows = []
    for period, label in RollingLimit.Period.choices:
        limit = model.objects.filter(player=player, period=period).first()  # type: ignore[attr-defined]
        matured = limit is not None and limit.pending_from is not None and limit.pending_from <= now
        rows.append(
            {
                "period": period,
                "label": label,
                "limit": room.get(period, {}).get("limit"),
                "left": room.get(period, {}).get("left"),
                "pending_amount": None if limit is None or matured else limit.pending_amount,
                "pending_from": None if limit is None or matured else limit.pending_from,
            }
        )
    return rows


def _session_limit(*, player, now: datetime) -> dict:
    """The session limit in force (minutes, None: none) and a change waiting its 24 hours."""
    limit = SessionLimit.objects.filter(player=player).first()
    matured = limit is not None and limit.pending_from is not None and limit.pending_from <= now
    waiting = limit is not None and not matured and limit.pending_from is not None
    return {
        "minutes": None if limit is None else limit_effective(limit, now=now),
        "pending_minutes": limit.pending_amount if waiting else None,  # type: ignore[union-attr]
        "pending_from": limit.pending_from if waiting else None,  # type: ignore[union-attr]
    }


def responsible_summary(*, player, now: datetime | None = None) -> dict:
    """Everything the profile page and the API show: deposit and loss caps (in force and
    waiting), what is left of each, the session limit and the play session running now, the
    running exclusion and the reality check interval."""
    now = now or timezone.now()
    limits = _limits(
        model=DepositLimit, room=deposit_room(player=player, now=now), player=player, now=now
    )
    loss_limits = _limits(
        model=LossLimit, room=loss_room(player=player, now=now), player=player, now=now
    )
    setting = RealityCheck.objects.filter(player=player).first()
    session = play_session_now(player=player, now=now)
    return {
        "limits": limits,
        "loss_limits": loss_limits,
        "session_limit": _session_limit(player=player, now=now),
        "session": session and {**session, "played": played_words(session["seconds_played"])},
        "exclusion": exclusion_active(player=player, now=now),
        "reality_check_minutes": setting.interval_minutes if setting else None,
    }
