"""Reading a deal's commitment and, once the deal is over, its reveal and verification.

Who sees what (docs/rules.md "Provably fair dealing"): the commitment of a deal to the players
dealt in, from its first frame on; the deck, salt and seeds only when the deal is over (a
finished or cancelled hand, a settled or voided round), and then only to the players who were
dealt in and to staff. Nobody, staff included, sees a running deal's secrets here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.urls import reverse
from django.utils.translation import gettext as _

from config.inputs import MAX_ID
from fairness.models import ClientSeed, Commitment, CommitmentSeat
from fairness.services import FairnessRefused
from poker.engine import fairness as scheme
from poker.models import Hand
from showdown.models import ShowdownRound

Kind = Commitment.Kind


@dataclass
class DealCheck:
    """One deal as a player may see it: the commitment always; the rest once revealed."""

    kind: str
    ref_id: int
    title: str
    commitment: str
    committed_at: datetime
    over: bool
    revealed_at: datetime | None = None
    deck: list[str] = field(default_factory=list)
    salt: str = ""
    server_seed: str = ""
    client_seeds: dict[int, str] = field(default_factory=dict)
    dealt: dict[int, str] = field(default_factory=dict)
    verification: scheme.Verification | None = None
    server_seed_hash: str = ""  # published before the deal (poker tables), else ""
    server_seed_published_at: datetime | None = None

    @property
    def revealed(self) -> bool:
        return self.verification is not None

    def to_dict(self) -> dict:
        data = {
            "kind": self.kind,
            "id": self.ref_id,
            "title": self.title,
            "commitment": self.commitment,
            "committed_at": self.committed_at.isoformat(),
            "server_seed_hash": self.server_seed_hash or None,
            "server_seed_published_at": self.server_seed_published_at.isoformat()
            if self.server_seed_published_at
            else None,
            "over": self.over,
            "revealed": self.revealed,
        }
        verification = self.verification
        if verification is not None:  # revealed
            data.update(
                revealed_at=self.revealed_at.isoformat() if self.revealed_at else None,
                deck="".join(self.deck),
                salt=self.salt,
                server_seed=self.server_seed,
                client_seeds={str(seat): seed for seat, seed in self.client_seeds.items()},
                dealt={str(position): card for position, card in self.dealt.items()},
                ok=verification.ok,
                checks=[
                    {"name": check.name, "ok": check.ok, "detail": check.detail}
                    for check in verification.checks
                ],
            )
        return data


def client_seed_of(*, player) -> ClientSeed | None:
    return ClientSeed.objects.filter(player=player).first()


def _allowed(commitment: Commitment, viewer) -> bool:
    if viewer is None:  # the operator's command line
        return True
    if getattr(viewer, "is_staff", False):
        return True
    return getattr(viewer, "pk", None) in set(commitment.players.values())


def _commitment(kind: str, ref_id: int, viewer) -> Commitment:
    found = None
    if isinstance(ref_id, int) and 1 <= ref_id <= MAX_ID:  # a bigger id cannot be a row
        found = Commitment.objects.filter(kind=kind, ref_id=ref_id).first()
    if found is None or not _allowed(found, viewer):
        # The same answer whether the deal is missing or someone else's: ids leak nothing.
        raise FairnessRefused("unknown_deal", _("No such deal among yours."))
    return found


def _check(
    commitment: Commitment, *, title: str, over: bool, deck: list[str], dealt: dict[int, str]
) -> DealCheck:
    check = DealCheck(
        kind=commitment.kind,
        ref_id=commitment.ref_id,
        title=title,
        commitment=commitment.commitment,
        committed_at=commitment.created_at,
        over=over,
    )
    check.server_seed_hash = commitment.server_seed_hash
    check.server_seed_published_at = commitment.server_seed_published_at
    if not over or commitment.revealed_at is None:
        return check  # a running deal: its commitment, nothing that opens it
    seeds = {int(seat): seed for seat, seed in commitment.client_seeds.items()}
    check.revealed_at = commitment.revealed_at
    check.deck = list(deck)
    check.salt, check.server_seed = commitment.salt, commitment.server_seed
    check.client_seeds = dict(sorted(seeds.items()))
    check.dealt = dealt
    check.verification = scheme.verify(
        deck=deck,
        salt=_hex_bytes(commitment.salt),
        commitment_hex=commitment.commitment,
        server_seed=_hex_bytes(commitment.server_seed),
        client_seeds=seeds,
        dealt=dealt,
        published_seed_hash=commitment.server_seed_hash or None,
    )
    return check


def _hex_bytes(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        return b""


def hand_check(*, hand_id: int, viewer=None) -> DealCheck:
    """A poker hand's commitment, and once it is over its reveal and verification."""
    commitment = _commitment(Kind.HAND, hand_id, viewer)
    hand = Hand.objects.select_related("table").filter(pk=commitment.ref_id).first()
    if hand is None:
        raise FairnessRefused("unknown_deal", _("No such deal among yours."))
    over = hand.status != Hand.Status.RUNNING
    dealt: dict[int, str] = {}
    if over:
        state = hand.state
        dealt = scheme.poker_dealt(
            seats=[seat for seat, _ in state["setup"]["seats"]],
            hole_cards=state["hole_cards"],
            burns=state["burns"],
            board=state["board"],
            second_burns=state.get("second_burns", ()),
            second_board=state.get("second_board", ()),
        )
    title = _("Hand %(number)s at %(table)s") % {"number": hand.number, "table": hand.table.name}
    # A running hand's deck stays unread (its column is deferred): only the hand's own services
    # read it while it runs.
    deck = list(hand.deck or []) if over else []
    return _check(commitment, title=title, over=over, deck=deck, dealt=dealt)


