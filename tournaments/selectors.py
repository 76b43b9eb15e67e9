"""What the lobby and the API read of Sit & Gos: read only."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, Max, OuterRef, Q
from django.utils import timezone

from poker.models import HandPlayer, Seat
from tournaments.models import (
    Registration,
    Tournament,
    game_short_label,
    level_bets,
    payouts_for,
    place_amounts,
)


@dataclass(frozen=True)
class LobbySitAndGo:
    """One Sit & Go as the lobby lists it."""

    id: int
    name: str
    game: str
    structure: str
    game_label: str
    short_label: str
    seats: int
    registered: int
    buy_in: int
    fee: int
    starting_chips: int
    status: str
    status_label: str
    is_registered: bool
    # A fresh idempotency key for the lobby's Register form (a double click registers once).
    register_key: str = ""

    @property
    def is_full(self) -> bool:
        return self.registered >= self.seats


def sit_and_gos_for_lobby(*, player=None) -> list[LobbySitAndGo]:
    """The Sit & Gos open for registration, and those running or registering that the player
    is in, in the templates' order: one query."""
    signed_in = player is not None and getattr(player, "is_authenticated", False)
    entered = Registration.objects.filter(
        player=player if signed_in else None,
        status=Registration.Status.ACTIVE,
        tournament=OuterRef("pk"),
    )
    shown = Q(status=Tournament.Status.REGISTERING)
    if signed_in:
        shown |= Q(status=Tournament.Status.RUNNING, mine=True)
    rows = (
        Tournament.objects.annotate(
            registered=Count(
                "registrations", filter=Q(registrations__status=Registration.Status.ACTIVE)
            ),
            mine=Exists(entered),
        )
        .filter(shown)
        .select_related("template")
        .order_by("game", "structure", "seats", "buy_in", "id")
    )
    return [
        LobbySitAndGo(
            id=row.pk,
            name=row.template.name,
            game=row.game,
            structure=row.structure,
            game_label=row.game_label(),
            short_label=game_short_label(row.game, row.structure),
            seats=row.seats,
            registered=row.registered,
            buy_in=row.buy_in,
            fee=row.fee,
            starting_chips=row.starting_chips,
            status=row.status,
            status_label=row.get_status_display(),
            is_registered=bool(row.mine),
        )
        for row in rows
    ]


# -- a Sit & Go's own page (tournaments.views.sit_and_go): its rules, players and results


