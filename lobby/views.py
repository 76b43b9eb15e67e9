"""Lobby and account pages. Thin: forms validate, services write."""

import hashlib
import uuid
from dataclasses import replace

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.services import (
    DisplayNameTaken,
    DisplayNameTooSoon,
    EmailVerificationInvalid,
    account_register,
    display_name_next_change,
    email_is_verified,
    email_verification_send,
    profile_ensure,
    profile_set_display_name,
)
from accounts.services import email_verify as email_verify_token
from cashier.selectors import wallet_balance
from config.ratelimit import rate_limit_hit
from fairness.views import fairness_context
from lobby.forms import ProfileForm, SignUpForm
from poker import services as poker
from poker.guides import GUIDES, rake_rows, timing
from poker.models import Table
from poker.selectors import GameKind, game_kinds_open, lobby_tables
from responsible.services import ResponsibleError, terms_accept
from responsible.views import responsible_context
from showdown.selectors import tables_for_lobby as banked_tables_for_lobby
from showdown.selectors import tables_waiting_for
from showdown.views import tell_voided_rounds
from tournaments.selectors import sit_and_gos_for_lobby


def home(request: HttpRequest) -> HttpResponse:
    """The lobby, for visitors too: every open table grouped by game with its last hour's
    figures and filters, the player's own tables and wallet, "join a game", the Sit & Gos
    open for registration, and the banked game's tables (Omaha Showdown against the house)."""
    tell_voided_rounds(request)
    tables = lobby_tables(player=request.user)
    signed_in = request.user.is_authenticated
    return render(
        request,
        "lobby/home.html",
        {
            "tables": tables,
            "my_tables": [table for table in tables if table.is_mine],
            "wallet": wallet_balance(player=request.user) if signed_in else None,
            "game_choices": Table.Game.choices,
            "structure_choices": Table.Structure.choices,
            "stakes_choices": list(dict.fromkeys(table.stakes_label for table in tables)),
            "game_kinds": game_kinds_open(),
            "banked_tables": banked_tables_for_lobby(),
            "banked_waiting": tables_waiting_for(player=request.user),
            "sit_and_gos": [
                replace(sng, register_key=f"lobby-{uuid.uuid4().hex}")
                for sng in sit_and_gos_for_lobby(player=request.user)
            ],
        },
    )


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("lobby:home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = account_register(
                    username=form.cleaned_data["username"],
                    email=form.cleaned_data["email"],
                    password=form.cleaned_data["password1"],
                    display_name=form.cleaned_data["display_name"],
                )
                # With the account or not at all: no player without the documents accepted.
                terms_accept(player=user, versions=form.cleaned_data.get("terms_versions", []))
        except ResponsibleError as error:  # a version published while the form was open
            data = request.POST.copy()
            data.pop("accept_terms", None)  # to be ticked again, after reading the new one
            form = SignUpForm(data)
            data["terms_versions"] = form.fields["terms_versions"].initial
            form.is_valid()
            form.add_error(None, error.message)
            return render(request, "accounts/signup.html", {"form": form})
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        email_verification_send(user=user, base_url=request.build_absolute_uri("/"))
        messages.success(
            request,
            _(
                "Welcome, %(name)s. We sent a link to %(email)s: confirm your address before "
                "your first deposit."
            )
            % {"name": user.profile.display_name, "email": user.email},
        )
        return redirect("lobby:home")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    current = profile_ensure(user=request.user)
    form = ProfileForm(request.POST or None, instance=current)
    if request.method == "POST" and form.is_valid():
        try:
            profile_set_display_name(
                user=request.user, display_name=form.cleaned_data["display_name"]
            )
        except (DisplayNameTaken, DisplayNameTooSoon) as exc:
            form.add_error("display_name", str(exc))
        else:
            messages.success(request, _("Your display name is saved."))
            return redirect("lobby:profile")
    current.refresh_from_db()
    return render(
        request,
        "accounts/profile.html",
        {
            "form": form,
            "profile": current,
            "email_verified": email_is_verified(user=request.user),
            "display_name_next_change": display_name_next_change(profile=current),
            **responsible_context(request),
            **fairness_context(request),
        },
    )


