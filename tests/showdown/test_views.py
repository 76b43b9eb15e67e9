"""The banked game's pages through Django's test client: the lobby lists the tables; the play
page deals, shows the cards and what each decision costs, settles and names every wager; a
repeated form does nothing twice; the board never shows before the decision; history; the
player is told of a voided round once."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from showdown.models import ShowdownRound
from showdown.services import round_deal, rounds_void_stale
from tests.showdown.play import ROYAL


@pytest.fixture
def gambler_client(client, gambler):
    client.force_login(gambler, backend="django.contrib.auth.backends.ModelBackend")
    return client


def deal_key(html: str) -> str:
    return re.search(r'name="idempotency_key" value="([0-9a-f]+)"', html).group(1)


def test_the_lobby_lists_the_banked_tables(client, showdown_table):
    page = client.get(reverse("lobby:home")).content.decode()
    assert 'id="lobby-banked"' in page
    assert "Showdown Micro" in page  # from the data migration
    assert reverse("showdown:table", args=[showdown_table.pk]) in page


def test_a_live_tables_name_in_the_lobby_leads_to_the_live_table(client, db):
    """Its name linked the online play page, which has no live table (a 404)."""
    from tests.factories import make_showdown_table

    live = make_showdown_table(seats=3)
    page = client.get(reverse("lobby:home")).content.decode()
    assert reverse("showdown:live", args=[live.pk]) in page
    assert f'href="{reverse("showdown:table", args=[live.pk])}"' not in page
    # Its button says "Live table, 3 seats" where there is room, "Live" on a phone (the long
    # label wrapped three lines tall in Japanese), and the whole of it to a screen reader.
    button = re.search(
        rf'<a class="button small" href="{reverse("showdown:live", args=[live.pk])}"[^>]*>.*?</a>',
        page,
    )
    assert button and 'aria-label="Live table, 3 seats"' in button[0], page
    assert '<span class="wide">Live table, 3 seats</span>' in button[0]
    assert '<span class="narrow-only">Live</span>' in button[0]


def test_the_play_page_shows_limits_cap_paytables_and_balance(gambler_client, db):
    from showdown.models import ShowdownTable

    table = ShowdownTable.objects.get(name="Showdown")
    page = gambler_client.get(reverse("showdown:table", args=[table.pk])).content.decode()
    assert "$1,000.00" in page  # the wallet
    assert "$25,000.00" in page  # the maximum aggregate payout
    assert "Ante $5.00\u2013$200.00" in re.sub("<[^>]+>", "", page)  # amounts in .money
    for line in ("25 to 1", "100 to 1", "200 to 1", "2.65%", "1.03%", "2.55%"):
        assert line in page
    assert 'id="sd-deal-form"' in page


def test_paytables_are_named_for_players_not_by_their_codes(gambler_client, db):
    """The lobby, the play page and the live page name paytables for players, never by their
    codes ("bet, hcb-b, fhb-b", "(hcb-a)"), and the live table shows its own (RULES.md 9:
    every table shows its paytable). A four-card flush and straight are explained where they
    are paid."""
    from showdown.models import ShowdownTable
    from tests.factories import make_showdown_table

    online = ShowdownTable.objects.get(name="Showdown Micro")
    live = make_showdown_table(seats=3)
    codes = re.compile(r"\b(?:hcb|fhb)-[a-e]\b|\(bet\)|>bet,")
    lobby = gambler_client.get(reverse("lobby:home")).content.decode()
    assert "Bet, Hole Card Bonus B, Final Hand Bonus B" in lobby
    for url in (
        reverse("showdown:table", args=[online.pk]),
        reverse("showdown:live", args=[live.pk]),
    ):
        page = gambler_client.get(url).content.decode()
        assert 'id="sd-paytables"' in page, url
        assert not codes.search(page), (url, codes.search(page))
        assert "<caption>Hole Card Bonus" in page and "<caption>Final Hand Bonus" in page
        assert "four of one suit" in page and "four in a row" in page
        assert "25 to 1" in page and "200 to 1" in page
    assert not codes.search(lobby)


def test_a_paytable_staff_named_keeps_its_name_after_the_wager():
    from showdown.models import Paytable

    assert Paytable(kind="bet", name="bet").title() == "Bet"
    assert Paytable(kind="final_hand_bonus", name="fhb-e").title() == "Final Hand Bonus E"
    assert str(Paytable(kind="hole_card_bonus", name="Summer")) == "Hole Card Bonus Summer"


def test_deal_decide_and_see_the_result(gambler_client, gambler, showdown_table, next_deck):
    next_deck(*ROYAL)
    url = reverse("showdown:table", args=[showdown_table.pk])
    key = deal_key(gambler_client.get(url).content.decode())
    form = {"ante": "5", "hole_card_bonus": "1.00", "final_hand_bonus": "1", "idempotency_key": key}
    response = gambler_client.post(reverse("showdown:deal", args=[showdown_table.pk]), form)
    assert response.status_code == 302 and response["Location"] == url
    again = gambler_client.post(reverse("showdown:deal", args=[showdown_table.pk]), form)
    assert again.status_code == 302
    assert ShowdownRound.objects.count() == 1
    page = gambler_client.get(url).content.decode()
    round_ = ShowdownRound.objects.get()
    for card in round_.hole:
        assert f'data-card="{card}"' in page
    for card in round_.deck[4:9]:  # the board to come is nowhere on the page
        assert f'data-card="{card}"' not in page
    assert "Bet $5.00" in page and "Bet $10.00" in page  # Call and Raise
    assert "$993.00" in page
    # The deal's commitment is on the page with the cards it came before.
    from showdown.selectors import round_commitment

    assert round_commitment(round_)[:16] in page and 'id="sd-commitment"' in page
    decide = reverse("showdown:decide", args=[round_.pk])
    choice = {"decision": "raise", "idempotency_key": deal_key(page)}
    assert gambler_client.post(decide, choice).status_code == 302
    assert gambler_client.post(decide, choice).status_code == 302  # a double click
    round_.refresh_from_db()
    assert round_.status == "settled" and round_.net == 45_400
    page = gambler_client.get(url).content.decode()
    assert "Royal flush" in page
    assert "Wins on royal flush, 25 to 1" in page
    assert "+$454.00" in page
    assert reverse("fairness:round", args=[round_.pk]) in page  # the revealed deal, to check
    assert wallet_balance(player=gambler) == 100_000 + 45_400
    assert ledger_verify().ok


def test_refused_wagers_show_why_and_change_nothing(gambler_client, gambler, showdown_table):
    url = reverse("showdown:table", args=[showdown_table.pk])
    key = deal_key(gambler_client.get(url).content.decode())
    response = gambler_client.post(
        reverse("showdown:deal", args=[showdown_table.pk]),
        {"ante": "4.99", "idempotency_key": key},
        follow=True,
    )
    assert "Deal refused: The ante of 499 is outside" in response.content.decode()
    response = gambler_client.post(
        reverse("showdown:deal", args=[showdown_table.pk]),
        {"ante": "abc", "idempotency_key": key},
        follow=True,
    )
    assert "Deal refused" in response.content.decode()
    assert ShowdownRound.objects.count() == 0
    assert wallet_balance(player=gambler) == 100_000


def test_a_round_left_open_is_on_the_page_when_the_player_comes_back(
    client, gambler, showdown_table
):
    round_ = round_deal(player=gambler, table=showdown_table, ante=500, idempotency_key="left")
    client.force_login(gambler, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get(reverse("showdown:table", args=[showdown_table.pk])).content.decode()
    assert f'data-round="{round_.pk}"' in page and "your decision" in page
    assert 'id="sd-deal-form"' not in page


def test_nobody_else_decides_a_players_round(client, gambler, showdown_table):
    from tests.factories import make_funded_player

    round_ = round_deal(player=gambler, table=showdown_table, ante=500, idempotency_key="k")
    client.force_login(make_funded_player("mallory"))
    response = client.post(
        reverse("showdown:decide", args=[round_.pk]), {"decision": "fold", "idempotency_key": "x"}
    )
    assert response.status_code == 404
    round_.refresh_from_db()
    assert round_.status == "dealt"


def test_pages_need_a_signed_in_player(client, showdown_table):
    for url in (
        reverse("showdown:table", args=[showdown_table.pk]),
        reverse("showdown:history"),
    ):
        assert client.get(url)["Location"].startswith(reverse("lobby:login"))
    assert client.get(reverse("showdown:table", args=[9999])).status_code == 302


def test_history_lists_the_players_rounds(gambler_client, gambler, showdown_table, next_deck):
    from showdown.services import round_decide

    next_deck(*ROYAL)
    done = round_deal(player=gambler, table=showdown_table, ante=500, idempotency_key="a")
    round_decide(player=gambler, round_id=done.pk, decision="call", idempotency_key="b")
    waiting = round_deal(player=gambler, table=showdown_table, ante=600, idempotency_key="c")
    page = gambler_client.get(reverse("showdown:history")).content.decode()
    assert f'data-round="{done.pk}" data-status="settled"' in page
    assert f'data-round="{waiting.pk}" data-status="dealt"' in page
    assert "waiting for you" in page and "Royal flush" in page


def test_the_player_is_told_of_a_voided_round_once(gambler_client, gambler, showdown_table):
    round_deal(
        player=gambler,
        table=showdown_table,
        ante=500,
        idempotency_key="old",
        now=timezone.now() - timedelta(days=90, seconds=1),
    )
    rounds_void_stale()
    first = gambler_client.get(reverse("lobby:home")).content.decode()
    assert "was left undecided for 90 days and voided" in first
    assert "$5.00 in wagers went to the charity account" in first
    second = gambler_client.get(reverse("lobby:home")).content.decode()
    assert "voided" not in second


def test_a_closed_table_still_lets_the_player_finish_their_round(
    gambler_client, gambler, showdown_table
):
    round_ = round_deal(player=gambler, table=showdown_table, ante=500, idempotency_key="k")
    lobby = gambler_client.get(reverse("lobby:home")).content.decode()
    assert "Your round waits" in lobby
    showdown_table.is_open = False
    showdown_table.save()
    url = reverse("showdown:table", args=[showdown_table.pk])
    page = gambler_client.get(url).content.decode()
    assert f'data-round="{round_.pk}"' in page
    gambler_client.post(
        reverse("showdown:decide", args=[round_.pk]),
        {"decision": "fold", "idempotency_key": deal_key(page)},
    )
    round_.refresh_from_db()
    assert round_.status == "settled"
    page = gambler_client.get(url).content.decode()
    assert 'id="sd-closed"' in page and 'id="sd-deal-form"' not in page
    assert "Your round waits" not in gambler_client.get(reverse("lobby:home")).content.decode()


def test_a_closed_table_is_not_found_for_anyone_else(client, showdown_table):
    from tests.factories import make_funded_player

    showdown_table.is_open = False
    showdown_table.save()
    client.force_login(make_funded_player("walker"))
    assert client.get(reverse("showdown:table", args=[showdown_table.pk])).status_code == 404
