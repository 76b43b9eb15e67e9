"""The staff's tools through the admin (Django's test client), per role: who may open and use
each tool, that each asks for a reason, acts through its service and leaves exactly one
`staff.*` audit record, and that a refused act leaves none."""

from datetime import timedelta

import pytest
from django.test import Client

from audit.models import AuditRecord
from cashier.models import BalanceAdjustment
from cashier.selectors import wallet_balance
from poker import services
from poker.models import Hand, Seat, WaitingEntry
from staff.models import PlayerNote
from tests.factories import (
    deal_hand,
    make_funded_player,
    make_seated_player,
    make_staff,
    make_table,
)

pytestmark = pytest.mark.django_db

ROLES = ("support", "table managers", "cashier managers")


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.fixture
def staff() -> dict[str, Client]:
    return {role: signed_in(make_staff(role.replace(" ", "-"), role)) for role in ROLES}


def staff_records() -> list[str]:
    return list(
        AuditRecord.objects.filter(action__startswith="staff.").values_list("action", flat=True)
    )


@pytest.fixture
def table_with_hand():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal_hand(table)
    assert hand is not None and hand.status == Hand.Status.RUNNING
    return table, players, hand


# -- which role may use which tool (a 403 for the others, and nothing changes)


def tool_urls(table, hand, seat, player, adjustment, entry) -> dict[str, str]:
    return {
        "waiting_remove": f"/admin/poker/waitingentry/{entry.pk}/remove/",
        "waiting_move": f"/admin/poker/waitingentry/{entry.pk}/move/",
        "waiting_offer": f"/admin/poker/waitingentry/{entry.pk}/offer/",
        "cancel_hand": f"/admin/poker/hand/{hand.pk}/cancel/",
        "remove_seat": f"/admin/poker/seat/{seat.pk}/remove/",
        "close_table": f"/admin/poker/table/{table.pk}/close/",
        "suspend": f"/admin/staff/player/{player.pk}/suspend/",
        "adjust": f"/admin/cashier/balanceadjustment/add/?player={player.pk}",
        "approve": f"/admin/cashier/balanceadjustment/{adjustment.pk}/approve/",
        "note": f"/admin/staff/player/{player.pk}/note/",
    }


ALLOWED = {
    "support": {"note"},
    "table managers": {
        "cancel_hand",
        "remove_seat",
        "close_table",
        "waiting_remove",
        "waiting_move",
        "waiting_offer",
    },
    "cashier managers": {"suspend", "adjust", "approve"},
}


def test_each_role_opens_its_tools_and_no_others(staff, table_with_hand):
    table, players, hand = table_with_hand
    asker = make_staff("asker", "cashier managers")
    from cashier.adjustments import adjustment_request

    adjustment = adjustment_request(player=players[1], amount=100, reason="x", requested_by=asker)
    seat = Seat.objects.get(table=table, number=1)
    services.waiting_list_join(table=table, player=make_funded_player("wes"))
    entry = WaitingEntry.objects.get(table=table)
    urls = tool_urls(table, hand, seat, players[1], adjustment, entry)
    # The refused first, so the allowed GETs below still find everything in place.
    for role, client in staff.items():
        for tool, url in urls.items():
            if tool not in ALLOWED[role]:
                assert client.get(url).status_code == 403, (role, tool)
                form = {"reason": "try", "text": "t", "amount": "1", "player": "ann"}
                assert client.post(url, form).status_code == 403, (role, tool)
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.RUNNING
    assert Seat.objects.filter(pk=seat.pk).exists() and table.is_open
    assert WaitingEntry.objects.filter(pk=entry.pk).exists()
    assert staff_records() == ["staff.adjustment_requested"]
    for role, client in staff.items():
        for tool in ALLOWED[role]:
            assert client.get(urls[tool]).status_code == 200, (role, tool)


