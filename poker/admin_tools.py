"""The table tools on the admin's table, seat and hand pages (poker/admin.py mixes these in):
each page asks for a reason and calls one of poker/services/staff.py, which checks, acts and
writes its audit record in one transaction. The pages show a hand by its table and number only:
never a card."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from django.urls import path, reverse

from config.admin import ReasonForm, parse_dollars, tool_view
from poker.models import ChatMessage, Hand, Seat, Table, TableBar, WaitingEntry
from poker.selectors import hands_of_player, waiting_position
from poker.services.chat import chat_message_remove
from poker.services.staff import (
    BAR_HOURS_CHOICES,
    BAR_HOURS_DEFAULT,
    staff_hand_cancel,
    staff_seat_offer,
    staff_seat_remove,
    staff_table_bar_lift,
    staff_table_close,
    staff_table_reopen,
    staff_waiting_move,
    staff_waiting_remove,
)


class HandTools:
    """Cancel a running hand; find hands by a player's username or the hand's id too."""

    def get_urls(self):
        view = self.admin_site.admin_view(self.cancel_view)
        return [path("<int:hand_id>/cancel/", view, name="poker_hand_cancel"), *super().get_urls()]

    def cancel_view(self, request, hand_id: int):
        hand = get_object_or_404(Hand.objects.defer("deck", "setup", "state"), pk=hand_id)

        def act(cleaned: dict) -> str:
            staff_hand_cancel(hand=hand, staff=request.user, reason=cleaned["reason"])
            return f"{hand.table.name} hand #{hand.number} is cancelled; every bet is returned."

        return tool_view(
            request, self, hand, title=f"Cancel {hand.table.name} hand #{hand.number}",
            permission="staff.cancel_hand", act=act, button="Cancel the hand",
            intro="No settlement: every bet goes back to its stack, and the players are told "
            "that staff cancelled the hand (not your reason).",
        )  # fmt: skip

    def get_search_results(self, request, queryset, search_term):
        found, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if term:
            players = (
                get_user_model().objects.filter(username__iexact=term).values_list("pk", flat=True)
            )
            for player_id in players:
                found = found | queryset.filter(pk__in=hands_of_player(player_id).values("pk"))
            number = term.removeprefix("#")
            if number.isascii() and number.isdigit() and len(number) < 19:
                found = found | queryset.filter(pk=int(number))  # "Hand #123", the public id
        return found, may_have_duplicates


class TableTools:
    """Close and reopen a table."""

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:table_id>/close/", tool(self.close_view), name="poker_table_close"),
            path("<int:table_id>/reopen/", tool(self.reopen_view), name="poker_table_reopen"),
            *super().get_urls(),
        ]

    def close_view(self, request, table_id: int):
        table = get_object_or_404(Table, pk=table_id)

        def act(cleaned: dict) -> str:
            done = staff_table_close(table=table, staff=request.user, reason=cleaned["reason"])
            return (
                f"{table.name} is closed: {len(done['removed'])} player(s) cashed out, "
                f"{len(done['leaving'])} leave when the running hand ends."
            )

        return tool_view(
            request, self, table, title=f"Close {table.name}", permission="staff.close_table",
            act=act, button="Close the table",
            intro="No new hands; players not in the running hand are cashed out now, the "
            "others when it ends.",
        )  # fmt: skip

    def reopen_view(self, request, table_id: int):
        table = get_object_or_404(Table, pk=table_id)

        def act(cleaned: dict) -> str:
            staff_table_reopen(table=table, staff=request.user, reason=cleaned["reason"])
            return f"{table.name} is open again."

        return tool_view(
            request, self, table, title=f"Reopen {table.name}", permission="staff.close_table",
            act=act, button="Reopen the table",
        )  # fmt: skip


def _period(hours: int) -> str:
    return f"{hours // 24} days" if hours % 24 == 0 and hours > 24 else f"{hours} hours"


class RemoveForm(ReasonForm):
    bar_hours = forms.TypedChoiceField(
        label="Barred from this table for",
        choices=[(hours, _period(hours)) for hours in BAR_HOURS_CHOICES],
        coerce=int,
        initial=BAR_HOURS_DEFAULT,
        help_text="Until then the player may not sit, buy in, be offered a seat or join the "
        "waiting list here; other tables are not affected. Staff can lift the bar earlier.",
    )


class SeatTools:
    """Remove a player from a seat (cashed out now, or after the hand they are in) and bar
    them from the table for a period."""

    def get_urls(self):
        view = self.admin_site.admin_view(self.remove_view)
        return [path("<int:seat_id>/remove/", view, name="poker_seat_remove"), *super().get_urls()]

    def remove_view(self, request, seat_id: int):
        seat = get_object_or_404(Seat.objects.select_related("table", "player"), pk=seat_id)
        table = seat.table

        def act(cleaned: dict) -> str:
            outcome = staff_seat_remove(seat=seat, staff=request.user, reason=cleaned["reason"],
                                        bar_hours=cleaned["bar_hours"])  # fmt: skip
            barred = f"barred from it for {_period(cleaned['bar_hours'])}"
            if outcome == "leaving":
                return f"{seat.player} leaves {table.name} when the running hand ends; {barred}."
            return f"{seat.player} is removed from {table.name}, cashed out and {barred}."

        return tool_view(
            request, self, seat, title=f"Remove {seat.player} from {table.name}",
            permission="staff.remove_seat", act=act, button="Remove the player",
            form_class=RemoveForm,
            intro="Cashed out now, or, in the running hand, folded at their turns and cashed "
            "out when it ends; then kept away from this table for the period you choose.",
            done_url=reverse("admin:poker_table_change", args=[table.pk]),
        )  # fmt: skip


class BarTools:
    """Lift a bar early: the player may sit at the table again at once."""

    def get_urls(self):
        view = self.admin_site.admin_view(self.lift_view)
        return [path("<int:bar_id>/lift/", view, name="poker_tablebar_lift"), *super().get_urls()]

    def lift_view(self, request, bar_id: int):
        bar = get_object_or_404(TableBar.objects.select_related("table", "player"), pk=bar_id)

        def act(cleaned: dict) -> str:
            staff_table_bar_lift(bar=bar, staff=request.user, reason=cleaned["reason"])
            return f"{bar.player} may sit at {bar.table.name} again."

        return tool_view(
            request, self, bar, title=f"Lift the bar of {bar.player} at {bar.table.name}",
            permission="staff.remove_seat", act=act, button="Lift the bar",
            intro=f"Barred until {bar.until:%Y-%m-%d %H:%M} UTC; lifting it lets them sit "
            "there again at once.",
        )  # fmt: skip


class ChatTools:
    """Remove a table chat line: it leaves every page at the table; the row and the audit
    log keep it, with the reason."""

    def get_urls(self):
        view = self.admin_site.admin_view(self.remove_view)
        return [
            path("<int:message_id>/remove/", view, name="poker_chatmessage_remove"),
            *super().get_urls(),
        ]

    def remove_view(self, request, message_id: int):
        message = get_object_or_404(ChatMessage.objects.select_related("table"), pk=message_id)

        def act(cleaned: dict) -> str:
            chat_message_remove(message=message, staff=request.user, reason=cleaned["reason"])
            return f"The message is removed from {message.table.name}'s chat."

        return tool_view(
            request, self, message, title=f"Remove chat message #{message.pk}",
            permission="poker.remove_chatmessage", act=act, button="Remove the message",
            intro=f"The line: \u201c{message.text}\u201d. Every page at the table drops it at "
            "once; it is kept here and in the audit log with your reason.",
        )  # fmt: skip


class PlaceForm(ReasonForm):
    place = forms.IntegerField(
        min_value=1, help_text="1 is the head of the list; past its end is the end."
    )


class WaitingTools:
    """A waiting-list entry's tools: take the player off the list, move them up or down, offer
    them a seat by hand. Each goes back to the table's page, where the list is."""

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:entry_id>/remove/", tool(self.remove_view), name="poker_waiting_remove"),
            path("<int:entry_id>/move/", tool(self.move_view), name="poker_waiting_move"),
            path("<int:entry_id>/offer/", tool(self.offer_view), name="poker_waiting_offer"),
            *super().get_urls(),
        ]

    def _entry(self, entry_id: int) -> WaitingEntry:
        return get_object_or_404(
            WaitingEntry.objects.select_related("table", "player"), pk=entry_id
        )

    def _done(self, entry: WaitingEntry) -> str:
        return reverse("admin:poker_table_change", args=[entry.table_id])

    def remove_view(self, request, entry_id: int):
        entry = self._entry(entry_id)
        table, player = entry.table, entry.player

        def act(cleaned: dict) -> str:
            staff_waiting_remove(table=table, player=player, staff=request.user,
                                 reason=cleaned["reason"])  # fmt: skip
            return f"{player} is off the waiting list of {table.name}."

        return tool_view(
            request, self, entry, title=f"Take {player} off the list of {table.name}",
            permission="staff.manage_waiting", act=act, button="Remove from the list",
            intro="A seat offered to them goes to the next in line.",
            done_url=self._done(entry),
        )  # fmt: skip

    def move_view(self, request, entry_id: int):
        entry = self._entry(entry_id)
        table, player = entry.table, entry.player
        place = waiting_position(table=table, player=player)
        wanted = request.GET.get("place", "")
        initial = {"place": int(wanted) if wanted.isascii() and wanted.isdigit() else place}

        def act(cleaned: dict) -> str:
            before = staff_waiting_move(
                table=table,
                player=player,
                staff=request.user,
                reason=cleaned["reason"],
                place=cleaned["place"],
            )
            after = waiting_position(table=table, player=player)
            return f"{player} moves from place {before} to place {after} at {table.name}."

        return tool_view(
            request, self, entry, title=f"Move {player} on the list of {table.name}",
            permission="staff.manage_waiting", act=act, button="Move", form_class=PlaceForm,
            initial=initial, intro=f"Now at place {place}. An offer they hold stays theirs.",
            done_url=self._done(entry),
        )  # fmt: skip

    def offer_view(self, request, entry_id: int):
        entry = self._entry(entry_id)
        table, player = entry.table, entry.player

        def act(cleaned: dict) -> str:
            withdrawn = staff_seat_offer(table=table, player=player, staff=request.user,
                                         reason=cleaned["reason"])  # fmt: skip
            message = f"A seat at {table.name} is offered to {player}."
            if withdrawn is not None:
                other = get_user_model().objects.get(pk=withdrawn)
                message += f" The offer to {other} is withdrawn; they keep their place."
            return message

        return tool_view(
            request, self, entry, title=f"Offer {player} a seat at {table.name}",
            permission="staff.manage_waiting", act=act, button="Offer a seat",
            intro="Out of turn, for the table's usual offer time. With every free seat already "
            "offered, the newest offer to someone else is withdrawn (they keep their place).",
            done_url=self._done(entry),
        )  # fmt: skip


