/* Live lobby, for visitors too: when the lobby socket says something changed (a seat taken, a
 * table opened, a waiting list moved), fetch the lobby page again and swap in its table list.
 * A signed-in player's socket also carries the seats offered to them (static/js/seat_offers.js
 * shows them). Reconnects with backoff. */
(function () {
  "use strict";
  const list = document.getElementById("lobby-tables");
  if (!list) return;
  let retries = 0;
  let pending = null;

  function refresh() {
    clearTimeout(pending);
    pending = setTimeout(async () => {
      const response = await fetch(location.href, { headers: { Accept: "text/html" } });
      if (!response.ok) return;
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("lobby-tables");
      const current = document.getElementById("lobby-tables");
      if (fresh && current) current.replaceWith(fresh);
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
      } catch (error) {
        /* not ours to show */
      }
    });
    socket.addEventListener("close", (event) => {
      delete document.body.dataset.lobby;
      retries += 1;
      setTimeout(connect, Math.min(30000, 1000 * 2 ** retries));
    });
  }

  connect();
})();
