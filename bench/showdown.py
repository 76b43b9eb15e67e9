"""Omaha Showdown benchmarks: rounds settled per second by the engine against a brute-force
settlement, and the house-edge calculator's run time against evaluating every deal.

Run with ``.venv/bin/python -m bench.showdown`` (``--quick`` for a short run). Each line shows
ours, the peer and the ratio ours/peer, as in bench/engine.py. Record the figures in
docs/benchmarks.md.

``--service`` adds the online game through Django on PostgreSQL: rounds per second through
`showdown.services` (deal: the wagers into play; decide: the Bet into play, the board, the
settlement to the wallet and the house; every movement a ledger entry) against pgbench's
one-row update TPS with the same number of clients in the same run, on scratch databases
(bench/ledger.py's server, `BENCH_DATABASE_URL`), 1, 2 and 4 clients unless ``--clients``
says otherwise. ``--service-only`` skips the engine. The run exits 1 when verify_ledger or
verify_audit finds a problem in what it wrote (both must pass after every benchmark).
"""

import argparse
import os
import random
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from bench.engine import Measurement, per_second
from bench.forked import forked_rate
from poker.engine._tables import CLASS_KEYS, FLUSH_ORDINAL, MULTISET_ORDINAL
from poker.engine.cards import CARD_RANK, CARD_SUIT, FULL_DECK
from poker.engine.evaluate import omaha_high
from poker.engine.showdown import (
    BET_MULTIPLE,
    QUALIFYING,
    ShowdownLimits,
    ShowdownRound,
    hole_card_category,
)
from poker.engine.showdown_math import BOARDS
from poker.engine.showdown_paytables import ShowdownPaytables, default_paytables

SEED = 20260101
ANTE, HOLE_CARD_BONUS, FINAL_HAND_BONUS = 500, 100, 100
DECISIONS = ("raise", "raise", "call", "fold")  # round i decides DECISIONS[i % 4]


@dataclass(frozen=True)
class Settings:
    rounds: int
    repeats: int
    brute_force_deals: int  # deals evaluated to extrapolate the calculator's peer


FULL = Settings(rounds=20_000, repeats=5, brute_force_deals=200_000)
QUICK = Settings(rounds=2_000, repeats=2, brute_force_deals=20_000)


def make_decks(count: int, seed: int = SEED) -> list[list[str]]:
    rng = random.Random(seed)
    decks = []
    for _ in range(count):
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        decks.append(deck)
    return decks


def engine_round(deck: list[str], decision: str, tables: ShowdownPaytables) -> int:
    """One online round through the engine, open to settled; the player's net."""
    game = ShowdownRound.open(limits=ShowdownLimits(), paytables=tables)
    game.place(1, ante=ANTE, hole_card_bonus=HOLE_CARD_BONUS, final_hand_bonus=FINAL_HAND_BONUS)
    game.deal(deck)
    game.decide(1, decision)
    return game.result["seats"][0]["net"]  # type: ignore[index]


_CATEGORY_NAMES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)


def _five_card_ordinal(five: tuple[str, ...]) -> int:
    if len({CARD_SUIT[card] for card in five}) == 1:
        return FLUSH_ORDINAL[sum(1 << CARD_RANK[card] for card in five)]
    return MULTISET_ORDINAL[sum(5 ** CARD_RANK[card] for card in five)]


def brute_force_round(deck: list[str], decision: str, tables: ShowdownPaytables) -> int:
    """The same round settled by scoring all 60 two-plus-three choices one by one."""
    hole, board = deck[:4], deck[4:9]
    best = max(
        _five_card_ordinal(pair + three)
        for pair in combinations(hole, 2)
        for three in combinations(board, 3)
    )
    kind, ranks = CLASS_KEYS[best]
    category = _CATEGORY_NAMES[kind]
    if kind == 8 and ranks[0] == 12:
        category = "royal flush"
    net = 0
    if decision == "fold":
        net -= ANTE
    else:
        bet = ANTE * BET_MULTIPLE[decision]
        if category in QUALIFYING:
            net += ANTE + bet * tables.bet.pays[category]
        else:
            net -= ANTE + bet
    hole_category = hole_card_category(hole)
    hole_pays = tables.hole_card_bonus.pays
    net += (
        HOLE_CARD_BONUS * hole_pays[hole_category]
        if hole_category in hole_pays
        else -HOLE_CARD_BONUS
    )
    final_pays = tables.final_hand_bonus.pays
    net += FINAL_HAND_BONUS * final_pays[category] if category in final_pays else -FINAL_HAND_BONUS
    return net


