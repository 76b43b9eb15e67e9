"""Hidden cards stay hidden by construction: with a hand running, no page or API answer, no
STATE, no table frame and no log line carries a card still in the deck, a burn, or (for anyone
but their owner) a hole card; tests/poker/test_admin_sweep.py reads every admin page of the same
hand (three seats, `DECK`, played to the flop) with a stricter check (no card but the board).

The pages are not listed by hand: every route without a parameter, and every route that takes
the running hand's or its table's id (the hand's page, API, downloads in each format and
fairness check among them), so a page added later is swept too; the admin's are
`tests.sweep.every_admin_page()`. The deck itself is read
only by the services that play the hand (`Hand.objects.with_deck()`); everything else gets
hands without it.
"""

import contextlib
import itertools
import json
import logging
import random
import re

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from histories import urls as histories_urls
from histories.exports import FORMATS
from histories.views import hand_share_token
from poker import broadcast, services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat
from poker.selectors import table_snapshot_for, table_state_for
from tests.factories import (
    GAMES,
    call_down,
    deal_hand,
    make_funded_player,
    make_player,
    make_table,
)
from tests.factories import make_seated_player as seat_player
from tests.sweep import DECK, cards_in, every_admin_page

pytestmark = pytest.mark.django_db

# GET routes that are not pages to sweep: leaving the session, and the schema's own UIs and
# document (they describe the API, they show no data).
SKIPPED = ("accounts/logout/", "api/schema/", "api/docs/", "api/redoc/")
# Routes of a hand or table that are no GET page (forms post to them): their GET must be a 405.
POST_ONLY = ("poker:waiting_join", "poker:waiting_leave", "showdown:deal")
# What a route of the running hand or its table may answer a GET with: the page, or a refusal
# (a running hand has no history, download or fairness reveal yet).
ANSWERS = (200, 403, 404)
PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")


def _parameterless_routes(patterns=None, prefix: str = "") -> list[str]:
    """Every route of the URL map that takes no parameter, as a path."""
    paths = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = str(entry.pattern)
        if "<" in route or route.startswith("^") or "(?P" in route:
            continue  # takes a parameter (or is a regex: the admin's own, swept below)
        if isinstance(entry, URLResolver):
            if route == "admin/":
                continue
            paths += _parameterless_routes(entry.url_patterns, prefix + route)
        elif isinstance(entry, URLPattern):
            paths.append("/" + prefix + route)
    return [path for path in paths if not path.lstrip("/").startswith(SKIPPED)]


def _hand_routes(
    fill: dict[str, list[str]], patterns=None, prefix: str = "", namespace: str = ""
) -> dict[str, str]:
    """Every route taking a hand's or a table's id, and no parameter that `fill` has no values
    for, filled in with each combination of them: {path: the route's name}."""
    paths = {}
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = str(entry.pattern)
        if route.startswith("^") or "(?P" in route or route == "admin/":
            continue  # the admin's own routes: tests/poker/test_admin_sweep.py
        if isinstance(entry, URLResolver):
            inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
            paths.update(_hand_routes(fill, entry.url_patterns, prefix + route, inner))
            continue
        names = PARAMETER.findall(prefix + route)
        if not {"hand_id", "table_id"} & set(names) or not set(names) <= fill.keys():
            continue  # no hand's or table's route, or one of something else (a round, a token)
        template = "/" + PARAMETER.sub(r"{\1}", prefix + route)
        route_name = namespace + (entry.name or "")
        for values in itertools.product(*(fill[name] for name in names)):
            paths[template.format(**dict(zip(names, values, strict=True)))] = route_name
    return paths


def _share_links(hand: Hand) -> dict[str, str]:
    """The hand's share link as each player seated at its table would make it (a link shows
    its sharer's cards to anyone, so for a running hand it must show nothing)."""
    seated = Seat.objects.filter(table_id=hand.table_id, player__isnull=False)
    return {
        reverse("histories:shared", args=[hand_share_token(hand_id=hand.pk, sharer_id=pk)]):
            "histories:shared"
        for pk in seated.values_list("player_id", flat=True)
    }  # fmt: skip


