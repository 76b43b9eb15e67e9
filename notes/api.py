"""REST API of the player's own notes on other players (/api/notes/).

Every answer is the signed-in author's own notes only; another author's never, whoever asks.
The table page reads the notes of the players it shows from here (`?players=`), and its note
editor writes through `PUT` (docs/protocol.md "Player notes"). Refusals are 400
`{"code", "message"}` (config.api), and nothing is changed by one.
"""

from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.inputs import BAD_PARAMETER, parse_query_id
from notes.models import LABEL_MAX_LENGTH, NOTE_MAX_LENGTH, NOTES_PER_AUTHOR, Colour
from notes.selectors import note_of, notes_count, notes_of, palette_for
from notes.services import NoteRefused, note_delete, note_set, tag_label_set

REFUSED = OpenApiResponse(OpenApiTypes.OBJECT, description="refused: {code, message}")
# The most players one `?players=` asks about: a table has at most 10 seats.
PLAYERS_PER_QUERY = 50


class PaletteEntrySerializer(serializers.Serializer):
    colour = serializers.ChoiceField(choices=Colour.values)
    label = serializers.CharField(help_text="the author's name for it, else `name`")
    name = serializers.CharField(help_text="the colour's own name, in the reader's language")
    named = serializers.BooleanField(help_text="the author named it")


class NotedPlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    display_name = serializers.CharField()


class NoteSerializer(serializers.Serializer):
    player = NotedPlayerSerializer()
    text = serializers.CharField(allow_blank=True, max_length=NOTE_MAX_LENGTH)
    colour = serializers.CharField(allow_blank=True, help_text="a palette colour, or ''")
    label = serializers.CharField(allow_blank=True, help_text="the colour's name, or ''")
    updated_at = serializers.DateTimeField()


class NotesSerializer(serializers.Serializer):
    palette = PaletteEntrySerializer(many=True)
    notes = NoteSerializer(many=True)
    count = serializers.IntegerField(help_text="how many notes the author keeps in all")
    limits = serializers.DictField(child=serializers.IntegerField())


class NoteRequestSerializer(serializers.Serializer):
    text = serializers.JSONField(help_text=f"at most {NOTE_MAX_LENGTH} characters; '' for none")
    colour = serializers.JSONField(help_text="a palette colour, or '' / null for none")


class LabelRequestSerializer(serializers.Serializer):
    colour = serializers.JSONField()
    label = serializers.JSONField(help_text=f"at most {LABEL_MAX_LENGTH}; '' for the default")


def _players_param(raw: str | None) -> list[int] | None:
    if raw is None:
        return None
    parts = [part for part in raw.split(",") if part]
    if len(parts) > PLAYERS_PER_QUERY:
        raise NoteRefused(
            BAD_PARAMETER,
            _("'players' names at most %(most)s ids at a time.") % {"most": PLAYERS_PER_QUERY},
        )
    return [parse_query_id(part, name="players", error=NoteRefused) or 0 for part in parts]


def _notes(request: Request, player_ids: list[int] | None = None) -> dict:
    author = request.user
    return NotesSerializer(
        {
            "palette": palette_for(author=author),
            "notes": notes_of(author=author, player_ids=player_ids),
            "count": notes_count(author=author),
            "limits": {
                "note_length": NOTE_MAX_LENGTH,
                "label_length": LABEL_MAX_LENGTH,
                "notes": NOTES_PER_AUTHOR,
            },
        }
    ).data


class NotesView(APIView):
    """The author's palette and notes: all of them, or those on `?players=3,7,12`."""

    @extend_schema(
        parameters=[OpenApiParameter("players", str, description="comma-separated player ids")],
        responses={200: NotesSerializer, 400: REFUSED},
        operation_id="notes_list",
    )
    def get(self, request: Request) -> Response:
        return Response(_notes(request, _players_param(request.query_params.get("players"))))


class NoteView(APIView):
    """One note on one player (by the player's id, as the tables show it)."""

    @extend_schema(responses={200: NoteSerializer, 404: REFUSED}, operation_id="notes_read")
    def get(self, request: Request, player_id: int) -> Response:
        note = note_of(author=request.user, player_id=player_id)
        if note is None:
            raise Http404("No note on this player.")
        return Response(NoteSerializer(note).data)

    @extend_schema(
        request=NoteRequestSerializer,
        responses={200: NoteSerializer, 204: None, 400: REFUSED},
        operation_id="notes_write",
    )
    def put(self, request: Request, player_id: int) -> Response:
        """Write the note and tag; empty text and no colour removes it (204)."""
        note = note_set(
            author=request.user,
            player_id=player_id,
            text=request.data.get("text", ""),
            colour=request.data.get("colour", ""),
        )
        if note is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(NoteSerializer(note_of(author=request.user, player_id=player_id)).data)

    @extend_schema(responses={204: None, 404: REFUSED}, operation_id="notes_delete")
    def delete(self, request: Request, player_id: int) -> Response:
        if not note_delete(author=request.user, player_id=player_id):
            raise Http404("No note on this player.")
        return Response(status=status.HTTP_204_NO_CONTENT)


class PaletteView(APIView):
    """Name a colour of the palette (PokerStars' colour labels)."""

    @extend_schema(
        request=LabelRequestSerializer,
        responses={200: PaletteEntrySerializer(many=True), 400: REFUSED},
        operation_id="notes_palette_name",
    )
    def put(self, request: Request) -> Response:
        tag_label_set(
            author=request.user,
            colour=request.data.get("colour"),
            label=request.data.get("label", ""),
        )
        return Response(PaletteEntrySerializer(palette_for(author=request.user), many=True).data)
