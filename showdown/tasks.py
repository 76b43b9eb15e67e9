"""The banked game's tasks: void rounds unresolved for 90 days (RULES.md 6), the live table's
timers (a round's deadlines, an away seat's limit), their sweep and the live tables'
heartbeat.

A live round's timer is the room's one timer path (`config.timeouts`, as a poker turn's): a
Celery task carrying (table, round, phase), due at the round's deadline. It does nothing once
the round has left that phase (one read); else it is sent to the table's live owner
(poker/owner.py), which runs `timeout_here`, or, when no live owner other than this process
holds the table, runs here. The sweep is the backstop, the same way."""

from dataclasses import astuple

from celery import shared_task

from config.timeouts import Timeout
from poker.broadcast import send_heartbeats
from poker.owner import command_send_sync
from showdown.services import rounds_void_stale


@shared_task(name="showdown.void_stale_rounds")
def void_stale_rounds() -> int:
    """From beat, daily: each due round voided in its own transaction; how many."""
    return len(rounds_void_stale())


def live_round_timeout(timeout: Timeout) -> str:
    """A live round's timer at its deadline (`config.timeouts`): deal, or fold the undecided
    and settle, at the table's owner. Does nothing once the round has moved on from the phase
    it was set in ("", or "owner" when sent to the owner, which checks again)."""
    from showdown.live import live_round_in_phase

    if not live_round_in_phase(round_id=timeout.ref_id, phase=str(timeout.step)):
        return ""
    payload = {"timeout": list(astuple(timeout))}
    return command_send_sync(timeout.table_id, "showdown.timeout", payload) or timeout_here(payload)


def live_away_timeout(timeout: Timeout) -> str:
    """An away seat's timer at the table's limit (`showdown.live._away_timer`): stand it up
    at the table's owner if it is still away since (the service checks, under the lock). A
    player who came back (most) costs one read."""
    from showdown.models import LiveSeat

    if not LiveSeat.objects.filter(pk=timeout.ref_id, connected=False).exists():
        return "moved_on"
    payload = {"timeout": list(astuple(timeout))}
    return command_send_sync(timeout.table_id, "showdown.timeout", payload) or timeout_here(payload)


def timeout_here(payload: dict) -> str:
    """The owner's side of a live table's timeout, a round's or an away seat's (registered
    in ShowdownConfig.ready)."""
    from showdown.live import live_round_advance, live_seat_away_stand

    timeout = Timeout(*payload["timeout"])
    if timeout.kind == "showdown.away":
        return live_seat_away_stand(table_id=timeout.table_id, seat_id=timeout.ref_id)
    return live_round_advance(round_id=timeout.ref_id, phase=str(timeout.step))


def _sweep_at_owner(table_id: int, round_id: int, phase: str) -> bool:
    timeout = Timeout("showdown.round", table_id, round_id, phase, 0.0)
    sent = command_send_sync(table_id, "showdown.timeout", {"timeout": list(astuple(timeout))})
    return sent is not None


def _away_at_owner(table_id: int, seat_id: int) -> bool:
    timeout = Timeout("showdown.away", table_id, seat_id, 0, 0.0)
    sent = command_send_sync(table_id, "showdown.timeout", {"timeout": list(astuple(timeout))})
    return sent is not None


@shared_task(name="showdown.sweep_live_rounds")
def sweep_live_rounds() -> dict:
    """Every few seconds, from beat: live rounds past their deadline and seats away past
    their table's limit (lost timers' backstop), done at their tables' owners."""
    from showdown.live import live_rounds_sweep, live_seats_away_sweep

    done = live_rounds_sweep(at_owner=_sweep_at_owner)
    return {**done, **live_seats_away_sweep(at_owner=_away_at_owner)}


@shared_task(name="showdown.live_tables_heartbeat", ignore_result=True)
def live_tables_heartbeat() -> int:
    """Every POKER_HEARTBEAT_SECONDS: each live table's version to its sockets through its
    group, as at poker tables, so a page can tell a silent socket from a quiet table."""
    from showdown.live import group_name
    from showdown.live_selectors import live_table_versions

    versions = live_table_versions()
    send_heartbeats(versions, group_of=group_name)
    return len(versions)
