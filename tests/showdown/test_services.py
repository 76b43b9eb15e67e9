"""The banked game's services: every money path moves balanced entries, conserves money and
leaves verify_ledger clean; refusals change nothing; repeats replay; the cap; voids."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cashier.models import HOUSE_SHARDS, Account, Entry, house_shard
from cashier.posting import Leg, entry_post_locked
from cashier.selectors import wallet_balance
from cashier.services import CashierError
from cashier.verify import ledger_verify
from fairness.models import Commitment
from showdown.models import Paytable, ShowdownRound
from showdown.services import (
    ShowdownRefused,
    paytable_measure,
    round_deal,
    round_decide,
    rounds_void_stale,
    voided_rounds_tell,
)
from tests.factories import make_funded_player, make_showdown_table
from tests.showdown.play import NOTHING, ROYAL

Kind = Account.Kind
START = 100_000

# Four hearts in the hole (Hole Card Bonus flush, 10 to 1) and a heart flush on the board.
FLUSH = ("2h5h9hKh", "3h7h8hJsQd")


def balance(kind, owner=None) -> int:
    """The account's balance; for the house's split accounts, the sum of their shards."""
    return sum(Account.objects.filter(kind=kind, owner=owner).values_list("balance", flat=True))


def assert_ledger_clean() -> None:
    report = ledger_verify()
    assert report.ok, report.problems
    assert {"banked_entries_match_rounds", "banked_bets_in_play_match_open_rounds"} <= {
        check.name for check in report.checks
    }


def assert_conserved(player, *, net: int, in_play: int = 0, charity: int = 0) -> None:
    """The player's wallet moved by `net`, the house by the opposite (less what is still in
    play or went to charity), and every balance sums to zero."""
    assert wallet_balance(player=player) == START + net
    assert balance(Kind.BANKED_BETS_IN_PLAY) == in_play
    assert balance(Kind.CHARITY) == charity
    assert balance(Kind.HOUSE_BANKROLL) == -net - in_play - charity
    assert sum(Account.objects.values_list("balance", flat=True)) == 0
    assert_ledger_clean()


def deal(player, table, key="deal-1", **wagers):
    wagers = {"ante": 500, "hole_card_bonus": 100, "final_hand_bonus": 100, **wagers}
    return round_deal(player=player, table=table, idempotency_key=key, **wagers)


def test_deal_moves_the_wagers_into_play(gambler, showdown_table, next_deck):
    next_deck(*ROYAL)
    round_ = deal(gambler, showdown_table)
    assert round_.status == "dealt"
    assert round_.hole == ["As", "Ks", "2c", "3d"]
    assert round_.board == [] and round_.state["deck"] == []
    assert round_.deck[4:9] == ["Qs", "Js", "Ts", "4h", "9c"]
    entry = round_.wager_entry
    assert entry.reason == "banked_bet" and entry.player == gambler
    assert sorted(entry.postings.values_list("amount", flat=True)) == [-700, 700]
    assert_conserved(gambler, net=-700, in_play=700)


def test_raise_on_a_royal_flush_pays_every_wager(gambler, showdown_table, next_deck):
    next_deck(*ROYAL)
    round_ = deal(gambler, showdown_table)
    round_ = round_decide(
        player=gambler, round_id=round_.pk, decision="raise", idempotency_key="decide-1"
    )
    wagers = round_.seat_result["wagers"]
    assert round_.status == "settled" and round_.bet == 1000 and round_.staked == 1700
    assert wagers["ante"]["won"] == 500
    assert wagers["bet"]["won"] == 25 * 1000
    assert wagers["final_hand_bonus"]["won"] == 200 * 100
    assert wagers["hole_card_bonus"]["result"] == "lose"
    assert round_.net == 500 + 25_000 + 20_000 - 100
    assert round_.board == ["Qs", "Js", "Ts", "4h", "9c"]
    assert round_.seat_result["final_hand"]["category"] == "royal flush"
    assert round_.bet_entry.reason == "banked_bet"
    assert round_.result_entry.reason == "banked_payout"
    assert_conserved(gambler, net=round_.net)


def test_call_with_nothing_loses_ante_bet_and_side_bets(gambler, showdown_table, next_deck):
    next_deck(*NOTHING)
    round_ = deal(gambler, showdown_table)
    round_ = round_decide(
        player=gambler, round_id=round_.pk, decision="call", idempotency_key="decide-1"
    )
    assert round_.bet == 500 and round_.net == -1200
    # The wallet gets nothing back: the settlement is bets in play -> the house.
    legs = dict(round_.result_entry.postings.values_list("account__kind", "amount"))
    assert legs == {Kind.BANKED_BETS_IN_PLAY: -1200, Kind.HOUSE_BANKROLL: 1200}
    assert_conserved(gambler, net=-1200)


def test_fold_loses_the_ante_and_still_settles_the_side_bets(gambler, showdown_table, next_deck):
    next_deck(*FLUSH)
    round_ = deal(gambler, showdown_table)
    round_ = round_decide(
        player=gambler, round_id=round_.pk, decision="fold", idempotency_key="decide-1"
    )
    wagers = round_.seat_result["wagers"]
    assert round_.bet_entry is None and round_.bet == 0
    assert wagers["ante"]["result"] == "fold"
    assert wagers["hole_card_bonus"]["won"] == 10 * 100  # four hearts: a flush, 10 to 1
    assert wagers["final_hand_bonus"]["won"] == 2 * 100  # a flush, 2 to 1, even folded
    assert round_.net == -500 + 1000 + 200
    assert_conserved(gambler, net=700)


def test_the_maximum_aggregate_payout_caps_what_the_house_pays(gambler, next_deck):
    table = make_showdown_table(max_aggregate_payout=10_000)
    next_deck(*ROYAL)
    round_ = deal(gambler, table)
    round_ = round_decide(
        player=gambler, round_id=round_.pk, decision="raise", idempotency_key="decide-1"
    )
    cap = round_.result["payout_cap"]
    assert round_.payout_capped and cap["applied"]
    assert cap["owed"] == 45_500 and cap["paid"] == 10_000
    assert round_.net == 10_000 - 100  # the capped winnings less the lost Hole Card Bonus
    assert_conserved(gambler, net=9_900)


def test_a_double_clicked_deal_places_once(gambler, showdown_table):
    first = deal(gambler, showdown_table, key="same")
    again = deal(gambler, showdown_table, key="same")
    assert again.pk == first.pk
    assert ShowdownRound.objects.count() == 1
    assert Entry.objects.filter(reason="banked_bet").count() == 1
    assert_conserved(gambler, net=-700, in_play=700)


def test_a_key_reused_for_another_deal_is_refused(gambler, showdown_table):
    deal(gambler, showdown_table, key="same")
    with pytest.raises(ShowdownRefused) as refused:
        deal(gambler, showdown_table, key="same", ante=600)
    assert refused.value.code == "idempotency_conflict"
    assert_conserved(gambler, net=-700, in_play=700)


def test_a_double_clicked_decision_settles_once(gambler, showdown_table, next_deck):
    next_deck(*ROYAL)
    round_ = deal(gambler, showdown_table)
    first = round_decide(player=gambler, round_id=round_.pk, decision="raise", idempotency_key="d")
    again = round_decide(player=gambler, round_id=round_.pk, decision="raise", idempotency_key="d")
    assert again.pk == first.pk and again.result_entry_id == first.result_entry_id
    assert Entry.objects.filter(reason="banked_payout").count() == 1
    with pytest.raises(ShowdownRefused) as conflict:
        round_decide(player=gambler, round_id=round_.pk, decision="call", idempotency_key="d")
    assert conflict.value.code == "idempotency_conflict"
    with pytest.raises(ShowdownRefused) as settled:
        round_decide(player=gambler, round_id=round_.pk, decision="call", idempotency_key="d2")
    assert settled.value.code == "settled"
    assert_conserved(gambler, net=first.net)


@pytest.mark.django_db(transaction=True)
def test_two_deals_racing_with_one_key_place_once(showdown_table):
    player = make_funded_player("racer", cents=START)
    barrier = threading.Barrier(2)
    rounds, errors = [], []

    def click() -> None:
        try:
            barrier.wait()
            rounds.append(deal(player, showdown_table, key="race").pk)
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(set(rounds)) == 1
    assert Entry.objects.filter(reason="banked_bet").count() == 1
    assert_conserved(player, net=-700, in_play=700)


@pytest.mark.django_db(transaction=True)
def test_two_decisions_racing_with_one_key_settle_once(showdown_table):
    player = make_funded_player("decider", cents=START)
    round_ = deal(player, showdown_table, key="deal")
    barrier = threading.Barrier(2)
    settled, errors = [], []

    def click() -> None:
        try:
            barrier.wait()
            decided = round_decide(
                player=player, round_id=round_.pk, decision="raise", idempotency_key="same"
            )
            settled.append(decided.result_entry_id)
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=click) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(settled) == 2 and len(set(settled)) == 1
    assert Entry.objects.filter(reason="banked_payout").count() == 1
    assert Entry.objects.filter(reason="banked_bet").count() == 2  # the deal's and the Bet
    round_.refresh_from_db()
    assert_conserved(player, net=round_.net)


@pytest.mark.parametrize(
    ("wagers", "code"),
    [
        ({"ante": 499}, "outside_limits"),
        ({"ante": 20_001}, "outside_limits"),
        ({"hole_card_bonus": 10_001}, "outside_limits"),
        ({"final_hand_bonus": 50}, "outside_limits"),
        ({"ante": 0}, "bad_amount"),
        ({"ante": 5.0}, "bad_amount"),
        ({"ante": True}, "bad_amount"),
        ({"hole_card_bonus": -100}, "bad_amount"),
    ],
)
def test_wagers_outside_the_limits_are_refused_and_change_nothing(
    gambler, showdown_table, wagers, code
):
    with pytest.raises(ShowdownRefused) as refused:
        deal(gambler, showdown_table, **wagers)
    assert refused.value.code == code
    assert ShowdownRound.objects.count() == 0
    assert_conserved(gambler, net=0)


def test_other_refused_deals_change_nothing(gambler, showdown_table):
    poor = make_funded_player("poor", cents=600)
    with pytest.raises(CashierError) as broke:
        deal(poor, showdown_table)
    assert broke.value.code == "insufficient_funds"
    with pytest.raises(ShowdownRefused) as keyless:
        deal(gambler, showdown_table, key="")
    assert keyless.value.code == "missing_idempotency_key"
    closed = make_showdown_table(is_open=False)
    with pytest.raises(ShowdownRefused) as shut:
        deal(gambler, closed)
    assert shut.value.code == "table_closed"
    deal(gambler, showdown_table, key="first")
    with pytest.raises(ShowdownRefused) as unfinished:
        deal(gambler, showdown_table, key="second")
    assert unfinished.value.code == "round_unfinished"
    assert ShowdownRound.objects.count() == 1
    assert wallet_balance(player=poor) == 600
    assert_conserved(gambler, net=-700, in_play=700)


def test_a_raise_the_wallet_cannot_cover_is_refused_and_the_round_waits(showdown_table, next_deck):
    player = make_funded_player("short", cents=1_200)
    next_deck(*NOTHING)
    round_ = deal(player, showdown_table, ante=1_000, hole_card_bonus=0, final_hand_bonus=0)
    with pytest.raises(CashierError) as broke:
        round_decide(player=player, round_id=round_.pk, decision="raise", idempotency_key="d")
    assert broke.value.code == "insufficient_funds"
    round_.refresh_from_db()
    assert round_.status == "dealt" and round_.decide_key == "" and round_.bet_entry is None
    assert balance(Kind.BANKED_BETS_IN_PLAY) == 1_000
    assert_ledger_clean()
    # The same key may be used again for a decision the wallet covers.
    round_ = round_decide(player=player, round_id=round_.pk, decision="fold", idempotency_key="d")
    assert round_.net == -1_000 and wallet_balance(player=player) == 200
    assert_ledger_clean()


def test_decisions_on_rounds_not_the_players_are_refused(gambler, showdown_table):
    round_ = deal(gambler, showdown_table)
    other = make_funded_player("other")
    for who, round_id, decision, code in [
        (other, round_.pk, "call", "unknown_round"),
        (gambler, round_.pk + 1, "call", "unknown_round"),
        (gambler, True, "call", "unknown_round"),
        (gambler, round_.pk, "check", "bad_decision"),
    ]:
        with pytest.raises(ShowdownRefused) as refused:
            round_decide(player=who, round_id=round_id, decision=decision, idempotency_key="k")
        assert refused.value.code == code
    round_.refresh_from_db()
    assert round_.status == "dealt"
    assert_conserved(gambler, net=-700, in_play=700)


def test_a_round_left_undecided_is_resumed_where_it_stood(gambler, showdown_table, next_deck):
    next_deck(*ROYAL)
    dealt = deal(gambler, showdown_table)
    # The player goes away (days pass; nothing times out) and comes back to the same cards.
    later = timezone.now() + timedelta(days=30)
    assert rounds_void_stale(now=later) == []
    waiting = ShowdownRound.objects.get(player=gambler, status="dealt")
    assert waiting.pk == dealt.pk and waiting.hole == dealt.hole
    settled = round_decide(
        player=gambler, round_id=waiting.pk, decision="call", idempotency_key="d", now=later
    )
    assert settled.seat_result["hole"] == dealt.hole
    assert settled.board == dealt.deck[4:9]
    assert_conserved(gambler, net=settled.net)


def test_a_round_unresolved_for_90_days_goes_to_charity(gambler, showdown_table):
    dealt_at = timezone.now() - timedelta(days=91)
    round_ = round_deal(
        player=gambler,
        table=showdown_table,
        ante=500,
        hole_card_bonus=100,
        idempotency_key="old",
        now=dealt_at,
    )
    fresh = deal(make_funded_player("fresh"), make_showdown_table(), key="new")
    assert rounds_void_stale(now=timezone.now() - timedelta(days=2)) == []
    voided = rounds_void_stale()
    assert voided == [round_.pk]
    assert rounds_void_stale() == []  # once
    round_.refresh_from_db()
    fresh.refresh_from_db()
    assert round_.status == "voided" and fresh.status == "dealt"
    entry = round_.result_entry
    assert entry.reason == "void" and entry.player == gambler and entry.created_by is None
    assert "showdown round" in entry.memo
    assert balance(Kind.CHARITY) == 600
    assert wallet_balance(player=gambler) == START - 600
    assert balance(Kind.BANKED_BETS_IN_PLAY) == fresh.staked
    assert_ledger_clean()
    # The player is told once, on the next visit; the round cannot be decided any more.
    told = voided_rounds_tell(player=gambler)
    assert [r.pk for r in told] == [round_.pk]
    assert voided_rounds_tell(player=gambler) == []
    with pytest.raises(ShowdownRefused) as refused:
        round_decide(player=gambler, round_id=round_.pk, decision="call", idempotency_key="late")
    assert refused.value.code == "voided"


def test_verify_ledger_catches_a_round_that_no_longer_matches_its_entries(gambler, showdown_table):
    round_ = deal(gambler, showdown_table)
    ShowdownRound.objects.filter(pk=round_.pk).update(staked=800)
    problems = ledger_verify().problems
    assert any("[banked_bets_in_play_match_open_rounds]" in p for p in problems)
    assert any("[banked_entries_match_rounds]" in p and f"#{round_.pk}" in p for p in problems)


def test_verify_ledger_catches_banked_money_outside_any_round(gambler, showdown_table):
    round_ = deal(gambler, showdown_table)
    ShowdownRound.objects.filter(pk=round_.pk).update(wager_entry=None)
    problems = ledger_verify().problems
    assert any("belongs to no showdown round" in p for p in problems)


def test_paytables_are_loaded_with_their_exact_edges(db):
    edges = dict(Paytable.objects.values_list("name", "edge"))
    assert edges["bet"] == "1024889419/38630291700"
    assert edges["hcb-a"] == "2792/270725"
    assert edges["fhb-a"] == "245863162/9657572925"
    assert len(edges) == 11
    assert Paytable.objects.get(name="hcb-e").edge_pct == pytest.approx(9.7723, abs=1e-4)


def test_a_new_paytable_is_checked_and_stored_with_its_edge(db):
    pays = dict(Paytable.objects.get(name="fhb-a").pays)
    pays["four of a kind"] = 50
    table = paytable_measure(
        paytable=Paytable(kind="final_hand_bonus", name="fhb-house", pays=pays)
    )
    assert table.edge == Paytable.objects.get(name="fhb-c").edge  # C pays 50 on quads
    too_generous = Paytable(kind="bet", name="bet-26", pays={**table.pays, "royal flush": 26})
    with pytest.raises(ShowdownRefused) as refused:
        paytable_measure(paytable=too_generous)
    assert refused.value.code == "bad_paytable"
    assert not Paytable.objects.filter(name="bet-26").exists()


def test_verify_ledger_catches_wagers_in_another_player_s_shard(gambler, showdown_table):
    round_ = deal(gambler, showdown_table)
    mine = house_shard(gambler.pk)
    other = (mine + 1) % HOUSE_SHARDS
    Account.objects.create(kind=Kind.BANKED_BETS_IN_PLAY, shard=other)
    moved = entry_post_locked(
        legs=[
            Leg(Kind.BANKED_BETS_IN_PLAY, -round_.staked, shard=mine),
            Leg(Kind.BANKED_BETS_IN_PLAY, round_.staked, shard=other),
        ],
        reason=Entry.Reason.BANKED_BET,
        player=gambler,
        memo="moved to another shard",
    )
    assert moved.entry is not None
    # The house's total is unchanged; each shard no longer holds its own players' stakes.
    assert balance(Kind.BANKED_BETS_IN_PLAY) == round_.staked
    problems = ledger_verify().problems
    assert any(f"shard {other} of banked bets in play holds {round_.staked}" in p for p in problems)
    assert any(f"shard {mine} of banked bets in play holds 0" in p for p in problems)
    assert any("belongs to no showdown round" in p for p in problems)


@pytest.mark.parametrize(("decision", "entries"), [("raise", 2), ("fold", 1)])
def test_a_decision_posts_and_writes_the_round_in_one_statement(
    gambler, showdown_table, next_deck, decision, entries
):
    """The Bet, the settlement and the round's row are one statement (after the
    round's lock, and with the deck's reveal): the round read back holds what the service
    answered, its Bet and settlement entries each balance, and the ledger is clean."""
    first = deal(gambler, showdown_table, key="deal-0")  # opens the house's accounts
    first = round_decide(player=gambler, round_id=first.pk, decision="fold", idempotency_key="0")
    next_deck(*ROYAL)
    dealt = deal(gambler, showdown_table)
    before = Entry.objects.count()
    with CaptureQueriesContext(connection) as statements:
        answered = round_decide(
            player=gambler, round_id=dealt.pk, decision=decision, idempotency_key="decide-1"
        )
    postings = [q["sql"] for q in statements if "INSERT INTO cashier_posting" in q["sql"]]
    assert len(postings) == 1, "the Bet and the settlement in one statement"
    assert not [q for q in statements if q["sql"].startswith('UPDATE "showdown_showdownround"')]
    sent = [q["sql"][:60] for q in statements if "SAVEPOINT" not in q["sql"]]  # the test's
    assert len(sent) == 2, sent
    assert Entry.objects.count() == before + entries
    stored = ShowdownRound.objects.get(pk=dealt.pk)
    for name in ("status", "decision", "bet", "staked", "net", "result", "state", "deck"):
        assert getattr(stored, name) == getattr(answered, name), name
    assert stored.decide_key == "decide-1" and stored.settled_at == answered.settled_at
    assert stored.result_entry_id == answered.result_entry.pk
    assert stored.bet_entry_id == (answered.bet_entry.pk if answered.bet_entry else None)
    assert stored.result_entry.reason == "banked_payout"
    reveal = Commitment.objects.get(kind=Commitment.Kind.ROUND, ref_id=dealt.pk)
    assert reveal.revealed_at == answered.settled_at
    for entry in (stored.bet_entry, stored.result_entry):
        if entry is not None:
            assert sum(entry.postings.values_list("amount", flat=True)) == 0
    assert_conserved(gambler, net=first.net + stored.net)


@pytest.mark.django_db(transaction=True)
def test_a_round_is_four_statements_each_its_own_transaction(gambler, showdown_table, next_deck):
    """Outside a caller's transaction a deal is its read and one statement (the
    wagers, the round, the deck's commitment and its seats), a decision its read and one
    statement (the Bet, the settlement, the round, the reveal), and none of the four runs
    inside a BEGIN ... COMMIT of its own: four round trips a round."""
    first = deal(gambler, showdown_table, key="deal-0")  # opens the house's accounts
    first = round_decide(player=gambler, round_id=first.pk, decision="fold", idempotency_key="0")
    next_deck(*ROYAL)
    in_transaction = []

    def status(execute, sql, params, many, context):
        in_transaction.append(connection.connection.info.transaction_status != 0)  # not IDLE
        return execute(sql, params, many, context)

    with CaptureQueriesContext(connection) as statements, connection.execute_wrapper(status):
        dealt = deal(gambler, showdown_table)
        decided = round_decide(
            player=gambler, round_id=dealt.pk, decision="raise", idempotency_key="decide-1"
        )
    assert len(statements) == 4, [q["sql"][:60] for q in statements]
    assert in_transaction == [False] * 4
    stored = ShowdownRound.objects.get(pk=dealt.pk)
    assert stored.wager_entry_id == dealt.wager_entry.pk and stored.status == "settled"
    assert stored.state == decided.state and stored.net == decided.net
    commitment = Commitment.objects.get(kind=Commitment.Kind.ROUND, ref_id=dealt.pk)
    assert list(commitment.seats.values_list("player_id", "seat")) == [(gambler.pk, 1)]
    assert commitment.created_at == dealt.created_at and commitment.revealed_at is not None
    assert_conserved(gambler, net=first.net + decided.net)


@pytest.mark.django_db(transaction=True)
def test_a_refused_deal_outside_a_transaction_leaves_nothing(showdown_table):
    """The deal's writes are one statement: refused by the wallet, nothing of the round, its
    commitment or its entry stays (and the key is free for a deal the wallet can pay)."""
    poor = make_funded_player("poor", cents=600)
    with pytest.raises(CashierError) as refused:
        deal(poor, showdown_table)
    assert refused.value.code == "insufficient_funds"
    assert not ShowdownRound.objects.exists() and not Commitment.objects.exists()
    assert not Entry.objects.filter(reason="banked_bet").exists()
    assert deal(poor, showdown_table, hole_card_bonus=0, final_hand_bonus=0).staked == 500


@pytest.mark.django_db(transaction=True)
def test_a_decision_that_lost_to_another_posts_nothing_and_answers_as_the_lock_would(
    gambler, showdown_table, monkeypatch
):
    """A decision reads its round without a lock; if another request settled it meanwhile,
    the settling statement's guard (the round still dealt) posts nothing, and the round read
    again answers: the same key replays, another is refused as settled. One settlement."""
    from showdown import services

    dealt = deal(gambler, showdown_table)
    real = services._round_read
    stale = [real(round_id=dealt.pk, player=gambler, lock=False) for _twice in range(2)]
    first = round_decide(player=gambler, round_id=dealt.pk, decision="call", idempotency_key="a")
    reads = []

    def read_stale_first(**kwargs):
        reads.append(kwargs)
        return stale.pop() if len(reads) == 1 else real(**kwargs)

    monkeypatch.setattr(services, "_round_read", read_stale_first)
    with pytest.raises(ShowdownRefused) as refused:
        round_decide(player=gambler, round_id=dealt.pk, decision="raise", idempotency_key="b")
    assert refused.value.code == "settled" and len(reads) == 2
    reads.clear()
    again = round_decide(player=gambler, round_id=dealt.pk, decision="call", idempotency_key="a")
    assert again.result_entry_id == first.result_entry.pk and len(reads) == 2
    assert Entry.objects.filter(reason="banked_payout").count() == 1
    assert_conserved(gambler, net=first.net)
