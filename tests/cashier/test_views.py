"""The cashier page: balance, deposit and withdraw forms, the player's own history."""

import re

import pytest
from django.contrib.auth.models import Group

from cashier.models import Entry
from cashier.selectors import wallet_balance
from cashier.services import wallet_deposit
from tests.factories import make_funded_player, make_player

pytestmark = pytest.mark.django_db


def form_key(html: str, form_id: str) -> str:
    form = html[html.index(f'id="{form_id}"') :]
    return re.search(r'name="idempotency_key" value="([0-9a-f]+)"', form).group(1)


def test_anonymous_users_are_sent_to_log_in(client):
    response = client.get("/cashier/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.post("/cashier/deposit/", {"amount": "5"}).status_code == 302
    assert Entry.objects.count() == 0


def test_page_shows_balance_and_fresh_keys(player_client, player):
    wallet_deposit(player=player, amount=123_456, idempotency_key="d")
    html = player_client.get("/cashier/").content.decode()
    assert "$1,234.56" in html
    assert 'href="/cashier/"' in html  # the nav link
    assert form_key(html, "deposit-form") != form_key(html, "withdraw-form")
    assert form_key(html, "deposit-form") != form_key(
        player_client.get("/cashier/").content.decode(), "deposit-form"
    )


def test_deposit_and_withdraw_through_the_forms(player_client, player):
    html = player_client.get("/cashier/").content.decode()
    key = form_key(html, "deposit-form")
    response = player_client.post(
        "/cashier/deposit/", {"amount": "25.50", "idempotency_key": key}, follow=True
    )
    assert "Deposit of $25.50 done" in response.content.decode()
    # Submitting the same rendered form again (a double-click) moves nothing more.
    player_client.post("/cashier/deposit/", {"amount": "25.50", "idempotency_key": key})
    assert wallet_balance(player=player) == 2_550
    html = player_client.get("/cashier/").content.decode()
    response = player_client.post(
        "/cashier/withdraw/",
        {"amount": "30", "idempotency_key": form_key(html, "withdraw-form")},
        follow=True,
    )
    assert "Withdrawal refused" in response.content.decode()
    assert wallet_balance(player=player) == 2_550


@pytest.mark.parametrize("amount", ["0", "-3", "1.005", "abc", ""])
def test_bad_amounts_on_the_page_move_nothing(player_client, amount):
    response = player_client.post(
        "/cashier/deposit/", {"amount": amount, "idempotency_key": "k"}, follow=True
    )
    assert "Deposit refused" in response.content.decode()
    assert Entry.objects.count() == 0


@pytest.mark.parametrize(
    ("amount", "key", "says"),
    [
        ("5", "k\x01ey", "printable"),  # a control character Django's form lets through
        ("5", "k" * 101, "100 characters"),
        ("2000000000", "k", "$1,000,000,000.00"),  # over the room's one-movement ceiling
    ],
    ids=["control-key", "long-key", "too-much"],
)
def test_the_page_refuses_what_the_api_refuses(player_client, amount, key, says):
    """The form checks cents and keys by the same rules as the API and the socket."""
    response = player_client.post(
        "/cashier/deposit/", {"amount": amount, "idempotency_key": key}, follow=True
    )
    html = response.content.decode()
    assert "Deposit refused" in html and says in html
    assert Entry.objects.count() == 0


def test_history_is_own_and_paginated(player_client, player):
    make_funded_player("bob", cents=777_777)
    for i in range(25):
        wallet_deposit(player=player, amount=100, idempotency_key=f"d{i}")
    html = player_client.get("/cashier/").content.decode()
    assert "Page 1 of 2" in html and "$7,777.77" not in html
    assert html.count("<tr>") == 21  # header + 20 rows
    assert "Page 2 of 2" in player_client.get("/cashier/?page=2").content.decode()


def test_admin_shows_the_ledger_read_only(client, player):
    wallet_deposit(player=player, amount=500, idempotency_key="d")
    staff = make_player("staffer", is_staff=True, is_superuser=True)
    client.force_login(staff, backend="django.contrib.auth.backends.ModelBackend")
    entry = Entry.objects.get()
    assert client.get("/admin/cashier/entry/").status_code == 200
    page = client.get(f"/admin/cashier/entry/{entry.pk}/change/")
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()
    assert client.get("/admin/cashier/entry/add/").status_code == 403
    assert (
        client.post(f"/admin/cashier/entry/{entry.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert Entry.objects.count() == 1
    assert Group.objects.filter(name="auditors").exists()


def test_a_buy_in_and_a_cash_out_read_as_one_line_each_with_the_tables_name(db):
    from django.test import Client

    from cashier.services import table_cash_out
    from tests.factories import make_seated_player, make_table

    table = make_table(name="Galway")
    ann = make_seated_player(table, "ann", 1)
    table_cash_out(player=ann, table_id=table.pk)
    client = Client()
    client.force_login(ann, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get("/cashier/").content.decode()
    rows = page[page.index('<table class="listing history">') :].split("<tr>")[2:]
    assert len(rows) == 3, rows  # the deposit, the buy-in, the cash-out: no stack legs
    buy_in = f"-${table.max_buy_in // 100}."
    assert "Buy-in" in rows[1] and "Galway" in rows[1] and buy_in in rows[1]
    assert "Cash-out" in rows[0] and "Galway" in rows[0] and "+$" in rows[0]


def test_a_removal_for_sitting_out_too_long_says_why_in_the_history(db):
    from datetime import timedelta

    from django.test import Client
    from django.utils import timezone

    from poker.models import Seat
    from poker.services.seating import seat_evict
    from tests.factories import make_seated_player, make_table

    table = make_table(name="Erie", sit_out_limit_seconds=600)
    ann = make_seated_player(table, "ann", 1)
    seat = Seat.objects.get(table=table, player=ann)
    Seat.objects.filter(pk=seat.pk).update(
        status=Seat.Status.SITTING_OUT, sat_out_at=timezone.now() - timedelta(minutes=11)
    )
    assert seat_evict(table=table, seat_id=seat.pk)
    client = Client()
    client.force_login(ann, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get("/cashier/").content.decode()
    assert "sat out longer than the table allows" in page


def test_the_account_statement_is_a_csv_of_the_period_with_running_balances(db):
    """Ledger lines of a period as CSV, an opening and a closing balance,
    and a table name a spreadsheet would run as a formula written as text."""
    import csv
    import io
    from datetime import timedelta

    from django.test import Client
    from django.utils import timezone

    from cashier.services import table_cash_out
    from tests.factories import make_seated_player, make_table

    table = make_table(name="=HYPERLINK(evil)")
    ann = make_seated_player(table, "ann", 1)  # deposit $1,000, buy-in of the max
    later = timezone.now() + timedelta(days=10)  # the cash-out, days after the buy-in
    table_cash_out(player=ann, table_id=table.pk, now=later)
    client = Client()
    client.force_login(ann, backend="django.contrib.auth.backends.ModelBackend")
    start, today = later.date() - timedelta(days=3), later.date()
    response = client.get(f"/cashier/statement.csv?from={start}&to={today}")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    name = f"statement-{start}-to-{today}.csv"
    assert response["Content-Disposition"] == f'attachment; filename="{name}"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    opening = (100_000 - table.max_buy_in) / 100
    assert rows[0]["type"] == "opening balance" and float(rows[0]["wallet_balance"]) == opening
    (line,) = rows[1:-1]  # the cash-out's wallet leg only: the older lines are outside
    assert line["type"] == "cash_out" and float(line["amount"]) == table.max_buy_in / 100
    assert line["table"] == "'=HYPERLINK(evil)"
    assert float(line["wallet_balance"]) == 1000.0
    assert rows[-1]["type"] == "closing balance" and float(rows[-1]["wallet_balance"]) == 1000.0
    # The whole history: the buy-in's amount is a negative number, not escaped text.
    everything = client.get(f"/cashier/statement.csv?from={today - timedelta(days=60)}&to={today}")
    lines = list(csv.DictReader(io.StringIO(everything.content.decode())))
    buy_in = next(row for row in lines if row["type"] == "buy_in")
    assert buy_in["amount"] == f"-{table.max_buy_in / 100:.2f}"
    for bad in ("from=2026-02-01&to=2026-01-01", "from=never", "from=2020-01-01&to=2026-01-01"):
        assert client.get(f"/cashier/statement.csv?{bad}").status_code == 400, bad
    assert 'id="statement-form"' in client.get("/cashier/").content.decode()
    other = Client()
    other.force_login(make_player("zed"), backend="django.contrib.auth.backends.ModelBackend")
    theirs = list(csv.DictReader(io.StringIO(other.get("/cashier/statement.csv").content.decode())))
    assert [row["type"] for row in theirs] == ["opening balance", "closing balance"]
