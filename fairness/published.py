"""What the room publishes of a deal to the tables: the hash of the server seed a table's next
hand will use, and a deal's commitment once it is dealt.

Plain reads of this app's own rows, low enough for the tables to call (`poker.selectors`,
`showdown.live_selectors`); the deal checker, which reads hands and rounds, is
`fairness.selectors`, above them.
"""

from __future__ import annotations

from fairness.models import Commitment, ServerSeed


def table_seed_hash(*, table_id: int) -> str | None:
    """The published hash of the seed the table's next hand will use, if one is drawn."""
    return (
        ServerSeed.objects.filter(table_id=table_id, taken_at__isnull=True)
        .values_list("seed_hash", flat=True)
        .first()
    )


def commitment_of(*, kind: str, ref_id: int) -> str | None:
    """A deal's commitment alone (its players see it from the deal on); None before it."""
    return (
        Commitment.objects.filter(kind=kind, ref_id=ref_id)
        .values_list("commitment", flat=True)
        .first()
    )
