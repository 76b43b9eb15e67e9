"""Identity checks in the admin, for the compliance role only (no other role holds any of this
app's permissions): the documents' queue, each document's file (through the permission-checked
view) and its decision, with a reason kept in the audit log."""

from django.contrib import admin
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils.html import format_html

from config.admin import ReadOnlyAdmin, tool_view
from verification.models import FILE_PERMISSION, Document, Identity
from verification.services import document_approve, document_reject


@admin.register(Identity)
class IdentityAdmin(ReadOnlyAdmin):
    list_display = ("player", "date_of_birth", "updated_at")
    search_fields = ("player__username",)
    list_select_related = ("player",)


@admin.register(Document)
class DocumentAdmin(ReadOnlyAdmin):
    """Oldest waiting first is the queue: filter by status "Waiting for review"."""

    list_display = ("id", "uploaded_at", "player", "kind", "status", "decided_by", "decided_at",
                    "file_kept")  # fmt: skip
    list_filter = ("status", "kind", "uploaded_at")
    search_fields = ("player__username",)
    list_select_related = ("player", "decided_by")
    date_hierarchy = "uploaded_at"
    ordering = ("uploaded_at", "id")
    fields = ("player", "kind", "the_file", "content_type", "size", "original_name",
              "uploaded_at", "status", "decided_by", "decided_at", "decision_reason",
              "file_deleted_at")  # fmt: skip
    readonly_fields = fields

    @admin.display(description="file kept", boolean=True)
    def file_kept(self, document: Document) -> bool:
        return bool(document.file)

    @admin.display(description="file")
    def the_file(self, document: Document) -> str:
        if not document.file:
            return "deleted at the end of the retention period"
        url = reverse("verification:document_file", args=[document.pk])
        return format_html('<a id="document-file" href="{}" target="_blank" rel="noopener">'
                           "Open the file</a> (opening it is audited)", url)  # fmt: skip

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:document_id>/approve/", tool(self.approve_view),
                 name="verification_document_approve"),
            path("<int:document_id>/reject/", tool(self.reject_view),
                 name="verification_document_reject"),
            *super().get_urls(),
        ]  # fmt: skip

    def change_view(self, request, object_id, form_url="", extra_context=None):
        document = self.get_object(request, object_id)
        can_decide = (
            document is not None
            and document.status == Document.Status.PENDING
            and request.user.has_perm("verification.review_document")
            and request.user.has_perm(FILE_PERMISSION)
            and document.player_id != request.user.pk
        )
        extra = {**(extra_context or {}), "can_decide": can_decide}
        return super().change_view(request, object_id, form_url, extra)

    def _decide(self, request, document_id: int, *, approve: bool):
        document = get_object_or_404(Document, pk=document_id)
        verb = "Approve" if approve else "Reject"

        def act(cleaned: dict) -> str:
            if approve:
                document_approve(
                    document=document, approved_by=request.user, reason=cleaned["reason"]
                )
                return f"Document #{document.pk} approved."
            document_reject(document=document, rejected_by=request.user, reason=cleaned["reason"])
            return f"Document #{document.pk} rejected: the player sees your reason."

        return tool_view(
            request, self, document, title=f"{verb} document #{document.pk}",
            permission="verification.review_document", act=act, button=verb,
            intro=f"{document.get_kind_display()} of {document.player}, sent "
            f"{document.uploaded_at:%Y-%m-%d %H:%M} UTC.",
        )  # fmt: skip

    def approve_view(self, request, document_id: int):
        return self._decide(request, document_id, approve=True)

    def reject_view(self, request, document_id: int):
        return self._decide(request, document_id, approve=False)
