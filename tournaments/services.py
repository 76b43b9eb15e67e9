"""Sit & Go services: open, register, unregister, start when full, remove an excluded player,
cancel (four eyes when money goes back).

Each is one transaction that locks the tournament's row first (`SELECT ... FOR UPDATE`), so two
players taking the last seat, a player's two tabs, and a cancel racing a registration are
ordered there; the money moves through the cashier in the same transaction (one balanced entry
per registration or refund). A refusal raises `TournamentError` before anything is written.

Lock order (docs/architecture.md): a player's user row, then tournaments by id, then tables,
then the cashier's accounts.

Play (below): the Sit & Go's table, its levels (antes, breaks that pause the deals, the
sweep of lost level timers), eliminations and prizes, a staff cancel after play began settled
by the published split, an excluded player's seat sat out (docs/rules.md "Tournaments").
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import Subject, audit_record
from cashier.models import Entry
from cashier.services import (
    CashierError,
    tournament_buy_in,
    tournament_payout,
    tournament_refund,
)
from config.errors import Refused
from config.four_eyes import request_pending_lock
from config.inputs import parse_idempotency_key, parse_staff_reason
from config.timeouts import Timeout, timeouts_set
from poker.models import Seat, Table
from poker.services import table_change
from poker.services.acting import seat_eliminate, sit_out
from poker.services.events import BreakEnded, BreakStarted, PlayerSatOut
from poker.services.faults import hand_cancel_in
from tournaments.models import (
    Cancellation,
    Registration,
    Tournament,
    TournamentTemplate,
    level_bets,
    payouts_for,
    place_amounts,
)

Status = Tournament.Status
Entered = Registration.Status

# The template's rules each Sit & Go copies when it opens.
COPIED = ("game", "structure", "seats", "buy_in", "fee", "starting_chips", "blind_levels",
          "breaks", "payouts", "action_seconds", "time_bank_seconds")  # fmt: skip


class TournamentError(Refused):
    """A refused tournament request: `code` for programs, `message` for people. Nothing
    changed."""


def _check_player(player):
    if not isinstance(player, get_user_model()) or player.pk is None:
        raise TournamentError("unknown_player", _("No such player."))
    return player


def _tournament_id(tournament) -> int:
    """A tournament given as a row or an id; a forged or missing one is refused."""
    value = getattr(tournament, "pk", tournament)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise TournamentError("unknown_tournament", _("No such tournament."))
    return value


def _lock(tournament) -> Tournament:
    """The tournament's row, locked until the transaction ends."""
    locked = (
        Tournament.objects.select_for_update(of=("self",))
        .select_related("template")
        .filter(pk=_tournament_id(tournament))
        .first()
    )
    if locked is None:
        raise TournamentError("unknown_tournament", _("No such tournament."))
    return locked


def _money(call):
    """Run a cashier call, its refusal (no funds, a time-out, a loss limit...) as ours."""
    try:
        return call()
    except CashierError as refused:
        raise TournamentError(refused.code, refused.message) from refused


# -- opening


def tournament_open(*, template: TournamentTemplate, now: datetime | None = None) -> Tournament:
    """A new Sit & Go of the template, registering, with a copy of the template's rules."""
    tournament = Tournament.objects.create(
        template=template,
        created_at=now or timezone.now(),
        **{name: getattr(template, name) for name in COPIED},
    )
    audit_record(
        action="tournament.opened",
        subject=tournament,
        payload={"tournament": tournament.pk, "template": template.pk},
        now=tournament.created_at,
    )
    return tournament


def _open_next(template: TournamentTemplate, *, now: datetime) -> Tournament | None:
    """One Sit & Go of an active template is always open: a new one when none is."""
    if not template.is_active:
        return None
    if Tournament.objects.filter(template=template, status=Status.REGISTERING).exists():
        return None
    return tournament_open(template=template, now=now)


@transaction.atomic
def tournaments_open_missing(*, now: datetime | None = None) -> list[Tournament]:
    """An open Sit & Go for every active template that has none (seed_demo, after staff add
    or re-activate a template)."""
    now = now or timezone.now()
    opened = []
    for template in TournamentTemplate.objects.select_for_update().filter(is_active=True):
        tournament = _open_next(template, now=now)
        if tournament is not None:
            opened.append(tournament)
    return opened


# -- registering


