"""Staff pages of hands: a running hand's hole cards and deck show in no admin page, list,
search, URL filter or log line; a finished or cancelled hand shows its whole history as text."""

import logging
import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from poker import services
from poker.engine.cards import FULL_DECK
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandIncident, Seat
from tests.factories import (
    GAMES,
    call_down,
    deal_hand,
    default_rake_schedule_row,
    make_player,
    make_seated_player,
    make_table,
)

pytestmark = pytest.mark.django_db

# A known deck: every seventh card of the sorted deck, wrapping (7 and 52 share no factor).
DECK = [FULL_DECK[7 * k % 52] for k in range(52)]

# A card as a token of its own, in text, HTML or JSON ("As", "As Kd", '"As"', but not "Ask"),
# and runs of cards written together ("AsKdQhJc", as hand histories write them).
CARDS = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs])+(?![A-Za-z0-9])")


def cards_in(text: str) -> set[str]:
    """Every card written in `text` (outside the admin's SVG icons, whose path data reads
    like cards: "v-2h-3", a hand's share link, whose signed token may hold "-Td_", and the
    start of a password's salt and hash on a user's admin page, base64 that may read
    "/Jd*")."""
    found = set()
    text = re.sub(r"<svg.*?</svg>", "", text, flags=re.DOTALL)
    text = re.sub(r"/hands/shared/[^\s\"'<]*", "", text)
    text = re.sub(r"<strong>[^<]*</strong>: <bdi>[^<]*\*</bdi>", "", text)
    for run in CARDS.findall(text):
        found.update(run[k : k + 2] for k in range(0, len(run), 2))
    return found


@pytest.fixture(params=["superuser", "viewer"])
def staff(request) -> Client:
    """A superuser, or staff allowed only to view the poker models: the same pages either way."""
    if request.param == "superuser":
        user = make_player("boss", is_staff=True, is_superuser=True)
    else:
        user = make_player("clerk", is_staff=True)
        user.user_permissions.set(
            Permission.objects.filter(content_type__app_label="poker", codename__startswith="view_")
        )
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def seat_three(table) -> dict:
    return {
        n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"), (4, "cy"))
    }


def staff_pages(hand: Hand) -> list[str]:
    """Every admin page that shows this hand, its table, seats or incidents."""
    table = hand.table
    pages = [
        "/admin/",
        "/admin/poker/hand/",
        f"/admin/poker/hand/?table__id__exact={table.pk}",
        "/admin/poker/hand/?status__exact=running",
        f"/admin/poker/hand/{hand.pk}/change/",
        f"/admin/poker/hand/{hand.pk}/history/",
        f"/admin/poker/hand/{hand.pk}/delete/",
        "/admin/poker/table/",
        f"/admin/poker/table/{table.pk}/change/",
        f"/admin/poker/table/{table.pk}/history/",
        f"/admin/poker/table/{table.pk}/delete/",
        "/admin/poker/seat/",
        "/admin/poker/handincident/",
    ]
    pages += [f"/admin/poker/seat/{seat.pk}/change/" for seat in Seat.objects.filter(table=table)]
    pages += [
        f"/admin/poker/handincident/{incident.pk}/change/"
        for incident in HandIncident.objects.filter(hand=hand)
    ]
    # The staff's tools and the pages around them: the player page (recent hands), the tools'
    # forms, the ledger, adjustments, notes and the audit log.
    seats = Seat.objects.filter(table=table)
    pages += [f"/admin/staff/player/{seat.player_id}/change/" for seat in seats]
    pages += [f"/admin/poker/seat/{seat.pk}/remove/" for seat in seats]
    pages += [
        "/admin/staff/player/",
        f"/admin/poker/hand/{hand.pk}/cancel/",
        f"/admin/poker/table/{table.pk}/close/",
        "/admin/cashier/account/",
        "/admin/cashier/entry/",
        "/admin/cashier/posting/",
        "/admin/cashier/balanceadjustment/",
        "/admin/staff/playernote/",
        "/admin/audit/auditrecord/",
    ]
    return pages + every_admin_page()


def every_admin_page() -> list[str]:
    """Every registered admin's list page and each of its rows' change, history and delete
    pages (an admin without such a page, as the house's days, has none to sweep): so a page
    added later, or one Django draws on its own (a proxy's read-only change page), is swept
    without anyone listing it."""
    from django.contrib import admin
    from django.contrib.auth import get_user_model
    from django.test import RequestFactory
    from django.urls import NoReverseMatch, reverse

    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(is_staff=True, is_superuser=True)
    pages = []
    for model, model_admin in admin.site._registry.items():
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        pages.append(reverse(f"{name}_changelist"))
        for pk in model_admin.get_queryset(request).values_list("pk", flat=True):
            for view in ("change", "history", "delete"):
                try:
                    pages.append(reverse(f"{name}_{view}", args=[pk]))
                except NoReverseMatch:
                    continue
    return pages


def without_echo(page: str, query: str) -> str:
    """The page less the search box and links repeating the query back."""
    return page.replace(f'value="{query}"', "").replace(f"q={query}", "")


