"""English, French and Japanese: the catalogues are complete and current, every
page template renders in each language with no English left, money and dates follow the
language, e-mails go out in the reader's language, and a logged-in player's choice is kept."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.core import mail
from django.test import Client, override_settings
from django.test.signals import template_rendered
from django.urls import reverse
from django.utils import translation
from django.utils.formats import date_format, time_format

from accounts.models import Profile
from accounts.services import profile_set_language
from cashier.services import wallet_deposit
from config.hand_names import hand_name
from config.i18n import language_for_scope, messages_collect
from config.money import dollars as format_dollars
from poker.engine.evaluate import omaha_high, omaha_low8
from responsible.models import TermsVersion
from responsible.services import terms_publish
from showdown.services import round_deal, round_decide
from tests.factories import (
    DEFAULT_PASSWORD,
    call_down,
    deal_hand,
    make_funded_player,
    make_player,
    make_seated_player,
    make_showdown_table,
    make_table,
    showdown_deck,
)

LOCALE_DIR = Path(settings.LOCALE_PATHS[0])
TEMPLATES_DIR = Path(settings.BASE_DIR) / "templates"
TRANSLATED = ["fr", "ja"]
DOMAINS = ["django", "djangojs"]
# Templates that are not the room's pages: Django's admin (translated by Django itself, and
# staff-only) and the API docs' shell (no words of ours).
NOT_PAGES = ("admin/", "api/")


# --- The catalogues -------------------------------------------------------------------------


def po_entries(path: Path) -> list[dict]:
    """Each entry of a .po file: msgctxt, msgid, msgid_plural, msgstr by index, flags, and
    whether it is obsolete (#~)."""
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}

    def unquote(text: str) -> str:
        return re.sub(r"\\(.)", lambda m: escapes.get(m.group(1), m.group(1)), text[1:-1])

    entries, entry, field = [], None, None
    for raw in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = raw.strip()
        if not line:
            if entry is not None and ("msgid" in entry or "msgctxt" in entry):
                entries.append(entry)
            entry, field = None, None
            continue
        if entry is None:
            entry = {"flags": set(), "msgstr": {}, "obsolete": False}
        if line.startswith("#~"):
            entry["obsolete"] = True
            continue
        if line.startswith("#,"):
            entry["flags"].update(flag.strip() for flag in line[2:].split(","))
            continue
        if line.startswith("#"):
            continue
        match = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")$', line)
        if match:
            key, index, line = match.groups()
            field = ("msgstr", int(index or 0)) if key.startswith("msgstr") else key
        text = unquote(line)
        if isinstance(field, tuple):
            entry["msgstr"][field[1]] = entry["msgstr"].get(field[1], "") + text
        else:
            entry[field] = entry.get(field, "") + text
    return [e for e in entries if e.get("msgid")]


