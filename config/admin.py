"""Admin pieces shared by every app: read-only pages, money in dollars, the staff's tools."""

import logging
import re
from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.exceptions import DisallowedModelAdminLookup
from django.contrib.admin.utils import get_fields_from_path
from django.contrib.admin.widgets import url_params_from_lookup_dict
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.log import log_response
from django.views.defaults import bad_request

from config.errors import Refused
from config.inputs import MAX_CENTS, dollars

# The lookups the admin's own filters put in a URL after a declared field's path: a boolean or
# choice (exact, isnull), a date range (gte, lt), a value list (the bare path), "empty".
_FILTER_LOOKUPS = ("", "__exact", "__isnull", "__gte", "__lt", "__isempty")
_DATE_PARTS = ("__year", "__month", "__day")
_security_log = logging.getLogger("django.security.DisallowedModelAdminLookup")


def declared_lookups(model_admin: admin.ModelAdmin, request=None) -> set[str]:
    """Every URL lookup the changelist's declared filters use: `list_filter` (fields, with a
    relation's `<path>__<key>__exact`, and SimpleListFilter parameters) and `date_hierarchy`.
    `search_fields` read only `q`, which is no lookup."""
    allowed: set[str] = set()
    for item in model_admin.get_list_filter(request) if request else model_admin.list_filter:
        if isinstance(item, type):  # a SimpleListFilter reads its own parameter
            allowed.add(getattr(item, "parameter_name", None) or "")
            continue
        path = item[0] if isinstance(item, list | tuple) else item
        if not isinstance(path, str):
            path = path.name
        allowed.update(path + lookup for lookup in _FILTER_LOOKUPS)
        field = get_fields_from_path(model_admin.model, path)[-1]
        target = getattr(field, "target_field", None) if field.is_relation else None
        if target is not None:
            allowed.add(f"{path}__{target.name}__exact")
    if model_admin.date_hierarchy:
        allowed.update(model_admin.date_hierarchy + part for part in _DATE_PARTS)
    return allowed


class DeclaredLookupsOnly:
    """ModelAdmin mixin: the changelist filters by what the admin declares and nothing else.

    Django's default lets a URL filter on any local field (`?server_seed__startswith=ab`), so
    a list that shows a row only when a guess is right reads a hidden field one character at
    a time: a running deal's seeds, a password hash, a token's key. Here every other lookup is
    refused (400), apart from the `limit_choices_to` lookups a raw-id popup sends.

    A refusal is logged as one line naming the lookup (never the value guessed): Django's
    own handling of the error logs a traceback of some 60 lines each, and a probe of
    thousands of guesses would bury the log."""

    def changelist_view(self, request, extra_context=None):
        try:
            return super().changelist_view(request, extra_context)  # type: ignore[misc]
        except DisallowedModelAdminLookup as refused:
            response = bad_request(request, refused)
            log_response(
                "Admin lookup refused (%s): %s by user %s",
                request.path,
                refused,
                request.user.pk,
                response=response,
                request=request,
                logger=_security_log,
                level="warning",
            )
            return response

    def lookup_allowed(self, lookup, value, request=None) -> bool:
        if lookup in declared_lookups(self, request):
            return True
        for fk_lookup in self.model._meta.related_fkey_lookups:
            if callable(fk_lookup):
                fk_lookup = fk_lookup()
            if (lookup, value) in url_params_from_lookup_dict(fk_lookup).items():
                return True
        return False


def declare_lookups_everywhere(site: admin.AdminSite) -> None:
    """Give the mixin to admins registered by Django and third-party apps (users, groups, API
    tokens, axes' attempts), which the room does not write: each is registered again as a
    subclass with the mixin first."""
    for model, model_admin in list(site._registry.items()):
        if isinstance(model_admin, DeclaredLookupsOnly):
            continue
        cls = type(model_admin)
        site.unregister(model)
        site.register(model, type(cls.__name__, (DeclaredLookupsOnly, cls), {}))


class RoomAdmin(DeclaredLookupsOnly, admin.ModelAdmin):
    """The base of every admin page the room writes."""


class ReadOnlyAdmin(RoomAdmin):
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