@login_required
@require_POST
def email_verify_send(request: HttpRequest) -> HttpResponse:
    """Mail a fresh confirmation link (sign-up sends the first)."""
    if email_is_verified(user=request.user):
        messages.info(request, _("Your address is already confirmed."))
    else:
        email_verification_send(user=request.user, base_url=request.build_absolute_uri("/"))
        messages.success(
            request, _("We sent a confirmation link to %(email)s.") % {"email": request.user.email}
        )
    return redirect("lobby:profile")


@require_http_methods(["GET"])
def email_verify(request: HttpRequest, token: str) -> HttpResponse:
    """The link from the mail: works without logging in (it is the proof)."""
    try:
        email_verify_token(token=token)
    except EmailVerificationInvalid as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Your e-mail address is confirmed; you can deposit now."))
    return redirect("lobby:profile" if request.user.is_authenticated else "lobby:login")


@login_required
@require_POST
def join_game(request: HttpRequest) -> HttpResponse:
    """ "Join a game" (RULES.md 5): a free seat at a table of the chosen kind (its page opens
    with the sit dialog), or a place on the shortest waiting list."""
    kind = GameKind.parse(request.POST.get("kind", ""))
    if kind is None:
        messages.error(request, _("Choose a game from the list."))
        return redirect("lobby:home")
    try:
        joined = poker.table_join_any(player=request.user, kind=kind)
    except poker.TableError as error:
        messages.error(request, error.message)
        return redirect("lobby:home")
    table_url = reverse("poker:table", args=[joined.table.pk])
    if joined.position is not None:
        messages.success(
            request,
            _(
                "Every table of that game is full: you are number %(position)s on the waiting "
                "list for %(table)s. We will offer you the next free seat."
            )
            % {"position": joined.position, "table": joined.table.name},
        )
        return redirect("lobby:home")
    if joined.seat is None:
        return redirect(table_url)  # the player already sits at a table of that kind
    return redirect(f"{table_url}?take={joined.seat}")


def help_index(request: HttpRequest) -> HttpResponse:
    """The rules and help pages, one per game."""
    return render(request, "lobby/help_index.html", {"guides": list(GUIDES.values())})


def help_game(request: HttpRequest, slug: str) -> HttpResponse:
    """One game's rules with the room's timing, buy-in and ratholing policy and rake."""
    guide = GUIDES.get(slug)
    if guide is None:
        raise Http404("no such game")
    return render(
        request,
        "lobby/help.html",
        {"guide": guide, "timing": timing(), "rake_rows": rake_rows(guide.structure)},
    )


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset page, with the mails it sends limited per e-mail address (one inbox is
    not flooded) and per client address (no bulk mail from one place). Both count every
    request, known address or not, so the limit tells nothing about which addresses have an
    account; past either, nothing is sent and the page says so (429, Retry-After)."""

    def form_valid(self, form):
        window = settings.PASSWORD_RESET_LIMIT_WINDOW_SECONDS
        client = self.request.META.get("REMOTE_ADDR", "")
        email = form.cleaned_data["email"].strip().lower()
        inbox = hashlib.sha256(email.encode()).hexdigest()
        if not rate_limit_hit(
            key=f"password-reset:client:{client}",
            limit=settings.PASSWORD_RESET_LIMIT_PER_CLIENT,
            window_seconds=window,
        ):
            refusal = _("Too many password reset requests from your address. Try again in an hour.")
        elif not rate_limit_hit(
            key=f"password-reset:email:{inbox}",
            limit=settings.PASSWORD_RESET_LIMIT_PER_EMAIL,
            window_seconds=window,
        ):
            refusal = _(
                "Too many password reset requests for this e-mail address. Check its inbox "
                "(and spam folder) for the links already sent, or try again in an hour."
            )
        else:
            return super().form_valid(form)
        form.add_error(None, refusal)
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response["Retry-After"] = str(window)
        return response
