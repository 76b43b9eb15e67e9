"""Auditors' exports carry the banked game's entries: wagers in play, settlements and voids,
each naming its player and round, and the house accounts' balances."""

from datetime import timedelta

import pytest
from django.utils import timezone

from cashier.models import Account, house_shard
from showdown.services import round_deal, round_decide, rounds_void_stale
from tests.factories import make_funded_player, make_showdown_table
from tests.showdown.play import ROYAL

pytestmark = pytest.mark.django_db


def test_the_journal_and_balances_include_the_banked_game(auditor, next_deck):
    player = make_funded_player("banker")
    table = make_showdown_table()
    next_deck(*ROYAL)
    won = round_deal(player=player, table=table, ante=500, idempotency_key="a")
    won = round_decide(player=player, round_id=won.pk, decision="raise", idempotency_key="b")
    old = round_deal(
        player=player,
        table=make_showdown_table(),
        ante=1_000,
        idempotency_key="c",
        now=timezone.now() - timedelta(days=91),
    )
    rounds_void_stale()
    journal = auditor.get("/api/cashier/audit/journal/", {"format": "json"}).json()
    rows = journal["results"] if isinstance(journal, dict) else journal
    banked = [row for row in rows if row["reason"] in ("banked_bet", "banked_payout", "void")]
    assert [row["reason"] for row in banked] == [
        "banked_bet",
        "banked_bet",
        "banked_payout",
        "banked_bet",
        "void",
    ]
    assert {row["player"] for row in banked} == {"banker"}
    assert banked[2]["memo"] == f"showdown round {won.pk}"
    assert f"showdown round {old.pk}" in banked[4]["memo"]
    payout = {p["account_kind"]: p["amount"] for p in banked[2]["postings"]}
    assert payout == {
        "banked_bets_in_play": -1_500,
        "wallet": 1_500 + won.net,
        "house_bankroll": -won.net,
    }
    balances = auditor.get("/api/cashier/audit/balances/", {"format": "json"}).json()
    rows = balances["results"] if isinstance(balances, dict) else balances
    by_kind = {row["account_kind"]: row["balance"] for row in rows if not row["account_owner"]}
    assert by_kind["house_bankroll"] == -won.net
    assert by_kind["charity"] == 1_000
    assert by_kind["banked_bets_in_play"] == 0


def test_the_house_s_shards_read_as_one_figure_to_auditors(auditor, next_deck):
    """Two players on different shards: the balances export shows one bets-in-play and one
    bankroll row holding the shards' sums; the journal of either shard's id shows both."""
    players = [make_funded_player(f"shard-{n}") for n in range(2)]
    assert house_shard(players[0].pk) != house_shard(players[1].pk)
    table = make_showdown_table()
    settled = []
    for player in players:
        next_deck(*ROYAL)
        dealt = round_deal(player=player, table=table, ante=500, idempotency_key="a")
        settled.append(
            round_decide(player=player, round_id=dealt.pk, decision="raise", idempotency_key="b")
        )
    waiting = round_deal(player=players[1], table=table, ante=700, idempotency_key="c")
    shards = Account.objects.filter(kind=Account.Kind.HOUSE_BANKROLL)
    assert shards.count() == 2
    balances = auditor.get("/api/cashier/audit/balances/", {"format": "json"}).json()
    rows = balances["results"] if isinstance(balances, dict) else balances
    house = [row for row in rows if not row["account_owner"] and not row["account_table"]]
    by_kind = {row["account_kind"]: row["balance"] for row in house}
    assert len(house) == len(by_kind)  # one row per kind
    assert by_kind["house_bankroll"] == -sum(r.net for r in settled)
    assert by_kind["banked_bets_in_play"] == waiting.staked
    last = shards.order_by("pk").last()
    journal = auditor.get(
        "/api/cashier/audit/journal/", {"format": "json", "account": last.pk}
    ).json()
    rows = journal["results"] if isinstance(journal, dict) else journal
    assert sorted(row["player"] for row in rows) == ["shard-0", "shard-1"]
