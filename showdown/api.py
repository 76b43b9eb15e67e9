"""REST API of the banked game: its tables, and the signed-in player's rounds (deal, decide,
read). Amounts are integer cents; refusals are 400 `{"code", "message"}` with nothing moved
(config.api.exception_handler). A round never carries its deck, nor the board before it is
settled."""

from __future__ import annotations

from django.http import QueryDict
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cashier.api import ErrorSerializer
from config.inputs import MAX_ID, parse_cents, parse_idempotency_key, parse_query_id
from showdown import selectors
from showdown.models import ShowdownRound, ShowdownTable
from showdown.selectors import round_commitment
from showdown.services import ShowdownRefused, round_deal, round_decide

IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    str,
    OpenApiParameter.HEADER,
    required=False,
    description="instead of idempotency_key in the body",
)


# -- shapes


class ShowdownPaytableSerializer(serializers.Serializer):
    kind = serializers.CharField()
    name = serializers.CharField()
    pays = serializers.DictField(child=serializers.IntegerField(), help_text='"X to 1"')
    edge_pct = serializers.FloatField(allow_null=True)
    hit_rate_pct = serializers.FloatField(allow_null=True)


class ShowdownTableSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    ante_min = serializers.IntegerField(help_text="cents")
    ante_max = serializers.IntegerField()
    hole_card_bonus_min = serializers.IntegerField()
    hole_card_bonus_max = serializers.IntegerField()
    final_hand_bonus_min = serializers.IntegerField()
    final_hand_bonus_max = serializers.IntegerField()
    max_aggregate_payout = serializers.IntegerField(
        allow_null=True, help_text="the most the house pays in winnings per round, cents"
    )
    seats = serializers.IntegerField(
        help_text="1: the online game, played through this API; 2-7: a live table, played "
        "over its socket /ws/showdown/<id>/ (docs/protocol.md)"
    )
    paytables = ShowdownPaytableSerializer(many=True)


class ShowdownRoundSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    table_id = serializers.IntegerField()
    status = serializers.CharField()
    ante = serializers.IntegerField()
    hole_card_bonus = serializers.IntegerField()
    final_hand_bonus = serializers.IntegerField()
    bet = serializers.IntegerField(help_text="the Call/Raise bet, 0 until decided")
    staked = serializers.IntegerField()
    hole = serializers.ListField(child=serializers.CharField())
    board = serializers.ListField(child=serializers.CharField(), help_text="once settled")
    decision = serializers.CharField(allow_blank=True)
    costs = serializers.DictField(
        child=serializers.IntegerField(), help_text="what call and raise cost, while dealt"
    )
    result = serializers.DictField(allow_null=True, help_text="the engine's seat result")
    net = serializers.IntegerField(allow_null=True)
    payout_capped = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    settled_at = serializers.DateTimeField(allow_null=True)
    voided_at = serializers.DateTimeField(allow_null=True)
    commitment = serializers.CharField(
        allow_null=True, help_text="SHA-256(salt || deck), fixed before the deal (fairness)"
    )
    check_url = serializers.CharField(help_text="the page that verifies the round once over")


class ShowdownDealSerializer(serializers.Serializer):
    table_id = serializers.IntegerField()
    ante = serializers.IntegerField(help_text="cents")
    hole_card_bonus = serializers.IntegerField(required=False, help_text="cents, 0 for none")
    final_hand_bonus = serializers.IntegerField(required=False, help_text="cents, 0 for none")
    idempotency_key = serializers.CharField(required=False)


class ShowdownDecideSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(choices=ShowdownRound.Decision.values)
    idempotency_key = serializers.CharField(required=False)


def table_data(table: ShowdownTable) -> dict:
    paytables = [
        table.bet_paytable,
        table.hole_card_bonus_paytable,
        table.final_hand_bonus_paytable,
    ]
    return {
        **{
            field: getattr(table, field)
            for field in ShowdownTableSerializer().fields
            if field not in ("paytables",)
        },
        "paytables": [
            {
                "kind": p.kind,
                "name": p.name,
                "pays": p.pays,
                "edge_pct": p.edge_pct,
                "hit_rate_pct": p.hit_rate_pct,
            }
            for p in paytables
        ],
    }


