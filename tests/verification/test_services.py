"""Identity checks: the date of birth against the legal age, what an upload may be, who decides
a document, and the retention period's deletion (verification/services.py, tasks.py)."""

import datetime
from pathlib import Path

import pytest
from django.utils import timezone

from audit.models import AuditRecord
from tests.factories import (
    PNG,
    document_file,
    make_compliance_officer,
    make_player,
    make_staff,
    make_verified,
)
from verification.models import Document
from verification.selectors import player_verified
from verification.services import (
    VerificationError,
    age_on,
    document_approve,
    document_reject,
    document_upload,
    identity_birth_date_set,
)
from verification.tasks import expire_documents


def test_age_counts_whole_years_and_a_leap_day_birthday_ages_on_the_first_of_march():
    born = datetime.date(2008, 2, 29)
    assert age_on(born, datetime.date(2026, 2, 28)) == 17
    assert age_on(born, datetime.date(2026, 3, 1)) == 18


@pytest.mark.django_db
def test_a_date_of_birth_under_the_legal_age_is_refused(settings):
    player = make_player("alice")
    settings.VERIFICATION_LEGAL_AGE = 21
    now = timezone.now()
    twenty = now.date().replace(year=now.year - 20)
    with pytest.raises(VerificationError) as refused:
        identity_birth_date_set(player=player, date_of_birth=twenty, now=now)
    assert refused.value.code == "under_age" and "21" in refused.value.message
    with pytest.raises(VerificationError):
        identity_birth_date_set(player=player, date_of_birth=now.date().replace(year=1800))
    identity_birth_date_set(player=player, date_of_birth=twenty.replace(year=now.year - 30))
    assert AuditRecord.objects.filter(action="verification.birth_date").count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"", "empty_file"),
        (b"<html><script>alert(1)</script>", "bad_file_type"),
        (b"GIF89a" + b"\0" * 10, "bad_file_type"),
        (PNG + b"\0" * 100, "file_too_large"),
    ],
)
def test_an_upload_is_a_pdf_png_or_jpeg_by_its_bytes_within_the_size_limit(settings, content, code):
    settings.VERIFICATION_MAX_UPLOAD_BYTES = 100
    with pytest.raises(VerificationError) as refused:
        document_upload(
            player=make_player("alice"), kind="identity", file=document_file(content, "x.png")
        )
    assert refused.value.code == code
    assert not Document.objects.exists()


@pytest.mark.django_db
def test_a_document_is_kept_out_of_the_web_root_under_a_name_that_tells_nothing(settings):
    player = make_player("alice")
    document = document_upload(
        player=player, kind="address", file=document_file(b"%PDF-1.7 bill", "Alice bill.pdf")
    )
    path = Path(document.file.path)
    assert path.is_relative_to(Path(settings.VERIFICATION_STORAGE_DIR).resolve())
    assert not path.is_relative_to(Path(settings.STATIC_ROOT).resolve())
    assert "Alice" not in path.name and path.suffix == ".pdf"
    assert path.read_bytes() == b"%PDF-1.7 bill"
    assert (document.content_type, document.original_name) == ("application/pdf", "Alice bill.pdf")
    with pytest.raises(ValueError):
        document.file.url  # noqa: B018 (no address serves the folder)


@pytest.mark.django_db
def test_only_compliance_staff_decide_documents_once_with_a_reason_never_their_own():
    player = make_player("alice")
    document = document_upload(player=player, kind="identity", file=document_file())
    for staff in (make_staff("sam", "support"), make_staff("cam", "cashier managers"), player):
        with pytest.raises(VerificationError) as refused:
            document_approve(document=document, approved_by=staff, reason="fine")
        assert refused.value.code == "not_compliance"
    officer = make_compliance_officer()
    with pytest.raises(VerificationError) as refused:
        document_reject(document=document, rejected_by=officer, reason="")
    assert refused.value.code == "reason_required"
    document_reject(document=document, rejected_by=officer, reason="blurred photo")
    with pytest.raises(VerificationError) as refused:
        document_approve(document=document, approved_by=officer, reason="changed my mind")
    assert refused.value.code == "already_decided"
    record = AuditRecord.objects.get(action="verification.document_rejected")
    assert (record.actor_id, record.reason) == (officer.pk, "blurred photo")
    own = document_upload(player=officer, kind="identity", file=document_file())
    with pytest.raises(VerificationError) as refused:
        document_approve(document=own, approved_by=officer, reason="me")
    assert refused.value.code == "own_document"
    assert not player_verified(player_id=player.pk)


@pytest.mark.django_db
def test_the_retention_task_deletes_decided_files_after_the_period_and_audits_each(
    settings, django_capture_on_commit_callbacks
):
    settings.VERIFICATION_RETENTION_DAYS = 30
    player = make_verified(make_player("alice"))
    waiting = document_upload(player=player, kind="identity", file=document_file())
    old, recent = Document.objects.filter(status="approved").order_by("id")
    Document.objects.filter(pk__in=[old.pk, waiting.pk]).update(
        uploaded_at=timezone.now() - datetime.timedelta(days=400)
    )
    Document.objects.filter(pk=old.pk).update(
        decided_at=timezone.now() - datetime.timedelta(days=31)
    )
    paths = {d.pk: Path(d.file.path) for d in (old, recent, waiting)}
    with django_capture_on_commit_callbacks(execute=True):
        assert expire_documents() == 1  # the beat's task, run here
    old.refresh_from_db()
    assert not old.file and old.file_deleted_at is not None and old.status == "approved"
    assert not paths[old.pk].exists()
    assert paths[recent.pk].exists() and paths[waiting.pk].exists()  # recent, and not decided
    record = AuditRecord.objects.get(action="verification.document_deleted")
    assert record.payload["document"] == old.pk
    assert player_verified(player_id=player.pk)  # the decision outlives the file
    assert expire_documents() == 0


def test_the_check_refuses_a_documents_folder_inside_the_static_files(settings, tmp_path):
    from verification.checks import documents_outside_the_web_root

    assert documents_outside_the_web_root() == []
    settings.STATIC_ROOT = tmp_path
    settings.VERIFICATION_STORAGE_DIR = tmp_path / "documents"
    assert [e.id for e in documents_outside_the_web_root()] == ["verification.E001"]
