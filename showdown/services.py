"""The banked game's services (RULES.md 9, online: one player against the house).

Each is one transaction: lock, check, call the engine, post to the cashier, write the round;
an online deal and decision are a read and one writing statement, which is the
transaction (`_deal`, `round_decide`).
Refusals raise `ShowdownRefused(code, message)` (or the cashier's `CashierError`, both kinds
of `config.errors.Refused`) and change nothing. Money moves only through
`cashier.services.banked_*`: the wagers placed at the deal and the Call/Raise bet at the
decision go from the wallet to `banked_bets_in_play`; the settlement moves them out again, to
the wallet and from or to `house_bankroll`; a void moves them to `charity`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, connection, transaction
from django.db.models import JSONField
from django.utils import timezone
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from cashier.posting import EntryId, Guard, Link, Row
from cashier.services import (
    CashierError,
    banked_decision_settle,
    banked_round_void,
    banked_wager_place,
)
from config.errors import Refused
from config.inputs import parse_cents, parse_idempotency_key
from fairness import services as fairness
from poker.engine.dealer import shuffle_deck
from poker.engine.showdown import ShowdownError, ShowdownLimits
from poker.engine.showdown import ShowdownRound as EngineRound
from poker.engine.showdown_math import report
from poker.engine.showdown_paytables import Paytable as EnginePaytable
from poker.engine.showdown_paytables import PaytableError, ShowdownPaytables
from responsible import rules as responsible
from showdown.models import Paytable, ShowdownRound, ShowdownTable

# RULES.md 6: a bet still unresolved after 90 days is voided and goes to charity.
VOID_AFTER = timedelta(days=90)
SEAT = 1  # online, the player is the table's one seat

Status = ShowdownRound.Status


def deck_shuffle(randbelow: Callable[[int], int]) -> list[str]:
    """The engine's Fisher-Yates over `randbelow`: the seeded stream of `deal_shuffle`; tests
    replace this function to deal known cards."""
    return shuffle_deck(randbelow)


def deal_shuffle(players: dict, client_seeds: dict | None = None) -> fairness.Deal:
    """A provably fair deck for these seats (seat -> player): the server's CSPRNG seed mixed
    with each player's client seed (`client_seeds`: those already read), committed before any
    card is shown (docs/fairness.md)."""
    return fairness.deal_draw(
        players=players,
        shuffle=lambda randbelow: deck_shuffle(randbelow),
        client_seeds=client_seeds,
    )


class ShowdownRefused(Refused):
    """A refused request at a banked table: `code` for programs, `message` for people."""


# -- paytables


def paytable_measure(*, paytable: Paytable) -> Paytable:
    """Check a paytable by the engine's rules (top awards 25, 100 and 200 to 1) and store it
    with its exact house edge and hit rate; refused with `bad_paytable`, nothing saved."""
    try:
        engine = paytable.engine()
    except PaytableError as error:
        raise ShowdownRefused("bad_paytable", str(error)) from error
    figures = report([engine])["paytables"][0]
    paytable.pays = dict(engine.pays)
    paytable.edge = figures["edge"]
    paytable.edge_pct = figures["edge_pct"]
    paytable.hit_rate_pct = figures["hit_rate_pct"]
    paytable.updated_at = timezone.now()
    paytable.save()
    return paytable


# -- rounds


def _check_player(player):
    if not isinstance(player, get_user_model()) or player.pk is None:
        raise ShowdownRefused("unknown_player", _("No such player."))
    return player


def _side_bet(value, *, field: str) -> int:
    """0 (not placed) or whole cents; the table's limits are the engine's to check."""
    return parse_cents(value, field=field, minimum=0, error=ShowdownRefused)


# The engine (no Django) explains its refusals in English; other languages get the code's
# message here, at the edge (English keeps the engine's own, more precise wording).
ENGINE_MESSAGES = {
    "outside_limits": gettext_lazy("A wager is outside this table's limits."),
    "bad_amount": gettext_lazy("A wager must be a whole number of cents."),
    "already_placed": gettext_lazy("This seat has already placed its wagers."),
    "already_decided": gettext_lazy("You have already decided this round."),
    "no_such_seat": gettext_lazy("This seat has no wagers in this round."),
    "no_wagers": gettext_lazy("Nobody has placed an Ante."),
    "not_dealt": gettext_lazy("Decisions come after the deal."),
    "wrong_phase": gettext_lazy("The cards have already been dealt."),
    "settled": gettext_lazy("This round is already settled."),
}


def engine_refusal(error: ShowdownError) -> ShowdownRefused:
    """The engine's refusal for a player: in English its own reason, else by its code."""
    message = ENGINE_MESSAGES.get(error.code)
    if message is None or get_language() in (None, "en"):
        return ShowdownRefused(error.code, error.reason[:1].upper() + error.reason[1:] + ".")
    return ShowdownRefused(error.code, str(message))


