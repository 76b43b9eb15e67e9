"""Reads of the live tables: the personal STATE of docs/protocol.md, the lobby's table list and
a stored hand's readable history for staff.

Nothing here writes. `TableView` loads a table once and builds each recipient's STATE from it,
so a broadcast to ten players costs one load, not ten. None of it reads a hand's deck: hands
come from `Hand.objects` (which leaves the deck out) and the engine's hand from its snapshot,
which can show the hand but not deal from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypedDict

from django.db import connection
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from cashier.models import Account
from cashier.selectors import (
    buy_in_terms,
    table_stacks_and_wallets_of,
    table_stacks_and_wallets_query,
    wallet_balance,
)
from cashier.services import dollars
from fairness.published import table_seed_hash
from poker.engine.hand import Hand as EngineHand
from poker.engine.views import events_for, redact_event, view_for
from poker.frames import (
    BuyInRule,
    ChatLine,
    PlayerJson,
    SeatJson,
    TableJson,
    TableState,
    TournamentJson,
    WaitingJson,
    WaitingPlace,
    YouJson,
)
from poker.models import (
    ChatMessage,
    Hand,
    HandIncident,
    HandPlayer,
    Seat,
    Table,
    TableBar,
    WaitingEntry,
)


def player_json(player) -> PlayerJson:
    """How a player appears at a table: id and display name (never the username or email)."""
    profile = getattr(player, "profile", None) if _has_profile(player) else None
    name = profile.display_name if profile is not None else player.get_username()
    return {"id": player.pk, "display_name": name}


def _has_profile(player) -> bool:
    try:
        return player.profile is not None
    except Exception:  # RelatedObjectDoesNotExist: a user made outside sign-up
        return False


# A Sit & Go's clock and places for its table's STATE (`table.tournament`, docs/protocol.md):
# tournaments sit above poker, so their app hands the reader over (TournamentsConfig.ready).
_tournament_reader: Callable[[int], TournamentJson | None] | None = None


def tournament_reader_register(reader: Callable[[int], TournamentJson | None]) -> None:
    global _tournament_reader
    _tournament_reader = reader


def table_json(table: Table) -> TableJson:
    shown = _table_json(table)
    if table.is_tournament:
        until = table.break_until
        shown["break_until"] = until.isoformat() if until is not None else None
    return shown


def _table_json(table: Table) -> TableJson:
    return {
        "id": table.pk,
        "name": table.name,
        "game": table.game,
        "structure": table.structure,
        "stakes_label": table.stakes_label,
        "small_blind": table.small_blind_amount,
        "big_blind": table.big_blind_amount,
        "small_bet": table.small_bet,
        "big_bet": table.big_bet,
        "max_seats": table.max_seats,
        "min_buy_in": table.min_buy_in,
        "max_buy_in": table.max_buy_in,
        "action_seconds": table.action_seconds,
        "countdown_seconds": table.countdown_seconds,
        "time_bank_seconds": table.time_bank_seconds,
    }


def result_json(hand_row: Hand | None, names: dict[int, str]) -> dict[str, Any] | None:
    """The summary of an ended hand: what everyone may see (shown cards only)."""
    if hand_row is None:
        return None
    if hand_row.status == Hand.Status.CANCELLED:
        return {
            "hand_id": hand_row.pk,
            "number": hand_row.number,
            "cancelled": True,
            "reason": hand_row.cancel_reason,
            # Why, for programs and for the page to say in the player's language.
            "code": getattr(hand_row, "cancel_code", None) or "cancelled",
        }
    result = hand_row.result or {}
    players = {
        str(seat): names.get(user_id, f"player {user_id}")
        for seat, user_id in hand_row.player_ids().items()
    }
    return {
        "hand_id": hand_row.pk,
        "number": hand_row.number,
        "cancelled": False,
        "board": result.get("board", []),
        # Run twice: both boards (the first is `board`); absent for a board dealt once.
        **({"boards": result["boards"]} if result.get("runs") == 2 else {}),
        "pots": result.get("pots", []),
        "rake": result.get("rake", 0),
        "showdown": result.get("showdown", []),
        "seats": [
            {"seat": s["seat"], "net": s["net"], "final_stack": s["final_stack"]}
            for s in result.get("seats", [])
        ],
        "players": players,
    }


def table_seats(*, table_id: int) -> dict[int, Seat]:
    """The table's seats by number, with their players and profiles."""
    seats = Seat.objects.filter(table_id=table_id).select_related("player__profile")
    return {seat.number: seat for seat in seats}


