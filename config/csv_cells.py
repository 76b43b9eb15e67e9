"""CSV cells a spreadsheet will not run: every CSV the room writes (auditors' exports, a
player's account statement) passes its text through `csv_cell`."""

# A spreadsheet runs a cell that starts with one of these as a formula (staff text such as
# `=HYPERLINK(...)` in a reason); a leading apostrophe makes it text. A cell that already starts
# with an apostrophe gets one more, so taking one off always gives the value back.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")


def csv_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_escape_row(row: dict) -> dict:
    return {key: csv_cell(value) for key, value in row.items()}