def catalogue(language: str, domain: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_none_fuzzy(language, domain):
    entries = po_entries(catalogue(language, domain))
    assert entries, f"{language}/{domain}.po has no messages"
    plurals = 2 if language == "fr" else 1
    for entry in entries:
        name = f"{language}/{domain}: {entry.get('msgctxt', '')!r} {entry['msgid']!r}"
        assert not entry["obsolete"], f"{name} is obsolete: run manage.py translations_update"
        assert "fuzzy" not in entry["flags"], f"{name} is fuzzy"
        wanted = range(plurals) if entry.get("msgid_plural") else range(1)
        for index in wanted:
            assert entry["msgstr"].get(index, "").strip(), f"{name} has no translation"


# Poker words a translation must not leave in English, and spellings it must keep to one.
LEFT_IN_ENGLISH = {
    "fr": [r"\b8 or Better\b", r"\b[Ll]obby\b"],
    "ja": [r"\b8 or Better\b", r"\bHCB\b", r"\bFHB\b"],
}
ONE_SPELLING = {"ja": r"フィッ?ク[スト]?[ドト]リミット|固定リミット"}


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_rooms_poker_words_are_translated_one_way(language):
    translated = [
        text
        for domain in DOMAINS
        for entry in po_entries(catalogue(language, domain))
        for text in entry["msgstr"].values()
    ]
    for pattern in LEFT_IN_ENGLISH[language]:
        found = [text for text in translated if re.search(pattern, text)]
        assert not found, f"{language}: {pattern} left in English in {found[:3]}"
    if language in ONE_SPELLING:
        spellings = {m for text in translated for m in re.findall(ONE_SPELLING[language], text)}
        assert len(spellings) <= 1, f"{language}: {spellings}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_compiled_catalogues_match_their_sources(language, tmp_path):
    """The .mo files are committed (CI compiles nothing): each is what msgfmt makes of its
    .po today, and msgfmt's format checks pass (same placeholders in every translation)."""
    if shutil.which("msgfmt") is None:
        pytest.skip("gettext's msgfmt is not installed (Debian package gettext)")
    for domain in DOMAINS:
        source = catalogue(language, domain)
        made = tmp_path / f"{language}-{domain}.mo"
        subprocess.run(["msgfmt", "--check-format", "-o", made, source], check=True)
        assert made.read_bytes() == source.with_suffix(".mo").read_bytes(), (
            f"{source.with_suffix('.mo')} is stale: run manage.py translations_update"
        )


def test_makemessages_finds_no_string_the_catalogues_lack(tmp_path, monkeypatch):
    """Every string marked in the code, pages and scripts is in the catalogues: collecting
    them again into a copy adds no message (nor drops one)."""
    if shutil.which("xgettext") is None:
        pytest.skip("gettext's xgettext is not installed (Debian package gettext)")
    # makemessages writes to the "locale" directory of the tree it walks, so it walks a copy.
    base = Path(settings.BASE_DIR)
    project = tmp_path / "project"
    skip = shutil.ignore_patterns(".*", "__pycache__", "staticfiles", "*.egg-info", "var")
    shutil.copytree(base, project, ignore=skip)
    copy = project / "locale"
    monkeypatch.chdir(project)
    with override_settings(LOCALE_PATHS=[copy]):
        messages_collect()
    for language in TRANSLATED:
        for domain in DOMAINS:

            def keys(path: Path) -> set:
                return {
                    (e.get("msgctxt"), e["msgid"]) for e in po_entries(path) if not e["obsolete"]
                }

            current = keys(catalogue(language, domain))
            collected = keys(copy / language / "LC_MESSAGES" / f"{domain}.po")
            assert collected - current == set(), f"{language}/{domain}: new strings"
            assert current - collected == set(), f"{language}/{domain}: strings no longer used"


# --- Pages ----------------------------------------------------------------------------------


class VisibleText(HTMLParser):
    """The words a reader meets: text outside <script>/<style>, and titles, labels and
    placeholders."""

    def __init__(self) -> None:
        super().__init__()
        self.texts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1
        for name, value in attrs:
            if name in ("title", "aria-label", "placeholder", "alt") and value:
                self.texts.append(value.strip())
        if tag == "input" and dict(attrs).get("type") in ("submit", "button"):
            self.texts.append((dict(attrs).get("value") or "").strip())

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip and data.strip():
            self.texts.append(" ".join(data.split()))


def visible_texts(html: str) -> list[str]:
    parser = VisibleText()
    parser.feed(html)
    return [text for text in parser.texts if text]


def english_messages() -> tuple[set[str], list[str]]:
    """English msgids that read differently in French and Japanese: whole short ones (a button
    that says "Fold") and long ones that would show inside a sentence."""
    fr = {(e.get("msgctxt"), e["msgid"]): e for e in po_entries(catalogue("fr", "django"))}
    ja = {(e.get("msgctxt"), e["msgid"]): e for e in po_entries(catalogue("ja", "django"))}
    whole, inside = set(), []
    for key, entry in fr.items():
        msgid = entry["msgid"]
        if "%" in msgid or "<" in msgid or key not in ja:
            continue
        if msgid in (entry["msgstr"].get(0), ja[key]["msgstr"].get(0)):
            continue  # the same word in a language ("Omaha Room", "Pot"): nothing to find
        whole.add(msgid)
        if len(msgid) >= 24:
            inside.append(msgid)
    return whole, inside


# Words that are the same in every language: the brand, the game's "8 or Better", units, cards
# written as codes (a revealed deck).
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'\u2019-]+(?: [A-Za-z][A-Za-z'\u2019-]+)+")
LATIN_WORDS = re.compile(
    r"^(Omaha Room|Omaha Showdown|UTC|HMAC.*|SHA-256.*|([2-9TJQKA][cdhs] ?)+)$"
)
# The room's own English that a translation could leave on the pages: words,
# code names, a repository path, the 12-hour clock and US-format amounts.
ROOM_ENGLISH = re.compile(
    r"\bLobby\b|\b8 or Better\b|\bHCB\b|\bFHB\b|\bserver_seed\b|\bdocs/"
    r"|\d [ap]\.m\.|\d [AP]M\b|\$\d"
)


