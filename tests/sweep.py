"""What the hidden-card sweeps share: a known deck, the card scan, and the admin pages a sweep
reads (tests/poker/test_admin_sweep.py, tests/poker/test_hidden_cards.py,
tests/staff/test_hidden_cards.py, tests/showdown/test_admin.py)."""

import re

from django.test import Client

from poker.engine.cards import FULL_DECK

# A known deck: every seventh card of the sorted deck, wrapping (7 and 52 share no factor).
DECK = [FULL_DECK[7 * k % 52] for k in range(52)]

# What the scan skips, each with its own compiled pattern (three searches for a literal start
# are quicker than one alternation tried at every character): the admin's SVG icons, whose
# path data reads like cards ("v-2h-3"); a hand's share link, whose signed token may hold
# "-Td_"; the start of a password's salt and hash on a user's admin page, base64 that may read
# "/Jd*".
SKIPPED = (
    re.compile(r"<svg.*?</svg>", flags=re.DOTALL),
    re.compile(r"/hands/shared/[^\s\"'<]*"),
    re.compile(r"<strong>[^<]*</strong>: <bdi>[^<]*\*</bdi>"),
)
# A card as a token of its own, in text, HTML or JSON ("As", "As Kd", '"As"', but not "Ask"),
# and runs of cards written together ("AsKdQhJc", as hand histories write them).
CARDS = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs])+(?![A-Za-z0-9])")


def cards_in(text: str) -> set[str]:
    """Every card written in `text`, outside the parts `SKIPPED` names."""
    for skipped in SKIPPED:
        text = skipped.sub("", text)
    found = set()
    for run in CARDS.findall(text):
        found.update(run[k : k + 2] for k in range(0, len(run), 2))
    return found


# How many rows of each model the admin sweep opens, newest first (a test's own rows are the
# newest): every row's change page up to CHANGE_ROWS, and the history and delete pages of the
# newest HISTORY_ROWS. A row's own fields show on its change page; its history and delete pages
# show its title and its related rows' titles, drawn by the same code for every row of a model.
CHANGE_ROWS = 5
HISTORY_ROWS = 3


def every_admin_page() -> list[str]:
    """Every registered admin's list page and its rows' change, history and delete pages (an
    admin without such a page, as the house's days, has none to sweep): so a page added later,
    or one Django draws on its own (a proxy's read-only change page), is swept without anyone
    listing it."""
    from django.contrib import admin
    from django.contrib.auth import get_user_model
    from django.test import RequestFactory
    from django.urls import NoReverseMatch, reverse

    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(is_staff=True, is_superuser=True)
    pages = ["/admin/"]
    for model, model_admin in admin.site._registry.items():
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        pages.append(reverse(f"{name}_changelist"))
        newest = model_admin.get_queryset(request).order_by("-pk").values_list("pk", flat=True)
        for k, pk in enumerate(newest[:CHANGE_ROWS]):
            views = ("change", "history", "delete") if k < HISTORY_ROWS else ("change",)
            for view in views:
                try:
                    pages.append(reverse(f"{name}_{view}", args=[pk]))
                except NoReverseMatch:
                    continue
    return pages


def unique(pages: list[str]) -> list[str]:
    """The pages in their order, each once."""
    return list(dict.fromkeys(pages))


def without_echo(page: str, query: str) -> str:
    """The page less the search box and links repeating the query back."""
    return page.replace(f'value="{query}"', "").replace(f"q={query}", "")


def fetch(client: Client, url: str) -> str:
    response = client.get(url)
    # Pages staff may not open (deleting a hand; deleting anything, for the viewer) are refused.
    assert response.status_code in (200, 403), (url, response.status_code)
    return response.content.decode()


def staff_pages(hand) -> list[str]:
    """Every admin page that shows this hand, its table, seats or incidents, the staff's tools
    and the pages around them (the player page's recent hands, the tools' forms, the ledger,
    adjustments, notes and the audit log), then `every_admin_page()`: each page once."""
    from poker.models import HandIncident, Seat

    table = hand.table
    seats = Seat.objects.filter(table=table)
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
        *(f"/admin/poker/seat/{seat.pk}/change/" for seat in seats),
        *(
            f"/admin/poker/handincident/{incident.pk}/change/"
            for incident in HandIncident.objects.filter(hand=hand)
        ),
        *(f"/admin/staff/player/{seat.player_id}/change/" for seat in seats),
        *(f"/admin/poker/seat/{seat.pk}/remove/" for seat in seats),
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
    return unique(pages + every_admin_page())


def search_guesses(hand) -> list[str]:
    """The cards a sweep searches the admin's lists for, one from every place a running hand
    keeps a card: each seat's hole cards (its first and last), the burns and the board to come
    (the first burn, the flop's first card, the river) and a card the hand never deals. A search
    answers only by which rows match, and a field that a search reads matches any card it
    holds, so one card of each place finds a searchable place as surely as all of them."""
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand

    row = Hand.objects.with_deck().get(pk=hand.pk)
    engine = EngineHand.from_snapshot(row.state, row.deck)
    assert not engine.board, "a hand before the flop: every card still to come is hidden"
    holes = [card for cards in engine.hole_cards for card in (cards[0], cards[-1])]
    to_come = engine.deck[engine.next_card :]
    # burn, flop, flop, flop, burn, turn, burn, river; then cards no hand of this size deals
    guesses = unique([*holes, to_come[0], to_come[1], to_come[7], to_come[-1]])
    assert len(guesses) == 2 * len(engine.hole_cards) + 4, guesses
    return guesses
