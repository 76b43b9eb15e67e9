"""The banked game deals provably fair decks: an online round's commitment comes with its
deal, its reveal after settling verifies, tampering is caught by verify_hand --round; a live
round's commitment is in every seat's view from the deal and its reveal verifies."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from fairness.models import ClientSeed, Commitment
from fairness.selectors import round_check
from fairness.services import client_seed_set
from poker.engine import fairness as scheme
from showdown.live import live_decide, live_seat_take, live_wagers_place
from showdown.live_selectors import live_table_view
from showdown.models import ShowdownRound
from showdown.services import round_deal, round_decide
from tests.factories import make_funded_player, make_showdown_table

pytestmark = pytest.mark.django_db


def test_online_round_commits_at_the_deal_and_verifies_once_settled(gambler, showdown_table):
    client_seed_set(player=gambler, seed="gambler-seed")
    round_ = round_deal(player=gambler, table=showdown_table, ante=500, idempotency_key="d1")
    row = Commitment.objects.get(kind="round", ref_id=round_.pk)
    assert row.client_seeds == {"1": "gambler-seed"} and row.revealed_at is None
    # The deck is the seeds' deck, and the commitment is what the player was shown.
    deck = scheme.seeded_deck(bytes.fromhex(row.server_seed), {1: "gambler-seed"})
    assert ShowdownRound.objects.get(pk=round_.pk).deck == deck
    assert row.commitment == scheme.commitment(deck, bytes.fromhex(row.salt))
    running = round_check(round_id=round_.pk, viewer=gambler)
    assert not running.revealed and running.deck == [] and running.salt == ""

    round_decide(player=gambler, round_id=round_.pk, decision="call", idempotency_key="c1")
    check = round_check(round_id=round_.pk, viewer=gambler)
    assert check.revealed and check.verification.ok, check.verification
    assert len(check.dealt) == 4 + 5


def test_api_round_carries_the_commitment(gambler, showdown_table, client):
    client.force_login(gambler, backend="django.contrib.auth.backends.ModelBackend")
    answer = client.post(
        "/api/showdown/rounds/",
        {"table_id": showdown_table.pk, "ante": 500, "idempotency_key": "api-1"},
        content_type="application/json",
    )
    assert answer.status_code in (200, 201), answer.content
    body = answer.json()
    row = Commitment.objects.get(kind="round", ref_id=body["id"])
    assert body["commitment"] == row.commitment
    assert (
        row.salt not in answer.content.decode() and row.server_seed not in answer.content.decode()
    )
    assert body["check_url"] == f"/fairness/round/{body['id']}/"


def test_verify_hand_round_detects_a_tampered_deck_and_salt(gambler, showdown_table):
    round_ = round_deal(player=gambler, table=showdown_table, ante=500, idempotency_key="d2")
    with pytest.raises(CommandError, match="not over"):
        call_command("verify_hand", round_.pk, "--round", stdout=StringIO())
    round_decide(player=gambler, round_id=round_.pk, decision="fold", idempotency_key="f2")
    out = StringIO()
    call_command("verify_hand", round_.pk, "--round", stdout=out)
    assert "The deal verifies." in out.getvalue()
    assert out.getvalue().count("pass") == 4

    stored = ShowdownRound.objects.get(pk=round_.pk)
    swapped = list(stored.deck)
    swapped[40], swapped[41] = swapped[41], swapped[40]  # two cards nobody saw
    ShowdownRound.objects.filter(pk=round_.pk).update(deck=swapped)
    out = StringIO()
    with pytest.raises(CommandError, match="NOT verify"):
        call_command("verify_hand", round_.pk, "--round", stdout=out)
    assert "FAIL  commitment" in out.getvalue() and "FAIL  seeds" in out.getvalue()

    ShowdownRound.objects.filter(pk=round_.pk).update(deck=stored.deck)
    row = Commitment.objects.get(kind="round", ref_id=round_.pk)
    Commitment.objects.filter(pk=row.pk).update(salt="00" * 32)
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_hand", round_.pk, "--round", stdout=out)
    assert "FAIL  commitment" in out.getvalue() and "pass  seeds" in out.getvalue()


def test_live_round_commitment_reaches_every_seat_with_the_deal_and_verifies():
    table = make_showdown_table(seats=7, bet_seconds=15, action_seconds=20)
    players = {}
    for seat, name in ((2, "ann"), (5, "ben")):
        players[seat] = make_funded_player(name, cents=100_000)
        live_seat_take(player=players[seat], table_id=table.pk, seat=seat)
    client_seed_set(player=players[5], seed="ben's")
    mine = {}
    for seat, player in players.items():
        mine[seat] = live_wagers_place(
            player=player, table_id=table.pk, ante=500, idempotency_key=f"w{seat}"
        )
    live_round = ShowdownRound.objects.get(pk=mine[2].pk).live_round
    row = Commitment.objects.get(kind="live", ref_id=live_round.pk)
    assert row.client_seeds == {"2": ClientSeed.objects.get(player=players[2]).seed, "5": "ben's"}
    for player in players.values():
        view = live_table_view(table_id=table.pk, user=player)
        assert view["round"]["commitment"] == row.commitment
        assert row.salt not in str(view) and row.server_seed not in str(view)
    assert not round_check(round_id=mine[5].pk, viewer=players[5]).revealed
    for seat, player in players.items():
        live_decide(player=player, table_id=table.pk, decision="call", idempotency_key=f"d{seat}")
    for seat, player in players.items():
        check = round_check(round_id=mine[seat].pk, viewer=player)
        assert check.revealed and check.verification.ok, check.verification
        assert len(check.dealt) == 8 + 5
    stranger = make_funded_player("cal", cents=0)
    with pytest.raises(Exception, match="No such deal"):
        round_check(round_id=mine[2].pk, viewer=stranger)