_refused = engine_refusal


def _engine_round(round_: ShowdownRound) -> EngineRound:
    """The stored round rebuilt (and replay-checked) by the engine, deck included."""
    try:
        return EngineRound.from_dict({**round_.state, "deck": round_.deck})
    except ShowdownError as error:
        raise ShowdownRefused(
            "bad_state",
            _("Round %(round_id)s cannot be read back (%(reason)s); staff have it.")
            % {"round_id": round_.pk, "reason": error.reason},
        ) from error


def _stored_state(game: EngineRound) -> tuple[dict, list[str]]:
    state = game.to_dict()
    deck = state["deck"]
    state["deck"] = []
    return state, deck


def _same_deal(round_: ShowdownRound, *, table, ante, hole_card_bonus, final_hand_bonus) -> bool:
    return (round_.table_id, round_.ante, round_.hole_card_bonus, round_.final_hand_bonus) == (
        table.pk,
        ante,
        hole_card_bonus,
        final_hand_bonus,
    )


def _replayed_deal(player, key: str, **request) -> ShowdownRound | None:
    earlier = ShowdownRound.objects.filter(player=player, deal_key=key).first()
    if earlier is None:
        return None
    if not _same_deal(earlier, **request):
        raise ShowdownRefused(
            "idempotency_conflict", _("This idempotency key was already used for a different deal.")
        )
    return earlier


def round_deal(
    *,
    player,
    table: ShowdownTable,
    ante: int,
    hole_card_bonus: int = 0,
    final_hand_bonus: int = 0,
    idempotency_key: str,
    now: datetime | None = None,
) -> ShowdownRound:
    """Place the Ante and side bets (wallet -> bets in play) and deal four hole cards.

    A second call with the same key (a double-clicked Deal, a resubmitted form) returns the
    first round and moves nothing; a player has at most one unfinished round per table.
    """
    player = _check_player(player)
    key = parse_idempotency_key(idempotency_key, error=ShowdownRefused)
    ante = parse_cents(ante, field="ante", error=ShowdownRefused)
    hole_card_bonus = _side_bet(hole_card_bonus, field="hole card bonus")
    final_hand_bonus = _side_bet(final_hand_bonus, field="final hand bonus")
    if not isinstance(table, ShowdownTable) or table.pk is None:
        raise ShowdownRefused("unknown_table", _("No such table."))
    request = {
        "table": table,
        "ante": ante,
        "hole_card_bonus": hole_card_bonus,
        "final_hand_bonus": final_hand_bonus,
    }
    now = now or timezone.now()
    try:
        return _deal(player=player, table=table, key=key, now=now, **_wagers(request))
    except Refused:
        # A repeat of a deal made before the table closed or the player was excluded still
        # answers with that round (the rarest path pays the look-up, not every deal).
        earlier = _replayed_deal(player, key, **request)
        if earlier is not None:
            return earlier
        raise
    except IntegrityError:
        # The same key (a twin request, or a repeated Deal) replays the first round; another
        # key meets the one-unfinished-round-per-table rule (a partial unique index). Both are
        # found by the insert itself, so the usual deal needs no look-up first.
        earlier = _replayed_deal(player, key, **request)
        if earlier is not None:
            return earlier
        if not ShowdownRound.objects.filter(
            player=player, table=table, status=Status.DEALT, live_round__isnull=True
        ).exists():
            raise
        raise ShowdownRefused(
            "round_unfinished", _("Your last round here is still waiting for your decision.")
        ) from None


def _wagers(request: dict) -> dict:
    return {name: request[name] for name in ("ante", "hole_card_bonus", "final_hand_bonus")}


# The deal's one read: the table's limits and paytables, the player's checks
# (responsible.rules) and client seed (fairness), as the columns of one SELECT.
_LIMITS = (
    "seats",
    "ante_min",
    "ante_max",
    "hole_card_bonus_min",
    "hole_card_bonus_max",
    "final_hand_bonus_min",
    "final_hand_bonus_max",
    "max_aggregate_payout",
)
_PAYTABLES = ("bet", "hole_card_bonus", "final_hand_bonus")


