"""The amount filters of cashier/templatetags/money.py: tournament chips are whole counts
grouped the language's way, with no currency sign."""

from django.utils import translation

from cashier.templatetags.money import chips, chips_unbroken, signed_chips, signed_dollars


def test_chips_are_grouped_by_language_without_a_currency_sign():
    with translation.override("en"):
        assert chips(1500) == "1,500"
        assert chips(0) == "0" and chips(None) == "0"
        assert signed_chips(1500) == "+1,500"
        assert signed_chips(-300) == "-300"
        assert signed_chips(0) == "0"
        assert chips_unbroken(12000) == '<span class="money">12,000</span>'
    with translation.override("fr"):
        assert (
            "$" not in chips(1500)
            and chips(1500).replace("\u202f", " ").replace("\xa0", " ") == "1 500"
        )


def test_a_result_in_dollars_is_signed_as_a_result_in_chips():
    assert (signed_dollars(1250), signed_dollars(-300), signed_dollars(0)) == (
        "+$12.50",
        "-$3.00",
        "$0.00",
    )
