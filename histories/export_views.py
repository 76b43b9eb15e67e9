"""Downloads of hand histories: one hand, or a date range of one's hands as a zip."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse

from histories.exports import hand_export, hands_zip
from histories.forms import HandFilterForm
from histories.record import HandNotFound


def _attachment(name: str, content_type: str, body) -> HttpResponse:
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@login_required
def hand_download(request: HttpRequest, hand_id: int, fmt: str) -> HttpResponse:
    try:
        name, content_type, text = hand_export(hand_id=hand_id, viewer=request.user, fmt=fmt)
    except HandNotFound:
        raise Http404("No such hand among yours, or no such format.") from None
    return _attachment(name, content_type, text)


@login_required
def hands_download(request: HttpRequest) -> HttpResponse:
    """?format=pokerstars|ohh|phh and any filter of "My hands" (table, game, since, until,
    result): the hands that page lists."""
    form = HandFilterForm(request.GET)
    if not form.is_valid():
        return HttpResponse(
            "; ".join(f"{field}: {errors[0]}" for field, errors in form.errors.items()),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    try:
        name, body, _ = hands_zip(
            player=request.user, fmt=request.GET.get("format", "pokerstars"), **form.filters()
        )
    except HandNotFound:
        return HttpResponse("format: pokerstars, ohh or phh", status=400, content_type="text/plain")
    return _attachment(name, "application/zip", body)
