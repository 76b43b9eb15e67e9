"""The amount filters of cashier/templatetags/money.py: tournament chips are whole counts
grouped the language's way, with no currency sign."""

from django.utils import translation

from cashier.templatetags.money import (
    amount,
    amount_unbroken,
    chips,
    chips_unbroken,
    signed_amount,
    signed_chips,
    signed_dollars,
)


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


def test_a_page_writes_a_sit_and_go_hand_in_chips_and_any_other_in_dollars():
    with translation.override("en"):
        assert (amount(1500, True), amount(1500, False)) == ("1,500", "$15.00")
        assert (signed_amount(-300, True), signed_amount(-300, False)) == ("-300", "-$3.00")
        assert amount_unbroken(1500, True) == '<span class="money">1,500</span>'
        assert amount_unbroken(1500) == '<span class="money">$15.00</span>'