@functools.cache
def _deal_read_sql() -> str:
    """The read; it also draws the ids of the round and its deck's commitment, which the
    deal's one writing statement inserts."""
    tables, paytables = ShowdownTable._meta.db_table, Paytable._meta.db_table
    new_ids = (
        f"nextval(pg_get_serial_sequence('{ShowdownRound._meta.db_table}', 'id')), "
        f"{fairness.commitment_id_sql()}"
    )
    pays = ", ".join(f"p{n}.kind, p{n}.name, p{n}.pays" for n in range(len(_PAYTABLES)))
    joins = " ".join(
        f"JOIN {paytables} p{n} ON p{n}.id = t.{wager}_paytable_id"
        for n, wager in enumerate(_PAYTABLES)
    )
    return (
        f"SELECT t.name, t.is_open, {', '.join(f't.{name}' for name in _LIMITS)}, {pays}, "
        f"{responsible.play_check_sql()}, {responsible.session_limited_sql()}, "
        f"{fairness.client_seed_sql()}, {new_ids} "
        f"FROM {tables} t {joins} WHERE t.id = %(table)s"
    )


# The engine's paytables by their stored text: built and checked once per process and content
# (an edited paytable is other text, so it is built afresh).
_paytables_built: dict[tuple, ShowdownPaytables] = {}


def _paytables(stored: Sequence) -> ShowdownPaytables:
    """The engine's three paytables from (kind, name, pays as JSON text) each."""
    key = tuple(stored)
    if key not in _paytables_built:
        if len(_paytables_built) > 100:
            _paytables_built.clear()
        tables = [
            EnginePaytable(
                kind=kind, name=name, pays=json.loads(pays) if isinstance(pays, str) else pays
            )
            for kind, name, pays in zip(stored[::3], stored[1::3], stored[2::3], strict=True)
        ]
        _paytables_built[key] = ShowdownPaytables(**dict(zip(_PAYTABLES, tables, strict=True)))
    return _paytables_built[key]


def _deal(
    *, player, table, key: str, now, ante: int, hole_card_bonus: int, final_hand_bonus: int
) -> ShowdownRound:
    """The deal: one read (the table, the player's checks, the client seed, the new ids), the
    engine, then the round inserted, the wagers posted and the deck committed.

    The writes are one statement, which is its own transaction: the deal sends no BEGIN and no
    COMMIT. The read locks nothing, so it sees what it would have seen as the transaction's
    first statement (READ COMMITTED); what the money depends on (the wallet's balance, one
    round per key and one unfinished round per table) is checked by the writing statement
    itself, under its locks and unique indexes. Inside a caller's transaction the read and the
    statement run in a savepoint, so a refusal leaves it usable."""
    alone = transaction.get_autocommit()
    with nullcontext() if alone else transaction.atomic():
        with connection.cursor() as cursor:
            now_value = connection.ops.adapt_datetimefield_value(now)
            cursor.execute(
                _deal_read_sql(),
                {"table": table.pk, "player": player.pk, "now": now_value},
            )
            row = cursor.fetchone()
        if row is None:
            raise ShowdownRefused("unknown_table", _("No such table."))
        name, is_open, *rest = row
        limits = dict(zip(_LIMITS, rest, strict=False))
        stored_paytables = rest[len(_LIMITS) : len(_LIMITS) + 3 * len(_PAYTABLES)]
        is_active, exclusion_id, session_limited, client_seed, round_id, commitment_id = rest[
            len(_LIMITS) + 3 * len(_PAYTABLES) :
        ]
        if not is_open:
            raise ShowdownRefused("table_closed", _("%(name)s is closed.") % {"name": name})
        if limits["seats"] > 1:
            raise ShowdownRefused(
                "live_table",
                _("%(name)s is a live table: take a seat there and bet in rounds.")
                % {"name": name},
            )
        responsible.play_check_refuse(
            player=player, is_active=is_active, exclusion_id=exclusion_id, error=ShowdownRefused
        )
        try:
            game = EngineRound.open(
                limits=ShowdownLimits(**limits), paytables=_paytables(stored_paytables)
            )
            game.place(
                SEAT, ante=ante, hole_card_bonus=hole_card_bonus, final_hand_bonus=final_hand_bonus
            )
            deal = deal_shuffle({SEAT: player}, client_seeds={SEAT: client_seed})
            game.deal(deal.deck)
        except ShowdownError as error:
            raise _refused(error) from error
        except PaytableError as error:
            raise ShowdownRefused("bad_paytable", str(error)) from error
        state, deck = _stored_state(game)
        staked = ante + hole_card_bonus + final_hand_bonus
        round_ = ShowdownRound(
            id=round_id,
            player=player,
            table=table,
            state=state,
            deck=deck,
            ante=ante,
            hole_card_bonus=hole_card_bonus,
            final_hand_bonus=final_hand_bonus,
            staked=staked,
            deal_key=key,
            created_at=now,
        )
        # The round and the deck's commitment are rows of the wagers' statement.
        round_.wager_entry = banked_wager_place(
            player=player,
            round_id=round_id,
            amount=staked,
            now=now,
            link=[
                _round_row(round_),
                *fairness.deal_commit_rows(
                    kind=fairness.Kind.ROUND,
                    ref_id=round_id,
                    deal=deal,
                    commitment_id=commitment_id,
                    now=now,
                ),
            ],
        )
        round_._state.adding, round_._state.db = False, connection.alias
        # A banked round is play: a session limit's clock goes on. Only for a player with a
        # session limit, so that for the others a deal stays one read and one statement.
        if session_limited:
            responsible.play_session_touch(player_ids=[player.pk], now=now)
        return round_


