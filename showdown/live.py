"""The live Omaha Showdown table (RULES.md 9, land-based: up to seven seats, one board).

A round goes betting -> deciding -> settled. The first wager opens the betting window
(`bet_seconds`); the cards are dealt when it closes, or at once when every seated player has
placed. Each seat with wagers then has `action_seconds` to Fold, Call or Raise; when the last
decides, or the deadline passes and the undecided are folded, the board settles every seat.
Seats without wagers sit the round out.

Every service is one transaction under the table's row lock (`select_for_update`), like the
poker table's, and runs at the table's owner (poker/owner.py): the socket's
commands and the timeouts are sent to the process holding the table's lease, and a command
run as the owner is refused under the lock when another live owner holds it
(`leases.NotTheOwner`). A change bumps the table's version in one write fenced by the lease
epoch it read (`StaleOwner`: a holder whose lease moved on writes nothing), takes or renews
the lease, and builds its frames once (`live_selectors.live_table_frames`: the public view,
each player's own part), kept in the frame log and sent after commit
(`poker.broadcast.frames_send`). Money moves only through `cashier.services.banked_*`, on
each player's own `ShowdownRound` (the seat's share of the shared `LiveRound`): each share's
wagers are its own entries as online, and the board's settlement is one entry for every seat,
which each share names as its result (verify_ledger matches its legs to all of them). Timers
are the room's timeouts (`config.timeouts`, run by `showdown.tasks` at the owner): they carry
the table, the round and its phase (the round's own version: betting, deciding, settled) and
do nothing once the round moved on; a sweep acts on the stored deadlines.
Refusals raise `ShowdownRefused` and change nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import Subject, audit_record
from cashier.services import banked_rounds_settle, banked_wager_place
from config import leases
from config.inputs import parse_cents, parse_idempotency_key
from config.timeouts import Timeout, timeouts_set
from fairness import services as fairness
from poker.broadcast import frames_send, send_lobby
from poker.engine.showdown import ShowdownError
from poker.engine.showdown import ShowdownRound as EngineRound
from poker.engine.showdown_paytables import PaytableError
from responsible import rules as responsible
from showdown import services
from showdown.live_selectors import live_table_frames
from showdown.models import LiveRound, LiveSeat, ShowdownRound, ShowdownTable
from showdown.selectors import live_seats_counts
from showdown.services import ShowdownRefused, engine_refusal

log = logging.getLogger(__name__)

Phase = LiveRound.Phase
Status = ShowdownRound.Status


def group_name(table_id: int) -> str:
    """The channel-layer group of every socket at a live table (its public frames, its
    heartbeat); also the frame log's stream of its public frames."""
    return f"showdown-{table_id}"


def user_group_name(table_id: int, user_id: int) -> str:
    """Every socket of one player at one live table: their own part of each change, and a
    second tab superseding the first; also the frame log's stream of their own parts."""
    return f"showdown-{table_id}-user-{user_id}"


# -- helpers


def _lock_table(table_id) -> ShowdownTable:
    if isinstance(table_id, bool) or not isinstance(table_id, int):
        raise ShowdownRefused("unknown_table", _("No such table."))
    table = (
        ShowdownTable.objects.select_for_update()
        .filter(pk=table_id, seats__gt=1)
        .select_related("bet_paytable", "hole_card_bonus_paytable", "final_hand_bonus_paytable")
        .first()
    )
    if table is None:
        raise ShowdownRefused("unknown_table", _("No such live table."))
    leases.owner_check(table)
    return table


def _open_round(table: ShowdownTable) -> LiveRound | None:
    return LiveRound.objects.filter(table=table).exclude(phase=Phase.SETTLED).first()


def _engine(live: LiveRound) -> EngineRound:
    try:
        return EngineRound.from_dict({**live.state, "deck": live.deck})
    except ShowdownError as error:
        raise ShowdownRefused(
            "bad_state",
            _("Live round %(live_id)s cannot be read back (%(reason)s); staff have it.")
            % {"live_id": live.pk, "reason": error.reason},
        ) from error


def _store(live: LiveRound, game: EngineRound) -> None:
    state = game.to_dict()
    live.deck = state["deck"]
    state["deck"] = []
    live.state = state


