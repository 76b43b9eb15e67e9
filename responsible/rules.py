"""The checks other services call before money comes in or play starts.

It reads this app's models, the cashier's ledger rows and the e-mail proof (accounts) and
imports no service: `poker` and `showdown` call it directly, the cashier through the checks
this app registers with it (responsible/apps.py, cashier/gates.py), so no cycle. Each check
raises the caller's own kind of `Refused` (as `config.inputs` does), so callers keep catching
`CashierError` or `TableError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.services import email_is_verified
from cashier.models import Account, Entry, Posting
from config.errors import Refused
from config.inputs import dollars
from config.timeouts import Timeout, timeouts_set
from responsible.models import (
    DepositLimit,
    Exclusion,
    LossLimit,
    PendingCap,
    PlaySession,
    RollingLimit,
    SessionLimit,
    TermsAcceptance,
    TermsVersion,
)

# Rolling windows (docs/rules.md "Responsible gaming"): a limit means the same thing whenever
# the player looks, with no reset at midnight or on the 1st to deposit again at once.
WINDOWS = {
    RollingLimit.Period.DAY: timedelta(days=1),
    RollingLimit.Period.WEEK: timedelta(days=7),
    RollingLimit.Period.MONTH: timedelta(days=30),
}
# What counts as won or lost (`net_result_since`, and the loss limits' SQL): hands settled on
# the player's table stacks (after rake), banked bets and payouts on their wallet, and
# tournament buy-ins (with their fee) less what comes back (refunds and prizes).
RESULT_STACK_REASONS = (Entry.Reason.HAND_SETTLEMENT,)
RESULT_WALLET_REASONS = (
    Entry.Reason.BANKED_BET,
    Entry.Reason.BANKED_PAYOUT,
    Entry.Reason.TOURNAMENT_BUY_IN,
    Entry.Reason.TOURNAMENT_REFUND,
    Entry.Reason.TOURNAMENT_PAYOUT,
)


def exclusion_active(*, player, now: datetime | None = None) -> Exclusion | None:
    """The exclusion (time-out or self-exclusion) that runs longest now, or None."""
    now = now or timezone.now()
    return (
        Exclusion.objects.filter(player=player, starts_at__lte=now, ends_at__gt=now)
        .order_by("-ends_at")
        .first()
    )


def exclusion_message(exclusion: Exclusion) -> str:
    return (
        f"You are on a {exclusion.get_kind_display()} until "
        f"{exclusion.ends_at:%Y-%m-%d %H:%M} UTC: no deposits and no play until then."
    )


def check_account_open(*, player, error: type[Refused]) -> None:
    """Refuse money and play to an account staff suspended (`is_active` off, read afresh:
    lobby.suspension), so a deposit waiting on the wallet's lock sees a suspension."""
    if not get_user_model().objects.filter(pk=player.pk, is_active=True).exists():
        raise error(
            "account_suspended",
            _("This account is suspended: no deposits, withdrawals or play. Contact support."),
        )


def _terms_accepted_sql() -> str:
    """True when the player `%(player)s` accepted the version in force of every document (the
    highest version of each kind; true when none was published)."""
    versions, accepted = TermsVersion._meta.db_table, TermsAcceptance._meta.db_table
    return (
        f"NOT EXISTS (SELECT 1 FROM {versions} v WHERE NOT EXISTS (SELECT 1 FROM {versions} w "
        "WHERE w.kind = v.kind AND w.version > v.version) "
        f"AND NOT EXISTS (SELECT 1 FROM {accepted} a WHERE a.terms_id = v.id "
        "AND a.player_id = %(player)s))"
    )


