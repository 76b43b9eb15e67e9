"""The simulator: random legal play in every game, chips conserved, PHH files written."""

import subprocess
import sys
import tomllib
from random import Random

import pytest

from poker.engine.hand import Hand
from poker.engine.phh import replay
from poker.engine.simulate import main, play_randomly, random_decision, random_table


@pytest.mark.parametrize("game", ["omaha", "omaha8"])
@pytest.mark.parametrize(("structure", "seats"), [("limit", 10), ("limit", 2), ("pot-limit", 6)])
def test_simulation_conserves_chips(game, structure, seats, capsys):
    argv = ["--game", game, "--structure", structure, "--seats", str(seats)]
    assert main([*argv, "--hands", "200", "--seed", "4", "--rake"]) == 0
    out = capsys.readouterr().out
    assert "hands/s" in out and "chips conserved" in out


def test_same_seed_same_hands(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    for folder in (first, second):
        argv = ["--game", "omaha8", "--structure", "pot-limit", "--seats", "5", "--hands", "20"]
        assert main([*argv, "--seed", "9", "--phh", str(folder)]) == 0
    files = sorted(path.name for path in first.iterdir())
    assert len(files) == 20
    for name in files:
        assert (first / name).read_text() == (second / name).read_text()


def test_phh_files_carry_finishing_stacks_and_replay(tmp_path):
    argv = ["--game", "omaha", "--structure", "limit", "--seats", "7", "--hands", "30"]
    assert main([*argv, "--seed", "2", "--phh", str(tmp_path)]) == 0
    for path in tmp_path.iterdir():
        text = path.read_text()
        recorded = tomllib.loads(text)["finishing_stacks"]
        assert [seat["final_stack"] for seat in replay(text).result["seats"]] == recorded


def test_command_line_refuses_bad_options():
    command = [sys.executable, "-m", "poker.engine.simulate", "--game", "omaha"]
    bad = [*command, "--structure", "pot-limit", "--seats", "9", "--hands", "1", "--seed", "1"]
    done = subprocess.run(bad, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "seats" in done.stderr


def test_random_policy_uses_every_kind_of_action():
    rng = Random(1)
    seen = {random_decision(rng, 10, 20, 100)[0] for _ in range(200)}
    assert seen == {"fold", "check_call", "raise"}
    amounts = {random_decision(rng, 0, 20, 100)[1] for _ in range(300)} - {None}
    assert {20, 100} <= amounts and len(amounts) > 3
    assert all(random_decision(rng, 0, 0, 0) == ("check_call", None) for _ in range(50))


def test_random_tables_include_short_stacks_and_move_the_button():
    rng = Random(3)
    tables = [random_table(rng, game="omaha", structure="limit", seats=6, button=b) for b in (1, 4)]
    assert tables[0]["small_blind_seat"] == 2 and tables[0]["big_blind_seat"] == 3
    assert tables[1]["small_blind_seat"] == 5 and tables[1]["big_blind_seat"] == 6
    short = 0
    for _ in range(100):
        table = random_table(rng, game="omaha", structure="pot-limit", seats=6)
        short += any(stack < 100 for stack in table["seats"].values())
        play_randomly(rng, Hand.start(**table))
    assert short > 10


@pytest.mark.parametrize("game", ["omaha", "omaha8"])
@pytest.mark.parametrize("structure", ["limit", "pot-limit"])
def test_command_line_with_rake_writes_files_that_replay_to_their_stacks(game, structure, tmp_path):
    """The documented commands end to end, raked: `simulate --phh --rake`, then
    `phh replay` on what it wrote (raked files once replayed without their rake)."""
    command = [sys.executable, "-m", "poker.engine.simulate", "--game", game]
    command += ["--structure", structure, "--seats", "6", "--hands", "25", "--seed", "3"]
    done = subprocess.run(
        [*command, "--phh", str(tmp_path), "--rake"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "25 hands" in done.stdout and "chips conserved" in done.stdout
    raked = 0
    for path in sorted(tmp_path.iterdir()):
        fields = tomllib.loads(path.read_text())
        raked += fields["_rake"] > 0
        hand = replay(path.read_text())
        assert [seat["final_stack"] for seat in hand.result["seats"]] == fields["finishing_stacks"]
        assert hand.result["rake"] == fields["_rake"]
    assert raked
    last = sorted(tmp_path.iterdir())[-1]
    replaying = [sys.executable, "-m", "poker.engine.phh", "replay", str(last)]
    done = subprocess.run(replaying, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
