"""REST API: a player's own wallet, deposits, withdrawals and history; auditors' exports.

Amounts are integer cents. Refusals come back as 400 with `{"code", "message"}`; nothing moved
(a `Refused` raised here or in a service is rendered by config.api.exception_handler).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIRequest
from django.http import QueryDict, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import ListAPIView
from rest_framework.permissions import BasePermission
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.anchor import anchor_of_head
from cashier import audit
from cashier.models import Account
from cashier.selectors import player_postings, wallet_balance
from cashier.services import wallet_deposit, wallet_withdraw
from config.csv_cells import csv_escape_row
from config.inputs import (
    BAD_PARAMETER,
    MAX_CENTS,
    MAX_KEY_LENGTH,
    BadInput,
    parse_cents,
    parse_idempotency_key,
    parse_query_date,
    parse_query_id,
    parse_query_range,
)

# -- shapes


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()


class DetailSerializer(serializers.Serializer):
    detail = serializers.CharField()


class StackSerializer(serializers.Serializer):
    table_id = serializers.IntegerField()
    table = serializers.CharField()
    balance = serializers.IntegerField(help_text="cents")
    in_hand = serializers.BooleanField()


class WalletSerializer(serializers.Serializer):
    balance = serializers.IntegerField(help_text="wallet balance in cents")
    stacks = StackSerializer(many=True)


# The body's shape for the schema; the view checks it with config.inputs.
class MoveRequestSerializer(serializers.Serializer):
    amount = serializers.IntegerField(
        min_value=1, max_value=MAX_CENTS, help_text="cents, a whole number above zero"
    )
    idempotency_key = serializers.CharField(
        required=False,
        min_length=1,
        max_length=MAX_KEY_LENGTH,
        help_text="printable text, unique per request; resending it moves the money once "
        "(required here or in the Idempotency-Key header)",
    )


IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key",
    str,
    location=OpenApiParameter.HEADER,
    required=False,
    description="the idempotency key, when the body has none",
)


class MoveResultSerializer(serializers.Serializer):
    entry_id = serializers.IntegerField()
    reason = serializers.CharField(
        help_text="deposit, withdrawal, or withdrawal_held: a withdrawal waiting for identity "
        "checks (its money held out of the wallet until compliance staff approve it)"
    )
    amount = serializers.IntegerField()
    balance = serializers.IntegerField(help_text="wallet balance in cents afterwards")


class TransactionSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="posting id")
    entry_id = serializers.IntegerField()
    created_at = serializers.DateTimeField(source="entry.created_at")
    reason = serializers.CharField(source="entry.reason")
    account = serializers.CharField(source="account.kind")
    table = serializers.CharField(source="account.table.name", default=None)
    hand_id = serializers.IntegerField(source="entry.hand_id", allow_null=True)
    amount = serializers.IntegerField(help_text="cents: + into the account, - out of it")


# -- the player's own money


class WalletView(APIView):
    """The signed-in player's wallet and table stacks."""

    @extend_schema(responses=WalletSerializer)
    def get(self, request: Request) -> Response:
        stacks = Account.objects.filter(
            kind=Account.Kind.TABLE_STACK, owner=request.user, balance__gt=0
        ).select_related("table")
        return Response(
            {
                "balance": wallet_balance(player=request.user),
                "stacks": [
                    {
                        "table_id": s.table_id,
                        "table": s.table.name,
                        "balance": s.balance,
                        "in_hand": s.in_hand_id is not None,
                    }
                    for s in stacks
                ],
            }
        )


class _MoveView(APIView):
    service = None
    reason = ""

    def post(self, request: Request) -> Response:
        # The parser guarantees an object: a JSON dict, or a QueryDict from a form, whose
        # values are text (so digit strings are amounts there, and only there).
        data = request.data
        amount = parse_cents(data.get("amount"), text=isinstance(data, QueryDict))
        key = parse_idempotency_key(
            data.get("idempotency_key") or request.headers.get("Idempotency-Key")
        )
        entry = type(self).service(player=request.user, amount=amount, idempotency_key=key)
        amount = abs(entry.postings.filter(account__kind=Account.Kind.WALLET).get().amount)
        return Response(
            {
                "entry_id": entry.pk,
                "reason": entry.reason,
                "amount": amount,
                "balance": wallet_balance(player=request.user),
            },
            status=status.HTTP_201_CREATED,
        )