@transaction.atomic
def tournament_register(
    *, player, tournament, idempotency_key: str, now: datetime | None = None
) -> Registration:
    """Enter the player in a Sit & Go that is registering: the buy-in and fee leave their
    wallet in one ledger entry (to the prize pool and the house's fee account), after the
    responsible-gaming checks a table's buy-in runs. The same idempotency key again answers
    with the registration it made and moves nothing. The last seat taken starts the Sit & Go
    (the seats drawn) and opens the next one of its template."""
    player = _check_player(player)
    key = parse_idempotency_key(idempotency_key, error=TournamentError)
    now = now or timezone.now()
    # The player's row first (FOR NO KEY UPDATE, as an exclusion takes it): a time-out started
    # at the same moment either comes first and refuses this, or waits and then finds this
    # registration to refund; never a registration it did not see.
    get_user_model().objects.select_for_update(no_key=True).filter(pk=player.pk).first()
    tournament = _lock(tournament)
    earlier = Entry.objects.filter(player=player, idempotency_key=key).first()
    if earlier is not None:
        made = Registration.objects.filter(entry_id=earlier.pk, player=player).first()
        if made is not None and made.tournament_id == tournament.pk:
            return made
        raise TournamentError(
            "idempotency_conflict",
            _("This idempotency key was already used for a different request."),
        )
    if tournament.status != Status.REGISTERING:
        raise TournamentError(
            "not_registering",
            _("This Sit & Go is %(status)s: registration is closed.")
            % {"status": tournament.get_status_display().lower()},
        )
    active = Registration.objects.filter(tournament=tournament, status=Entered.ACTIVE)
    if active.filter(player=player).exists():
        raise TournamentError("already_registered", _("You are already registered here."))
    if active.count() >= tournament.seats:
        raise TournamentError("tournament_full", _("This Sit & Go is full."))
    entry = _money(
        lambda: tournament_buy_in(
            player=player,
            tournament_id=tournament.pk,
            buy_in=tournament.buy_in,
            fee=tournament.fee,
            idempotency_key=key,
            now=now,
        )
    )
    registration = Registration.objects.create(
        tournament=tournament,
        player=player,
        buy_in=tournament.buy_in,
        fee=tournament.fee,
        entry_id=entry.pk,
        registered_at=now,
    )
    audit_record(
        action="tournament.registered",
        actor=player,
        subject=tournament,
        payload={"tournament": tournament.pk, "player": player.pk, "entry": entry.pk},
        now=now,
    )
    if active.count() == tournament.seats:
        _start(tournament, now=now)
    return registration


def _start(tournament: Tournament, *, now: datetime) -> None:
    """The seats are full: draw the seats (a CSPRNG shuffle), mark it running, open its table
    (`_table_open`) and the next Sit & Go of its template."""
    registrations = list(
        Registration.objects.filter(tournament=tournament, status=Entered.ACTIVE).order_by("id")
    )
    seats = list(range(1, tournament.seats + 1))
    secrets.SystemRandom().shuffle(seats)
    for registration, seat in zip(registrations, seats, strict=True):
        registration.seat = seat
    Registration.objects.bulk_update(registrations, ["seat"])
    tournament.status, tournament.started_at = Status.RUNNING, now
    tournament.save(update_fields=["status", "started_at"])
    _table_open(tournament, registrations, now=now)
    audit_record(
        action="tournament.started",
        subject=tournament,
        payload={
            "tournament": tournament.pk,
            "seats": {str(r.seat): r.player_id for r in sorted(registrations, key=_seat_of)},
        },
        now=now,
    )
    _open_next(tournament.template, now=now)


def _seat_of(registration: Registration) -> int:
    return registration.seat or 0


def _refund(
    registration: Registration, *, status: str, by=None, memo: str, now: datetime
) -> Registration:
    entry = _money(
        lambda: tournament_refund(
            player=registration.player,
            tournament_id=registration.tournament_id,
            buy_in=registration.buy_in,
            fee=registration.fee,
            by=by,
            memo=memo,
            now=now,
        )
    )
    registration.status, registration.refund_entry_id = status, entry.pk
    registration.ended_at = now
    registration.save(update_fields=["status", "refund_entry_id", "ended_at"])
    return registration


