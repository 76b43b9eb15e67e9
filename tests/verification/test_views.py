"""A document's file is served to compliance staff only, through one permission-checked view;
the player's forms on the cashier page refuse bad input with clear words."""

import datetime

import pytest
from django.urls import reverse

from audit.models import AuditRecord
from tests.factories import PNG, document_file, make_compliance_officer, make_player, make_staff
from verification.models import Document
from verification.services import document_upload


@pytest.fixture
def document(db):
    return document_upload(player=make_player("alice"), kind="identity", file=document_file())


def test_the_file_goes_to_compliance_staff_only(client, document):
    url = reverse("verification:document_file", args=[document.pk])
    assert client.get(url).status_code == 404  # anonymous
    former = make_staff("former-officer", "compliance")
    former.is_staff = False  # no longer staff, still in the group
    former.save(update_fields=["is_staff"])
    others = [
        document.player,
        make_staff("sam", "support"),
        make_staff("tim", "table managers"),
        make_staff("cam", "cashier managers", "support", "table managers"),
        former,
    ]
    for user in others:
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        assert client.get(url).status_code == 404, user
        admin_page = client.get(reverse("admin:verification_document_change", args=[document.pk]))
        assert admin_page.status_code in (302, 403), user
    assert not AuditRecord.objects.filter(action="verification.document_opened").exists()
    officer = make_compliance_officer()
    client.force_login(officer, backend="django.contrib.auth.backends.ModelBackend")
    response = client.get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == PNG
    assert response["Content-Type"] == "image/png"
    assert "sandbox" in response["Content-Security-Policy"]
    assert "no-store" in response["Cache-Control"]
    assert AuditRecord.objects.get(action="verification.document_opened").actor_id == officer.pk
    page = client.get(reverse("admin:verification_document_change", args=[document.pk]))
    assert url in page.content.decode() and 'id="tool-approve"' in page.content.decode()


def test_the_player_sends_a_document_and_a_date_of_birth_and_reads_why_a_bad_one_is_refused(
    player_client, player
):
    home = reverse("cashier:home")
    page = player_client.get(home).content.decode()
    assert 'id="document-form"' in page and 'enctype="multipart/form-data"' in page
    bad = document_file(b"MZ\x90\x00 not a scan", "scan.png")
    response = player_client.post(
        reverse("verification:upload"), {"kind": "identity", "file": bad}, follow=True
    )
    assert "Send a PDF, PNG or JPEG file" in response.content.decode()
    player_client.post(reverse("verification:upload"), {"kind": "address", "file": document_file()})
    assert Document.objects.get().kind == "address"
    young = datetime.date.today().replace(year=datetime.date.today().year - 10)
    response = player_client.post(
        reverse("verification:birth_date"), {"date_of_birth": young.isoformat()}, follow=True
    )
    assert "18 or older" in response.content.decode()
    page = response.content.decode()
    assert "Waiting for review" in page and 'id="verification-status"' in page
