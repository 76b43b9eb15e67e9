"""REST API for the player's own limits, exclusions and reality check (/api/responsible/).

Refusals are 400 `{"code", "message"}` (config.api); the rules are the services', so the API
can do nothing the page cannot.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from responsible.models import DepositLimit, Exclusion, TermsAcceptance
from responsible.rules import terms_current
from responsible.selectors import reality_check_for, responsible_summary
from responsible.services import (
    deposit_limit_set,
    exclusion_start,
    loss_limit_set,
    reality_check_set,
    session_limit_set,
    terms_accept,
)

REFUSED = OpenApiResponse(OpenApiTypes.OBJECT, description="refused: {code, message}")


class ResponsibleLimitSerializer(serializers.Serializer):
    period = serializers.ChoiceField(choices=DepositLimit.Period.values)
    limit = serializers.IntegerField(allow_null=True, help_text="cents in force; null: none")
    left = serializers.IntegerField(allow_null=True, help_text="cents left in the window")
    pending_amount = serializers.IntegerField(allow_null=True)
    pending_from = serializers.DateTimeField(allow_null=True)


class ResponsibleExclusionSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=Exclusion.Kind.values)
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()


class ResponsibleSessionLimitSerializer(serializers.Serializer):
    minutes = serializers.IntegerField(allow_null=True, help_text="in force; null: none")
    pending_minutes = serializers.IntegerField(allow_null=True)
    pending_from = serializers.DateTimeField(allow_null=True)


class ResponsibleSessionSerializer(serializers.Serializer):
    started_at = serializers.DateTimeField()
    seconds_played = serializers.IntegerField()
    net = serializers.IntegerField(help_text="cents won (+) or lost (-) this play session")
    limit_minutes = serializers.IntegerField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True, help_text="when it reaches the limit")
    reached = serializers.BooleanField()
    break_ends_at = serializers.DateTimeField(help_text="when the session ends with no play")


class ResponsibleSummarySerializer(serializers.Serializer):
    limits = ResponsibleLimitSerializer(many=True)
    loss_limits = ResponsibleLimitSerializer(
        many=True, help_text="net loss caps, poker and the banked game together"
    )
    session_limit = ResponsibleSessionLimitSerializer()
    session = ResponsibleSessionSerializer(
        allow_null=True, help_text="the play session running now; null: on a break"
    )
    exclusion = ResponsibleExclusionSerializer(allow_null=True)
    reality_check_minutes = serializers.IntegerField(allow_null=True)


class ResponsibleLimitRequestSerializer(serializers.Serializer):
    period = serializers.CharField()
    amount = serializers.JSONField(help_text="cents, or null to remove (waits 24 hours)")


class ResponsibleSessionLimitRequestSerializer(serializers.Serializer):
    minutes = serializers.JSONField(help_text="10 to 1440, or null to remove (waits 24 hours)")


class ResponsibleExclusionRequestSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="time_out or self_exclusion")
    length = serializers.JSONField(help_text="time_out: days 1-42; self_exclusion: 6m, 1y, 5y")


class ResponsibleRealityCheckSerializer(serializers.Serializer):
    interval_minutes = serializers.IntegerField(allow_null=True)
    session_started_at = serializers.DateTimeField()
    seconds_played = serializers.IntegerField()
    net = serializers.IntegerField(help_text="cents won (+) or lost (-) this session")


class ResponsibleRealityCheckRequestSerializer(serializers.Serializer):
    minutes = serializers.JSONField(help_text="10 to 240, or null for none")


def _summary(player) -> dict:
    summary = responsible_summary(player=player)
    exclusion = summary["exclusion"]
    for name in ("limits", "loss_limits"):
        summary[name] = [
            {key: value for key, value in limit.items() if key != "label"}
            for limit in summary[name]
        ]
    summary["exclusion"] = (
        None
        if exclusion is None
        else {
            "kind": exclusion.kind,
            "starts_at": exclusion.starts_at,
            "ends_at": exclusion.ends_at,
        }
    )
    return ResponsibleSummarySerializer(summary).data


class SummaryView(APIView):
    """The player's caps (in force, left, waiting), running exclusion and reminder interval."""

    @extend_schema(responses=ResponsibleSummarySerializer)
    def get(self, request: Request) -> Response:
        return Response(_summary(request.user))