def _loss_room_sql() -> str:
    """True unless the player `%(player)s` lost, at `%(now)s`, at least a loss limit in force
    within its window (the same net result as `net_result_since`, summed in the query)."""
    limits = LossLimit._meta.db_table
    postings, entries = Posting._meta.db_table, Entry._meta.db_table
    accounts = Account._meta.db_table
    cap = "(CASE WHEN l.pending_from <= %(now)s THEN l.pending_amount ELSE l.amount END)"
    days = " ".join(f"WHEN '{period}' THEN {window.days}" for period, window in WINDOWS.items())
    stack = ", ".join(f"'{reason}'" for reason in RESULT_STACK_REASONS)
    wallet = ", ".join(f"'{reason}'" for reason in RESULT_WALLET_REASONS)
    return (
        f"NOT EXISTS (SELECT 1 FROM {limits} l WHERE l.player_id = %(player)s "
        f"AND {cap} IS NOT NULL AND {cap} <= -(SELECT COALESCE(SUM(p.amount), 0) "
        f"FROM {postings} p JOIN {entries} e ON e.id = p.entry_id "
        f"JOIN {accounts} a ON a.id = p.account_id WHERE a.owner_id = %(player)s "
        f"AND e.created_at > %(now)s - (CASE l.period {days} END) * interval '1 day' "
        f"AND ((e.reason IN ({stack}) AND a.kind = '{Account.Kind.TABLE_STACK}') "
        f"OR (e.reason IN ({wallet}) AND a.kind = '{Account.Kind.WALLET}'))))"
    )


def net_result_since(*, player, since: datetime) -> int:
    """The player's winnings minus losses at the room after `since`, in cents: hands settled
    on their table stacks plus banked bets and payouts and tournament buy-ins and refunds on
    their wallet (deposits, table buy-ins and cash-outs move money, they win or lose nothing)."""
    total = Posting.objects.filter(
        Q(entry__reason__in=RESULT_STACK_REASONS, account__kind=Account.Kind.TABLE_STACK)
        | Q(entry__reason__in=RESULT_WALLET_REASONS, account__kind=Account.Kind.WALLET),
        account__owner=player,
        entry__created_at__gt=since,
    ).aggregate(total=Sum("amount"))["total"]
    return total or 0


def loss_room(*, player, now: datetime | None = None) -> dict[str, dict]:
    """Per period with a loss cap in force: the cap, the net loss in its window (0 when the
    player is ahead), and what may still be lost."""
    now = now or timezone.now()
    room = {}
    for limit in LossLimit.objects.filter(player=player):
        cap = limit_effective(limit, now=now)
        if cap is None:
            continue
        lost = max(-net_result_since(player=player, since=now - WINDOWS[limit.period]), 0)
        room[limit.period] = {"limit": cap, "used": lost, "left": max(cap - lost, 0)}
    return room


def _period_words(period: str) -> dict:
    return {
        # Translators: "day", "week" or "month", as in "your day limit".
        "period": {"day": _("day"), "week": _("week"), "month": _("month")}[period],
        "window": _("24 hours")
        if period == "day"
        else _("%(days)s days") % {"days": WINDOWS[period].days},
    }


def check_loss(*, player, error: type[Refused], now: datetime | None = None) -> None:
    """Refuse play to a player who reached a loss limit in force (the words of the refusal
    `check_play` makes, with the figures)."""
    for period, room in loss_room(player=player, now=now).items():
        if room["left"] <= 0:
            raise error(
                "loss_limit",
                _(
                    "You reached your %(period)s loss limit of %(limit)s: you lost "
                    "%(used)s in the last %(window)s. No new seat, buy-in, top-up or "
                    "banked round until your results in that window are back under it."
                )
                % {
                    **_period_words(period),
                    "limit": dollars(room["limit"]),
                    "used": dollars(room["used"]),
                },
            )


def play_check_sql(*, limits: bool = True) -> str:
    """`check_play`'s query as two columns of a caller's SELECT for the player `%(player)s` at
    `%(now)s`: whether the player may play at all (the account's `is_active`, read afresh,
    the current terms and fair-play policy accepted and, with `limits`, no loss limit reached
    and no session past its length limit) and the id of the longest exclusion running now. A
    banked deal reads them with its table in one query."""
    users, exclusions = get_user_model()._meta.db_table, Exclusion._meta.db_table
    checks = ["u.is_active", _terms_accepted_sql()]
    if limits:
        checks += [_loss_room_sql(), _session_room_sql()]
    return (
        f"(SELECT {' AND '.join(checks)} FROM {users} u WHERE u.id = %(player)s), "
        f"(SELECT x.id FROM {exclusions} x WHERE x.player_id = %(player)s "
        "AND x.starts_at <= %(now)s AND x.ends_at > %(now)s ORDER BY x.ends_at DESC LIMIT 1)"
    )


