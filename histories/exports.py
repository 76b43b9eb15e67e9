"""A hand's history as a file a player downloads: PokerStars text (what PokerTracker 4 and
Hold'em Manager 3 import), Open Hand History JSON or PHH, per hand or for a date range as a
zip. Each file is written from the stored hand (its record, histories/record.py), never from a
page."""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Iterator
from datetime import UTC, date

from histories.formats.ohh import ohh_document
from histories.formats.pokerstars import daily_file_name, pokerstars_text
from histories.record import HandNotFound, hand_record
from histories.selectors import AUDIT_HAND_CHUNK, audit_hands, player_hands
from poker.engine import phh
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand

FORMATS = {
    "pokerstars": ("txt", "text/plain; charset=utf-8"),
    "ohh": ("ohh", "application/json"),
    "phh": ("phh", "text/plain; charset=utf-8"),
}
MOST_HANDS_PER_ZIP = 10_000


def _phh_text(*, hand_id: int, record: dict) -> str:
    """PHH (the engine's writer) with every hole card the record does not show written as
    unknown ("????????"), so a player's file keeps mucked cards hidden as the page does."""
    engine = EngineHand.from_dict(Hand.objects.get(pk=hand_id).state)
    text = phh.dumps(engine, hand_number=hand_id)
    seen = {seat["seat"] for seat in record["seats"] if seat["cards"]}
    order = {f"p{k + 1}": seat for k, seat in enumerate(engine.seats)}

    def hide(match: re.Match) -> str:
        label = match.group(1)
        return match.group(0) if order.get(label) in seen else f'"d dh {label} ????????"'

    text = re.sub(r'"d dh (p\d+) [2-9TJQKAcdhs]{8}"', hide, text)
    sng = record.get("tournament")
    if sng:
        # A Sit & Go's hand: its amounts are chips (no currency), the spec's `event` names the
        # tournament and `level` the blind level.
        text = re.sub(r'^currency = "USD"\n', "", text, flags=re.M)
        name = f"Sit & Go #{sng['id']} {sng['name']}".replace("\\", "").replace('"', "'")
        text += f'event = "{name}"\nlevel = {sng["level"]}\n'
    return text


def hand_export(*, hand_id: int, viewer, fmt: str, all_cards: bool = False) -> tuple[str, str, str]:
    """(file name, content type, text) of one hand; HandNotFound as the record raises it."""
    if fmt not in FORMATS:
        raise HandNotFound(fmt)
    record = hand_record(hand_id=hand_id, viewer=viewer, all_cards=all_cards)
    extension, content_type = FORMATS[fmt]
    if fmt == "pokerstars":
        text = pokerstars_text(record)
    elif fmt == "ohh":
        text = json.dumps(ohh_document(record), indent=1, ensure_ascii=False) + "\n"
    else:
        if record["status"] != Hand.Status.FINISHED:
            raise HandNotFound(hand_id)  # PHH records played hands; a cancelled one has none
        text = _phh_text(hand_id=hand_id, record=record)
    return f"hand-{hand_id}.{extension}", content_type, text


def hands_zip(*, player, fmt: str, **filters) -> tuple[str, bytes, int]:
    """(file name, zip bytes, hands written): the player's hands that "My hands" lists with the
    same `filters` (table, game, dates, result, position), newest last; in PokerStars text one
    file a table and day, named as PokerStars names them (trackers read a folder of such
    files), else one file a hand. The zip is named by the first and last day it holds."""
    if fmt not in FORMATS:
        raise HandNotFound(fmt)
    rows = player_hands(player=player, **filters).order_by("hand_id")
    picked = list(rows.values_list("hand_id", "hand__started_at")[:MOST_HANDS_PER_ZIP])
    buffer = io.BytesIO()
    written = 0
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        days: dict[str, list[str]] = {}
        for hand_id, _started in picked:
            if fmt == "pokerstars":
                record = hand_record(hand_id=hand_id, viewer=player)
                days.setdefault(daily_file_name(record), []).append(pokerstars_text(record))
                written += 1
                continue
            try:
                name, _, text = hand_export(hand_id=hand_id, viewer=player, fmt=fmt)
            except HandNotFound:
                continue  # a cancelled hand has no PHH
            written += 1
            archive.writestr(name, text)
        for name, texts in days.items():
            archive.writestr(name, "".join(texts))
    return (
        _zip_name(picked, fmt, since=filters.get("since"), until=filters.get("until")),
        (buffer.getvalue()),
        written,
    )


def _zip_name(picked: list, fmt: str, *, since: date | None, until: date | None) -> str:
    """`hands-2026-11-01-to-2026-11-26-ohh.zip`: the days asked for, else those of the first
    and last hand in it (UTC); one day once."""
    first = since or (picked[0][1].astimezone(UTC).date() if picked else None)
    last = until or (picked[-1][1].astimezone(UTC).date() if picked else None)
    if first is None or last is None:
        return f"hands-none-{fmt}.zip"
    span = f"{first}" if first == last else f"{first}-to-{last}"
    return f"hands-{span}-{fmt}.zip"


class _Parts(io.RawIOBase):
    """A write-only, unseekable file that keeps what is written until taken: `zipfile` writes
    to it with data descriptors (it cannot seek back), so a zip goes out as it is made."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        self._parts.append(bytes(data))
        return len(data)

    def take(self) -> bytes:
        parts, self._parts = self._parts, []
        return b"".join(parts)


def audit_ohh_zip_stream(
    *, date_from: date | None, date_to: date | None
) -> tuple[str, Iterator[bytes]]:
    """Auditors: every hand that ended in the range, as Open Hand History with every card, one
    file a hand in a zip (at most MOST_HANDS_PER_ZIP, oldest first): its name and its bytes, a
    hand at a time (hand ids read AUDIT_HAND_CHUNK at a time), so memory holds one hand."""
    hands = audit_hands(date_from=date_from, date_to=date_to)
    span = f"{date_from or 'first'}-{date_to or 'last'}"

    def parts() -> Iterator[bytes]:
        out = _Parts()
        last, left = 0, MOST_HANDS_PER_ZIP
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            while left > 0:
                size = min(AUDIT_HAND_CHUNK, left)
                ids = list(hands.filter(pk__gt=last).values_list("pk", flat=True)[:size])
                for hand_id in ids:
                    name, _, text = hand_export(
                        hand_id=hand_id, viewer=None, fmt="ohh", all_cards=True
                    )
                    archive.writestr(name, text)
                    yield out.take()
                if len(ids) < size:
                    break
                last, left = ids[-1], left - len(ids)
        yield out.take()  # the central directory

    return f"hands-{span}-ohh.zip", parts()