class LimitView(APIView):
    @extend_schema(
        request=ResponsibleLimitRequestSerializer,
        responses={200: ResponsibleSummarySerializer, 400: REFUSED},
    )
    def post(self, request: Request) -> Response:
        """Set one period's cap: lower applies now, higher (or null) after 24 hours."""
        deposit_limit_set(
            player=request.user,
            period=request.data.get("period"),
            amount=request.data.get("amount"),
        )
        return Response(_summary(request.user))


class LossLimitView(APIView):
    @extend_schema(
        request=ResponsibleLimitRequestSerializer,
        responses={200: ResponsibleSummarySerializer, 400: REFUSED},
    )
    def post(self, request: Request) -> Response:
        """Set one period's net loss cap: lower applies now, higher (or null) after 24 hours.
        Reached, seats, buy-ins, top-ups and banked rounds are refused with `loss_limit`."""
        loss_limit_set(
            player=request.user,
            period=request.data.get("period"),
            amount=request.data.get("amount"),
        )
        return Response(_summary(request.user))


class SessionLimitView(APIView):
    @extend_schema(
        request=ResponsibleSessionLimitRequestSerializer,
        responses={200: ResponsibleSummarySerializer, 400: REFUSED},
    )
    def post(self, request: Request) -> Response:
        """Set the longest play session: lower applies now, higher (or null) after 24 hours.
        Reached, play is refused with `session_limit` until a break ends the session."""
        session_limit_set(player=request.user, minutes=request.data.get("minutes"))
        return Response(_summary(request.user))


class ExclusionView(APIView):
    @extend_schema(
        request=ResponsibleExclusionRequestSerializer,
        responses={201: ResponsibleSummarySerializer, 400: REFUSED},
    )
    def post(self, request: Request) -> Response:
        """Start a time-out or self-exclusion: ends every session and token, cannot be undone."""
        player = request.user
        exclusion_start(
            player=player, kind=request.data.get("kind"), length=request.data.get("length")
        )
        return Response(_summary(player), status=status.HTTP_201_CREATED)


class RealityCheckView(APIView):
    @extend_schema(responses=ResponsibleRealityCheckSerializer)
    def get(self, request: Request) -> Response:
        """What the table page's reminder shows; the session began at the player's login."""
        data = reality_check_for(player=request.user, session_started_at=request.user.last_login)
        return Response(ResponsibleRealityCheckSerializer(data).data)

    @extend_schema(
        request=ResponsibleRealityCheckRequestSerializer,
        responses={200: ResponsibleSummarySerializer, 400: REFUSED},
    )
    def put(self, request: Request) -> Response:
        reality_check_set(player=request.user, minutes=request.data.get("minutes"))
        return Response(_summary(request.user))


class TermsDocumentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField(help_text="terms or fair_play")
    version = serializers.IntegerField()
    title = serializers.CharField()
    body = serializers.CharField()
    published_at = serializers.DateTimeField()
    accepted_at = serializers.DateTimeField(allow_null=True, help_text="null: not accepted yet")


class TermsSerializer(serializers.Serializer):
    documents = TermsDocumentSerializer(many=True)
    accepted = serializers.BooleanField(help_text="false: play and deposits are refused")


class TermsAcceptRequestSerializer(serializers.Serializer):
    versions = serializers.ListField(
        child=serializers.IntegerField(), help_text="the ids of the documents not accepted yet"
    )


def _terms(player) -> dict:
    accepted = dict(
        TermsAcceptance.objects.filter(player=player).values_list("terms_id", "accepted_at")
    )
    documents = [
        {
            "id": version.pk,
            "kind": version.kind,
            "version": version.version,
            "title": version.title,
            "body": version.body,
            "published_at": version.published_at,
            "accepted_at": accepted.get(version.pk),
        }
        for version in terms_current()
    ]
    return TermsSerializer(
        {"documents": documents, "accepted": all(d["accepted_at"] for d in documents)}
    ).data


class TermsView(APIView):
    """The terms and fair-play policy in force, and whether the player accepted them: until
    they do, seats, wagers and deposits are refused with `terms_not_accepted`."""

    @extend_schema(responses=TermsSerializer)
    def get(self, request: Request) -> Response:
        return Response(_terms(request.user))

    @extend_schema(
        request=TermsAcceptRequestSerializer, responses={200: TermsSerializer, 400: REFUSED}
    )
    def post(self, request: Request) -> Response:
        """Accept the documents not accepted yet (all of them, by id; `terms_changed` if they
        are not the ones in force)."""
        terms_accept(player=request.user, versions=request.data.get("versions"))
        return Response(_terms(request.user))
