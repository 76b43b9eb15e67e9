"""The player's identity check forms (shown on the cashier page) and the one way out of the
private folder for a document's file: compliance staff only."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from verification.forms import BirthDateForm, DocumentForm
from verification.models import FILE_PERMISSION, Document
from verification.services import (
    VerificationError,
    document_file_opened,
    document_upload,
    identity_birth_date_set,
)


def _refused(request: HttpRequest, form) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, error)


@login_required
@require_POST
def verification_birth_date(request: HttpRequest) -> HttpResponse:
    form = BirthDateForm(request.POST)
    if not form.is_valid():
        _refused(request, form)
        return redirect("cashier:home")
    try:
        identity_birth_date_set(
            player=request.user, date_of_birth=form.cleaned_data["date_of_birth"]
        )
    except VerificationError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Date of birth saved."))
    return redirect("cashier:home")


@login_required
@require_POST
def verification_upload(request: HttpRequest) -> HttpResponse:
    form = DocumentForm(request.POST, request.FILES)
    if not form.is_valid():
        _refused(request, form)
        return redirect("cashier:home")
    try:
        document = document_upload(
            player=request.user, kind=form.cleaned_data["kind"], file=form.cleaned_data["file"]
        )
    except VerificationError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("%(document)s received: our compliance team will review it.")
            % {"document": document.get_kind_display()},
        )
    return redirect("cashier:home")


@require_GET
def document_file(request: HttpRequest, document_id: int) -> HttpResponse:
    """The file, to active staff holding `view_document_file` (the compliance role); anyone
    else, the player who sent it included, gets a 404 that tells nothing. Every opening is in
    the audit log."""
    user = request.user
    if not (user.is_authenticated and user.is_active and user.is_staff
            and user.has_perm(FILE_PERMISSION)):  # fmt: skip
        raise Http404
    document = get_object_or_404(Document, pk=document_id)
    if not document.file:
        raise Http404
    document_file_opened(document=document, staff=user)
    response = FileResponse(document.file.open("rb"), content_type=document.content_type)
    response["Content-Disposition"] = (
        f'inline; filename="document-{document.pk}{document.extension}"'
    )
    # Shown, never run: no script in a PDF or an image reaches the room's origin.
    response["Content-Security-Policy"] = "sandbox; default-src 'none'; img-src 'self'"
    response["Cache-Control"] = "private, no-store"
    return response
