"""The owner's side of a socket's command: the typed command, rebuilt from what crossed to the
owner, calls its service (docs/architecture.md "One action").

Each command type maps to the service it calls as service(table=..., player=..., **its
fields); `key`, the client's idempotency key, becomes the service's `idempotency_key` for this
table. Registered as a callable with the owner in PokerConfig.ready.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from config.db_pool import refuse_when_pool_exhausted
from poker import owner, services
from poker.commands import (
    Act,
    BigBlindChoice,
    Chat,
    Command,
    ConnectionSet,
    Leave,
    RunsAnswer,
    SeatOptions,
    ShowCards,
    Sit,
    SitIn,
    SitOut,
    TopUp,
    WaitingJoin,
    WaitingLeave,
)

SERVICES: dict[type, Callable[..., Any]] = {
    Act: services.table_act,
    Sit: services.table_sit,
    SitOut: services.table_sit_out,
    SitIn: services.table_sit_in,
    BigBlindChoice: services.table_big_blind_choose,
    TopUp: services.table_top_up,
    Leave: services.table_leave,
    RunsAnswer: services.table_runs_answer,
    ShowCards: services.table_show_cards,
    SeatOptions: services.table_seat_options_set,
    Chat: services.table_chat_send,
    WaitingJoin: services.waiting_list_join,
    WaitingLeave: services.waiting_list_leave,
    ConnectionSet: services.table_connection_set,
}
COMMANDS: dict[str, type] = {command.__name__: command for command in SERVICES}


def command_here(payload: dict[str, Any]) -> str:
    """Run a socket's command here, at the table's owner."""
    _payload_run(payload)
    return "done"


def _payload_run(payload: dict[str, Any]) -> Any:
    """The command rebuilt from what crossed to the owner (`owner.command_payload`), run."""
    command = COMMANDS[payload["command"]](**payload["fields"])
    return command_run(command, payload["table"], owner.socket_command_user(payload))


# The owner's command kind for a page's command that waits for its service's answer (the
# lobby's waiting-list buttons: poker/views.py), registered in PokerConfig.ready.
ANSWER_KIND = "poker.answer"


def command_answer_here(payload: dict[str, Any]) -> str:
    """`command_here` for a caller waiting for the service's answer: it, as JSON."""
    return json.dumps(_payload_run(payload))


def command_at_the_owner(command: Command, table_id: int, user: Any) -> Any:
    """From a page's request (a thread, not a socket): run the command at the table's live
    owner in another process and wait for its service's answer (a refusal raised as the same
    `TableError`), so a request never changes a table another owner holds; here when no other
    live owner holds it (this process then takes the lease, as a timeout does)."""
    payload = owner.command_payload(table_id, command, user)
    answer = owner.command_ask_sync(table_id, ANSWER_KIND, payload)
    if answer is None:
        return command_run(command, table_id, user)
    return json.loads(answer)


def command_run(command: Command | ConnectionSet, table_id: int, user: Any) -> Any:
    """The service's answer. No free database connection in time is a refusal (`busy`),
    answered like any other."""
    arguments = vars(command).copy()
    if isinstance(command, Sit | TopUp):  # a money movement: the client's key, else a fresh one
        arguments["idempotency_key"] = _idempotency_key(command, table_id, arguments.pop("key"))
    with refuse_when_pool_exhausted():
        return SERVICES[type(command)](table=table_id, player=user, **arguments)


def _idempotency_key(command: Sit | TopUp, table_id: int, key: str | None) -> str:
    """The client's `key` for this table (so a resent frame moves money once), else a fresh
    one (a frame without a key is never a resend)."""
    if key is None:
        return f"{command.money_kind}-{uuid.uuid4()}"
    return f"{command.money_kind}-{table_id}-{key}"
