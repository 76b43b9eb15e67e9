"""Waiting lists and "join a game" (RULES.md 5).

A player who cannot be seated joins a table's list; when a seat frees, the first in line who
holds no offer is offered it for the table's `seat_offer_seconds`, and the seat is held for
them: anyone else who tries to sit is told it is offered. An offer ends when the player sits
(they leave the list), declines (they leave it) or lets it pass (they leave it too, and the
next in line is offered the seat). Every offer and its end reach each page the player has open
(`TableChange.tell_player`). The sweep lets overdue offers pass (`waiting_offers_due` finds the
tables, `table_offers_pass` at each table's owner).

All of it happens inside the table's `table_change`, under the table lock, so two seats
freeing at once, an offer accepted in two tabs, or a player leaving the list while offered are
serialised like every other change at the table.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from poker.frames import SeatOfferEndedFrame, SeatOfferEndReason, SeatOfferFrame
from poker.models import HandPlayer, Seat, Table, WaitingEntry
from poker.selectors import GameKind, barred_until_of, waiting_position
from poker.services.bars import table_bar_check
from poker.services.unit import TableChange, TableError, table_change
from responsible import rules as responsible


def _offer_frame(table: Table, entry: WaitingEntry, now: datetime) -> SeatOfferFrame:
    expires_at = entry.offer_expires_at
    if expires_at is None:
        raise ValueError("a seat offer frame is for an entry holding an offer")
    return {
        "type": "seat_offer",
        "table": table.pk,
        "table_name": table.name,
        "expires_at": expires_at.isoformat(),
        "seconds_left": max(0, round((expires_at - now).total_seconds())),
    }


def _ended_frame(table: Table, reason: SeatOfferEndReason) -> SeatOfferEndedFrame:
    """reason: "taken" (they sat), "declined", "expired", "closed" (the table closed),
    "removed" (staff took them off the list, or their account was suspended) or "withdrawn"
    (staff gave the seat to someone else: they stay on the list)."""
    return {"type": "seat_offer_ended", "table": table.pk, "reason": reason}


def _waiting_changed(change: TableChange, *user_ids: int) -> None:
    """Table pages redraw the list's count and these players' own place in it; lobby pages
    redraw the table's row."""
    change.users.update(user_ids)
    change.touch()
    change.lobby_refresh()


def seats_offer(change: TableChange, *, now: datetime | None = None) -> None:
    """Let overdue offers pass, then offer every free seat nobody holds to the next in line.

    Called by whatever may free a seat or end an offer, inside its own table change."""
    now = now or timezone.now()
    table = change.table
    entries = list(WaitingEntry.objects.filter(table=table))
    if not entries:
        return
    concerned: list[int] = []
    for entry in [e for e in entries if e.offer_expires_at and e.offer_expires_at <= now]:
        entry.delete()
        entries.remove(entry)
        change.tell_player(entry.player_id, _ended_frame(table, "expired"))
        concerned.append(entry.player_id)
    if table.is_open:
        held = sum(1 for entry in entries if entry.offer_expires_at is not None)
        free = table.max_seats - len(change.seats()) - held
        for entry in [e for e in entries if e.offer_expires_at is None][: max(free, 0)]:
            entry.offer_expires_at = now + timedelta(seconds=table.seat_offer_seconds)
            entry.save(update_fields=["offer_expires_at"])
            change.tell_player(entry.player_id, _offer_frame(table, entry, now))
            concerned.append(entry.player_id)
    if concerned:
        _waiting_changed(change, *concerned)


def seat_hold_check(change: TableChange, player) -> None:
    """Before `player` sits: refuse when every free seat is held for someone on the list (the
    player's own offer holds one for them). Overdue offers pass first."""
    seats_offer(change)
    player_id = getattr(player, "pk", player)
    offers = WaitingEntry.objects.filter(table=change.table, offer_expires_at__isnull=False)
    if offers.filter(player_id=player_id).exists():
        return
    if offers.count() >= change.table.max_seats - len(change.seats()):
        raise TableError(
            "seat_offered",
            _(
                "The free seat is offered to the next player on the waiting list; join the "
                "list to be offered one."
            ),
        )


def waiting_list_sat(change: TableChange, player) -> None:
    """The player took a seat at this table: they leave its list (an offer they held is
    taken)."""
    entry = WaitingEntry.objects.filter(table=change.table, player=player).first()
    if entry is not None:
        entry.delete()
        if entry.offer_expires_at is not None:
            change.tell_player(entry.player_id, _ended_frame(change.table, "taken"))
        _waiting_changed(change, entry.player_id)