@transaction.atomic
def tournament_unregister(*, player, tournament, now: datetime | None = None) -> Registration:
    """Leave a Sit & Go before it starts: the buy-in and fee back to the wallet in one entry.
    Once it runs (its seats filled) there is no unregistering."""
    player = _check_player(player)
    now = now or timezone.now()
    tournament = _lock(tournament)
    registration = (
        Registration.objects.select_related("player")
        .filter(tournament=tournament, player=player, status=Entered.ACTIVE)
        .first()
    )
    if registration is None:
        raise TournamentError("not_registered", _("You are not registered for this Sit & Go."))
    if tournament.status != Status.REGISTERING:
        raise TournamentError(
            "already_started", _("This Sit & Go has started: you can no longer unregister.")
        )
    memo = f"tournament {tournament.pk} unregistered"
    _refund(registration, status=Entered.UNREGISTERED, memo=memo, now=now)
    audit_record(
        action="tournament.unregistered",
        actor=player,
        subject=tournament,
        payload={
            "tournament": tournament.pk,
            "player": player.pk,
            "refund": registration.refund_entry_id,
        },
        now=now,
    )
    return registration


def tournaments_leave_excluded(*, player, now: datetime | None = None) -> list[int]:
    """A player who starts a time-out or self-exclusion leaves every Sit & Go that has not
    started, refunded (responsible.services.exclusion_start calls this in its transaction,
    holding the player's row); at a running one's table they are sat out (`_seat_sit_out_
    excluded`): dealt in and blinded, never acting, their chips and place theirs."""
    now = now or timezone.now()
    left = []
    with transaction.atomic():
        running = (
            Registration.objects.filter(
                player=player, status=Entered.ACTIVE, tournament__status=Status.RUNNING,
                tournament__table__isnull=False,
            )
            .order_by("tournament__table_id")
            .values_list("tournament_id", "tournament__table_id")
        )  # fmt: skip
        for tournament_id, table_id in list(running):
            _seat_sit_out_excluded(player, tournament_id, table_id, now=now)
        ids = (
            Registration.objects.filter(
                player=player, status=Entered.ACTIVE, tournament__status=Status.REGISTERING
            )
            .order_by("tournament_id")
            .values_list("tournament_id", flat=True)
        )
        for tournament_id in list(ids):
            tournament = _lock(tournament_id)
            registration = (
                Registration.objects.select_related("player")
                .filter(tournament=tournament, player=player, status=Entered.ACTIVE)
                .first()
            )
            if tournament.status != Status.REGISTERING or registration is None:
                continue
            memo = f"tournament {tournament_id} left on exclusion"
            _refund(registration, status=Entered.EXCLUDED, memo=memo, now=now)
            audit_record(
                action="tournament.left_on_exclusion",
                subject=tournament,
                payload={
                    "tournament": tournament_id,
                    "player": player.pk,
                    "refund": registration.refund_entry_id,
                },
                now=now,
            )
            left.append(tournament_id)
    return left


def _seat_sit_out_excluded(player, tournament_id: int, table_id: int, *, now: datetime) -> None:
    """The excluded player's seat at a running Sit & Go sits out: dealt in and blinded (their
    turns checked or folded for them), their chips staying in play until they are out or the
    Sit & Go ends, the place and prize they reach theirs. While the exclusion lasts they
    cannot sit back in (the play check refuses it). Their own turn now, if any, times out."""
    with table_change(table_id) as change:
        seat = next((s for s in change.seats().values() if s.player_id == player.pk), None)
        if seat is None or seat.status == Seat.Status.SITTING_OUT:
            return
        sit_out(change, seat, now)
        change.event(PlayerSatOut(type="player_sat_out", seat=seat.number, reason="excluded"))
        change.users.add(player.pk)
        audit_record(
            action="tournament.sat_out_on_exclusion",
            subject=Subject("tournaments.tournament", tournament_id, f"Sit & Go #{tournament_id}"),
            payload={"tournament": tournament_id, "player": player.pk, "seat": seat.number},
            now=now,
        )


# -- staff: cancelling


def _check_staff(staff):
    if not isinstance(staff, get_user_model()) or staff.pk is None or not staff.is_staff:
        raise TournamentError("not_staff", _("Only staff may cancel a tournament."))
    return staff


def _cancellable(tournament: Tournament) -> None:
    if tournament.status not in (Status.REGISTERING, Status.RUNNING):
        raise TournamentError(
            "not_cancellable",
            _("Sit & Go #%(id)s is %(status)s: nothing to cancel.")
            % {"id": tournament.pk, "status": tournament.get_status_display().lower()},
        )


