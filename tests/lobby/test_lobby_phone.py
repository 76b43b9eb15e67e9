"""The lobby on a phone (390x844) in Debian's Chromium, in French, whose labels are the
longest: the Omaha Showdown list ran 26 px off the screen ("Table en direct, 7 sièges",
"25 000,00 $"), so the whole page scrolled sideways."""

import pytest

from accounts.services import profile_set_language
from tests.factories import make_funded_player, make_seated_player, make_showdown_table, make_table

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
        page.wait_for_selector("text=Table en direct, 7 sièges")
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
