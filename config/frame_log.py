"""The last frames of each stream, numbered, where every process can read them
(docs/protocol.md "Versions and resync").

A table's frames are numbered by the table's version, which only grows (the row lock orders
its changes). The process that commits a change writes its frames here before it sends them
on the channel layer, so a frame any socket has received is already here: a socket that
reconnects or sees a gap in the numbers reads what it missed from here instead of rebuilding
the whole state from the database.

Each stream is a Redis sorted set scored by version, capped to its last `FRAME_LOG_KEEP`
frames and dropped after `FRAME_LOG_SECONDS` without a new one. A sorted set, not a list or a
stream: two processes that commit versions 10 and 11 may write them in the other order, and
the set still reads them back in version order (a Redis stream refuses an id below its last).
The embedded room (no Redis) keeps the same in this process's memory.

Nothing here decides who may read which stream: the caller names the streams (a table's
public frames, one player's private ones) and gives each socket only its own.

Beside the log every process remembers the last `FRAMES_REMEMBERED` versions of the frames it
sent itself (`frames_remember`), each version whole (its public frame with every private one of
it): a table's owner sends all of its table's frames, so a socket on the owner's process is
answered from there (`frames_missed_here`), with no round trip to Redis or the database.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable

import redis
from django.conf import settings

REDIS_TIMEOUT_SECONDS = 2.0

Entry = tuple[int, str]  # (version, the frame's JSON text)


def _key(stream: str) -> str:
    return f"{settings.FRAME_LOG_PREFIX}:frames:{stream}"


class _Memory:
    """The embedded room's log: the same operations on dicts, under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.streams: dict[str, tuple[float, dict[int, str]]] = {}

    def keep(self, writes: dict[str, list[Entry]], keep: int, seconds: float) -> None:
        now = time.monotonic()
        with self.lock:
            for stream, entries in writes.items():
                _, frames = self.streams.get(stream, (now, {}))
                frames.update(entries)
                for version in sorted(frames)[:-keep]:
                    del frames[version]
                self.streams[stream] = (now + seconds, frames)
            for stream in [s for s, (until, _) in self.streams.items() if until < now]:
                del self.streams[stream]

    def read(self, stream: str, since: int) -> tuple[int | None, list[Entry]]:
        with self.lock:
            until, frames = self.streams.get(stream, (0.0, {}))
            if not frames or until < time.monotonic():
                return None, []
            versions = sorted(frames)
            return versions[0], [(v, frames[v]) for v in versions if v > since]

    def clear(self) -> None:
        with self.lock:
            self.streams.clear()


_memory = _Memory()
_clients: dict[str, redis.Redis] = {}


def _client() -> redis.Redis | None:
    """The log's Redis (None: the embedded room keeps it in memory)."""
    url = settings.FRAME_LOG_REDIS_URL
    if not url:
        return None
    client = _clients.get(url)
    if client is None:
        client = redis.Redis.from_url(
            url,
            socket_timeout=REDIS_TIMEOUT_SECONDS,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        )
        _clients[url] = client
    return client


def frames_keep(writes: dict[str, Iterable[Entry]]) -> None:
    """Add each stream's new frames and trim it to its last `FRAME_LOG_KEEP`: one round trip
    to Redis for all of them."""
    fresh = {stream: kept for stream, entries in writes.items() if (kept := list(entries))}
    keep, seconds = settings.FRAME_LOG_KEEP, settings.FRAME_LOG_SECONDS
    client = _client()
    if client is None:
        _memory.keep(fresh, keep, seconds)
        return
    pipe = client.pipeline(transaction=False)
    for stream, entries in fresh.items():
        key = _key(stream)
        pipe.zadd(key, {text: version for version, text in entries})
        pipe.zremrangebyrank(key, 0, -keep - 1)
        pipe.expire(key, int(seconds))
    pipe.execute()


