"""`manage.py translations_update`: collect every marked string into locale/fr and locale/ja,
then compile the catalogues (docs/operations.md, "Translations")."""

from django.core.management import call_command
from django.core.management.base import BaseCommand

from config.i18n import MESSAGES_IGNORE, messages_collect


class Command(BaseCommand):
    help = "Collect the strings to translate into locale/*/LC_MESSAGES/*.po and compile them."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--no-compile", action="store_true", help="collect only; leave the .mo files"
        )

    def handle(self, *args, no_compile: bool = False, verbosity: int = 1, **options) -> None:
        messages_collect(verbosity=verbosity)
        if not no_compile:
            call_command("compilemessages", ignore_patterns=MESSAGES_IGNORE, verbosity=verbosity)
