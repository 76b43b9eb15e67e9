"""poker.mirror holds an update that skips a version until the one before it comes (frames
from different server processes may cross), as static/js/table.js does."""

from poker.mirror import TableMirror


def snapshot(version: int) -> dict:
    hand = {"id": 7, "turn": 1, "to_act": 1, "seats": [{"seat": 1, "stack": 100}], "result": None}
    state = {"version": version, "you": None, "hand": hand, "seats": [{"seat": 1, "stack": 100}]}
    return {"type": "snapshot", "state": state}


def update(version: int, turn: int) -> dict:
    changes = {"id": 7, "turn": turn, "to_act": 1, "seats": [{"seat": 1, "stack": 100 - turn}]}
    return {"type": "update", "version": version, "events": [], "hand_changes": changes}


def test_an_update_that_comes_early_waits_for_the_one_before_it():
    mirror = TableMirror()
    mirror.apply(snapshot(10))
    assert mirror.apply(update(12, 3)) is False
    assert mirror.version == 10 and list(mirror.held) == [12]
    assert mirror.apply(update(11, 2)) is True
    assert mirror.version == 12 and mirror.state["hand"]["turn"] == 3
    assert mirror.held == {} and mirror.gaps == 0 and mirror.stale == 0


def test_when_the_missing_one_never_comes_the_held_ones_apply_as_a_gap():
    mirror = TableMirror()
    mirror.apply(snapshot(10))
    mirror.apply(update(13, 4))
    mirror.apply(update(12, 3))
    assert mirror.held_give_up() is True
    assert mirror.version == 13 and mirror.state["hand"]["turn"] == 4
    assert mirror.gaps == 1 and mirror.held == {}
    assert mirror.held_give_up() is False


def test_a_snapshot_drops_what_it_covers_and_applies_what_follows():
    mirror = TableMirror()
    mirror.apply(snapshot(10))
    mirror.apply(update(12, 3))
    mirror.apply(update(14, 5))
    mirror.apply(snapshot(13))
    assert mirror.version == 14 and mirror.held == {}
    assert mirror.apply(update(12, 3)) is False and mirror.stale == 1
