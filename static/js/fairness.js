// The deal checker's own verification (templates/fairness/deal.html): redo every check of
// docs/fairness.md with the browser's SubtleCrypto, from the revealed values alone, so that a
// player need not trust the room's answer printed above it.
(function () {
  "use strict";
  const list = document.getElementById("client-checks");
  const source = document.getElementById("deal-data");
  if (!list || !source) return;
  const deal = JSON.parse(source.textContent);
  const RANKS = "23456789TJQKA", SUITS = "cdhs";
  const encoder = new TextEncoder();

  function hexBytes(hex) {
    if (!/^([0-9a-f]{2})*$/.test(hex)) throw new Error("not hex: " + hex);
    const out = new Uint8Array(hex.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
    return out;
  }
  function toHex(buffer) {
    return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
  }
  function concat(a, b) {
    const out = new Uint8Array(a.length + b.length);
    out.set(a, 0);
    out.set(b, a.length);
    return out;
  }
  async function hmac(keyBytes, message) {
    const key = await crypto.subtle.importKey(
      "raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    return new Uint8Array(await crypto.subtle.sign("HMAC", key, message));
  }

  // HMAC-SHA256(key=server seed, msg="omaha-room-shuffle-v1" + "\n<seat>:<seed>" by seat),
  // then blocks HMAC(key, counter as 8 bytes big-endian), one byte per draw (n <= 52), low
  // bits kept and rejected when >= n; Fisher-Yates from the last position down.
  async function seededDeck(serverSeed, clientSeeds) {
    const seats = Object.keys(clientSeeds).map(Number).sort((a, b) => a - b);
    let message = "omaha-room-shuffle-v1";
    for (const seat of seats) message += "\n" + seat + ":" + clientSeeds[String(seat)];
    const key = await hmac(serverSeed, encoder.encode(message));
    let stream = new Uint8Array(0), counter = 0, used = 0;
    async function nextByte() {
      if (used >= stream.length) {
        const block = new Uint8Array(8);
        new DataView(block.buffer).setBigUint64(0, BigInt(counter++));
        stream = await hmac(key, block);
        used = 0;
      }
      return stream[used++];
    }
    const deck = [];
    for (const r of RANKS) for (const s of SUITS) deck.push(r + s);
    for (let i = deck.length - 1; i > 0; i--) {
      const n = i + 1, mask = (1 << n.toString(2).length) - 1;
      let j;
      do { j = (await nextByte()) & mask; } while (j >= n);
      [deck[i], deck[j]] = [deck[j], deck[i]];
    }
    return deck;
  }

  // The checks' names as the page shows them (the room's check above uses the same words).
  const LABELS = {
    deck: gettext("Deck"), commitment: gettext("Commitment"), server_seed: gettext("Server seed"),
    seeds: gettext("Seeds"), dealt: gettext("Cards dealt"),
  };

  function show(results) {
    list.textContent = "";
    for (const [name, ok, detail] of results) {
      const item = document.createElement("li");
      item.className = ok ? "ok" : "warn";
      item.dataset.check = name;
      item.textContent = (ok ? gettext("pass") : gettext("FAIL")) + " " + (LABELS[name] || name) + ": " + detail;
      list.appendChild(item);
    }
    const ok = results.length > 0 && results.every((r) => r[1]);
    list.dataset.state = ok ? "pass" : "fail";
  }

  async function run() {
    if (!window.crypto || !crypto.subtle) {
      list.dataset.state = "unavailable";
      list.firstElementChild.textContent =
        gettext("This browser offers no SubtleCrypto on this page (it needs HTTPS): check by hand.");
      return;
    }
    const results = [];
    const cards = deal.deck.match(/../g) || [];
    const whole = cards.length === 52 && new Set(cards).size === 52 &&
      cards.every((c) => RANKS.includes(c[0]) && SUITS.includes(c[1]));
    results.push(["deck", whole, whole ? gettext("52 cards, each once") : gettext("not a whole deck")]);
    const digest = toHex(await crypto.subtle.digest(
      "SHA-256", concat(hexBytes(deal.salt), encoder.encode(deal.deck))));
    results.push(["commitment", digest === deal.commitment, "SHA-256(salt || deck) = " + digest]);
    if (deal.server_seed_hash) {
      const seedHash = toHex(await crypto.subtle.digest("SHA-256", hexBytes(deal.server_seed)));
      results.push(["server_seed", seedHash === deal.server_seed_hash,
        "SHA-256(server seed) = " + seedHash]);
    }
    const expected = await seededDeck(hexBytes(deal.server_seed), deal.client_seeds);
    const first = expected.findIndex((card, k) => card !== cards[k]);
    results.push(["seeds", first < 0, first < 0 ? gettext("the seeds give this deck")
      : gettext("the seeds give a different card at position") + " " + first]);
    const wrong = Object.entries(deal.dealt).filter(([k, card]) => cards[Number(k)] !== card);
    const dealtCount = Object.keys(deal.dealt).length;
    results.push(["dealt", dealtCount > 0 && wrong.length === 0,
      wrong.length ? gettext("cards not at their place:") + " " + wrong.map((w) => w.join("=")).join(", ")
        : dealtCount + " " + gettext("cards dealt, each at its place in the deck")]);
    show(results);
  }

  run().catch((error) => {
    list.dataset.state = "fail";
    list.firstElementChild.textContent = gettext("The check could not run:") + " " + error.message;
  });
})();