def frames_read(streams: list[str], since: int) -> list[tuple[int | None, list[Entry]]]:
    """For each stream, (the oldest version it still keeps or None when it keeps nothing,
    its frames newer than `since` in version order), in one round trip."""
    client = _client()
    if client is None:
        return [_memory.read(stream, since) for stream in streams]
    pipe = client.pipeline(transaction=False)
    for stream in streams:
        key = _key(stream)
        pipe.zrange(key, 0, 0, withscores=True)
        pipe.zrangebyscore(key, f"({since}", "+inf", withscores=True)
    answers = pipe.execute()
    read = []
    for oldest, newer in zip(answers[::2], answers[1::2], strict=True):
        first = int(oldest[0][1]) if oldest else None
        read.append((first, [(int(score), text.decode()) for text, score in newer]))
    return read


class Missed:
    """What a socket missed after version `since` (`frames_missed_in`): the frames in order,
    each private part just before the public frame of its version. `complete` is false when
    the log holds a later version but not the next one (a change committed, its frames not
    yet kept)."""

    def __init__(self, frames: list[str], complete: bool) -> None:
        self.frames = frames
        self.complete = complete


def frames_missed_in(*, public: str, private: str | None, since: int) -> Missed | None:
    """The frames after version `since` of the stream `public` (a table's public frames) and,
    merged in version order, of `private` (one player's own parts at that table, None for a
    spectator). None when the log no longer holds the next version (trimmed, expired or lost
    with Redis): the socket needs a snapshot."""
    streams = [public] if private is None else [public, private]
    (oldest, shared), *own = frames_read(streams, since)
    if oldest is None or oldest > since + 1:
        return None
    run: list[Entry] = []
    for version, text in shared:
        if version != since + 1 + len(run):
            break
        run.append((version, text))
    last = run[-1][0] if run else since
    mine = dict(own[0][1]) if own else {}
    frames = []
    for version, text in run:
        if version in mine:
            frames.append(mine[version])
        frames.append(text)
    return Missed(frames, complete=len(run) == len(shared) and last >= since)


# ------------------------------------------------------------------ this process's own frames

FRAMES_REMEMBERED = 64  # versions of each table whose frames this process sent
STREAMS_REMEMBERED = 512  # tables (the least recently sent to is forgotten first)


class _Sent:
    """The frames this process sent, per public stream: version -> (the public frame, each
    private stream's frame of that version). A version is kept whole or not at all, so a
    private stream that has none at a kept version was sent none."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.streams: OrderedDict[str, dict[int, tuple[str, dict[str, str]]]] = OrderedDict()

    def remember(self, stream: str, version: int, text: str, private: dict[str, str]) -> None:
        with self.lock:
            frames = self.streams.pop(stream, {})
            frames[version] = (text, private)
            while len(frames) > FRAMES_REMEMBERED:
                del frames[min(frames)]
            self.streams[stream] = frames
            while len(self.streams) > STREAMS_REMEMBERED:
                self.streams.popitem(last=False)

    def missed(self, public: str, private: str | None, since: int) -> Missed | None:
        with self.lock:
            frames = self.streams.get(public, {})
            newer = sorted(version for version in frames if version > since)
            if not newer or newer != list(range(since + 1, since + 1 + len(newer))):
                return None
            texts = []
            for version in newer:
                text, own = frames[version]
                if private is not None and private in own:
                    texts.append(own[private])
                texts.append(text)
            return Missed(texts, complete=True)

    def clear(self) -> None:
        with self.lock:
            self.streams.clear()


_sent = _Sent()


def frames_remember(*, version: int, public: tuple[str, str], private: dict[str, str]) -> None:
    """This process sent version `version` of the stream `public[0]` (its frame `public[1]`)
    and the private frames `private` (stream -> frame) of the same change."""
    _sent.remember(public[0], version, public[1], dict(private))


def frames_missed_here(*, public: str, private: str | None, since: int) -> Missed | None:
    """What `frames_missed_in` would answer, from the frames this process sent itself, when
    they hold every version from `since + 1` to the newest this process sent (one missing in
    between was sent by another process); else None, and the log must answer. Nothing newer
    than `since` is None too: this process may not have sent the newest version."""
    return _sent.missed(public, private, since)


def frames_forget_all() -> None:
    """Drop every stream of this log and the frames this process remembers sending (tests:
    ids restart with each test database)."""
    _sent.clear()
    client = _client()
    if client is None:
        _memory.clear()
        return
    keys = list(client.scan_iter(match=_key("*"), count=1000))
    if keys:
        client.delete(*keys)
