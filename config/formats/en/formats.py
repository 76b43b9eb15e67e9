"""English dates and times on the 24-hour clock: the room writes every time in UTC beside
"UTC" ("11/26/2026 18:24 UTC"), as its French and Japanese pages do, not "6 p.m. UTC".
Everything else is Django's English format (FORMAT_MODULE_PATH falls back to it)."""

TIME_FORMAT = "H:i"
DATETIME_FORMAT = "N j, Y, H:i"
SHORT_DATETIME_FORMAT = "m/d/Y H:i"