class TableView:
    """One table loaded once: seats, stacks, the running hand and the last result."""

    def __init__(
        self,
        table: Table,
        *,
        hand_row: Hand | None = None,
        engine: EngineHand | None = None,
        last_result: bool = True,
        seats: dict[int, Seat] | None = None,
        hand_known: bool = False,
        money: tuple[dict[int, int], dict[int, int]] | None = None,
        next_seed_hash: str | None = None,
        reuse: TableView | None = None,
    ) -> None:
        """`last_result=False` skips reading the last ended hand (a change that is only
        betting does not send it; `self.last_result` is then None); `seats`, already read by
        the caller with their players' profiles, spare reading them again. What the caller
        knows spares the rest of the reads: `hand_known`, `hand_row` is the running hand
        (None: none runs); `money`, (the table's stacks, the seated players' wallets) as
        `table_stacks_and_wallets` reads them; `next_seed_hash`, the published seed's hash;
        `reuse`, a view of the same change built earlier (with its last result), after which
        the change moved no money, no waiting list, no ended hand and no seed (a deal's
        commitment frame, then the deal's)."""
        self.table = table
        self.seats = seats if seats is not None else table_seats(table_id=table.pk)
        if money is None and reuse is not None:
            money = reuse.stacks, reuse.wallets
        self.stacks: dict[int, int]
        self.wallets: dict[int, int]
        self.stacks, self.wallets = (
            (dict(money[0]), dict(money[1]))
            if money is not None
            else table_stacks_and_wallets(
                table=table, wallet_owner_ids=[seat.player_id for seat in self.seats.values()]
            )
        )
        # A hand that just finished in the caller's change is the table's last hand: no hand
        # runs (the table is locked) and it is the last result (two reads spared).
        just_finished = (
            hand_row if hand_row is not None and hand_row.status == Hand.Status.FINISHED else None
        )
        if just_finished is not None:
            hand_row = engine = None
        elif (hand_row is None or hand_row.status != Hand.Status.RUNNING) and not hand_known:
            hand_row = Hand.objects.filter(table=table, status=Hand.Status.RUNNING).first()
            engine = None
        self.hand_row = hand_row
        if hand_row is not None and engine is None:
            try:
                engine = EngineHand.from_dict(hand_row.state)
            except Exception:  # a broken hand shows as none until the sweep cancels it
                engine, self.hand_row = None, None
        self.engine = engine
        self.engine_stacks: dict[int, int] = {}
        if engine is not None:
            self.engine_stacks = dict(zip(engine.seats, engine.stacks, strict=True))
        # The waiting list in order, (player id, offer deadline or None); only for a change
        # that is not just betting (betting never moves the list) and for snapshots.
        self.waiting: list[tuple[int, Any]] | None = None
        # The published hash of the server seed the next hand will use (docs/fairness.md).
        self.next_seed_hash: str | None = None
        self.last_result: dict[str, Any] | None = None
        if last_result and reuse is not None and reuse.waiting is not None:
            Hand.prefetch_players([self.hand_row] if self.hand_row is not None else [])
            self.last_result, self.waiting = reuse.last_result, reuse.waiting
            self.next_seed_hash = reuse.next_seed_hash
        elif last_result:
            ended = just_finished if just_finished is not None else self._ended_read()
            Hand.prefetch_players([row for row in (self.hand_row, ended) if row is not None])
            self.last_result = result_json(ended, self._names(ended))
            self.waiting = self._waiting_read()
            self.next_seed_hash = next_seed_hash or table_seed_hash(table_id=table.pk)
        else:
            Hand.prefetch_players([self.hand_row] if self.hand_row is not None else [])

    def _ended_read(self) -> Hand | None:
        """The table's last ended hand (finished or cancelled), with its players and the code
        of its incident, in one read."""
        return (
            Hand.objects.with_players()
            .filter(table=self.table, status__in=[Hand.Status.FINISHED, Hand.Status.CANCELLED])
            .only("id", "number", "status", "cancel_reason", "result")
            .annotate(
                cancel_code=Subquery(
                    HandIncident.objects.filter(hand=OuterRef("pk")).values("code")[:1]
                )
            )
            .order_by("-id")
            .first()
        )

    def _names(self, ended: Hand | None) -> dict[int, str]:
        """The display names of the players of the last hand, seated or not."""
        if ended is None:
            return {}
        names = {
            seat.player_id: player_json(seat.player)["display_name"] for seat in self.seats.values()
        }
        missing = [u for u in ended.player_ids().values() if u not in names]
        if missing:
            from django.contrib.auth import get_user_model

            for user in get_user_model().objects.filter(pk__in=missing).select_related("profile"):
                names[user.pk] = player_json(user)["display_name"]
        return names

    @cached_property
    def table_json(self) -> TableJson:
        data = table_json(self.table)
        if self.table.is_tournament and _tournament_reader is not None:
            tournament = _tournament_reader(self.table.pk)
            if tournament is not None:
                data["tournament"] = tournament
        return data

    @cached_property
    def seats_json(self) -> list[SeatJson]:
        """Every seat as the STATE shows it (not built for a change that is only betting)."""
        return [self._seat_json(n) for n in range(1, self.table.max_seats + 1)]

    def _seat_json(self, number: int) -> SeatJson:
        seat = self.seats.get(number)
        if seat is None:
            return {
                "seat": number,
                "player": None,
                "stack": 0,
                "status": Seat.Status.EMPTY.value,
                "connected": False,
                "sat_out_at": None,
            }
        stack = self.engine_stacks.get(number)
        if (
            stack is None
            or self.hand_row is None
            or self.hand_row.player_ids().get(number) != seat.player_id
        ):
            stack = self.stacks.get(seat.player_id, 0)
        return {
            "seat": number,
            "player": player_json(seat.player),
            "stack": stack,
            "status": seat.status,
            "connected": seat.connected,
            # Since when a player sits out (ISO 8601), so the page can say it; None otherwise.
            "sat_out_at": seat.sat_out_at.isoformat()
            if seat.status == Seat.Status.SITTING_OUT and seat.sat_out_at
            else None,
        }

    def _waiting_read(self) -> list[tuple[int, Any]]:
        """The list in order: (player id, offer deadline or None)."""
        return list(
            WaitingEntry.objects.filter(table=self.table).values_list(
                "player_id", "offer_expires_at"
            )
        )

    @property
    def waiting_json(self) -> WaitingJson | None:
        """The list as everyone sees it: how many wait, how many of them hold a seat offer."""
        if self.waiting is None:
            return None
        return {
            "count": len(self.waiting),
            "offered": sum(1 for _, expires_at in self.waiting if expires_at is not None),
        }

    def waiting_of(self, user_id: int) -> WaitingPlace | None:
        """The player's own place in the list (1 = next) and the offer they hold, if any."""
        if self.waiting is None:
            if self.seat_of(user_id) is not None:
                return None  # a seated player is on no list of this table
            self.waiting = self._waiting_read()
        for position, (player_id, expires_at) in enumerate(self.waiting, start=1):
            if player_id == user_id:
                return {
                    "position": position,
                    "offer_expires_at": expires_at.isoformat() if expires_at else None,
                }
        return None

    def seat_of(self, user_id: int | None) -> Seat | None:
        if user_id is None:
            return None
        return next((s for s in self.seats.values() if s.player_id == user_id), None)

    def hand_json(self, seat_number: int | None) -> dict[str, Any] | None:
        if self.engine is None or self.hand_row is None:
            return None
        hand_row, table = self.hand_row, self.table
        in_hand = seat_number if seat_number in self.engine.seats else None
        view = view_for(self.engine, in_hand)
        countdown_at = None
        if hand_row.action_started_at is not None:
            countdown_at = hand_row.action_started_at.timestamp() + max(
                table.action_seconds - table.countdown_seconds, 0
            )
        # Run it twice: while the players still in are asked, who is asked and who answered
        # (never the answers; one no ends the asking at once). Absent at any other time.
        runs: dict[str, Any] = {}
        if self.engine.deciding_runs:
            runs["runs_asked"] = self.engine.run_it_twice_seats
            runs["runs_answered"] = sorted(self.engine.runs_agreed)  # only yeses ever wait
        return {
            "id": hand_row.pk,
            "number": hand_row.number,
            "turn": hand_row.turn,
            "deadline": hand_row.deadline.isoformat() if hand_row.deadline else None,
            "countdown_at": _iso(countdown_at),
            # From then until the deadline the player to act is on their time bank.
            "time_bank_from": hand_row.time_bank_from.isoformat()
            if hand_row.time_bank_from
            else None,
            **runs,
            **view,
        }

    def prefetch_wallets(self, user_ids) -> None:
        """The wallets of everyone a broadcast goes to: the seated ones were read with the
        stacks; the others (one who just left) in one query, not one each."""
        missing = [user_id for user_id in user_ids if user_id not in self.wallets]
        if not missing:
            return
        self.wallets.update(dict.fromkeys(missing, 0))
        self.wallets.update(
            Account.objects.filter(kind=Account.Kind.WALLET, owner_id__in=missing).values_list(
                "owner_id", "balance"
            )
        )

    def you_json(self, player) -> YouJson:
        seat = self.seat_of(player.pk)
        terms = None if seat else buy_in_terms(player=player, table=self.table)
        wallets = self.wallets
        last_seq = 0
        if self.hand_row is not None:
            last_seq = self.hand_row.last_seq_of(player.pk)
        return {
            "seat": seat.number if seat else None,
            "wallet": wallets[player.pk] if player.pk in wallets else wallet_balance(player=player),
            "buy_in_range": None if terms is None else [terms.low, terms.high],
            # Why ratholing moved the range, so the sit dialog can say it (docs/protocol.md).
            "buy_in_rule": None
            if terms is None or terms.rule is None
            else BuyInRule(
                rule=terms.rule,
                left_with=terms.left_with,
                until=None if terms.until is None else terms.until.isoformat(),
            ),
            "sitting_out": bool(seat and seat.status == Seat.Status.SITTING_OUT),
            "status": seat.status if seat else None,
            "posts_big_blind": bool(seat and seat.posts_big_blind_next),
            "last_seq": last_seq,
            "waiting": self.waiting_of(player.pk),
            "time_bank": seat.time_bank if seat else None,
            # The player's seat options (docs/protocol.md `seat_options`), null when not seated.
            "options": {
                "sit_out_next_big_blind": seat.sit_out_next_big_blind,
                "leave_after_hand": seat.leave_after_hand,
                "auto_top_up": seat.auto_top_up,
            }
            if seat
            else None,
        }

    def log_for(self, player) -> list[dict[str, Any]]:
        """The running hand's events so far as this viewer may see them (their own hole cards
        only if dealt in; never the burns): a page that reloads or reconnects writes its table
        log again from them (docs/protocol.md, "snapshot")."""
        if self.engine is None or self.hand_row is None:
            return []
        seat = self.seat_of(player.pk) if player is not None else None
        in_hand = seat.number if seat is not None and seat.number in self.engine.seats else None
        return [
            {**event, "hand_id": self.hand_row.pk} for event in events_for(self.engine, in_hand)
        ]

    def state_for(self, player, *, version: int | None = None) -> TableState:
        """STATE for a player (seated or watching), or the public one for `player=None`."""
        seat = self.seat_of(player.pk) if player is not None else None
        return {
            "version": self.table.version if version is None else version,
            "table": self.table_json,
            "seats": self.seats_json,
            "you": self.you_json(player) if player is not None else None,
            "hand": self.hand_json(seat.number if seat else None),
            "last_result": self.last_result,
            "waiting": self.waiting_json,
            "next_server_seed_hash": self.next_seed_hash,
        }