def waiting_lists_close(change: TableChange) -> None:
    """The table closed: its list is ended and everyone on it told."""
    for entry in WaitingEntry.objects.filter(table=change.table):
        entry.delete()
        change.tell_player(entry.player_id, _ended_frame(change.table, "closed"))
        _waiting_changed(change, entry.player_id)


def waiting_list_join(*, table: Table | int, player) -> int:
    """Join the table's waiting list (again: nothing changes). Returns the player's place."""
    with table_change(table) as change:
        table = change.table
        if not table.is_open or table.is_tournament:
            raise TableError("table_closed", _("This table is closed."))
        if any(seat.player_id == player.pk for seat in change.seats().values()):
            raise TableError("already_seated", _("You already have a seat at this table."))
        responsible.check_play(player=player, error=TableError)
        table_bar_check(table=table, player=player)
        created = WaitingEntry.objects.get_or_create(table=table, player=player)[1]
        if created:
            seats_offer(change)  # a seat nobody holds goes to the head of the list at once
            _waiting_changed(change, player.pk)
        place = waiting_position(table=table, player=player)
        assert place is not None  # on the list since the get_or_create above
        return place


def waiting_list_leave(*, table: Table | int, player) -> bool:
    """Leave the list, or decline the seat offered: the next in line is offered it. True when
    a seat offered was declined (the player is told so, not only that they left the list)."""
    with table_change(table) as change:
        entry = WaitingEntry.objects.filter(table=change.table, player=player).first()
        if entry is None:
            raise TableError("not_waiting", _("You are not on this table's waiting list."))
        entry.delete()
        declined = entry.offer_expires_at is not None
        if declined:
            change.tell_player(player.pk, _ended_frame(change.table, "declined"))
            seats_offer(change)
        _waiting_changed(change, player.pk)
    return declined


def waiting_lists_leave_all(*, player) -> list[int]:
    """Take the player off every waiting list at once (a suspended account): a seat held for
    them goes to the next in line. Returns the tables whose lists they left."""
    table_ids = sorted(
        set(WaitingEntry.objects.filter(player=player).values_list("table_id", flat=True))
    )
    for table_id in table_ids:
        with table_change(table_id) as change:
            entry = WaitingEntry.objects.filter(table=change.table, player=player).first()
            if entry is not None:
                waiting_entry_end(change, entry, reason="removed")
    return table_ids


# -- inside a table change: the staff's waiting-list tools (poker/services/staff.py)


def waiting_entry_end(
    change: TableChange, entry: WaitingEntry, *, reason: SeatOfferEndReason
) -> None:
    """The player leaves the list (`reason` as in `seat_offer_ended`); a seat held for them
    goes to the next in line."""
    entry.delete()
    if entry.offer_expires_at is not None:
        change.tell_player(entry.player_id, _ended_frame(change.table, reason))
        seats_offer(change)
    _waiting_changed(change, entry.player_id)


def waiting_list_order(change: TableChange, entries: list[WaitingEntry]) -> None:
    """Put the table's list in the order of `entries` (all of it). The queue is ordered by
    `joined_at`, so the same times are handed out again in the new order, each at least a
    microsecond after the one before."""
    times = sorted(entry.joined_at for entry in entries)
    before = None
    for entry, joined_at in zip(entries, times, strict=True):
        if before is not None and joined_at <= before:
            joined_at = before + timedelta(microseconds=1)
        if entry.joined_at != joined_at:
            entry.joined_at = joined_at
            entry.save(update_fields=["joined_at"])
        before = joined_at
    _waiting_changed(change, *(entry.player_id for entry in entries))