def _routes_of(hand: Hand) -> dict[str, str]:
    """The routes of the running hand and its table, with each download format, and its share
    links (their token is no id the URL map's parameters can be filled with)."""
    fill = {"hand_id": [str(hand.pk)], "table_id": [str(hand.table_id)], "fmt": list(FORMATS)}
    paths = _hand_routes(fill)
    shared = _share_links(hand)
    assert shared, "the sweep requests the hand's share links"
    paths.update(shared)
    expected = {
        reverse("poker:table", args=[hand.table_id]),
        reverse("histories:hand", args=[hand.pk]),
        reverse("api-hand", args=[hand.pk]),
        *(reverse("histories:hand_download", args=[hand.pk, fmt]) for fmt in FORMATS),
        reverse("fairness:hand", args=[hand.pk]),
        reverse("api-fairness-hand", args=[hand.pk]),
    }
    assert expected <= paths.keys(), sorted(expected - paths.keys())
    return paths


def _secrets(hand: Hand) -> tuple[set[str], dict[int, set[str]]]:
    """(cards nobody may see now: the rest of the deck and the burns, each seat's hole cards),
    read the way only a service playing the hand may: with its deck."""
    row = Hand.objects.with_deck().get(pk=hand.pk)
    engine = EngineHand.from_snapshot(row.state, row.deck)
    undealt = set(engine.deck[engine.next_card :]) | set(engine.burns)
    holes = {seat: set(cards) for seat, cards in zip(engine.seats, engine.hole_cards, strict=True)}
    assert undealt and all(holes.values())
    return undealt, holes


def _get(client: Client, path: str, answers=range(500)) -> str:
    response = client.get(path)
    assert response.status_code in answers, (path, response.status_code)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode(errors="replace")


def _get_route(client: Client, path: str, name: str) -> str:
    """A route of the running hand or its table: a GET page answers with itself or a refusal,
    a route forms post to refuses the GET."""
    return _get(client, path, (405,) if name in POST_ONLY else ANSWERS)