def _round_row(round_: ShowdownRound) -> Row:
    """The new round as a row of the wagers' ledger statement, naming its wager entry (its
    empty fields left out: NULL)."""
    values = {
        field.name: value
        for field in ShowdownRound._meta.concrete_fields
        if (value := getattr(round_, field.attname)) is not None
    }
    values["wager_entry"] = EntryId(0)
    return Row(ShowdownRound, values)


# What a decision writes on the round besides its entries (in the settlement's statement).
_DECIDED_FIELDS = (
    "state",
    "deck",
    "status",
    "decision",
    "bet",
    "staked",
    "result",
    "net",
    "payout_capped",
    "decide_key",
    "settled_at",
)


def _read_sql(*, lock: bool) -> str:
    columns = ", ".join(field.column for field in ShowdownRound._meta.concrete_fields)
    return (
        f"SELECT {columns} FROM {ShowdownRound._meta.db_table} "
        "WHERE id = %s AND player_id = %s AND live_round_id IS NULL"
        + (" FOR UPDATE" if lock else "")
    )


_READ_SQL = {lock: _read_sql(lock=lock) for lock in (False, True)}


def _round_read(*, round_id: int, player, lock: bool) -> ShowdownRound | None:
    """The player's online round (its row locked with `lock`): one plain SELECT and the model
    built from its row (`Model.from_db`, the JSON columns decoded as the ORM would), as the
    ORM's query building cost more than the rest of the decision's Python."""
    with connection.cursor() as cursor:
        cursor.execute(_READ_SQL[lock], [round_id, player.pk])
        row = cursor.fetchone()
    if row is None:
        return None
    fields = ShowdownRound._meta.concrete_fields
    values = [
        json.loads(value) if isinstance(field, JSONField) and value is not None else value
        for field, value in zip(fields, row, strict=True)
    ]
    round_ = ShowdownRound.from_db(connection.alias, [f.attname for f in fields], values)
    round_.player = player
    return round_


def round_decide(
    *,
    player,
    round_id: int,
    decision: str,
    idempotency_key: str,
    now: datetime | None = None,
) -> ShowdownRound:
    """Fold, Call (Bet = Ante) or Raise (Bet = 2 x Ante): the Bet goes in play, the board is
    dealt and every wager settles in one ledger entry. Repeating it with the same key returns
    the settled round and moves nothing."""
    player = _check_player(player)
    key = parse_idempotency_key(idempotency_key, error=ShowdownRefused)
    if decision not in ShowdownRound.Decision.values:
        raise ShowdownRefused(
            "bad_decision",
            _("Decide fold, call or raise, not %(decision)s.") % {"decision": repr(decision)},
        )
    if isinstance(round_id, bool) or not isinstance(round_id, int):
        raise ShowdownRefused("unknown_round", _("You have no such round."))
    now = now or timezone.now()
    # Outside a caller's transaction the round is read without a lock and the one statement
    # that settles it posts only if the round is still dealt (its Guard), so the decision
    # sends no BEGIN and COMMIT; one that lost to another request (a twin decision, a void)
    # is read again and answered as the lock would have answered it.
    alone = transaction.get_autocommit()
    for _attempt in range(2):
        try:
            with nullcontext() if alone else transaction.atomic():
                return _decide(
                    player=player,
                    round_id=round_id,
                    decision=decision,
                    key=key,
                    now=now,
                    lock=not alone,
                )
        except CashierError as error:
            if error.code != "moved_on":
                raise
    raise ShowdownRefused("busy", _("This round is busy; try again."))