def data_names() -> str:
    """Names players and staff gave to things (tables, paytables, players): not ours to
    translate."""
    from poker.models import Table
    from showdown.models import Paytable, ShowdownTable

    names = [*Table.objects.values_list("name", flat=True)]
    names += [*ShowdownTable.objects.values_list("name", flat=True)]
    names += [*Paytable.objects.values_list("name", flat=True)]
    from tournaments.models import TournamentTemplate

    names += [*TournamentTemplate.objects.values_list("name", flat=True)]
    names += [*Profile.objects.values_list("display_name", flat=True)]
    # The terms and fair-play policy as staff wrote them (the page says which language applies).
    names += [f"{v.title}\n{v.body}" for v in TermsVersion.objects.all()]
    return "\n".join(names)


def assert_no_english(html: str, language: str, where: str) -> None:
    whole, inside = english_messages()
    texts = visible_texts(html)
    assert f'<html lang="{language}">' in html, where
    for text in texts:
        assert text not in whole, f"{where} ({language}): {text!r} is not translated"
    page = " ".join(texts)
    left = ROOM_ENGLISH.findall(page)
    assert not left, f"{where} ({language}): {left} left in English"
    for msgid in inside:
        assert msgid not in page, f"{where} ({language}): {msgid!r} is not translated"
    if language == "ja":
        # Japanese pages have no run of English words left, marked or not.
        names = data_names()
        for text in texts:
            for run in ENGLISH_RUN.findall(text):
                known = LATIN_WORDS.match(run) or run in names
                assert known, f"{where} (ja): English {run!r} in {text!r}"


@pytest.fixture
def rendered_templates():
    """The names of every template rendered while the test runs."""
    names: set[str] = set()

    def record(sender, template, context, **kwargs):
        names.add(template.name)

    template_rendered.connect(record)
    yield names
    template_rendered.disconnect(record)


def page_templates() -> set[str]:
    return {
        str(path.relative_to(TEMPLATES_DIR))
        for path in TEMPLATES_DIR.rglob("*")
        if path.is_file() and not str(path.relative_to(TEMPLATES_DIR)).startswith(NOT_PAGES)
    }


def speaking(language: str) -> Client:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def visit(client: Client, language: str, url: str, *, status: int = 200, data=None) -> str:
    response = client.post(url, data) if data is not None else client.get(url)
    assert response.status_code == status, (url, response.status_code)
    html = response.content.decode()
    assert_no_english(html, language, url)
    return html


def visit_tournament_pages(client: Client, language: str) -> None:
    """A Sit & Go's page and My tournaments."""
    from tests.factories import make_sit_and_go

    sng = make_sit_and_go(name=f"PLO {language.upper()}")
    visit(client, language, reverse("tournaments:sit_and_go", args=[sng.pk]))
    visit(client, language, reverse("tournaments:mine"))