def seat_offer_make(change: TableChange, entry: WaitingEntry, *, now: datetime | None = None):
    """Offer a free seat to this player out of turn. With every free seat already offered,
    the newest offer to someone else is withdrawn: they keep their place on the list, and a
    seat that frees goes to them in turn. Returns the entry whose offer was withdrawn, if any."""
    now = now or timezone.now()
    seats_offer(change, now=now)  # overdue offers pass first
    entry.refresh_from_db(fields=["offer_expires_at"])
    if entry.offer_expires_at is not None:
        raise TableError("already_offered", _("A seat is offered to this player already."))
    table = change.table
    free = table.max_seats - len(change.seats())
    if free <= 0:
        raise TableError("no_free_seat", _("This table has no free seat to offer."))
    offers = list(
        WaitingEntry.objects.filter(table=table, offer_expires_at__isnull=False)
        .exclude(pk=entry.pk)
        .order_by("-offer_expires_at", "-id")
    )
    withdrawn = None
    if len(offers) >= free:
        withdrawn = offers[0]
        withdrawn.offer_expires_at = None
        withdrawn.save(update_fields=["offer_expires_at"])
        change.tell_player(withdrawn.player_id, _ended_frame(table, "withdrawn"))
    entry.offer_expires_at = now + timedelta(seconds=table.seat_offer_seconds)
    entry.save(update_fields=["offer_expires_at"])
    change.tell_player(entry.player_id, _offer_frame(table, entry, now))
    _waiting_changed(change, entry.player_id, *([withdrawn.player_id] if withdrawn else []))
    return withdrawn


def waiting_offers_due(*, now: datetime) -> list[int]:
    """The tables where an offer is overdue or a free seat waits for an offer, by id: the
    sweep sends each to its table's owner (`table_offers_pass` there)."""
    table_ids = set(
        WaitingEntry.objects.filter(offer_expires_at__lte=now).values_list("table_id", flat=True)
    )
    unoffered = (
        Table.objects.filter(is_open=True)
        .filter(
            Exists(WaitingEntry.objects.filter(table=OuterRef("pk"), offer_expires_at__isnull=True))
        )
        .with_occupancy()
    )
    table_ids.update(table.pk for table in unoffered if table.seats_free > 0)
    return sorted(table_ids)


def table_offers_pass(*, table_id: int, now: datetime | None = None) -> None:
    """At one table: overdue offers pass, and free seats go to the next in line (checked
    again under the table's lock: an offer taken meanwhile stays taken)."""
    with table_change(table_id) as change:
        seats_offer(change, now=now or timezone.now())


# -- "join a game"


def _tables_of_kind(kind: GameKind):
    tables = Table.objects.filter(
        is_open=True, is_tournament=False, game=kind.game, structure=kind.structure
    )
    if kind.structure == Table.Structure.LIMIT:
        return tables.filter(small_bet=kind.stakes[0], big_bet=kind.stakes[1])
    return tables.filter(small_blind=kind.stakes[0], big_blind=kind.stakes[1])


@dataclass(frozen=True)
class JoinedGame:
    """Where "join a game" put the player: a table with a free seat (`seat` to sit in), or a
    waiting list (`position` in it)."""

    table: Table
    seat: int | None = None
    position: int | None = None


def table_join_any(*, player, kind: GameKind, rng: random.Random | None = None) -> JoinedGame:
    """A free seat at a table of that kind, chosen at random among the best: tables the player
    was dealt a hand at before first, then those with the fewest players. With no free seat
    anywhere, the player joins the shortest waiting list (the same preferences break ties)."""
    rng = rng or random.SystemRandom()
    responsible.check_play(player=player, error=TableError)
    tables = list(
        _tables_of_kind(kind)
        .with_occupancy()
        .annotate(
            played=Exists(HandPlayer.objects.filter(hand__table=OuterRef("pk"), player=player)),
            mine=Exists(Seat.objects.filter(table=OuterRef("pk"), player=player)),
        )
        .order_by("pk")
    )
    if not tables:
        raise TableError("no_table", _("No table of that game and stakes is open."))
    barred = barred_until_of(player=player)
    if all(table.pk in barred for table in tables):
        table_bar_check(table=tables[0], player=player)  # says until when
    tables = [table for table in tables if table.pk not in barred]
    seated = [table for table in tables if table.mine]
    if seated:  # the player already plays this game: back to their table
        return JoinedGame(table=seated[0])

    def best(candidates, count):
        rank = {t.pk: (not t.played, count(t)) for t in candidates}
        top = min(rank.values())
        return rng.choice([t for t in candidates if rank[t.pk] == top])

    # A seat nobody holds, and nobody waiting for one (they would be offered it first).
    free = [t for t in tables if t.seats_free > 0 and t.waiting_count == t.seats_offered]
    if free:
        table = best(free, lambda t: t.seats_taken)
        taken = set(Seat.objects.filter(table=table).values_list("number", flat=True))
        seat = next(n for n in range(1, table.max_seats + 1) if n not in taken)
        return JoinedGame(table=table, seat=seat)
    table = best(tables, lambda t: t.waiting_count)
    return JoinedGame(table=table, position=waiting_list_join(table=table, player=player))
