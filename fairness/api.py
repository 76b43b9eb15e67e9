"""REST API for a player's client seed and the check of a deal they were dealt in
(/api/fairness/). Refusals are 400 `{"code", "message"}` (config.api); an unknown deal, or
another player's, is a 404 that says the same either way."""

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from fairness.selectors import client_seed_of, hand_check, round_check
from fairness.services import FairnessRefused, client_seed_set

REFUSED = OpenApiResponse(OpenApiTypes.OBJECT, description="refused: {code, message}")


class ClientSeedSerializer(serializers.Serializer):
    seed = serializers.CharField(allow_null=True, help_text="null until the first deal draws one")
    chosen = serializers.BooleanField(help_text="set by the player (false: drawn by the room)")


class ClientSeedRequestSerializer(serializers.Serializer):
    seed = serializers.CharField(help_text="1-64 printable ASCII characters, no spaces")


class DealCheckSerializer(serializers.Serializer):
    kind = serializers.CharField()
    id = serializers.IntegerField()
    title = serializers.CharField()
    commitment = serializers.CharField(help_text="SHA-256(salt || deck), sent before the deal")
    committed_at = serializers.DateTimeField()
    over = serializers.BooleanField()
    revealed = serializers.BooleanField(help_text="the fields below only once the deal is over")
    revealed_at = serializers.DateTimeField(required=False)
    deck = serializers.CharField(required=False, help_text="104 characters, dealing order")
    salt = serializers.CharField(required=False)
    server_seed = serializers.CharField(required=False)
    client_seeds = serializers.DictField(child=serializers.CharField(), required=False)
    dealt = serializers.DictField(child=serializers.CharField(), required=False)
    ok = serializers.BooleanField(required=False)
    checks = serializers.ListField(child=serializers.DictField(), required=False)


def _seed(player) -> dict:
    row = client_seed_of(player=player)
    return {"seed": row.seed if row else None, "chosen": bool(row and row.chosen)}


class ClientSeedView(APIView):
    @extend_schema(responses=ClientSeedSerializer, operation_id="fairness_seed_read")
    def get(self, request: Request) -> Response:
        return Response(_seed(request.user))

    @extend_schema(
        request=ClientSeedRequestSerializer,
        responses={200: ClientSeedSerializer, 400: REFUSED},
        operation_id="fairness_seed_set",
    )
    def put(self, request: Request) -> Response:
        client_seed_set(player=request.user, seed=request.data.get("seed"))
        return Response(_seed(request.user))


class HandCheckView(APIView):
    @extend_schema(responses={200: DealCheckSerializer, 404: REFUSED})
    def get(self, request: Request, hand_id: int) -> Response:
        try:
            return Response(hand_check(hand_id=hand_id, viewer=request.user).to_dict())
        except FairnessRefused as error:
            raise Http404(error.message) from None


class RoundCheckView(APIView):
    @extend_schema(responses={200: DealCheckSerializer, 404: REFUSED})
    def get(self, request: Request, round_id: int) -> Response:
        try:
            return Response(round_check(round_id=round_id, viewer=request.user).to_dict())
        except FairnessRefused as error:
            raise Http404(error.message) from None
