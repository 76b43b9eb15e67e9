"""A player's notes on other players and the names they give their tag colours.

Private to the author: every read is filtered by the author, and nothing here is in a table's
STATE or frames (docs/protocol.md "Player notes").
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

# How long a note and a colour's name may be, and how many notes one author keeps.
NOTE_MAX_LENGTH = 500
LABEL_MAX_LENGTH = 24
NOTES_PER_AUTHOR = 1000


class Colour(models.TextChoices):
    """The fixed palette of tags, as at PokerStars: each colour's name is the player's to choose
    (`TagLabel`), these are the names until they do. The order is the palette's."""

    RED = "red", _("Red")
    ORANGE = "orange", _("Orange")
    YELLOW = "yellow", _("Yellow")
    GREEN = "green", _("Green")
    TEAL = "teal", _("Teal")
    BLUE = "blue", _("Blue")
    PURPLE = "purple", _("Purple")
    GREY = "grey", _("Grey")


class PlayerNote(models.Model):
    """What `author` wrote about `player` and the colour they tagged them with (either may be
    empty, not both: a note with neither is deleted)."""

    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notes_written"
    )
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=NOTE_MAX_LENGTH, blank=True, default="")
    colour = models.CharField(max_length=8, choices=Colour.choices, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["author", "player"], name="notes_one_per_player"),
            models.CheckConstraint(condition=~Q(author=F("player")), name="notes_not_on_oneself"),
            models.CheckConstraint(condition=~Q(text="", colour=""), name="notes_text_or_colour"),
        ]

    def __str__(self) -> str:
        return f"note by {self.author_id} on {self.player_id}"


class TagLabel(models.Model):
    """The name an author gave one colour of the palette ("Fish", "Rock", ...)."""

    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tag_labels"
    )
    colour = models.CharField(max_length=8, choices=Colour.choices)
    label = models.CharField(max_length=LABEL_MAX_LENGTH)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["author", "colour"], name="notes_one_label_per_colour")
        ]

    def __str__(self) -> str:
        return f"{self.colour}: {self.label}"
