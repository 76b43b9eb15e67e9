"""The changes a player makes to their own responsible-gaming settings, each recorded.

Every function is one transaction and writes a `ResponsibleGamingEvent`. None of them can
loosen anything at once: a higher deposit, loss or session length limit waits 24 hours, and
an exclusion can only be made longer, never shorter or lifted.
"""

from __future__ import annotations

import calendar
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework.authtoken.models import Token

from audit.services import audit_record
from config.errors import Refused
from config.inputs import parse_cents
from config.timeouts import timeouts_set
from poker import broadcast
from poker import services as poker
from poker.models import Seat, Table
from poker.selectors import waiting_places_of
from responsible.models import (
    DepositLimit,
    Exclusion,
    LossLimit,
    PlaySession,
    RealityCheck,
    ResponsibleGamingEvent,
    RollingLimit,
    SessionLimit,
    TermsAcceptance,
    TermsVersion,
)
from responsible.rules import (
    exclusion_active,
    limit_effective,
    play_session_now,
    session_break,
    session_limit_message,
    session_timeout,
    terms_current,
)
from showdown import live as showdown_live
from tournaments.services import tournaments_leave_excluded

RAISE_DELAY = timedelta(hours=24)
TIME_OUT_DAYS = (1, 42)  # 24 hours to 6 weeks
SELF_EXCLUSION_MONTHS = {"6m": 6, "1y": 12, "5y": 60}
REALITY_CHECK_MINUTES = (10, 240)
SESSION_LIMIT_MINUTES = (10, 24 * 60)
Kind = ResponsibleGamingEvent.Kind


class ResponsibleError(Refused):
    """A refused change to limits or exclusions: `code` for programs, `message` for people."""


def _record(*, player, kind: str, now: datetime, **detail) -> ResponsibleGamingEvent:
    return ResponsibleGamingEvent.objects.create(
        player=player, kind=kind, detail=detail, created_at=now
    )


def _add_months(moment: datetime, months: int) -> datetime:
    """The same day and time `months` later (the last day of a shorter month)."""
    month0 = moment.month - 1 + months
    year, month = moment.year + month0 // 12, month0 % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


# The events each kind of limit records: (lowered or first set, raise waiting 24 hours).
LIMIT_EVENTS = {
    DepositLimit: (Kind.LIMIT_LOWERED, Kind.LIMIT_RAISE_PENDING),
    LossLimit: (Kind.LOSS_LIMIT_LOWERED, Kind.LOSS_LIMIT_RAISE_PENDING),
    SessionLimit: (Kind.SESSION_LIMIT_LOWERED, Kind.SESSION_LIMIT_RAISE_PENDING),
}


def deposit_limit_set(
    *, player, period: str, amount: int | None, now: datetime | None = None
) -> DepositLimit:
    """Set the deposit cap for one rolling window (`limit_set`)."""
    return limit_set(model=DepositLimit, player=player, period=period, amount=amount, now=now)


def loss_limit_set(
    *, player, period: str, amount: int | None, now: datetime | None = None
) -> LossLimit:
    """Set the loss cap for one rolling window (`limit_set`): poker and the banked game."""
    return limit_set(model=LossLimit, player=player, period=period, amount=amount, now=now)


def session_limit_set(*, player, minutes: int | None, now: datetime | None = None) -> SessionLimit:
    """Set the longest play session, in minutes (`limit_set`: lower at once, higher or none
    after 24 hours). A session already running past a lower limit ends now (after the hand)."""
    low, high = SESSION_LIMIT_MINUTES
    if minutes is not None and (
        not isinstance(minutes, int) or isinstance(minutes, bool) or not low <= minutes <= high
    ):
        raise ResponsibleError(
            "bad_minutes",
            _("A session limit is %(low)s to %(high)s minutes, or none.")
            % {"low": low, "high": high},
        )
    return limit_set(model=SessionLimit, player=player, period=None, amount=minutes, now=now)