# -- a table's stakes in dollars and cents on its admin form (stored as cents)

MONEY_FIELDS = ("small_blind", "big_blind", "small_bet", "big_bet")
PLAY_FIELDS = ("game", "structure", *MONEY_FIELDS)  # only on an empty table
MIN_ACTION_SECONDS = 5


class TableMoneyForm(forms.ModelForm):
    """The stakes typed and shown as dollars ("0.50"), stored as the model's cents."""

    class Meta:
        model = Table
        fields = "__all__"  # noqa: DJ007 (the admin names the fields it shows)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in MONEY_FIELDS:
            if name not in self.fields:
                continue
            model_field = Table._meta.get_field(name)
            self.fields[name] = forms.CharField(
                label=f"{model_field.verbose_name} ($)",
                required=False,
                help_text="dollars and cents, e.g. 0.50",
            )
            cents = self.initial.get(name)
            if cents is not None:
                self.initial[name] = f"{cents / 100:.2f}"

    def _clean_money(self, name: str) -> int | None:
        text = (self.cleaned_data.get(name) or "").strip()
        if not text:
            return None
        cents = parse_dollars(text)
        if cents < 0:
            raise forms.ValidationError("Stakes are positive.")
        return cents

    def clean_small_blind(self):
        return self._clean_money("small_blind")

    def clean_big_blind(self):
        return self._clean_money("big_blind")

    def clean_small_bet(self):
        return self._clean_money("small_bet")

    def clean_big_bet(self):
        return self._clean_money("big_bet")

    def clean(self):
        """Settings must fit the players seated now (no `max_seats` 2 with players in seats
        4 and 6, no 0 seconds to act on a running table). The stakes, the
        game and the structure change only on an empty table; time to act is at least
        MIN_ACTION_SECONDS everywhere."""
        cleaned = super().clean()
        action = cleaned.get("action_seconds")
        if action is not None and action < MIN_ACTION_SECONDS:
            self.add_error("action_seconds", f"At least {MIN_ACTION_SECONDS} seconds to act.")
        table = self.instance
        if table.pk is None:
            return cleaned
        # The table's lock, held to the end of the admin's transaction (its save included): a
        # player cannot sit down between this check and the save (seating takes the lock too).
        Table.objects.select_for_update().filter(pk=table.pk).exists()
        seats = list(Seat.objects.filter(table=table).values_list("number", flat=True))
        if not seats:
            return cleaned
        max_seats = cleaned.get("max_seats")
        if max_seats is not None and max_seats < max(seats):
            self.add_error(
                "max_seats",
                f"Players sit in seats {', '.join(map(str, sorted(seats)))}: "
                f"at least {max(seats)} seats while they are seated.",
            )
        for name in PLAY_FIELDS:
            if name in cleaned and cleaned[name] != getattr(table, name):
                self.add_error(
                    name,
                    f"{len(seats)} player(s) seated: the stakes, game and structure change "
                    "only on an empty table (close it first).",
                )
        return cleaned
