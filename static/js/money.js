/* Money as the page's language writes it: integer cents in, "$1,234.50" (English),
   "1 234,50 $" (French) or "1,234.50ドル" (Japanese) out, the same as the server's
   config.money.dollars. The separators and the "$%(amount)s" pattern come from Django's
   JavaScript catalogue (jsi18n/), loaded before this file by base.html. `roomPotWinners` says
   who takes a pot, for the table's log and the replayer; `roomClock` writes a time of day;
   `roomChips` a Sit & Go's chips, `roomRoman` its level as PokerStars and tournaments/selectors.py's roman() name it
   ("Level III"), `roomOrdinal` a place in the page's language ("3rd", "3e", "3位") and
   `roomMinutes` a countdown ("4:05"). Loads under node too (tests/js/). */
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
  function dollars(cents) {
    const value = Math.round(Number(cents) || 0);
    const abs = Math.abs(value);
    const amount = grouped(Math.floor(abs / 100)) + get_format("DECIMAL_SEPARATOR") + String(abs % 100).padStart(2, "0");
    return (value < 0 ? "-" : "") + interpolate(gettext("$%(amount)s"), { amount: amount }, true);
  }

  /* A pot_awarded event's winners, each once with both halves added (a hi/lo pot's high and
     low shares), in the order they first appear; `scoop` when one player takes both halves,
     so the page says "Dave scoops $2" rather than "Dave $1, Dave $1". */
  function potWinners(pot) {
    const won = new Map();
    for (const share of [...(pot.high || []), ...(pot.low || [])]) {
      if (share.amount > 0) won.set(share.seat, (won.get(share.seat) || 0) + share.amount);
    }
    const winners = [...won].map(([seat, amount]) => ({ seat: seat, amount: amount }));
    const lowWon = (pot.low || []).some((share) => share.amount > 0);
    return { winners: winners, scoop: winners.length === 1 && lowWon };
  }

  /* A time of day as the server's pages write it: the 24-hour clock in UTC ("19:01 UTC"), the
     digits in the page's language, never the browser's 12-hour "07:01 PM". */
  function clock(value, language) {
    const time = new Date(value).toLocaleTimeString(language || undefined,
      { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: "UTC" });
    return time + " UTC";
  }

  /* Tournament chips, a whole count grouped as the language groups it: 1500 -> "1,500". */
  function chips(count) {
    return (count < 0 ? "-" : "") + grouped(Math.abs(count));
  }

  /* A level number in Roman numerals, 3 -> "III", the same as tournaments/selectors.py's. */
  function roman(number) {
    const numerals = [[100, "C"], [90, "XC"], [50, "L"], [40, "XL"], [10, "X"], [9, "IX"],
      [5, "V"], [4, "IV"], [1, "I"]];
    let left = Math.floor(Number(number) || 0);
    let out = "";
    for (const [value, letters] of numerals) {
      while (left >= value) {
        out += letters;
        left -= value;
      }
    }
    return out;
  }

  /* A place as the language writes it, a word of its own the catalogue cannot plural:
     English 1st 2nd 3rd 4th, 11th 12th 13th, 21st; French 1er then 2e, 3e; Japanese 3位. The
     sentence around it ("3rd of 6") is gettext's. Any other language gets the bare number. */
  function ordinal(number, language) {
    const n = Math.floor(Number(number) || 0);
    const base = String(language || "en").toLowerCase().split("-")[0];
    if (base === "fr") return n === 1 ? "1er" : n + "e";
    if (base === "ja") return n + "位";
    if (base !== "en") return String(n);
    const teen = n % 100 >= 11 && n % 100 <= 13;
    return n + (teen ? "th" : { 1: "st", 2: "nd", 3: "rd" }[n % 10] || "th");
  }

  /* Seconds left as a countdown writes them: 245 -> "4:05"; never below "0:00". */
  function minutes(seconds) {
    const left = Math.max(0, Math.ceil(Number(seconds) || 0));
    return Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
  }

  if (typeof module === "object" && module.exports) {
    module.exports = { potWinners: potWinners, clock: clock, roman: roman, chips: chips,
      ordinal: ordinal, minutes: minutes };
  } else {
    window.roomDollars = dollars;
    window.roomPotWinners = potWinners;
    window.roomRoman = roman;
    window.roomChips = chips;
    window.roomOrdinal = (number) => ordinal(number, document.documentElement.lang);
    window.roomMinutes = minutes;
    window.roomClock = (value) => clock(value, document.documentElement.lang);
  }
})();
