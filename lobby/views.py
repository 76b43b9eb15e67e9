"""Lobby and account pages. Thin: forms validate, services write."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from lobby.forms import ProfileForm, SignUpForm
from lobby.services import account_register, profile_ensure, profile_set_display_name
from poker.selectors import tables_for_lobby
from showdown.selectors import tables_for_lobby as banked_tables_for_lobby
from showdown.selectors import tables_waiting_for
from showdown.views import tell_voided_rounds


def home(request: HttpRequest) -> HttpResponse:
    """The lobby: every open table, grouped by game, with a link to sit or watch; and the
    banked game's tables (Omaha Showdown against the house)."""
    tell_voided_rounds(request)
    return render(
        request,
        "lobby/home.html",
        {
            "tables": tables_for_lobby(),
            "banked_tables": banked_tables_for_lobby(),
            "banked_waiting": tables_waiting_for(player=request.user),
        },
    )


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("lobby:home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = account_register(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
            display_name=form.cleaned_data["display_name"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.profile.display_name}.")
        return redirect("lobby:home")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    current = profile_ensure(user=request.user)
    form = ProfileForm(request.POST or None, instance=current)
    if request.method == "POST" and form.is_valid():
        profile_set_display_name(user=request.user, display_name=form.cleaned_data["display_name"])
        messages.success(request, "Your display name is saved.")
        return redirect("lobby:profile")
    return render(request, "accounts/profile.html", {"form": form, "profile": current})
