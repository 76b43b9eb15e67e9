"""The player page staff work from, and the account tools on it.

`/admin/staff/player/<id>/change/` shows the player's wallet, table stacks, open seats, recent
hands (never a card), ledger history, adjustments, audit records and notes, with the tools the
staff member's roles allow: suspend or reinstate (cashier managers), ask for a balance
adjustment (cashier managers; another one approves it), add a note (support). Each tool asks
for a reason and calls one service (lobby.suspension, cashier.adjustments, staff.services).
"""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import OuterRef, Subquery
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from cashier.models import Account
from config.admin import ReadOnlyAdmin, money, tool_view
from lobby.suspension import account_reinstate, account_suspend, superuser_remains
from staff.models import Player, PlayerNote
from staff.selectors import player_overview
from staff.services import player_note_add


class NoteForm(forms.Form):
    text = forms.CharField(
        label="Note", widget=forms.Textarea(attrs={"rows": 4, "cols": 60}), max_length=4000
    )


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ("username", "display_name", "email", "status", "wallet", "date_joined",
                    "last_login")  # fmt: skip
    list_filter = ("is_active", "is_staff", "date_joined", "last_login")
    search_fields = ("username", "email", "profile__display_name")
    date_hierarchy = "date_joined"
    ordering = ("username",)

    def get_queryset(self, request):
        wallet = Account.objects.filter(kind=Account.Kind.WALLET, owner=OuterRef("pk"))
        return (
            super()
            .get_queryset(request)
            .select_related("profile")
            .annotate(wallet_cents=Subquery(wallet.values("balance")[:1]))
        )

    @admin.display(description="display name", ordering="profile__display_name")
    def display_name(self, player) -> str:
        profile = getattr(player, "profile", None)
        return profile.display_name if profile else ""

    @admin.display(description="account", ordering="is_active")
    def status(self, player) -> str:
        return "active" if player.is_active else "SUSPENDED"

    @admin.display(description="wallet", ordering="wallet_cents")
    def wallet(self, player) -> str:
        return money(player.wallet_cents or 0)

    # -- the page

    def change_view(self, request, object_id, form_url="", extra_context=None):
        player = self.get_object(request, object_id)
        if player is None:
            raise Http404("No such player.")
        if not self.has_view_permission(request, player):
            raise PermissionDenied
        user = request.user
        context = {
            **self.admin_site.each_context(request),
            "title": f"Player {player.get_username()}",
            "opts": self.model._meta,
            "player": player,
            "original": player,
            **player_overview(player),
            "can_suspend": user.has_perm("staff.suspend_player") and user.pk != player.pk,
            "can_adjust": user.has_perm("cashier.add_balanceadjustment") and user.pk != player.pk,
            "can_note": user.has_perm("staff.add_playernote"),
        }
        return TemplateResponse(request, "admin/staff/player/page.html", context)

    # -- the tools

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:player_id>/suspend/", tool(self.suspend_view), name="staff_player_suspend"),
            path(
                "<int:player_id>/reinstate/",
                tool(self.reinstate_view),
                name="staff_player_reinstate",
            ),
            path("<int:player_id>/note/", tool(self.note_view), name="staff_player_note"),
            *super().get_urls(),
        ]

    def _player(self, player_id: int):
        return get_object_or_404(get_user_model(), pk=player_id)

    def _page(self, player) -> str:
        return reverse("admin:staff_player_change", args=[player.pk])

    def suspend_view(self, request, player_id: int):
        player = self._player(player_id)

        def act(cleaned: dict) -> str:
            ended = account_suspend(player=player, staff=request.user, reason=cleaned["reason"])
            return (
                f"{player.get_username()} is suspended: {ended['sessions']} session(s) ended, "
                f"{len(ended['tables'])} table(s) left after the hand."
            )

        return tool_view(
            request, self, player, title=f"Suspend {player.get_username()}",
            permission="staff.suspend_player", act=act, button="Suspend the account",
            intro="No login, no deposits, withdrawals or play; seats are left after the hand "
            "and cashed out.", done_url=self._page(player),
        )  # fmt: skip

    def reinstate_view(self, request, player_id: int):
        player = self._player(player_id)

        def act(cleaned: dict) -> str:
            account_reinstate(player=player, staff=request.user, reason=cleaned["reason"])
            return f"{player.get_username()} is reinstated."

        return tool_view(
            request, self, player, title=f"Reinstate {player.get_username()}",
            permission="staff.suspend_player", act=act, button="Reinstate the account",
            done_url=self._page(player),
        )  # fmt: skip

    def note_view(self, request, player_id: int):
        player = self._player(player_id)

        def act(cleaned: dict) -> str:
            player_note_add(player=player, author=request.user, text=cleaned["text"])
            return f"Note added to {player.get_username()}."

        return tool_view(
            request, self, player, title=f"Note on {player.get_username()}",
            permission="staff.add_playernote", act=act, form_class=NoteForm,
            button="Add the note", done_url=self._page(player),
        )  # fmt: skip


@admin.register(PlayerNote)
class PlayerNoteAdmin(ReadOnlyAdmin):
    """Notes are added from the player page (audited) and never edited."""

    list_display = ("created_at", "player", "author", "text")
    list_filter = ("created_at",)
    search_fields = ("player__username", "author__username", "text")
    list_select_related = ("player", "author")
    date_hierarchy = "created_at"


# -- the last active superuser stays one

LAST_SUPERUSER = (
    "{} is the last active superuser: keep the account active, staff and superuser (make "
    "another superuser first), or every administrator is locked out."
)


class LastSuperuserKept:
    """User admin mixin: Django's Users page neither deactivates, demotes (staff or
    superuser status unticked) nor deletes the last active superuser; the form says why and
    saves nothing, and the delete page (one user, or the "delete selected" action) lists the
    account as what stops the deletion. The suspension tool refuses the same
    (`lobby.suspension.superuser_remains`)."""

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)  # type: ignore[misc]
        if obj is None or not (obj.is_active and obj.is_superuser):
            return form

        class KeepsTheLastSuperuser(form):
            def clean(self):
                cleaned = super().clean()
                keeps = all(cleaned.get(name, True) for name in ("is_active", "is_staff",
                                                                   "is_superuser"))  # fmt: skip
                if not keeps and not superuser_remains(without=[obj.pk]):
                    raise ValidationError(LAST_SUPERUSER.format(obj.get_username()))
                return cleaned

        return KeepsTheLastSuperuser

    def get_deleted_objects(self, objs, request):
        deleted, counts, perms_needed, protected = super().get_deleted_objects(  # type: ignore[misc]
            objs, request
        )
        leaving = [user.pk for user in objs if user.is_active and user.is_superuser]
        if leaving and not superuser_remains(without=leaving):
            names = ", ".join(user.get_username() for user in objs if user.pk in leaving)
            # Shown first: the page tells only one reason, and this one holds whatever else.
            perms_needed, protected = set(), [LAST_SUPERUSER.format(names), *protected]
        return deleted, counts, perms_needed, protected


_user_model = get_user_model()
_UserAdmin = type(admin.site._registry[_user_model])
admin.site.unregister(_user_model)
admin.site.register(_user_model, type(_UserAdmin.__name__, (LastSuperuserKept, _UserAdmin), {}))
