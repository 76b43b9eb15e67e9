"""Notes in Chromium against a real daphne, on a phone: a player opens the note editor from an
opponent's name at the table with the keyboard, tags and writes, and sees the tag on that
seat at once; "My notes" lists it. NOTES_SCREENSHOTS=<dir> keeps screenshots."""

import os
from pathlib import Path

import pytest

from notes.models import PlayerNote
from tests.factories import make_seated_player, make_table
from tests.poker.table_page import horizontal_overflow, open_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
FOCUSED = "() => document.activeElement && document.activeElement.dataset.notePlayer"


def screenshot(page, name: str) -> None:
    folder = os.environ.get("NOTES_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def test_a_player_tags_an_opponent_from_the_seat_with_the_keyboard(signed_in_page):
    table = make_table(next_hand_delay_seconds=3600)
    ann = make_seated_player(table, "ann", 1)
    ben = make_seated_player(table, "ben", 2)
    page = signed_in_page(ann, PHONE)
    try:
        open_table(page, table)
        name = page.locator(f'#seat-2 [data-note-player="{ben.pk}"]')
        assert page.locator("#seat-1 [data-note-player]").count() == 0  # no note on oneself
        name.focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#note-dialog[open]")
        assert "ben" in page.inner_text("#note-title")
        page.keyboard.type("calls every flop")
        page.keyboard.press("Shift+Tab")  # to the colours, "None" checked
        page.keyboard.press("ArrowRight")  # the first colour of the palette
        assert page.is_checked('#note-colours input[value="red"]')
        screenshot(page, "editor-phone")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")  # past the note, to "My notes", "Cancel" and "Save"
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.wait_for_selector('#seat-2 .note-tag[data-colour="red"]')
        assert page.locator("#note-dialog[open]").count() == 0
        assert page.evaluate(FOCUSED) == str(ben.pk)  # back on the name, for the next key
        assert "calls every flop" in name.get_attribute("aria-label")
        note = PlayerNote.objects.get(author=ann, player=ben)
        assert (note.text, note.colour) == ("calls every flop", "red")
        assert horizontal_overflow(page) <= 0
        screenshot(page, "table-phone")
        page.goto("/notes/")
        assert "calls every flop" in page.inner_text(f"#note-{ben.pk} summary")
        assert horizontal_overflow(page) <= 0
        screenshot(page, "my-notes-phone")
        assert page.errors == []
    finally:
        page.context.close()
