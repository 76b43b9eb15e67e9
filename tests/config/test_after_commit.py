"""The sends after a commit, handed off (config/after_commit.py): in the order they were handed
off whichever threads handed them, a failing or stuck one logged and passed over, the blocking
ones on their own thread after the channel-layer sends before them, and all of it run at once
in the caller where no sockets are served."""

import asyncio
import threading

import pytest

from config import after_commit


@pytest.fixture
async def serving():
    """This test's loop as a process's sockets' loop; forgotten afterwards."""
    after_commit.socket_loop_remember(asyncio.get_running_loop())
    yield
    await after_commit.sends_drained()
    after_commit.socket_loop_remember(None)


def record(sent: list, item) -> object:
    async def send() -> None:
        await asyncio.sleep(0)  # a send that waits, as a publish does
        sent.append(item)

    return send


async def test_sends_leave_in_the_order_they_were_handed_off_from_many_threads(serving):
    """Four database threads hand off a table's changes one after another (the owner runs a
    table's changes one at a time), as fast as they can: they leave in that order, and the
    threads never wait for them."""
    sent: list[int] = []
    turn = threading.Lock()
    handed: list[int] = []

    def change(version: int) -> None:
        with turn:
            handed.append(version)
            assert after_commit.layer_send_queue(record(sent, version), f"version {version}")

    versions = range(1, 401)
    await asyncio.gather(*(asyncio.to_thread(change, v) for v in versions))
    await after_commit.sends_drained()
    assert sent == handed and sorted(sent) == list(versions)


async def test_a_failing_or_stuck_send_is_logged_and_the_line_goes_on(serving, caplog, monkeypatch):
    monkeypatch.setattr(after_commit, "SEND_SECONDS", 0.05)
    sent: list[str] = []

    async def fails() -> None:
        raise ConnectionError("Redis went away")

    async def hangs() -> None:
        await asyncio.sleep(10)

    def hand_off() -> None:
        after_commit.layer_send_queue(record(sent, "first"), "first")
        after_commit.layer_send_queue(fails, "the failing one")
        after_commit.layer_send_queue(hangs, "the stuck one")
        after_commit.layer_send_queue(record(sent, "last"), "last")

    await asyncio.to_thread(hand_off)
    await asyncio.wait_for(after_commit.sends_drained(), timeout=3)
    assert sent == ["first", "last"]
    logged = [r.getMessage() for r in caplog.records if r.name == "config.after_commit"]
    assert logged == ["could not send the failing one", "could not send the stuck one"]


async def test_a_blocking_send_runs_on_its_thread_after_the_layer_sends_before_it(serving):
    order: list[str] = []
    threads: list[str] = []

    def timer() -> None:
        threads.append(threading.current_thread().name)
        order.append("timer")

    def change() -> None:
        after_commit.layer_send_queue(record(order, "frames"), "frames")
        after_commit.blocking_send_queue(timer, "a timer")

    await asyncio.to_thread(change)
    await after_commit.sends_drained()
    assert order == ["frames", "timer"]
    assert threads[0].startswith("after-commit")


def test_without_sockets_nothing_is_handed_off(caplog):
    """A Celery worker, a command, a test: the caller sends, and a failure is logged."""
    after_commit.socket_loop_remember(None)

    async def send() -> None:
        raise AssertionError("not run: the caller sends it itself")

    assert after_commit.layer_send_queue(send, "frames") is False
    ran: list[str] = []
    after_commit.blocking_send_queue(lambda: ran.append(threading.current_thread().name), "t")
    assert ran == [threading.current_thread().name]

    def broken() -> None:
        raise ConnectionError("broker down")

    after_commit.blocking_send_queue(broken, "a timer")
    assert [r.getMessage() for r in caplog.records] == ["could not send a timer"]