def visit_terms_pages(client: Client, anonymous: Client, language: str) -> None:
    """The terms and fair-play policy: a new version asks again, on any page; sign-up asks."""
    terms_publish(staff=None, kind="terms", title="Terms", body="Play by the rules.")
    terms_publish(staff=None, kind="fair_play", title="Fair play", body="One account each.")
    asked = client.get(reverse("lobby:home"))
    assert asked.status_code == 302
    visit(client, language, asked["Location"])
    visit(client, language, reverse("responsible:terms"))
    visit(anonymous, language, reverse("responsible:fair_play"))
    visit(anonymous, language, reverse("lobby:signup"))


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_page_template_renders_translated(language, rendered_templates, db, monkeypatch):
    """Every template under templates/ (but the admin's and the API docs') is rendered in the
    language with no English string left: anonymous pages, account pages, the e-mails, the
    cashier, the poker table, the banked game (a round to decide, its result, the history,
    the live table), the fairness pages and the lockout page."""
    from showdown import services as showdown_services

    anonymous = speaking(language)
    for name in ("lobby:home", "lobby:login", "lobby:signup", "lobby:password_reset"):
        visit(anonymous, language, reverse(name))
    visit(anonymous, language, reverse("lobby:help"))
    for slug in ("omaha-high-fixed-limit", "omaha-hi-lo-pot-limit"):  # every section, both kinds
        visit(anonymous, language, reverse("lobby:help_game", args=[slug]))
    visit(anonymous, language, reverse("lobby:password_reset_done"))
    visit(anonymous, language, reverse("lobby:password_reset_complete"))
    visit(anonymous, language, reverse("lobby:password_reset_confirm", args=["MQ", "bad-token"]))

    player = make_funded_player("alice", cents=100_000)
    # The reset mail, in the language of the page that asked for it.
    anonymous.post(reverse("lobby:password_reset"), {"email": player.email})
    (sent,) = mail.outbox
    mail_html = f'<html lang="{language}">{sent.subject}\n{sent.body}</html>'
    assert_no_english(mail_html, language, "mail")
    link = re.search(r"https?://\S+", sent.body).group(0)
    confirm = anonymous.get(link, follow=True)
    assert_no_english(confirm.content.decode(), language, "reset confirm")

    client = speaking(language)
    client.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
    wallet_deposit(player=player, amount=2_500, idempotency_key="i18n-deposit")
    visit(client, language, reverse("lobby:home"))
    visit(client, language, reverse("lobby:profile"))
    visit(client, language, reverse("lobby:password_change"))
    visit(client, language, reverse("lobby:password_change_done"))
    visit(client, language, reverse("cashier:home"))
    table = make_table()
    visit(client, language, reverse("poker:table", args=[table.pk]))
    # A hand played to showdown, for My hands and the hand's page with its replayer.
    from poker.services import table_sit

    table_sit(
        table=table, player=player, seat_number=1, buy_in=table.min_buy_in,
        post_big_blind=False, idempotency_key="i18n-sit",
    )  # fmt: skip
    seated = {1: player, 2: make_seated_player(table, "bob", 2)}
    played = call_down(deal_hand(table), seated)
    # A note with a colour tag on bob: beside his name on the hand's page, and on "My notes".
    from notes.services import note_set

    note_set(author=player, player_id=seated[2].pk, text="tight", colour="teal")
    visit(client, language, reverse("notes:my_notes"))
    visit(client, language, reverse("histories:my_hands"))
    visit(client, language, reverse("histories:my_results"))
    visit(client, language, reverse("histories:hand", args=[played.pk]))
    visit_tournament_pages(client, language)

    banked = make_showdown_table(max_aggregate_payout=50)
    deck = showdown_deck("AsKs2c3d", "QsJsTs4h9c")
    monkeypatch.setattr(showdown_services, "deck_shuffle", lambda randbelow: list(deck))
    dealt = round_deal(
        player=player, table=banked, ante=500, hole_card_bonus=100, final_hand_bonus=100,
        idempotency_key="i18n-deal",
    )  # fmt: skip
    visit(client, language, reverse("showdown:table", args=[banked.pk]))
    round_decide(player=player, round_id=dealt.pk, decision="raise", idempotency_key="i18n-raise")
    visit(client, language, reverse("showdown:table", args=[banked.pk]))
    visit(client, language, reverse("showdown:history"))
    live = make_showdown_table(seats=3)
    visit(client, language, reverse("showdown:live", args=[live.pk]))
    # A round dealt from the real shuffle, so its fairness checks pass (a failed check shows the
    # engine's technical detail, in English, for a report to staff).
    monkeypatch.undo()
    fair = round_deal(
        player=player, table=make_showdown_table(), ante=500, idempotency_key="i18n-fair"
    )
    round_decide(player=player, round_id=fair.pk, decision="fold", idempotency_key="i18n-fold")
    visit(client, language, reverse("fairness:deals"))
    visit(client, language, reverse("fairness:round", args=[fair.pk]))
    visit_terms_pages(client, anonymous, language)

    locked = speaking(language)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        locked.post(reverse("lobby:login"), {"username": "bob", "password": "wrong"})
    visit(
        locked, language, reverse("lobby:login"), status=429,
        data={"username": "bob", "password": DEFAULT_PASSWORD},
    )  # fmt: skip

    missing = page_templates() - rendered_templates
    assert not missing, f"templates never rendered by this test: {sorted(missing)}"