def _iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    from datetime import UTC, datetime

    return datetime.fromtimestamp(timestamp, tz=UTC).isoformat()


def table_state_for(*, table: Table, player) -> TableState:
    """The personal STATE of docs/protocol.md (a spectator when not seated)."""
    table = Table.objects.get(pk=table.pk)
    return TableView(table).state_for(player)


class TableSnapshot(TypedDict):
    """What a `snapshot` frame (poker.frames.SnapshotFrame) carries of the table."""

    state: TableState
    log: list[dict[str, Any]]
    chat: list[ChatLine]


def table_snapshot_for(*, table: Table, player) -> TableSnapshot:
    """The snapshot frame's parts: the personal STATE, the running hand's log so far and the
    table's recent chat."""
    view = TableView(Table.objects.get(pk=table.pk))
    return {
        "state": view.state_for(player),
        "log": view.log_for(player),
        "chat": chat_recent(table_id=table.pk),
    }


CHAT_RECENT = 50  # lines a page gets when it connects


def chat_message_json(message: ChatMessage) -> ChatLine:
    """A chat line as every page gets it: the writer's seat and display name, never more."""
    return {
        "id": message.pk,
        "seat": message.seat,
        "player": player_json(message.player),
        "text": message.text,
        "at": message.created_at.isoformat(),
    }


