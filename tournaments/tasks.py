"""Sit & Go timers: the blind level clock (`config.timeouts`, kind "tournament.level").

Set when a level starts (tournaments.services), due when it ends; it acts at the table's owner
(poker/owner.py) like a table's own timers: sent to the live owner holding the Sit & Go's
table, else run in this worker. A timer for a level already in force does nothing. The beat's
sweep (`sweep_levels`) runs again every level clock whose end has passed: a lost timer's."""

from dataclasses import astuple

from celery import shared_task

from config.timeouts import Timeout
from poker.owner import command_send_sync
from tournaments.services import LEVEL_KIND, tournament_level_up, tournaments_levels_sweep


def level_timeout(timeout: Timeout) -> str:
    payload = {"timeout": list(astuple(timeout))}
    return command_send_sync(timeout.table_id, LEVEL_KIND, payload) or _level_here(timeout)


def _level_here(timeout: Timeout) -> str:
    return tournament_level_up(tournament_id=timeout.ref_id, level=int(timeout.step))


def level_here(payload: dict) -> str:
    """The owner's side of a level timer sent to it (registered in TournamentsConfig.ready)."""
    return _level_here(Timeout(*payload["timeout"]))


@shared_task(name="tournaments.sweep_levels", ignore_result=True)
def sweep_levels() -> dict:
    """Every few seconds: each running Sit & Go's level clock past its end, as its timer
    would have run it (at the table's owner, else here); {what it did: how many}."""
    done: dict[str, int] = {}
    for timeout in tournaments_levels_sweep():
        outcome = level_timeout(timeout)
        done[outcome] = done.get(outcome, 0) + 1
    return done
