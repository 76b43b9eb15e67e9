"""An Open Hand History reader written apart from our writer, for the tests: what each player
put in the pots by the spec's own arithmetic. Actions carry what they put in as they were made;
on each betting round the part of the biggest wager that no other player matched went back to
its owner (the spec has no action for it, and its reference examples write none), so a
player's chips in the pots are their actions' amounts less that part."""

from collections import Counter

BETTING_ROUNDS = ("Preflop", "Flop", "Turn", "River")


def cents(dollars: float) -> int:
    return round(dollars * 100)


def uncalled(ohh: dict) -> Counter:
    """{player id: cents}: on each betting round, the biggest wager's excess over the next."""
    back: Counter = Counter()
    for round_ in ohh["rounds"]:
        if round_["street"] not in BETTING_ROUNDS:
            continue
        wagers: Counter = Counter()
        for action in round_["actions"]:
            if "player_id" in action:
                wagers[action["player_id"]] += cents(action.get("amount", 0))
        ranked = wagers.most_common(2)
        if ranked and ranked[0][1] > (ranked[1][1] if len(ranked) > 1 else 0):
            back[ranked[0][0]] += ranked[0][1] - (ranked[1][1] if len(ranked) > 1 else 0)
    return back


def chips_in(ohh: dict) -> Counter:
    """{player id: cents each put in the pots}, uncalled parts taken off."""
    put: Counter = Counter()
    for round_ in ohh["rounds"]:
        for action in round_["actions"]:
            if "player_id" in action:
                put[action["player_id"]] += cents(action.get("amount", 0))
    put.subtract(uncalled(ohh))
    return put


def winnings(ohh: dict) -> Counter:
    won: Counter = Counter()
    for pot in ohh["pots"]:
        for win in pot["player_wins"]:
            won[win["player_id"]] += cents(win["win_amount"])
    return won
