"""The lobby's Tournaments section in a browser: a player registers for a Sit & Go on a phone
and sees their place and the Unregister button."""

import pytest

from cashier.selectors import wallet_balance
from tests.factories import make_funded_player, make_sit_and_go, make_started_sit_and_go
from tests.poker.table_page import horizontal_overflow, screenshot
from tournaments.models import Registration

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_a_player_registers_from_the_lobby(signed_in_page):
    sng = make_sit_and_go(seats=2)
    alice = make_funded_player("alice", cents=5_000)
    page = signed_in_page(alice, PHONE)
    try:
        page.goto("/#tournaments")
        row = f'#tournaments tr[data-tournament="{sng.pk}"]'
        page.click(f"{row} button.sng-register")
        page.wait_for_selector(f"{row} button.sng-unregister")
        assert page.text_content(f"{row} .sng-registered") == "1/2"
        screenshot(page, "lobby-sit-and-go-registered-phone")
        assert horizontal_overflow(page) <= 0
        assert page.errors == []
    finally:
        page.context.close()
    assert Registration.objects.get(tournament=sng).player == alice
    assert wallet_balance(player=alice) == 3_900


DESKTOP = {"width": 1366, "height": 768}


def test_a_running_sit_and_go_page_fits_phone_and_desktop_in_every_language(signed_in_page):
    from tournaments.services import tournament_register

    sng = make_sit_and_go(seats=6, breaks=[{"after_level": 1, "minutes": 2}])
    players = [make_funded_player(name, cents=5_000) for name in ("ann", "bob", "cyd")]
    players += [make_funded_player(f"longername{k}", cents=5_000) for k in range(3)]
    for player in players:
        tournament_register(player=player, tournament=sng, idempotency_key=f"k-{player.pk}")
    for viewport, size in ((PHONE, "phone"), (DESKTOP, "desktop")):
        page = signed_in_page(players[0], viewport)
        try:
            page.goto(f"/tournaments/{sng.pk}/")
            for language in ("en", "fr", "ja"):
                page.evaluate(f"document.cookie = 'django_language={language}; path=/'")
                page.goto(f"/tournaments/{sng.pk}/")
                page.wait_for_selector("#sng-players tr[data-player]")
                assert page.locator("#sng-next-level").count() == 1
                assert page.locator("#sng-players tbody tr").count() == 6
                screenshot(page, f"sit-and-go-running-{size}-{language}")
                assert horizontal_overflow(page) <= 0, (size, language)
            # Its table shows the level, the blinds and the countdown to the next level.
            page.click("#sng-table-link")
            page.wait_for_selector("#tournament-bar:not([hidden])")
            # The page is in Japanese by now: "Level I" in Roman numerals, blinds 10/20.
            assert "レベル I" in page.text_content("#tournament-level")
            assert "10/20" in page.text_content("#tournament-level")
            assert "15/30" in page.text_content("#tournament-next")
            screenshot(page, f"sit-and-go-table-{size}")
            # The seat is the tournament's: no leaving, topping up or seat options offered.
            for control in ("#leave", "#top-up-form", "#seat-options", "#rebuy-form"):
                assert not page.locator(control).is_visible(), control
            assert page.errors == []
        finally:
            page.context.close()


def test_a_running_sit_and_go_page_follows_the_play_without_reloading(signed_in_page):
    from poker.models import Seat
    from tests.poker.table_page import beside_the_browser

    sng, players = make_started_sit_and_go(("ann", "bob"))
    page = signed_in_page(players[0], DESKTOP)
    try:
        page.add_init_script("window.sitAndGoPollMs = 300; window.notReloaded = true;")
        page.goto(f"/tournaments/{sng.pk}/")
        page.evaluate("window.notReloaded = 'this load'")
        shown = page.text_content("#sng-next-level")
        # The clock ticks each second, on the page as loaded.
        page.wait_for_function(
            "(shown) => document.getElementById('sng-next-level').textContent !== shown", arg=shown
        )

        # Chips won at the table show at the next poll, grouped: 1,750 and 1,250.
        def move_chips():
            Seat.objects.filter(table_id=sng.table_id, player=players[1]).update(chips=1_750)
            Seat.objects.filter(table_id=sng.table_id, player=players[0]).update(chips=1_250)

        beside_the_browser(move_chips)
        bob = f'#sng-players tr[data-player="{players[1].pk}"] .sng-chips'
        page.wait_for_function(f"document.querySelector('{bob}').textContent === '1,750'")
        first = page.get_attribute("#sng-players tbody tr:first-child", "data-player")
        assert first == str(players[1].pk)
        assert page.get_attribute("#sng-players tbody tr.mine", "data-player") == str(players[0].pk)
        assert page.evaluate("window.notReloaded") == "this load"
        assert page.errors == []
    finally:
        page.context.close()