def fetch(client: Client, url: str) -> str:
    response = client.get(url)
    # Pages staff may not open (deleting a hand; deleting anything, for the viewer) are refused.
    assert response.status_code in (200, 403), (url, response.status_code)
    return response.content.decode()


def test_no_staff_page_search_or_log_shows_a_running_hands_cards(staff, caplog):
    caplog.set_level(logging.DEBUG)
    table = make_table()
    seat_three(table)
    hand = deal_hand(table, DECK)  # preflop, before anyone acts: all 52 cards are hidden
    assert hand.deck == DECK and hand.status == Hand.Status.RUNNING
    HandIncident.objects.create(
        hand=hand, table=table, code="looked_into", reason="a player asked", detail={"turn": 1}
    )

    for url in staff_pages(hand):
        assert not cards_in(fetch(staff, url)), url
    page = fetch(staff, f"/admin/poker/hand/{hand.pk}/change/")
    assert "Dealt to seat 1 ann: hidden" in page and "posts the big blind $1.00" in page

    # Searching the hands for a card finds none of them (staff search by table name), so no
    # answer tells the cards apart; no list shows a card but the one searched for. A search
    # answers only by which rows match, so one card from every place a card can be is enough:
    # each seat's hole cards, the burns and the board to come (DECK[:20]), and two never dealt.
    for card in DECK[:22]:
        page = fetch(staff, f"/admin/poker/hand/?q={card}")
        assert not cards_in(without_echo(page, card)), card
        assert f"/admin/poker/hand/{hand.pk}/change/" not in page
    for card in DECK[:12]:  # the hole cards' first three rounds
        for url in ("/admin/poker/seat/", "/admin/poker/handincident/", "/admin/poker/table/"):
            assert not cards_in(without_echo(fetch(staff, f"{url}?q={card}"), card)), (url, card)

    # Nor can the list be filtered by the fields that hold cards.
    for lookup in ("deck__0", "deck__contains", "setup__deck__0", "state__hole_cards__0__0"):
        for card in (DECK[0], DECK[1]):
            response = staff.get(f"/admin/poker/hand/?{lookup}={card}")
            assert response.status_code == 400, (lookup, response.status_code)

    logged = [record.getMessage() for record in caplog.records]
    assert logged and not cards_in("\n".join(logged))


def test_the_board_shows_once_dealt_and_no_hole_card_or_burn(staff):
    table = make_table()
    players = seat_three(table)
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    engine = EngineHand.from_dict(hand.state)
    assert len(engine.board) == 3
    for url in staff_pages(hand):
        page = fetch(staff, url)
        if url == f"/admin/poker/hand/{hand.pk}/change/":
            assert cards_in(page) == set(engine.board), url
            assert f"Flop: {' '.join(engine.board)}" in page
            assert "Seat 4 cy calls $1.00" in page
        else:
            assert not cards_in(page), url


def money(cents: int) -> str:
    return f"{'-' if cents < 0 else ''}${abs(cents) / 100:,.2f}"


HEADINGS = {
    "omaha-pot-limit": "Omaha High, Pot limit, blinds $0.50/$1.00.",
    "omaha8-limit": "Omaha Hi/Lo 8 or Better, Fixed limit, blinds $0.50/$1.00, bets $1.00/$2.00.",
}


@pytest.mark.parametrize("game", HEADINGS)
def test_a_finished_hand_shows_its_whole_history(staff, game):
    structure = GAMES[game].get("structure", "pot-limit")
    table = make_table(**GAMES[game], rake_schedule=default_rake_schedule_row(structure))
    players = seat_three(table)
    hand = call_down(deal_hand(table, DECK), players)
    assert hand.status == Hand.Status.FINISHED
    engine = EngineHand.from_dict(hand.state)
    result = engine.result
    page = fetch(staff, f"/admin/poker/hand/{hand.pk}/change/")
    names = {1: "ann", 2: "ben", 4: "cy"}

    assert HEADINGS[game] in page and f"Button: seat {engine.button}." in page
    for seat, cards in zip(engine.seats, engine.hole_cards, strict=True):
        assert f"Seat {seat} {names[seat]}: $100.00" in page
        assert f"Dealt to seat {seat} {names[seat]}: {' '.join(cards)}" in page
    assert "posts the small blind $0.50" in page and "posts the big blind $1.00" in page
    assert "calls $1.00" in page and "checks" in page
    board = engine.board
    for title in (f"Flop: {' '.join(board[:3])}", f"Turn: {' '.join(board[:4])}",
                  f"River: {' '.join(board)}"):  # fmt: skip
        assert f"<h3>{title}</h3>" in page
    for entry in result["showdown"]:
        who = f"Seat {entry['seat']} {names[entry['seat']]}"
        if entry["shown"]:
            shown = f"{who} shows {' '.join(entry['cards'])}: {entry['high']['name']}"
            if game == "omaha8-limit":
                shown += f"; low: {entry['low']['name'] if entry['low'] else 'none'}"
            assert f"<li>{shown}</li>" in page
        else:
            assert f"{who} mucks" in page
    assert f"Rake {money(result['rake'])}" in page
    (pot,) = result["pots"]
    if game == "omaha-pot-limit":  # $3 pays no rake in fixed limit (RULES.md 8)
        assert pot["rake"] > 0
        assert f"Main pot {money(pot['amount'])}, rake {money(pot['rake'])}: " in page
    else:
        assert f"Main pot {money(pot['amount'])}: " in page
    for side in ("high", "low"):
        for share in pot[side]:
            won = f"seat {share['seat']} {names[share['seat']]} wins {money(share['amount'])}"
            assert won + (f" ({side})" if game.startswith("omaha8") else "") in page
    for entry in result["seats"]:
        who = f"Seat {entry['seat']} {names[entry['seat']]}"
        net = ("+" if entry["net"] > 0 else "") + money(entry["net"])
        assert f"{who} ends with {money(entry['final_stack'])} ({net})" in page
    # The readable history, not the stored JSON: no burns, no undealt cards.
    assert cards_in(page) == set(board) | {card for cards in engine.hole_cards for card in cards}
    assert '"hole_cards"' not in page and "hole_cards_dealt" not in page


