"""Table timers (RULES.md 6) and the periodic tasks of the tables.

The timers are `config.timeouts` timeouts, set by the services on commit and run by the
handlers below (registered in `PokerConfig.ready`). Each only calls a service that reads the
step it was set for and then re-reads the database under the table lock, so a duplicated, late
or lost timer changes nothing: a turn's timeout does nothing once the turn has moved on, and
the periodic sweep acts on the deadlines stored in the database.

A due timeout acts at the table's owner (poker/owner.py): sent to the live owner holding the
table (which runs `timeout_here`), else run in this worker. The sweep's finds go the same way
(`sweep_here` at the owner)."""

from dataclasses import astuple

from celery import shared_task

from config.timeouts import Timeout
from poker import broadcast, services
from poker.models import RngCheck
from poker.owner import command_send_sync
from poker.rng_checks import QUICK_RAW_DRAWS, QUICK_SHUFFLES, rng_check_run
from poker.selectors import table_versions_for_heartbeat


def turn_timeout(timeout: Timeout) -> str:
    """Time is up for the turn the timeout was set for: check if possible, else fold (if
    still that turn and its deadline has passed). A turn played in time costs one read."""
    hand_id, turn = timeout.ref_id, int(timeout.step)
    passed = services.hand_turn_passed(hand_id=hand_id, turn=turn)
    if passed:
        return passed
    return _at_owner(timeout) or _turn_timeout_here(timeout)


def _turn_timeout_here(timeout: Timeout) -> str:
    hand_id, turn = timeout.ref_id, int(timeout.step)
    return services.hand_turn_timeout(hand_id=hand_id, turn=turn)


def hand_start_timeout(timeout: Timeout) -> str:
    """The pause after a hand is over: deal the next one if the table is ready."""
    return _at_owner(timeout) or _hand_start_here(timeout)


def _hand_start_here(timeout: Timeout) -> str:
    return services.table_start_timeout(table_id=timeout.table_id)


def sit_out_timeout(timeout: Timeout) -> str:
    """A player has sat out for the table's limit: evict them (if still out since then)."""
    return _at_owner(timeout) or _sit_out_here(timeout)


def _sit_out_here(timeout: Timeout) -> str:
    return services.seat_sit_out_timeout(
        table_id=timeout.table_id, seat_id=timeout.ref_id, sat_out=int(timeout.step)
    )


_HERE = {
    "poker.turn": _turn_timeout_here,
    "poker.hand_start": _hand_start_here,
    "poker.sit_out": _sit_out_here,
}


def _at_owner(timeout: Timeout) -> str | None:
    """Send the timeout to the table's live owner ("owner"), or None: run it here."""
    return command_send_sync(timeout.table_id, "poker.timeout", {"timeout": list(astuple(timeout))})


def timeout_here(payload: dict) -> str:
    """The owner's side of a timeout sent to it (registered in PokerConfig.ready)."""
    timeout = Timeout(*payload["timeout"])
    return _HERE[timeout.kind](timeout)


@shared_task(name="poker.sweep_tables", ignore_result=True)
def sweep_tables() -> dict:
    """Every few seconds: overdue turns, stuck hands, hands due to start, sitters-out past
    the limit, seat offers past their time; each at its table's owner (counted as "sent"),
    or here when no live owner holds the table."""
    return services.tables_sweep(at_owner=_sweep_at_owner)


def _sweep_at_owner(table_id: int, item: dict) -> bool:
    """Send what the sweep found due at a table to its live owner (True), or not (False: the
    sweep does it here)."""
    return command_send_sync(table_id, "poker.sweep", item) is not None


def sweep_here(payload: dict) -> str:
    """The owner's side of a sweep's item (registered in PokerConfig.ready): done if it is
    still due."""
    return services.sweep_item_run(item=payload)


@shared_task(name="poker.tables_heartbeat", ignore_result=True)
def tables_heartbeat() -> int:
    """Every POKER_HEARTBEAT_SECONDS: each table's version to its sockets through its group,
    so a page can tell a silent socket from a quiet table. Returns how many tables."""
    versions = table_versions_for_heartbeat()
    broadcast.send_heartbeats(versions)
    return len(versions)


@shared_task(name="poker.rng_check_daily", ignore_result=True)
def rng_check_daily() -> bool:
    """Once a day: the quick form of the RNG battery on `secrets`, stored as an RngCheck
    (staff see it in the admin; a failure is also logged as an error). Returns the verdict."""
    return rng_check_run(
        shuffles=QUICK_SHUFFLES, raw_draws=QUICK_RAW_DRAWS, form=RngCheck.Form.QUICK
    ).passed