def measure_rounds(settings: Settings) -> list[Measurement]:
    """Whole rounds: engine (open, place, deal, decide, settle with names and cards) against
    the brute-force settlement, on the same decks; both must agree on every net."""
    tables = default_paytables()
    decks = make_decks(settings.rounds)
    plays = [(deck, DECISIONS[i % len(DECISIONS)]) for i, deck in enumerate(decks)]
    ours = [engine_round(deck, decision, tables) for deck, decision in plays]
    peer = [brute_force_round(deck, decision, tables) for deck, decision in plays]
    if ours != peer:
        raise AssertionError("the engine and the brute-force settlement disagree")

    def run_ours() -> None:
        for deck, decision in plays:
            engine_round(deck, decision, tables)

    def run_peer() -> None:
        for deck, decision in plays:
            brute_force_round(deck, decision, tables)

    return [
        Measurement(
            "Showdown rounds settled",
            per_second(run_ours, len(plays), settings.repeats),
            "brute force (60 choices)",
            per_second(run_peer, len(plays), settings.repeats),
            "/s",
        )
    ]


_CALCULATOR = [sys.executable, "-m", "poker.engine.showdown_math", "--json"]


def measure_calculator(settings: Settings) -> list[Measurement]:
    """The calculator in a fresh interpreter (import, tables, all 16,432 classes, every
    paytable), against evaluating every one of the 28,136,579,328 class-and-board deals with
    `omaha_high`, extrapolated from a sample."""
    best_cpu = best_wall = float("inf")
    for _ in range(max(1, settings.repeats // 2)):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(_CALCULATOR, check=True, capture_output=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        best_cpu, best_wall = min(best_cpu, cpu), min(best_wall, wall)
    rng = random.Random(SEED)
    deals = []
    for _ in range(settings.brute_force_deals):
        cards = rng.sample(FULL_DECK, 9)
        deals.append((cards[:4], cards[4:]))

    def evaluate_all() -> None:
        for hole, board in deals:
            omaha_high(hole, board)

    rate = per_second(evaluate_all, len(deals), settings.repeats)
    every_deal = 16_432 * BOARDS / rate
    return [
        Measurement(
            "calculator, CPU", best_cpu, "every deal (extrapolated)", every_deal, "s", False
        ),
        Measurement(
            "calculator, wall", best_wall, "every deal (extrapolated)", every_deal, "s", False
        ),
    ]


# -- the online game through the services and the ledger

# Scratch databases; BENCH_DATABASE_NAME gives your own on a shared server.
SERVICE_DB = os.environ.get("BENCH_DATABASE_NAME", "room_bench_showdown")
PGBENCH_DB = SERVICE_DB + "_pgbench"
SERVICE_WALLET = 10**10  # $100M: no client runs dry


def _prepare_service(clients: int) -> tuple[int, list[int]]:
    """Migrate the scratch database (the data migration loads the paytables) and fund one
    player per client; (table id, player ids)."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from accounts.services import email_mark_verified
    from cashier.services import wallet_deposit
    from showdown.models import ShowdownTable

    call_command("migrate", verbosity=0)
    table = ShowdownTable.objects.get(name="Showdown")
    users = get_user_model().objects
    ids = []
    for n in range(clients):
        player = users.create_user(username=f"bench-showdown-{n}")
        email_mark_verified(user=player)  # a first deposit needs a confirmed address
        wallet_deposit(player=player, amount=SERVICE_WALLET, idempotency_key="bench")
        ids.append(player.pk)
    return table.pk, ids


def round_play(*, player, table, n: int, tag: str) -> None:
    """Round `n` of a run tagged `tag`: dealt with the bench's wagers and decided by
    DECISIONS[n % 4] (the idempotency keys tell the runs apart)."""
    from showdown.services import round_deal, round_decide

    dealt = round_deal(
        player=player,
        table=table,
        ante=ANTE,
        hole_card_bonus=HOLE_CARD_BONUS,
        final_hand_bonus=FINAL_HAND_BONUS,
        idempotency_key=f"{tag}-{n}-deal",
    )
    round_decide(
        player=player,
        round_id=dealt.pk,
        decision=DECISIONS[n % len(DECISIONS)],
        idempotency_key=f"{tag}-{n}-decide",
    )


def _play_rounds(table_id: int, player_id: int, seconds: float, tag: str, queue) -> None:
    """Deal and decide rounds for `seconds` (in a child process); report how many."""
    from django.contrib.auth import get_user_model
    from django.db import connections

    from showdown.models import ShowdownTable

    connections.close_all()  # never share the parent's socket
    table = ShowdownTable.objects.get(pk=table_id)
    player = get_user_model().objects.get(pk=player_id)
    rounds = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        round_play(player=player, table=table, n=rounds, tag=tag)
        rounds += 1
    connections.close_all()
    queue.put(rounds)


def _measure_service(table_id: int, players: list[int], seconds: float, tag: str) -> float:
    worker_args = [(table_id, pid, seconds, f"{tag}-{n}") for n, pid in enumerate(players)]
    return forked_rate(_play_rounds, worker_args, seconds=seconds, what="Showdown bench client")


def measure_service(client_counts: Sequence[int], seconds: float) -> bool:
    """Rounds per second through the services against pgbench's one-row update, per client
    count, then verify_ledger and verify_audit over everything the run wrote: True when both
    pass."""
    from bench.ledger import SERVER_URL, Server, find_pgbench, measure_pgbench

    server = Server.from_url(SERVER_URL)
    pgbench = find_pgbench()
    server.recreate(PGBENCH_DB)
    base = [pgbench, "-h", server.host, "-p", str(server.port), "-U", server.user]
    subprocess.run([*base, "-i", "-q", PGBENCH_DB], capture_output=True, check=True)
    server.recreate(SERVICE_DB)
    try:
        os.environ["DATABASE_URL"] = server.url(SERVICE_DB)
        os.environ.setdefault("DEBUG", "true")
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django

        django.setup()
        table_id, players = _prepare_service(max(client_counts))
        for run, clients in enumerate(client_counts):
            peer = measure_pgbench(server, pgbench, clients, seconds, database=PGBENCH_DB)
            ours = _measure_service(table_id, players[:clients], seconds, f"run{run}")
            name = f"online rounds, {clients} client{'s' if clients > 1 else ''}"
            print(
                f"{name:<34} ours {ours:>12,.1f} /s       pgbench {peer:>12,.1f} tps      "
                f"ratio {ours / peer:5.2f}x (higher is better)",
                flush=True,
            )
        from django.db import connections

        from audit.verify import audit_verify
        from cashier.verify import ledger_verify
        from showdown.models import ShowdownRound

        report, audited = ledger_verify(), audit_verify()
        rounds = ShowdownRound.objects.count()
        verdict = "consistent" if report.ok else "NOT CONSISTENT: " + "; ".join(report.problems)
        verdict += "; audit log " + ("intact" if audited.ok else f"BROKEN: {audited.summary()}")
        print(
            f"  ({rounds:,} rounds, {report.entries:,} entries, {report.postings:,} postings; "
            f"ledger {verdict})",
            flush=True,
        )
        connections.close_all()
    finally:
        server.drop(SERVICE_DB)
        server.drop(PGBENCH_DB)
    return report.ok and audited.ok


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run (smaller samples)")
    parser.add_argument("--service", action="store_true", help="add the services on PostgreSQL")
    parser.add_argument("--service-only", action="store_true", help="only the services")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--seconds", type=float, default=5.0, help="per service measurement")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    print(f"Python {sys.version.split()[0]}, {settings}")
    if not args.service_only:
        for section in (measure_rounds, measure_calculator):
            for measurement in section(settings):
                print(measurement.line(), flush=True)
    service = args.service or args.service_only
    if service and not measure_service(args.clients, 2.0 if args.quick else args.seconds):
        sys.exit("verify_ledger or verify_audit failed after the run (above)")


if __name__ == "__main__":
    main()