def test_english_is_the_default_and_reads_as_before(client, db):
    page = client.get(reverse("lobby:home")).content.decode()
    assert '<html lang="en">' in page
    assert "Omaha, dealt fair." in page


def test_the_browser_language_is_followed_until_the_player_chooses(client, db):
    page = client.get(reverse("lobby:login"), HTTP_ACCEPT_LANGUAGE="ja,en;q=0.5").content
    assert '<html lang="ja">' in page.decode()
    chosen = client.post(
        reverse("set_language"), {"language": "fr", "next": reverse("lobby:login")},
        HTTP_ACCEPT_LANGUAGE="ja",
    )  # fmt: skip
    assert chosen.status_code == 302
    page = client.get(reverse("lobby:login"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert '<html lang="fr">' in page and "Se connecter" in page


# --- The language switch that a player keeps ------------------------------------------------


def test_a_logged_in_players_choice_is_kept_on_every_browser(db):
    player = make_player("alice")
    first = Client()
    first.post(reverse("lobby:login"), {"username": "alice", "password": DEFAULT_PASSWORD})
    response = first.post(reverse("set_language"), {"language": "ja", "next": "/"})
    assert response.status_code == 302
    assert Profile.objects.get(user=player).language == "ja"

    # Another browser, no cookie, a French browser: after login the room speaks Japanese.
    second = Client(HTTP_ACCEPT_LANGUAGE="fr")
    assert '<html lang="fr">' in second.get(reverse("lobby:login")).content.decode()
    second.post(reverse("lobby:login"), {"username": "alice", "password": DEFAULT_PASSWORD})
    assert '<html lang="ja">' in second.get(reverse("lobby:home")).content.decode()
    assert second.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ja"  # kept after logout too
    second.post(reverse("lobby:logout"))
    assert '<html lang="ja">' in second.get(reverse("lobby:home")).content.decode()


def test_a_language_the_room_does_not_speak_changes_nothing(db):
    player = make_player("alice")
    client = Client()
    client.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
    client.post(reverse("set_language"), {"language": "de", "next": "/"})
    assert not Profile.objects.filter(user=player).exclude(language="").exists()
    assert '<html lang="en">' in client.get(reverse("lobby:home")).content.decode()


def test_sockets_speak_the_players_language(db):
    player = make_player("alice")
    profile_set_language(user=player, language="fr")
    player.refresh_from_db()
    assert language_for_scope({"user": player, "headers": []}) == "fr"
    anonymous = {"user": None, "headers": [(b"cookie", b"django_language=ja")]}
    assert language_for_scope(anonymous) == "ja"
    browser = {"user": None, "headers": [(b"accept-language", b"fr-CA,fr;q=0.9")]}
    assert language_for_scope(browser) == "fr"
    assert language_for_scope({"user": None, "headers": [(b"cookie", b"bad;;=")]}) == "en"


# --- Money, hands ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "cents", "shown"),
    [
        ("en", 123_450, "$1,234.50"),
        ("en", -500, "-$5.00"),
        ("fr", 123_450, "1\xa0234,50\xa0$"),
        ("ja", 123_450, "1,234.50ドル"),
    ],
)
def test_money_is_written_the_languages_way(language, cents, shown):
    with translation.override(language):
        assert format_dollars(cents) == shown


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", "11/26/2026 18:24"), ("fr", "26/11/2026 18:24"), ("ja", "2026/11/26 18:24")],
)
def test_dates_and_times_are_written_the_languages_way_on_the_24_hour_clock(language, shown):
    moment = datetime(2026, 11, 26, 18, 24, tzinfo=UTC)
    with translation.override(language):
        assert date_format(moment, "SHORT_DATETIME_FORMAT") == shown
        assert time_format(moment) == "18:24"


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", "$1/$2.50"), ("fr", "1\xa0$/2,50\xa0$"), ("ja", "1ドル/2.50ドル")],
)
def test_stakes_are_written_the_languages_way(language, shown, db):
    table = make_table(small_blind=100, big_blind=250)
    with translation.override(language):
        assert table.stakes_label == shown


