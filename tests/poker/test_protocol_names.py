"""One definition of every command and event (issue 23 item 6): the sockets' protocols
(`poker.commands.TABLE`, `showdown.commands.SHOWDOWN`, `lobby.commands.LOBBY`), the engine's
hand events (`poker.engine.events.HandEvent`) and the room's table events
(`poker.services.events.TableEvent`), a TypedDict per event. The code uses exactly these (read
from its source, so an event added without its type fails here; mypy refuses an event whose
fields are not its TypedDict's), and docs/protocol.md names every one of them and nothing
else, each event with exactly its TypedDict's fields."""

import ast
import re
from pathlib import Path

from lobby.commands import LOBBY
from poker.commands import TABLE
from poker.engine.events import HAND_EVENT_TYPES, HAND_EVENTS, event_fields
from poker.services.events import TABLE_EVENT_TYPES, TABLE_EVENTS
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
    """The type of every event a `change.event(EventClass(type=..., ...))` call of the poker
    app appends (mypy checks that the `type` is its class's)."""
    classes = {definition.__name__: kind for kind, definition in TABLE_EVENTS.items()}
    kinds = set()
    for path in (ROOT / "poker").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "event"
                and node.args
            ):
                built = node.args[0]
                assert isinstance(built, ast.Call) and isinstance(built.func, ast.Name), path
                assert built.func.id in classes, f"{path}: {built.func.id} is not a table event"
                kinds.add(classes[built.func.id])
    return kinds


def unbracketed(text: str) -> str:
    """The text without anything in brackets (nested ones too)."""
    while True:
        shorter = re.sub(r"\([^()]*\)", "", text)
        if shorter == text:
            return text
        text = shorter


def field_rows(text: str) -> dict[str, list[str]]:
    """{event: the backticked names of its fields cell, out of brackets} per row of a Markdown
    table whose first cell is one backticked event type."""
    rows = {}
    for line in text.splitlines():
        cells = re.split(r"(?<!\\)\|", line)  # not at an escaped \|
        names = re.findall(r"`([a-z_]+)`", cells[1]) if line.startswith("|") else []
        if len(names) == 1 and len(cells) > 3:
            assert names[0] not in rows, f"docs/protocol.md: {names[0]} twice"
            rows[names[0]] = re.findall(r"`([a-z_]+)`", unbracketed(cells[2]))
    return rows


def test_the_engine_emits_exactly_the_hand_event_types():
    assert event_types_in_source(ROOT / "poker" / "engine" / "hand.py") == HAND_EVENT_TYPES


def test_the_services_emit_exactly_the_table_event_types():
    commitment = event_types_in_source(ROOT / "poker" / "services" / "dealing.py")
    assert "hand_commitment" in commitment  # its own frame, before the deal
    assert table_event_kinds_in_source() | {"hand_commitment"} == TABLE_EVENT_TYPES
    assert not HAND_EVENT_TYPES & TABLE_EVENT_TYPES


def test_the_protocol_page_names_every_event_type_and_no_other():
    events = section("### Events", "## ")
    hand_part, table_part = events.split("Table events come from the room", 1)
    hand_part = hand_part.split("Hand events come from the engine", 1)[1]
    assert set(field_rows(hand_part)) == HAND_EVENT_TYPES
    assert set(field_rows(table_part)) == TABLE_EVENT_TYPES


def test_the_protocol_page_names_each_events_fields_as_its_typeddict_declares():
    events = section("### Events", "## ")
    hand_part, table_part = events.split("Table events come from the room", 1)
    for part, definitions in ((hand_part, HAND_EVENTS), (table_part, TABLE_EVENTS)):
        documented = field_rows(part)
        for kind, definition in definitions.items():
            assert documented.get(kind) == event_fields(definition), (
                f"docs/protocol.md: the fields of {kind} are not {definition.__name__}'s"
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