def roman(number: int) -> str:
    """A level as PokerStars names it: Level III."""
    numerals = [(100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"),
                (5, "V"), (4, "IV"), (1, "I")]  # fmt: skip
    out = ""
    for value, letters in numerals:
        while number >= value:
            out, number = out + letters, number - value
    return out


@dataclass(frozen=True)
class Level:
    """One blind level of a Sit & Go's structure, and the break after it (0: none)."""

    number: int
    small_blind: int
    big_blind: int
    ante: int
    minutes: int
    break_minutes: int

    @property
    def roman(self) -> str:
        return roman(self.number)


@dataclass(frozen=True)
class Entrant:
    """A player in a Sit & Go as its page shows them: display name, seat, chips while they
    play (0 once out), place and prize once out or finished."""

    player_id: int
    name: str
    seat: int | None
    chips: int
    place: int | None
    prize: int
    status: str


@dataclass(frozen=True)
class SitAndGoPage:
    tournament: Tournament
    levels: list[Level]
    # The places' percents with `entrants` players (the seats while registering).
    percents: list[int]
    entrants: int
    pool: int
    players: list[Entrant]
    is_registered: bool

    @property
    def level(self) -> Level | None:
        number = self.tournament.level
        return self.levels[number - 1] if 1 <= number <= len(self.levels) else None

    @property
    def next_level(self) -> Level | None:
        number = self.tournament.level
        return self.levels[number] if 1 <= number < len(self.levels) else None

    @property
    def running(self) -> bool:
        return self.tournament.status == Tournament.Status.RUNNING

    @property
    def prizes(self) -> list[dict]:
        """Each paid place: its percent and its prize in cents (summing to the pool)."""
        amounts = place_amounts(self.percents, self.pool)
        return [
            {"place": place, "percent": percent, "amount": amount}
            for place, (percent, amount) in enumerate(zip(self.percents, amounts, strict=True), 1)
        ]

    @property
    def playing(self) -> int:
        """Players still in (all of them before the start)."""
        return sum(1 for p in self.players if p.place is None)

    @property
    def on_break(self) -> bool:
        """Its table is on a break now (between two levels)."""
        table = self.tournament.table if self.running and self.tournament.table_id else None
        until = table.break_until if table is not None else None
        return until is not None and until > timezone.now()

    def next_level_in_seconds(self) -> int | None:
        """Seconds to the next level (or the break's end) while it runs; None otherwise."""
        at = self.tournament.next_level_at
        if not self.running or at is None:
            return None
        return max(0, int((at - timezone.now()).total_seconds()))


def _display_name(player) -> str:
    profile = getattr(player, "profile", None)
    return getattr(profile, "display_name", "") or player.get_username()


def sit_and_go_page(*, tournament_id: int, player=None) -> SitAndGoPage | None:
    """Everything a Sit & Go's page shows, or None for no such tournament: the structure,
    the payouts for its entrants, the players (chips from its table's seats while it runs,
    most chips first; the places once out) in three queries. Tournament chips are public, as
    the stacks at its table are."""
    tournament = (
        Tournament.objects.select_related("template", "table").filter(pk=tournament_id).first()
    )
    if tournament is None:
        return None
    breaks = {b["after_level"]: b["minutes"] for b in tournament.breaks}
    levels = [
        Level(
            number=number,
            small_blind=level["small_blind"],
            big_blind=level["big_blind"],
            ante=level.get("ante", 0),
            minutes=level["minutes"],
            break_minutes=breaks.get(number, 0),
        )
        for number, level in enumerate(tournament.blind_levels, start=1)
    ]
    shown = [Registration.Status.ACTIVE]
    if tournament.status == Tournament.Status.CANCELLED:
        shown.append(Registration.Status.CANCELLED)
    registrations = list(
        Registration.objects.filter(tournament=tournament, status__in=shown).select_related(
            "player__profile"
        )
    )
    chips: dict[int, int | None] = {}
    if tournament.table_id is not None and tournament.status == Tournament.Status.RUNNING:
        chips = dict(
            Seat.objects.filter(table_id=tournament.table_id, player__isnull=False).values_list(
                "player_id", "chips"
            )
        )
    players = [
        Entrant(
            player_id=r.player_id,
            name=_display_name(r.player),
            seat=r.seat,
            chips=chips.get(r.player_id) or 0,
            place=r.place,
            prize=r.prize,
            status=r.status,
        )
        for r in registrations
    ]
    # Those playing by chips, then those out by place; before the start, in order of entry.
    players.sort(key=lambda e: (e.place is not None, e.place or 0, -e.chips))
    active = [r for r in registrations if r.status == Registration.Status.ACTIVE]
    registering = tournament.status == Tournament.Status.REGISTERING
    entrants = tournament.seats if registering else len(active)
    signed_in = player is not None and getattr(player, "is_authenticated", False)
    return SitAndGoPage(
        tournament=tournament,
        levels=levels,
        percents=payouts_for(tournament.payouts, entrants=entrants),
        entrants=entrants,
        pool=tournament.buy_in * entrants,
        players=players,
        is_registered=signed_in and any(r.player_id == player.pk for r in active),
    )


def tournament_for_table(table_id: int) -> dict | None:
    """A Sit & Go's clock and places as its table's STATE carries them (`table.tournament`,
    docs/protocol.md): the level in force and the next, when it comes, and the places of
    those out. Two queries; poker.selectors calls it for tournament tables only."""
    tournament = Tournament.objects.filter(table_id=table_id).first()
    if tournament is None or tournament.level < 1:
        return None
    levels = tournament.blind_levels
    level = levels[min(tournament.level, len(levels)) - 1]
    following = levels[tournament.level] if tournament.level < len(levels) else None
    registrations = list(
        Registration.objects.filter(
            tournament=tournament, status=Registration.Status.ACTIVE
        ).select_related("player__profile")
    )
    out = sorted((r for r in registrations if r.place is not None), key=lambda r: r.place or 0)
    running = tournament.status == Tournament.Status.RUNNING
    small_bet, big_bet = level_bets(tournament.structure, level)
    next_small_bet, next_big_bet = level_bets(tournament.structure, following if running else None)
    return {
        "id": tournament.pk,
        "level": tournament.level,
        "levels": len(levels),
        "small_blind": level["small_blind"],
        "big_blind": level["big_blind"],
        "ante": level.get("ante", 0),
        "next_level_at": (
            tournament.next_level_at.isoformat()
            if running and tournament.next_level_at is not None
            else None
        ),
        "next_small_blind": following["small_blind"] if following and running else None,
        "next_big_blind": following["big_blind"] if following and running else None,
        # At fixed limit the level's bets, which the table bar names (null at pot limit).
        "small_bet": small_bet,
        "big_bet": big_bet,
        "next_small_bet": next_small_bet,
        "next_big_bet": next_big_bet,
        "entrants": len(registrations),
        "players_left": sum(1 for r in registrations if r.place is None) if running else 0,
        "places": [
            {
                "player": {"id": r.player_id, "display_name": _display_name(r.player)},
                "place": r.place,
                "prize": r.prize,
            }
            for r in out
        ],
    }


# -- a player's Sit & Gos ("My tournaments", the results page's tournament totals)


@dataclass(frozen=True)
class MyEntry:
    """One of the player's entries: what it cost, what it paid, the net (prize - buy-in -
    fee; 0 when refunded, as the money came back)."""

    tournament_id: int
    name: str
    game_label: str
    seats: int
    status: str
    status_label: str
    entry_status: str
    entry_status_label: str
    registered_at: object
    ended_at: object
    buy_in: int
    fee: int
    place: int | None
    prize: int
    refunded: bool

    @property
    def net(self) -> int:
        return 0 if self.refunded else self.prize - self.buy_in - self.fee


@dataclass(frozen=True)
class MyTournaments:
    entries: list[MyEntry]

    @property
    def played(self) -> list[MyEntry]:
        return [e for e in self.entries if not e.refunded]

    @property
    def totals(self) -> dict[str, int]:
        played = self.played
        return {
            "entries": len(played),
            "finished": sum(1 for e in played if e.status == Tournament.Status.FINISHED),
            "in_the_money": sum(1 for e in played if e.prize > 0),
            "buy_ins": sum(e.buy_in + e.fee for e in played),
            "fees": sum(e.fee for e in played),
            "prizes": sum(e.prize for e in played),
            "net": sum(e.net for e in played),
        }


def tournaments_of_player(*, player) -> MyTournaments:
    """Every Sit & Go the player entered, newest first, refunded entries included (net 0):
    one query."""
    rows = (
        Registration.objects.filter(player=player)
        .select_related("tournament__template")
        .order_by("-registered_at", "-id")
    )
    return MyTournaments(
        entries=[
            MyEntry(
                tournament_id=r.tournament_id,
                name=r.tournament.template.name,
                game_label=r.tournament.game_label(),
                seats=r.tournament.seats,
                status=r.tournament.status,
                status_label=r.tournament.get_status_display(),
                entry_status=r.status,
                entry_status_label=r.get_status_display(),
                registered_at=r.registered_at,
                ended_at=r.ended_at,
                buy_in=r.buy_in,
                fee=r.fee,
                place=r.place,
                prize=r.prize,
                refunded=r.refund_entry_id is not None,
            )
            for r in rows
        ]
    )


def hand_tournament(*, table_id: int, stakes: dict, hand_id: int | None = None) -> dict | None:
    """What a hand history names of the Sit & Go a hand at its table was dealt in (None at a
    cash table): its id, name, buy-in and fee (cents), starting chips, seats, start, the
    level's minutes, the level the hand's stakes were (the last level at or below the one
    in force now with those blinds; a fixed-limit table's small bet is the level's big
    blind, its big bet twice that), and the players who finished in the hand `hand_id`
    (`hand_finishes`)."""
    tournament = Tournament.objects.select_related("template").filter(table_id=table_id).first()
    if tournament is None:
        return None
    levels = tournament.blind_levels
    limit = tournament.structure == "limit"
    big = stakes.get("small_bet") if limit else stakes.get("big_blind")
    number = max(1, min(tournament.level, len(levels)))
    matching = [
        k
        for k, level in enumerate(levels, start=1)
        if level["small_blind"] == stakes.get("small_blind") and level["big_blind"] == big
    ]
    if matching:
        number = max([k for k in matching if k <= number] or matching)
    level = levels[number - 1]
    return {
        "id": tournament.pk,
        "name": tournament.template.name,
        "buy_in": tournament.buy_in,
        "fee": tournament.fee,
        "starting_chips": tournament.starting_chips,
        "seats": tournament.seats,
        "started_at": tournament.started_at.isoformat() if tournament.started_at else None,
        "level": number,
        "level_minutes": level["minutes"],
        "small_blind": level["small_blind"],
        "big_blind": level["big_blind"],
        "ante": level.get("ante", 0),
        # Fixed limit: the level's bets, what its page names the stakes by (the big blind is
        # the small bet); None in pot limit.
        "small_bet": level["big_blind"] if limit else None,
        "big_bet": 2 * level["big_blind"] if limit else None,
        "finishes": hand_finishes(tournament, hand_id=hand_id) if hand_id is not None else [],
    }


def hand_finishes(tournament: Tournament, *, hand_id: int) -> list[dict]:
    """The players whose tournament ended in this hand: those placed (out, or first) whose last
    hand dealt at the Sit & Go's table is this one (a player out is dealt no more hands), as
    `{"player_id", "place", "prize"}` (prize in cents), the best place first and the winner
    last, as PokerStars writes them. Empty for a hand nobody finished in, and for those a
    staff cancel paid (they have a prize but no place). Two queries."""
    placed = dict(
        Registration.objects.filter(
            tournament=tournament, status=Registration.Status.ACTIVE, place__isnull=False
        ).values_list("player_id", "pk")
    )
    if not placed or tournament.table_id is None:
        return []
    last = (
        HandPlayer.objects.filter(hand__table_id=tournament.table_id, player_id__in=placed)
        .values("player_id")
        .annotate(last=Max("hand_id"))
        .filter(last=hand_id)
        .values_list("player_id", flat=True)
    )
    rows = Registration.objects.filter(pk__in=[placed[p] for p in last]).values_list(
        "player_id", "place", "prize"
    )
    finishes = [{"player_id": p, "place": place, "prize": prize} for p, place, prize in rows]
    return sorted(finishes, key=lambda f: (f["place"] == 1, f["place"], f["player_id"]))