def chat_recent(*, table_id: int, limit: int = CHAT_RECENT) -> list[ChatLine]:
    """The table's last chat lines staff have not removed, oldest first."""
    rows = (
        ChatMessage.objects.filter(table_id=table_id, removed_at__isnull=True)
        .select_related("player__profile")
        .order_by("-created_at", "-id")[:limit]
    )
    return [chat_message_json(row) for row in reversed(rows)]


def table_versions_for_heartbeat() -> dict[int, int]:
    """{table id: version} of every table a socket may be open at: open ones, and closed cash
    tables still seating players (who may connect to leave). A closed Sit & Go's table has
    none: its sockets were closed with it (`table_closed`), its winner's seat holds no money."""
    tables = Table.objects.filter(
        Q(is_open=True) | Q(seats__isnull=False, is_tournament=False)
    ).distinct()
    return dict(tables.values_list("pk", "version"))


def tables_played_by(player) -> QuerySet[Table]:
    """The tables where the player was dealt at least one hand, most recently played first."""
    return (
        Table.objects.filter(hands__hand_players__player=player)
        .annotate(last_hand_id=Max("hands__id", filter=Q(hands__hand_players__player=player)))
        .order_by("-last_hand_id")
    )


def hands_of_player(player, *, table: Table | None = None) -> QuerySet[Hand]:
    """The hands the player was dealt into (at one table if given), newest first; never the
    deck (`Hand.objects`)."""
    hands = Hand.objects.filter(
        pk__in=HandPlayer.objects.filter(player=player).values("hand_id")
    ).order_by("-id")
    return hands if table is None else hands.filter(table=table)