def _advance_if_overdue(table_id, now: datetime) -> LiveRound | None:
    """The table's open round, advanced as its timer would have if its deadline has passed:
    each service compares the time with the deadline itself, so a wager or decision arriving
    after it while the worker lags is refused against a round that has moved on. The round
    that was overdue (as it was read), or None."""
    if isinstance(table_id, bool) or not isinstance(table_id, int):
        return None  # _lock_table refuses it
    live = LiveRound.objects.filter(table_id=table_id).exclude(phase=Phase.SETTLED).first()
    if live is None or live.deadline is None or live.deadline > now:
        return None
    try:
        live_round_advance(round_id=live.pk, phase=live.phase, now=now)
    except ShowdownRefused:
        log.exception("live showdown round %s could not advance", live.pk)
    return live


def _decision_late() -> ShowdownRefused:
    return ShowdownRefused(
        "decision_late", _("Time to decide ran out: undecided seats fold at the deadline.")
    )


def _refused(error: ShowdownError) -> ShowdownRefused:
    return engine_refusal(error)


def _changed(
    table: ShowdownTable,
    live: LiveRound | None,
    *,
    users: tuple[int, ...] = (),
    lobby: bool = False,
) -> None:
    """The table changed (in this transaction): its next version, written with the lease and
    fenced by the epoch the change holds; its frames, built now and sent after commit; the
    round's timer for its next deadline (`config.timeouts`: it carries the round's phase and
    does nothing once that moved on). `users`: players no longer seated or in the round who
    still get their own part (one who just stood up). `lobby`: the lobby's figures of the
    table may have moved (`_lobby_tell`)."""
    fence = {"version": table.version, "lease_epoch": table.lease_epoch}
    table.version += 1
    leases.lease_take(table, timezone.now())
    written = ShowdownTable.objects.filter(pk=table.pk, **fence).update(
        version=table.version,
        lease_owner=table.lease_owner,
        lease_epoch=table.lease_epoch,
        lease_expires_at=table.lease_expires_at,
    )
    if not written:
        raise leases.StaleOwner(table.pk)
    public, private = live_table_frames(table, extra_user_ids=users)
    version, table_id = table.version, table.pk
    transaction.on_commit(lambda: frames_publish(table_id, version, public, private))
    if lobby:
        _lobby_tell(table_id)
    if live is None or live.phase == Phase.SETTLED or live.deadline is None:
        return
    timeouts_set(
        [
            Timeout.due_at(
                "showdown.round",
                table_id=table_id,
                ref_id=live.pk,
                step=live.phase,
                at=live.deadline,
            )
        ]
    )


def _lobby_tell(table_id: int) -> None:
    """Lobby pages hear, after commit, the table's seats taken and those of players who can
    play (`showdown.selectors.live_seats_playing`), read now: a seat taken or freed, a player
    whose last socket closed or who is back, a round settled with an away player's wagers."""
    taken, playing = live_seats_counts(table_id=table_id)
    transaction.on_commit(
        lambda: send_lobby(
            table_id=table_id, seats_taken=taken, seats_playing=playing, kind="showdown"
        )
    )


def _away_timer(seat: LiveSeat, at: datetime) -> None:
    """After commit, a timeout when the away seat's time is up: the table's owner stands it
    up then if it is still away since (`live_seat_away_stand` checks again)."""
    timeouts_set(
        [Timeout.due_at("showdown.away", table_id=seat.table_id, ref_id=seat.pk, step=0, at=at)]
    )


def frames_publish(table_id: int, version: int, public: str, private: dict[int, str]) -> None:
    """One change's frames kept in the frame log and sent: each player's own part to their
    group, the public frame to the table's (poker.broadcast.frames_send)."""
    frames_send(
        version=version,
        public=(group_name(table_id), group_name(table_id), public),
        private=[
            (user_group_name(table_id, user_id), user_group_name(table_id, user_id), text)
            for user_id, text in private.items()
        ],
    )


# -- seats