def round_data(round_: ShowdownRound) -> dict:
    dealt = round_.status == ShowdownRound.Status.DEALT
    return {
        "id": round_.pk,
        "table_id": round_.table_id,
        "status": round_.status,
        "ante": round_.ante,
        "hole_card_bonus": round_.hole_card_bonus,
        "final_hand_bonus": round_.final_hand_bonus,
        "bet": round_.bet,
        "staked": round_.staked,
        "hole": round_.hole,
        "board": round_.board,
        "decision": round_.decision,
        "costs": {"fold": 0, "call": round_.ante, "raise": 2 * round_.ante} if dealt else {},
        "result": round_.seat_result,
        "net": round_.net,
        "payout_capped": round_.payout_capped,
        "created_at": round_.created_at,
        "settled_at": round_.settled_at,
        "voided_at": round_.voided_at,
        "commitment": round_commitment(round_),
        "check_url": reverse("fairness:round", args=[round_.pk]),
    }


# -- inputs


def _body(request: Request) -> tuple[dict, bool]:
    """The body, and whether its values are text (a form) rather than JSON."""
    return request.data, isinstance(request.data, QueryDict)


def _key(request: Request, data: dict) -> str:
    return parse_idempotency_key(
        data.get("idempotency_key") or request.headers.get("Idempotency-Key"),
        error=ShowdownRefused,
    )


def _table_id(value, *, text: bool) -> int:
    """A table id from the body: a whole number (JSON) or digits (a form)."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_ID:
        return value
    if text and isinstance(value, str) and value:
        found = parse_query_id(value, name="table_id", error=ShowdownRefused)
        if found is not None:
            return found
    raise ShowdownRefused("bad_parameter", _("table_id must be the id of a Showdown table."))


def _cents(data: dict, field: str, *, text: bool, required: bool) -> int:
    value = data.get(field)
    if value in (None, "") and not required:
        return 0
    return parse_cents(
        value,
        field=field.replace("_", " "),
        text=text,
        minimum=1 if required else 0,
        error=ShowdownRefused,
    )


# -- views


class TablesView(APIView):
    """The open Omaha Showdown tables: limits, maximum aggregate payout and paytables."""

    @extend_schema(responses=ShowdownTableSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response([table_data(table) for table in selectors.tables_for_lobby()])


@extend_schema(responses={200: ShowdownRoundSerializer(many=True), 400: ErrorSerializer})
class RoundsView(ListAPIView):
    """The signed-in player's rounds, newest first (GET); deal a new round (POST)."""

    serializer_class = (
        ShowdownRoundSerializer  # for the schema and OPTIONS; rows come from round_data
    )

    def get_queryset(self):
        return selectors.player_rounds(player=self.request.user)

    def list(self, request: Request, *args, **kwargs) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response([round_data(r) for r in page])

    @extend_schema(
        request=ShowdownDealSerializer,
        parameters=[IDEMPOTENCY_KEY_HEADER],
        responses={201: ShowdownRoundSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        data, text = _body(request)
        table = selectors.table_for_play(_table_id(data.get("table_id"), text=text))
        if table is None:
            raise ShowdownRefused("unknown_table", _("No such open table."))
        round_ = round_deal(
            player=request.user,
            table=table,
            ante=_cents(data, "ante", text=text, required=True),
            hole_card_bonus=_cents(data, "hole_card_bonus", text=text, required=False),
            final_hand_bonus=_cents(data, "final_hand_bonus", text=text, required=False),
            idempotency_key=_key(request, data),
        )
        return Response(round_data(round_), status=status.HTTP_201_CREATED)


def _own_round(request: Request, round_id: int) -> ShowdownRound:
    round_ = ShowdownRound.objects.filter(pk=round_id, player=request.user).first()
    if round_ is None:
        raise NotFound("No such round.")
    return round_


class RoundView(APIView):
    """One of the player's rounds."""

    @extend_schema(responses={200: ShowdownRoundSerializer, 404: ErrorSerializer})
    def get(self, request: Request, round_id: int) -> Response:
        return Response(round_data(_own_round(request, round_id)))


class DecideView(APIView):
    """Fold, call or raise: the Bet goes in play, the board comes, every wager settles."""

    @extend_schema(
        request=ShowdownDecideSerializer,
        parameters=[IDEMPOTENCY_KEY_HEADER],
        responses={200: ShowdownRoundSerializer, 400: ErrorSerializer, 404: ErrorSerializer},
    )
    def post(self, request: Request, round_id: int) -> Response:
        data, _text = _body(request)
        round_ = _own_round(request, round_id)
        round_ = round_decide(
            player=request.user,
            round_id=round_.pk,
            decision=data.get("decision"),
            idempotency_key=_key(request, data),
        )
        return Response(round_data(round_))
