"""Broadcast plumbing that the socket tests do not reach: the embedded in-memory layer, and
the frame log a socket reads what it missed from (config/frame_log.py)."""

import asyncio
import json
import threading

import pytest
from channels.layers import channel_layers, get_channel_layer

from config import after_commit, frame_log
from poker import broadcast


async def test_sends_from_a_timer_thread_wake_sockets_on_the_in_memory_layer(settings):
    """The embedded room runs Celery in a thread; its broadcasts must reach the sockets' loop
    at once, not when that loop next wakes for something else. Each private frame goes to its
    player's own group only, before the public one."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    layer = get_channel_layer()
    loop = asyncio.get_running_loop()
    after_commit.socket_loop_remember(loop)
    ann, ben = await layer.new_channel(), await layer.new_channel()
    for channel, user_id in ((ann, 7), (ben, 8)):
        await layer.group_add(broadcast.group_name(5), channel)
        await layer.group_add(broadcast.user_group_name(5, user_id), channel)
    frames = {
        "version": 3,
        "public": '{"type":"update","version":3}',
        "private": {7: '{"type":"private"}'},
    }
    thread = threading.Thread(target=lambda: broadcast.send(table_id=5, frames=frames))
    started = loop.time()
    thread.start()
    first = await asyncio.wait_for(layer.receive(ann), timeout=3)
    assert first == {"type": "table.private", "text": '{"type":"private"}'}
    assert loop.time() - started < 1
    public = {"type": "table.update", "text": frames["public"]}
    assert await asyncio.wait_for(layer.receive(ann), timeout=3) == public
    assert await asyncio.wait_for(layer.receive(ben), timeout=3) == public  # and nothing else
    await asyncio.to_thread(thread.join)
    # Once the line of sends is drained, anything else `send` sent is queued already: a marker
    # sent now must be the next message on each channel (its queue is first in, first out).
    await after_commit.sends_drained()
    for channel in (ann, ben):
        await layer.send(channel, {"type": "test.marker"})
        assert await asyncio.wait_for(layer.receive(channel), timeout=3) == {"type": "test.marker"}


def change_frames(version: int, private_to: tuple[int, ...]) -> dict:
    """A change's frames as poker.broadcast builds them, each naming its version and owner."""
    return {
        "version": version,
        "public": json.dumps({"type": "update", "version": version}),
        "private": {
            uid: json.dumps({"type": "private", "version": version, "you": uid})
            for uid in private_to
        },
    }


@pytest.fixture(params=["redis", "memory"])
def log_backend(request, settings):
    """The log on the test run's Redis, and in memory as the embedded room keeps it."""
    if request.param == "memory":
        settings.FRAME_LOG_REDIS_URL = ""
    elif not settings.FRAME_LOG_REDIS_URL:
        pytest.skip("the Redis frame log needs REDIS_URL")
    settings.FRAME_LOG_PREFIX = f"{settings.FRAME_LOG_PREFIX}-{request.node.name}"
    frame_log.frames_forget_all()
    yield request.param
    frame_log.frames_forget_all()


def missed(user_id, since, table_id=5):
    answer = broadcast.frames_missed(table_id=table_id, user_id=user_id, since=since)
    if answer is None:
        return None
    return [(f["type"], f["version"], f.get("you")) for f in map(json.loads, answer.frames)]


def test_a_socket_gets_exactly_the_frames_it_missed_and_only_its_own_private_parts(
    log_backend, settings
):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    # Two processes' changes kept out of order (11 committed after 12 was sent): read in order.
    for version, owners in ((10, (7, 8)), (12, (8,)), (11, (7,)), (13, ())):
        broadcast.send(table_id=5, frames=change_frames(version, owners))
    assert missed(7, 10) == [
        ("private", 11, 7),
        ("update", 11, None),
        ("update", 12, None),
        ("update", 13, None),
    ]
    assert missed(8, 11) == [("private", 12, 8), ("update", 12, None), ("update", 13, None)]
    assert missed(None, 9) == [
        (kind, v, None)
        for kind, v in (("update", 10), ("update", 11), ("update", 12), ("update", 13))
    ]
    assert missed(7, 13) == []  # nothing missed
    assert broadcast.frames_missed(table_id=5, user_id=7, since=13).complete
    assert missed(7, 8) is None  # version 9 was never kept here: a snapshot
    assert missed(7, 3, table_id=6) is None  # a table with nothing kept