def terms_current() -> list[TermsVersion]:
    """The version in force of each document (the highest of its kind), terms first."""
    latest: dict[str, TermsVersion] = {}
    for version in TermsVersion.objects.order_by("kind", "-version"):
        latest.setdefault(version.kind, version)
    return [latest[kind] for kind in TermsVersion.Kind.values if kind in latest]


def terms_pending(*, player) -> list[TermsVersion]:
    """The versions in force the player has not accepted yet (none: they may play)."""
    accepted = set(TermsAcceptance.objects.filter(player=player).values_list("terms_id", flat=True))
    return [version for version in terms_current() if version.pk not in accepted]


def terms_accepted(*, player) -> bool:
    """Whether the player accepted the version in force of every document (one query)."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_terms_accepted_sql()}", {"player": player.pk})
        return bool(cursor.fetchone()[0])


def terms_message() -> str:
    return _(
        "Accept the current terms and fair-play policy before playing or depositing: "
        "any page of the room shows them to you first."
    )


def play_check_refuse(
    *,
    player,
    is_active: bool | None,
    exclusion_id: int | None,
    error: type[Refused],
    limits: bool = True,
) -> None:
    """Refuse as `check_play` does, from the two columns of `play_check_sql` (`is_active`: the
    first, false for a suspended account, terms not accepted, or with `limits` a loss limit
    reached or a session past its limit; the refusal reads which, in that order)."""
    if not is_active:
        check_account_open(player=player, error=error)  # raises with the suspension's words
        if not terms_accepted(player=player):
            raise error("terms_not_accepted", terms_message())
        if limits:
            check_loss(player=player, error=error)
            check_session(player=player, error=error)
    if exclusion_id is not None:
        raise error("excluded", exclusion_message(Exclusion.objects.get(pk=exclusion_id)))


def _check(*, player, error: type[Refused], now: datetime | None, limits: bool) -> None:
    with connection.cursor() as cursor:
        now = connection.ops.adapt_datetimefield_value(now or timezone.now())
        cursor.execute(f"SELECT {play_check_sql(limits=limits)}", {"player": player.pk, "now": now})
        is_active, exclusion_id = cursor.fetchone()
    play_check_refuse(
        player=player, is_active=is_active, exclusion_id=exclusion_id, error=error, limits=limits
    )


def check_play(*, player, error: type[Refused], now: datetime | None = None) -> None:
    """Refuse a seat, a sit-in, a buy-in, a top-up, a waiting list or a new banked round or
    wager to a suspended or excluded player, one who has not accepted the current terms and
    fair-play policy, one who reached a loss limit or one whose play session is past its
    length limit. One query (`play_check_sql`): the account's `is_active` read afresh with the
    acceptances and the limits, and the longest exclusion running now."""
    _check(player=player, error=error, now=now, limits=True)


def check_standing(*, player, error: type[Refused], now: datetime | None = None) -> None:
    """`check_play` without the loss and session limits, for what is not play: a deposit and
    a chat line are refused to a suspended or excluded player and until the terms are
    accepted, never because a limit on play was reached (docs/rules.md "Loss limits")."""
    _check(player=player, error=error, now=now, limits=False)


def limit_effective(limit: PendingCap, *, now: datetime) -> int | None:
    """The cap in force now: the pending one once its 24 hours have passed."""
    if limit.pending_from is not None and limit.pending_from <= now:
        return limit.pending_amount
    return limit.amount


def deposits_total(*, player, since: datetime) -> int:
    """Cents the player deposited into their wallet after `since` (ledger rows, not a counter)."""
    total = Posting.objects.filter(
        entry__reason=Entry.Reason.DEPOSIT,
        entry__player=player,
        entry__created_at__gt=since,
        account__kind=Account.Kind.WALLET,
    ).aggregate(total=Sum("amount"))["total"]
    return total or 0


def deposit_room(*, player, now: datetime | None = None) -> dict[str, dict]:
    """Per period with a cap in force: the cap, what was deposited in its window, what is left."""
    now = now or timezone.now()
    room = {}
    for limit in DepositLimit.objects.filter(player=player):
        cap = limit_effective(limit, now=now)
        if cap is None:
            continue
        used = deposits_total(player=player, since=now - WINDOWS[limit.period])
        room[limit.period] = {"limit": cap, "used": used, "left": max(cap - used, 0)}
    return room


def check_deposit(
    *, player, amount: int, error: type[Refused], now: datetime | None = None
) -> None:
    """Refuse a deposit by an excluded player, before the address is confirmed, or past a cap.

    Called by `cashier.services.wallet_deposit` with the wallet row locked, so two deposits
    at once cannot both squeeze under the same cap.
    """
    now = now or timezone.now()
    check_standing(player=player, error=error, now=now)
    if not email_is_verified(user=player):
        raise error(
            "email_unverified",
            _(
                "Confirm your e-mail address before your first deposit (the "
                "link is in your mail; your profile page sends a new one)."
            ),
        )
    for period, room in deposit_room(player=player, now=now).items():
        if amount > room["left"]:
            raise error(
                "deposit_limit",
                _(
                    "This deposit would pass your %(period)s limit of %(limit)s: "
                    "you deposited %(used)s in the last %(window)s and "
                    "can deposit %(left)s more now."
                )
                % {
                    **_period_words(period),
                    "limit": dollars(room["limit"]),
                    "used": dollars(room["used"]),
                    "left": dollars(room["left"]),
                },
            )


# -- the session length limit (docs/rules.md "Session length limit")

SESSION_TIMEOUT = "responsible.session_limit"


def session_break() -> timedelta:
    """How long without play ends a play session."""
    return timedelta(minutes=settings.RESPONSIBLE_SESSION_BREAK_MINUTES)


def _session_cap_sql(limit: str) -> str:
    return (
        f"(CASE WHEN {limit}.pending_from <= %(now)s THEN {limit}.pending_amount "
        f"ELSE {limit}.amount END)"
    )


def _session_room_sql() -> str:
    """True unless the player `%(player)s`'s play session running at `%(now)s` (play within
    the break) has lasted at least a session limit in force."""
    limits, sessions = SessionLimit._meta.db_table, PlaySession._meta.db_table
    cap = _session_cap_sql("l")
    minutes = int(settings.RESPONSIBLE_SESSION_BREAK_MINUTES)
    return (
        f"NOT EXISTS (SELECT 1 FROM {limits} l JOIN {sessions} s ON s.player_id = l.player_id "
        f"WHERE l.player_id = %(player)s AND {cap} IS NOT NULL "
        f"AND s.last_play_at > %(now)s - interval '{minutes} minutes' "
        f"AND s.started_at + {cap} * interval '1 minute' <= %(now)s)"
    )


def play_session_touch_sql() -> str:
    """Play at `%(now)s` by each player of `%(players)s` (an array of ids): their session goes
    on, or a new one starts when the last play was a break ago. Returns each player, their
    session's start, whether it started now and the session limit in force (minutes, or
    NULL), for `play_session_timers`. A deal runs it as a CTE of one of its statements."""
    sessions, limits = PlaySession._meta.db_table, SessionLimit._meta.db_table
    minutes = int(settings.RESPONSIBLE_SESSION_BREAK_MINUTES)
    fresh = f"p.last_play_at <= %(now)s - interval '{minutes} minutes'"
    return (
        f"INSERT INTO {sessions} AS p (player_id, started_at, last_play_at) "
        "SELECT unnest(%(players)s::bigint[]), %(now)s, %(now)s "
        "ON CONFLICT (player_id) DO UPDATE SET "
        f"started_at = CASE WHEN {fresh} THEN EXCLUDED.started_at ELSE p.started_at END, "
        f"limit_reached_at = CASE WHEN {fresh} THEN NULL ELSE p.limit_reached_at END, "
        "last_play_at = GREATEST(p.last_play_at, EXCLUDED.last_play_at) "
        "RETURNING p.player_id, p.started_at, p.started_at = %(now)s, "
        f"(SELECT {_session_cap_sql('l')} FROM {limits} l WHERE l.player_id = p.player_id)"
    )


def session_timeout(*, player_id: int, started_at: datetime, minutes: int) -> Timeout:
    """The timer that ends the player's session `started_at` when it reaches `minutes`
    (`responsible.tasks.session_limit_timeout`); stale once another session started."""
    return Timeout.due_at(
        SESSION_TIMEOUT,
        table_id=0,
        ref_id=player_id,
        step=started_at.isoformat(),
        at=started_at + timedelta(minutes=minutes),
    )


def session_limited_sql() -> str:
    """A caller's SELECT column: whether the player `%(player)s` has a session limit (in
    force or waiting), so the banked deal records its play only for them (`showdown`)."""
    return f"EXISTS (SELECT 1 FROM {SessionLimit._meta.db_table} l WHERE l.player_id = %(player)s)"


def play_session_timers(rows: Iterable[tuple]) -> None:
    """Set, on commit, the timer of each session that started now under a session limit (the
    rows `play_session_touch_sql` returned)."""
    timeouts_set(
        session_timeout(player_id=player_id, started_at=started, minutes=cap)
        for player_id, started, fresh, cap in rows
        if fresh and cap is not None
    )


def play_session_touch(*, player_ids: Iterable[int], now: datetime | None = None) -> None:
    """Record play by these players now (a seat taken, a sit-in, a banked round or wager), in
    the caller's transaction: one statement, and a timer for a session starting now under a
    limit."""
    ids = sorted(set(player_ids))
    if not ids:
        return
    moment = connection.ops.adapt_datetimefield_value(now or timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(play_session_touch_sql(), {"players": ids, "now": moment})
        play_session_timers(cursor.fetchall())


def session_limit_minutes(*, player, now: datetime | None = None) -> int | None:
    """The session limit in force now, in minutes (None: none)."""
    limit = SessionLimit.objects.filter(player=player).first()
    return None if limit is None else limit_effective(limit, now=now or timezone.now())


def play_session_now(*, player, now: datetime | None = None) -> dict | None:
    """The player's play session running now (None: they are on a break): when it started,
    seconds played, its net result (`net_result_since`), the limit in force and when the
    session reaches it, whether it has, and when a break would end it (its last play + the
    break)."""
    now = now or timezone.now()
    session = PlaySession.objects.filter(player=player).first()
    if session is None or session.last_play_at <= now - session_break():
        return None
    minutes = session_limit_minutes(player=player, now=now)
    ends_at = None if minutes is None else session.started_at + timedelta(minutes=minutes)
    return {
        "started_at": session.started_at,
        "seconds_played": max(int((now - session.started_at).total_seconds()), 0),
        "net": net_result_since(player=player, since=session.started_at),
        "limit_minutes": minutes,
        "ends_at": ends_at,
        "reached": ends_at is not None and ends_at <= now,
        "break_ends_at": session.last_play_at + session_break(),
    }


def played_words(seconds: int) -> str:
    """A time played for people: "1 h 05 min", "25 min"."""
    hours, minutes = divmod(seconds // 60, 60)
    if hours:
        return _("%(hours)s h %(minutes)02d min") % {"hours": hours, "minutes": minutes}
    return _("%(minutes)s min") % {"minutes": minutes}


def session_limit_message(session: dict) -> str:
    """The words of the session limit's refusal and notice: the reality check's figures."""
    return _(
        "Your session limit of %(limit)s minutes is reached: you have played %(played)s this "
        "session, with a net result of %(net)s. No new seat, buy-in, top-up or banked wager "
        "until a break of %(break)s minutes ends the session (from %(resume)s UTC)."
    ) % {
        "limit": session["limit_minutes"],
        "played": played_words(session["seconds_played"]),
        "net": dollars(session["net"]),
        "break": settings.RESPONSIBLE_SESSION_BREAK_MINUTES,
        "resume": format(session["break_ends_at"], "%Y-%m-%d %H:%M"),
    }


def check_session(*, player, error: type[Refused], now: datetime | None = None) -> None:
    """Refuse play to a player whose session has reached a session limit in force (the words
    of the refusal `check_play` makes, with the figures)."""
    session = play_session_now(player=player, now=now)
    if session is not None and session["reached"]:
        raise error("session_limit", session_limit_message(session))
