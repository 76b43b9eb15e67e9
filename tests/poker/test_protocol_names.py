"""One definition of every command, event and frame: the sockets' protocols
(`poker.commands.TABLE`, `showdown.commands.SHOWDOWN`, `lobby.commands.LOBBY`), the engine's
hand events (`poker.engine.events.HandEvent`) and the room's table events
(`poker.services.events.TableEvent`), a TypedDict per event, and the frames each socket sends
(`poker.frames.TABLE_FRAMES`, `showdown.frames.SHOWDOWN_FRAMES`, `lobby.frames.LOBBY_FRAMES`,
the shared ones in `config.frames`), a TypedDict per frame. The code uses exactly these (read
from its source, so an event added without its type fails here; mypy refuses an event or a
frame whose fields are not its TypedDict's), and docs/protocol.md names every one of them and
nothing else, each event and frame (and the documented parts of STATE and VIEW) with exactly
its TypedDict's fields. tests/poker/test_frame_types.py holds the frames the sockets really
send to the same TypedDicts."""

import ast
import json
import re
from pathlib import Path

from config.frames import ErrorFrame, frame_fields
from lobby.commands import LOBBY
from lobby.frames import LOBBY_FRAMES
from poker.commands import TABLE
from poker.engine.events import HAND_EVENT_TYPES, HAND_EVENTS, event_fields
from poker.frames import (
    TABLE_FRAMES,
    LobbyTableUpdate,
    PlayerJson,
    PrivateHand,
    SeatJson,
    SeatOptionsJson,
    TableJson,
    TableState,
    WaitingJson,
    YouJson,
)
from poker.services.events import TABLE_EVENT_TYPES, TABLE_EVENTS
from showdown.commands import SHOWDOWN
from showdown.frames import (
    SHOWDOWN_FRAMES,
    LiveHand,
    LiveRoundJson,
    LiveRoundSeat,
    LiveSeatJson,
    LiveTableJson,
    LiveView,
    LiveYou,
)

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
    app and of the tournaments' services at their tables appends (mypy checks that the `type`
    is its class's)."""
    classes = {definition.__name__: kind for kind, definition in TABLE_EVENTS.items()}
    kinds = set()
    paths = [*(ROOT / "poker").rglob("*.py"), *(ROOT / "tournaments").rglob("*.py")]
    for path in paths:
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


# -- the frames the sockets send (config.frames, poker.frames, showdown.frames, lobby.frames)


def fields_of(definition: type) -> set[str]:
    return set(frame_fields(definition))


def top_names(text: str) -> set[str]:
    """The backticked names of `text` outside any brackets: (), [] and {} (nested too)."""
    while True:
        shorter = re.sub(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}", "", text)
        if shorter == text:
            return set(re.findall(r"`([a-z_]+)`", text))
        text = shorter


def braced(text: str, label: str) -> str:
    """What the first `{...}` after `label` holds (its own brackets balanced)."""
    start = text.index("{", text.index(label))
    depth = 0
    for end in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[end], 0)
        if depth == 0:
            return text[start + 1 : end]
    raise AssertionError(f"docs/protocol.md: no closing brace after {label!r}")


def span_fields(span: str) -> set[str]:
    """The top-level keys of a JSON-like code span `{"type": ..., "key": ...}` but `type`."""
    inner = span.strip()[1:-1]
    while True:
        shorter = re.sub(r"\{[^{}]*\}|\[[^\[\]]*\]", "", inner)
        if shorter == inner:
            break
        inner = shorter
    return set(re.findall(r'"([a-z_]+)"\s*:', inner)) - {"type"}


def frame_spans(text: str) -> list[tuple[str, str]]:
    """(type, span) of every code span `{"type": "...", ...}` in `text`."""
    return [
        (match.group(2), match.group(1))
        for match in re.finditer(r'`(\{"type": ?"([a-z_.]+)"[^`]*\})`', text)
    ]


def json_blocks(text: str) -> list:
    """Every ```json block of `text` that is one JSON value (not a list of frames)."""
    values = []
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        try:
            values.append(json.loads(block))
        except json.JSONDecodeError:
            continue
    return values


def test_the_table_sockets_frames_are_exactly_the_documented_ones_field_for_field():
    documented = {
        kind: set(fields)
        for kind, fields in field_rows(section("## Server -> client", "### ")).items()
    }
    assert set(documented) == set(TABLE_FRAMES)
    for kind, definition in TABLE_FRAMES.items():
        assert documented[kind] == fields_of(definition), (
            f"docs/protocol.md: the fields of the {kind} frame are not {definition.__name__}'s"
        )


