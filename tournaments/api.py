"""REST API of Sit & Gos: the open ones, one Sit & Go's live state (open to everyone, as its
page is: the page polls it), and the signed-in player's register and unregister.

Amounts are integer cents. A refusal (no funds, full, started, registered already, a time-out,
a forged id) is a 400 with `{"code", "message"}` and changed nothing (config.api renders the
`Refused` the service raised).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cashier.api import ErrorSerializer
from cashier.selectors import wallet_balance
from config.inputs import MAX_KEY_LENGTH
from tournaments.models import Registration
from tournaments.selectors import sit_and_go_page, sit_and_gos_for_lobby
from tournaments.services import tournament_register, tournament_unregister


class SitAndGoSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField(help_text="omaha or omaha8")
    structure = serializers.CharField(help_text="limit or pot-limit")
    game_label = serializers.CharField()
    seats = serializers.IntegerField()
    registered = serializers.IntegerField(help_text="players registered")
    buy_in = serializers.IntegerField(help_text="cents, to the prize pool")
    fee = serializers.IntegerField(help_text="cents, the house's")
    starting_chips = serializers.IntegerField()
    status = serializers.CharField(help_text="registering or running")
    is_registered = serializers.BooleanField(help_text="the signed-in player is registered")


class LivePlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    display_name = serializers.CharField()
    chips = serializers.IntegerField(help_text="tournament chips while in; 0 once out")
    place = serializers.IntegerField(allow_null=True, help_text="once out, or at the end")
    prize = serializers.IntegerField(help_text="cents")


class LivePrizeSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    percent = serializers.IntegerField()
    amount = serializers.IntegerField(help_text="cents")


class SitAndGoLiveSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField(help_text="registering, running, finished or cancelled")
    level = serializers.IntegerField(help_text="1-based; 0 before the start")
    levels = serializers.IntegerField()
    small_blind = serializers.IntegerField(allow_null=True, help_text="chips, at the level")
    big_blind = serializers.IntegerField(allow_null=True)
    ante = serializers.IntegerField(allow_null=True)
    next_level_at = serializers.CharField(
        allow_null=True, help_text="ISO 8601 while it runs (a break's end during a break)"
    )
    next_small_blind = serializers.IntegerField(allow_null=True)
    next_big_blind = serializers.IntegerField(allow_null=True)
    on_break = serializers.BooleanField(help_text="its table is on a break")
    entrants = serializers.IntegerField()
    players_left = serializers.IntegerField()
    places_paid = serializers.IntegerField()
    pool = serializers.IntegerField(help_text="cents")
    players = LivePlayerSerializer(many=True, help_text="those in by chips, then by place")
    prizes = LivePrizeSerializer(many=True)


class RegisterRequestSerializer(serializers.Serializer):
    idempotency_key = serializers.CharField(
        required=False,
        min_length=1,
        max_length=MAX_KEY_LENGTH,
        help_text="unique per request; resending it registers once (required here or in the "
        "Idempotency-Key header)",
    )


class RegistrationSerializer(serializers.Serializer):
    tournament_id = serializers.IntegerField()
    status = serializers.CharField(help_text="active, unregistered, excluded or cancelled")
    tournament_status = serializers.CharField()
    buy_in = serializers.IntegerField(help_text="cents")
    fee = serializers.IntegerField(help_text="cents")
    entry_id = serializers.IntegerField(help_text="the ledger entry of the buy-in")
    refund_entry_id = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True, help_text="drawn when it starts")
    balance = serializers.IntegerField(help_text="wallet balance in cents afterwards")


IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    str,
    location=OpenApiParameter.HEADER,
    required=False,
    description="the idempotency key, when the body has none",
)


def _registration_payload(registration: Registration, *, player) -> dict:
    registration.tournament.refresh_from_db(fields=["status"])
    return {
        "tournament_id": registration.tournament_id,
        "status": registration.status,
        "tournament_status": registration.tournament.status,
        "buy_in": registration.buy_in,
        "fee": registration.fee,
        "entry_id": registration.entry_id,
        "refund_entry_id": registration.refund_entry_id,
        "seat": registration.seat,
        "balance": wallet_balance(player=player),
    }


class SitAndGoListView(APIView):
    """The Sit & Gos open for registration, and the running ones the player is in."""

    @extend_schema(responses=SitAndGoSerializer(many=True))
    def get(self, request: Request) -> Response:
        rows = sit_and_gos_for_lobby(player=request.user)
        return Response(SitAndGoSerializer(rows, many=True).data)


class SitAndGoLiveView(APIView):
    """One Sit & Go as its page shows it, for the page to poll while it runs: the level, the
    blinds, the next level's time, the players' chips and places, the places paid."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: SitAndGoLiveSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        page = sit_and_go_page(tournament_id=tournament_id, player=request.user)
        if page is None:
            raise NotFound("No such tournament.")
        tournament, running = page.tournament, page.running
        level, following = page.level, page.next_level if running else None
        payload = {
            "id": tournament.pk,
            "status": tournament.status,
            "level": tournament.level,
            "levels": len(page.levels),
            "small_blind": level.small_blind if level else None,
            "big_blind": level.big_blind if level else None,
            "ante": level.ante if level else None,
            "next_level_at": tournament.next_level_at.isoformat()
            if running and tournament.next_level_at
            else None,
            "next_small_blind": following.small_blind if following else None,
            "next_big_blind": following.big_blind if following else None,
            "on_break": page.on_break,
            "entrants": page.entrants,
            "players_left": page.playing if running else 0,
            "places_paid": len(page.percents),
            "pool": page.pool,
            "players": [
                {
                    "id": p.player_id,
                    "display_name": p.name,
                    "chips": 0 if p.place else p.chips,
                    "place": p.place,
                    "prize": p.prize,
                }
                for p in page.players
            ],
            "prizes": page.prizes,
        }
        return Response(SitAndGoLiveSerializer(payload).data)


class RegisterView(APIView):
    """Register for a Sit & Go: its buy-in and fee leave the wallet in one ledger entry."""

    @extend_schema(
        request=RegisterRequestSerializer,
        parameters=[IDEMPOTENCY_KEY_HEADER],
        responses={201: RegistrationSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        key = request.data.get("idempotency_key") or request.headers.get("Idempotency-Key")
        registration = tournament_register(
            player=request.user, tournament=tournament_id, idempotency_key=key
        )
        return Response(
            _registration_payload(registration, player=request.user),
            status=status.HTTP_201_CREATED,
        )


class UnregisterView(APIView):
    """Unregister before the start: the buy-in and fee back to the wallet in one entry."""

    @extend_schema(request=None, responses={200: RegistrationSerializer, 400: ErrorSerializer})
    def post(self, request: Request, tournament_id: int) -> Response:
        registration = tournament_unregister(player=request.user, tournament=tournament_id)
        return Response(_registration_payload(registration, player=request.user))