def live_seat_take(*, player, table_id: int, seat: int, now: datetime | None = None) -> LiveSeat:
    """Sit at a free seat of an open live table (one seat per player and table)."""
    player = services._check_player(player)
    now = now or timezone.now()
    with transaction.atomic():
        table = _lock_table(table_id)
        taken = LiveSeat.objects.filter(table=table, player=player).first()
        if taken is not None:
            if taken.number == seat:
                return taken
            raise ShowdownRefused(
                "already_seated",
                _("You already sit in seat %(number)s.") % {"number": taken.number},
            )
        if not table.is_open:
            raise ShowdownRefused("table_closed", _("%(name)s is closed.") % {"name": table.name})
        if isinstance(seat, bool) or not isinstance(seat, int) or not 1 <= seat <= table.seats:
            raise ShowdownRefused(
                "no_such_seat", _("Pick a seat from 1 to %(seats)s.") % {"seats": table.seats}
            )
        if LiveSeat.objects.filter(table=table, number=seat).exists():
            raise ShowdownRefused("seat_taken", _("Seat %(seat)s is taken.") % {"seat": seat})
        responsible.check_play(player=player, error=ShowdownRefused, now=now)
        live = _open_round(table)
        if live is not None and any(wager["seat"] == seat for wager in live.state["wagers"]):
            raise ShowdownRefused(
                "seat_in_play",
                _("Seat %(seat)s still has wagers in this round; try after it.") % {"seat": seat},
            )
        # Away until a socket of the player's says it is open (the socket that sat them does
        # so at once, showdown.consumers): a seat taken without one stands up at the limit.
        placed = LiveSeat.objects.create(
            table=table, number=seat, player=player, sat_at=now, away_since=now
        )
        responsible.play_session_touch(player_ids=[player.pk], now=now)
        _away_timer(placed, now + timedelta(seconds=table.away_limit_seconds))
        _changed(table, None, lobby=True)
        return placed


def live_seat_leave(*, player, table_id: int) -> None:
    """Stand up; refused while the player's wagers are in the round being played."""
    player = services._check_player(player)
    with transaction.atomic():
        table = _lock_table(table_id)
        seat = LiveSeat.objects.filter(table=table, player=player).first()
        if seat is None:
            raise ShowdownRefused("not_seated", _("You do not sit at this table."))
        live = _open_round(table)
        if live is not None and live.seat_rounds.filter(player=player).exists():
            raise ShowdownRefused(
                "round_in_play",
                _("Your wagers are in this round; you can leave once it settles."),
            )
        seat.delete()
        _changed(table, None, users=(player.pk,), lobby=True)


def live_seats_leave_after_round(*, player) -> list[int]:
    """Take the player out of every live table: at once where no wagers of theirs are in
    play, else when that round settles (a self-exclusion: the round is theirs to finish, and
    its timer folds them if they do not decide). The tables left, in id order."""
    player = services._check_player(player)
    tables = []
    for table_id in (
        LiveSeat.objects.filter(player=player)
        .order_by("table_id")
        .values_list("table_id", flat=True)
    ):
        with transaction.atomic():
            table = _lock_table(table_id)
            seat = LiveSeat.objects.filter(table=table, player=player).first()
            if seat is None:
                continue
            live = _open_round(table)
            if live is not None and live.seat_rounds.filter(player=player).exists():
                seat.leave_pending = True
                seat.save(update_fields=["leave_pending"])
            else:
                seat.delete()
            _changed(table, None, users=(player.pk,), lobby=True)
        tables.append(table_id)
    return tables


# -- away seats (docs/rules.md "Omaha Showdown live": who the lobby counts, who stands up)


def live_connection_set(*, player, table_id: int, connected: bool, socket: str = "") -> None:
    """A player's socket at the table opened or closed (showdown.consumers): a seat with none
    open is away from now, counted apart in the lobby and stood up at the table's
    `away_limit_seconds` (`live_seat_away_stand`). `socket` names the socket: a reloaded
    page's old socket closing after the new one opened must not mark the player away."""
    if not LiveSeat.objects.filter(table_id=table_id, player=player).exists():
        return  # a watcher, or not seated yet: nothing to lock the table for
    now = timezone.now()
    with transaction.atomic():
        table = _lock_table(table_id)
        seat = LiveSeat.objects.filter(table=table, player=player).first()
        if seat is None:
            return
        if not connected and socket and seat.socket not in ("", socket):
            return  # an older socket going away: a newer one is open
        seat.socket = socket if connected else ""
        if seat.connected == connected:
            seat.save(update_fields=["socket"])
            return
        seat.connected = connected
        seat.away_since = None if connected else now
        seat.save(update_fields=["connected", "away_since", "socket"])
        if not connected:
            _away_timer(seat, now + timedelta(seconds=table.away_limit_seconds))
        _lobby_tell(table.pk)


