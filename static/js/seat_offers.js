/* Seats offered from waiting lists, on every page of a signed-in player (the banner in
 * base.html). The page's own socket (the lobby's or a table's) hands this its `seat_offer` and
 * `seat_offer_ended` frames (docs/protocol.md); offers already standing when the page loaded
 * come rendered by the server. Each shows the seconds left; "Decline" posts to the waiting
 * list without leaving the page. */
(function () {
  "use strict";
  const list = document.getElementById("seat-offers");
  const template = document.getElementById("seat-offer-template");
  if (!list || !template) return;
  const deadlines = new Map(); // table id -> Date.now() when the offer runs out

  function itemOf(tableId) {
    return list.querySelector('.seat-offer[data-table="' + tableId + '"]');
  }

  function retarget(item, tableId) {
    item.dataset.table = tableId;
    const take = item.querySelector(".seat-offer-take");
    take.href = take.getAttribute("href").replace("/tables/0/", "/tables/" + tableId + "/");
    const form = item.querySelector("form");
    form.action = form.getAttribute("action").replace("/tables/0/", "/tables/" + tableId + "/");
  }

  function tick() {
    const now = Date.now();
    deadlines.forEach((deadline, tableId) => {
      const item = itemOf(tableId);
      if (!item) {
        deadlines.delete(tableId);
        return;
      }
      const left = Math.max(0, Math.ceil((deadline - now) / 1000));
      item.querySelector(".seat-offer-clock").textContent =
        interpolate(gettext("%(seconds)s s left"), { seconds: left }, true);
      if (left === 0) {
        item.classList.add("expired");
        deadlines.delete(tableId);
        setTimeout(() => item.remove(), 10000); // the server says so too, within seconds
      }
    });
  }

  function offer(frame) {
    let item = itemOf(frame.table);
    if (!item) {
      item = template.content.firstElementChild.cloneNode(true);
      retarget(item, frame.table);
      list.append(item);
    }
    item.classList.remove("expired");
    item.querySelector(".seat-offer-table").textContent = frame.table_name;
    deadlines.set(String(frame.table), Date.now() + frame.seconds_left * 1000);
    tick();
  }

  /* What became of an offer, said in its place for a few seconds (a decline, from this page
   * or another tab): not a silent banner gone, nor a table page still showing the old place. */
  function notice(item, text) {
    const line = document.createElement("li");
    line.className = "seat-offer-notice";
    line.setAttribute("role", "status");
    line.textContent = text;
    item.replaceWith(line);
    setTimeout(() => line.remove(), 8000);
  }

  function ended(frame) {
    const item = itemOf(frame.table);
    deadlines.delete(String(frame.table));
    if (!item) return;
    if (frame.reason === "declined") {
      const table = item.querySelector(".seat-offer-table").textContent;
      notice(item, frame.message ||
        interpolate(gettext("You declined the seat at %(table)s and left its waiting list."), { table: table }, true));
    } else {
      item.remove();
    }
  }

  list.addEventListener("submit", async (event) => {
    const form = event.target.closest(".seat-offer-decline");
    if (!form) return;
    event.preventDefault();
    const response = await fetch(form.action, {
      method: "POST", body: new FormData(form), headers: { Accept: "application/json" },
    });
    if (!response.ok) return;
    const answer = await response.json().catch(() => ({}));
    ended({ table: form.closest(".seat-offer").dataset.table, reason: "declined", message: answer.message });
  });

  list.querySelectorAll(".seat-offer").forEach((item) => {
    deadlines.set(item.dataset.table, Date.now() + Number(item.dataset.secondsLeft) * 1000);
  });
  tick();
  setInterval(tick, 1000);
  window.seatOffers = { offer: offer, ended: ended };
})();
