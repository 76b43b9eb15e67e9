"""REST API of a player's own hands (/api/hands/): the list with the page's filters, and one
hand as its record (histories/record.py). Another player's hand is a 404."""

import re

from django.http import Http404, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cashier.api import (
    NEXT_LINK,
    PAGE_PARAMETERS,
    RANGE_PARAMETERS,
    IsAuditor,
    _ExportView,
    served,
)
from config.api import PageNumberPagination400
from config.errors import Refused
from config.inputs import BAD_PARAMETER, BadInput, parse_query_range
from histories.exports import audit_ohh_zip_stream
from histories.forms import HandFilterForm
from histories.record import HandNotFound, hand_record
from histories.selectors import (
    AUDIT_HAND_COLUMNS,
    hand_lines,
    hands_for_audit_chunks,
    player_hands,
)

REFUSED = OpenApiResponse(OpenApiTypes.OBJECT, description="refused: {code, message}")
AFTER_HAND_SEAT = re.compile(r"^[0-9]{1,18}\.[0-9]{1,2}$")


class HandsRefused(Refused):
    """A filter of the list that is not one."""


class HandLineSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the hand's public id, as everywhere ('Hand #id')")
    table = serializers.DictField()
    game = serializers.CharField()
    game_label = serializers.CharField()
    structure = serializers.CharField()
    stakes_label = serializers.CharField()
    started_at = serializers.DateTimeField()
    status = serializers.CharField(help_text="finished or cancelled")
    seat = serializers.IntegerField()
    net = serializers.IntegerField(allow_null=True, help_text="cents won (+) or lost (-)")
    rake = serializers.IntegerField(help_text="cents the hand paid in rake")
    board = serializers.ListField(child=serializers.CharField())


class HandListView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("table", int),
            OpenApiParameter("game", str, enum=["omaha", "omaha8"]),
            OpenApiParameter("since", OpenApiTypes.DATE),
            OpenApiParameter("until", OpenApiTypes.DATE),
            OpenApiParameter("result", str, enum=["won", "lost", "even", "cancelled"]),
            OpenApiParameter("page", int),
        ],
        responses={200: HandLineSerializer(many=True), 400: REFUSED},
        operation_id="hands_list",
    )
    def get(self, request: Request) -> Response:
        form = HandFilterForm(request.query_params)
        if not form.is_valid():
            field, errors = next(iter(form.errors.items()))
            raise HandsRefused("bad_filter", f"{field}: {errors[0]}")
        paginator = PageNumberPagination400()
        rows = paginator.paginate_queryset(
            player_hands(player=request.user, **form.filters()), request, view=self
        )
        return paginator.get_paginated_response(hand_lines(rows))


class HandDetailView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT, 404: REFUSED}, operation_id="hands_read")
    def get(self, request: Request, hand_id: int) -> Response:
        try:
            return Response(hand_record(hand_id=hand_id, viewer=request.user))
        except HandNotFound:
            raise Http404("No such hand among yours.") from None


class HandsAuditExportView(_ExportView):
    """Auditors: every hand that ended in the range, one row a player dealt in, with every
    card (the hand is over), the player's net, the hand's rake and its ledger entry; read-only,
    JSON in pages (`limit`, `after`, the Link header) or ?format=csv streamed, beside the
    ledger's exports (/api/cashier/audit/)."""

    export_name = "hands"
    paged = True
    csv_columns = AUDIT_HAND_COLUMNS

    @extend_schema(
        parameters=[*RANGE_PARAMETERS, *PAGE_PARAMETERS],
        responses={200: NEXT_LINK, 400: REFUSED, 403: REFUSED},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def parse_after(self, request: Request) -> tuple[int, int] | None:
        """The cursor `<hand>.<seat>` of the last row before the page."""
        after = request.query_params.get("after", "")
        if not after:
            return None
        if not AFTER_HAND_SEAT.match(after):
            raise BadInput(BAD_PARAMETER, f"'after' is not a cursor: {after[:40]!r}.")
        hand, seat = after.split(".")
        return int(hand), int(seat)

    def chunks(self, request: Request, *, as_csv: bool, after, limit: int | None):
        date_from, date_to = parse_query_range(request.query_params)
        chunks = hands_for_audit_chunks(
            date_from=date_from, date_to=date_to, after=after, limit=limit
        )
        if not as_csv:
            return chunks
        return (
            [{k: " ".join(v) if isinstance(v, list) else v for k, v in row.items()} for row in rows]
            for rows in chunks
        )

    def cursor(self, row: dict) -> str:
        return f"{row['hand']}.{row['seat']}"


class HandsAuditOhhView(APIView):
    """Auditors: the range's hands as Open Hand History files with every card, in a zip."""

    permission_classes = [IsAuditor]

    def permission_denied(self, request, message=None, code=None):
        raise PermissionDenied(detail=message or IsAuditor.message)  # 403, never 401

    @extend_schema(
        parameters=RANGE_PARAMETERS[:2],
        responses={(200, "application/zip"): OpenApiTypes.BINARY, 403: REFUSED},
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        date_from, date_to = parse_query_range(request.query_params)
        name, parts = audit_ohh_zip_stream(date_from=date_from, date_to=date_to)
        response = StreamingHttpResponse(served(request, parts), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response
