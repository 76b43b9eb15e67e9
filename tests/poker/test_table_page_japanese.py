"""A hand played in Japanese: two players who chose Japanese play a hand to the
showdown in Chromium; the buttons, the table log, the result and the money on the page are in
Japanese, with no English sentence left."""

import re

import pytest

from accounts.services import profile_set_language
from tests.factories import make_funded_player, make_table
from tests.poker.table_page import (
    FUNDS,
    HAND_OVER,
    HAND_STARTED,
    LAPTOP,
    PHONE,
    check_or_call,
    close_and_settle,
    one_hand_only,
    play_hand,
    screenshot,
    seat_everyone,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

# Two or more English words in a row: what an untranslated sentence leaves on the page.
ENGLISH = re.compile(r"[A-Za-z]{2,}(?: [A-Za-z]{2,})+")
# Words that are the same in Japanese: the brand and the players' and table's names.
KEPT = {"Omaha Room"}


def test_a_hand_is_played_in_japanese(signed_in_page, celery_worker_process):
    table = make_table(next_hand_delay_seconds=1.0)
    alice = make_funded_player("alice", cents=FUNDS)
    bob = make_funded_player("bob", cents=FUNDS)
    for player in (alice, bob):
        profile_set_language(user=player, language="ja")
    alice_page = signed_in_page(alice, LAPTOP)
    bob_page = signed_in_page(bob, PHONE)
    pages = {1: alice_page, 2: bob_page}
    try:
        seat_everyone(table, pages)
        assert alice_page.get_attribute("html", "lang") == "ja"
        alice_page.wait_for_function(HAND_STARTED)
        one_hand_only(table)
        hand_id = alice_page.evaluate("window.tablePage.state().hand.id")

        seen = {}

        def act(page, hand):
            # The page to act shows its buttons in Japanese.
            for button in ("#act-fold", "#act-check", "#act-call"):
                locator = page.locator(button)
                if locator.is_visible():
                    seen[button] = locator.inner_text()
            check_or_call(page, hand)

        play_hand(pages, hand_id, act)
        assert seen.get("#act-fold") == "フォールド"
        assert "チェック" in seen.get("#act-check", "チェック")
        assert seen.get("#act-call", "コール").startswith("コール")

        for page in pages.values():
            page.wait_for_function(HAND_OVER, arg=hand_id)
            page.locator("#result").wait_for(state="visible")
        screenshot(alice_page, "japanese-result")

        log = alice_page.inner_text("#log")
        result = alice_page.inner_text("#result")
        assert "新しいハンド" in log  # "New hand."
        assert "ショーダウン" in log
        assert "勝ち" in result or "分け" in result  # wins / splits
        wallet = alice_page.inner_text("#wallet")
        assert wallet.startswith("ウォレット") and wallet.endswith("ドル")  # "ウォレット 900ドル"
        for where, text in (("log", log), ("result", result)):
            for run in ENGLISH.findall(text):
                assert run in KEPT or run in table.name, f"English in the {where}: {run!r}"
        # Buttons and headings of the page itself.
        assert alice_page.inner_text(".log h2") == "テーブルログ"
        assert alice_page.locator("#act-fold").inner_text() == "フォールド"
        assert alice_page.errors == [] and bob_page.errors == []
    finally:
        close_and_settle(table, pages.values())
