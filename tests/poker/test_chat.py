"""Table chat (docs/rules.md "Table chat"): who may write, the rate limit, what a line carries,
what every page gets, and staff removing a line (audit log)."""

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async as sync_to_async
from django.test import override_settings

from audit.models import AuditRecord
from poker import services
from poker.models import ChatMessage
from poker.selectors import chat_recent, player_json, table_snapshot_for
from poker.services import TableError
from responsible.services import exclusion_start
from tests.factories import (
    TableSocket,
    deal_hand,
    make_funded_player,
    make_seated_player,
    make_staff,
    make_table,
)

pytestmark = pytest.mark.django_db


def test_a_seated_player_s_line_is_kept_as_written_and_shown_by_display_name():
    table = make_table()
    ann = make_seated_player(table, "ann", 2)
    written = "<script>alert('x')</script> nice   hand\n& gg"
    services.table_chat_send(table=table, player=ann, text=written)
    (line,) = chat_recent(table_id=table.pk)
    # Kept as text (pages write it with textContent), on one line; the writer by seat and name.
    assert line["text"] == "<script>alert('x')</script> nice hand & gg"
    assert line["seat"] == 2
    assert line["player"] == {"id": ann.pk, "display_name": player_json(ann)["display_name"]}
    assert set(line) == {"id", "seat", "player", "text", "at"}
    watcher = make_funded_player("watcher")
    assert table_snapshot_for(table=table, player=watcher)["chat"] == [line]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "chat_empty"),
        ("   \n ", "chat_empty"),
        ("x" * 201, "chat_too_long"),
        (None, "bad_field"),
        (42, "bad_field"),
        ("bell\x07", "bad_field"),
        ("right-to-left \u202e trick", "bad_field"),
    ],
)
def test_bad_lines_are_refused_and_nothing_is_kept(text, code):
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    with pytest.raises(TableError) as refused:
        services.table_chat_send(table=table, player=ann, text=text)
    assert refused.value.code == code and refused.value.message
    assert not ChatMessage.objects.exists()


def test_spectators_do_not_write():
    table = make_table()
    with pytest.raises(TableError) as refused:
        services.table_chat_send(table=table, player=make_funded_player("zed"), text="hi")
    assert refused.value.code == "not_seated"


def test_excluded_and_suspended_players_do_not_write():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    deal_hand(table)  # in a hand: the seat stays until it ends
    exclusion_start(player=players[1], kind="time_out", length=1)
    with pytest.raises(TableError) as refused:
        services.table_chat_send(table=table, player=players[1], text="hi")
    assert refused.value.code == "excluded"
    type(players[2]).objects.filter(pk=players[2].pk).update(is_active=False)
    with pytest.raises(TableError) as refused:
        services.table_chat_send(table=table, player=players[2], text="hi")
    assert refused.value.code == "account_suspended"
    assert not ChatMessage.objects.exists()


@override_settings(POKER_CHAT_LIMIT=3, POKER_CHAT_WINDOW_SECONDS=60)
def test_the_rate_limit_is_per_player():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    ben = make_seated_player(table, "ben", 2)
    for n in range(3):
        services.table_chat_send(table=table, player=ann, text=f"line {n}")
    with pytest.raises(TableError) as refused:
        services.table_chat_send(table=table, player=ann, text="one too many")
    assert refused.value.code == "chat_too_fast"
    services.table_chat_send(table=table, player=ben, text="my turn")
    assert ChatMessage.objects.count() == 4