@transaction.atomic
def limit_set(
    *, model, player, period: str | None, amount: int | None, now: datetime | None = None
):
    """Set the cap for one rolling window; `amount` None removes it (which counts as raising).
    `model`: DepositLimit or LossLimit, which work alike, or SessionLimit (no `period`,
    `amount` in minutes, checked by `session_limit_set`)."""
    lowered, raise_pending = LIMIT_EVENTS[model]
    now = now or timezone.now()
    if model is SessionLimit:
        limit, _created = model.objects.select_for_update().get_or_create(player=player)
    else:
        if period not in RollingLimit.Period.values:
            raise ResponsibleError(
                "bad_period",
                _("A limit's period is one of %(periods)s.")
                % {"periods": ", ".join(RollingLimit.Period.values)},
            )
        if amount is not None:
            amount = parse_cents(amount, field="limit", error=ResponsibleError)
        limit, _created = model.objects.select_for_update().get_or_create(
            player=player, period=period
        )
    current = limit_effective(limit, now=now)
    if limit.pending_from is not None and limit.pending_from <= now:
        limit.amount = limit.pending_amount  # the raise that matured is the cap now
    if current is not None and (amount is None or amount > current):
        limit.pending_amount, limit.pending_from = amount, now + RAISE_DELAY
        _record(
            player=player,
            kind=raise_pending,
            now=now,
            period=period,
            current=current,
            requested=amount,
            applies_from=limit.pending_from.isoformat(),
        )
    else:
        # Lower (or the first cap): at once, and it cancels any raise still waiting.
        limit.amount, limit.pending_amount, limit.pending_from = amount, None, None
        _record(
            player=player,
            kind=lowered,
            now=now,
            period=period,
            previous=current,
            amount=amount,
        )
    limit.save()
    if model is SessionLimit:
        _session_timer_set(player=player, now=now)
    return limit


def _session_timer_set(*, player, now: datetime) -> None:
    """The timer of the session running now under the limit in force (a limit set or lowered
    mid-session: at once when it is already reached); a raise's timer is set when it applies
    (`session_limit_reach` sets the next one)."""
    session = play_session_now(player=player, now=now)
    if session is not None and session["limit_minutes"] is not None:
        timeouts_set(
            [
                session_timeout(
                    player_id=player.pk,
                    started_at=session["started_at"],
                    minutes=session["limit_minutes"],
                )
            ]
        )


def exclusion_end_for(*, kind: str, length, now: datetime) -> datetime:
    """When an exclusion asked for now would end; refuses lengths outside the rules."""
    if kind == Exclusion.Kind.TIME_OUT:
        low, high = TIME_OUT_DAYS
        if not isinstance(length, int) or isinstance(length, bool) or not low <= length <= high:
            raise ResponsibleError(
                "bad_length",
                _("A time-out lasts %(low)s to %(high)s days (24 hours to 6 weeks).")
                % {"low": low, "high": high},
            )
        return now + timedelta(days=length)
    if kind == Exclusion.Kind.SELF_EXCLUSION:
        if not isinstance(length, str) or length not in SELF_EXCLUSION_MONTHS:
            raise ResponsibleError(
                "bad_length", _("A self-exclusion lasts 6m (six months), 1y (a year) or 5y.")
            )
        return _add_months(now, SELF_EXCLUSION_MONTHS[length])
    raise ResponsibleError("bad_kind", _("Choose a time-out or a self-exclusion."))


@transaction.atomic
def exclusion_start(*, player, kind: str, length, now: datetime | None = None) -> Exclusion:
    """Stop the player's deposits and play until the end, at once and for good.

    Ends every session and API token of the player, takes them out of every seat after the
    hand they are in (`poker.table_leave`: the leave-pending mechanism) and out of every live
    Showdown seat after the round holding their wagers, and, after commit,
    closes their table sockets. A shorter exclusion than one already running is refused, so
    none can be cut short.
    """
    now = now or timezone.now()
    ends_at = exclusion_end_for(kind=kind, length=length, now=now)
    # One exclusion change per player at a time (two tabs, two requests): the player's row,
    # locked FOR NO KEY UPDATE, then each table's (`table_leave`, by id). Not FOR UPDATE: that
    # lock also stops the foreign-key checks of rows naming the player, which a table's change
    # makes at its commit while it holds the table's lock (a deal's hand players, a cash-out's
    # entry), and the two would wait on each other (docs/architecture.md "Lock order").
    get_user_model().objects.select_for_update(no_key=True).filter(pk=player.pk).first()
    running = exclusion_active(player=player, now=now)
    if running is not None and running.ends_at >= ends_at:
        raise ResponsibleError(
            "already_excluded",
            _("You are already on a %(kind)s until %(ends_at)s UTC; it cannot be shortened.")
            % {
                "kind": running.get_kind_display(),
                "ends_at": format(running.ends_at, "%Y-%m-%d %H:%M"),
            },
        )
    exclusion = Exclusion.objects.create(player=player, kind=kind, starts_at=now, ends_at=ends_at)
    _record(player=player, kind=kind, now=now, length=length, ends_at=ends_at.isoformat())
    sessions = player_sessions_end(player=player)
    # Out of every Sit & Go that has not started, refunded; tournaments' rows are locked
    # before tables' (docs/architecture.md "Lock order").
    tournaments = tournaments_leave_excluded(player=player, now=now)
    tables = []
    # A running Sit & Go's seat is not money: it stays, blinded (docs/rules.md "Sit & Go play").
    seats = Seat.objects.filter(player=player, table__is_tournament=False)
    for seat in seats.order_by("table_id"):
        poker.table_leave(table=seat.table_id, player=player)
        tables.append(seat.table_id)
    # Off every waiting list too (a seat held for them goes to the next in line).
    for table_id in waiting_places_of(player=player):
        poker.waiting_list_leave(table=table_id, player=player)
    showdown_tables = showdown_live.live_seats_leave_after_round(player=player)
    _record(
        player=player,
        kind=Kind.SESSIONS_ENDED,
        now=now,
        sessions=sessions,
        tables=tables,
        showdown_tables=showdown_tables,
        tournaments=tournaments,
    )
    table_ids = list(Table.objects.values_list("pk", flat=True))
    message = (
        f"You started a {exclusion.get_kind_display()} until "
        f"{ends_at:%Y-%m-%d %H:%M} UTC; you leave the table after this hand."
    )
    transaction.on_commit(
        lambda: broadcast.send_player_excluded(
            table_ids=table_ids, user_id=player.pk, message=message
        )
    )
    return exclusion


