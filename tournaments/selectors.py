"""What the lobby and the API read of Sit & Gos: read only."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Q

from tournaments.models import Registration, Tournament, game_short_label


@dataclass(frozen=True)
class LobbySitAndGo:
    """One Sit & Go as the lobby lists it."""

    id: int
    name: str
    game: str
    structure: str
    game_label: str
    short_label: str
    seats: int
    registered: int
    buy_in: int
    fee: int
    starting_chips: int
    status: str
    status_label: str
    is_registered: bool
    # A fresh idempotency key for the lobby's Register form (a double click registers once).
    register_key: str = ""

    @property
    def is_full(self) -> bool:
        return self.registered >= self.seats


def sit_and_gos_for_lobby(*, player=None) -> list[LobbySitAndGo]:
    """The Sit & Gos open for registration, and those running or registering that the player
    is in, in the templates' order: one query."""
    signed_in = player is not None and getattr(player, "is_authenticated", False)
    entered = Registration.objects.filter(
        player=player if signed_in else None,
        status=Registration.Status.ACTIVE,
        tournament=OuterRef("pk"),
    )
    shown = Q(status=Tournament.Status.REGISTERING)
    if signed_in:
        shown |= Q(status=Tournament.Status.RUNNING, mine=True)
    rows = (
        Tournament.objects.annotate(
            registered=Count(
                "registrations", filter=Q(registrations__status=Registration.Status.ACTIVE)
            ),
            mine=Exists(entered),
        )
        .filter(shown)
        .select_related("template")
        .order_by("game", "structure", "seats", "buy_in", "id")
    )
    return [
        LobbySitAndGo(
            id=row.pk,
            name=row.template.name,
            game=row.game,
            structure=row.structure,
            game_label=row.game_label(),
            short_label=game_short_label(row.game, row.structure),
            seats=row.seats,
            registered=row.registered,
            buy_in=row.buy_in,
            fee=row.fee,
            starting_chips=row.starting_chips,
            status=row.status,
            status_label=row.get_status_display(),
            is_registered=bool(row.mine),
        )
        for row in rows
    ]