def test_staff_who_may_moderate_remove_a_line_with_a_reason_in_the_audit_log():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    line = services.table_chat_send(table=table, player=ann, text="buy chips at spam.example")
    kept = services.table_chat_send(table=table, player=ann, text="gl all")
    cashier_staff = make_staff("carl", "cashier managers")
    support = make_staff("sue", "support")
    with pytest.raises(TableError) as refused:
        services.chat_message_remove(message=line, staff=cashier_staff, reason="spam")
    assert refused.value.code == "not_staff"
    with pytest.raises(TableError) as refused:
        services.chat_message_remove(message=line, staff=support, reason="  ")
    assert refused.value.code == "reason_required"
    with pytest.raises(TableError) as refused:
        services.chat_message_remove(message=line, staff=ann, reason="spam")
    assert refused.value.code == "not_staff"
    assert not AuditRecord.objects.filter(action="staff.chat_remove").exists()

    services.chat_message_remove(message=line, staff=support, reason="advertising")
    line.refresh_from_db()
    assert line.removed_at is not None and line.removed_by == support
    assert [entry["id"] for entry in chat_recent(table_id=table.pk)] == [kept.pk]
    record = AuditRecord.objects.get(action="staff.chat_remove")
    assert record.actor_id == support.pk and record.reason == "advertising"
    assert record.payload["text"] == "buy chips at spam.example"
    assert record.payload["player"] == ann.pk
    with pytest.raises(TableError) as refused:
        services.chat_message_remove(message=line, staff=support, reason="again")
    assert refused.value.code == "already_removed"


@pytest.mark.django_db(transaction=True)
def test_every_socket_at_the_table_gets_the_line_and_its_removal():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    watcher = make_funded_player("watcher")
    support = make_staff("sue", "support")

    async def scenario():
        writer = await TableSocket.open(table.pk, ann)
        spectator = await TableSocket.open(table.pk, watcher)
        await writer.send({"type": "chat", "text": "hello <b>table</b>"})
        for client in (writer, spectator):
            frame = await client.until(lambda f: f["type"] == "chat")
            assert frame["message"]["text"] == "hello <b>table</b>"
            assert frame["message"]["player"]["display_name"] == player_json(ann)["display_name"]
        await spectator.send({"type": "chat", "text": "me too"})
        refused = await spectator.until(lambda f: f["type"] == "error")
        assert refused["code"] == "not_seated"
        line = await sync_to_async(ChatMessage.objects.get)()
        await sync_to_async(services.chat_message_remove)(
            message=line.pk, staff=support, reason="test"
        )
        for client in (writer, spectator):
            frame = await client.until(lambda f: f["type"] == "chat_removed")
            assert frame == {"type": "chat_removed", "id": line.pk}
        await writer.close()
        await spectator.close()

    async_to_sync(scenario)()


def test_staff_read_the_chat_in_the_admin_and_remove_a_line_there():
    from django.test import Client

    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    line = services.table_chat_send(table=table, player=ann, text="<img src=x onerror=alert(1)>")
    viewer, moderator = Client(), Client()
    viewer.force_login(make_staff("carl", "cashier managers"))
    moderator.force_login(make_staff("sue", "support"))
    listing = viewer.get("/admin/poker/chatmessage/")
    assert listing.status_code == 200
    assert b"&lt;img src=x onerror=alert(1)&gt;" in listing.content
    assert b"<img src=x" not in listing.content
    page = f"/admin/poker/chatmessage/{line.pk}/remove/"
    assert viewer.get(page).status_code == 403  # may read, not remove
    # The removal page shows the line it removes (as text), not only its number.
    form = moderator.get(page).content
    assert b"&lt;img src=x onerror=alert(1)&gt;" in form and b"<img src=x" not in form
    assert (
        b"tool-remove-chat" in moderator.get(f"/admin/poker/chatmessage/{line.pk}/change/").content
    )
    assert moderator.post(page, {"reason": ""}).status_code == 400  # the form again, unchanged
    line.refresh_from_db()
    assert line.removed_at is None
    response = moderator.post(page, {"reason": "harassment"})
    assert response.status_code == 302
    line.refresh_from_db()
    assert line.removed_reason == "harassment" and line.removed_by.username == "sue"
    assert AuditRecord.objects.filter(action="staff.chat_remove", reason="harassment").count() == 1
