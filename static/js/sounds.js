/* The tables' sounds (docs/rules.md "Sounds at the tables"): the player's turn, time running
 * low, a check, chips going in, a pot won and a chat line, on the poker table page
 * (static/js/table.js) and the live Showdown table (static/js/showdown_live.js).
 *
 * Which sound a frame makes is decided by pure functions and two small trackers (`tableCues`,
 * `showdownCues`) that remember only what has been sounded already, so a frame seen again (a
 * resync, a reconnect) makes no sound twice; tests/js/sounds.test.js runs them under node.
 * The sounds are synthesised with the Web Audio API (short tones with an envelope: no files).
 * Browsers let a page play sound only after the player has interacted with it, so the player
 * makes its AudioContext on the page's first click, tap or key and never before: until then
 * every sound is dropped, not queued. The switch (templates/accounts/_sound_switch.html)
 * mutes them; a player's choice is kept on their profile (`sound_muted`, PATCH
 * /api/accounts/me/), so it follows them to every device, and in this browser for visitors.
 */
(function (root) {
  "use strict";

  // The sounds, each a few tones: `at` seconds from its start, `freq` Hz (gliding to `to`),
  // `dur` seconds, the oscillator's `type`, and a peak `gain` (0-1, before the master volume).
  function tone(at, freq, dur, type, gain, to) {
    return { at: at, freq: freq, to: to || null, dur: dur, type: type, gain: gain };
  }
  const SOUNDS = {
    turn: [tone(0, 659, 0.16, "sine", 0.6), tone(0.15, 988, 0.3, "sine", 0.5)],
    time: [tone(0, 1046, 0.08, "square", 0.18), tone(0.16, 1046, 0.08, "square", 0.18),
      tone(0.32, 1046, 0.08, "square", 0.18)],
    check: [tone(0, 190, 0.07, "sine", 0.8, 95), tone(0.1, 190, 0.07, "sine", 0.7, 95)],
    chips: [tone(0, 2500, 0.035, "triangle", 0.35, 1700), tone(0.045, 3100, 0.035, "triangle", 0.3, 2200),
      tone(0.09, 2700, 0.05, "triangle", 0.3, 1900)],
    win: [tone(0, 523, 0.14, "triangle", 0.45), tone(0.1, 659, 0.14, "triangle", 0.45),
      tone(0.2, 784, 0.14, "triangle", 0.45), tone(0.3, 1047, 0.45, "triangle", 0.45)],
    chat: [tone(0, 1320, 0.09, "sine", 0.3, 990)],
  };
  const VOLUME = 0.35;
  const GAP = 0.06; // seconds between two sounds of one frame, played one after the other
  const MOST_AT_ONCE = 3; // a frame makes at most this many sounds
  const LOW_SECONDS = 5; // "time running low": the countdown turns red (table.css .urgent)

  function length(name) {
    return Math.max(...SOUNDS[name].map((t) => t.at + t.dur));
  }

  /* Names in order, each once, the unknown and the empty left out. */
  function distinct(names) {
    const out = [];
    names.forEach((name) => { if (name && SOUNDS[name] && !out.includes(name)) out.push(name); });
    return out;
  }

  // ---------------------------------------------------------------- the poker table

  /* The sounds of table events (docs/protocol.md "Events") as the page writes them in its log,
   * for the viewer at `seat` (null when watching): a check knocks, chips go in for a call, a
   * bet, a raise or an all-in (a fold is silent), and a pot this viewer takes plays the win.
   * An all-in's runout logs its showdown only once the river is on the felt, so the win
   * sounds then, never before the cards say so. */
  function eventSounds(events, seat) {
    const names = [];
    (events || []).forEach((event) => {
      if (event.type === "action") {
        if (event.action === "check") names.push("check");
        else if (event.action !== "fold") names.push("chips");
      } else if (event.type === "pot_awarded" && seat !== null && seat !== undefined) {
        const shares = [...(event.high || []), ...(event.low || [])];
        if (shares.some((share) => share.seat === seat && share.amount > 0)) names.push("win");
      }
    });
    return distinct(names);
  }

  /* The viewer's own turn in `state` (the page's STATE, docs/protocol.md), as "hand:turn", or
   * null when it is not theirs to act. */
  function myTurn(state) {
    const hand = state && state.hand;
    if (!hand || hand.result || !hand.legal_actions || !state.you) return null;
    if (hand.legal_actions.seat !== state.you.seat || hand.to_act !== state.you.seat) return null;
    return hand.id + ":" + hand.turn;
  }

  /* A chat line makes a sound unless the viewer wrote it or has muted its writer. */
  function chatSound(message, me, hidden) {
    if (!message || !message.player || message.player.id === me || hidden) return null;
    return "chat";
  }

  /* What the table page has sounded: each turn chimes once, and its clock warns once when it
   * runs low (once more when the time bank starts counting, which has its own clock). */
  function tableCues() {
    let turn = null;
    let warned = null;
    return {
      /* The state just drawn and the events logged with it; `answered`: a pre-action already
       * acted on this turn (nothing to call the player for). */
      update(state, events, answered) {
        const names = eventSounds(events, state && state.you ? state.you.seat : null);
        const now = myTurn(state);
        if (now && now !== turn && !answered) names.push("turn");
        turn = now;
        return distinct(names);
      },
      /* The countdown of the seat to act: `left` seconds, `banking` once on the time bank. */
      tick(state, left, banking) {
        const now = myTurn(state);
        if (!now || !(left > 0) || left > LOW_SECONDS) return [];
        const key = now + (banking ? ":bank" : "");
        if (key === warned) return [];
        warned = key;
        return ["time"];
      },
    };
  }

  // ---------------------------------------------------------------- live Omaha Showdown

  /* What the live Showdown page has sounded (docs/protocol.md "Live Omaha Showdown"): a wager
   * placed in a round's betting puts chips in; a seat deciding knocks (the others' choices stay
   * hidden until the round settles; the viewer's own call or raise puts chips in, a fold is
   * silent); the viewer's decision chimes when the cards are dealt; the round settling with
   * the viewer ahead plays the win; the decision's clock warns once when it runs low. */
  function showdownCues() {
    let last = null; // {id, phase, wagers, decided, mine} of the round shown before
    let chimed = null;
    let warned = null;

    function mineOf(round) {
      return round ? round.seats.find((s) => s.you) || null : null;
    }

    function undecided(round) {
      const mine = mineOf(round);
      return Boolean(round && round.phase === "deciding" && mine && !mine.decision && !mine.decided);
    }

    return {
      update(state) {
        const round = state && state.round;
        const names = [];
        if (!round) { last = null; return names; }
        const before = last && last.id === round.id ? last : null;
        const mine = mineOf(round);
        const decided = round.seats.filter((s) => s.decided || s.decision).length;
        // The first frame a page draws makes no sound: it shows what had happened already.
        if (last) {
          if (round.phase === "betting" && round.seats.length > (before ? before.wagers : 0)) names.push("chips");
          if (before && round.phase === "deciding" && decided > before.decided) {
            const own = mine && mine.decision && !(before.mine && before.mine.decision);
            names.push(own ? (mine.decision === "fold" ? null : "chips") : "check");
          }
          if (before && before.phase !== "settled" && round.phase === "settled" && mine && mine.net > 0) names.push("win");
        }
        if (undecided(round) && chimed !== round.id) {
          chimed = round.id;
          names.unshift("turn");
        }
        last = {
          id: round.id, phase: round.phase, wagers: round.seats.length, decided: decided,
          mine: mine ? { decision: mine.decision || null } : null,
        };
        return distinct(names);
      },
      tick(state, left) {
        const round = state && state.round;
        if (!undecided(round) || !(left > 0) || left > LOW_SECONDS || warned === round.id) return [];
        warned = round.id;
        return ["time"];
      },
    };
  }

  // ---------------------------------------------------------------- playing them

  /* The sounds' player. `AudioContext` is the browser's (a stand-in under node); no context
   * exists, and nothing plays, until `gesture()` is called from the player's click, tap or
   * key (browsers' autoplay rules); a context the browser suspended is resumed at the next
   * gesture. Muted, it plays nothing. */
  function createPlayer(options) {
    const Context = options.AudioContext || null;
    let muted = Boolean(options.muted);
    let touched = false;
    let context = null;
    const played = []; // the last names played, for the page's browser test

    function ready() {
      if (!touched || muted || !Context) return null;
      if (!context) {
        try {
          context = new Context();
        } catch {
          return null; // no audio on this device: the page plays on silently
        }
      }
      if (context.state === "suspended" && context.resume) context.resume().catch(() => {});
      return context;
    }

    function schedule(audio, name, start) {
      SOUNDS[name].forEach((t) => {
        const at = start + t.at;
        const oscillator = audio.createOscillator();
        const envelope = audio.createGain();
        oscillator.type = t.type;
        oscillator.frequency.setValueAtTime(t.freq, at);
        if (t.to) oscillator.frequency.exponentialRampToValueAtTime(t.to, at + t.dur);
        envelope.gain.setValueAtTime(0.0001, at);
        envelope.gain.linearRampToValueAtTime(t.gain * VOLUME, at + 0.008);
        envelope.gain.exponentialRampToValueAtTime(0.0001, at + t.dur);
        oscillator.connect(envelope);
        envelope.connect(audio.destination);
        oscillator.start(at);
        oscillator.stop(at + t.dur + 0.02);
      });
    }

    return {
      get muted() { return muted; },
      get unlocked() { return touched; },
      played: played,
      /* Call from a user gesture's handler: from now on sounds may play. */
      gesture() {
        touched = true;
        ready();
      },
      setMuted(on) {
        muted = Boolean(on);
        ready();
      },
      /* Play `names` one after the other; returns how many were played. */
      play(names) {
        const list = distinct(names || []).slice(0, MOST_AT_ONCE);
        const audio = list.length ? ready() : null;
        if (!audio) return 0;
        let start = audio.currentTime + 0.01;
        list.forEach((name) => {
          schedule(audio, name, start);
          start += length(name) + GAP;
          played.push(name);
        });
        played.splice(0, Math.max(0, played.length - 20));
        return list.length;
      },
    };
  }

  const api = {
    SOUNDS: SOUNDS, LOW_SECONDS: LOW_SECONDS,
    eventSounds: eventSounds, myTurn: myTurn, chatSound: chatSound,
    tableCues: tableCues, showdownCues: showdownCues, createPlayer: createPlayer,
  };
  if (typeof module === "object" && module.exports) {
    module.exports = api;
    return;
  }

  // ---------------------------------------------------------------- the page's switch

  const KEY = "room-sound-muted"; // "1" or "0", this browser's choice (visitors, and a copy)

  function stored() {
    try {
      return localStorage.getItem(KEY);
    } catch {
      return null;
    }
  }

  function csrfToken() {
    const field = document.querySelector("[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  /* The switch's label stays "Sound" (a toggle button, pressed while sounds play); its
   * tooltip says what a click does. */
  function draw(button, muted) {
    button.setAttribute("aria-pressed", muted ? "false" : "true");
    button.classList.toggle("off", muted);
    button.title = muted ? gettext("Table sounds are off: click to turn them on.")
      : gettext("Table sounds are on: click to mute them.");
  }

  /* The page's player, bound to its switch (#sound-switch) and to the player's first gesture. */
  function attach() {
    const button = document.getElementById("sound-switch");
    // A signed-in player's choice is the profile's (the page carries it); a visitor's, this
    // browser's.
    const own = button && button.dataset.muted;
    const muted = own === "true" || own === "false" ? own === "true" : stored() === "1";
    const player = createPlayer({ AudioContext: window.AudioContext || window.webkitAudioContext, muted: muted });
    const wake = () => player.gesture();
    // What browsers count as the player's interaction (a touch ends with pointerup/touchend).
    ["pointerdown", "pointerup", "touchend", "keydown", "click"].forEach((kind) =>
      document.addEventListener(kind, wake, { capture: true, passive: true }));
    if (button) {
      draw(button, muted);
      button.addEventListener("click", () => {
        const on = !player.muted;
        player.setMuted(on);
        draw(button, on);
        try {
          localStorage.setItem(KEY, on ? "1" : "0");
        } catch {
          // a browser that keeps nothing: the profile still does for a signed-in player
        }
        if (!on) player.play(["check"]); // the player hears that sound is back
        if (button.dataset.url) {
          button.setAttribute("aria-busy", "true"); // until the profile has it
          fetch(button.dataset.url, {
            method: "PATCH",
            credentials: "same-origin",
            headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRFToken": csrfToken() },
            body: JSON.stringify({ sound_muted: on }),
          }).catch(() => {}).finally(() => button.removeAttribute("aria-busy"));
        }
      });
    }
    return player;
  }

  api.page = attach();
  root.roomSounds = api;
})(typeof window !== "undefined" ? window : globalThis);
