/* The table page's chat (docs/rules.md "Table chat"; docs/protocol.md `chat`): the lines the
 * server sends, written as text (never HTML), a per-player mute kept in this browser, and the
 * box a seated player writes in. static/js/table.js hands it the frames and the socket.
 */
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const fill = (format, values) => interpolate(format, values, true);
  const MUTED_KEY = "table-chat-muted"; // {player id: display name}, in this browser only
  const LIMIT = 100; // lines kept on the page

  let send = () => false;
  let mine = null; // this viewer's player id, once seated or known
  let pending = null; // the line sent and not back yet: a refusal puts it back in the box

  function muted() {
    try {
      return JSON.parse(localStorage.getItem(MUTED_KEY) || "{}") || {};
    } catch {
      return {};
    }
  }

  function setMuted(playerId, name, on) {
    const all = muted();
    if (on) all[playerId] = name;
    else delete all[playerId];
    localStorage.setItem(MUTED_KEY, JSON.stringify(all));
    applyMutes();
  }

  function applyMutes() {
    const all = muted();
    document.querySelectorAll("#chat-lines li").forEach((li) => {
      li.hidden = li.dataset.player in all;
    });
    const box = $("chat-muted");
    box.replaceChildren();
    const ids = Object.keys(all);
    box.hidden = ids.length === 0;
    if (!ids.length) return;
    box.append(gettext("Muted:") + " ");
    ids.forEach((id) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "chat-unmute";
      button.textContent = all[id];
      button.title = fill(gettext("Show %(name)s's messages again"), { name: all[id] });
      button.addEventListener("click", () => setMuted(id, all[id], false));
      box.append(button, " ");
    });
  }

  function lineElement(message) {
    const li = document.createElement("li");
    li.dataset.id = message.id;
    li.dataset.player = message.player.id;
    const name = document.createElement("span");
    name.className = "chat-name";
    name.textContent = message.player.display_name;
    const text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = message.text; // text, never markup
    li.append(name, " ", text);
    if (message.player.id !== mine) {
      const mute = document.createElement("button");
      mute.type = "button";
      mute.className = "chat-mute";
      mute.textContent = gettext("Mute");
      mute.title = fill(gettext("Hide %(name)s's messages"), { name: message.player.display_name });
      mute.addEventListener("click", () =>
        setMuted(String(message.player.id), message.player.display_name, true),
      );
      li.append(" ", mute);
    }
    return li;
  }

  /* Why the server refused the writer's line, under the box (not a toast over the seat
   * options); the same refusal again replaces it, the next line sent clears it. */
  function sayRefused(message) {
    const note = $("chat-error");
    note.textContent = message || "";
    note.hidden = !message;
  }

  function add(message) {
    if (message.player.id === mine) pending = null;
    const list = $("chat-lines");
    if (list.querySelector(`li[data-id="${message.id}"]`)) return;
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 30;
    list.appendChild(lineElement(message));
    while (list.children.length > LIMIT) list.firstElementChild.remove();
    applyMutes();
    if (atBottom) list.scrollTop = list.scrollHeight;
  }

  window.tableChat = {
    /* `sendFrame(frame)`: the page's socket; true when sent. */
    init(sendFrame) {
      send = sendFrame;
      $("chat-form").addEventListener("submit", (event) => {
        event.preventDefault();
        const input = $("chat-text");
        const text = input.value.trim();
        if (!text) return;
        if (send({ type: "chat", text: text })) {
          sayRefused("");
          pending = text;
          input.value = "";
        }
      });
      applyMutes();
    },
    /* The lines a snapshot carries: the table's recent chat, replacing what is shown. */
    load(messages) {
      $("chat-lines").replaceChildren();
      (messages || []).forEach(add);
    },
    add: add,
    /* True when this viewer muted `playerId`'s lines (their lines make no sound either). */
    hides(playerId) {
      return String(playerId) in muted();
    },
    removed(id) {
      const li = $("chat-lines").querySelector(`li[data-id="${id}"]`);
      if (li) li.remove();
    },
    /* The server refused a frame: a line sent and not come back is put back in an empty box
     * (too fast, or not allowed), so the writer loses nothing they typed, and the reason is
     * said under it. True when the refusal was the chat's (the page shows it nowhere else). */
    refused(message) {
      if (pending === null) return false;
      const input = $("chat-text");
      if (!input.value) input.value = pending;
      pending = null;
      sayRefused(message);
      return true;
    },
    /* Who is looking, and whether they may write (seated players only). */
    viewer(playerId, seated) {
      mine = playerId;
      $("chat-form").hidden = !seated;
      $("chat-hint").hidden = seated;
    },
  };
})();
