"""A socket's `resync` (docs/protocol.md "Versions and resync"): on the process of the table's
owner it is answered from the frames that process sent itself, with no database statement and
no read of the frame log; elsewhere from the frame log, as before; and a socket has at most one
answered at a time (another coming meanwhile is folded into it, at no cost of its own)."""

import asyncio

import pytest
from channels.db import database_sync_to_async as sync_to_async
from django.db.backends import utils as db_utils

from config import frame_log
from poker import owner
from tests.factories import TableSocket
from tests.poker.table_sockets import new_table, seat_player

pytestmark = pytest.mark.django_db(transaction=True)


class Counted:
    """Every database statement any thread sends (but the owner's lease renewal, which runs on
    its own clock), and every read of the frame log."""

    def __init__(self, monkeypatch) -> None:
        self.sql: list[str] = []
        self.log_reads = 0
        execute = db_utils.CursorWrapper._execute_with_wrappers

        def counted(cursor, sql, *args, **kwargs):
            if "lease_expires_at" not in sql or not sql.startswith("UPDATE"):
                self.sql.append(sql)
            return execute(cursor, sql, *args, **kwargs)

        monkeypatch.setattr(db_utils.CursorWrapper, "_execute_with_wrappers", counted)
        read = frame_log.frames_read

        def log_read(*args, **kwargs):
            self.log_reads += 1
            return read(*args, **kwargs)

        monkeypatch.setattr(frame_log, "frames_read", log_read)

    def reset(self) -> None:
        self.sql.clear()
        self.log_reads = 0


async def seated_socket():
    table = await new_table()
    ann = await seat_player(table, "ann", 1)
    socket = await TableSocket.open(table.pk, ann)
    snapshot = await socket.until(lambda f: f["type"] == "snapshot")
    return table, socket, snapshot["state"]["version"]


@pytest.mark.usefixtures("owner_routing")
async def test_a_resync_at_the_owner_s_process_reads_neither_the_database_nor_the_log(monkeypatch):
    table, socket, version = await seated_socket()
    assert owner.holds_here(table.pk), "her connection ran here, as the table's owner"
    counted = Counted(monkeypatch)
    await socket.send({"type": "resync", "since": version - 1})
    answer = await socket.until(lambda f: f["type"] == "resync")
    assert [(f["type"], f["version"]) for f in answer["frames"]] == [
        ("private", version),
        ("update", version),
    ]
    assert counted.sql == [] and counted.log_reads == 0

    # Another process's owner holds the table: the frame log answers, as it did, and still
    # no statement (the log is in Redis).
    owner._holder_is(table.pk, "owner|elsewhere:1:ab|some.channel")
    counted.reset()
    await socket.send({"type": "resync", "since": version - 1})
    again = await socket.until(lambda f: f["type"] == "resync")
    assert again["frames"] == answer["frames"]
    assert counted.sql == [] and counted.log_reads == 1
    await socket.close()


def test_the_frames_a_process_sent_answer_only_when_they_hold_every_version_since():
    """Nothing newer than `since`, or a version this process did not send (another process
    committed it), and the log must answer: None. Each private part only to its own player."""
    frame_log.frames_forget_all()
    public, ann, ben = "table-9001", "table-9001-user-1", "table-9001-user-2"
    for version in (10, 11, 12):
        frame_log.frames_remember(
            version=version, public=(public, f"u{version}"), private={ann: f"a{version}"}
        )
    frame_log.frames_remember(version=14, public=(public, "u14"), private={ben: "b14"})
    missed = frame_log.frames_missed_here(public=public, private=ann, since=10)
    assert missed is None, "13 was sent by another process: the log knows it"
    frame_log.frames_remember(version=13, public=(public, "u13"), private={})
    missed = frame_log.frames_missed_here(public=public, private=ann, since=10)
    assert missed is not None and missed.complete
    assert missed.frames == ["a11", "u11", "a12", "u12", "u13", "u14"]
    spectator = frame_log.frames_missed_here(public=public, private=None, since=12)
    assert spectator is not None and spectator.frames == ["u13", "u14"]
    assert frame_log.frames_missed_here(public=public, private=ann, since=14) is None
    assert frame_log.frames_missed_here(public=public, private=ann, since=8) is None
    assert frame_log.frames_missed_here(public="table-9002", private=None, since=0) is None
    for version in range(15, 15 + frame_log.FRAMES_REMEMBERED):
        frame_log.frames_remember(version=version, public=(public, f"u{version}"), private={})
    assert frame_log.frames_missed_here(public=public, private=None, since=13) is None, "trimmed"
    frame_log.frames_forget_all()
    assert frame_log.frames_missed_here(public=public, private=None, since=20) is None


async def test_a_second_resync_while_one_is_answered_is_folded_into_it(monkeypatch):
    """The first resync finds its frames gone and waits its turn for a snapshot (one a second);
    a second one sent meanwhile is not answered on its own and reads nothing."""
    _table, socket, version = await seated_socket()
    await sync_to_async(frame_log.frames_forget_all)()  # gone: the answer is a snapshot
    counted = Counted(monkeypatch)
    await socket.send({"type": "snapshot"})  # the next snapshot waits a second
    await socket.until(lambda f: f["type"] == "snapshot")
    counted.reset()
    await socket.send({"type": "resync", "since": version - 1})
    await asyncio.sleep(0)
    await socket.send({"type": "resync", "since": version - 1})
    await socket.send({"type": "ping", "echo": 7})  # the socket answers meanwhile
    pong = await socket.until(lambda f: f["type"] in ("pong", "snapshot", "resync"))
    assert pong == {"type": "pong", "echo": 7}, "the ping was not held up by the resync"
    answer = await socket.until(lambda f: f["type"] in ("snapshot", "resync"))
    assert answer["type"] == "snapshot" and answer["state"]["version"] == version
    assert await socket.communicator.receive_nothing(timeout=0.3), "one answer for both"
    assert counted.log_reads == 1, "the second resync read nothing"
    await socket.close()