def seats_playing(table_id=None):
    """The seats whose players can play the next hand (docs/rules.md, "The lobby"): not
    sitting out, and with chips at the table (or in the running hand). A player sitting out,
    or busted at $0 without topping up, holds a seat but plays no hand. `table_id` a table's
    id or an OuterRef to one."""
    chips = Account.objects.filter(
        kind=Account.Kind.TABLE_STACK, owner=OuterRef("player"), table=OuterRef("table")
    ).filter(Q(balance__gt=0) | Q(in_hand_id__isnull=False))
    return (
        Seat.objects.filter(table=table_id)
        .exclude(status=Seat.Status.SITTING_OUT)
        .filter(Exists(chips) | Q(chips__gt=0))
    )


def seats_playing_count(*, table_id: int) -> int:
    return seats_playing(table_id).count()


def tables_for_lobby() -> QuerySet[Table]:
    """Open tables (models, ordered by game for grouping) with their occupancy annotated
    (`Table.objects.with_occupancy()`) and `seats_playing`, the seats taken by players who
    can play (`seats_playing`)."""
    playing = (
        seats_playing(OuterRef("pk"))
        .order_by()
        .values("table")
        .annotate(count=Count("pk"))
        .values("count")
    )
    # Explicit order: Django drops Meta.ordering from queries with an aggregate.
    return (
        Table.objects.filter(is_open=True, is_tournament=False)
        .with_occupancy()
        .annotate(seats_playing=Coalesce(Subquery(playing), 0))
        .order_by("game", "structure", "big_blind", "small_bet", "name")
    )


NO_STATS = {"hands_per_hour": 0, "average_pot": None, "players_per_flop": None}


def table_stats(*, table_ids: list[int], now=None) -> dict[int, dict[str, int | None]]:
    """The lobby's figures per table, from its hands finished in the last hour: hands per
    hour, the average pot (cents) and players per flop (the percentage of players dealt in who
    saw the flop). Tables with no such hand are left out (`NO_STATS`)."""
    from datetime import timedelta

    from django.db.models import Sum
    from django.utils import timezone

    since = (now or timezone.now()) - timedelta(hours=1)
    rows = (
        Hand.objects.filter(
            table_id__in=table_ids,
            status=Hand.Status.FINISHED,
            ended_at__gte=since,
            pot_total__isnull=False,
        )
        .order_by()
        .values("table_id")
        .annotate(
            hands=Count("id"),
            pots=Sum("pot_total"),
            dealt=Sum("players_dealt"),
            at_flop=Sum("players_at_flop"),
        )
    )
    return {
        row["table_id"]: {
            "hands_per_hour": row["hands"],
            "average_pot": row["pots"] // row["hands"],
            "players_per_flop": round(100 * row["at_flop"] / row["dealt"]) if row["dealt"] else 0,
        }
        for row in rows
    }


def lobby_tables(*, player) -> list[Table]:
    """The lobby's rows as `player` (a visitor too) sees them: `tables_for_lobby` with
    `seats_out` (seats taken by players who cannot play: sitting out, or busted), `is_full`
    (no seat free that is not held for the waiting list), `is_mine` (they sit
    there), `waiting_place` (their place in its list, or None), `barred_until` (staff removed
    them: no seat there until then, or None) and `stats` (`table_stats`)."""
    signed_in = player is not None and player.is_authenticated
    mine = (
        set(Seat.objects.filter(player=player).values_list("table_id", flat=True))
        if signed_in
        else set()
    )
    places = waiting_places_of(player=player) if signed_in else {}
    barred = barred_until_of(player=player) if signed_in else {}
    tables = list(tables_for_lobby())
    stats = table_stats(table_ids=[table.pk for table in tables])
    for table in tables:
        # The row's own figures for the page, beside the ones the query annotated on it.
        row = vars(table)
        row["stats"] = stats.get(table.pk, NO_STATS)
        row["is_full"] = row["seats_free"] <= 0
        row["seats_out"] = row["seats_taken"] - row["seats_playing"]
        row["is_mine"] = table.pk in mine
        row["waiting_place"] = places.get(table.pk)
        row["barred_until"] = barred.get(table.pk)
    return tables


