"""The EMAIL_URL examples the docs give mean what they say once the settings parse them."""

import re
from pathlib import Path

import environ

OPERATIONS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"


def test_the_documented_filemail_url_writes_to_the_absolute_spool_directory():
    examples = re.findall(r"`(filemail://[^`]*)`", OPERATIONS.read_text())
    assert examples
    for example in examples:
        # As config/settings.py reads EMAIL_URL.
        parsed = environ.Env.email_url_config(example)
        assert parsed["EMAIL_BACKEND"] == "django.core.mail.backends.filebased.EmailBackend"
        assert parsed["EMAIL_FILE_PATH"] == "/var/spool/room-mail", example
