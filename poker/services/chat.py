"""Table chat (docs/rules.md "Table chat"): seated players write, everyone at the table reads,
staff remove a line with a reason (in the audit log).

Chat is not the table's state: a line takes no table lock and bumps no version (a hand in play
never waits for a chat line). It is sent after commit to the table's group as a frame of its
own, `chat` (and `chat_removed` when staff take one back).
"""

from __future__ import annotations

import unicodedata

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import audit_record
from config.ratelimit import rate_limit_hit
from poker import broadcast
from poker.frames import ChatFrame, ChatRemovedFrame
from poker.models import ChatMessage, Seat, Table
from poker.selectors import chat_message_json
from poker.services.unit import TableError
from responsible import rules as responsible


def _clean_text(text) -> str:
    """One line of at most `ChatMessage.MAX_LENGTH` characters, no control characters."""
    if not isinstance(text, str):
        raise TableError("bad_field", _("A chat message is text."))
    text = " ".join(text.split())  # one line: newlines and runs of spaces become one space
    if not text:
        raise TableError("chat_empty", _("Write something first."))
    if len(text) > ChatMessage.MAX_LENGTH:
        raise TableError(
            "chat_too_long",
            _("A chat message is at most %(max)s characters.") % {"max": ChatMessage.MAX_LENGTH},
        )
    if any(unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn") for char in text):
        raise TableError("bad_field", _("A chat message cannot hold control characters."))
    return text


def table_chat_send(*, table: Table | int, player, text) -> ChatMessage:
    """A seated player's line to everyone at the table. Refused (nothing sent) for spectators,
    a player on a time-out or self-exclusion, a suspended account, an empty or too long line,
    and past `POKER_CHAT_LIMIT` lines in `POKER_CHAT_WINDOW_SECONDS`."""
    text = _clean_text(text)
    table_id = table.pk if isinstance(table, Table) else table
    # Suspended, excluded, terms not accepted; a loss or session limit stops play, not chat.
    responsible.check_standing(player=player, error=TableError)
    seat = Seat.objects.filter(table_id=table_id, player=player).select_related("table").first()
    if seat is None:
        raise TableError("not_seated", _("Only players seated at the table may chat."))
    if not rate_limit_hit(
        key=f"table-chat:{table_id}:{player.pk}",
        limit=settings.POKER_CHAT_LIMIT,
        window_seconds=settings.POKER_CHAT_WINDOW_SECONDS,
    ):
        raise TableError(
            "chat_too_fast",
            _("Slow down: at most %(limit)s messages in %(seconds)s seconds.")
            % {"limit": settings.POKER_CHAT_LIMIT, "seconds": settings.POKER_CHAT_WINDOW_SECONDS},
        )
    with transaction.atomic():
        message = ChatMessage.objects.create(
            table_id=table_id, player=player, seat=seat.number, text=text
        )
        frame: ChatFrame = {"type": "chat", "message": chat_message_json(message)}
        transaction.on_commit(lambda: broadcast.send_table_frame(table_id=table_id, frame=frame))
    return message


def chat_message_remove(*, message: ChatMessage | int, staff, reason: str) -> ChatMessage:
    """Staff take a line back: it leaves every page at the table and every later snapshot;
    the row keeps it, with who removed it, when and why (also in the audit log)."""
    if (
        not isinstance(staff, get_user_model())
        or not staff.is_staff
        or not staff.has_perm("poker.remove_chatmessage")
    ):
        raise TableError("not_staff", _("Only staff allowed to moderate chat may remove it."))
    if not isinstance(reason, str) or not reason.strip():
        raise TableError("reason_required", _("Say why: a reason is required."))
    with transaction.atomic():
        row = (
            ChatMessage.objects.select_for_update()
            .filter(pk=getattr(message, "pk", message))
            .first()
        )
        if row is None:
            raise TableError("no_message", _("There is no such chat message."))
        if row.removed_at is not None:
            raise TableError("already_removed", _("This message was removed already."))
        row.removed_at = timezone.now()
        row.removed_by = staff
        row.removed_reason = reason.strip()
        row.save(update_fields=["removed_at", "removed_by", "removed_reason"])
        audit_record(
            action="staff.chat_remove",
            actor=staff,
            subject=row,
            payload={
                "table": row.table_id,
                "player": row.player_id,
                "seat": row.seat,
                "text": row.text,
                "written_at": row.created_at.isoformat(),
            },
            reason=row.removed_reason,
        )
        removed: ChatRemovedFrame = {"type": "chat_removed", "id": row.pk}
        table_id = row.table_id
        transaction.on_commit(lambda: broadcast.send_table_frame(table_id=table_id, frame=removed))
    return row
