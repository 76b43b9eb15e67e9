/* Live lobby: when the lobby socket says something changed (a seat taken, a table opened),
 * fetch the lobby page again and swap in its table list. Reconnects with backoff. */
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
        if (JSON.parse(event.data).type === "lobby.update") refresh();
      } catch (error) {
        /* not ours to show */
      }
    });
    socket.addEventListener("close", (event) => {
      delete document.body.dataset.lobby;
      if (event.code === 4401) return;
      retries += 1;
      setTimeout(connect, Math.min(30000, 1000 * 2 ** retries));
    });
  }

  connect();
})();