def test_a_version_committed_but_not_kept_yet_makes_the_answer_incomplete(log_backend):
    for version in (20, 22):  # 21: committed by another process, on its way
        frame_log.frames_keep({broadcast.log_stream(5): [(version, f'{{"version":{version}}}')]})
    answer = broadcast.frames_missed(table_id=5, user_id=None, since=20)
    assert answer is not None and answer.frames == [] and not answer.complete
    frame_log.frames_keep({broadcast.log_stream(5): [(21, '{"version":21}')]})
    answer = broadcast.frames_missed(table_id=5, user_id=None, since=20)
    assert answer.complete and answer.frames == ['{"version":21}', '{"version":22}']


def test_the_log_keeps_the_last_frames_of_each_stream(log_backend, settings):
    settings.FRAME_LOG_KEEP = 3
    for version in range(1, 7):
        frame_log.frames_keep({broadcast.log_stream(5): [(version, str(version))]})
    [(oldest, kept)] = frame_log.frames_read([broadcast.log_stream(5)], 0)
    assert oldest == 4 and kept == [(4, "4"), (5, "5"), (6, "6")]
    assert broadcast.frames_missed(table_id=5, user_id=None, since=2) is None  # 3 is gone
    assert broadcast.frames_missed(table_id=5, user_id=None, since=3).frames == ["4", "5", "6"]


@pytest.fixture(params=["redis", "memory"])
def layer_backend(request, settings):
    """The room's pub/sub layer on the test run's Redis, and the embedded room's in-memory one
    (with its in-memory frame log)."""
    if request.param == "memory":
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
        settings.FRAME_LOG_REDIS_URL = ""
    elif "InMemory" in settings.CHANNEL_LAYERS["default"]["BACKEND"]:
        pytest.skip("the pub/sub layer needs REDIS_URL")
    channel_layers.backends.clear()
    frame_log.frames_forget_all()
    yield request.param
    frame_log.frames_forget_all()


async def test_a_socket_gets_every_version_in_order_under_many_quick_changes(layer_backend):
    """A table's owner commits change after change on its database threads and goes on
    without waiting for the sends: every socket still gets every version, in order, each
    private part before its public frame, and every frame was in the frame log before any
    socket had it."""
    layer = get_channel_layer()
    after_commit.socket_loop_remember(asyncio.get_running_loop())
    sockets = {}
    for user_id in (7, 8, None):  # two players and a spectator
        channel = await layer.new_channel()
        await layer.group_add(broadcast.group_name(5), channel)
        if user_id is not None:
            await layer.group_add(broadcast.user_group_name(5, user_id), channel)
        sockets[user_id] = channel
    turn = asyncio.Lock()  # the owner's turn: one change of the table at a time

    async def change(version: int) -> None:
        private_to = (7,) if version % 3 else (7, 8)
        frames = change_frames(version, private_to)
        async with turn:
            await asyncio.to_thread(lambda: broadcast.send(table_id=5, frames=frames))

    async def read(user_id, channel) -> list[int]:
        got: list[int] = []
        while len(got) < len(versions):
            message = await asyncio.wait_for(layer.receive(channel), timeout=5)
            frame = json.loads(message["text"])
            if message["type"] == "table.update":
                # Kept before it was sent: a socket that missed it could read it again (read
                # on the loop, which holds the sends meanwhile: the in-memory layer keeps only
                # 100 messages a channel).
                kept = broadcast.frames_missed(table_id=5, user_id=user_id, since=len(got))
                assert kept is not None and message["text"] in kept.frames
                got.append(frame["version"])
            else:
                assert frame["you"] == user_id and frame["version"] == len(got) + 1
        return got

    versions = range(1, 201)
    readers = [asyncio.create_task(read(u, c)) for u, c in sockets.items()]
    await asyncio.gather(*(change(v) for v in versions))
    for reader in readers:
        assert await reader == list(versions)
    await after_commit.sends_drained()
    after_commit.socket_loop_remember(None)


