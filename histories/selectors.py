"""A player's own hands, newest first, for "My hands" and /api/hands/ (issue 13)."""

from __future__ import annotations

from datetime import date

from django.db.models import QuerySet

from cashier.selectors import hand_settlement_entries
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandPlayer, Table


def player_hands(
    *,
    player,
    table_id: int | None = None,
    game: str | None = None,
    since: date | None = None,
    until: date | None = None,
    result: str | None = None,
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
    return rows


def hand_line(row: HandPlayer) -> dict:
    """One line of the list: what the player needs to find a hand again."""
    hand = row.hand
    result = hand.result or {}
    return {
        "id": hand.pk,
        "table": {"id": hand.table_id, "name": hand.table.name},
        "game": hand.table.game,
        "game_label": hand.table.get_game_display(),
        "structure": hand.table.structure,
        "stakes_label": hand.table.stakes_label,
        "started_at": hand.started_at,
        "status": hand.status,
        "seat": row.seat,
        "net": row.net,
        "rake": result.get("rake", 0) if hand.status == Hand.Status.FINISHED else 0,
        "board": result.get("board", []),
    }


def tables_for_filter() -> list[dict]:
    """The room's tables, for the filter's choices. Not "the tables the player played at":
    with a hundred thousand hands that question costs a page hundreds of milliseconds
    (bench/histories.py), and a table without their hands simply lists none."""
    rows = Table.objects.order_by("name").values_list("pk", "name")
    return [{"id": table_id, "name": name} for table_id, name in rows]


def hands_for_audit(*, date_from: date | None, date_to: date | None) -> list[dict]:
    """Auditors' rows: each player of each hand that ended in [date_from, date_to] (UTC days),
    with every card, their net, the hand's rake and the ledger entry that settled it."""
    hands = Hand.objects.exclude(status=Hand.Status.RUNNING).select_related("table")
    if date_from is not None:
        hands = hands.filter(ended_at__date__gte=date_from)
    if date_to is not None:
        hands = hands.filter(ended_at__date__lte=date_to)
    hands = list(hands.order_by("pk"))
    Hand.prefetch_players(hands)
    entries = hand_settlement_entries(hand_ids=[hand.pk for hand in hands])
    names = dict(
        HandPlayer.objects.filter(hand__in=hands).values_list("player_id", "player__username")
    )
    rows = []
    for hand in hands:
        engine = EngineHand.from_dict(hand.state)
        holes = dict(zip(engine.seats, engine.hole_cards, strict=True))
        result = hand.result or {}
        for seat, row in sorted(hand.seated_players().items()):
            rows.append(
                {
                    "hand": hand.pk,
                    "table": hand.table.name,
                    "game": hand.table.game,
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