@transaction.atomic
def session_limit_reach(*, player, started: str | None = None, now: datetime | None = None) -> bool:
    """End the player's play session if it has reached their session limit: every poker seat
    after the hand they are in (played out as usual: `poker.table_leave_after_hand`), every
    live Showdown seat after the round holding their wagers, every waiting list; recorded.
    `started`: the session a timer was set for (another session since: nothing to do). Not
    yet due (a raise applied since the timer was set): the timer is set again for the new
    end. Returns whether it ended the session (once per session)."""
    now = now or timezone.now()
    # One change per player at a time, in exclusion_start's lock order (player, then tables);
    # the session's row is written last, unlocked until then: a deal holding its table's lock
    # writes it too (`play_session_touch_sql`), so locking it before the tables could deadlock.
    get_user_model().objects.select_for_update(no_key=True).filter(pk=player.pk).first()
    session = PlaySession.objects.filter(player=player).first()
    if (
        session is None
        or session.limit_reached_at is not None
        or (started is not None and session.started_at.isoformat() != started)
        or session.last_play_at <= now - session_break()
    ):
        return False
    current = play_session_now(player=player, now=now)
    if current is None or current["limit_minutes"] is None:
        return False
    if not current["reached"]:
        _session_timer_set(player=player, now=now)
        return False
    tables = []
    seats = Seat.objects.filter(player=player, table__is_tournament=False)
    for seat in seats.order_by("table_id"):
        try:
            poker.table_leave_after_hand(table=seat.table_id, player=player, reason="session_limit")
        except poker.TableError:
            continue  # left meanwhile
        tables.append(seat.table_id)
    for table_id in waiting_places_of(player=player):
        poker.waiting_list_leave(table=table_id, player=player)
    showdown_tables = showdown_live.live_seats_leave_after_round(player=player)
    PlaySession.objects.filter(pk=session.pk).update(limit_reached_at=now)
    _record(
        player=player,
        kind=Kind.SESSION_LIMIT_REACHED,
        now=now,
        started_at=session.started_at.isoformat(),
        limit_minutes=current["limit_minutes"],
        seconds_played=current["seconds_played"],
        net=current["net"],
        tables=tables,
        showdown_tables=showdown_tables,
    )
    message = session_limit_message(current)
    transaction.on_commit(
        lambda: broadcast.send_to_player(
            user_id=player.pk, frame={"type": "session_limit", "message": message}
        )
    )
    return True


def session_limits_sweep(*, now: datetime | None = None) -> int:
    """Sessions past their limit and not yet ended (their timer lost): end each. How many."""
    now = now or timezone.now()
    due = [
        session.player
        for session in PlaySession.objects.filter(
            limit_reached_at__isnull=True,
            last_play_at__gt=now - session_break(),
            player__session_limit__isnull=False,
        ).select_related("player")
        if (current := play_session_now(player=session.player, now=now)) is not None
        and current["reached"]
    ]
    return sum(session_limit_reach(player=player, now=now) for player in due)


def player_sessions_end(*, player, keep: str | None = None) -> int:
    """Delete the player's sessions (database sessions) and API tokens; how many sessions.
    `keep`: a session key left alone (the one a player changes their password from)."""
    uid = str(player.pk)
    ended = [
        session.session_key
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if session.get_decoded().get("_auth_user_id") == uid and session.session_key != keep
    ]
    Session.objects.filter(session_key__in=ended).delete()
    Token.objects.filter(user=player).delete()
    return len(ended)


