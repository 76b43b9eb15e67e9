"""The banked game's fixtures, shared rather than copied."""

from tests.showdown.conftest import gambler, showdown_table  # noqa: F401