@pytest.mark.parametrize(
    ("language", "hole", "board", "name"),
    [
        ("en", "2c2d4h9s", "2h4c4dKsQc", "full house, fours full of twos"),
        ("fr", "AcAd4h9s", "Ah4c7dKsQc", "brelan d\u2019as"),
        ("fr", "KcKd4h9s", "2h3c7dJsQc", "paire de rois"),
        ("fr", "2c2d4h9s", "2h4c4dKsQc", "full aux quatre par les deux"),
        ("ja", "2c2d4h9s", "2h4c4dKsQc", "フルハウス（4と2）"),  # noqa: RUF001
        ("ja", "AsKs2c3d", "QsJsTs4h9c", "ロイヤルフラッシュ"),
    ],
)
def test_hand_names_are_made_in_each_language(language, hole, board, name):
    hand = omaha_high(list(re.findall("..", hole)), list(re.findall("..", board)))
    value = {"category": hand.category, "cards": list(hand.cards), "name": hand.name}
    with translation.override(language):
        assert hand_name(value) == name


def test_low_hands_are_named_too():
    low = omaha_low8(["Ac", "2d", "Kh", "Ks"], ["3h", "4c", "8d", "Qs", "Jc"])
    value = {"category": low.category, "cards": list(low.cards), "name": low.name}
    with translation.override("en"):
        assert hand_name(value) == low.name == "8-4-3-2-A low"
    with translation.override("fr"):
        assert hand_name(value) == "low 8-4-3-2-A"


def test_every_english_hand_name_is_the_engines():
    """The edge's English is the engine's, word for word, on many dealt hands."""
    import random

    from poker.engine.cards import FULL_DECK

    deck = list(FULL_DECK)
    rng = random.Random(16)
    with translation.override("en"):
        for _ in range(3000):
            rng.shuffle(deck)
            hand = omaha_high(deck[:4], deck[4:9])
            value = {"category": hand.category, "cards": list(hand.cards)}
            assert hand_name(value) == hand.name


