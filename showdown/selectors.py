"""Reads for the banked game's pages: open tables, a player's rounds, the house's days."""

from __future__ import annotations

from datetime import UTC, date, datetime

from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce, TruncDate

from cashier.models import Entry
from fairness.models import Commitment
from fairness.published import commitment_of
from showdown.models import LiveSeat, ShowdownRound, ShowdownTable

Status = ShowdownRound.Status


def live_seats_playing(table_id=None) -> QuerySet[LiveSeat]:
    """The live seats whose players can play the next round (docs/rules.md "The lobby"): a
    socket of theirs open at the table, or their wagers in the round being played. A player
    who closed the page holds the seat until the table stands them up (`away_limit_seconds`)
    but plays no round. `table_id` a table's id or an OuterRef to one."""
    in_play = ShowdownRound.objects.filter(
        table=OuterRef("table"), player=OuterRef("player"), status=Status.DEALT
    )
    return LiveSeat.objects.filter(table=table_id).filter(Q(connected=True) | Exists(in_play))


def live_seats_counts(*, table_id: int) -> tuple[int, int]:
    """(seats taken, seats of players who can play) at a live table: the lobby's figures."""
    seats = LiveSeat.objects.filter(table=table_id).count()
    return seats, live_seats_playing(table_id).count()


def tables_for_lobby() -> QuerySet[ShowdownTable]:
    """Open tables with their paytables and, for live ones, the seats taken (`seats_taken`),
    those of players who can play (`seats_playing`, `live_seats_playing`) and the others
    (`seats_out`)."""
    playing = (
        live_seats_playing(OuterRef("pk"))
        .order_by()
        .values("table")
        .annotate(count=Count("pk"))
        .values("count")
    )
    return (
        ShowdownTable.objects.filter(is_open=True)
        .select_related("bet_paytable", "hole_card_bonus_paytable", "final_hand_bonus_paytable")
        .annotate(seats_taken=Count("live_seats"))
        .annotate(seats_playing=Coalesce(Subquery(playing), 0))
        .annotate(seats_out=F("seats_taken") - F("seats_playing"))
    )


def table_for_play(table_id: int, *, player=None) -> ShowdownTable | None:
    """An open table, or a closed one where this player has played (closing a table stops new
    rounds, never a player's way back to a round they left, or to its result)."""
    tables = ShowdownTable.objects.select_related(
        "bet_paytable", "hole_card_bonus_paytable", "final_hand_bonus_paytable"
    ).filter(pk=table_id, seats=1)  # a live table has its own page (showdown/live_views.py)
    played = Q(rounds__player=player) if player else Q(pk=None)
    return tables.filter(Q(is_open=True) | played).distinct().first()


def tables_waiting_for(*, player) -> set[int]:
    """Ids of the tables where this player has a round waiting for their decision."""
    if not getattr(player, "is_authenticated", False):
        return set()
    return set(
        ShowdownRound.objects.filter(player=player, status=Status.DEALT).values_list(
            "table_id", flat=True
        )
    )


def round_unfinished(*, player, table) -> ShowdownRound | None:
    """The player's round at this table still waiting for their decision (they come back to
    it: the online game has no timer)."""
    return ShowdownRound.objects.filter(player=player, table=table, status=Status.DEALT).first()


def round_last_finished(*, player, table) -> ShowdownRound | None:
    return (
        ShowdownRound.objects.filter(player=player, table=table)
        .exclude(status=Status.DEALT)
        .order_by("-id")
        .first()
    )


def player_rounds(*, player) -> QuerySet[ShowdownRound]:
    return ShowdownRound.objects.filter(player=player).select_related("table").order_by("-id")


def house_days() -> QuerySet:
    """Per UTC day of settlement: rounds, stakes and the house's result (minus the players'
    nets); voids (money to charity) per day of voiding are counted apart."""
    return (
        ShowdownRound.objects.filter(status=Status.SETTLED)
        .annotate(day=TruncDate("settled_at"))
        .values("day")
        .annotate(
            rounds=Count("id"),
            staked=Coalesce(Sum("staked"), Value(0)),
            players_net=Coalesce(Sum("net"), Value(0)),
            capped=Count("id", filter=Q(payout_capped=True)),
        )
        .order_by("-day")
    )


def shared_settlement_rounds(start: datetime, end: datetime) -> dict[date, int]:
    """For the auditors' daily report (cashier.audit_reports): the players' rounds settled by
    a live board's one shared settlement entry (a banked payout naming no player) made in
    [start, end), per UTC day of that entry."""
    return dict(
        ShowdownRound.objects.filter(
            result_entry__reason=Entry.Reason.BANKED_PAYOUT,
            result_entry__player__isnull=True,
            result_entry__created_at__gte=start,
            result_entry__created_at__lt=end,
        )
        .annotate(day=TruncDate("result_entry__created_at", tzinfo=UTC))
        .values("day")
        .annotate(rounds=Count("id"))
        .values_list("day", "rounds")
        .order_by()
    )


def void_days() -> QuerySet:
    return (
        ShowdownRound.objects.filter(status=Status.VOIDED)
        .annotate(day=TruncDate("voided_at"))
        .values("day")
        .annotate(rounds=Count("id"), to_charity=Coalesce(Sum("staked"), Value(0)))
        .order_by("-day")
    )


def round_commitment(round_: ShowdownRound) -> str | None:
    """A player's Showdown round's commitment: its own online, its live round's at a table."""
    if round_.live_round_id is not None:
        return commitment_of(kind=Commitment.Kind.LIVE, ref_id=round_.live_round_id)
    return commitment_of(kind=Commitment.Kind.ROUND, ref_id=round_.pk)
