"""Admin pieces shared by every app: read-only pages, money in dollars, the staff's tools."""

import re
from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse

from config.errors import Refused
from config.inputs import MAX_CENTS, dollars


class ReadOnlyAdmin(admin.ModelAdmin):
    """Staff may look, never add, edit or delete: these rows change only through services
    (the ledger, the table lock, the responsible-gaming rules) or not at all."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


# -- the staff's tools: a page asking for a reason, then one service call


class ReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        max_length=1000,
        help_text="Why: kept in the audit log with your name.",
    )


_DOLLARS = re.compile(
    r"^(?P<sign>[-+]?)\$?(?P<whole>\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.(?P<cents>\d{1,2}))?$"
)


def parse_dollars(text: str) -> int:
    """'-12.50', '$1,234.5', '+3' -> signed cents; a ValidationError for anything else."""
    match = _DOLLARS.match((text or "").strip())
    if match is None:
        raise forms.ValidationError("An amount in dollars and cents, such as 12.50 or -3.")
    cents = int(match["whole"].replace(",", "")) * 100 + int((match["cents"] or "0").ljust(2, "0"))
    if not 0 < cents <= MAX_CENTS:
        raise forms.ValidationError("From $0.01 to $1,000,000,000.00, either way.")
    return -cents if match["sign"] == "-" else cents


def money(cents: int | None) -> str:
    """Cents as staff read them: $1,234.50 (blank for none)."""
    return "" if cents is None else dollars(cents)


def tool_view(
    request,
    model_admin: admin.ModelAdmin,
    obj,
    *,
    title: str,
    permission: str,
    act: Callable[[dict], str],
    intro: str = "",
    form_class: type[forms.Form] = ReasonForm,
    initial: dict | None = None,
    button: str = "Confirm",
    done_url: str | None = None,
):
    """One staff tool: the form (a reason, at least) on GET; on a valid POST `act(cleaned)`
    (a service call) and back to the object's page with its message. A refusal shows on the
    form, with nothing changed. Only staff holding `permission` get here."""
    if not request.user.has_perm(permission):
        raise PermissionDenied
    form = form_class(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            message = act(form.cleaned_data)
        except Refused as refused:
            form.add_error(None, f"{refused.message} ({refused.code})")
        else:
            model_admin.message_user(request, message, messages.SUCCESS)
            opts = obj._meta
            change = f"admin:{opts.app_label}_{opts.model_name}_change"
            return redirect(done_url or reverse(change, args=[obj.pk]))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "intro": intro,
        "form": form,
        "object": obj,
        "opts": model_admin.model._meta,
        "button": button,
    }
    status = 400 if request.method == "POST" else 200
    return TemplateResponse(request, "admin/staff/tool.html", context, status=status)
