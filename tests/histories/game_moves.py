"""The four games' names as the history formats write them, and the moves a played hand's
history should hold, shared by the export and session tests."""

GAME_NAMES = {
    "omaha-pot-limit": "Omaha Pot Limit",
    "omaha-limit": "Omaha Limit",
    "omaha8-pot-limit": "Omaha Hi/Lo Pot Limit",
    "omaha8-limit": "Omaha Hi/Lo Limit",
}


def expected_moves(record) -> list[tuple]:
    """The moves a PokerStars reader should find, from the record's events: in their order,
    but at a showdown each pot from the last side pot down, after the shows of its players
    (a side pot one player wins unseen shows nobody)."""
    names = {seat["seat"]: seat["player"] for seat in record["seats"]}
    moves = []
    shown: dict[int, str] = {}  # in showing order
    showdown_pots = []
    showdown = False
    for step in record["steps"]:
        event = step["event"]
        kind, who = event["type"], names.get(event.get("seat"))
        if kind == "blind_posted":
            moves.append(("post", who, event["amount"]))
        elif kind == "hole_cards_dealt":
            moves += [("dealt", names[s], " ".join(c)) for s, c in event["hole_cards"] if c]
        elif kind == "action":
            action = event["action"]
            value = {"call": event.get("added"), "bet": event.get("to"), "raise": event.get("to")}
            moves.append((action, who, value.get(action)))
        elif kind == "uncalled_bet_returned":
            moves.append(("uncalled", who, event["amount"]))
        elif kind == "showdown":
            showdown = True
        elif kind == "cards_shown":
            shown[event["seat"]] = " ".join(event["cards"])
        elif kind == "pot_awarded" and showdown:
            showdown_pots.append(event)
        elif kind == "pot_awarded":
            moves += [
                ("collect", names[s["seat"]], s["amount"]) for s in event["high"] + event["low"]
            ]
    for pot in reversed(showdown_pots):
        playing = set(pot["eligible"]) if len(pot["eligible"]) > 1 or not pot["pot"] else set()
        for seat in [seat for seat in shown if pot["pot"] == 0 or seat in playing]:
            moves.append(("show", names[seat], shown.pop(seat)))
        moves += [("collect", names[s["seat"]], s["amount"]) for s in pot["high"] + pot["low"]]
    return moves
