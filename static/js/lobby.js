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
   * rows' data attributes, kept in localStorage, and again after every live refresh. Omaha
   * Showdown's rows answer to the same filters: their game is "showdown", they have no
   * structure or stakes of a poker table, an online one is never full and, nobody sitting
   * there, always empty. */
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
    const banked = document.getElementById("lobby-banked");
    const rows = [...root.querySelectorAll("tr[data-table]")];
    if (banked) rows.push(...banked.querySelectorAll("tr[data-banked-table]"));
    let shown = 0;
    let pokerShown = 0;
    rows.forEach((row) => {
      const d = row.dataset;
      const seats = Number(d.seats);
      const ok = (!want.game || d.game === want.game) &&
        (!want.structure || d.structure === want.structure) &&
        (!want.stakes || d.stakes === want.stakes) &&
        (!want.size || (want.size === "short" ? seats <= 6 : seats > 6)) &&
        !(want.hide_full && d.full === "1") && !(want.hide_empty && d.empty === "1");
      row.hidden = !ok;
      if (ok) shown += 1;
      if (ok && d.table) pokerShown += 1;
    });
    root.querySelectorAll(".game-group").forEach((group) => {
      group.hidden = !group.querySelector("tr[data-table]:not([hidden])");
    });
    if (banked) banked.hidden = !banked.querySelector("tr[data-banked-table]:not([hidden])");
    // Only Showdown tables match: no empty poker panel above them.
    root.hidden = pokerShown === 0 && shown > 0;
    const none = document.getElementById("filters-none");
    if (none) none.hidden = shown > 0 || rows.length === 0;
  }

  /* Sortable columns: a header's button sorts the rows of every list on the page by that
   * column (a second click reverses), from each row's data-sort-<column> value (numbers as
   * numbers, cents for money); the order is kept in localStorage with the filters. */
  const SORT_KEY = "lobby-sort";
  let order = { column: "", descending: false };
  try {
    order = Object.assign(order, JSON.parse(localStorage.getItem(SORT_KEY) || "{}"));
  } catch {
    /* a broken saved order: the server's */
  }

  function sortValue(row, column) {
    const value = row.getAttribute("data-sort-" + column);
    return value !== null && value !== "" && !Number.isNaN(Number(value)) ? Number(value) : value;
  }

  function compare(a, b, column) {
    const x = sortValue(a, column);
    const y = sortValue(b, column);
    if (typeof x === "number" && typeof y === "number") return x - y;
    return String(x ?? "").localeCompare(String(y ?? ""), document.documentElement.lang, { numeric: true });
  }

  function applyOrder() {
    document.querySelectorAll("table.listing.tables").forEach((table) => {
      table.querySelectorAll("th[data-sort]").forEach((th) => {
        if (!th.querySelector("button.sort")) {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "sort";
          button.append(...th.childNodes);
          th.append(button);
        }
        const on = th.dataset.sort === order.column;
        th.setAttribute("aria-sort", on ? (order.descending ? "descending" : "ascending") : "none");
      });
      const body = table.tBodies[0];
      if (!order.column || !body || !table.querySelector(`th[data-sort="${order.column}"]`)) return;
      const sign = order.descending ? -1 : 1;
      const rows = [...body.rows].sort((a, b) => sign * compare(a, b, order.column) || compare(a, b, "name"));
      body.append(...rows);
    });
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("th[data-sort] button.sort");
    if (!button) return;
    const column = button.parentElement.dataset.sort;
    order = { column: column, descending: order.column === column ? !order.descending : false };
    localStorage.setItem(SORT_KEY, JSON.stringify(order));
    applyOrder();
  });
  applyOrder();

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
      const freshBanked = page.getElementById("lobby-banked");
      const currentBanked = document.getElementById("lobby-banked");
      if (freshBanked && currentBanked) currentBanked.replaceWith(freshBanked);
      applyOrder();
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