def test_a_cancelled_hand_shows_why_and_its_cards(staff):
    table = make_table()
    players = seat_three(table)
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    assert services.hand_cancel(hand=hand, reason="The dealer dropped the deck.", code="test")
    hand.refresh_from_db()
    engine = EngineHand.from_dict(hand.state)
    page = fetch(staff, f"/admin/poker/hand/{hand.pk}/change/")
    assert "Cancelled: The dealer dropped the deck.." not in page
    assert "Cancelled: The dealer dropped the deck." in page
    names = {1: "ann", 2: "ben", 4: "cy"}
    for seat, cards in zip(engine.seats, engine.hole_cards, strict=True):
        assert f"Dealt to seat {seat} {names[seat]}: {' '.join(cards)}" in page
    assert f"Flop: {' '.join(engine.board)}" in page

    # A stored hand without a log (none of its events was written) still opens, saying so and
    # showing nothing of it, not even the state it stored.
    broken = Hand.objects.create(
        table=table, number=hand.number + 1, status=Hand.Status.CANCELLED, deck=DECK,
        setup=hand.setup, state=hand.state,
    )  # fmt: skip
    page = fetch(staff, f"/admin/poker/hand/{broken.pk}/change/")
    assert "The stored events could not be read (ValueError)." in page and not cards_in(page)


def test_staff_find_a_hand_by_its_public_id_or_a_players_name(staff):
    table = make_table(name="Reef")  # no digit in the name: a number searches ids only
    players = seat_three(table)
    first = call_down(deal_hand(table, DECK), players)
    second = call_down(deal_hand(table, DECK), players)
    for term, wanted in ((f"%23{first.pk}", first), (str(second.pk), second)):
        page = fetch(staff, f"/admin/poker/hand/?q={term}")
        assert f"/admin/poker/hand/{wanted.pk}/change/" in page
        other = first if wanted is second else second
        assert f"/admin/poker/hand/{other.pk}/change/" not in page
    page = fetch(staff, "/admin/poker/hand/?q=ann")
    assert all(f"/admin/poker/hand/{h.pk}/change/" in page for h in (first, second))
    assert "/admin/poker/hand/" in fetch(staff, "/admin/poker/hand/?q=99999999999999999999999")


def test_table_edits_must_fit_the_seated_players():
    """Issue 21, item 7: `max_seats` 2 was saved with players in seats 4 and 6, and 0 seconds
    to act, on a running table. Refused now; stakes change only on an empty table."""
    from django.forms.models import model_to_dict

    from poker.admin_tools import MONEY_FIELDS, TableMoneyForm

    table = make_table()
    make_seated_player(table, "dee", 4)
    make_seated_player(table, "eve", 6)

    def edited(**changes):
        data = {k: v for k, v in model_to_dict(table).items() if v is not None}
        for name in MONEY_FIELDS:
            if data.get(name) is not None:
                data[name] = f"{data[name] / 100:.2f}"
        data.update(changes)
        return TableMoneyForm(data, instance=table)

    assert edited().is_valid(), edited().errors  # nothing changed: fine
    assert edited(name="Renamed", is_open=False).is_valid()
    too_few = edited(max_seats=2)
    assert not too_few.is_valid() and "max_seats" in too_few.errors
    no_time = edited(action_seconds=0)
    assert not no_time.is_valid() and "action_seconds" in no_time.errors
    stakes = edited(big_blind="2.00", small_blind="1.00")
    assert not stakes.is_valid() and "big_blind" in stakes.errors
    table.refresh_from_db()
    assert table.max_seats == 6 and table.action_seconds == 30
    # An empty table takes new stakes.
    Seat.objects.filter(table=table).delete()
    assert edited(big_blind="2.00", small_blind="1.00", max_seats=2).is_valid()