@pytest.mark.django_db(transaction=True)
async def test_a_sockets_refusals_speak_the_players_language():
    """The live Showdown socket answers a Japanese player's bad frames in Japanese, and an
    English player's in English, at the same time."""
    from asgiref.sync import sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.factories import session_headers_for

    def setup():
        table = make_showdown_table(seats=7)
        ja, en = make_funded_player("kenji"), make_funded_player("emma")
        profile_set_language(user=ja, language="ja")
        return table, ja, en

    table, ja, en = await sync_to_async(setup)()

    async def refusal(user) -> dict:
        headers = await sync_to_async(session_headers_for)(user)
        socket = WebsocketCommunicator(application, f"/ws/showdown/{table.pk}/", headers)
        connected, _ = await socket.connect(timeout=10)
        assert connected
        while (await socket.receive_json_from(timeout=10))["type"] != "snapshot":
            pass
        await socket.send_json_to({"type": "sit", "seat": 9})
        while (frame := await socket.receive_json_from(timeout=10))["type"] != "error":
            pass
        await socket.disconnect()
        return frame

    japanese, english = await refusal(ja), await refusal(en)
    assert japanese["code"] == english["code"]
    assert english["message"] == "Pick a seat from 1 to 7."
    assert japanese["message"] == "1〜7番の席を選んでください。"


@pytest.mark.django_db(transaction=True)
async def test_the_table_socket_refuses_in_the_players_language():
    from asgiref.sync import sync_to_async
    from channels.testing import WebsocketCommunicator

    from config.asgi import application
    from tests.factories import session_headers_for

    def setup():
        player = make_funded_player("claire")
        profile_set_language(user=player, language="fr")
        return make_table(), player

    table, player = await sync_to_async(setup)()
    headers = await sync_to_async(session_headers_for)(player)
    socket = WebsocketCommunicator(application, f"/ws/tables/{table.pk}/", headers)
    connected, _ = await socket.connect(timeout=10)
    assert connected
    await socket.send_json_to({"type": "dance"})
    while (frame := await socket.receive_json_from(timeout=10))["type"] != "error":
        pass
    await socket.disconnect()
    assert frame["code"] == "unknown_type"
    assert frame["message"] == "La table ne connaît pas les trames 'dance'."


def test_the_api_refuses_in_the_callers_language_with_the_same_code(db):
    from rest_framework.test import APIClient

    player = make_funded_player("alice", cents=100_000)
    wallet_deposit(player=player, amount=1, idempotency_key="api-i18n-seed")
    api = APIClient()
    api.force_authenticate(player)
    body = {"amount": 500_000, "idempotency_key": "api-i18n"}
    answers = {
        language: api.post(
            "/api/cashier/withdraw/", body, format="json", HTTP_ACCEPT_LANGUAGE=language
        ).json()
        for language in ("en", "fr", "ja")
    }
    assert {answer["code"] for answer in answers.values()} == {"insufficient_funds"}
    assert answers["en"]["message"] == (
        "You cannot withdraw $5,000.00: your wallet holds $1,000.01."
    )
    assert answers["fr"]["message"] == (
        "Vous ne pouvez pas retirer 5\xa0000,00\xa0$ : "
        "votre portefeuille contient 1\xa0000,01\xa0$."
    )
    assert answers["ja"]["message"] == (
        "5,000.00ドル は出金できません。ウォレットの残高は 1,000.01ドル です。"
    )


@pytest.mark.parametrize("language", TRANSLATED)
def test_a_pages_scripts_catalogue_is_at_an_address_of_its_language(language, db):
    """Browsers keep the scripts' catalogue by its address: the address a page names gives that
    page's language to any request, so the English one a browser kept from the login page is
    never the one a French page uses (tests/config/test_i18n_browser.py)."""
    html = speaking(language).get(reverse("lobby:login")).content.decode()
    (address,) = re.findall(r'<script src="([^"]*jsi18n[^"]*)"', html)
    english = speaking("en").get(reverse("lobby:login")).content.decode()
    assert address not in english
    answer = speaking("en").get(address)  # a request whose own language is English
    assert answer.status_code == 200
    assert answer["Content-Language"] == language
    with translation.override(language):
        assert json.dumps(translation.gettext("Fold"))[1:-1] in answer.content.decode()
    assert speaking("en").get(reverse("javascript-catalog", args=["xx"])).status_code == 404
