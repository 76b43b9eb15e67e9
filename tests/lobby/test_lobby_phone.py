"""The lobby on a phone (390x844) in Debian's Chromium, in French, whose labels are the
longest: the Omaha Showdown list ran 26 px off the screen ("Table en direct, 7 sièges",
"25 000,00 $"), so the whole page scrolled sideways."""

import pytest

from accounts.services import profile_set_language
from tests.factories import make_funded_player, make_seated_player, make_showdown_table, make_table
from tests.poker.table_page import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_the_lobby_fits_a_phone_in_french(signed_in_page):
    alice = make_funded_player("alice")
    profile_set_language(user=alice, language="fr")
    make_seated_player(make_table(), "bob", 1)
    make_showdown_table(name="Showdown Mini", max_aggregate_payout=2_500_000)
    make_showdown_table(name="Showdown en direct", seats=7)
    page = signed_in_page(alice, PHONE)
    try:
        page.goto("/")
        # The live table's button: "Direct" on a phone, its whole label for screen readers.
        button = page.locator('a.button[aria-label="Table en direct, 7 sièges"]')
        button.wait_for()
        assert button.inner_text() == "Direct"
        assert "25\xa0000,00\xa0$" in page.inner_text("main")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"sideways scroll: {width}px"
        assert page.errors == []
    finally:
        page.context.close()


# The lobby filters' labels whose words run over more than one line.
BROKEN_LABELS = """() => [...document.querySelectorAll('.filters label')].filter((label) => {
  const text = [...label.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
  if (!text) return false;
  const range = document.createRange();
  range.selectNodeContents(text);
  return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
}).map((label) => label.textContent.trim())"""


def test_the_lobby_filters_keep_their_labels_whole_in_japanese(signed_in_page):
    """The game filter's long choices left its label "ゲーム" two characters wide on a phone."""
    alice = make_funded_player("alice")
    profile_set_language(user=alice, language="ja")
    make_seated_player(make_table(), "bob", 1)
    page = signed_in_page(alice, PHONE)
    try:
        page.goto("/")
        page.wait_for_selector(".filters select[name=game]")
        assert page.evaluate(BROKEN_LABELS) == []
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"sideways scroll: {width}px"
        assert page.errors == []
    finally:
        page.context.close()


# Amounts in the lobby's lists ("200.00ドル", "25,000.00ドル", "1 234,50 $") split over two lines.
BROKEN_AMOUNTS = r"""(unit) => {
  const broken = [];
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  const amount = new RegExp('[\\d][\\d,.\\u00a0\\u202f]*' + unit, 'g');
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.textContent.matchAll(amount)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(match[0]);
    }
  }
  return broken;
}"""


def test_the_lobbys_amounts_are_never_split_over_two_lines_in_japanese(signed_in_page):
    """On a phone, the Showdown list's antes and payouts never break inside an amount (not
    "200.00ド" on one line and "ル" on the next, nor "25,000.00" above "ドル")."""
    alice = make_funded_player("alice")
    profile_set_language(user=alice, language="ja")
    make_seated_player(make_table(), "bob", 1)
    make_showdown_table(name="Showdown Big", max_aggregate_payout=2_500_000)
    make_showdown_table(name="Showdown Seven", ante_max=2_500, seats=7)
    page = signed_in_page(alice, PHONE)
    try:
        page.goto("/")
        page.wait_for_selector("[data-banked-table]")
        assert "25,000.00ドル" in page.inner_text("main")
        assert page.evaluate(BROKEN_AMOUNTS, "ドル") == []
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"sideways scroll: {width}px"
        if SCREENSHOTS:
            page.screenshot(path=f"{SCREENSHOTS}/lobby-ja-390.png", full_page=True)
        assert page.errors == []
    finally:
        page.context.close()