def test_the_frames_examples_and_the_parts_they_carry_are_their_typeddicts():
    frames = section("### Frames", "### ")
    # The private frame's own part of the hand, as listed in its paragraph.
    listed = re.search(r"`hand`:\s*`\{([^`]*)\}`", frames)
    assert listed, "docs/protocol.md: the private hand's fields are not listed"
    assert set(re.findall(r'"([a-z_]+)"', listed.group(1))) == fields_of(PrivateHand)
    update, private = json_blocks(frames)
    assert update["type"] == "update" and private["type"] == "private"
    for frame in (update, private):
        definition = TABLE_FRAMES[frame["type"]]
        required = {name for name, needed in frame_fields(definition).items() if needed}
        assert required <= set(frame) - {"type"} <= fields_of(definition), frame
    assert set(private["you"]) == fields_of(YouJson)
    assert set(private["you"]["options"]) == fields_of(SeatOptionsJson)
    assert set(private["hand"]) == fields_of(PrivateHand)
    assert set(update["hand_changes"]["seats"][0]) == set(
        json_blocks(section("### STATE", "### "))[0]["hand"]["seats"][0]
    )


def test_the_documented_state_is_table_state_part_for_part():
    (state,) = json_blocks(section("### STATE", "### "))
    assert set(state) == fields_of(TableState)
    # The example is a cash table's: `break_until` is only at a Sit & Go's (documented below).
    assert set(state["table"]) == fields_of(TableJson) - {"break_until"}
    for seat in state["seats"]:
        assert set(seat) == fields_of(SeatJson)
    assert set(state["seats"][0]["player"]) == fields_of(PlayerJson)
    assert set(state["you"]) == fields_of(YouJson)
    assert set(state["you"]["options"]) == fields_of(SeatOptionsJson)
    assert set(state["waiting"]) == fields_of(WaitingJson)


def test_the_error_frame_is_documented_as_error_frame():
    (example,) = json_blocks(section("## Error frames", "## "))
    assert example["type"] == "error" and set(example) - {"type"} == fields_of(ErrorFrame)


def test_the_live_showdown_sockets_frames_are_exactly_the_documented_ones():
    live = section("## Live Omaha Showdown", "## ")
    before, server = live.split("**Server -> client**", 1)
    server, view = server.split("\nVIEW:", 1)
    documented: dict[str, set[str]] = {}
    # Each bullet of the server's part: its frame, with every key the bullet names.
    for bullet in re.split(r"\n(?=- )", server):
        spans = frame_spans(bullet)
        if spans:
            keys = set(re.findall(r'"([a-z_]+)"\s*:', bullet)) - {"type"}
            documented[spans[0][0]] = keys
        elif "the error frame of every socket" in bullet:
            documented["error"] = fields_of(ErrorFrame)  # its own section, checked above
    # The answers named elsewhere in the section (pong, superseded): not commands.
    for kind, span in frame_spans(before):
        if kind not in SHOWDOWN.commands:
            documented[kind] = span_fields(span)
    assert set(documented) == set(SHOWDOWN_FRAMES)
    for kind, definition in SHOWDOWN_FRAMES.items():
        assert documented[kind] == fields_of(definition), (
            f"docs/protocol.md: the fields of the live {kind} frame are not {definition.__name__}'s"
        )
    # VIEW and its parts, YOU and HAND.
    assert top_names(view.split("Another player's", 1)[0]) == fields_of(LiveView)
    assert top_names(braced(view, "`table`")) == fields_of(LiveTableJson)
    assert top_names(braced(view, "`seats`")) == fields_of(LiveSeatJson)
    assert top_names(braced(view, "`you` YOU")) == fields_of(LiveYou)
    round_part = braced(view, "`round` (")
    assert top_names(round_part) == fields_of(LiveRoundJson)
    assert top_names(braced(round_part, "`seats`")) == fields_of(LiveRoundSeat)
    assert top_names(braced(server, "HAND is null, or")) == fields_of(LiveHand)


def test_the_lobby_sockets_frames_are_exactly_the_documented_ones():
    lobby = section("## The lobby socket", "## ")
    documented = {kind: span_fields(span) for kind, span in frame_spans(lobby)}
    carried = re.search(r"also\s+carries\s+their\s+(.*?)\s+frames", lobby, re.S)
    assert carried, "docs/protocol.md: the lobby's seat offers are not named"
    for kind in re.findall(r"`([a-z_]+)`", carried.group(1)):
        documented[kind] = fields_of(TABLE_FRAMES[kind])  # the table socket's row, checked above
    documented.update(
        {kind: fields_of(TABLE_FRAMES[kind]) for kind in re.findall(r"with `([a-z_]+)`", lobby)}
    )
    if "error frame" in lobby:
        documented["error"] = fields_of(ErrorFrame)
    assert set(documented) == set(LOBBY_FRAMES)
    for kind, definition in LOBBY_FRAMES.items():
        assert documented[kind] == fields_of(definition), kind
    update = next(span for kind, span in frame_spans(lobby) if kind == "lobby.update")
    assert set(re.findall(r'"([a-z_]+)"\s*:', braced(update, '"update"'))) == fields_of(
        LobbyTableUpdate
    )