# -- a stored hand as a readable history, for staff

_STREET_TITLES = {"flop": "Flop", "turn": "Turn", "river": "River"}


def hand_history(hand_row: Hand) -> list[dict[str, Any]]:
    """A stored hand as sections of plain text (`{"title", "lines"}`), for the admin's page.

    It reads the hand's log (`HandEvent` rows). While the hand runs staff see only what a
    spectator sees (`redact_event(event, None)`): the seats, the blinds, the betting and the
    board dealt so far, never hole cards, burns or the deck. Once the hand is over (finished or
    cancelled) every player's hole cards are shown too. Amounts are in dollars.
    """
    running = hand_row.status == Hand.Status.RUNNING
    notes: list[str] = []
    if running:
        notes.append("The hand is running: hole cards stay hidden until it is over.")
    elif hand_row.status == Hand.Status.CANCELLED:
        notes.append(f"Cancelled: {hand_row.cancel_reason.rstrip('.') or 'no reason given'}.")
        notes.append("Nothing was settled: every bet went back to its owner's stack.")
    try:
        events = list(hand_row.events.order_by("seq").values_list("payload", flat=True))
        if running:
            events = [redact_event(event, None) for event in events]
        sections = _history_sections(events, _seat_names(hand_row.player_ids()))
    except Exception as error:  # a broken stored hand: say so, show none of its data
        sections = [
            {
                "title": "Unreadable",
                "lines": [f"The stored events could not be read ({type(error).__name__})."],
            }
        ]
    return [{"title": "Hand", "lines": notes}, *sections] if notes else sections


