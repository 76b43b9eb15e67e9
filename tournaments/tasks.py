"""Sit & Go timers: the blind level clock (`config.timeouts`, kind "tournament.level").

Set when a level starts (tournaments.services), due when it ends; it acts at the table's owner
(poker/owner.py) like a table's own timers: sent to the live owner holding the Sit & Go's
table, else run in this worker. A timer for a level already in force does nothing."""

from dataclasses import astuple

from config.timeouts import Timeout
from poker.owner import command_send_sync
from tournaments.services import LEVEL_KIND, tournament_level_up


def level_timeout(timeout: Timeout) -> str:
    payload = {"timeout": list(astuple(timeout))}
    return command_send_sync(timeout.table_id, LEVEL_KIND, payload) or _level_here(timeout)


def _level_here(timeout: Timeout) -> str:
    return tournament_level_up(tournament_id=timeout.ref_id, level=int(timeout.step))


def level_here(payload: dict) -> str:
    """The owner's side of a level timer sent to it (registered in TournamentsConfig.ready)."""
    return _level_here(Timeout(*payload["timeout"]))