def live_seat_away_stand(*, table_id: int, seat_id: int, now: datetime | None = None) -> str:
    """Stand up a seat away past the table's limit (no socket open, no wager placed since:
    `away_since`), at the table's owner, from its timer or the sweep. Its player's wagers in
    the round being played stay there and settle as usual (the deadline folds them if they
    do not decide); the seat then stands up when that round settles, as a self-excluded
    player's does. A seat holds no money: nothing moves in the ledger. "stood_up" (or
    "after_round"), "not_yet" (its timer set again for the time), "moved_on" or "gone"."""
    now = now or timezone.now()
    with transaction.atomic():
        try:
            table = _lock_table(table_id)
        except ShowdownRefused:
            return "gone"  # no longer a live table
        seat = LiveSeat.objects.filter(pk=seat_id, table=table).select_related("player").first()
        if seat is None:
            return "gone"
        if seat.connected or seat.away_since is None or seat.leave_pending:
            return "moved_on"
        due = seat.away_since + timedelta(seconds=table.away_limit_seconds)
        if now < due:  # a wager restarted the clock, or staff lengthened the limit
            _away_timer(seat, due)
            return "not_yet"
        live = _open_round(table)
        after_round = live is not None and live.seat_rounds.filter(player=seat.player).exists()
        if after_round:
            seat.leave_pending = True
            seat.save(update_fields=["leave_pending"])
        else:
            seat.delete()
        audit_record(
            action="showdown.live_seat_away",
            subject=Subject("showdown.table", table.pk, table.name),
            payload={
                "player_id": seat.player_id,
                "seat": seat.number,
                "away_since": seat.away_since.isoformat(),
                "after_round": after_round,
            },
            now=now,
        )
        _changed(table, None, users=(seat.player_id,), lobby=not after_round)
        return "after_round" if after_round else "stood_up"


def live_seats_away_sweep(
    *, now: datetime | None = None, at_owner: Callable[[int, int], bool] | None = None
) -> dict[str, int]:
    """The backstop of the away timers: every seat away past its table's limit stood up
    (`live_seat_away_stand`, which checks again). `at_owner(table_id, seat_id)` sends it to
    the table's live owner instead, when one other than this process holds it (True: sent,
    not counted)."""
    now = now or timezone.now()
    counts = {"stood_up": 0}
    due = LiveSeat.objects.filter(
        connected=False,
        leave_pending=False,
        away_since__isnull=False,
        table__seats__gt=1,
    ).values_list("table_id", "pk", "away_since", "table__away_limit_seconds")
    for table_id, seat_id, away_since, limit in list(due):
        if away_since is None or away_since + timedelta(seconds=limit) > now:
            continue
        if at_owner is not None and at_owner(table_id, seat_id):
            continue
        try:
            done = live_seat_away_stand(table_id=table_id, seat_id=seat_id, now=now)
        except Exception:
            log.exception("live showdown seat %s could not stand up", seat_id)
            continue
        if done in ("stood_up", "after_round"):
            counts["stood_up"] += 1
    return counts


# -- wagers


