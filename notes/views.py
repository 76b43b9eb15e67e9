"""The "My notes" page: the author's notes, their colours' names, and their download. Thin:
the services check and write, the selectors read (the author's own only)."""

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.core.serializers.json import DjangoJSONEncoder
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from notes.models import LABEL_MAX_LENGTH, NOTE_MAX_LENGTH, NOTES_PER_AUTHOR, Colour
from notes.selectors import notes_export, notes_of, palette_for, player_named
from notes.services import NoteRefused, note_delete, note_set, palette_set

PER_PAGE = 50


def _page(request: HttpRequest, *, error: str = "", draft: dict | None = None, status: int = 200):
    notes = notes_of(author=request.user)
    page = Paginator(notes, PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "notes/my_notes.html",
        {
            "palette": palette_for(author=request.user),
            "page": page,
            "notes": page.object_list,
            "count": len(notes),
            "error": error,
            "draft": draft or {},
            "limits": {
                "note": NOTE_MAX_LENGTH,
                "label": LABEL_MAX_LENGTH,
                "notes": NOTES_PER_AUTHOR,
            },
        },
        status=status,
    )


@login_required
@require_GET
def my_notes(request: HttpRequest) -> HttpResponse:
    return _page(request)


@login_required
@require_POST
def note_save(request: HttpRequest) -> HttpResponse:
    """Write, change or delete one note from the page's forms (a player by id, or by the name
    the tables show for a new note)."""
    data = request.POST
    draft = {key: data.get(key, "") for key in ("display_name", "text", "colour", "player")}
    try:
        if data.get("player"):
            player_id = _form_id(data["player"])
        else:
            player = player_named(display_name=data.get("display_name", ""))
            if player is None:
                raise NoteRefused("unknown_player", _("There is no player with that name."))
            player_id = player.pk
        if data.get("delete"):
            note_delete(author=request.user, player_id=player_id)
            messages.success(request, _("The note is deleted."))
            return redirect("notes:my_notes")
        note = note_set(
            author=request.user,
            player_id=player_id,
            text=data.get("text", ""),
            colour=data.get("colour", ""),
        )
    except NoteRefused as refused:
        return _page(request, error=refused.message, draft=draft, status=400)
    if note is None:
        messages.success(request, _("The note is deleted."))
        return redirect("notes:my_notes")
    messages.success(request, _("The note is saved."))
    return redirect(reverse("notes:my_notes") + f"#note-{player_id}")


def _form_id(value: str) -> int:
    if not value.isdigit() or len(value) > 18:
        raise NoteRefused("bad_player", _("Name the player by their id, a whole number."))
    return int(value)


@login_required
@require_POST
def palette_save(request: HttpRequest) -> HttpResponse:
    """Name the palette's colours, all at once."""
    labels = {colour: request.POST.get(f"label-{colour}", "") for colour in Colour.values}
    try:
        palette_set(author=request.user, labels=labels)
    except NoteRefused as refused:
        return _page(request, error=refused.message, status=400)
    messages.success(request, _("Your colours' names are saved."))
    return redirect("notes:my_notes")


@login_required
@require_GET
def notes_download(request: HttpRequest) -> HttpResponse:
    """Everything the room keeps of the player's notes, as one JSON file (their data)."""
    payload = {
        "exported_at": timezone.now().isoformat(),
        "author": {"id": request.user.pk},
        **notes_export(author=request.user),
    }
    response = HttpResponse(
        json.dumps(payload, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = 'attachment; filename="my-notes.json"'
    return response
