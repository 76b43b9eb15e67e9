/* The viewer's own notes and colour tags on other players, on a page that shows them (the
 * table, the live Showdown table): read from /api/notes/ (only the viewer's, ever; no table
 * frame carries them: docs/protocol.md "Player notes"), drawn beside a player's name, and
 * written from the note editor (templates/notes/_editor.html). Plain JavaScript, no build.
 */
(function () {
  "use strict";

  const fill = (format, values) => interpolate(format, values, true);
  const dialog = document.getElementById("note-dialog");
  if (!dialog) return;
  const api = dialog.dataset.api;
  const csrf = dialog.querySelector("input[name=csrfmiddlewaretoken]").value;
  const textEl = document.getElementById("note-text");
  const errorEl = document.getElementById("note-error");
  const leftEl = document.getElementById("note-left");
  const colours = document.getElementById("note-colours");

  let palette = []; // [{colour, label, name, named}]
  const byId = new Map(); // player id -> note, or null: asked, none
  const byName = new Map(); // display name -> note (the live Showdown table names its players)
  let everything = false; // every note was fetched (byName is whole)
  let batch = null; // ids for the next fetch, gathered until the page's code has run
  const pending = new Set(); // ids asked, not answered yet
  let editing = null; // {id, display_name}
  let changed = () => {};
  let openedFrom = null;

  function take(answer, ids) {
    palette = answer.palette || palette;
    (ids || []).forEach((id) => byId.set(id, null));
    (answer.notes || []).forEach((note) => {
      byId.set(note.player.id, note);
      byName.set(note.player.display_name, note);
    });
    drawPalette();
  }

  async function get(query) {
    const response = await fetch(api + query, {
      credentials: "same-origin", headers: { Accept: "application/json" },
    });
    if (!response.ok) throw new Error(String(response.status));
    return response.json();
  }

  /* The notes on these players, fetched once each (one request for all asked at once). */
  function want(ids) {
    const fresh = ids.filter((id) => !byId.has(id) && !pending.has(id));
    if (!fresh.length) return;
    const first = batch === null;
    if (first) batch = [];
    fresh.forEach((id) => { pending.add(id); batch.push(id); });
    if (!first) return;
    queueMicrotask(async () => {
      const list = batch;
      batch = null;
      try {
        take(await get("?players=" + list.join(",")), list);
      } catch (_error) {
        // Shown without notes, as the page was; not asked again until it is reloaded.
        list.forEach((id) => byId.set(id, null));
      } finally {
        list.forEach((id) => pending.delete(id));
      }
      changed();
    });
  }

  /* Every note (for a page that knows its players by name only). */
  async function wantAll() {
    if (everything) return;
    everything = true;
    try {
      take(await get(""));
      changed();
    } catch (_error) {
      everything = false;
    }
  }

  function note(id) { return byId.get(id) || null; }
  function noteNamed(name) { return byName.get(name) || null; }

  /* A note's tag and mark, for beside a name: the colour (with its name unless `compact`: a
   * seat shows the dot, the name in its title) and a pen when the note has text (the text in
   * the title); null without a note. A compact badge is hidden from screen readers: the
   * name's button says it all (`describe`). */
  function badge(found, compact) {
    if (!found) return null;
    const span = document.createElement("span");
    span.className = "note-badge";
    if (compact) span.setAttribute("aria-hidden", "true");
    if (found.colour) {
      const tag = document.createElement("span");
      tag.className = "note-tag";
      tag.dataset.colour = found.colour;
      const swatch = document.createElement("span");
      swatch.className = "note-swatch";
      swatch.setAttribute("aria-hidden", "true");
      tag.append(swatch);
      if (!compact) {
        const label = document.createElement("span");
        label.className = "note-label";
        label.textContent = found.label;
        tag.append(label);
      }
      span.append(tag);
    }
    if (found.text) {
      const pen = document.createElement("span");
      pen.className = "note-pen";
      pen.textContent = "✎";
      if (!compact) pen.setAttribute("aria-label", gettext("Note"));
      span.append(pen);
    }
    span.title = [found.colour ? found.label : "", found.text].filter(Boolean).join(" · ");
    return span;
  }

  /* What a screen reader says of a name's button: whose notes, and what they hold. */
  function describe(player) {
    const found = note(player.id);
    const parts = [fill(gettext("Notes on %(name)s"), { name: player.display_name })];
    if (found && found.colour) parts.push(found.label);
    if (found && found.text) parts.push(found.text);
    return parts.join(": ");
  }

  function drawPalette() {
    const chosen = (colours.querySelector("input:checked") || {}).value || "";
    colours.querySelectorAll("label[data-colour]").forEach((label) => label.remove());
    palette.forEach((entry) => {
      const label = document.createElement("label");
      label.className = "note-colour note-tag";
      label.dataset.colour = entry.colour;
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "note-colour";
      input.value = entry.colour;
      const swatch = document.createElement("span");
      swatch.className = "note-swatch";
      swatch.setAttribute("aria-hidden", "true");
      label.append(input, swatch, entry.label);
      colours.append(label);
    });
    const again = colours.querySelector(`input[value="${chosen}"]`);
    if (again) again.checked = true;
  }

  function showLeft() {
    const left = Number(textEl.maxLength) - textEl.value.length;
    leftEl.textContent = fill(gettext("%(left)s characters left"), { left: left });
  }

  /* Open the editor on a player (the name's button at a seat). */
  async function edit(player) {
    editing = player;
    openedFrom = document.activeElement;
    document.getElementById("note-title").textContent =
      fill(gettext("Notes on %(name)s"), { name: player.display_name });
    errorEl.textContent = "";
    if (!palette.length) {
      try { take(await get("?players=" + player.id), [player.id]); } catch (_error) { /* below */ }
    }
    const found = note(player.id);
    textEl.value = found ? found.text : "";
    const input = colours.querySelector(`input[value="${found ? found.colour : ""}"]`);
    if (input) input.checked = true;
    showLeft();
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
    textEl.focus();
  }

  async function save() {
    if (!editing) return;
    const player = editing;
    const colour = (colours.querySelector("input:checked") || {}).value || "";
    errorEl.textContent = "";
    let response;
    try {
      response = await fetch(api + player.id + "/", {
        method: "PUT",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrf },
        body: JSON.stringify({ text: textEl.value, colour: colour }),
      });
    } catch (_error) {
      errorEl.textContent = gettext("The note was not saved: no connection. Try again.");
      return;
    }
    if (response.status === 204) {
      const old = byId.get(player.id);
      if (old) byName.delete(old.player.display_name);
      byId.set(player.id, null);
    } else if (response.ok) {
      const saved = await response.json();
      byId.set(player.id, saved);
      byName.set(saved.player.display_name, saved);
    } else {
      const answer = await response.json().catch(() => ({}));
      errorEl.textContent = answer.message || answer.detail ||
        gettext("The note was not saved. Try again.");
      return;
    }
    close();
    changed();
  }

  function close() {
    editing = null;
    if (dialog.open) dialog.close();
  }

  dialog.addEventListener("close", () => {
    editing = null;
    if (openedFrom && openedFrom.isConnected) openedFrom.focus();
    else if (openedFrom && openedFrom.dataset && openedFrom.dataset.notePlayer) {
      // The seats were drawn again while the editor was open: the same player's new button.
      const again = document.querySelector(`[data-note-player="${openedFrom.dataset.notePlayer}"]`);
      if (again) again.focus();
    }
    openedFrom = null;
  });
  document.getElementById("note-form").addEventListener("submit", (event) => {
    event.preventDefault();
    save();
  });
  document.getElementById("note-cancel").addEventListener("click", close);
  textEl.addEventListener("input", showLeft);

  window.playerNotes = {
    want: want,
    wantAll: wantAll,
    note: note,
    noteNamed: noteNamed,
    badge: badge,
    describe: describe,
    edit: edit,
    editing: () => dialog.open,
    onChange: (callback) => { changed = callback; },
  };
})();