# -- the hand reader's place: the player's own part, never the public frame


@pytest.mark.django_db
def test_the_hand_reading_is_in_each_players_own_part_only(monkeypatch):
    """Omaha Hi/Lo, three players called down to the river through the table service: each
    `private` frame (from the flop on, every player dealt in gets one when a street comes)
    carries that player's reading of their own cards on the board, the public frames and the
    spectator's snapshot none, and a snapshot the same reading as the last private frame."""
    from poker.engine.hand import Hand as EngineHand
    from poker.engine.reading import read_hand
    from poker.models import Hand
    from poker.selectors import table_state_for
    from tests.factories import call_down, deal_hand, make_player, make_seated_player, make_table

    table = make_table(game="omaha8", next_hand_delay_seconds=3600, action_seconds=3600)
    players = {seat: make_seated_player(table, f"reader{seat}", seat) for seat in (1, 2, 4)}
    changes: list[dict] = []
    build = broadcast.frames_and_view

    def watched(**kwargs):
        frames, view = build(**kwargs)
        changes.append(frames)
        return frames, view

    monkeypatch.setattr(broadcast, "frames_and_view", watched)
    hand = deal_hand(table)
    engine = EngineHand.from_dict(Hand.objects.with_deck().get(pk=hand.pk).state)
    holes = {
        players[seat].pk: cards for seat, cards in zip(engine.seats, engine.hole_cards, strict=True)
    }
    for street in ("flop", "turn", "river"):
        changes.clear()
        call_down(hand, players, until_street=street)
        dealt = [c for c in changes if '"street_dealt"' in c["public"]]
        assert len(dealt) == 1, street
        assert set(dealt[0]["private"]) == set(holes)  # the street reached everyone's own part
        for frames in changes:
            public = json.loads(frames["public"])
            part = public.get("hand") or public["hand_changes"]
            assert part.get("reading") is None, public
            for user_id, text in frames["private"].items():
                own = json.loads(text)["hand"]
                assert own["reading"] == read_hand(holes[int(user_id)], part["board"], hi_lo=True)
                assert (own["reading"] is None) == (not part["board"])  # none preflop
        board = Hand.objects.get(pk=hand.pk).state["board"]
        for player in players.values():
            state = table_state_for(table=table, player=player)
            assert state["hand"]["reading"] == read_hand(holes[player.pk], board, hi_lo=True)
        watcher = table_state_for(table=table, player=make_player(f"watcher-{street}"))
        assert watcher["hand"]["reading"] is None
        assert table_state_for(table=table, player=None)["hand"]["reading"] is None


@pytest.mark.django_db
def test_a_sit_and_gos_clock_and_places_come_with_each_change_but_betting(monkeypatch):
    """STATE's table.tournament reached a page in its snapshot only: the table page's bar
    never showed an elimination, the end or the player's place (nor a new level) without a
    reload. Every `update` but betting's now carries it: the hand's start with nobody out,
    the end with both places and their prizes."""
    from tests.factories import make_funded_player, make_sit_and_go
    from tests.tournaments.sng_play import play_out
    from tournaments.services import tournament_register

    sng = make_sit_and_go(seats=2, starting_chips=100)
    players = [make_funded_player(name, cents=5_000) for name in ("ann", "bob")]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    sng.refresh_from_db()
    publics: list[dict] = []
    build = broadcast.frames_and_view

    def watched(**kwargs):
        frames, view = build(**kwargs)
        publics.append(json.loads(frames["public"]))
        return frames, view

    monkeypatch.setattr(broadcast, "frames_and_view", watched)
    assert play_out(sng, players)
    betting = [frame for frame in publics if "hand_changes" in frame]
    assert betting and all("tournament" not in frame for frame in betting)
    others = [frame for frame in publics if "hand_changes" not in frame]
    assert all(frame["tournament"]["id"] == sng.pk for frame in others)
    assert others[0]["tournament"]["places"] == []  # the first hand's start
    end = others[-1]["tournament"]
    assert end["players_left"] == 0
    assert sorted((p["place"], p["prize"]) for p in end["places"]) == [(1, 2_000), (2, 0)]
