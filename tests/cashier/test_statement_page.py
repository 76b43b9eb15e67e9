"""The account statement from the cashier page in Chromium: the form's
dates default to this month, the download is a CSV named by its dates, and the page has no
sideways scroll at 1366x768 or 390x844. CASHIER_SCREENSHOTS=<dir> keeps screenshots."""

import os
from pathlib import Path

import pytest
from django.utils import timezone

from tests.factories import make_funded_player

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_player_downloads_this_months_statement(signed_in_page, viewport):
    player = make_funded_player("sue", cents=12_345)
    page = signed_in_page(player, viewport)
    today = timezone.now().date()
    try:
        page.goto("/cashier/")
        assert page.input_value('#statement-form input[name="from"]') == str(today.replace(day=1))
        assert page.input_value('#statement-form input[name="to"]') == str(today)
        with page.expect_download() as download:
            page.click("#statement-form button")
        name = download.value.suggested_filename
        assert name == f"statement-{today.replace(day=1)}-to-{today}.csv"
        text = Path(download.value.path()).read_text()
        assert "deposit" in text and "123.45" in text
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= viewport["width"], f"sideways scroll: {width}px"
        folder = os.environ.get("CASHIER_SCREENSHOTS")
        if folder:
            kind = "phone" if viewport is PHONE else "laptop"
            page.screenshot(path=str(Path(folder) / f"cashier-{kind}.png"), full_page=True)
        assert page.errors == []
    finally:
        page.context.close()


# Amounts of the history whose text runs over more than one line.
SPLIT_AMOUNTS = """() => [...document.querySelectorAll('table.history td.amount')].filter((td) => {
  const range = document.createRange();
  range.selectNodeContents(td);
  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
}).map((td) => td.textContent)"""


@pytest.mark.parametrize(
    ("language", "deposit"), [("fr", "+1\xa0000,00\xa0$"), ("ja", "+1,000.00ドル")]
)
def test_the_history_fits_a_phone(signed_in_page, language, deposit):
    """French and Japanese dates, reasons and amounts are wider: the history table ran off a
    phone's screen and the whole page scrolled sideways, and "ドル" left its amount."""
    from accounts.services import profile_set_language
    from tests.factories import call_down, deal_hand, make_seated_player, make_table

    table = make_table(next_hand_delay_seconds=3600)
    player, bob = make_seated_player(table, "sue", 1), make_seated_player(table, "bob", 2)
    call_down(deal_hand(table), {1: player, 2: bob})  # "Règlement de la main", "Cave"
    profile_set_language(user=player, language=language)
    page = signed_in_page(player, PHONE)
    try:
        page.goto("/cashier/")
        assert deposit in page.inner_text("table.history")
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= PHONE["width"], f"sideways scroll: {width}px"
        # Whole inside its panel too: no amount cut at the panel's edge, none split.
        assert page.evaluate(
            "(el => el.scrollWidth <= el.clientWidth)(document.querySelector('.scroll-x'))"
        )
        assert page.evaluate(SPLIT_AMOUNTS) == []
        assert page.errors == []
    finally:
        page.context.close()