def live_wagers_place(
    *,
    player,
    table_id: int,
    ante: int,
    hole_card_bonus: int = 0,
    final_hand_bonus: int = 0,
    idempotency_key: str,
    now: datetime | None = None,
) -> ShowdownRound:
    """Place a seated player's Ante and side bets for the round in its betting window (the
    first wager opens one). Wallet -> bets in play. The same key replays, moving nothing."""
    player = services._check_player(player)
    key = parse_idempotency_key(idempotency_key, error=ShowdownRefused)
    ante = parse_cents(ante, field="ante", error=ShowdownRefused)
    hole_card_bonus = services._side_bet(hole_card_bonus, field="hole card bonus")
    final_hand_bonus = services._side_bet(final_hand_bonus, field="final hand bonus")
    now = now or timezone.now()
    _advance_if_overdue(table_id, now)
    with transaction.atomic():
        table = _lock_table(table_id)
        earlier = services._replayed_deal(
            player,
            key,
            table=table,
            ante=ante,
            hole_card_bonus=hole_card_bonus,
            final_hand_bonus=final_hand_bonus,
        )
        if earlier is not None:
            return earlier
        seat = LiveSeat.objects.filter(table=table, player=player).first()
        if seat is None:
            raise ShowdownRefused("not_seated", _("Take a seat before placing wagers."))
        if not table.is_open:
            raise ShowdownRefused("table_closed", _("%(name)s is closed.") % {"name": table.name})
        responsible.check_play(player=player, error=ShowdownRefused, now=now)
        live = _open_round(table)
        # The window closed since the round moved on above: its timer deals it any moment.
        closed = live is not None and live.phase == Phase.BETTING and live.bet_deadline <= now
        if live is not None and (live.phase != Phase.BETTING or closed):
            raise ShowdownRefused(
                "round_dealt", _("The cards are out; place your wagers for the next round.")
            )
        try:
            if live is None:
                game = EngineRound.open(limits=table.limits(), paytables=table.paytables())
            else:
                game = _engine(live)
            game.place(
                seat.number,
                ante=ante,
                hole_card_bonus=hole_card_bonus,
                final_hand_bonus=final_hand_bonus,
            )
        except ShowdownError as error:
            raise _refused(error) from error
        except PaytableError as error:
            raise ShowdownRefused("bad_paytable", str(error)) from error
        if live is None:
            live = LiveRound(
                table=table,
                bet_deadline=now + timedelta(seconds=table.bet_seconds),
                created_at=now,
            )
        _store(live, game)
        live.save()
        staked = ante + hole_card_bonus + final_hand_bonus
        try:
            with transaction.atomic():
                mine = ShowdownRound.objects.create(
                    player=player,
                    table=table,
                    live_round=live,
                    live_seat=seat.number,
                    state={"holes": {}, "board": []},
                    deck=[],
                    ante=ante,
                    hole_card_bonus=hole_card_bonus,
                    final_hand_bonus=final_hand_bonus,
                    staked=staked,
                    deal_key=key,
                    created_at=now,
                )
        except IntegrityError:
            raise ShowdownRefused(
                "round_unfinished", _("Your last round here is still unfinished.")
            ) from None
        mine.wager_entry = banked_wager_place(
            player=player, round_id=mine.pk, amount=staked, now=now
        )
        mine.save(update_fields=["wager_entry"])
        away = not seat.connected
        if away:  # a wager is the player's presence: the away clock starts again
            seat.away_since = now
            seat.save(update_fields=["away_since"])
        seated = set(LiveSeat.objects.filter(table=table).values_list("number", flat=True))
        if seated <= set(game.seats):
            _deal(live, game, table, now)  # everyone seated is in: no need to wait
        # A wager is play (a session limit's clock): the transaction's last write, after the
        # deal's client seeds, in the order a poker deal takes them (no lock cycle).
        responsible.play_session_touch(player_ids=[player.pk], now=now)
        _changed(table, live, lobby=away)
        return mine


def _deal(live: LiveRound, game: EngineRound, table: ShowdownTable, now: datetime) -> None:
    shares = list(live.seat_rounds.select_related("player"))
    deal = services.deal_shuffle({mine.live_seat: mine.player for mine in shares})
    game.deal(deal.deck)
    fairness.deal_commit(kind=fairness.Kind.LIVE, ref_id=live.pk, deal=deal, now=now)
    _store(live, game)
    live.phase = Phase.DECIDING
    live.dealt_at = now
    live.action_deadline = now + timedelta(seconds=table.action_seconds)
    live.save()
    for mine in live.seat_rounds.all():
        mine.state = {"holes": {"1": list(game.seats[_live_seat(mine)].hole)}, "board": []}
        mine.save(update_fields=["state"])


