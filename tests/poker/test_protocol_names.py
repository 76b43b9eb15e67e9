"""One definition of every command and event type (issue 23 item 6): the sockets' protocols
(`poker.commands.TABLE`, `showdown.commands.SHOWDOWN`, `lobby.commands.LOBBY`), the engine's
hand events (`poker.engine.events.HandEventType`) and the room's table events
(`poker.services.unit.TableEventType`). The code uses exactly these (read from its source, so
an event added without its type fails here, and mypy refuses a table event not in the list),
and docs/protocol.md names every one of them and nothing else."""

import ast
import re
from pathlib import Path

from lobby.commands import LOBBY
from poker.commands import TABLE
from poker.engine.events import HAND_EVENT_TYPES
from poker.services.unit import TABLE_EVENT_TYPES
from showdown.commands import SHOWDOWN

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text()


def section(start: str, end: str, text: str = PROTOCOL) -> str:
    """The text from the line `start` begins to the next one `end` begins (or the end)."""
    match = re.search(rf"^{re.escape(start)}.*?(?=^{re.escape(end)}|\Z)", text, re.M | re.S)
    assert match, f"docs/protocol.md has no {start!r}"
    return match.group(0)


def first_cells(text: str) -> set[str]:
    """The backticked names in the first column of a Markdown table's rows."""
    names = set()
    for line in text.splitlines():
        cells = line.split("|")
        if line.startswith("|") and len(cells) > 2:
            names.update(re.findall(r"`([a-z_.]+)`", cells[1]))
    return names


def event_types_in_source(path: Path) -> set[str]:
    """The `type` of every dict literal in a module (the engine's events)."""
    types = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "type":
                    assert isinstance(value, ast.Constant), f"{path}: a computed event type"
                    types.add(value.value)
    return types


def table_event_kinds_in_source() -> set[str]:
    """The first argument of every `change.event(...)` call of the poker app."""
    kinds = set()
    for path in (ROOT / "poker").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "event"
                and node.args
            ):
                assert isinstance(node.args[0], ast.Constant), f"{path}: a computed event kind"
                kinds.add(node.args[0].value)
    return kinds


def test_the_engine_emits_exactly_the_hand_event_types():
    assert event_types_in_source(ROOT / "poker" / "engine" / "hand.py") == HAND_EVENT_TYPES


def test_the_services_emit_exactly_the_table_event_types():
    commitment = event_types_in_source(ROOT / "poker" / "services" / "dealing.py")
    assert "hand_commitment" in commitment  # its own frame, before the deal
    assert table_event_kinds_in_source() | {"hand_commitment"} == TABLE_EVENT_TYPES
    assert not HAND_EVENT_TYPES & TABLE_EVENT_TYPES


def test_the_protocol_page_names_every_event_type_and_no_other():
    events = section("### Events", "## ")
    hand_part = events.split("Hand events come from the", 1)[1].split("Each hand event", 1)[0]
    hand_part = re.sub(r"\([^()]*\)", "", hand_part)  # an event's fields, in brackets
    assert set(re.findall(r"`([a-z_]+)`", hand_part)) == HAND_EVENT_TYPES
    assert (
        first_cells(events.split("Table events come from the room", 1)[1]) - {"event"}
        == TABLE_EVENT_TYPES
    )


def test_the_protocol_page_names_every_command_of_every_socket_and_no_other():
    table = section("## Client -> server", "## ")
    assert first_cells(table) - {"type"} == set(TABLE.commands)
    live = section("## Live Omaha Showdown", "## ")
    client = live.split("**Client -> server**", 1)[1].split("**Server -> client**", 1)[0]
    bullets = re.findall(r'^- `\{"type": "([a-z_]+)"', client, re.M)  # not the answers in them
    assert set(bullets) == set(SHOWDOWN.commands)
    lobby = section("## The lobby socket", "## ")
    assert set(re.findall(r"It answers `([a-z_]+)`", lobby)) == set(LOBBY.commands)