@transaction.atomic
def reality_check_set(*, player, minutes: int | None, now: datetime | None = None) -> None:
    """Remind the player every `minutes` of play at the tables (None: no reminder)."""
    now = now or timezone.now()
    low, high = REALITY_CHECK_MINUTES
    if minutes is not None and (
        not isinstance(minutes, int) or isinstance(minutes, bool) or not low <= minutes <= high
    ):
        raise ResponsibleError(
            "bad_interval",
            _("A reality check comes every %(low)s to %(high)s minutes, or never.")
            % {"low": low, "high": high},
        )
    if minutes is None:
        RealityCheck.objects.filter(player=player).delete()
    else:
        RealityCheck.objects.update_or_create(player=player, defaults={"interval_minutes": minutes})
    _record(player=player, kind=Kind.REALITY_CHECK_SET, now=now, minutes=minutes)


@transaction.atomic
def terms_publish(
    *, staff, kind: str, title: str, body: str, reason: str = "", now: datetime | None = None
) -> TermsVersion:
    """Publish the next version of a document (staff, in the admin): from now on every player
    accepts it before playing again. Numbered after the last of its kind; audited."""
    now = now or timezone.now()
    if kind not in TermsVersion.Kind.values:
        raise ResponsibleError("bad_kind", _("Choose the terms or the fair-play policy."))
    title, body = (title or "").strip(), (body or "").strip()
    if not title or not body or len(title) > 120:
        raise ResponsibleError(
            "bad_document", _("A document has a title (at most 120 characters) and a text.")
        )
    # Two staff publishing at once: the unique (kind, version) refuses the second number.
    last = TermsVersion.objects.filter(kind=kind).order_by("-version").first()
    version = TermsVersion.objects.create(
        kind=kind,
        version=(last.version + 1) if last else 1,
        title=title,
        body=body,
        published_at=now,
        published_by=staff,
    )
    audit_record(
        action="staff.terms_publish",
        actor=staff,
        subject=version,
        payload={"kind": kind, "version": version.version, "title": title, "chars": len(body)},
        reason=reason,
        now=now,
    )
    return version


DOCUMENT_TITLES = {"terms": "Terms and conditions", "fair_play": "Fair-play policy"}


@transaction.atomic
def terms_publish_documents(*, staff=None, now: datetime | None = None) -> list[TermsVersion]:
    """Publish the newest text of each document in responsible/documents/ (`<kind>_v<n>.txt`)
    whose version in force says something else (or when none is published): the room's own
    documents move to their newest text, and every player accepts it again before playing.
    A text already in force publishes nothing, so a rerun changes nothing."""
    from pathlib import Path

    folder = Path(__file__).resolve().parent / "documents"
    current = {version.kind: version for version in terms_current()}
    published = []
    for kind, title in DOCUMENT_TITLES.items():
        files = list(folder.glob(f"{kind}_v*.txt"))
        if not files:
            continue
        newest = max(files, key=lambda path: int(path.stem.split("_v")[1]))
        body = newest.read_text(encoding="utf-8").strip()
        if kind in current and current[kind].body.strip() == body:
            continue
        published.append(
            terms_publish(
                staff=staff,
                kind=kind,
                title=title,
                body=body,
                reason=f"responsible/documents/{newest.name}",
                now=now,
            )
        )
    return published


@transaction.atomic
def terms_accept(
    *, player, versions: list[int], now: datetime | None = None
) -> list[TermsAcceptance]:
    """Record that the player accepted the versions in force they were shown (`versions`: their
    ids). Refused, recording nothing, unless they are exactly the versions in force not yet
    accepted: a version published after the page was shown is read before it is accepted."""
    now = now or timezone.now()
    # One acceptance at a time per player (two tabs): the player's row, as exclusion_start.
    get_user_model().objects.select_for_update(no_key=True).filter(pk=player.pk).first()
    accepted = set(TermsAcceptance.objects.filter(player=player).values_list("terms_id", flat=True))
    pending = [version for version in terms_current() if version.pk not in accepted]
    ids = versions if isinstance(versions, list) else [None]
    if not all(isinstance(each, int) and not isinstance(each, bool) for each in ids) or sorted(
        set(ids)
    ) != sorted(version.pk for version in pending):
        raise ResponsibleError(
            "terms_changed",
            _("The documents in force are not the ones accepted: read them again and accept."),
        )
    acceptances = [
        TermsAcceptance.objects.create(player=player, terms=version, accepted_at=now)
        for version in pending
    ]
    if acceptances:
        audit_record(
            action="responsible.terms_accepted",
            actor=player,
            subject=player,
            payload={
                "accepted": [
                    {"kind": version.kind, "version": version.version, "id": version.pk}
                    for version in pending
                ]
            },
            now=now,
        )
    return acceptances