# -- decisions


def live_decide(
    *,
    player,
    table_id: int,
    decision: str,
    idempotency_key: str,
    now: datetime | None = None,
) -> ShowdownRound:
    """Fold, Call (Bet = Ante) or Raise (Bet = 2 x Ante) in the decision window; the Bet goes
    in play at once. The last seat to decide deals the board and settles everyone. The same
    key replays the decision and moves nothing."""
    player = services._check_player(player)
    key = parse_idempotency_key(idempotency_key, error=ShowdownRefused)
    if decision not in ShowdownRound.Decision.values:
        raise ShowdownRefused(
            "bad_decision",
            _("Decide fold, call or raise, not %(decision)s.") % {"decision": repr(decision)},
        )
    now = now or timezone.now()
    overdue = _advance_if_overdue(table_id, now)
    with transaction.atomic():
        table = _lock_table(table_id)
        replay = ShowdownRound.objects.filter(
            player=player, table=table, decide_key=key, live_round__isnull=False
        ).first()
        if replay is not None:
            if replay.decision != decision:
                raise ShowdownRefused(
                    "idempotency_conflict",
                    _("This idempotency key was already used for a different decision."),
                )
            return replay
        if (
            overdue is not None
            and overdue.phase == Phase.DECIDING
            and overdue.seat_rounds.filter(
                player=player, decide_key=f"timeout-{overdue.pk}"
            ).exists()
        ):
            raise _decision_late()  # folded just now, as at the deadline
        live = _open_round(table)
        mine = live.seat_rounds.filter(player=player).first() if live is not None else None
        if live is None or mine is None:
            raise ShowdownRefused("no_round", _("You have no wagers in the round being played."))
        if live.phase == Phase.BETTING:
            raise ShowdownRefused("not_dealt", _("Decisions come after the deal."))
        if mine.decision:
            raise ShowdownRefused("already_decided", _("You have already decided this round."))
        if live.action_deadline is None or live.action_deadline <= now:
            raise _decision_late()  # passed since the round moved on above: its timer folds
        game = _engine(live)
        _decide_seat(live, game, mine, decision, key=key, now=now)
        lobby = False
        if game.phase == "settled":
            lobby = _settle(live, game, now)
        else:
            live.save()
        mine.refresh_from_db()
        _changed(table, live, lobby=lobby)
        return mine


def _live_seat(mine: ShowdownRound) -> int:
    """The seat of a live table's wager row (a round played online has none)."""
    if mine.live_seat is None:
        raise ValueError(f"showdown round {mine.pk} is not a live table's")
    return mine.live_seat


def _decide_seat(
    live: LiveRound, game: EngineRound, mine: ShowdownRound, decision: str, *, key: str, now
) -> None:
    bet = mine.ante * {"fold": 0, "call": 1, "raise": 2}[decision]
    try:
        game.decide(_live_seat(mine), decision)
    except ShowdownError as error:
        raise _refused(error) from error
    if bet:
        mine.bet_entry = banked_wager_place(
            player=mine.player, round_id=mine.pk, amount=bet, now=now
        )
    mine.decision = decision
    mine.decide_key = key
    mine.bet = bet
    mine.staked = mine.ante + bet + mine.hole_card_bonus + mine.final_hand_bonus
    mine.save(update_fields=["bet_entry", "decision", "decide_key", "bet", "staked"])
    _store(live, game)


SETTLED_FIELDS = [
    "result_entry",
    "state",
    "result",
    "status",
    "staked",
    "net",
    "payout_capped",
    "settled_at",
]


