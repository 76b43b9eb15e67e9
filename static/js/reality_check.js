/* The reality check on every game page, the poker table and the banked game's (responsible
 * gaming): every N minutes of the session (N set on the profile; the session begins at login)
 * the dialog of templates/responsible/_reality_check.html shows the time played and the net
 * result at the room, asked of the server when it is due; the player keeps playing or leaves.
 * A page reloaded between rounds counts from the login again, so a reminder is never pushed
 * back. A page that stops playing (the table's time-out or a second tab) calls
 * `window.realityCheck.stop()`. Loads under node too (tests/js/). */
(function () {
  "use strict";
  const fill = (format, values) => interpolate(format, values, true);

  /* Milliseconds to the next reminder, or null when the player set none. */
  function delayMs(check) {
    if (!check || !check.interval_minutes) return null;
    const every = check.interval_minutes * 60;
    return (every - (check.seconds_played % every)) * 1000;
  }

  function playedLabel(seconds) {
    const minutes = Math.floor(seconds / 60);
    const hours = Math.floor(minutes / 60);
    const minutesText = (n) => fill(ngettext("%(n)s minute", "%(n)s minutes", n), { n: n });
    if (!hours) return minutesText(minutes);
    return fill(ngettext("%(n)s hour", "%(n)s hours", hours), { n: hours }) + " " + minutesText(minutes % 60);
  }

  if (typeof module === "object" && module.exports) {
    module.exports = { delayMs: delayMs, playedLabel: playedLabel };
    return;
  }

  const dialog = document.getElementById("reality-dialog");
  if (!dialog || !dialog.dataset.url) return;
  let timer = null;
  let stopped = false;

  function show(check) {
    document.getElementById("reality-played").textContent = playedLabel(check.seconds_played);
    document.getElementById("reality-net").textContent = (check.net > 0 ? "+" : "") + window.roomDollars(check.net);
    if (!dialog.open) dialog.showModal();
  }

  function ask() {
    return fetch(dialog.dataset.url, { credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : null))
      .catch(() => null);
  }

  function schedule(check) {
    clearTimeout(timer);
    timer = null;
    const delay = delayMs(check);
    if (delay === null || stopped) return;
    timer = setTimeout(() => {
      ask().then((fresh) => {
        if (fresh && fresh.interval_minutes && !stopped) show(fresh);
        schedule(fresh);
      });
    }, delay);
  }

  function stop() {
    stopped = true;
    clearTimeout(timer);
    timer = null;
  }

  /* "Leave": the page's own way out (the table's or the live table's Leave button, which
   * says what becomes of a hand in play) when it has one in view, else the lobby (an online
   * round left undecided waits for the player). */
  document.getElementById("reality-leave").addEventListener("click", () => {
    dialog.close();
    const own = dialog.dataset.leave && document.querySelector(dialog.dataset.leave);
    if (own && own.offsetParent !== null && !own.disabled) own.click();
    else window.location.assign(dialog.dataset.lobby);
  });

  ask().then(schedule);
  window.realityCheck = { delayMs: delayMs, show: show, stop: stop, armed: () => timer !== null };
})();