def test_a_player_without_staff_rights_gets_the_login_page(table_with_hand):
    _, players, hand = table_with_hand
    client = signed_in(players[1])
    response = client.get(f"/admin/poker/hand/{hand.pk}/cancel/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


# -- each tool, end to end through the admin


def test_cancel_hand_needs_a_reason_then_cancels_with_one_record(staff, table_with_hand):
    _, _, hand = table_with_hand
    client = staff["table managers"]
    url = f"/admin/poker/hand/{hand.pk}/cancel/"
    assert client.post(url, {"reason": "  "}).status_code == 400
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.RUNNING
    assert staff_records() == []
    response = client.post(url, {"reason": "dealer error reported"})
    assert response.status_code == 302
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.CANCELLED
    assert staff_records() == ["staff.hand_cancel"]
    # Again: refused on the page, nothing more recorded.
    again = client.post(url, {"reason": "twice"})
    assert again.status_code == 400 and b"hand_not_running" in again.content
    assert staff_records() == ["staff.hand_cancel"]


def test_hand_page_offers_cancel_only_to_table_managers(staff, table_with_hand):
    _, _, hand = table_with_hand
    page = f"/admin/poker/hand/{hand.pk}/change/"
    assert b"tool-cancel-hand" in staff["table managers"].get(page).content
    assert b"tool-cancel-hand" not in staff["support"].get(page).content


def test_remove_seat_and_close_reopen_table(staff, table_with_hand):
    table, _, _ = table_with_hand
    client = staff["table managers"]
    make_seated_player(table, "cy", 4)  # not in the running hand: cashed out at once
    seat = Seat.objects.get(table=table, number=4)
    assert (
        client.post(
            f"/admin/poker/seat/{seat.pk}/remove/", {"reason": "abuse", "bar_hours": "72"}
        ).status_code
        == 302
    )
    assert not Seat.objects.filter(pk=seat.pk).exists()
    response = client.post(f"/admin/poker/table/{table.pk}/close/", {"reason": "maintenance"})
    assert response.status_code == 302
    table.refresh_from_db()
    assert not table.is_open
    assert set(Seat.objects.filter(table=table).values_list("leave_pending", flat=True)) == {True}
    assert (
        client.post(f"/admin/poker/table/{table.pk}/reopen/", {"reason": "done"}).status_code == 302
    )
    table.refresh_from_db()
    assert table.is_open
    assert staff_records() == ["staff.table_reopen", "staff.table_close", "staff.seat_remove"]


def test_waiting_list_tools_from_the_table_page(staff):
    """The table's list links to each entry's page, whose tools (table managers
    only) remove, move and offer a seat, each with one audit record."""
    table = make_table(max_seats=2, next_hand_delay_seconds=3600)
    ann = make_seated_player(table, "ann", 1)
    make_seated_player(table, "ben", 2)
    cat, dan, eve = (make_funded_player(name) for name in ("cat", "dan", "eve"))
    for player in (cat, dan, eve):
        services.waiting_list_join(table=table, player=player)
    entry = {e.player.username: e for e in WaitingEntry.objects.filter(table=table)}
    client = staff["table managers"]
    table_page = client.get(f"/admin/poker/table/{table.pk}/change/").content.decode()
    assert f"/admin/poker/waitingentry/{entry['eve'].pk}/change/" in table_page
    page = f"/admin/poker/waitingentry/{entry['eve'].pk}/change/"
    for tool in (b"tool-waiting-remove", b"tool-waiting-move", b"tool-waiting-offer"):
        assert tool in client.get(page).content
        assert tool not in staff["support"].get(page).content
    assert staff["support"].get(page).status_code == 200  # every role reads the list

    move = f"/admin/poker/waitingentry/{entry['eve'].pk}/move/"
    assert b'value="3"' in client.get(move).content  # her place now
    assert client.post(move, {"reason": "", "place": "1"}).status_code == 400
    assert client.post(move, {"reason": "medical", "place": "1"}).status_code == 302

    def order() -> list[str]:
        return [e.player.username for e in WaitingEntry.objects.filter(table=table)]

    assert order() == ["eve", "cat", "dan"]
    services.table_leave(table=table, player=ann)
    assert WaitingEntry.objects.get(pk=entry["eve"].pk).offer_expires_at is not None
    offer = f"/admin/poker/waitingentry/{entry['dan'].pk}/offer/"
    response = client.post(offer, {"reason": "floor decision"})
    assert response.status_code == 302
    assert response["Location"] == f"/admin/poker/table/{table.pk}/change/"
    offered = WaitingEntry.objects.filter(table=table, offer_expires_at__isnull=False)
    assert [e.player.username for e in offered] == ["dan"]
    remove = f"/admin/poker/waitingentry/{entry['cat'].pk}/remove/"
    assert client.post(remove, {"reason": "asked to leave"}).status_code == 302
    assert order() == ["eve", "dan"]
    again = client.post(remove, {"reason": "twice"})
    assert again.status_code == 404
    assert staff_records() == ["staff.waiting_remove", "staff.seat_offer", "staff.waiting_move"]


def test_suspend_reinstate_and_note_from_the_player_page(staff):
    player = make_funded_player("pat")
    page = f"/admin/staff/player/{player.pk}/change/"
    assert b"tool-suspend" in staff["cashier managers"].get(page).content
    assert b"tool-suspend" not in staff["support"].get(page).content
    client = staff["cashier managers"]
    assert (
        client.post(f"/admin/staff/player/{player.pk}/suspend/", {"reason": "kyc"}).status_code
        == 302
    )
    player.refresh_from_db()
    assert not player.is_active
    assert b"SUSPENDED" in client.get(page).content
    assert (
        client.post(f"/admin/staff/player/{player.pk}/reinstate/", {"reason": "ok"}).status_code
        == 302
    )
    player.refresh_from_db()
    assert player.is_active
    note = staff["support"].post(f"/admin/staff/player/{player.pk}/note/", {"text": "called in"})
    assert note.status_code == 302
    assert PlayerNote.objects.get(player=player).text == "called in"
    assert b"called in" in client.get(page).content
    assert staff_records() == [
        "staff.player_note",
        "staff.account_reinstate",
        "staff.account_suspend",
    ]


def test_four_eyes_adjustment_through_the_admin(staff):
    player = make_funded_player("pat", cents=10_000)
    asker = staff["cashier managers"]
    checker = signed_in(make_staff("checker", "cashier managers"))
    response = asker.post(
        "/admin/cashier/balanceadjustment/add/",
        {"player": "pat", "amount": "-12.50", "reason": "duplicate deposit"},
    )
    assert response.status_code == 302
    adjustment = BalanceAdjustment.objects.get()
    assert adjustment.amount == -1250 and wallet_balance(player=player) == 10_000
    page = f"/admin/cashier/balanceadjustment/{adjustment.pk}/change/"
    assert b"tool-approve" not in asker.get(page).content
    assert b"tool-approve" in checker.get(page).content
    refused = asker.post(
        f"/admin/cashier/balanceadjustment/{adjustment.pk}/approve/", {"reason": "me"}
    )
    assert refused.status_code == 400 and b"four_eyes" in refused.content
    assert wallet_balance(player=player) == 10_000
    done = checker.post(
        f"/admin/cashier/balanceadjustment/{adjustment.pk}/approve/", {"reason": "seen"}
    )
    assert done.status_code == 302
    assert wallet_balance(player=player) == 8_750
    assert b"$12.50" in checker.get(page).content
    assert staff_records() == ["staff.adjustment_approved", "staff.adjustment_requested"]


@pytest.mark.parametrize("amount", ["abc", "0", "1.234", ""])
def test_bad_adjustment_amounts_change_nothing(staff, amount):
    make_funded_player("pat")
    response = staff["cashier managers"].post(
        "/admin/cashier/balanceadjustment/add/", {"player": "pat", "amount": amount, "reason": "x"}
    )
    assert response.status_code == 400
    assert not BalanceAdjustment.objects.exists() and staff_records() == []


def test_table_stakes_are_edited_in_dollars(staff):
    table = make_table(name="Dollar", small_blind=50, big_blind=100)
    client = staff["table managers"]
    page = client.get(f"/admin/poker/table/{table.pk}/change/").content.decode()
    assert 'value="0.50"' in page and 'value="1.00"' in page
    assert "$50.00 to $100.00" in client.get("/admin/poker/table/").content.decode()
    form = client.get(f"/admin/poker/table/{table.pk}/change/").context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    data.update(
        {"small_blind": "1.00", "big_blind": "$2", "seats-TOTAL_FORMS": "0",
         "seats-INITIAL_FORMS": "0", "seats-MIN_NUM_FORMS": "0", "seats-MAX_NUM_FORMS": "0",
         "waiting-TOTAL_FORMS": "0", "waiting-INITIAL_FORMS": "0",
         "waiting-MIN_NUM_FORMS": "0", "waiting-MAX_NUM_FORMS": "0"}
    )  # fmt: skip
    data = {k: ("on" if v is True else v) for k, v in data.items() if v is not False}
    response = client.post(f"/admin/poker/table/{table.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[-2000:]
    table.refresh_from_db()
    assert (table.small_blind, table.big_blind) == (100, 200)
    data["big_blind"] = "two"
    assert client.post(f"/admin/poker/table/{table.pk}/change/", data).status_code == 200
    table.refresh_from_db()
    assert table.big_blind == 200


def test_a_table_edit_does_not_write_back_what_the_hand_changed_meanwhile(staff, monkeypatch):
    """Only the fields the form changed are written: saving every column of the table as it
    was read when the edit was posted would write back stale what a hand moved on in between
    (button, next hand's time, and the version and lease that fence each process's copy of
    the table), letting a process recall seats and a hand that are no longer the table's."""
    from poker.admin import TableAdmin
    from poker.models import Table

    table = make_table(name="Busy")
    make_seated_player(table, "dee", 4)
    make_seated_player(table, "eve", 6)
    client = staff["table managers"]
    form = client.get(f"/admin/poker/table/{table.pk}/change/").context["adminform"].form
    data = {name: form[name].value() for name in form.fields if form[name].value() is not None}
    data = {k: ("on" if v is True else v) for k, v in data.items() if v is not False}
    data.update(
        {"name": "Renamed", "seats-TOTAL_FORMS": "0", "seats-INITIAL_FORMS": "0",
         "waiting-TOTAL_FORMS": "0", "waiting-INITIAL_FORMS": "0"}
    )  # fmt: skip
    moved_on = {"version": table.version + 7, "lease_epoch": table.lease_epoch + 3,
                "lease_owner": "worker-2", "button_seat": 6}  # fmt: skip
    loaded = TableAdmin.get_object

    def then_a_hand_moves_on(self, request, object_id, from_field=None):
        obj = loaded(self, request, object_id, from_field)
        Table.objects.filter(pk=obj.pk).update(**moved_on)  # as the hand's own change writes
        return obj

    monkeypatch.setattr(TableAdmin, "get_object", then_a_hand_moves_on)
    response = client.post(f"/admin/poker/table/{table.pk}/change/", data)
    assert response.status_code == 302, response.content.decode()[-2000:]
    table.refresh_from_db()
    assert table.name == "Renamed"
    assert {name: getattr(table, name) for name in moved_on} == moved_on
    record = AuditRecord.objects.filter(action="staff.admin_change").latest("seq")
    assert record.payload["changed"] == ["name"]


def test_money_shows_in_dollars_on_the_ledger_and_limit_pages(staff):
    from responsible.services import deposit_limit_set

    player = make_funded_player("pat", cents=123_456)
    deposit_limit_set(player=player, period="day", amount=250_000)
    client = staff["support"]
    for url, shown in (
        ("/admin/cashier/account/?q=pat", "$1,234.56"),
        ("/admin/cashier/posting/?q=pat", "$1,234.56"),
        ("/admin/responsible/depositlimit/", "$2,500.00"),
        ("/admin/staff/player/", "$1,234.56"),
        (f"/admin/staff/player/{player.pk}/change/", "$1,234.56"),
    ):
        page = client.get(url).content.decode()
        assert shown in page, url
        assert "123456" not in page and "250000" not in page, url


def test_only_table_managers_edit_tables_and_every_role_reads(staff):
    table = make_table(name="Edited")
    page = f"/admin/poker/table/{table.pk}/change/"
    for role, client in staff.items():
        for url in ("/admin/poker/hand/", "/admin/cashier/entry/", "/admin/staff/player/", page):
            assert client.get(url).status_code == 200, (role, url)
        shows_save = 'name="_save"' in client.get(page).content.decode()
        assert shows_save == (role == "table managers"), role
    response = staff["support"].post(page, {"name": "Renamed"})
    assert response.status_code == 403
    table.refresh_from_db()
    assert table.name == "Edited"


def test_remove_bars_for_the_chosen_period_and_the_bar_is_lifted_on_its_page(staff):
    """The remove form asks for the bar's period (24 hours unless staff
    choose another); every role reads the bars, table managers lift them."""
    from poker.models import TableBar

    table = make_table()
    cy = make_seated_player(table, "cy", 4)
    seat = Seat.objects.get(player=cy)
    client = staff["table managers"]
    form = client.get(f"/admin/poker/seat/{seat.pk}/remove/").content.decode()
    assert '<option value="24" selected>24 hours</option>' in form
    assert '<option value="168">7 days</option>' in form
    refused = client.post(f"/admin/poker/seat/{seat.pk}/remove/", {"reason": "x", "bar_hours": "5"})
    assert refused.status_code == 400 and Seat.objects.filter(pk=seat.pk).exists()
    response = client.post(
        f"/admin/poker/seat/{seat.pk}/remove/", {"reason": "abuse", "bar_hours": "168"}
    )
    assert response.status_code == 302
    bar = TableBar.objects.get(player=cy, table=table)
    assert bar.until - bar.created_at == timedelta(days=7)
    page = f"/admin/poker/tablebar/{bar.pk}/change/"
    for role in ROLES:
        assert staff[role].get("/admin/poker/tablebar/").status_code == 200, role
        assert staff[role].get(page).status_code == 200, role
    assert b"tool-lift-bar" in client.get(page).content
    assert b"tool-lift-bar" not in staff["support"].get(page).content
    lift = f"/admin/poker/tablebar/{bar.pk}/lift/"
    assert staff["support"].post(lift, {"reason": "try"}).status_code == 403
    assert client.post(lift, {"reason": "apologised"}).status_code == 302
    bar.refresh_from_db()
    assert bar.lifted_at is not None
    assert staff_records() == ["staff.bar_lift", "staff.seat_remove"]