def _cancel(tournament: Tournament, *, reason: str, by, now: datetime) -> list[dict]:
    """Refund every active entry in full (buy-in and fee: play has not begun in this slice)
    and mark the tournament cancelled; the refunds, for the audit record."""
    refunds = []
    active = Registration.objects.select_related("player").filter(
        tournament=tournament, status=Entered.ACTIVE
    )
    for registration in active.order_by("id"):
        memo = f"tournament {tournament.pk} cancelled"
        _refund(registration, status=Entered.CANCELLED, by=by, memo=memo, now=now)
        refunds.append(
            {
                "player": registration.player_id,
                "amount": registration.buy_in + registration.fee,
                "entry": registration.refund_entry_id,
            }
        )
    was = tournament.status
    tournament.status, tournament.ended_at, tournament.cancel_reason = Status.CANCELLED, now, reason
    tournament.save(update_fields=["status", "ended_at", "cancel_reason"])
    if was == Status.REGISTERING:
        _open_next(tournament.template, now=now)
    return refunds


@transaction.atomic
def tournament_cancel_request(
    *, tournament, requested_by, reason: str, now: datetime | None = None
) -> Cancellation | None:
    """Staff cancel a Sit & Go that has not finished. With nobody registered no money moves,
    and it is cancelled at once (None). Otherwise the refunds wait for a second staff member's
    approval (`tournament_cancel_approve`): the request is returned."""
    staff, reason = _check_staff(requested_by), parse_staff_reason(reason, error=TournamentError)
    now = now or timezone.now()
    tournament = _lock(tournament)
    _cancellable(tournament)
    if not Registration.objects.filter(tournament=tournament, status=Entered.ACTIVE).exists():
        _cancel(tournament, reason=reason, by=staff, now=now)
        audit_record(
            action="staff.tournament_cancelled",
            actor=staff,
            subject=tournament,
            payload={"tournament": tournament.pk, "refunds": []},
            reason=reason,
            now=now,
        )
        return None
    if Cancellation.objects.filter(
        tournament=tournament, status=Cancellation.Status.PENDING
    ).exists():
        raise TournamentError(
            "already_requested",
            _("A cancellation of this Sit & Go already waits for approval."),
        )
    cancellation = Cancellation.objects.create(
        tournament=tournament, reason=reason, requested_by=staff, requested_at=now
    )
    audit_record(
        action="staff.tournament_cancel_requested",
        actor=staff,
        subject=cancellation,
        payload={"tournament": tournament.pk, "cancellation": cancellation.pk},
        reason=reason,
        now=now,
    )
    return cancellation


def _pending(cancellation, staff) -> Cancellation:
    return request_pending_lock(
        Cancellation,
        cancellation,
        decided_by=staff,
        error=TournamentError,
        unknown=("unknown_cancellation", _("No such cancellation.")),
        already_decided=lambda locked: (
            _("Cancellation #%(id)s was already %(status)s.")
            % {"id": locked.pk, "status": locked.status}
        ),
        asked_yourself=_(
            "You asked for this cancellation, so another staff member must decide it."
        ),
    )


@transaction.atomic
def tournament_cancel_approve(
    *, cancellation, approved_by, reason: str, now: datetime | None = None
) -> Cancellation:
    """A second staff member approves: before any hand was dealt every registered player gets
    their buy-in and fee back (one entry each); once play began the running hand is cancelled
    (its chips back to its start) and the prize pool is settled by the published split, in
    one entry (`_cancel_settle`). The Sit & Go is cancelled and its table closed."""
    staff, reason = _check_staff(approved_by), parse_staff_reason(reason, error=TournamentError)
    now = now or timezone.now()
    value = getattr(cancellation, "pk", cancellation)
    table_id = (
        Tournament.objects.filter(cancellations__pk=value, status=Status.RUNNING)
        .values_list("table_id", flat=True)
        .first()
        if isinstance(value, int) and not isinstance(value, bool)
        else None
    )
    if table_id is None:
        return _cancel_approved(cancellation, staff, reason, now, change=None)
    # The table's row first, as a hand's end takes it before the tournament's.
    with table_change(table_id) as change:
        return _cancel_approved(cancellation, staff, reason, now, change=change)


