"""The REST API's own parser, pagination and error shape (registered in REST_FRAMEWORK).

Bad input must get a 400 with a reason, never a traceback: a body that is not one JSON object
or nests absurdly deep stops at the parser; a `Refused` raised anywhere in a view (a service
saying no, a bad query parameter) becomes `{"code", "message"}` with 400, the same shape the
cashier always answered with.
"""

from __future__ import annotations

from rest_framework import status
from rest_framework.exceptions import ParseError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.response import Response

from config.errors import Refused
from config.inputs import BAD_JSON, parse_json_object, parse_query_page


class JSONObjectParser(JSONParser):
    """JSON bodies that are one object nested at most `inputs.MAX_JSON_DEPTH` deep.

    Every body the API takes is an object; a list, a string or a number is refused here
    instead of failing later on `request.data.get`, and deep nesting is refused instead of
    exhausting Python's recursion limit.
    """

    def parse(self, stream, media_type=None, parser_context=None) -> dict:
        encoding = get_encoding(parser_context or {})
        raw = stream.read() if stream is not None else b""
        try:
            text = raw.decode(encoding)
        except (LookupError, UnicodeDecodeError) as exc:
            raise ParseError(f"The body is not {encoding} text.", BAD_JSON) from exc
        try:
            return parse_json_object(text, what="body")
        except Refused as error:
            raise ParseError(error.message, error.code) from error


class PageNumberPagination400(PageNumberPagination):
    """DRF's page numbers, with a malformed `?page=` refused as 400 `bad_parameter` (a page
    past the end stays DRF's 404)."""

    def get_page_number(self, request, paginator):
        raw = request.query_params.get(self.page_query_param)
        if raw in self.last_page_strings:
            return paginator.num_pages
        return parse_query_page(raw, name=self.page_query_param) or 1


def exception_handler(exc, context):
    """DRF's handler, plus: `Refused` is 400 `{"code", "message"}`, and so are parse errors."""
    # Imported here: rest_framework.views reads DEFAULT_PARSER_CLASSES, which names this module,
    # so importing it at the top fails whenever this module is the first to load DRF's views
    # (a Celery worker's system checks do exactly that).
    from rest_framework.views import exception_handler as drf_exception_handler
    from rest_framework.views import set_rollback

    if isinstance(exc, Refused):
        set_rollback()
        return Response(
            {"code": exc.code, "message": exc.message}, status=status.HTTP_400_BAD_REQUEST
        )
    response = drf_exception_handler(exc, context)
    if isinstance(exc, ParseError) and response is not None:
        codes = exc.get_codes()
        response.data = {
            "code": codes if isinstance(codes, str) else "parse_error",
            "message": str(exc.detail),
        }
    return response