def _decide(*, player, round_id: int, decision: str, key: str, now, lock: bool) -> ShowdownRound:
    """One attempt: the round read (locked with `lock`), checked, decided by the engine, and
    the Bet, the settlement, the round's row and the deck's reveal written by one statement
    that posts only while the round is still dealt."""
    round_ = _round_read(round_id=round_id, player=player, lock=lock)
    if round_ is None:
        raise ShowdownRefused("unknown_round", _("You have no such round."))
    if round_.decide_key and round_.decide_key == key:
        if round_.decision != decision:
            raise ShowdownRefused(
                "idempotency_conflict",
                _("This idempotency key was already used for a different decision."),
            )
        return round_
    if round_.status == Status.SETTLED:
        raise ShowdownRefused("settled", _("This round is already settled."))
    if round_.status == Status.VOIDED:
        raise ShowdownRefused(
            "voided", _("This round was voided after 90 days; its wagers went to charity.")
        )
    game = _engine_round(round_)
    bet = round_.ante * {"fold": 0, "call": 1, "raise": 2}[decision]
    try:
        game.decide(SEAT, decision)
    except ShowdownError as error:
        raise _refused(error) from error
    assert game.result is not None
    seat = game.result["seats"][0]
    round_.state, round_.deck = _stored_state(game)
    round_.status = Status.SETTLED
    round_.decision = decision
    round_.bet = bet
    round_.staked = seat["staked"]
    round_.result = game.result
    round_.net = seat["net"]
    round_.payout_capped = game.result["payout_cap"]["applied"]
    round_.decide_key = key
    round_.settled_at = now
    # The Bet, the settlement, the round's row and the deck's reveal: one statement.
    written = {name: getattr(round_, name) for name in _DECIDED_FIELDS}
    written["result_entry"] = EntryId(1 if bet else 0)
    if bet:
        written["bet_entry"] = EntryId(0)
    round_.bet_entry, round_.result_entry = banked_decision_settle(
        player=player,
        round_id=round_.pk,
        bet=bet,
        staked=seat["staked"],
        net=seat["net"],
        now=now,
        link=[
            Link(ShowdownRound, round_.pk, written),
            fairness.deal_reveal_link(kind=fairness.Kind.ROUND, ref_id=round_.pk, now=now),
        ],
        guard=Guard(ShowdownRound, round_.pk, {"status": Status.DEALT}),
    )
    return round_


def round_void(*, round_id: int, now: datetime | None = None) -> ShowdownRound | None:
    """Void one round unresolved for 90 days: its wagers in play go to charity (RULES.md 6).
    None when it is no longer due (decided meanwhile, or already voided)."""
    now = now or timezone.now()
    with transaction.atomic():
        round_ = (
            ShowdownRound.objects.select_for_update()
            .filter(pk=round_id, status=Status.DEALT, created_at__lte=now - VOID_AFTER)
            .select_related("player")
            .first()
        )
        if round_ is None:
            return None
        round_.result_entry = banked_round_void(
            player=round_.player, round_id=round_.pk, amount=round_.staked, now=now
        )
        round_.status = Status.VOIDED
        round_.voided_at = now
        round_.save(update_fields=["result_entry", "status", "voided_at"])
        fairness.deal_reveal_stamp(kind=fairness.Kind.ROUND, ref_id=round_.pk, now=now)
        return round_


def rounds_void_stale(*, now: datetime | None = None) -> list[int]:
    """Void every round unresolved for 90 days, each in its own transaction (one that fails
    leaves the others voided); the ids voided."""
    now = now or timezone.now()
    due = ShowdownRound.objects.filter(
        status=Status.DEALT, created_at__lte=now - VOID_AFTER
    ).values_list("pk", flat=True)
    return [round_.pk for pk in list(due) if (round_ := round_void(round_id=pk, now=now))]


def voided_rounds_tell(*, player, now: datetime | None = None) -> list[ShowdownRound]:
    """The player's voided rounds they have not been told of, marked as told now (the page
    that calls this shows them)."""
    if not getattr(player, "is_authenticated", False):
        return []
    now = now or timezone.now()
    with transaction.atomic():
        untold = list(
            ShowdownRound.objects.select_for_update()
            .filter(player=player, status=Status.VOIDED, void_told_at__isnull=True)
            .select_related("table")
            .order_by("pk")
        )
        if untold:
            ShowdownRound.objects.filter(pk__in=[r.pk for r in untold]).update(void_told_at=now)
        return untold