def _settle(live: LiveRound, game: EngineRound, now: datetime) -> bool:
    """One board settles every seat in one ledger entry (each wallet its own leg, the house's
    accounts the seats' totals); each player's share names that entry as its result. True
    when the lobby's figures of the table moved: a seat stood up as it settled, or an away
    player's wagers were in it (they counted as playing until now)."""
    assert game.result is not None
    by_seat = {seat["seat"]: seat for seat in game.result["seats"]}
    shares = list(live.seat_rounds.select_related("player").order_by("live_seat"))
    entry = banked_rounds_settle(
        settlements=[
            (
                mine.player,
                mine.pk,
                by_seat[mine.live_seat]["staked"],
                by_seat[mine.live_seat]["net"],
            )
            for mine in shares
        ],
        memo=f"showdown live round {live.pk}",
        now=now,
    )
    for mine in shares:
        seat = by_seat[mine.live_seat]
        mine.result_entry = entry
        mine.state = {"holes": {"1": seat["hole"]}, "board": game.result["board"]}
        mine.result = {
            "board": game.result["board"],
            "seats": [seat],
            "payout_cap": game.result["payout_cap"],
            "house_net": -seat["net"],
        }
        mine.status = Status.SETTLED
        mine.staked = seat["staked"]
        mine.net = seat["net"]
        mine.payout_capped = game.result["payout_cap"]["applied"]
        mine.settled_at = now
    ShowdownRound.objects.bulk_update(shares, SETTLED_FIELDS)  # one UPDATE for every seat
    _store(live, game)
    live.phase = Phase.SETTLED
    live.settled_at = now
    live.save()
    fairness.deal_reveal_stamp(kind=fairness.Kind.LIVE, ref_id=live.pk, now=now)
    stood_up, _ = LiveSeat.objects.filter(table_id=live.table_id, leave_pending=True).delete()
    away = LiveSeat.objects.filter(
        table_id=live.table_id, connected=False, player__in=[mine.player_id for mine in shares]
    )
    return bool(stood_up) or away.exists()


# -- timers


def live_round_advance(*, round_id: int, phase: str, now: datetime | None = None) -> str:
    """The timer: deal when the betting window has closed, fold the undecided and settle when
    the decision deadline has passed. "" when there is nothing to do (the round moved on, or
    its deadline is still ahead); else "dealt" or "settled"."""
    now = now or timezone.now()
    # A round's phase only moves forward: a timer whose phase has passed (everyone decided in
    # time) can tell with one read, before any transaction or lock.
    table_id = (
        LiveRound.objects.filter(pk=round_id, phase=phase).values_list("table_id", flat=True)
    ).first()
    if table_id is None:
        return ""
    with transaction.atomic():
        table = _lock_table(table_id)
        live = LiveRound.objects.filter(pk=round_id, phase=phase).first()
        if live is None or live.deadline is None or live.deadline > now:
            return ""
        game = _engine(live)
        lobby = False
        if phase == Phase.BETTING:
            _deal(live, game, table, now)
            done = "dealt"
        else:
            for mine in live.seat_rounds.filter(decision="").select_related("player"):
                _decide_seat(live, game, mine, "fold", key=f"timeout-{live.pk}", now=now)
            lobby = _settle(live, game, now)
            done = "settled"
        _changed(table, live, lobby=lobby)
        return done


def live_round_in_phase(*, round_id: int, phase: str) -> bool:
    """Is the round still in `phase`? One read, no lock: a round's phase only moves forward,
    so a timer set for a phase that has passed can tell it has nothing to do."""
    return LiveRound.objects.filter(pk=round_id, phase=phase).exists()


def live_rounds_sweep(
    *, now: datetime | None = None, at_owner: Callable[[int, int, str], bool] | None = None
) -> dict[str, int]:
    """The backstop: every live round past its deadline advanced (a lost timer costs at most
    the sweep's period). Each round in its own transaction; counts per outcome of the rounds
    advanced here. `at_owner(table_id, round_id, phase)` sends a round to its table's live
    owner instead, when one other than this process holds it (True: sent, not counted)."""
    now = now or timezone.now()
    counts = {"dealt": 0, "settled": 0}
    due = LiveRound.objects.filter(
        Q(phase=Phase.BETTING, bet_deadline__lte=now)
        | Q(phase=Phase.DECIDING, action_deadline__lte=now)
    ).values_list("pk", "phase", "table_id")
    for round_id, phase, table_id in list(due):
        if at_owner is not None and at_owner(table_id, round_id, phase):
            continue
        try:
            done = live_round_advance(round_id=round_id, phase=phase, now=now)
        except ShowdownRefused:
            log.exception("live showdown round %s could not advance", round_id)
            continue
        if done:
            counts[done] += 1
    return counts
