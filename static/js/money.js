/* Money as the page's language writes it: integer cents in, "$1,234.50" (English),
   "1 234,50 $" (French) or "1,234.50ドル" (Japanese) out, the same as the server's
   config.money.dollars. The separators and the "$%(amount)s" pattern come from Django's
   JavaScript catalogue (jsi18n/), loaded before this file by base.html. */
(function () {
  "use strict";
  function grouped(whole) {
    const separator = get_format("THOUSAND_SEPARATOR");
    const size = Number(get_format("NUMBER_GROUPING")) || 3;
    const digits = String(whole);
    const groups = [];
    for (let end = digits.length; end > 0; end -= size) groups.unshift(digits.slice(Math.max(0, end - size), end));
    return groups.join(separator);
  }
  window.roomDollars = function (cents) {
    const value = Math.round(Number(cents) || 0);
    const abs = Math.abs(value);
    const amount = grouped(Math.floor(abs / 100)) + get_format("DECIMAL_SEPARATOR") + String(abs % 100).padStart(2, "0");
    return (value < 0 ? "-" : "") + interpolate(gettext("$%(amount)s"), { amount: amount }, true);
  };
})();