class DepositView(_MoveView):
    """Deposit play money into the wallet (a pretend payment provider)."""

    service = staticmethod(wallet_deposit)

    @extend_schema(
        request=MoveRequestSerializer,
        parameters=[IDEMPOTENCY_KEY_HEADER],
        responses={201: MoveResultSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


class WithdrawView(_MoveView):
    """Withdraw from the wallet; never more than it holds. Above the room's thresholds a player
    whose identity is not checked yet gets `withdrawal_held`: the money waits (docs/rules.md)."""

    service = staticmethod(wallet_withdraw)

    @extend_schema(
        request=MoveRequestSerializer,
        parameters=[IDEMPOTENCY_KEY_HEADER],
        responses={201: MoveResultSerializer, 400: ErrorSerializer},
    )
    def post(self, request: Request) -> Response:
        return super().post(request)


@extend_schema(
    responses={
        200: TransactionSerializer(many=True),
        400: ErrorSerializer,
        404: DetailSerializer,  # a page past the last one
    }
)
class TransactionsView(ListAPIView):
    """The signed-in player's own history (wallet and table stacks), newest first."""

    serializer_class = TransactionSerializer

    def get_queryset(self):
        return player_postings(player=self.request.user)


# -- auditors


class IsAuditor(BasePermission):
    message = "Only members of the auditors group may export the ledger."

    def has_permission(self, request, view) -> bool:
        return audit.is_auditor(request.user)


class CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if isinstance(data, dict):  # an error body
            data = [data]
        out = io.StringIO()
        columns: list[str] = []
        for row in data:
            columns.extend(k for k in row if k not in columns)
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(csv_escape_row(row) for row in data)
        return out.getvalue().encode()


def _parse_date(request: Request, name: str) -> date | None:
    return parse_query_date(request.query_params.get(name), name=name)


def _parse_range(request: Request) -> tuple[date | None, date | None]:
    """`?from=&to=`: a reversed range is a 400 in every export."""
    return parse_query_range(request.query_params)


def _parse_int(request: Request, name: str) -> int | None:
    return parse_query_id(request.query_params.get(name), name=name)


RANGE_PARAMETERS = [
    OpenApiParameter("from", OpenApiTypes.DATE, description="first UTC day, inclusive"),
    OpenApiParameter("to", OpenApiTypes.DATE, description="last UTC day, inclusive"),
    OpenApiParameter("format", str, enum=["json", "csv"], description="json (default) or csv"),
]

# What an export answers in JSON: a bare array of row objects (a page of it for the exports
# that page, with the next page's address in the Link header).
ROWS_SCHEMA = {"type": "array", "items": {"type": "object", "additionalProperties": True}}
EXPORT_ROWS = OpenApiResponse(
    response=ROWS_SCHEMA,
    description="a JSON array of rows (or, with ?format=csv, CSV text)",
)
PAGE_SIZE = 1000
PAGE_MOST = 10_000
NEXT_LINK = OpenApiResponse(
    response=ROWS_SCHEMA,
    description=f"a JSON array of at most `limit` rows (default {PAGE_SIZE}); when more "
    'follow, the Link header names the next page: `<url>; rel="next"` (a cursor in '
    "`after`). With ?format=csv, every row from `after` on, streamed.",
)
PAGE_PARAMETERS = [
    OpenApiParameter(
        "limit", int, description=f"rows a JSON page holds, 1 to {PAGE_MOST} (default {PAGE_SIZE})"
    ),
    OpenApiParameter("after", str, description="the cursor of the Link header's next page"),
]


class ManifestSerializer(serializers.Serializer):
    export = serializers.CharField()
    filters = serializers.DictField()
    generated_at = serializers.DateTimeField()
    counts = serializers.DictField(help_text="rows and totals, counted by the database")
    anchor = serializers.DictField(
        help_text="the audit chain's head, signed: seq, hash, at, signature (audit/anchor.py)"
    )


def _csv_stream(columns: tuple[str, ...], chunks: Iterator[list[dict]]) -> Iterator[bytes]:
    """CSV text one chunk of rows at a time, cells escaped like CSVRenderer's."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    yield out.getvalue().encode()
    for rows in chunks:
        out.seek(0)
        out.truncate()
        writer.writerows(csv_escape_row(row) for row in rows)
        yield out.getvalue().encode()


def served(request: Request, parts: Iterator[bytes]):
    """Under ASGI, Django buffers a sync iterator whole before sending it: hand it an async
    one that reads the next part in the request's own thread (its database connection)."""
    if not isinstance(request._request, ASGIRequest):
        return parts
    step = sync_to_async(lambda: next(parts, None), thread_sensitive=True)

    async def stream():
        while (part := await step()) is not None:
            yield part

    return stream()


class _ExportView(APIView):
    permission_classes = [IsAuditor]
    renderer_classes = [JSONRenderer, CSVRenderer]
    export_name = "export"
    # Exports that grow without bound (the journal, the audit log, adjustments) page their
    # JSON by a cursor and stream their CSV: they define `chunks`, `cursor`, `csv_columns`.
    paged = False
    csv_columns: tuple[str, ...] = ()

    def permission_denied(self, request, message=None, code=None):
        # Anonymous users get 403 too (not 401): the exports are never public.
        raise PermissionDenied(detail=message or IsAuditor.message)

    def rows(self, request: Request, as_csv: bool) -> list[dict]:
        raise NotImplementedError

    def chunks(self, request: Request, *, as_csv: bool, after, limit: int | None):
        """Check the filters now (a bad one is a 400 before anything is sent) and return an
        iterator of row lists."""
        raise NotImplementedError

    def cursor(self, row: dict) -> str:
        raise NotImplementedError

    def parse_after(self, request: Request):
        return _parse_int(request, "after")

    def get(self, request: Request) -> Response:
        as_csv = request.accepted_renderer.format == "csv"
        # A bad filter raises BadInput: 400 `bad_parameter` (config.api.exception_handler).
        if not self.paged:
            response = Response(self.rows(request, as_csv))
        elif as_csv:
            after = self.parse_after(request)
            chunks = self.chunks(request, as_csv=True, after=after, limit=None)
            response = StreamingHttpResponse(
                served(request, _csv_stream(self.csv_columns, chunks)),
                content_type="text/csv; charset=utf-8",
            )
        else:
            limit = _parse_int(request, "limit") or PAGE_SIZE
            if limit > PAGE_MOST:
                raise BadInput(BAD_PARAMETER, f"'limit' is at most {PAGE_MOST}.")
            after = self.parse_after(request)
            rows = []
            for chunk in self.chunks(request, as_csv=False, after=after, limit=limit + 1):
                rows.extend(chunk)
            response = Response(rows[:limit])
            if len(rows) > limit:
                query = request.query_params.copy()
                query["after"] = self.cursor(rows[limit - 1])
                url = request.build_absolute_uri(f"{request.path}?{query.urlencode()}")
                response["Link"] = f'<{url}>; rel="next"'
        if as_csv:
            response["Content-Disposition"] = f'attachment; filename="{self.export_name}.csv"'
        return response


class _ManifestView(APIView):
    """What an export of the same filters holds, counted by the database, with the audit
    chain's head signed (an anchor): download it with the export and keep both."""

    permission_classes = [IsAuditor]
    export_name = "export"

    def permission_denied(self, request, message=None, code=None):
        raise PermissionDenied(detail=message or IsAuditor.message)

    def counts(self, request: Request) -> tuple[dict, dict]:
        """(the filters as read, the counts)"""
        raise NotImplementedError

    def get(self, request: Request) -> Response:
        filters, counts = self.counts(request)
        return Response(
            {
                "export": self.export_name,
                "filters": {k: str(v) for k, v in filters.items() if v not in (None, "")},
                "generated_at": datetime.now(UTC).isoformat(),
                "counts": counts,
                "anchor": anchor_of_head(),
            }
        )


class JournalExportView(_ExportView):
    """The journal: entries with their postings (JSON nested, in pages; CSV one row per
    posting, streamed)."""

    export_name = "journal"
    paged = True
    csv_columns = audit.JOURNAL_COLUMNS

    @extend_schema(
        parameters=[
            *RANGE_PARAMETERS,
            OpenApiParameter("account", int, description="only entries touching this account"),
            *PAGE_PARAMETERS,
        ],
        responses={200: NEXT_LINK, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def chunks(self, request, *, as_csv, after, limit):
        date_from, date_to = _parse_range(request)
        chunks = audit.journal_chunks(
            date_from=date_from,
            date_to=date_to,
            account_id=_parse_int(request, "account"),
            after=after,
            limit=limit,
        )
        return (audit.journal_flat(rows) for rows in chunks) if as_csv else chunks

    def cursor(self, row):
        return str(row["entry_id"])


class JournalManifestView(_ManifestView):
    export_name = "journal"

    @extend_schema(
        parameters=[*RANGE_PARAMETERS[:2], OpenApiParameter("account", int)],
        responses={200: ManifestSerializer, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def counts(self, request):
        date_from, date_to = _parse_range(request)
        filters = {"from": date_from, "to": date_to, "account": _parse_int(request, "account")}
        return filters, audit.journal_manifest(
            date_from=date_from, date_to=date_to, account_id=filters["account"]
        )


ADJUSTMENT_STATUSES = ("pending", "posted", "rejected")


def _parse_status(request: Request) -> str:
    status_ = request.query_params.get("status", "")
    if status_ and status_ not in ADJUSTMENT_STATUSES:
        raise BadInput(BAD_PARAMETER, "'status' is pending, posted or rejected.")
    return status_


class AdjustmentsExportView(_ExportView):
    """Staff balance adjustment requests asked for in the range, whatever became of them."""

    export_name = "adjustments"
    paged = True
    csv_columns = audit.ADJUSTMENT_COLUMNS

    @extend_schema(
        parameters=[
            *RANGE_PARAMETERS,
            OpenApiParameter("status", str, enum=list(ADJUSTMENT_STATUSES)),
            *PAGE_PARAMETERS,
        ],
        responses={200: NEXT_LINK, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def chunks(self, request, *, as_csv, after, limit):
        date_from, date_to = _parse_range(request)
        return audit.adjustment_chunks(
            date_from=date_from,
            date_to=date_to,
            status=_parse_status(request),
            after=after,
            limit=limit,
        )

    def cursor(self, row):
        return str(row["adjustment_id"])


class AdjustmentsManifestView(_ManifestView):
    export_name = "adjustments"

    @extend_schema(
        parameters=[*RANGE_PARAMETERS[:2], OpenApiParameter("status", str)],
        responses={200: ManifestSerializer, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def counts(self, request):
        date_from, date_to = _parse_range(request)
        filters = {"from": date_from, "to": date_to, "status": _parse_status(request)}
        return filters, audit.adjustments_manifest(
            date_from=date_from, date_to=date_to, status=filters["status"]
        )


class BalancesExportView(_ExportView):
    """Every account's balance at the end of a UTC day (or now), from the postings."""

    export_name = "balances"

    @extend_schema(
        parameters=[
            OpenApiParameter("at", OpenApiTypes.DATE, description="end of this UTC day"),
            OpenApiParameter("account", int, description="only this account"),
            OpenApiParameter("format", str, enum=["json", "csv"]),
        ],
        responses={200: EXPORT_ROWS, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def rows(self, request, as_csv):
        day = _parse_date(request, "at")
        at = (
            datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)
            if day
            else datetime.now(UTC)
        )
        return audit.balances_at(at=at, account_id=_parse_int(request, "account"))


class RakeReportView(_ExportView):
    """Rake per UTC day, table and game."""

    export_name = "rake"

    @extend_schema(
        parameters=[*RANGE_PARAMETERS, OpenApiParameter("table", int)],
        responses={200: EXPORT_ROWS, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def rows(self, request, as_csv):
        date_from, date_to = _parse_range(request)
        return audit.daily_rake(
            date_from=date_from,
            date_to=date_to,
            table_id=_parse_int(request, "table"),
        )