def _cancel_approved(cancellation, staff, reason: str, now: datetime, *, change) -> Cancellation:
    locked = _pending(cancellation, staff)
    tournament = _lock(locked.tournament_id)
    _cancellable(tournament)
    settlement = None
    played = change is not None and tournament.table_id == change.table.pk
    if played and (change.table.hands_dealt or change.running_hand() is not None):
        settlement = _cancel_settle(change, tournament, reason=locked.reason, now=now)
        refunds = []
    else:
        refunds = _cancel(tournament, reason=locked.reason, by=staff, now=now)
        if played:
            _table_close(change, tournament)
    locked.status, locked.decided_by, locked.decided_at = Cancellation.Status.APPROVED, staff, now
    locked.decision_reason = reason
    locked.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
    audit_record(
        action="staff.tournament_cancelled",
        actor=staff,
        subject=tournament,
        payload={
            "tournament": tournament.pk,
            "cancellation": locked.pk,
            "requested_by": locked.requested_by_id,
            "refunds": refunds,
            **({"settlement": settlement} if settlement is not None else {}),
        },
        reason=reason,
        now=now,
    )
    return locked


@transaction.atomic
def tournament_cancel_reject(
    *, cancellation, rejected_by, reason: str, now: datetime | None = None
) -> Cancellation:
    """A second staff member refuses the cancellation: nothing moves, the Sit & Go goes on."""
    staff, reason = _check_staff(rejected_by), parse_staff_reason(reason, error=TournamentError)
    now = now or timezone.now()
    locked = _pending(cancellation, staff)
    locked.status, locked.decided_by, locked.decided_at = Cancellation.Status.REJECTED, staff, now
    locked.decision_reason = reason
    locked.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
    audit_record(
        action="staff.tournament_cancel_rejected",
        actor=staff,
        subject=locked,
        payload={"tournament": locked.tournament_id, "cancellation": locked.pk},
        reason=reason,
        now=now,
    )
    return locked


# -- play: the Sit & Go's table, its blind levels, eliminations and prizes
#
# A running Sit & Go plays at one poker table (`Table.is_tournament`), run by the table's
# owner like any other: its seats hold tournament chips (`Seat.chips`, never money), its hands
# settle chips only (poker.services.acting.chips_settle) and, after each, `tournament_hand_end`
# (registered with poker in TournamentsConfig.ready) eliminates the players left without chips
# and, when one player has them all, pays the places from the prize pool in one entry.
# Lock order: the table's row (the hand's change) before the tournament's.

LEVEL_KIND = "tournament.level"


def table_stakes(tournament: Tournament, level: int) -> dict[str, int | None]:
    """The table's stakes at a level (1-based): pot limit plays the level's blinds; fixed
    limit its big blind as the small bet (the big bet twice that) and its small blind; both
    the level's ante, if any (posted by every player before the blinds)."""
    blinds = tournament.blind_levels[level - 1]
    ante = blinds.get("ante", 0)
    if tournament.structure == Table.Structure.LIMIT:
        small_bet, big_bet = level_bets(tournament.structure, blinds)
        return {
            "small_blind": blinds["small_blind"],
            "big_blind": None,
            "small_bet": small_bet,
            "big_bet": big_bet,
            "ante": ante,
        }
    return {
        "small_blind": blinds["small_blind"],
        "big_blind": blinds["big_blind"],
        "small_bet": None,
        "big_bet": None,
        "ante": ante,
    }


def _level_ends(tournament: Tournament, level: int, start: datetime) -> datetime:
    """When the level that starts at `start` ends: its minutes (a break after it, if any,
    then pauses play before the next level: `tournament_level_up`)."""
    return start + timedelta(minutes=tournament.blind_levels[level - 1]["minutes"])


def _break_minutes(tournament: Tournament, after_level: int) -> int:
    return sum(b["minutes"] for b in tournament.breaks if b["after_level"] == after_level)


# A level timer that comes this much before its break's end is early (the table's clock and
# the worker's may differ a little): it ends the break all the same.
BREAK_SLACK_SECONDS = 0.25


def _level_timeout(tournament: Tournament) -> Timeout | None:
    if tournament.level >= len(tournament.blind_levels) or tournament.next_level_at is None:
        return None  # the last level lasts to the end
    assert tournament.table_id is not None
    return Timeout.due_at(
        LEVEL_KIND,
        table_id=tournament.table_id,
        ref_id=tournament.pk,
        step=tournament.level + 1,
        at=tournament.next_level_at,
    )


