"""Staff suspend and reinstate accounts: sessions and tokens end, seats are left after the
hand, the cashier refuses deposits, withdrawals and buy-ins with `account_suspended`, one audit
record per act; a refused act changes nothing and records nothing."""

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from rest_framework.authtoken.models import Token

from audit.models import AuditRecord
from cashier import services as cashier
from cashier.selectors import wallet_balance
from lobby.suspension import AccountError, account_reinstate, account_suspend
from poker import services as poker
from poker.models import Hand, Seat, WaitingEntry
from tests.factories import (
    call_down,
    deal_hand,
    make_funded_player,
    make_seated_player,
    make_staff,
    make_table,
    table_stakes,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def manager():
    return make_staff("cm", "cashier managers")


def test_suspension_locks_the_cashier_and_ends_sessions(manager):
    player = make_funded_player("sam", cents=50_000)
    client = Client()
    client.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
    Token.objects.create(user=player)
    table = make_table()
    ended = account_suspend(player=player, staff=manager, reason="chargeback under review")
    assert ended["sessions"] == 1 and not Session.objects.exists()
    assert not Token.objects.filter(user=player).exists()
    player.refresh_from_db()
    assert not player.is_active
    for attempt in (
        lambda: cashier.wallet_deposit(player=player, amount=100, idempotency_key="d1"),
        lambda: cashier.wallet_withdraw(player=player, amount=100, idempotency_key="w1"),
        lambda: cashier.table_buy_in(
            player=player, **table_stakes(table), amount=table.max_buy_in, idempotency_key="b1"
        ),
    ):
        with pytest.raises(cashier.CashierError) as refused:
            attempt()
        assert refused.value.code == "account_suspended"
    with pytest.raises(poker.TableError) as refused:
        poker.table_sit(
            table=table,
            player=player,
            seat_number=1,
            buy_in=table.max_buy_in,
            post_big_blind=False,
            idempotency_key="s1",
        )
    assert refused.value.code == "account_suspended"
    assert wallet_balance(player=player) == 50_000
    assert client.get("/cashier/").status_code == 302  # logged out: to the login page
    record = AuditRecord.objects.get(action="staff.account_suspend")
    assert record.actor == manager and record.reason == "chargeback under review"

    account_reinstate(player=player, staff=manager, reason="cleared")
    cashier.wallet_withdraw(player=player, amount=100, idempotency_key="w2")
    assert wallet_balance(player=player) == 49_900
    assert AuditRecord.objects.filter(action="staff.account_reinstate").count() == 1


def test_seat_is_left_after_the_hand(manager):
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    ben = make_seated_player(table, "ben", 2)
    hand = deal_hand(table)
    account_suspend(player=ann, staff=manager, reason="fraud check")
    hand.refresh_from_db()
    if hand.status == Hand.Status.RUNNING:  # ann is still in it, folded at her turns
        assert Seat.objects.get(table=table, player=ann).leave_pending
        call_down(hand, {1: ann, 2: ben})
    assert not Seat.objects.filter(table=table, player=ann).exists()
    assert cashier.Account.objects.get(kind="table_stack", owner=ann, table=table).balance == 0


def test_refusals_change_nothing(manager):
    player = make_funded_player("sue")
    for kwargs, code in (
        ({"player": player, "staff": manager, "reason": "  "}, "reason_required"),
        ({"player": player, "staff": player, "reason": "x"}, "not_staff"),
        ({"player": manager, "staff": manager, "reason": "x"}, "own_account"),
    ):
        with pytest.raises(AccountError) as refused:
            account_suspend(**kwargs)
        assert refused.value.code == code
    with pytest.raises(AccountError) as refused:
        account_reinstate(player=player, staff=manager, reason="x")
    assert refused.value.code == "not_suspended"
    player.refresh_from_db()
    assert player.is_active
    assert not AuditRecord.objects.filter(action__startswith="staff.account").exists()


def test_a_suspended_player_leaves_every_waiting_list_at_once(manager):
    """No seat offer waits out its time for a suspended account; the seat held for
    them goes to the next in line at once."""
    tables = [make_table(max_seats=2, next_hand_delay_seconds=3600) for _ in range(2)]
    for table in tables:
        make_seated_player(table, f"a{table.pk}", 1)
        make_seated_player(table, f"b{table.pk}", 2)
    sam, dan = make_funded_player("sam"), make_funded_player("dan")
    for table in tables:
        poker.waiting_list_join(table=table, player=sam)
        poker.waiting_list_join(table=table, player=dan)
    poker.table_leave(table=tables[0], player=Seat.objects.get(table=tables[0], number=1).player)
    assert WaitingEntry.objects.get(table=tables[0], player=sam).offer_expires_at is not None

    ended = account_suspend(player=sam, staff=manager, reason="fraud check")
    assert ended["waiting_lists"] == sorted(t.pk for t in tables)
    assert not WaitingEntry.objects.filter(player=sam).exists()
    assert WaitingEntry.objects.get(table=tables[0], player=dan).offer_expires_at is not None
    assert WaitingEntry.objects.get(table=tables[1], player=dan).offer_expires_at is None


def test_suspension_reaches_staff_only_from_a_superuser(manager):
    """Staff accounts and superusers are beyond the cashier managers' reach, both ways
    (suspend and reinstate), so a cashier manager cannot suspend the superusers and the other
    approver and lock every administrator out."""
    from tests.factories import make_player

    root = make_player("root", is_staff=True, is_superuser=True)
    approver = make_staff("cm2", "cashier managers")
    helper = make_staff("sp", "support")
    for target in (root, approver, helper):
        with pytest.raises(AccountError) as refused:
            account_suspend(player=target, staff=manager, reason="takeover")
        assert refused.value.code == "above_your_role"
        target.refresh_from_db()
        assert target.is_active
    assert not AuditRecord.objects.filter(action__startswith="staff.account").exists()
    # A superuser may suspend staff and reinstate them; the manager may not reinstate them.
    account_suspend(player=approver, staff=root, reason="left the company")
    with pytest.raises(AccountError) as refused:
        account_reinstate(player=approver, staff=manager, reason="back")
    assert refused.value.code == "above_your_role"
    account_reinstate(player=approver, staff=root, reason="back")
    approver.refresh_from_db()
    assert approver.is_active


def test_the_last_active_superuser_is_never_suspended():
    """Another superuser may be suspended by a superuser; the last active one never is (here
    from a shell, by a superuser already suspended, the only way to reach that case)."""
    from tests.factories import make_player

    root = make_player("root", is_staff=True, is_superuser=True)
    other = make_player("other", is_staff=True, is_superuser=True)
    account_suspend(player=other, staff=root, reason="second admin leaves")
    other.refresh_from_db()
    with pytest.raises(AccountError) as refused:
        account_suspend(player=root, staff=other, reason="lock everyone out")
    assert refused.value.code == "last_superuser"
    root.refresh_from_db()
    assert root.is_active


def test_a_cash_out_caused_by_a_suspension_names_the_staff_member(manager):
    """The cash-out is recorded as done by the staff member, not by the player."""
    from cashier.models import Entry

    table = make_table()
    sam = make_seated_player(table, "sam", 3)
    account_suspend(player=sam, staff=manager, reason="chargeback")
    cash_out = Entry.objects.get(reason="cash_out", player=sam)
    assert cash_out.created_by == manager
    record = AuditRecord.objects.get(action="ledger.entry", subject_id=str(cash_out.pk))
    assert record.actor == manager


def test_a_suspended_player_who_logs_in_is_told_the_account_is_suspended(manager):
    """The login page says the account is suspended, not that the password was wrong. Only the
    right password learns it; a wrong one gets the usual answer."""
    from django.urls import reverse
    from rest_framework.test import APIClient

    from tests.factories import DEFAULT_PASSWORD

    sam = make_funded_player("sam")
    account_suspend(player=sam, staff=manager, reason="review")
    page = Client().post(reverse("lobby:login"), {"username": "sam", "password": DEFAULT_PASSWORD})
    assert page.status_code == 200 and "This account is suspended" in page.content.decode()
    wrong = Client().post(reverse("lobby:login"), {"username": "sam", "password": "not-it-at-all"})
    assert "suspended" not in wrong.content.decode()
    api = APIClient().post(
        reverse("api-token"), {"username": "sam", "password": DEFAULT_PASSWORD}, format="json"
    )
    assert api.status_code == 400 and api.json()["code"] == "account_suspended"
    assert not Token.objects.filter(user=sam).exists()


def test_a_cash_out_at_the_hand_end_after_a_suspension_names_the_staff_member(manager):
    """A player suspended in a running hand is cashed out when it ends, and
    that cash-out is the staff member's too, not the player's."""
    from cashier.models import Entry
    from poker.engine.hand import Hand as EngineHand

    table = make_table(next_hand_delay_seconds=3600)
    players = {1: make_seated_player(table, "sam", 1), 2: make_seated_player(table, "tia", 2)}
    hand = deal_hand(table)
    # The player not to act: their seat stays until the hand ends.
    waiting = next(n for n in players if n != EngineHand.from_dict(hand.state).to_act)
    account_suspend(player=players[waiting], staff=manager, reason="chargeback")
    assert Seat.objects.get(player=players[waiting]).leave_pending
    assert not Entry.objects.filter(reason="cash_out", player=players[waiting]).exists()
    call_down(hand, players)
    cash_out = Entry.objects.get(reason="cash_out", player=players[waiting])
    assert cash_out.created_by == manager
    record = AuditRecord.objects.get(action="ledger.entry", subject_id=str(cash_out.pk))
    assert record.actor == manager
    # The other player, who stays, is nobody's cash-out.
    assert not Entry.objects.filter(reason="cash_out", player=players[3 - waiting]).exists()


def test_the_users_page_never_deactivates_demotes_or_deletes_the_last_active_superuser():
    """The last active superuser stays one through Django's Users page: unticking active,
    staff or superuser, or
    deleting (the delete page and the "delete selected" action), is refused for the last
    active superuser with a message, nothing changed; another superuser may be deactivated."""
    from django.contrib.auth import get_user_model

    from tests.factories import make_player

    root = make_player("root", is_staff=True, is_superuser=True)
    other = make_player("other", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(root, backend="django.contrib.auth.backends.ModelBackend")

    def edit(user, *unticked: str, **changes):
        data = {"username": user.username, "first_name": "", "last_name": "", "email": "",
                "date_joined_0": user.date_joined.strftime("%Y-%m-%d"),
                "date_joined_1": user.date_joined.strftime("%H:%M:%S"), **changes}  # fmt: skip
        data.update({flag: "on" for flag in ("is_active", "is_staff", "is_superuser")
                     if flag not in unticked})  # fmt: skip
        return client.post(f"/admin/auth/user/{user.pk}/change/", data)

    assert edit(other, "is_active").status_code == 302  # root remains
    other.refresh_from_db()
    assert not other.is_active
    for flag in ("is_active", "is_superuser", "is_staff"):
        response = edit(root, flag, first_name="Ruth")
        assert response.status_code == 200, flag
        assert "root is the last active superuser" in response.content.decode(), flag
    assert edit(root, first_name="Ruth").status_code == 302  # flags kept: saved
    root.refresh_from_db()
    assert (root.is_active, root.is_staff, root.is_superuser, root.first_name) == (
        True, True, True, "Ruth",
    )  # fmt: skip

    page = client.post(f"/admin/auth/user/{root.pk}/delete/", {"post": "yes"})
    assert page.status_code == 200 and "root is the last active superuser" in page.content.decode()
    action = {"action": "delete_selected", "_selected_action": [root.pk], "post": "yes"}
    page = client.post("/admin/auth/user/", action)
    assert page.status_code == 200 and "root is the last active superuser" in page.content.decode()
    assert get_user_model().objects.filter(pk=root.pk, is_active=True).exists()

    # With another active superuser, the inactive one goes.
    assert edit(other).status_code == 302
    other.refresh_from_db()
    assert other.is_active
    assert client.post(f"/admin/auth/user/{other.pk}/delete/", {"post": "yes"}).status_code == 302
    assert not get_user_model().objects.filter(pk=other.pk).exists()
