/* Live lobby, for visitors too: when the lobby socket says something changed (a seat taken, a
 * table opened, a waiting list moved), fetch the lobby page again and swap in its table list.
 * A signed-in player's socket also carries the seats offered to them (static/js/seat_offers.js
 * shows them). Reconnects with backoff. */
(function () {
  "use strict";
  if (!document.getElementById("lobby-tables")) return;
  let retries = 0;
  let pending = null;

  /* Filters (game, structure, stakes, table size, hide full or empty): applied here to the
   * rows' data attributes, kept in localStorage, and again after every live refresh. */
  const filters = document.getElementById("lobby-filters");
  const FILTERS_KEY = "lobby-filters";

  function filterValues() {
    if (!filters) return {};
    const form = new FormData(filters);
    return {
      game: form.get("game") || "", structure: form.get("structure") || "",
      stakes: form.get("stakes") || "", size: form.get("size") || "",
      hide_full: form.get("hide_full") === "on", hide_empty: form.get("hide_empty") === "on",
    };
  }

  function applyFilters() {
    const want = filterValues();
    const root = document.getElementById("lobby-tables");
    if (!root || !filters) return;
    let shown = 0;
    root.querySelectorAll("tr[data-table]").forEach((row) => {
      const d = row.dataset;
      const seats = Number(d.seats);
      const ok = (!want.game || d.game === want.game) &&
        (!want.structure || d.structure === want.structure) &&
        (!want.stakes || d.stakes === want.stakes) &&
        (!want.size || (want.size === "short" ? seats <= 6 : seats > 6)) &&
        !(want.hide_full && d.full === "1") && !(want.hide_empty && d.empty === "1");
      row.hidden = !ok;
      if (ok) shown += 1;
    });
    root.querySelectorAll(".game-group").forEach((group) => {
      group.hidden = !group.querySelector("tr[data-table]:not([hidden])");
    });
    const none = document.getElementById("filters-none");
    if (none) none.hidden = shown > 0 || !root.querySelector("tr[data-table]");
  }

  if (filters) {
    try {
      const saved = JSON.parse(localStorage.getItem(FILTERS_KEY) || "{}");
      ["game", "structure", "stakes", "size"].forEach((name) => {
        if (saved[name]) filters.elements[name].value = saved[name];
      });
      filters.elements.hide_full.checked = Boolean(saved.hide_full);
      filters.elements.hide_empty.checked = Boolean(saved.hide_empty);
    } catch {
      /* a broken saved value: start with no filter */
    }
    filters.addEventListener("change", () => {
      localStorage.setItem(FILTERS_KEY, JSON.stringify(filterValues()));
      applyFilters();
    });
    applyFilters();
  }

  function refresh() {
    clearTimeout(pending);
    pending = setTimeout(async () => {
      const response = await fetch(location.href, { headers: { Accept: "text/html" } });
      if (!response.ok) return;
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("lobby-tables");
      const current = document.getElementById("lobby-tables");
      if (fresh && current) current.replaceWith(fresh);
      const freshMine = page.getElementById("my-tables");
      const currentMine = document.getElementById("my-tables");
      if (freshMine && currentMine) currentMine.replaceWith(freshMine);
      applyFilters();
      document.body.dataset.lobbyRefreshed = String(Number(document.body.dataset.lobbyRefreshed || 0) + 1);
    }, 300);
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const socket = new WebSocket(scheme + location.host + "/ws/lobby/");
    socket.addEventListener("open", () => {
      retries = 0;
      document.body.dataset.lobby = "live";
    });
    socket.addEventListener("message", (event) => {
      try {
        const frame = JSON.parse(event.data);
        if (frame.type === "lobby.update") refresh();
        if (window.seatOffers && frame.type === "seat_offer") window.seatOffers.offer(frame);
        if (window.seatOffers && frame.type === "seat_offer_ended") window.seatOffers.ended(frame);
      } catch {
        /* not ours to show */
      }
    });
    socket.addEventListener("close", () => {
      delete document.body.dataset.lobby;
      retries += 1;
      setTimeout(connect, Math.min(30000, 1000 * 2 ** retries));
    });
  }

  connect();
})();
