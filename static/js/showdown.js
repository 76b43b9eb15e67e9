/* Omaha Showdown play page: small helpers over server-rendered forms (no build step).
   The forms work without this script; it only makes a double click harmless to the eye
   (the server's idempotency key already makes it harmless to the wallet), shows what the
   wagers add up to, and lets F / C / R fold, call and raise. */
(function () {
  "use strict";

  const money = window.roomDollars;

  function cents(input) {
    if (!input || input.value.trim() === "") return 0;
    const value = Number(input.value);
    return Number.isFinite(value) ? Math.round(value * 100) : NaN;
  }

  // A form sends once: the clicked button's value is kept, then every button is disabled.
  document.querySelectorAll("form[data-once]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (form.dataset.sent) {
        event.preventDefault();
        return;
      }
      form.dataset.sent = "1";
      const submitter = event.submitter;
      if (submitter && submitter.name) {
        const copy = document.createElement("input");
        copy.type = "hidden";
        copy.name = submitter.name;
        copy.value = submitter.value;
        form.append(copy);
      }
      setTimeout(() => form.querySelectorAll("button").forEach((b) => { b.disabled = true; }), 0);
    });
  });

  // A page restored from the back-forward cache may show a round that has moved on since
  // (and forms disabled after sending): draw it again from the server.
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) window.location.reload();
  });

  const deal = document.getElementById("sd-deal-form");
  const total = document.getElementById("sd-total");
  if (deal && total) {
    const fields = ["ante", "hole_card_bonus", "final_hand_bonus"].map((name) => deal.elements[name]);
    const show = () => {
      const [ante, hole, final] = fields.map(cents);
      if ([ante, hole, final].some(Number.isNaN)) {
        total.textContent = "";
        return;
      }
      total.textContent = interpolate(
        gettext("Wagers at the deal: %(total)s. Then a Call costs %(call)s, a Raise %(raise)s."),
        { total: money(ante + hole + final), call: money(ante), raise: money(2 * ante) }, true);
    };
    fields.forEach((field) => field.addEventListener("input", show));
    show();
  }

  const decide = document.querySelector(".sd-decide");
  if (decide) {
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.target instanceof HTMLInputElement) return;
      const button = decide.querySelector('button[data-key="' + event.key.toUpperCase() + '"]');
      if (button && !button.disabled) {
        event.preventDefault();
        button.click();
      }
    });
  }
})();
