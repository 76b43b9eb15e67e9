"""The terms and fair-play policy: versions published by staff, accepted at sign-up and again
after a new version, and play, wagers and deposits refused until then."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from audit.models import AuditRecord
from cashier.services import CashierError, wallet_deposit, wallet_withdraw
from responsible.models import TermsAcceptance, TermsVersion
from responsible.rules import check_play, terms_current, terms_pending
from responsible.services import (
    ResponsibleError,
    terms_accept,
    terms_publish,
    terms_publish_documents,
)
from showdown.services import ShowdownRefused, round_deal
from tests.factories import (
    DEFAULT_PASSWORD,
    make_funded_player,
    make_player,
    make_showdown_table,
    make_staff,
    sit_refusal,
)

pytestmark = pytest.mark.django_db


def publish(kind: str, body: str = "Play fair.", staff=None) -> TermsVersion:
    return terms_publish(staff=staff, kind=kind, title=f"{kind} title", body=body)


def publish_both() -> list[TermsVersion]:
    return [publish("terms"), publish("fair_play")]


def test_versions_count_up_per_kind_and_the_highest_is_in_force():
    first = publish("terms")
    policy = publish("fair_play")
    second = publish("terms", "New text.")
    assert (first.version, second.version, policy.version) == (1, 2, 1)
    assert terms_current() == [second, policy]
    record = AuditRecord.objects.filter(action="staff.terms_publish").latest("id")
    assert record.subject_id == str(second.pk) and record.payload["version"] == 2


@pytest.mark.parametrize(
    ("kind", "title", "body", "code"),
    [
        ("rules", "t", "b", "bad_kind"),
        ("terms", "", "b", "bad_document"),
        ("terms", "t", " ", "bad_document"),
    ],
)
def test_a_bad_document_is_refused_and_publishes_nothing(kind, title, body, code):
    with pytest.raises(ResponsibleError) as refused:
        terms_publish(staff=None, kind=kind, title=title, body=body)
    assert refused.value.code == code
    assert not TermsVersion.objects.exists()


def test_no_document_published_refuses_nothing():
    alice = make_player("alice")
    check_play(player=alice, error=ShowdownRefused)
    assert terms_pending(player=alice) == []


def test_play_wagers_and_deposits_wait_for_the_current_versions():
    alice = make_funded_player("alice")
    terms, policy = publish_both()
    assert sit_refusal(alice, idempotency_key="sit-1").code == "terms_not_accepted"
    with pytest.raises(ShowdownRefused) as refused:
        round_deal(player=alice, table=make_showdown_table(), ante=100, idempotency_key="deal")
    assert refused.value.code == "terms_not_accepted"
    with pytest.raises(CashierError) as refused:
        wallet_deposit(player=alice, amount=100, idempotency_key="dep")
    assert refused.value.code == "terms_not_accepted"
    wallet_withdraw(player=alice, amount=100, idempotency_key="out")  # money out stays open

    terms_accept(player=alice, versions=[terms.pk, policy.pk])
    check_play(player=alice, error=ShowdownRefused)
    wallet_deposit(player=alice, amount=100, idempotency_key="dep-2")
    # A new version of one document asks again, for that one only.
    newer = publish("fair_play", "Stricter.")
    assert terms_pending(player=alice) == [newer]
    with pytest.raises(ShowdownRefused) as refused:
        check_play(player=alice, error=ShowdownRefused)
    assert refused.value.code == "terms_not_accepted"
    terms_accept(player=alice, versions=[newer.pk])
    check_play(player=alice, error=ShowdownRefused)
    kept = TermsAcceptance.objects.filter(player=alice).values_list("terms__kind", "terms__version")
    assert sorted(kept) == [("fair_play", 1), ("fair_play", 2), ("terms", 1)]
    record = AuditRecord.objects.filter(action="responsible.terms_accepted").latest("id")
    assert record.actor_id == alice.pk
    assert record.payload["accepted"] == [{"kind": "fair_play", "version": 2, "id": newer.pk}]


def test_a_suspension_is_said_before_the_terms():
    alice = make_player("alice")
    publish_both()
    get_user_model().objects.filter(pk=alice.pk).update(is_active=False)
    with pytest.raises(ShowdownRefused) as refused:
        check_play(player=alice, error=ShowdownRefused)
    assert refused.value.code == "account_suspended"


@pytest.mark.parametrize("versions", [[], "all", [True], ["1"], [{"a": 1}], None])
def test_accepting_other_than_the_versions_in_force_is_refused(versions):
    alice = make_player("alice")
    terms, policy = publish_both()
    for bad in (versions, [terms.pk], [terms.pk, policy.pk, policy.pk + 99]):
        with pytest.raises(ResponsibleError) as refused:
            terms_accept(player=alice, versions=bad)
        assert refused.value.code == "terms_changed"
    assert not TermsAcceptance.objects.exists()


def test_a_stale_page_cannot_accept_a_version_published_after_it():
    alice = make_player("alice")
    terms, policy = publish_both()
    newer = publish("terms", "Changed.")
    with pytest.raises(ResponsibleError):
        terms_accept(player=alice, versions=[terms.pk, policy.pk])
    terms_accept(player=alice, versions=[newer.pk, policy.pk])
    assert terms_pending(player=alice) == []


# -- pages


def test_any_page_sends_the_player_to_accept_then_back():
    alice = make_player("alice")
    browser = Client()
    browser.force_login(alice)
    assert browser.get("/").status_code == 200  # nothing published: nothing asked
    terms, policy = publish_both()
    answer = browser.get("/cashier/?x=1")
    accept_url = reverse("responsible:terms_accept")
    assert answer.status_code == 302 and answer["Location"].startswith(accept_url)
    page = browser.get(answer["Location"])
    assert page.status_code == 200
    assert b'data-terms-kind="terms"' in page.content and b"Play fair." in page.content
    # The documents, the API and logging out stay open.
    assert browser.get(reverse("responsible:fair_play")).status_code == 200
    assert browser.get("/api/responsible/terms/").status_code == 200
    # Without the box ticked nothing is accepted.
    versions = f"{terms.pk},{policy.pk}"
    refused = browser.post(accept_url, {"terms_versions": versions, "next": "/cashier/?x=1"})
    assert refused.status_code == 200 and not TermsAcceptance.objects.exists()
    done = browser.post(
        accept_url, {"terms_versions": versions, "accept_terms": "on", "next": "/cashier/?x=1"}
    )
    assert done.status_code == 302 and done["Location"] == "/cashier/?x=1"
    assert browser.get("/cashier/").status_code == 200
    page = browser.get(reverse("responsible:terms"))
    assert b"data-accepted" in page.content
    profile = browser.get(reverse("lobby:profile")).content.decode()
    assert f'href="{reverse("responsible:fair_play")}"' in profile


def test_the_accept_page_sends_nowhere_outside_the_room():
    alice = make_player("alice")
    terms, policy = publish_both()
    browser = Client()
    browser.force_login(alice)
    done = browser.post(
        reverse("responsible:terms_accept"),
        {
            "terms_versions": f"{terms.pk},{policy.pk}",
            "accept_terms": "on",
            "next": "https://evil.test/",
        },
    )
    assert done["Location"] == "/"


def test_documents_pages_without_anything_published_are_404():
    assert Client().get(reverse("responsible:terms")).status_code == 404


def test_sign_up_requires_accepting_the_current_versions():
    terms, policy = publish_both()
    form = {
        "username": "newbie",
        "email": "newbie@example.test",
        "display_name": "Newbie",
        "password1": DEFAULT_PASSWORD,
        "password2": DEFAULT_PASSWORD,
        "terms_versions": f"{terms.pk},{policy.pk}",
    }
    browser = Client()
    page = browser.get(reverse("lobby:signup"))
    assert b'name="accept_terms"' in page.content
    assert browser.post(reverse("lobby:signup"), form).status_code == 200
    assert not get_user_model().objects.filter(username="newbie").exists()
    # A version published while the form was open: asked again, no account made.
    stale = {**form, "accept_terms": "on", "terms_versions": str(terms.pk)}
    answer = browser.post(reverse("lobby:signup"), stale)
    assert answer.status_code == 200 and b"not the ones accepted" in answer.content
    assert not get_user_model().objects.filter(username="newbie").exists()
    answer = browser.post(reverse("lobby:signup"), {**form, "accept_terms": "on"})
    assert answer.status_code == 302
    newbie = get_user_model().objects.get(username="newbie")
    assert terms_pending(player=newbie) == []
    assert browser.get("/").status_code == 200


def test_api_lists_and_accepts():
    alice = make_player("alice")
    terms, policy = publish_both()
    browser = Client()
    browser.force_login(alice)
    listing = browser.get("/api/responsible/terms/").json()
    assert listing["accepted"] is False
    assert [(d["kind"], d["accepted_at"]) for d in listing["documents"]] == [
        ("terms", None),
        ("fair_play", None),
    ]
    bad = browser.post(
        "/api/responsible/terms/", {"versions": [terms.pk]}, content_type="application/json"
    )
    assert bad.status_code == 400 and bad.json()["code"] == "terms_changed"
    ok = browser.post(
        "/api/responsible/terms/",
        {"versions": [terms.pk, policy.pk]},
        content_type="application/json",
    )
    assert ok.status_code == 200 and ok.json()["accepted"] is True


# -- admin


def test_superuser_publishes_in_the_admin_and_roles_only_read():
    boss = get_user_model().objects.create_superuser("boss", "boss@example.test", DEFAULT_PASSWORD)
    browser = Client()
    browser.force_login(boss)
    add = reverse("admin:responsible_termsversion_add")
    answer = browser.post(
        add, {"kind": "terms", "title": "Terms", "body": "Be nice.", "reason": "launch"}
    )
    assert answer.status_code == 302, answer.content[:2000]
    version = TermsVersion.objects.get()
    assert (version.version, version.published_by) == (1, boss)
    record = AuditRecord.objects.get(action="staff.terms_publish")
    assert record.actor_id == boss.pk and record.reason == "launch"
    # Never edited: the page shows it read-only.
    change = reverse("admin:responsible_termsversion_change", args=[version.pk])
    browser.post(change, {"kind": "terms", "title": "Other", "body": "x", "reason": "r"})
    version.refresh_from_db()
    assert version.title == "Terms"

    support = make_staff("sue", "support")
    staff_browser = Client()
    staff_browser.force_login(support)
    assert (
        staff_browser.get(reverse("admin:responsible_termsversion_changelist")).status_code == 200
    )
    assert (
        staff_browser.get(reverse("admin:responsible_termsacceptance_changelist")).status_code
        == 200
    )
    assert (
        staff_browser.post(
            add, {"kind": "terms", "title": "T", "body": "b", "reason": "r"}
        ).status_code
        == 403
    )
    assert TermsVersion.objects.count() == 1


def test_the_room_documents_publish_their_newest_text_once_and_players_accept_again():
    player = make_player()
    publish_both()
    terms_accept(player=player, versions=[version.pk for version in terms_current()])
    published = terms_publish_documents()
    assert {version.kind for version in published} == {"terms", "fair_play"}
    assert terms_publish_documents() == []  # the newest texts are in force: nothing again
    assert {version.kind for version in terms_pending(player=player)} == {"terms", "fair_play"}
    policy = next(version for version in published if version.kind == "fair_play").body
    # What the room checks, said to players.
    for words in ("collusion", "chip dumping", "program", "Identity before withdrawals",
                  "just under the large amount", "little play", "cleared, warned",
                  "suspended with its money held", "finished hands"):  # fmt: skip
        assert words in policy
    assert AuditRecord.objects.filter(action="staff.terms_publish").count() == 4
