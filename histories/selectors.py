"""A player's own hands, newest first, for "My hands" and /api/hands/."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

from django.db.models import JSONField, QuerySet
from django.db.models.expressions import RawSQL

from cashier.selectors import hand_settlement_entries
from notes.selectors import notes_by_player
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandEvent, HandPlayer, Table


def player_hands(
    *,
    player,
    table_id: int | None = None,
    game: str | None = None,
    since: date | None = None,
    until: date | None = None,
    result: str | None = None,
    position: str | None = None,
) -> QuerySet[HandPlayer]:
    """The player's seats in hands that are over (one row a hand, its hand and table joined),
    newest first; each filter narrows it. Served by the (player, hand) index."""
    # The running hands (one a table at most) are excluded by id, not by a join on their
    # status: the newest page is then a backward walk of the (player, hand) index.
    running = list(
        HandPlayer.objects.filter(player=player, hand__status=Hand.Status.RUNNING).values_list(
            "hand_id", flat=True
        )
    )
    rows = (
        HandPlayer.objects.filter(player=player)
        .exclude(hand_id__in=running)
        .select_related("hand__table")
        .defer("hand__deck", "hand__state", "hand__setup")
        .order_by("-hand_id")
    )
    if table_id is not None:
        rows = rows.filter(hand__table_id=table_id)
    if game:
        rows = rows.filter(hand__table__game=game)
    if since is not None:
        rows = rows.filter(hand__started_at__date__gte=since)
    if until is not None:
        rows = rows.filter(hand__started_at__date__lte=until)
    if result == "won":
        rows = rows.filter(net__gt=0)
    elif result == "lost":
        rows = rows.filter(net__lt=0)
    elif result == "even":
        rows = rows.filter(net=0)
    elif result == "cancelled":
        rows = rows.filter(hand__status=Hand.Status.CANCELLED)
    if position in POSITION_GROUPS:
        rows = rows.filter(position__in=POSITION_GROUPS[position])
    return rows


# The position filter's choices: early (UTG, UTG+1, UTG+2) and middle (MP, MP+1) in one each.
POSITION_GROUPS = {
    "BTN": ["BTN"], "SB": ["SB"], "BB": ["BB"], "CO": ["CO"], "HJ": ["HJ"],
    "MP": ["MP", "MP+1"], "UTG": ["UTG", "UTG+1", "UTG+2"],
}  # fmt: skip


def hand_line(row: HandPlayer) -> dict:
    """One line of the list: what the player needs to find a hand again."""
    hand = row.hand
    result = hand.result or {}
    return {
        "id": hand.pk,
        "table": {"id": hand.table_id, "name": hand.table.name},
        "game": hand.table.game,
        # A Sit & Go's hand: its amounts are tournament chips, written without a "$".
        "tournament": hand.table.is_tournament,
        "game_label": hand.table.get_game_display(),
        "structure": hand.table.structure,
        "stakes_label": hand.table.stakes_label,
        "started_at": hand.started_at,
        "status": hand.status,
        "seat": row.seat,
        "net": row.net,
        "rake": result.get("rake", 0) if hand.status == Hand.Status.FINISHED else 0,
        "board": result.get("board", []),
        "position": row.position,
        # The whole pot, rake included (0 for a cancelled hand: every bet went back).
        "pot": sum(pot.get("amount", 0) for pot in result.get("pots", [])),
    }


def hand_lines(rows) -> list[dict]:
    """`hand_line` of each row with the player's own hole cards (from each hand's
    `hole_cards_dealt` event: one query for the page; the hands are over)."""
    rows = list(rows)
    dealt = HandEvent.objects.filter(
        hand_id__in=[row.hand_id for row in rows], kind="hole_cards_dealt"
    ).values_list("hand_id", "payload")
    holes = {hand_id: dict((seat, cards) for seat, cards in payload["hole_cards"])
             for hand_id, payload in dealt}  # fmt: skip
    return [
        {**hand_line(row), "hole_cards": holes.get(row.hand_id, {}).get(row.seat, [])}
        for row in rows
    ]


def tables_for_filter() -> list[dict]:
    """The room's tables, for the filter's choices. Not "the tables the player played at":
    with a hundred thousand hands that question costs a page hundreds of milliseconds
    (bench/histories.py), and a table without their hands simply lists none."""
    rows = Table.objects.order_by("name").values_list("pk", "name")
    return [{"id": table_id, "name": name} for table_id, name in rows]


# The auditors' hand export's fields, in order (its CSV's columns).
AUDIT_HAND_COLUMNS = (
    "hand",
    "table",
    "game",
    "structure",
    "tournament",  # a Sit & Go's hand: its net is in tournament chips, not cents
    "status",
    "started_at",
    "ended_at",
    "seat",
    "player_id",
    "username",
    "hole_cards",
    "board",
    "net",
    "hand_rake",
    "settlement_entry",
)
STATE_WITHOUT_EVENTS = RawSQL(
    f'"{Hand._meta.db_table}"."state" - %s', ("events",), output_field=JSONField()
)
# Hands read per query by the auditors' exports (a few rows each): memory holds one batch.
AUDIT_HAND_CHUNK = 20


def audit_hands(*, date_from: date | None, date_to: date | None):
    """The hands that ended in [date_from, date_to] (UTC days), in id order."""
    hands = Hand.objects.exclude(status=Hand.Status.RUNNING)
    if date_from is not None:
        hands = hands.filter(ended_at__date__gte=date_from)
    if date_to is not None:
        hands = hands.filter(ended_at__date__lte=date_to)
    return hands.order_by("pk")


def _audit_rows(hands: list[Hand]) -> list[dict]:
    Hand.prefetch_players(hands)
    entries = hand_settlement_entries(hand_ids=[hand.pk for hand in hands])
    names = dict(
        HandPlayer.objects.filter(hand__in=hands).values_list("player_id", "player__username")
    )
    rows = []
    for hand in hands:
        slim = getattr(hand, "state_without_events")  # noqa: B009 (an annotation mypy cannot see)
        engine = EngineHand.from_dict({**slim, "events": []})
        holes = dict(zip(engine.seats, engine.hole_cards, strict=True))
        result = hand.result or {}
        for seat, row in sorted(hand.seated_players().items()):
            rows.append(
                {
                    "hand": hand.pk,
                    "table": hand.table.name,
                    "game": hand.table.game,
                    # A Sit & Go's hand: its amounts are tournament chips, written without a "$".
                    "tournament": hand.table.is_tournament,
                    "structure": hand.table.structure,
                    "status": hand.status,
                    "started_at": hand.started_at.isoformat(),
                    "ended_at": hand.ended_at.isoformat() if hand.ended_at else None,
                    "seat": seat,
                    "player_id": row.player_id,
                    "username": names.get(row.player_id),
                    "hole_cards": list(holes.get(seat, [])),
                    "board": result.get("board", []),
                    "net": row.net,
                    "hand_rake": result.get("rake", 0)
                    if hand.status == Hand.Status.FINISHED
                    else 0,
                    "settlement_entry": entries.get(hand.pk),
                }
            )
    return rows


def hands_for_audit_chunks(
    *,
    date_from: date | None,
    date_to: date | None,
    after: tuple[int, int] | None = None,
    limit: int | None = None,
    chunk: int | None = None,
) -> Iterator[list[dict]]:
    """Auditors' rows: each player of each hand that ended in [date_from, date_to] (UTC days),
    with every card, their net, the hand's rake and the ledger entry that settled it; in
    (hand, seat) order after `after` (a hand and seat), at most `limit` rows, `chunk` hands
    per keyset query, so memory holds one batch whatever the range."""
    hands = (
        audit_hands(date_from=date_from, date_to=date_to)
        .select_related("table")
        .defer("state")  # its event log is most of it, and the rows need none of it
        .annotate(state_without_events=STATE_WITHOUT_EVENTS)
    )
    chunk = chunk or AUDIT_HAND_CHUNK
    after_hand, after_seat = after or (0, 0)
    last, left = after_hand - 1 if after_seat else after_hand, limit
    while left is None or left > 0:
        batch = list(hands.filter(pk__gt=last)[:chunk])
        if not batch:
            return
        rows = [
            row
            for row in _audit_rows(batch)
            if row["hand"] != after_hand or row["seat"] > after_seat
        ]
        if left is not None:
            rows = rows[:left]
            left -= len(rows)
        if rows:
            yield rows
        last = batch[-1].pk
        if len(batch) < chunk:
            return


def hands_for_audit(*, date_from: date | None, date_to: date | None) -> list[dict]:
    """Every row of `hands_for_audit_chunks`, in one list."""
    chunks = hands_for_audit_chunks(date_from=date_from, date_to=date_to)
    return [row for rows in chunks for row in rows]


# A new session starts after this long without a hand at the table (or at another table).
SESSION_GAP = timedelta(minutes=30)
MOST_RESULT_HANDS = 20_000


def _rake_share(result: dict, seat: int) -> int:
    """The rake taken from what `seat` won: each pot's rake split in proportion to the
    winnings it paid the seat (whole cents, rounded down), so net + share is "before rake"."""
    share = 0
    for pot in result.get("pots", []):
        paid = pot.get("amount", 0) - pot.get("rake", 0)
        won = sum(w["amount"] for half in ("high", "low") for w in pot.get(half) or []
                  if w["seat"] == seat)  # fmt: skip
        if pot.get("rake") and paid > 0 and won:
            share += pot["rake"] * won // paid
    return share


def player_results(*, player, **filters) -> dict[str, Any]:
    """ "My results": the hands "My hands" lists with the same filters,
    oldest first (at most MOST_RESULT_HANDS, the newest), as running totals of the net won
    after and before rake, per game and in all, and as sessions (a table's hands with no
    gap over SESSION_GAP)."""
    rows = list(
        player_hands(player=player, **filters)
        .filter(hand__status=Hand.Status.FINISHED)
        # A Sit & Go's hands win and lose tournament chips, not money: its result is the
        # tournament's (prize - buy-in - fee, the page's Tournaments part).
        .filter(hand__table__is_tournament=False)
        .values_list("hand_id", "seat", "net", "hand__started_at", "hand__table_id",
                     "hand__table__name", "hand__table__game", "hand__result")
        [:MOST_RESULT_HANDS]
    )  # fmt: skip
    rows.reverse()
    points, sessions, totals = [], [], {"net": 0, "before_rake": 0, "hands": 0}
    per_game: dict[str, dict[str, int]] = {}
    open_sessions: dict[int, dict] = {}
    for hand_id, seat, net, started_at, table_id, table_name, game, result in rows:
        net = net or 0
        rake = _rake_share(result or {}, seat)
        totals["net"] += net
        totals["before_rake"] += net + rake
        totals["hands"] += 1
        game_total = per_game.setdefault(game, {"net": 0, "before_rake": 0, "hands": 0})
        game_total["net"] += net
        game_total["before_rake"] += net + rake
        game_total["hands"] += 1
        points.append({"hand": hand_id, "at": started_at, "game": game,
                       "net": totals["net"], "before_rake": totals["before_rake"]})  # fmt: skip
        session = open_sessions.get(table_id)
        if session is None or started_at - session["ended_at"] > SESSION_GAP:
            session = {"table": table_name, "game": game, "started_at": started_at, "hands": 0,
                       "net": 0, "rake": 0}  # fmt: skip
            open_sessions[table_id] = session
            sessions.append(session)
        session.update(ended_at=started_at, hands=session["hands"] + 1,
                       net=session["net"] + net, rake=session["rake"] + rake)  # fmt: skip
    sessions.sort(key=lambda s: s["started_at"], reverse=True)
    return {"points": points, "sessions": sessions, "totals": totals, "per_game": per_game}


def profit_chart(points: list[dict], *, width: int = 720, height: int = 240) -> dict[str, Any]:
    """The graph drawn on the server: SVG polyline coordinates for the running net after and
    before rake (one step a hand), the zero line, the axis' top and bottom in cents, and when
    its first and last hands were dealt (the time it spans)."""
    if not points:
        return {}
    values = [0] + [p["net"] for p in points] + [p["before_rake"] for p in points]
    top, bottom = max(values), min(values)
    span = (top - bottom) or 1
    pad = 8

    def y(cents: int) -> float:
        return round(pad + (top - cents) * (height - 2 * pad) / span, 1)

    step = (width - 2 * pad) / max(len(points), 1)

    def line(key: str) -> str:
        coords = [(pad, y(0))] + [(round(pad + (k + 1) * step, 1), y(p[key]))
                                  for k, p in enumerate(points)]  # fmt: skip
        return " ".join(f"{x},{v}" for x, v in coords)

    return {"width": width, "height": height, "net": line("net"),
            "before_rake": line("before_rake"), "zero": y(0), "top": top,
            "bottom": bottom, "first_at": points[0]["at"],
            "last_at": points[-1]["at"]}  # fmt: skip


def hand_notes_by_seat(*, hand_id: int, viewer) -> dict[int, dict]:
    """The viewer's own notes (notes app) on the hand's other players, by seat: what the hand
    page and its replayer show beside their names, for this viewer only."""
    seats = dict(HandPlayer.objects.filter(hand_id=hand_id).values_list("player_id", "seat"))
    found = notes_by_player(author=viewer, player_ids=seats)
    return {
        seats[player_id]: {"colour": note["colour"], "label": note["label"], "text": note["text"]}
        for player_id, note in found.items()
    }