def _seat_names(players: dict[int, int]) -> dict[int, str]:
    """Seat number -> "display name (username)" of everyone dealt in."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.filter(pk__in=list(players.values()))
    labels = {}
    for user in users.select_related("profile"):
        shown, username = player_json(user)["display_name"], user.get_username()
        labels[user.pk] = shown if shown == username else f"{shown} ({username})"
    return {seat: labels.get(user_id, f"player {user_id}") for seat, user_id in players.items()}


def _history_sections(events: list[dict[str, Any]], names: dict[int, str]) -> list[dict]:
    if not events:
        raise ValueError("the hand has no events")
    started = events[0]
    if started["type"] != "hand_started":
        raise ValueError("the first event is not hand_started")

    def who(seat: int) -> str:
        return f"seat {seat} {names.get(seat, '(nobody)')}"

    structure = started["structure"]
    stakes = f"blinds {dollars(started['small_blind'])}/{dollars(started['big_blind'])}"
    if structure == Table.Structure.LIMIT:
        stakes += f", bets {dollars(started['small_bet'])}/{dollars(started['big_bet'])}"
    starting = {seat: stack for seat, stack in started["seats"]}
    sections: list[dict[str, Any]] = [
        {
            "title": "Seats",
            "lines": [
                f"{Table.Game(started['game']).label}, {Table.Structure(structure).label}, "
                f"{stakes}.",
                f"Button: seat {started['button']}.",
                *(_sentence(f"{who(seat)}: {dollars(stack)}") for seat, stack in starting.items()),
            ],
        },
        {"title": "Preflop", "lines": []},
    ]
    board: list[str] = []
    for event in events[1:]:
        kind = event["type"]
        if kind == "street_dealt":
            board.extend(event["cards"])
            title = f"{_STREET_TITLES[event['street']]}: {' '.join(board)}"
            sections.append({"title": title, "lines": []})
        elif kind == "showdown":
            sections.append({"title": "Showdown", "lines": []})
        else:
            if kind in ("pot_awarded", "hand_ended") and sections[-1]["title"] != "Result":
                sections.append({"title": "Result", "lines": []})
            lines = _event_lines(event, who, hi_lo=started["game"] == "omaha8", starting=starting)
            sections[-1]["lines"].extend(_sentence(line) for line in lines)
    return sections


def _sentence(line: str) -> str:
    return line[:1].upper() + line[1:]


def _event_lines(event: dict[str, Any], who, *, hi_lo: bool, starting: dict) -> list[str]:
    """One event in words (the table page's log says the same, static/js/table.js)."""
    kind = event["type"]
    seat = event.get("seat")
    all_in = " (all-in)" if event.get("all_in") else ""
    if kind == "ante_posted":
        return [f"{who(seat)} posts an ante {dollars(event['amount'])}{all_in}"]
    if kind == "blind_posted":
        return [f"{who(seat)} posts the {event['blind']} blind {dollars(event['amount'])}{all_in}"]
    if kind == "hole_cards_dealt":
        return [
            f"Dealt to {who(number)}: {' '.join(cards) if cards is not None else 'hidden'}"
            for number, cards in event["hole_cards"]
        ]
    if kind == "action":
        return [f"{who(seat)} {_action_words(event)}{all_in}"]
    if kind == "uncalled_bet_returned":
        return [f"{dollars(event['amount'])} uncalled, back to {who(seat)}"]
    if kind == "cards_shown":
        low = f"; low: {event['low'] or 'none'}" if hi_lo else ""
        return [f"{who(seat)} shows {' '.join(event['cards'])}: {event['high']}{low}"]
    if kind == "cards_mucked":
        return [f"{who(seat)} mucks"]
    if kind == "pot_awarded":
        return [_pot_line(event, who, hi_lo=hi_lo)]
    if kind == "hand_ended":
        lines = [f"Rake {dollars(event['rake'])}"]
        for number, stack in event["stacks"]:
            net = stack - starting[number]
            sign = "+" if net > 0 else ""
            lines.append(f"{who(number)} ends with {dollars(stack)} ({sign}{dollars(net)})")
        return lines
    return [f"({kind})"]  # an event this page does not know: its name only, never its data


def _action_words(event: dict[str, Any]) -> str:
    """What a player did, after their name: "folds", "calls $2", "raises to $8"."""
    action = event["action"]
    if action in ("fold", "check"):
        return f"{action}s"
    if action == "call":
        return f"calls {dollars(event['added'])}"
    if action == "bet":
        return f"bets {dollars(event['to'])}"
    return f"raises to {dollars(event['to'])}"


def _pot_line(event: dict[str, Any], who, *, hi_lo: bool) -> str:
    """One pot's award: its size and rake, then each share (high or low in hi/lo)."""
    name = "Main pot" if event["pot"] == 0 else f"Side pot {event['pot']}"
    rake = f", rake {dollars(event['rake'])}" if event["rake"] else ""
    shares = [
        f"{who(share['seat'])} wins {dollars(share['amount'])}" + (f" ({side})" if hi_lo else "")
        for side in ("high", "low")
        for share in event[side]
    ]
    return f"{name} {dollars(event['amount'])}{rake}: {'; '.join(shares) or 'nobody'}"


# -- waiting lists and "join a game" (poker/services/waiting.py writes them)


def waiting_position(*, table: Table, player) -> int | None:
    """1 for the head of the list; None when the player is not on it."""
    entry = WaitingEntry.objects.filter(table=table, player=player).first()
    if entry is None:
        return None
    ahead = WaitingEntry.objects.filter(table=table).filter(
        Q(joined_at__lt=entry.joined_at) | Q(joined_at=entry.joined_at, pk__lt=entry.pk)
    )
    return ahead.count() + 1


def table_money_query(*, table: Table, wallet_owner_ids) -> tuple[str, list[Any]]:
    """The read of a table's stacks and its players' wallets as SQL, rows of (kind, owner_id,
    balance): at a cash table the cashier's stacks (cashier.selectors); at a tournament table
    the seats' tournament chips, which are not money, shown as the stacks."""
    if not table.is_tournament:
        return table_stacks_and_wallets_query(table_id=table.pk, wallet_owner_ids=wallet_owner_ids)
    sql = (
        f"SELECT %s::varchar AS kind, player_id AS owner_id, chips::bigint AS balance "
        f"FROM {Seat._meta.db_table} WHERE (table_id = %s AND chips > 0)"
    )
    params: list[Any] = [Account.Kind.TABLE_STACK.value, table.pk]
    owners = sorted(set(wallet_owner_ids))
    if owners:
        places = ", ".join(["%s"] * len(owners))
        sql += (
            f" UNION ALL SELECT kind, owner_id, balance FROM {Account._meta.db_table} "
            f"WHERE (kind = %s AND owner_id IN ({places}))"
        )
        params += [Account.Kind.WALLET.value, *owners]
    return sql, params


def table_stacks_and_wallets(
    *, table: Table, wallet_owner_ids
) -> tuple[dict[int, int], dict[int, int]]:
    """(every non-empty stack at the table, the wallets of `wallet_owner_ids`), user id ->
    amount, in one read (`table_money_query`): cents at a cash table, chips at a tournament's."""
    sql, params = table_money_query(table=table, wallet_owner_ids=wallet_owner_ids)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return table_stacks_and_wallets_of(rows, wallet_owner_ids=wallet_owner_ids)


@dataclass(frozen=True)
class GameKind:
    """What a player chooses in "join a game": the game, the betting structure and the
    stakes (the two amounts that define them, in cents)."""

    game: str
    structure: str
    stakes: tuple[int, int]

    @property
    def key(self) -> str:
        return f"{self.game}:{self.structure}:{self.stakes[0]}:{self.stakes[1]}"

    @classmethod
    def parse(cls, key: object) -> GameKind | None:
        """The kind a form's key names, or None for a key that names none."""
        try:
            game, structure, low, high = str(key).split(":")
            return cls(game, structure, (int(low), int(high)))
        except ValueError:
            return None


def table_stakes(table: Table) -> tuple[int, int]:
    """(small bet, big bet) in fixed limit, (small blind, big blind) in pot limit: the two
    amounts the table's check constraint requires of its structure."""
    if table.structure == Table.Structure.LIMIT:
        low, high = table.small_bet, table.big_bet
    else:
        low, high = table.small_blind, table.big_blind
    if low is None or high is None:
        raise ValueError(f"table {table.pk} lacks the stakes of its structure")
    return low, high


def game_kinds_open() -> list[tuple[GameKind, str]]:
    """The kinds of game open now, with a label ("Pot-Limit Omaha · $1/$2"), for the form."""
    kinds: dict[str, tuple[GameKind, str]] = {}
    for table in Table.objects.filter(is_open=True, is_tournament=False).order_by(
        "game", "structure", "big_blind", "small_bet"
    ):
        kind = GameKind(table.game, table.structure, table_stakes(table))
        label = f"{table.get_game_display()} · {table.get_structure_display()} · "
        kinds.setdefault(kind.key, (kind, label + table.stakes_label))
    return list(kinds.values())


def seat_offers_of(*, player) -> list[dict[str, Any]]:
    """The seats offered to the player now (from waiting lists), for every page's banner."""
    from django.utils import timezone

    now = timezone.now()
    entries = WaitingEntry.objects.filter(player=player, offer_expires_at__gt=now).select_related(
        "table"
    )
    return [
        {
            "table": entry.table_id,
            "table_name": entry.table.name,
            "expires_at": expires_at.isoformat(),
            "seconds_left": max(0, round((expires_at - now).total_seconds())),
        }
        for entry in entries
        if (expires_at := entry.offer_expires_at) is not None  # always, by the filter
    ]


def waiting_places_of(*, player) -> dict[int, int]:
    """{table id: the player's place in its waiting list} for every list they are on."""
    places: dict[int, int] = {}
    table_ids = list(WaitingEntry.objects.filter(player=player).values_list("table_id", flat=True))
    queue = WaitingEntry.objects.filter(table_id__in=table_ids).order_by(
        "table_id", "joined_at", "id"
    )
    seen: dict[int, int] = {}
    for table_id, player_id in queue.values_list("table_id", "player_id"):
        seen[table_id] = seen.get(table_id, 0) + 1
        if player_id == player.pk:
            places[table_id] = seen[table_id]
    return places


# -- bars: staff removed a player from a table for a period


def table_bars_active(*, player=None, table=None, now=None) -> QuerySet[TableBar]:
    """Bars in force now (not lifted, not run out), of a player and/or at a table."""
    bars = TableBar.objects.filter(until__gt=now or timezone.now(), lifted_at__isnull=True)
    if player is not None:
        bars = bars.filter(player=player)
    if table is not None:
        bars = bars.filter(table=table)
    return bars


def table_bar_of(*, table, player, now=None) -> TableBar | None:
    """The bar that keeps `player` from `table` now, the longest if several, or None."""
    if player is None or not getattr(player, "is_authenticated", True):
        return None
    return table_bars_active(table=table, player=player, now=now).order_by("-until").first()


def barred_until_of(*, player, now=None) -> dict[int, Any]:
    """{table id: when the player's longest bar there runs out} for every table barred now."""
    rows = table_bars_active(player=player, now=now).values("table_id").annotate(until=Max("until"))
    return {row["table_id"]: row["until"] for row in rows}
