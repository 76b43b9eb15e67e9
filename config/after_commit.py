"""What a change sends after its commit, handed off so that the table's turn does not wait for
it (docs/benchmarks.md, "An owner's turn after its commit").

A table's owner runs a change on one of its process's database threads (config/db_threads.py)
and the table's next command waits until that call returns (`poker.owner.in_table_order`). What
the change sends after its commit used to run on that thread and hold the table meanwhile: the
group sends of its frames (a hop to the event loop, then the channel layer's publishes one
Redis round trip after another) and the Celery task of its next timeout. In a process serving
sockets (daphne, the embedded room: `socket_loop_remember` was called by a socket) they are
handed off instead:

- **Channel-layer sends** (`layer_send_queue`) go to one first-in-first-out line per process,
  read by one task on the sockets' event loop, which runs them one after another. So what
  this process sends leaves in the order it was handed off: a table's changes are handed off
  in the order they committed (its owner runs them one at a time), and each socket therefore
  receives the versions of a table changed in this process in order, as when the thread
  waited. The frames are kept in the frame log before they are handed off
  (`poker.broadcast.frames_send`), so a socket never sees a frame the log lacks.
- **Blocking sends** (`blocking_send_queue`: a Celery task with its eta) take their place in
  the same line, which passes them to one thread of their own per process when their turn
  comes: after the frames handed off before them, so players never wait for a timer.

A send that fails, or that the channel layer does not finish within `SEND_SECONDS`, costs a log
line, as before: a page asks again for what it missed (the frame log), a lost timeout is found
by the sweep. What is still in line when the process stops is lost the same way. Anywhere else
(a Celery worker, a management command, a test without sockets) nothing is handed off: the
caller runs the send itself and waits, as before.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger(__name__)

# A send to the channel layer that takes longer is given up (logged): a stuck Redis must not
# hold every later frame of the process.
SEND_SECONDS = 5.0
# Sends waiting in line past this many are dropped (logged): pages ask again for what they miss.
LINE_LIMIT = 10_000

_loop: asyncio.AbstractEventLoop | None = None


class _Line:
    """The process's line of channel-layer sends, on one event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[tuple[Callable[[], Awaitable[None]], str]] = asyncio.Queue()
        self.reader: asyncio.Task | None = None
        self.idle = asyncio.Event()
        self.idle.set()

    def put(self, call: Callable[[], Awaitable[None]], what: str) -> None:
        """On the loop: add a send to the line (and start its reader)."""
        if self.queue.qsize() >= LINE_LIMIT:
            log.error("%s dropped: %s sends already waiting", what, LINE_LIMIT)
            return
        self.idle.clear()
        self.queue.put_nowait((call, what))
        if self.reader is None or self.reader.done():
            self.reader = self.loop.create_task(self.read())

    async def read(self) -> None:
        while True:
            call, what = await self.queue.get()
            try:
                async with asyncio.timeout(SEND_SECONDS):
                    await call()
            except Exception:
                log.exception("could not send %s", what)
            if self.queue.empty():
                self.idle.set()


_line: _Line | None = None


def socket_loop_remember(loop: asyncio.AbstractEventLoop | None) -> None:
    """This process serves sockets on `loop` (called by each socket as it connects): sends
    after a commit are handed to it from now on (None: no longer; tests)."""
    global _loop
    _loop = loop


def _socket_loop() -> asyncio.AbstractEventLoop | None:
    loop = _loop
    if loop is None or not loop.is_running():
        return None
    return loop


def layer_send_queue(call: Callable[[], Awaitable[None]], what: str) -> bool:
    """Hand `call()` (a coroutine sending on the channel layer) to the process's line of sends,
    without waiting for it; `what` names it in a failure's log line. False when this process
    serves no sockets: the caller sends it itself."""
    loop = _socket_loop()
    if loop is None:
        return False
    try:
        running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is loop:
        _line_of(loop).put(call, what)
    else:
        # call_soon_threadsafe runs its callbacks in the order they were made: the line's order.
        loop.call_soon_threadsafe(lambda: _line_of(loop).put(call, what))
    return True


def _line_of(loop: asyncio.AbstractEventLoop) -> _Line:
    global _line
    if _line is None or _line.loop is not loop:
        _line = _Line(loop)
    return _line


_sender: ThreadPoolExecutor | None = None
_sender_pid: int | None = None
_sender_lock = threading.Lock()


def _sender_thread() -> ThreadPoolExecutor:
    global _sender, _sender_pid
    pid = os.getpid()
    if _sender is None or _sender_pid != pid:
        with _sender_lock:
            if _sender is None or _sender_pid != pid:
                _sender = ThreadPoolExecutor(max_workers=1, thread_name_prefix="after-commit")
                _sender_pid = pid
    return _sender


def blocking_send_queue(send: Callable[[], None], what: str) -> None:
    """Run `send()` (blocking I/O, such as a Celery task's publish) on the process's sender
    thread when this process serves sockets, in the order handed off, and only once the
    channel-layer sends handed off before it have left (it takes its place in the same line
    and is passed to the thread from there): the frames a change sends go out before its
    timer's publish takes the interpreter. Anywhere else it runs now, in this thread. A
    failure is logged."""

    def run() -> None:
        try:
            send()
        except Exception:
            log.exception("could not send %s", what)

    async def pass_on() -> None:
        _sender_thread().submit(run)

    if not layer_send_queue(pass_on, what):
        run()


async def sends_drained() -> None:
    """Wait, on the sockets' loop, until everything handed off so far has been sent: the
    line's channel-layer sends, then the sender thread's (tests, benches)."""
    line = _line
    if line is None or line.loop is not asyncio.get_running_loop():
        return
    await line.idle.wait()
    sender = _sender
    if sender is not None and _sender_pid == os.getpid():
        await asyncio.wrap_future(sender.submit(lambda: None))
