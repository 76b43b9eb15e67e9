"""Every value a JSON document can hold, for the tests that throw them at parsers."""

from hypothesis import strategies as st

# Characters str.isdigit() calls digits that are not ASCII 0-9: "²", "٣", fullwidth ones...
OTHER_DIGITS = "".join(c for c in map(chr, range(0x80, 0x10000)) if c.isdigit())

# Every value a JSON document can hold (numbers of any size, strings of any characters,
# including lone surrogates that "\ud800" escapes produce), nested.
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats()
    | st.text()
    | st.text(alphabet="0123456789 \t\n-+." + OTHER_DIGITS)
    | st.sampled_from(["\x00", "k\x00", "\ud800", "1" * 5000, "\u200b", "0" * 12, "9" * 12]),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=8,
)
