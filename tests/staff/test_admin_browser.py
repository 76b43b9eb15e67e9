"""The staff's tools end to end in Chromium (Playwright) against daphne, the Redis channel
layer and the test database: a table manager cancels a running hand from its admin page while
two players watch the table (every bet back, both sockets get `hand_cancelled`), and a
balance adjustment is refused to the staff member who asked for it and posted once another
approves it; a player sends an identity document and asks a withdrawal that waits, and the
compliance role approves the document and pays the withdrawal out."""

import pytest

from audit.models import AuditRecord
from cashier.models import BalanceAdjustment, PendingWithdrawal
from cashier.selectors import table_stack_balance, wallet_balance
from poker.models import Hand
from tests.factories import (
    PNG,
    deal_hand,
    document_file,
    make_compliance_officer,
    make_funded_player,
    make_seated_player,
    make_staff,
    make_table,
)
from tests.poker.table_page import (
    HAND_STARTED,
    LAPTOP,
    PHONE,
    close_and_settle,
    open_table,
    record_calls,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def frames_of(page) -> list[str]:
    """Every WebSocket frame the page receives from now on (attach before it opens)."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(payload)))
    return frames


def use_tool(page, url: str, link: str, reason: str) -> None:
    """Open the admin page `url`, use its tool `link` with `reason`, and wait for success."""
    page.goto(url)
    page.click(link)
    page.fill("textarea[name=reason]", reason)
    page.click("input[name=confirm]")
    page.wait_for_selector(".messagelist .success")


def test_a_table_manager_cancels_a_running_hand_and_both_players_are_told(signed_in_page):
    table = make_table(next_hand_delay_seconds=3600)
    ann = make_seated_player(table, "ann", 1)
    ben = make_seated_player(table, "ben", 2)
    stacks = {p.pk: table_stack_balance(player=p, table=table) for p in (ann, ben)}
    pages = {ann.pk: signed_in_page(ann, LAPTOP), ben.pk: signed_in_page(ben, LAPTOP)}
    frames = {pk: frames_of(page) for pk, page in pages.items()}
    manager = make_staff("tm", "table managers")
    admin_page = signed_in_page(manager, LAPTOP)
    try:
        for page in pages.values():
            record_calls(page)
            open_table(page, table)
        hand = deal_hand(table)
        for page in pages.values():
            page.wait_for_function(HAND_STARTED)
        # The blinds are in the pot: the stacks the pages show are short of the buy-ins.
        use_tool(
            admin_page,
            f"/admin/poker/hand/{hand.pk}/change/",
            "#tool-cancel-hand",
            "dealer error reported by ann",
        )
        assert "every bet is returned" in admin_page.inner_text(".messagelist")

        hand.refresh_from_db()
        assert hand.status == Hand.Status.CANCELLED
        assert {p.pk: table_stack_balance(player=p, table=table) for p in (ann, ben)} == stacks
        # Each page has handled the frame (a sleeping loop here would not let Playwright
        # deliver the frames it records for `frames_of`).
        for page in pages.values():
            page.wait_for_function(
                "(part) => window.testCalls.received.some((text) => text.includes(part))",
                arg='"hand_cancelled"',
            )
        record = AuditRecord.objects.get(action="staff.hand_cancel")
        assert record.actor == manager and record.reason == "dealer error reported by ann"
        # The players hear the room's sentence, not the staff's reason.
        assert not any("dealer error" in f for fs in frames.values() for f in fs)
        assert all(page.errors == [] for page in pages.values())
    finally:
        admin_page.context.close()
        close_and_settle(table, pages.values())


def test_four_eyes_adjustment_refused_to_its_requester_then_posted(signed_in_page):
    player = make_funded_player("pat", cents=10_000)
    asker = make_staff("asker", "cashier managers")
    checker = make_staff("checker", "cashier managers")
    asker_page = signed_in_page(asker, LAPTOP)
    checker_page = signed_in_page(checker, LAPTOP)
    try:
        asker_page.goto(f"/admin/staff/player/{player.pk}/change/")
        assert asker_page.inner_text("#player-wallet") == "$100.00"
        asker_page.click("#tool-adjust")
        assert asker_page.input_value("input[name=player]") == "pat"
        asker_page.fill("input[name=amount]", "25.50")
        asker_page.fill("textarea[name=reason]", "goodwill after an outage")
        asker_page.click("input[name=confirm]")
        asker_page.wait_for_selector(".messagelist .success")
        adjustment = BalanceAdjustment.objects.get()
        assert adjustment.amount == 2550 and wallet_balance(player=player) == 10_000

        # The asker's page offers no approval, and the approval page refuses them.
        asker_page.goto(f"/admin/cashier/balanceadjustment/{adjustment.pk}/change/")
        assert asker_page.locator("#tool-approve").count() == 0
        asker_page.goto(f"/admin/cashier/balanceadjustment/{adjustment.pk}/approve/")
        asker_page.fill("textarea[name=reason]", "approving my own")
        asker_page.click("input[name=confirm]")
        asker_page.wait_for_selector(".errorlist.nonfield")
        assert "four_eyes" in asker_page.inner_text(".errorlist.nonfield")
        adjustment.refresh_from_db()
        assert adjustment.status == BalanceAdjustment.Status.PENDING
        assert wallet_balance(player=player) == 10_000

        use_tool(
            checker_page,
            f"/admin/cashier/balanceadjustment/{adjustment.pk}/change/",
            "#tool-approve",
            "outage confirmed",
        )
        adjustment.refresh_from_db()
        assert adjustment.status == BalanceAdjustment.Status.POSTED
        assert adjustment.decided_by == checker and adjustment.entry is not None
        assert wallet_balance(player=player) == 12_550
        checker_page.goto(f"/admin/staff/player/{player.pk}/change/")
        assert checker_page.inner_text("#player-wallet") == "$125.50"
        assert "$25.50" in checker_page.inner_text("#player-ledger")
        actions = set(AuditRecord.objects.values_list("action", flat=True))
        assert {"staff.adjustment_requested", "staff.adjustment_approved"} <= actions
    finally:
        asker_page.context.close()
        checker_page.context.close()


def test_the_other_tools_from_their_admin_pages(signed_in_page):
    """Remove a seat, close and reopen a table (table manager); suspend and reinstate an
    account (cashier manager); a note (support): each through its button and reason form."""
    table = make_table(next_hand_delay_seconds=3600)
    cy = make_seated_player(table, "cy", 4)
    pat = make_funded_player("pat")
    pages = {
        role: signed_in_page(make_staff(name, role), LAPTOP)
        for name, role in (("tm", "table managers"), ("cm", "cashier managers"), ("sp", "support"))
    }
    try:
        manager = pages["table managers"]
        seat = table.seats.get(number=4)
        use_tool(
            manager, f"/admin/poker/seat/{seat.pk}/change/", "#tool-remove-seat", "abusive chat"
        )
        assert not table.seats.filter(player=cy).exists()
        use_tool(
            manager, f"/admin/poker/table/{table.pk}/change/", "#tool-close-table", "maintenance"
        )
        table.refresh_from_db()
        assert not table.is_open
        use_tool(
            manager,
            f"/admin/poker/table/{table.pk}/change/",
            "#tool-reopen-table",
            "maintenance over",
        )
        table.refresh_from_db()
        assert table.is_open

        cashier = pages["cashier managers"]
        use_tool(
            cashier,
            f"/admin/staff/player/{pat.pk}/change/",
            "#tool-suspend",
            "identity check pending",
        )
        pat.refresh_from_db()
        assert not pat.is_active
        use_tool(
            cashier, f"/admin/staff/player/{pat.pk}/change/", "#tool-reinstate", "identity checked"
        )
        pat.refresh_from_db()
        assert pat.is_active

        support = pages["support"]
        support.goto(f"/admin/staff/player/{pat.pk}/change/")
        assert support.locator("#tool-suspend").count() == 0
        support.click("#tool-note")
        support.fill("textarea[name=text]", "called about a late withdrawal")
        support.click("input[name=confirm]")
        support.wait_for_selector(".messagelist .success")
        support.goto(f"/admin/staff/player/{pat.pk}/change/")
        assert "called about a late withdrawal" in support.content()
        actions = list(
            AuditRecord.objects.filter(action__startswith="staff.").values_list("action", flat=True)
        )
        assert sorted(actions) == sorted(
            [
                "staff.seat_remove",
                "staff.table_close",
                "staff.table_reopen",
                "staff.account_suspend",
                "staff.account_reinstate",
                "staff.player_note",
            ]
        )
    finally:
        for page in pages.values():
            page.context.close()


def test_a_withdrawal_waits_for_the_documents_and_compliance_pays_it_out(signed_in_page, tmp_path):
    from verification.models import Document
    from verification.services import document_approve, document_upload

    player = make_funded_player("kim", cents=300_000)
    officer = make_compliance_officer()
    phone = signed_in_page(player, PHONE)
    desk = signed_in_page(officer, LAPTOP)
    scan = tmp_path / "passport.png"
    scan.write_bytes(PNG)
    try:
        phone.goto("/cashier/")
        phone.fill("#id_date_of_birth", "1990-05-17")
        phone.click("#birth-date-form button")
        phone.wait_for_selector(".messages .success")
        phone.select_option("#id_kind", "identity")
        phone.set_input_files("#id_file", str(scan))
        phone.click("#document-form button")
        phone.wait_for_function("document.body.innerText.includes('Waiting for review')")
        phone.fill("#withdraw-amount", "2500")
        phone.click("#withdraw-form button")
        phone.wait_for_selector("#pending-withdrawals")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        pending = PendingWithdrawal.objects.get()
        assert (pending.player, pending.amount, pending.status) == (player, 250_000, "pending")

        identity = Document.objects.get(player=player)
        address = document_upload(player=player, kind="address", file=document_file())
        document_approve(document=address, approved_by=officer, reason="utility bill")
        use_tool(desk, f"/admin/verification/document/{identity.pk}/change/", "#tool-approve",
                 "passport matches")  # fmt: skip
        desk.goto(f"/admin/verification/document/{identity.pk}/change/")
        assert desk.locator("#document-file").count() == 1
        use_tool(desk, f"/admin/cashier/pendingwithdrawal/{pending.pk}/change/",
                 "#tool-approve", "documents approved")  # fmt: skip
        pending.refresh_from_db()
        assert pending.status == "paid" and pending.decided_by == officer
        assert phone.errors == [] and desk.errors == []
    finally:
        phone.context.close()
        desk.context.close()