def round_check(*, round_id: int, viewer=None) -> DealCheck:
    """A Showdown round's (online, or the live round a player's round belongs to)."""
    round_ = None
    if isinstance(round_id, int) and 1 <= round_id <= MAX_ID:
        round_ = (
            ShowdownRound.objects.select_related("table", "live_round").filter(pk=round_id).first()
        )
    if round_ is None:
        raise FairnessRefused("unknown_deal", _("No such deal among yours."))
    live = round_.live_round
    if live is not None:
        commitment = _commitment(Kind.LIVE, live.pk, viewer)
        over = live.phase == live.Phase.SETTLED
        state, deck = live.state, live.deck
        title = _("Live round %(round)s at %(table)s") % {
            "round": live.pk,
            "table": round_.table.name,
        }
    else:
        commitment = _commitment(Kind.ROUND, round_.pk, viewer)
        over = round_.status != ShowdownRound.Status.DEALT
        state, deck = round_.state, round_.deck
        title = _("Round %(round)s at %(table)s") % {"round": round_.pk, "table": round_.table.name}
    dealt: dict[int, str] = {}
    if over:
        holes = {int(seat): cards for seat, cards in state.get("holes", {}).items() if cards}
        dealt = scheme.showdown_dealt(holes=holes, board=state.get("board", []))
    return _check(commitment, title=title, over=over, deck=list(deck or []), dealt=dealt)


def deals_of(*, player, limit: int = 50) -> list[dict]:
    """The player's latest deals, newest first, each with the page that checks it."""
    seats = (
        CommitmentSeat.objects.filter(player=player)
        .select_related("commitment")
        .order_by("-commitment_id")[:limit]
    )
    rows = [seat.commitment for seat in seats]
    live_ids = [row.ref_id for row in rows if row.kind == Kind.LIVE]
    own_rounds = dict(
        ShowdownRound.objects.filter(player=player, live_round_id__in=live_ids).values_list(
            "live_round_id", "pk"
        )
    )
    deals = []
    for row in rows:
        if row.kind == Kind.HAND:
            url = reverse("fairness:hand", args=[row.ref_id])
        elif row.kind == Kind.ROUND:
            url = reverse("fairness:round", args=[row.ref_id])
        elif row.ref_id in own_rounds:
            url = reverse("fairness:round", args=[own_rounds[row.ref_id]])
        else:
            continue
        deals.append(
            {
                "kind": row.kind,
                "label": row.get_kind_display(),
                "id": row.ref_id,
                "commitment": row.commitment,
                "committed_at": row.created_at,
                "revealed": row.revealed_at is not None,
                "url": url,
            }
        )
    return deals
