/* A running Sit & Go's page kept live without reloading it: every 10 s it asks the API
   (GET /api/tournaments/<id>/, the data-api of #sng-clock) for the level, the blinds, the next
   level's time, the players' chips and places, and redraws those parts; each second it ticks
   the time to the next level. Once the Sit & Go is over, the page is loaded again once (its
   results are the server's page). `liveView` is pure and runs under node (tests/js/). */
(function () {
  "use strict";


  /* What the page shows of the API's answer `live` at time `now` (ms), with `format` giving
     roman, chips, dollars, minutes and the translated words (the page's or a test's). */
  function liveView(live, now, format) {
    const left = live.next_level_at ? (Date.parse(live.next_level_at) - now) / 1000 : null;
    const level = live.level > 0 && live.small_blind !== null;
    return {
      over: live.status !== "running",
      level: level ? format.level(format.roman(live.level)) : null,
      blinds: level ? format.chips(live.small_blind) + "/" + format.chips(live.big_blind) : null,
      ante: live.ante > 0 ? format.chips(live.ante) : null,
      next: left === null ? null : {
        time: format.minutes(left),
        blinds: live.next_small_blind === null ? ""
          : format.chips(live.next_small_blind) + "/" + format.chips(live.next_big_blind),
      },
      onBreak: Boolean(live.on_break),
      playersLeft: format.playersLeft(live.players_left, live.entrants),
      rows: live.players.map((p) => ({
        id: p.id,
        name: p.display_name,
        place: p.place ? String(p.place) : "–",
        chips: p.place ? null : format.chips(p.chips),
        prize: p.place ? format.dollars(p.prize) : "",
      })),
    };
  }

  if (typeof module === "object" && module.exports) {
    module.exports = { liveView: liveView };
    return;
  }

  const clock = document.getElementById("sng-clock");
  if (!clock) return;
  const POLL_MS = window.sitAndGoPollMs || 10_000; // a browser test asks sooner
  const $ = (id) => document.getElementById(id);
  const viewer = Number(document.getElementById("sit-and-go").dataset.user) || null;
  const format = {
    roman: window.roomRoman,
    chips: window.roomChips,
    dollars: window.roomDollars,
    minutes: window.roomMinutes,
    level: (level) => interpolate(gettext("Level %(level)s"), { level: level }, true),
    playersLeft: (playing, entrants) => interpolate(
      gettext("%(playing)s of %(entrants)s players left."),
      { playing: playing, entrants: entrants }, true),
  };
  let nextAt = null; // the next level's time (ms, this browser's clock), ticked by tick()
  // This browser's clock against the server's: the time left the server wrote in the page.
  let skew = 0;
  const shown = $("sng-next-level");
  if (shown && shown.getAttribute("datetime")) {
    const [m, sec] = shown.textContent.split(":").map(Number);
    const at = Date.parse(shown.getAttribute("datetime"));
    if (Number.isFinite(m) && Number.isFinite(sec)) skew = at - (Date.now() + (m * 60 + sec) * 1000);
    if (Math.abs(skew) < 2000) skew = 0; // the page's own rounding, not a wrong clock
    nextAt = at - skew;
  }

  function text(id, value) {
    const node = $(id);
    if (node && value !== null && node.textContent !== value) node.textContent = value;
  }

  function drawPlayers(rows) {
    const body = document.querySelector("#sng-players tbody");
    if (!body) return;
    const made = rows.map((row) => {
      const tr = document.createElement("tr");
      tr.dataset.player = row.id;
      if (row.id === viewer) tr.className = "mine";
      const cell = (className, value) => {
        const td = document.createElement("td");
        td.className = className;
        if (value instanceof Node) td.append(value); else td.textContent = value;
        tr.append(td);
        return td;
      };
      cell("sng-place", row.place);
      cell("", row.name);
      let chips = row.chips;
      if (chips === null) {
        chips = document.createElement("span");
        chips.className = "muted";
        chips.textContent = gettext("out");
      }
      cell("amount sng-chips", chips);
      const prize = document.createElement("span");
      prize.className = "money";
      prize.textContent = row.prize;
      cell("amount sng-prize", row.prize ? prize : "");
      return tr;
    });
    body.replaceChildren(...made);
  }

  function draw(live) {
    const view = liveView(live, Date.now() + skew, format);
    if (view.over) {
      window.location.reload(); // the results, as the server writes them
      return;
    }
    text("sng-level", view.level);
    text("sng-blinds", view.blinds);
    if ($("sng-ante-part")) $("sng-ante-part").hidden = view.ante === null;
    text("sng-ante", view.ante);
    $("sng-next").hidden = view.next === null;
    $("sng-last-level").hidden = view.next !== null;
    $("sng-break-note").hidden = !view.onBreak;
    nextAt = live.next_level_at ? Date.parse(live.next_level_at) - skew : null;
    if (view.next) {
      $("sng-next-level").setAttribute("datetime", live.next_level_at);
      text("sng-next-level", view.next.time);
      text("sng-next-blinds", view.next.blinds);
    }
    text("sng-players-left", view.playersLeft);
    drawPlayers(view.rows);
    document.querySelectorAll("#sng-levels tr[data-level]").forEach((tr) => {
      const current = Number(tr.dataset.level) === live.level;
      tr.classList.toggle("current", current);
      tr.classList.toggle("mine", current);
    });
  }

  function tick() {
    if (nextAt !== null) text("sng-next-level", format.minutes((nextAt - Date.now()) / 1000));
  }

  async function poll() {
    try {
      const answer = await fetch(clock.dataset.api, { headers: { Accept: "application/json" } });
      if (answer.ok) draw(await answer.json());
    } catch (_error) {
      // Offline for a moment: the clock ticks on and the next poll tries again.
    }
  }

  setInterval(tick, 1000);
  setInterval(poll, POLL_MS);
})();