def test_no_page_api_state_or_log_line_shows_a_running_hands_hidden_cards(caplog):
    caplog.set_level(logging.DEBUG)
    table = make_table()
    players = {n: seat_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"), (4, "cy"))}
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    assert hand.status == Hand.Status.RUNNING
    undealt, holes = _secrets(hand)
    every_hole = set().union(*holes.values())

    staff = make_player("boss", is_staff=True, is_superuser=True)
    watcher = make_funded_player("sam")
    hand_routes = _routes_of(hand)
    routes = _parameterless_routes()
    assert "/api/accounts/me/" in routes and "/" in routes, "the sweep reaches the API and pages"

    viewers = [(staff, None), (watcher, None), *((p, seat) for seat, p in players.items())]
    swept = 0
    for user, seat in viewers:
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        # What this viewer may see: their own hole cards, nothing else of the hand's secrets.
        hidden = undealt | (every_hole - holes.get(seat, set()))
        for path in routes:
            leaked = cards_in(_get(client, path)) & hidden
            assert not leaked, f"{path} shows {sorted(leaked)} to {user.username}"
            swept += 1
        for path, name in hand_routes.items():
            leaked = cards_in(_get_route(client, path, name)) & hidden
            assert not leaked, f"{path} shows {sorted(leaked)} to {user.username}"
            swept += 1
        state = str(table_state_for(table=table, player=user))
        assert not cards_in(state) & hidden, f"the STATE of {user.username} leaks"
    assert swept > 3 * len(routes)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert not cards_in(logged) & (undealt | every_hole)


def test_the_admin_sweep_would_see_a_leaked_deck(monkeypatch):
    """The admin sweep (`tests.sweep.every_admin_page()`) is not blind: a page that did show
    the deck is caught by it."""
    table = make_table()
    players = {n: seat_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
    hand = deal_hand(table, DECK)
    undealt, _ = _secrets(hand)
    from poker import admin as poker_admin

    leaky = poker_admin.HandAdmin.history
    monkeypatch.setattr(
        poker_admin.HandAdmin,
        "history",
        lambda self, row: leaky(self, row) + " ".join(Hand.objects.with_deck().get(pk=row.pk).deck),
    )
    client = Client()
    client.force_login(
        make_player("boss", is_staff=True, is_superuser=True),
        backend="django.contrib.auth.backends.ModelBackend",
    )
    # The sweep's own list of pages, less the other models' (the first test reads them all):
    # the leak is on the hand's pages, and reading every row of every model again proves no
    # more about the sweep than reading the rows of the model that leaks.
    pages = [path for path in every_admin_page() if path.startswith("/admin/poker/hand/")]
    assert f"/admin/poker/hand/{hand.pk}/change/" in pages
    found = set()
    for path in pages:
        found |= cards_in(_get(client, path)) & undealt
    assert found == undealt
    assert players


def test_the_sweep_of_a_hands_routes_would_see_a_leaked_deck(monkeypatch):
    """The sweep of the hand's and table's routes reads their answers: a hand page that did
    print the deck is caught by it."""
    table = make_table()
    players = {n: seat_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
    hand = deal_hand(table, DECK)
    undealt, _ = _secrets(hand)
    page = next(e for e in histories_urls.urlpatterns if getattr(e, "name", None) == "hand")
    monkeypatch.setattr(
        page,
        "callback",
        lambda request, hand_id: HttpResponse(
            " ".join(Hand.objects.with_deck().get(pk=hand_id).deck)
        ),
    )
    client = Client()
    client.force_login(players[1], backend="django.contrib.auth.backends.ModelBackend")
    found = set()
    for path, name in _routes_of(hand).items():
        found |= cards_in(_get_route(client, path, name)) & undealt
    assert found == undealt
    # A share link that showed the deck to whoever follows it is caught too.
    shared = next(e for e in histories_urls.urlpatterns if getattr(e, "name", None) == "shared")
    monkeypatch.setattr(
        shared,
        "callback",
        lambda request, token: HttpResponse(
            " ".join(Hand.objects.with_deck().get(pk=hand.pk).deck)
        ),
    )
    stranger = Client()
    found = set()
    for path, name in _share_links(hand).items():
        found |= cards_in(_get_route(stranger, path, name)) & undealt
    assert found == undealt


# -- every frame the table services build, for every recipient (no socket: the services are
# called directly, and `poker.broadcast.frames_and_view`, which builds every frame a table
# socket forwards, is watched as it returns; tests/poker/test_consumers.py proves on real
# sockets that what a socket receives is these frames)


class FrameLog:
    """Each change's frames, with what was still secret when they were built: per hand, the
    cards not dealt yet and the burns, each seat's hole cards and the seats that showed theirs
    (read from the engine the service built the frames from, which holds the deck)."""

    def __init__(self) -> None:
        self.changes: list[tuple[dict, dict[int, tuple]]] = []
        self.secrets: dict[int, tuple] = {}

    def watch(self, monkeypatch) -> None:
        build = broadcast.frames_and_view

        def watched(**kwargs):
            frames, view = build(**kwargs)
            engine, hand_row = kwargs["engine"], kwargs["hand_row"]
            if engine is not None and hand_row is not None:
                assert engine.deck, "the services build frames from an engine with its deck"
                owners = hand_row.player_ids()
                self.secrets[hand_row.pk] = (
                    set(engine.deck[engine.next_card :]) | set(engine.burns),
                    {
                        owners.get(seat): set(cards)
                        for seat, cards in zip(engine.seats, engine.hole_cards, strict=True)
                    },
                    {e["seat"] for e in engine.events if e["type"] == "cards_shown"},
                    {owners.get(seat): seat for seat in engine.seats},
                )
            self.changes.append((frames, dict(self.secrets)))
            return frames, view

        monkeypatch.setattr(broadcast, "frames_and_view", watched)


def _hidden_from(secrets: tuple, user_id: int | None) -> set[str]:
    """What `user_id` (None: a spectator) may not see of a hand at that moment."""
    undealt, holes, shown, seats = secrets
    hidden = set(undealt)
    for owner, cards in holes.items():
        if owner != user_id and seats[owner] not in shown:
            hidden |= cards
    return hidden


def _by_hand(frame: dict) -> dict[int | None, str]:
    """The frame's text split by the hand each part is about: the last result is its own hand's,
    everything else the running hand's (the button draw is from a deck of its own)."""
    parts: dict[int | None, list] = {}
    state = frame.get("state", frame)
    last = state.get("last_result")
    if last:
        parts.setdefault(last["hand_id"], []).append(last)
    rest = {k: v for k, v in state.items() if k != "last_result"}
    rest["events"] = [e for e in state.get("events", []) if e["type"] != "button_drawn"]
    rest["log"] = frame.get("log", [])
    ids = {e["hand_id"] for e in [*rest["events"], *rest["log"]] if "hand_id" in e}
    for key in ("hand", "hand_changes"):
        if rest.get(key):
            ids.add(rest[key]["id"])
    assert len(ids) <= 1, frame
    parts.setdefault(ids.pop() if ids else None, []).append(rest)
    return {hand_id: json.dumps(items) for hand_id, items in parts.items()}


def frame_leaks(frame: dict, user_id: int | None, secrets: dict[int, tuple]) -> list[str]:
    """The cards `frame` shows `user_id` that were hidden from them when it was built."""
    text = json.dumps(frame)
    leaks = [f"the key {key!r}" for key in ('"deck"', '"burns"', '"burn"') if key in text]
    for hand_id, part in _by_hand(frame).items():
        if hand_id is None:  # no hand yet: no card may show but the button draw's
            leaks += sorted(cards_in(part))
        elif hand_id in secrets:
            leaks += sorted(cards_in(part) & _hidden_from(secrets[hand_id], user_id))
    return leaks


def sweep(log: FrameLog, table, viewers: list) -> int:
    """Every frame of every change since the last sweep, as each socket would get it: the public
    update (everyone's) and each private frame (its player's alone); the same frames as the
    frame log keeps them and as a `resync` gives them back to each viewer (every public frame,
    and their own private ones only); then a snapshot read now for the first viewer, who goes
    to the back of the line. Returns how many frames were scanned; fails on the first leak."""
    scanned = 0
    by_version: dict[int, dict[int, tuple]] = {}
    owners: dict[int, set[int]] = {}
    for frames, secrets in log.changes:
        public = json.loads(frames["public"])
        assert not frame_leaks(public, None, secrets), public
        for user_id, text in frames["private"].items():
            private = json.loads(text)
            assert not frame_leaks(private, int(user_id), secrets), (user_id, private)
        scanned += 1 + len(frames["private"])
        # What the change's commit does (this test's transaction never commits): keep, send.
        broadcast.send(table_id=table.pk, frames=frames)
        by_version[frames["version"]] = secrets
        owners[frames["version"]] = {int(user_id) for user_id in frames["private"]}
    log.changes.clear()
    if by_version:
        since = min(by_version) - 1
        for viewer in viewers:
            missed = broadcast.frames_missed(table_id=table.pk, user_id=viewer.pk, since=since)
            assert missed is not None and missed.complete
            frames = [json.loads(text) for text in missed.frames]
            assert [f["version"] for f in frames if f["type"] == "update"] == sorted(by_version)
            assert [f["version"] for f in frames if f["type"] == "private"] == sorted(
                version for version, users in owners.items() if viewer.pk in users
            )
            for frame in frames:
                leaks = frame_leaks(frame, viewer.pk, by_version[frame["version"]])
                assert not leaks, (viewer.username, frame)
            scanned += len(frames)
    viewer = viewers.pop(0)
    viewers.append(viewer)
    snapshot = table_snapshot_for(table=table, player=viewer)
    assert not frame_leaks(snapshot, viewer.pk, log.secrets), (viewer.username, snapshot)
    return scanned + 1


def random_action(rng: random.Random, legal) -> tuple[str, int | None]:
    options: list[tuple[str, int | None]] = []
    if legal.can_fold:
        options.append(("fold", None))
    if legal.can_check:
        options += [("check", None)] * 3
    if legal.call:
        options += [("call", None)] * 3
    if legal.raise_kind:
        options.append((legal.raise_kind, rng.randint(legal.min_to, legal.max_to)))
    if legal.all_in and rng.random() < 0.1:
        options.append(("all_in", None))
    return rng.choice(options)


def play(table, players: dict, log: FrameLog, viewers: list, choose) -> int:
    """Deal a hand and play it to its end through the table service, sweeping after each
    change; then the players show their cards by choice now and then. Returns frames scanned."""
    hand = deal_hand(table)
    if hand is None:
        return 0
    scanned = sweep(log, table, viewers)
    while True:
        row = Hand.objects.get(pk=hand.pk)
        if row.status != Hand.Status.RUNNING:
            break
        legal = EngineHand.from_dict(row.state).legal_actions()
        action, amount = choose(legal)
        services.table_act(
            table=table,
            player=players[legal.seat],
            action=action,
            amount=amount,
            turn=row.turn,
            seq=row.turn,
        )
        scanned += sweep(log, table, viewers)
    for player in players.values():
        with contextlib.suppress(services.TableError):  # already shown, not dealt in...
            services.table_show_cards(table=table, player=player)
        scanned += sweep(log, table, viewers)
    return scanned


@pytest.mark.timeout(900)  # a long-form sweep: 20 hands, every frame and resync read back
def test_no_frame_the_table_services_build_shows_anyone_a_hidden_card(monkeypatch):
    """Scripted hands (to a showdown, to a fold, all-in with side pots) and random legal play of
    every game, three players and a spectator; every public, private and snapshot frame is
    scanned for the deck, the burns, the cards still to come and the others' unshown cards."""
    log = FrameLog()
    log.watch(monkeypatch)
    rng = random.Random(20261123)
    scripts = {
        "check_or_call": lambda legal: ("call", None) if legal.call else ("check", None),
        "fold_or_check": lambda legal: ("fold", None) if legal.can_fold else ("check", None),
        "shove": lambda legal: (
            ("all_in", None)
            if legal.all_in
            else (("call", None) if legal.call else ("check", None))
        ),
        "random": lambda legal: random_action(rng, legal),
    }
    # The same players at every table (with no password to hash: none of them signs in).
    players = {
        seat: make_funded_player(f"sweep{seat}", cents=10**7, password=None) for seat in (1, 3, 5)
    }
    watcher = make_funded_player("sweepwatch", password=None)
    scanned = 0
    for k, (game, script) in enumerate(itertools.product(GAMES, scripts)):
        table = make_table(
            **GAMES[game], next_hand_delay_seconds=3600, action_seconds=3600, name=f"sweep {k}"
        )
        buy_ins = [table.min_buy_in, table.max_buy_in, (table.min_buy_in + table.max_buy_in) // 2]
        for (seat, player), buy_in in zip(players.items(), buy_ins, strict=True):
            services.table_sit(
                table=table,
                player=player,
                seat_number=seat,
                buy_in=buy_in,
                post_big_blind=False,
                idempotency_key=f"sweep-{table.pk}-{seat}",
            )
        viewers = [*players.values(), watcher]
        for _ in range(2 if script == "random" else 1):
            scanned += play(table, players, log, viewers, scripts[script])
    assert scanned > 1000


def test_the_frame_sweep_would_see_a_private_frame_carry_anothers_cards(monkeypatch):
    """The sweep is not blind: a private frame with the next seat's hole cards is caught."""
    original = broadcast.private_hand

    def next_seats_cards(view, seat_number, legal=None):
        mine = original(view, seat_number, legal)
        if mine is not None:
            seats = view.engine.seats
            other = seats[(seats.index(seat_number) + 1) % len(seats)]
            mine["cards"] = list(view.engine.hole_cards[seats.index(other)])
        return mine

    monkeypatch.setattr(broadcast, "private_hand", next_seats_cards)
    log = FrameLog()
    log.watch(monkeypatch)
    table = make_table(next_hand_delay_seconds=3600)
    players = {n: seat_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
    deal_hand(table)
    with pytest.raises(AssertionError):
        sweep(log, table, list(players.values()))


def test_the_sweep_would_see_a_resync_carry_anothers_private_frame(monkeypatch):
    """The sweep of the frame log is not blind either: a resync that answered a player with
    the private frames of every player would be caught."""
    original = broadcast.log_stream

    def everyones(table_id, user_id=None):
        return original(table_id, None if user_id is None else players[1].pk)

    log = FrameLog()
    log.watch(monkeypatch)
    table = make_table(next_hand_delay_seconds=3600)
    players = {n: seat_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
    deal_hand(table)
    monkeypatch.setattr(broadcast, "log_stream", everyones)  # every player's frames in ann's
    with pytest.raises(AssertionError):
        sweep(log, table, [players[2], players[1]])
