"""The Omaha rules engine: pure Python, no Django, no I/O, no clock, no global randomness.

Modules: `cards` and `evaluate` (card strings, Omaha high and 8-or-better low values),
`hand` (the hand state machine), `pots` (side pots and splits), `rake` (rake schedules as
data), `reading` (a player's best hand on the board so far, for their own view), `views` (what
each recipient may see), `phh` (hand histories), `simulate` (random play),
`dealer` (around a hand: the Fisher-Yates shuffle from a CSPRNG passed in, the draw for the
button, moving it, who posts the blinds, whether a hand can start). Omaha Showdown, the banked
game against the house (RULES.md 9): `showdown` (a round from a deck order, settled by the
paytables), `showdown_paytables` (the tables as checked data), `showdown_math` (exact house
edges and the optimal strategy, `python -m poker.engine.showdown_math`).

How a table service uses it (the deck comes from the table's CSPRNG shuffle)::

    import secrets

    from poker.engine.dealer import blind_seats, shuffle_deck
    from poker.engine.hand import Hand, IllegalAction
    from poker.engine.rake import default_rake_schedule
    from poker.engine.views import events_for, view_for

    hand = Hand.start(
        game="omaha8", structure="pot-limit", small_blind=50, big_blind=100,
        seats={1: 10_000, 3: 7_500, 4: 12_000},      # seat -> stack, dealt in
        button=1, small_blind_seat=3, big_blind_seat=4,   # blind_seats(1, [1, 3, 4])
        extra_big_blind_seats=[],                    # new players posting to play now
        deck=shuffle_deck(secrets.randbelow),        # all 52 cards, e.g. "As", "Td"
        rake=default_rake_schedule("pot-limit"),     # or the table's schedule data, or None
    )
    seen = len(hand.events)
    hand.to_act                      # seat to act (1 here), None once the hand is over
    hand.legal_actions().to_dict()   # {"fold", "check", "call", "bet"/"raise": {min, max}, ...}
    try:
        hand.act(1, "raise", 300)    # amounts are this street's total, in cents
    except IllegalAction as error:   # error.code, error.reason; the hand is unchanged
        ...
    hand.act(hand.to_act, hand.default_action())   # the timeout: check, else fold
    view_for(hand, seat=3)           # per player; view_for(hand, None) for spectators
    events_for(hand, seat=3, start=seen)           # new events, redacted for seat 3
    stored = hand.to_json()          # persist; Hand.from_json(stored) continues it
    Hand.replay(hand.setup, hand.events)           # rebuilds the same hand
    hand.snapshot(), hand.setup_without_deck       # the same without the deck, kept apart:
    Hand.from_snapshot(snapshot, deck)             # continues it; Hand.from_dict(snapshot) reads
    Hand.rebuild(setup_without_deck, deck, events) # rebuilds it
    hand.result                      # when over: pots, rake, showdown, seats' final/net

Settle from `hand.result["seats"]` (each seat's `net`) and `hand.result["rake"]`: the nets
plus the rake sum to zero.
"""