def _table_open(tournament: Tournament, registrations: list[Registration], *, now) -> None:
    """The Sit & Go's table: its game, the first level's stakes, no rake, the template's
    action time and time bank; each player in the seat drawn with the starting chips. The
    first hand is dealt TOURNAMENT_FIRST_HAND_SECONDS after this commits (the players reach
    the table), and the first level's clock set; TOURNAMENT_NEXT_HAND_SECONDS between hands."""
    table = Table.objects.create(
        name=f"Sit & Go #{tournament.pk}",
        game=tournament.game,
        structure=tournament.structure,
        max_seats=tournament.seats,
        min_buy_in_big_blinds=1,
        max_buy_in_big_blinds=1,
        rake_schedule=None,
        action_seconds=tournament.action_seconds,
        time_bank_seconds=min(tournament.time_bank_seconds, 300),
        time_bank_refill_seconds=0,
        next_hand_delay_seconds=settings.TOURNAMENT_NEXT_HAND_SECONDS,
        is_tournament=True,
        **table_stakes(tournament, 1),
    )
    Seat.objects.bulk_create(
        Seat(
            table=table,
            number=_seat_of(registration),
            player_id=registration.player_id,
            status=Seat.Status.PLAYING,
            chips=tournament.starting_chips,
            time_bank=table.time_bank_seconds,
        )
        for registration in registrations
    )
    tournament.table, tournament.level = table, 1
    tournament.next_level_at = _level_ends(tournament, 1, now)
    tournament.save(update_fields=["table", "level", "next_level_at"])
    first = Timeout.due_at(
        "poker.hand_start",
        table_id=table.pk,
        ref_id=0,
        step=0,
        at=now + timedelta(seconds=settings.TOURNAMENT_FIRST_HAND_SECONDS),
    )
    timeouts_set([first, *filter(None, [_level_timeout(tournament)])])


def tournament_level_up(*, tournament_id: int, level: int, now: datetime | None = None) -> str:
    """The level clock ran out: `level` (the next one) is in force from the next hand dealt
    (the running hand keeps its blinds), and the clock of the level after it is set. When a
    break follows the level that ended, the break comes first ("break"): no hand is dealt
    until its end (the running hand finishes), when the same timer comes again, ends it and
    puts `level` in force. A timer that comes twice, late, or for a level already in force
    changes nothing ("stale"); one that comes before its break's end waits for it ("early")."""
    now = now or timezone.now()
    table_id = (
        Tournament.objects.filter(pk=tournament_id).values_list("table_id", flat=True).first()
    )
    if table_id is None:
        return "stale"
    with table_change(table_id) as change:
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if (
            tournament is None
            or tournament.status != Status.RUNNING
            or tournament.level != level - 1
            or level > len(tournament.blind_levels)
        ):
            return "stale"
        table = change.table
        pause = _break_minutes(tournament, level - 1)
        if pause and table.break_until is None:
            return _break_start(change, tournament, level, minutes=pause, now=now)
        if table.break_until is not None:
            if now < table.break_until - timedelta(seconds=BREAK_SLACK_SECONDS):
                return "early"
            table.break_until = None
            change.save_later(table, ["break_until"])
            change.event(BreakEnded(type="break_ended", level=level))
            change.schedule_hand_start(0)
        stakes = table_stakes(tournament, level)
        for name, value in stakes.items():
            setattr(table, name, value)
        change.save_later(table, list(stakes))
        change.touch()
        tournament.level = level
        tournament.next_level_at = (
            _level_ends(tournament, level, now) if level < len(tournament.blind_levels) else None
        )
        tournament.save(update_fields=["level", "next_level_at"])
        change.schedules.extend(filter(None, [_level_timeout(tournament)]))
        audit_record(
            action="tournament.level",
            subject=tournament,
            payload={"tournament": tournament.pk, "level": level, **stakes},
            now=now,
        )
        return "level"


def _break_start(change, tournament: Tournament, level: int, *, minutes: int, now) -> str:
    """The level before `level` ended and a break follows it: no new hand until its end (the
    running hand plays on), when the level timer, set again for then, ends it."""
    table = change.table
    table.break_until = now + timedelta(minutes=minutes)
    change.save_later(table, ["break_until"])
    change.event(
        BreakStarted(type="break_started", until=table.break_until.isoformat(), level=level)
    )
    tournament.next_level_at = table.break_until
    tournament.save(update_fields=["next_level_at"])
    change.schedules.extend(filter(None, [_level_timeout(tournament)]))
    audit_record(
        action="tournament.break",
        subject=tournament,
        payload={
            "tournament": tournament.pk,
            "after_level": level - 1,
            "until": table.break_until.isoformat(),
        },
        now=now,
    )
    return "break"


