"""Auditors' exports of the audit log and the daily report, beside the ledger's
(`/api/cashier/audit/...`): the same auditors-only permission, `?from=&to=` UTC days and
`?format=csv` or JSON as cashier/api.py's exports."""

from __future__ import annotations

import re

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from cashier import audit_reports as reports
from cashier.api import (
    EXPORT_ROWS,
    NEXT_LINK,
    PAGE_PARAMETERS,
    RANGE_PARAMETERS,
    ErrorSerializer,
    ManifestSerializer,
    _ExportView,
    _ManifestView,
    _parse_range,
)
from config.inputs import BAD_PARAMETER, BadInput

_CODE = re.compile(r"^[a-z0-9_.]{1,64}$")
_TEXT = re.compile(r"^[\w.@+-]{1,150}$")


def _parse_text(request: Request, name: str, pattern: re.Pattern) -> str:
    value = request.query_params.get(name, "")
    if value and not pattern.match(value):
        raise BadInput(BAD_PARAMETER, f"'{name}' is not a valid value: {value[:40]!r}.")
    return value


LOG_FILTERS = [
    OpenApiParameter("action", str, description='a code or family, e.g. "security"'),
    OpenApiParameter("actor", str, description="the actor's username"),
    OpenApiParameter("subject_type", str, description='e.g. "cashier.entry"'),
    OpenApiParameter("subject_id", str),
]


def _log_filters(request: Request) -> dict:
    date_from, date_to = _parse_range(request)
    return {
        "date_from": date_from,
        "date_to": date_to,
        "action": _parse_text(request, "action", _CODE),
        "actor": _parse_text(request, "actor", _TEXT),
        "subject_type": _parse_text(request, "subject_type", _CODE),
        "subject_id": _parse_text(request, "subject_id", _TEXT),
    }


class AuditLogExportView(_ExportView):
    """The audit log in chain order, with every field needed to recompute its hashes (JSON in
    pages, CSV streamed)."""

    export_name = "audit-log"
    paged = True
    csv_columns = reports.AUDIT_LOG_COLUMNS

    @extend_schema(
        parameters=[*RANGE_PARAMETERS, *LOG_FILTERS, *PAGE_PARAMETERS],
        responses={200: NEXT_LINK, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def parse_after(self, request):
        after = request.query_params.get("after", "")
        if after and not reports.CURSOR.match(after):
            raise BadInput(BAD_PARAMETER, f"'after' is not a cursor: {after[:40]!r}.")
        return after

    def chunks(self, request, *, as_csv, after, limit):
        records = reports.audit_log(**_log_filters(request))
        return reports.audit_log_chunks(records, as_csv=as_csv, after=after, limit=limit)

    def cursor(self, row):
        return reports.audit_log_cursor(row)


class AuditLogManifestView(_ManifestView):
    export_name = "audit-log"

    @extend_schema(
        parameters=[*RANGE_PARAMETERS[:2], *LOG_FILTERS],
        responses={200: ManifestSerializer, 400: ErrorSerializer},
    )
    def get(self, request: Request) -> Response:
        return super().get(request)

    def counts(self, request):
        filters = _log_filters(request)
        named = {
            ("from" if k == "date_from" else "to" if k == "date_to" else k): v
            for k, v in filters.items()
        }
        return named, reports.audit_log_manifest(reports.audit_log(**filters))


class DailyReportView(_ExportView):
    """Per UTC day from the ledger: deposits, withdrawals, rake per table, the banked game's
    result, voids to charity, balance adjustments (JSON one object per day; CSV one row per
    day and figure). `to` defaults to today, `from` to `to`; 366 days at most."""

    export_name = "daily-report"

    @extend_schema(parameters=RANGE_PARAMETERS, responses={200: EXPORT_ROWS, 400: ErrorSerializer})
    def get(self, request: Request) -> Response:
        return super().get(request)

    def rows(self, request, as_csv):
        days = reports.report_days(*_parse_range(request), today=timezone.now().date())
        report = reports.daily_report(days=days)
        return reports.daily_report_flat(report) if as_csv else report
