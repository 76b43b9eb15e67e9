"""The benchmark's and the tests' socket clients (bench/mirror.py, bench/bot_mirror.py) wait
for a gap as the page does (static/js/table_socket.js, tests/js/table_socket.test.js): the
first gap 50 ms, then a quarter more than the longest crossing they measured lately, at most
1 s, shrinking back as gaps fill quickly."""

import pytest

import bench.mirror
from bench.bot_mirror import BotMirror
from bench.mirror import GAP_WAIT_MAX_SECONDS, GAP_WAIT_SECONDS, TableMirror


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(bench.mirror.time, "monotonic", clock)
    return clock


def snapshot(version: int) -> dict:
    seats = [{"seat": 1, "stack": 100, "status": "playing", "name": "ann"}]
    hand = {"id": 7, "turn": 1, "to_act": 1, "seats": [{"seat": 1, "stack": 100}]}
    state = {"version": version, "seats": seats, "hand": hand, "you": None, "last_result": None}
    return {"type": "snapshot", "state": state}


def update(version: int) -> dict:
    changes = {"id": 7, "turn": version, "to_act": 1, "seats": [{"seat": 1, "stack": 90}]}
    return {"type": "update", "version": version, "events": [], "hand_changes": changes}


@pytest.fixture(params=[TableMirror, BotMirror], ids=["mirror", "bot_mirror"])
def mirror(request, clock):
    mirror = request.param()
    mirror.apply(snapshot(10))
    return mirror


def test_a_missing_update_that_comes_after_the_resync_lengthens_the_wait(mirror, clock):
    assert mirror.gap_wait_seconds == GAP_WAIT_SECONDS
    mirror.apply(update(12))
    clock.tick(GAP_WAIT_SECONDS)
    assert mirror.resync_frame() == {"type": "resync", "since": 10}
    mirror.apply({"type": "resync", "since": 10, "frames": [update(11), update(12)]})
    assert mirror.version == 12 and not mirror.pending
    assert mirror.gap_wait_seconds == GAP_WAIT_SECONDS  # the answer is no crossing
    clock.tick(0.15)
    mirror.apply(update(11))  # 200 ms after the gap opened: stale, but measured
    assert mirror.gap_wait_seconds == pytest.approx(0.25)


def test_the_wait_is_capped_and_shrinks_back_as_gaps_fill_quickly(mirror, clock):
    mirror.apply(update(12))
    clock.tick(5)
    mirror.apply(update(11))  # the gap filled itself, 5 s late
    assert mirror.gap_wait_seconds == GAP_WAIT_MAX_SECONDS
    version = 12
    for _ in range(40):
        mirror.apply(update(version + 2))
        clock.tick(0.005)
        mirror.apply(update(version + 1))
        version += 2
    assert mirror.version == version and mirror.gap_wait_seconds == GAP_WAIT_SECONDS


def test_a_gap_a_snapshot_covers_measures_nothing(mirror, clock):
    mirror.apply(update(12))
    clock.tick(0.5)
    mirror.apply(snapshot(12))
    assert not mirror.pending and mirror.gap_wait_seconds == GAP_WAIT_SECONDS