def tournaments_levels_sweep(*, now: datetime | None = None) -> list[Timeout]:
    """The level clocks whose end has passed (their timer lost, or late): what the beat's
    sweep runs again (tournaments.tasks.sweep_levels), each as the timer would."""
    now = now or timezone.now()
    late = now - timedelta(seconds=SWEEP_LATE_SECONDS)
    due = Tournament.objects.filter(
        status=Status.RUNNING, next_level_at__lt=late, table__isnull=False
    ).order_by("pk")
    return [timeout for timeout in map(_level_timeout, due) if timeout is not None]


# A level clock the sweep takes as lost: past its end by this much (its own timer first).
SWEEP_LATE_SECONDS = 2.0


def _table_close(change, tournament: Tournament) -> None:
    """A Sit & Go that ended: its table closes, its clocks stop."""
    table = change.table
    table.is_open, table.break_until = False, None
    change.save_later(table, ["is_open", "break_until"])
    change.touch()
    change.sockets_close(tournament_id=tournament.pk)
    tournament.next_level_at = None
    tournament.save(update_fields=["next_level_at"])


def cancel_shares(total: int, holdings: list[tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """The published split of what is left of a cancelled Sit & Go's pool among the players
    still in (`holdings`: (player, chips), clockwise from the button's left): half (the odd
    cent included) in equal shares, the odd cents one each to the first; the other half by
    chips, each share rounded down and the cents left over one each to the largest
    remainders (ties in `holdings`' order). {player: (equal share, chip share)}; sums to
    `total` exactly."""
    chip_part = total // 2
    equal = shares_split(total - chip_part, [player for player, _chips in holdings])
    chips_total = sum(chips for _player, chips in holdings)
    if chips_total <= 0:
        raise ValueError("nobody holds chips")
    floors = {player: chip_part * chips // chips_total for player, chips in holdings}
    remainders = sorted(
        range(len(holdings)),
        key=lambda k: (-(chip_part * holdings[k][1] % chips_total), k),
    )
    for k in remainders[: chip_part - sum(floors.values())]:
        floors[holdings[k][0]] += 1
    return {player: (equal[player], floors[player]) for player, _chips in holdings}


def _cancel_settle(change, tournament: Tournament, *, reason: str, now: datetime) -> dict:
    """Staff cancel a Sit & Go after play began: the running hand is cancelled (no chip
    moves: a tournament hand settles its chips only at its end), the players already out in
    a paid place keep the prize their place paid, and the rest of the pool goes to the
    players still in by `cancel_shares`; every prize in ONE ledger entry, the pool to zero."""
    hand_row = change.running_hand()
    if hand_row is not None:
        hand_cancel_in(change, hand_row, reason=_("Staff cancelled this Sit & Go."), code="staff")
    active = {
        r.player_id: r
        for r in Registration.objects.filter(tournament=tournament, status=Entered.ACTIVE)
    }
    pool = sum(r.buy_in for r in active.values())
    placed = {pid: r.prize for pid, r in active.items() if r.place is not None}
    button = change.table.button_seat or 0
    in_play = sorted(
        (seat for seat in change.seats().values() if (seat.chips or 0) > 0),
        key=lambda seat: _clockwise(button, seat.number, tournament.seats),
    )
    left = pool - sum(placed.values())
    shares = cancel_shares(left, [(seat.player_id, seat.chips or 0) for seat in in_play])
    for player, (equal, by_chips) in shares.items():
        registration = active[player]
        registration.prize, registration.ended_at = equal + by_chips, now
        registration.save(update_fields=["prize", "ended_at"])
    prizes = {pid: r.prize for pid, r in active.items() if r.prize > 0}
    entry = tournament_payout(tournament_id=tournament.pk, prizes=prizes, now=now)
    tournament.status, tournament.ended_at, tournament.cancel_reason = (
        Status.CANCELLED,
        now,
        reason,
    )
    tournament.payout_entry_id = entry.pk
    tournament.save(update_fields=["status", "ended_at", "cancel_reason", "payout_entry_id"])
    _table_close(change, tournament)
    chips = {seat.player_id: seat.chips or 0 for seat in in_play}
    return {
        "entry": entry.pk,
        "pool": pool,
        "hand_cancelled": hand_row.pk if hand_row is not None else None,
        "placed": {str(pid): prize for pid, prize in sorted(placed.items())},
        "shares": {
            str(pid): {"chips": chips[pid], "equal": equal, "by_chips": by_chips}
            for pid, (equal, by_chips) in shares.items()
        },
    }


def shares_split(total: int, players: list[int]) -> dict[int, int]:
    """Players sharing places share their prizes equally; the odd cents go one each to the
    first of them in `players`' order (clockwise from the button's left)."""
    share, odd = divmod(total, len(players))
    return {player: share + (1 if k < odd else 0) for k, player in enumerate(players)}


def _clockwise(button: int, seat: int, seats: int) -> int:
    """How far clockwise a seat is from the button's left (the first to act after it)."""
    return (seat - button - 1) % seats


def tournament_hand_end(change, hand_row, engine) -> None:
    """After each hand of a Sit & Go (in the hand's change, its chips settled): the players
    left with no chips are eliminated in order (more chips at the hand's start places higher;
    an equal start shares the places), and when one player has every chip the prize pool pays
    the places in one ledger entry and the Sit & Go is over."""
    tournament = Tournament.objects.select_for_update().filter(table_id=change.table.pk).first()
    if tournament is None or tournament.status != Status.RUNNING:
        return
    seats = change.seats()
    busted = [seat for seat in seats.values() if (seat.chips or 0) <= 0]
    if not busted:
        return
    now = timezone.now()
    active = {
        r.player_id: r
        for r in Registration.objects.filter(tournament=tournament, status=Entered.ACTIVE)
    }
    pool = sum(r.buy_in for r in active.values())
    amounts = place_amounts(payouts_for(tournament.payouts, entrants=len(active)), pool)
    start = {seat: stack for seat, stack in hand_row.setup["seats"]}
    button = hand_row.setup["button"]
    worst = len(seats)  # the place the first one out takes
    by_start: dict[int, list] = {}
    for seat in busted:
        by_start.setdefault(start.get(seat.number, 0), []).append(seat)
    out = []
    for _stack, group in sorted(by_start.items()):  # the shortest start goes out first
        places = list(range(worst - len(group) + 1, worst + 1))
        total = sum(amounts[p - 1] for p in places if p <= len(amounts))
        order = sorted(group, key=lambda s: _clockwise(button, s.number, tournament.seats))
        shares = shares_split(total, [s.player_id for s in order])
        for seat in order:
            registration = active[seat.player_id]
            registration.place, registration.prize = places[0], shares[seat.player_id]
            registration.ended_at = now
            registration.save(update_fields=["place", "prize", "ended_at"])
            out.append(
                {"player": seat.player_id, "place": places[0], "prize": shares[seat.player_id]}
            )
        worst -= len(group)
    for seat in busted:
        seat_eliminate(change, seat)
    audit_record(
        action="tournament.eliminated",
        subject=tournament,
        payload={"tournament": tournament.pk, "hand": hand_row.pk, "out": out},
        now=now,
    )
    left = [seat for seat in seats.values() if (seat.chips or 0) > 0]
    if len(left) == 1:
        _tournament_finish(change, tournament, active[left[0].player_id], amounts, active, now)


def _tournament_finish(change, tournament, winner, amounts, active, now) -> None:
    """One player has every chip: first place, the prizes paid in one entry (the pool to
    zero), the Sit & Go finished and its table closed."""
    winner.place, winner.prize, winner.ended_at = 1, amounts[0] if amounts else 0, now
    winner.save(update_fields=["place", "prize", "ended_at"])
    prizes = {r.player_id: r.prize for r in active.values() if r.prize > 0}
    entry = tournament_payout(tournament_id=tournament.pk, prizes=prizes, now=now)
    tournament.status, tournament.ended_at = Status.FINISHED, now
    tournament.payout_entry_id, tournament.next_level_at = entry.pk, None
    tournament.save(update_fields=["status", "ended_at", "payout_entry_id", "next_level_at"])
    table = change.table
    table.is_open = False
    change.save_later(table, ["is_open"])
    change.sockets_close(tournament_id=tournament.pk)
    audit_record(
        action="tournament.finished",
        subject=tournament,
        payload={
            "tournament": tournament.pk,
            "winner": winner.player_id,
            "entry": entry.pk,
            "prizes": {str(player): prize for player, prize in sorted(prizes.items())},
        },
        now=now,
    )
