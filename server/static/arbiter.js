// Arbiter's host features, the same for every game's page (and the home page): the seats this
// browser holds ("my games"), the chat, the rematch, turn alerts and replays. A game's client
// opens its WebSocket with `Arbiter.connect` (which reconnects, and hands each message to the
// client, then to `Arbiter.message`), or calls `Arbiter.message(m)` with each message itself, and in
// replay mode (`/replay/{id}`) `Arbiter.replay(render)`, `render` taking a `sync`-shaped
// message. It names no game: what it shows comes from the server's generic messages. The
// panel (chat and alerts) goes into the page's `#arbiter-slot` if it has one, else at the end
// of the body. The tab's title is marked here alone: "(N) " for unread chat messages, then
// "● Your move — " (or "● <prompt> — " for a choice made at the same time as the seat
// deciding) before the page's own title, which the game's client may set and change at will.
// Each change of the unread count is told to the page as `arbiter:unread` ({detail: {count}}).
// A game of one seat has nobody to chat with and nothing to be alerted of: no chat, no alerts.
// Everything the server or a player sends is put into the page as text, never as HTML.
"use strict";

window.Arbiter = (function () {
  const GAMES = "arbiter.games";
  const SOUND = "arbiter.sound";
  const NOTIFY = "arbiter.notify";

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) if (c !== null && c !== undefined) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    return e;
  }
  function store(key, value) {
    try {
      if (value === null) localStorage.removeItem(key);
      else localStorage.setItem(key, value);
    } catch (e) {
      // Storage refused (private mode, quota): the feature just does not persist.
    }
  }
  function stored(key) {
    try {
      return localStorage.getItem(key);
    } catch (e) {
      return null;
    }
  }
  /** "us" -> "US", "player" -> "Player", "observer" -> "Observer". */
  function seatLabel(id) {
    const s = String(id || "");
    if (s.length <= 4 && s !== "observer") return s.toUpperCase();
    return s.charAt(0).toUpperCase() + s.slice(1).replace(/_/g, " ");
  }

  // ------------------------------------------------------------------ my games

  /** The places this browser holds: [{id, seat, token, link, game, title}], the latest first. */
  function myGames() {
    try {
      const v = JSON.parse(stored(GAMES) || "[]");
      return Array.isArray(v) ? v.filter((g) => g && typeof g.id === "string" && typeof g.token === "string") : [];
    } catch (e) {
      return [];
    }
  }
  function remember(entry) {
    const rest = myGames().filter((g) => !(g.id === entry.id && g.token === entry.token));
    store(GAMES, JSON.stringify([entry].concat(rest).slice(0, 200)));
  }
  function forget(id, token) {
    store(GAMES, JSON.stringify(myGames().filter((g) => !(g.id === id && g.token === token))));
  }

  // ------------------------------------------------------------------ a game's page

  const path = location.pathname.split("/");
  const mode = path[1] === "play" || path[1] === "replay" ? path[1] : null;
  const gameId = mode ? decodeURIComponent(path[2] || "") : null;
  const params = new URLSearchParams(location.search);
  let token = params.get("token") || "";
  if (mode === "replay") {
    // A replay's address is made to be shared, and a seat's token is its key to play (chat,
    // rematch): this tab keeps the token, the address never shows it (a listed or finished
    // game's replay needs none; an unlisted one stays its seats').
    const key = "arbiter.replay-token." + gameId;
    try {
      if (token) sessionStorage.setItem(key, token);
      else token = sessionStorage.getItem(key) || "";
    } catch (e) {
      // No session storage: the token stays for this page only.
    }
  }
  const api = (what, extra) =>
    "/api/games/" + encodeURIComponent(gameId) + "/" + what + "?token=" + encodeURIComponent(token) + (extra || "");

  let seat = null; // this page's place
  let yours = false; // this place decides now
  let together = null; // the prompt of a choice this place makes now at the same time as the seat deciding
  let over = null; // the outcome, once the game is over
  let synced = false;
  let solo = false; // a game of one seat
  const chatSeen = new Set();
  let unread = 0; // chat messages from others not seen yet
  let chatInView = false;
  let panel = null;

  if (mode === "replay" && document.body) document.body.classList.add("replaying");

  function ensurePanel() {
    if (panel || !mode) return panel;
    panel = el(
      "section",
      { id: "arbiter-panel", class: "arbiter-panel", "aria-label": "Chat and alerts" },
      el("div", { id: "arbiter-end", class: "arbiter-end", hidden: true }),
      el("div", { id: "arbiter-offer", class: "arbiter-offer", role: "status", hidden: true }),
      el(
        "div",
        { class: "arbiter-chat", id: "arbiter-chat" },
        el("h2", { id: "chat-title" }, "Chat", el("span", { id: "chat-unread", class: "chat-unread", hidden: true })),
        el("ol", { id: "chat-log", class: "chat-log", "aria-live": "polite" }),
        el(
          "form",
          { id: "chat-form", class: "chat-form" },
          el("input", { id: "chat-text", maxlength: "500", autocomplete: "off", placeholder: "Say something", "aria-label": "Chat message" }),
          el("select", { id: "chat-to", "aria-label": "To" }, el("option", { value: "all" }, "to all"), el("option", { value: "seats" }, "to players only")),
          el("button", { type: "submit", id: "chat-send" }, "Send")
        ),
        el("p", { id: "chat-error", class: "arbiter-error", role: "alert", hidden: true })
      ),
      el(
        "div",
        { class: "arbiter-alerts", id: "arbiter-alerts" },
        el("label", { id: "alert-sound-label" }, el("input", { type: "checkbox", id: "alert-sound" }), " Sound when it is your move"),
        el("button", { type: "button", id: "alert-notify" }, "Notify me when it is my move"),
        // A seat's webhook (API.md, "Turn alerts by webhook"): called while this page is closed.
        el(
          "form",
          { id: "webhook-form", class: "webhook-form", hidden: true },
          el("label", { for: "webhook-url" }, "Webhook when it is my move (a chat channel's URL):"),
          el("input", { id: "webhook-url", type: "url", maxlength: "2048", placeholder: "https://…", autocomplete: "off" }),
          el("button", { type: "submit", id: "webhook-save" }, "Save"),
          el("button", { type: "button", id: "webhook-remove" }, "Remove"),
          el("span", { id: "webhook-status", class: "webhook-status", role: "status" })
        )
      ),
      el("p", { id: "arbiter-seed", class: "arbiter-notice", role: "note", hidden: true },
        "The creator of this game chose its seed: whoever knows the seed can know every draw and die roll, what is hidden included.")
    );
    const slot = document.getElementById("arbiter-slot");
    (slot || document.body).appendChild(panel);
    // The end's links and the rematch offer go beside the game's own game-over banner, if its
    // page has one (`#outcome`), where the end is read; else they stay in the panel.
    const banner = document.getElementById("outcome");
    if (banner && mode === "play") {
      banner.insertAdjacentElement("afterend", document.getElementById("arbiter-offer"));
      banner.insertAdjacentElement("afterend", document.getElementById("arbiter-end"));
    }
    const sound = document.getElementById("alert-sound");
    sound.checked = stored(SOUND) === "on";
    sound.addEventListener("change", () => {
      store(SOUND, sound.checked ? "on" : null);
      if (sound.checked) beep();
    });
    const notify = document.getElementById("alert-notify");
    const showNotify = () => {
      const on = stored(NOTIFY) === "on" && "Notification" in window && Notification.permission === "granted";
      notify.textContent = on ? "Desktop notifications: on (click to stop)" : "Notify me when it is my move";
      notify.hidden = !("Notification" in window);
    };
    notify.addEventListener("click", async () => {
      if (stored(NOTIFY) === "on") store(NOTIFY, null);
      else {
        const p = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
        if (p === "granted") store(NOTIFY, "on");
      }
      showNotify();
    });
    showNotify();
    document.getElementById("chat-form").addEventListener("submit", sendChat);
    document.getElementById("webhook-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const url = document.getElementById("webhook-url").value.trim();
      webhook(url ? "PUT" : "DELETE", url);
    });
    document.getElementById("webhook-remove").addEventListener("click", () => webhook("DELETE", ""));
    const input = document.getElementById("chat-text");
    input.addEventListener("focus", markSeen);
    watchChat(document.getElementById("chat-log"));
    // A replay has nothing to say or to be alerted of: the controls are its bar.
    if (mode === "replay") panel.hidden = true;
    return panel;
  }

  // ---------------------------------------------------------------- the webhook

  /** Read (GET), register (PUT) or remove (DELETE) this seat's webhook, and show the answer. */
  async function webhook(method, url) {
    const status = document.getElementById("webhook-status");
    try {
      const init = { method: method };
      if (method === "PUT") {
        init.headers = { "Content-Type": "application/json" };
        init.body = JSON.stringify({ url: url });
      }
      const r = await fetch(api("webhook"), init);
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.error || "the server answered " + r.status);
      document.getElementById("webhook-url").value = body.url || "";
      const last = body.last;
      status.textContent = !body.url
        ? "none"
        : !last
          ? "saved"
          : last.ok
            ? "saved; last call answered " + last.status
            : "saved; the last call failed: " + (last.error || "no answer");
    } catch (e) {
      status.textContent = "not saved: " + e.message;
    }
  }

  // ---------------------------------------------------------------- the chat

  async function sendChat(ev) {
    ev.preventDefault();
    const input = document.getElementById("chat-text");
    const text = input.value.trim();
    const error = document.getElementById("chat-error");
    if (!text) return;
    error.hidden = true;
    try {
      const r = await fetch(api("chat"), {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ text: text, to: document.getElementById("chat-to").value }),
      });
      const body = await r.json().catch(() => ({}));
      if (!r.ok) {
        error.textContent = body.error || "The server answered " + r.status + ".";
        error.hidden = false;
        return;
      }
      input.value = "";
      addChat(body);
    } catch (e) {
      error.textContent = "Not sent: " + e.message;
      error.hidden = false;
    }
  }

  function addChat(m) {
    if (!m || typeof m.id !== "number" || chatSeen.has(m.id)) return;
    chatSeen.add(m.id);
    const log = document.getElementById("chat-log");
    if (!log) return;
    const own = m.from === seat;
    log.appendChild(
      el(
        "li",
        { class: "chat-line" + (own ? " own" : "") + (m.to === "seats" ? " to-seats" : m.to !== "all" ? " to-channel" : ""), "data-from": m.from, "data-to": m.to },
        el("b", {}, seatLabel(m.from) + (m.to === "seats" ? " (to players)" : m.to !== "all" ? " (to " + String(m.to) + ")" : "") + ": "),
        el("span", { class: "chat-text" }, String(m.text))
      )
    );
    log.scrollTop = log.scrollHeight;
    // The history given with the first sync was there when the page opened; what arrives after
    // is new to the reader until seen.
    if (synced && !own && !seen()) setUnread(unread + 1);
  }

  // ------------------------------------------------------------- unread messages

  /** Whether the reader sees the chat now: the page shown and the chat in view, or its input focused. */
  function seen() {
    const input = document.getElementById("chat-text");
    if (document.visibilityState !== "visible") return false;
    return chatInView || (!!input && document.activeElement === input);
  }
  function markSeen() {
    if (unread > 0) setUnread(0);
  }
  function setUnread(n) {
    if (n === unread) return;
    unread = n;
    const mark = document.getElementById("chat-unread");
    if (mark) {
      mark.textContent = n > 0 ? " · " + n + " new" : "";
      mark.hidden = n === 0;
    }
    showTitle();
    document.dispatchEvent(new CustomEvent("arbiter:unread", { detail: { count: n } }));
  }
  /** Follow whether the chat's log is in view (clipped by nothing, on the screen). */
  function watchChat(log) {
    const measure = () => {
      const r = log.getBoundingClientRect();
      return r.height > 0 && r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth;
    };
    chatInView = measure();
    if ("IntersectionObserver" in window) {
      new IntersectionObserver(
        (entries) => {
          for (const e of entries) {
            // Seen when a real part of it shows: a few lines, or all of a short log.
            const h = e.intersectionRect.height;
            chatInView = e.isIntersecting && h > 0 && h >= Math.min(32, e.boundingClientRect.height);
          }
          if (seen()) markSeen();
        },
        { threshold: [0, 0.1, 0.25, 0.5, 0.75, 1] }
      ).observe(log);
    } else {
      const check = () => {
        chatInView = measure();
        if (seen()) markSeen();
      };
      window.addEventListener("scroll", check, true);
      window.addEventListener("resize", check);
    }
  }

  // ------------------------------------------------------------- turn alerts

  // The page's own title (its client sets it; a mark of the client's own, a leading "●" up to
  // its first "·" or "—", is left out: the marks are this script's) and the title as this
  // script last set it, read back as the browser keeps it.
  let base = null;
  let lastSet = null;
  function pageTitle() {
    const t = document.title;
    if (base !== null && t === lastSet) return base;
    return t.replace(/^\(\d+\) /, "").replace(/^● [^·—]*[·—] ?/, "");
  }
  function showTitle() {
    base = pageTitle();
    const mark = over || solo ? "" : yours ? "● Your move — " : together ? "● " + together + " — " : "";
    const t = (unread > 0 ? "(" + unread + ") " : "") + mark + base;
    if (document.title !== t) document.title = t;
    lastSet = document.title;
  }
  // A client that sets its title again (a redraw, another base) gets the marks back at once.
  function watchTitle() {
    if (!("MutationObserver" in window) || !document.head) return;
    new MutationObserver(() => {
      if (document.title !== lastSet && lastSet !== null) showTitle();
    }).observe(document.head, { childList: true, subtree: true, characterData: true });
  }
  if (mode === "play") watchTitle();
  let audio = null;
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const o = audio.createOscillator();
      const g = audio.createGain();
      o.frequency.value = 660;
      g.gain.setValueAtTime(0.15, audio.currentTime);
      g.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.3);
      o.connect(g).connect(audio.destination);
      o.start();
      o.stop(audio.currentTime + 0.3);
    } catch (e) {
      // No audio here: the title still says it.
    }
  }
  /** This place has come to decide (or to choose at the same time): `prompt` says what. */
  function yourTurnNow(prompt) {
    if (solo || over) return;
    if (stored(SOUND) === "on") beep();
    if (stored(NOTIFY) === "on" && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try {
        new Notification("Your move", { body: prompt || base || document.title, tag: "arbiter-" + gameId });
      } catch (e) {
        // Some browsers allow notifications only from a service worker: the title says it.
      }
    }
  }
  document.addEventListener("visibilitychange", () => {
    if (seen()) markSeen();
    showTitle();
  });
  window.addEventListener("focus", () => {
    if (seen()) markSeen();
  });

  // ---------------------------------------------------------------- the end: rematch, replay

  function showEnd() {
    const end = document.getElementById("arbiter-end");
    if (!end || !over || mode !== "play") return;
    while (end.firstChild) end.removeChild(end.firstChild);
    end.appendChild(el("a", { id: "replay-link", href: "/replay/" + encodeURIComponent(gameId) + "?token=" + encodeURIComponent(token) }, "Replay this game"));
    if (seat && seat !== "observer") {
      end.appendChild(document.createTextNode(" "));
      end.appendChild(el("button", { type: "button", id: "rematch", onclick: rematch }, "Rematch"));
    }
    end.hidden = false;
  }

  async function rematch() {
    const offer = document.getElementById("arbiter-offer");
    try {
      const r = await fetch(api("rematch"), { method: "POST" });
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.error || "the server answered " + r.status);
      remember({ id: body.id, seat: body.seat, token: body.token, link: body.link, game: body.game || "" });
      location.href = body.link;
    } catch (e) {
      offer.textContent = "No rematch: " + e.message;
      offer.hidden = false;
    }
  }

  function offerRematch() {
    const offer = document.getElementById("arbiter-offer");
    if (!offer || !seat || seat === "observer") return;
    while (offer.firstChild) offer.removeChild(offer.firstChild);
    offer.appendChild(document.createTextNode("A rematch is waiting for you. "));
    offer.appendChild(el("button", { type: "button", id: "play-rematch", onclick: rematch }, "Play the rematch"));
    offer.hidden = false;
  }

  // ------------------------------------------------------------- messages

  /** A message of the game's WebSocket (the game's client has handled it). */
  function message(m) {
    if (!m || typeof m !== "object") return;
    ensurePanel();
    const wasYours = yours;
    const wasTogether = together;
    switch (m.type) {
      case "sync":
        seat = m.seat;
        seats(m.state);
        if (mode === "play" && token) remember({ id: gameId, seat: m.seat, token: token, link: location.pathname + location.search, game: (m.state && m.state.game) || "" });
        document.getElementById("chat-to").hidden = seat === "observer";
        // A seat's own webhook; the observers never decide, nor is one seat alone alerted.
        if (mode === "play" && seat !== "observer" && !solo && !synced) {
          document.getElementById("webhook-form").hidden = false;
          webhook("GET", "");
        }
        document.getElementById("arbiter-seed").hidden = !(m.state && m.state.seed_chosen);
        showPanel();
        for (const c of m.chat || []) addChat(c);
        turn(m.moves);
        if (synced) alertIfNew(wasYours, wasTogether, m.moves);
        synced = true;
        break;
      case "move":
      case "undo":
        turn(m.moves);
        alertIfNew(wasYours, wasTogether, m.moves);
        break;
      case "chat":
        addChat(m);
        break;
      case "rematch":
        offerRematch();
        break;
      default:
        break;
    }
    // The client may have set its title while handling the message.
    showTitle();
  }

  /** The number of seats, from the presence every state carries: one alone is not alerted and has no chat. */
  function seats(state) {
    const p = state && state.presence;
    if (!p || typeof p !== "object") return;
    const n = Object.keys(p).filter((k) => k !== "observer").length;
    solo = n === 1;
    document.getElementById("arbiter-chat").hidden = solo;
    document.getElementById("arbiter-alerts").hidden = solo;
    if (solo) document.getElementById("webhook-form").hidden = true;
    showPanel();
  }
  /** The panel is shown when it holds something: hidden for a replay and for one seat without a notice. */
  function showPanel() {
    if (!panel) return;
    const notice = document.getElementById("arbiter-seed");
    panel.hidden = mode === "replay" || (solo && notice.hidden && panel.querySelector(".arbiter-end:not([hidden]), .arbiter-offer:not([hidden])") === null);
  }

  /** The sound and the notification when this place has come to decide, or to choose at once. */
  function alertIfNew(wasYours, wasTogether, moves) {
    if (!wasYours && yours) yourTurnNow(moves && moves.prompt);
    else if (!wasTogether && together) yourTurnNow(together);
  }

  /** The chat's audiences: all, the players, and this seat's own private channels (the
   *  game's: a team's), each open to writing or not now. */
  function showChannels(channels) {
    const to = document.getElementById("chat-to");
    if (!to || !Array.isArray(channels)) return;
    for (const o of Array.from(to.querySelectorAll("option[data-channel]"))) {
      if (!channels.some(function (c) { return c.name === o.value; })) o.remove();
    }
    for (const c of channels) {
      let o = Array.from(to.options).find(function (x) { return x.value === c.name; });
      if (!o) {
        o = el("option", { value: String(c.name), "data-channel": "true" }, "to " + String(c.name) + " (private)");
        to.appendChild(o);
      }
      o.disabled = !c.open;
      if (o.disabled && to.value === o.value) to.value = "all";
    }
  }

  function turn(moves) {
    if (!moves) return;
    showChannels(moves.channels);
    yours = !!moves.yours;
    const t = moves.simultaneous;
    together = !yours && t && typeof t === "object" ? String(t.prompt || "Your move") : null;
    over = moves.outcome || null;
    showTitle();
    showEnd();
  }

  // ---------------------------------------------------------------- replays

  /** Replay mode: the controls, and `render` called with each position as a `sync`. */
  function replay(render) {
    ensurePanel();
    document.body.classList.add("replaying");
    let at = Number(params.get("at"));
    let total = 0;
    let as = params.get("as") || "";
    // The replay's own header: the game, its id, the move shown and whose view it is.
    const head = el(
      "div",
      { id: "replay-head", class: "replay-head" },
      el("b", { id: "replay-title" }, "Replay"),
      el("span", { id: "replay-game" }, "game ", el("code", { id: "replay-id" }, gameId)),
      el("span", { id: "replay-seat" }, "")
    );
    const bar = el(
      "nav",
      { id: "replay-bar", class: "replay-bar", "aria-label": "Replay" },
      head,
      el(
        "div",
        { class: "replay-controls" },
        el("button", { type: "button", id: "replay-first", title: "The start", "aria-label": "The start" }, "|◀"),
        el("button", { type: "button", id: "replay-back", title: "One move back", "aria-label": "One move back" }, "◀"),
        el("span", { id: "replay-at", class: "replay-at", "aria-live": "polite" }, "…"),
        el("button", { type: "button", id: "replay-forward", title: "One move forward", "aria-label": "One move forward" }, "▶"),
        el("button", { type: "button", id: "replay-last", title: "The end", "aria-label": "The end" }, "▶|"),
        el("label", {}, " Move ", el("input", { id: "replay-jump", type: "number", min: "0", class: "replay-jump" })),
        el("label", { id: "replay-turn-label", hidden: true }, " Turn ", el("select", { id: "replay-turn" })),
        el("label", { id: "replay-as-label", hidden: true }, " See as ", el("select", { id: "replay-as" }))
      ),
      el("span", { id: "replay-error", class: "arbiter-error", role: "alert", hidden: true })
    );
    document.body.insertBefore(bar, document.body.firstChild);
    // The game's title from its public facts (any game's, listed or not, by its id).
    fetch("/api/games/" + encodeURIComponent(gameId))
      .then((r) => (r.ok ? r.json() : null))
      .then((g) => {
        if (g && typeof g.title === "string") document.getElementById("replay-title").textContent = "Replay of " + g.title;
      })
      .catch(() => {});
    const $ = (id) => document.getElementById(id);
    async function go(n) {
      const q = "&at=" + Math.max(0, n) + (as ? "&as=" + encodeURIComponent(as) : "");
      try {
        const r = await fetch(api("replay", q));
        const body = await r.json().catch(() => ({}));
        if (!r.ok) throw new Error(body.error || "the server answered " + r.status);
        at = body.at;
        total = body.total;
        $("replay-at").textContent = "move " + at + " of " + total;
        $("replay-jump").value = String(at);
        $("replay-jump").max = String(total);
        $("replay-error").hidden = true;
        const turns = $("replay-turn");
        if (turns.options.length === 0 && Array.isArray(body.turns) && body.turns.length > 0) {
          for (const t of body.turns) turns.appendChild(el("option", { value: t.at }, String(t.turn)));
          $("replay-turn-label").hidden = false;
        }
        // The turn of the move shown: the last whose first move is at or before it.
        for (const o of turns.options) if (Number(o.value) <= at) turns.value = o.value;
        const sel = $("replay-as");
        if (sel.options.length === 0 && Array.isArray(body.views)) {
          for (const v of body.views) sel.appendChild(el("option", { value: v, selected: v === body.seat }, seatLabel(v)));
          $("replay-as-label").hidden = body.views.length < 2;
        }
        const url = "/replay/" + encodeURIComponent(gameId) + "?at=" + at + (as ? "&as=" + encodeURIComponent(as) : "");
        history.replaceState(null, "", url);
        seat = body.seat;
        if ($("replay-title").textContent === "Replay" && body.state && typeof body.state.game === "string") $("replay-title").textContent = "Replay of " + body.state.game;
        $("replay-seat").textContent = "seen as " + (body.seat === "observer" ? "an observer" : seatLabel(body.seat));
        render({ type: "sync", seat: body.seat, state: body.state, moves: body.moves, log: body.log, seat_views: body.seat_views || null });
      } catch (e) {
        $("replay-error").textContent = String(e.message);
        $("replay-error").hidden = false;
      }
    }
    $("replay-first").addEventListener("click", () => go(0));
    $("replay-back").addEventListener("click", () => go(at - 1));
    $("replay-forward").addEventListener("click", () => go(Math.min(total, at + 1)));
    $("replay-last").addEventListener("click", () => go(total));
    $("replay-jump").addEventListener("change", () => go(Number($("replay-jump").value) || 0));
    $("replay-turn").addEventListener("change", () => go(Number($("replay-turn").value) || 0));
    $("replay-as").addEventListener("change", () => {
      as = $("replay-as").value;
      go(at);
    });
    document.addEventListener("keydown", (ev) => {
      if (ev.target && /INPUT|SELECT|TEXTAREA/.test(ev.target.tagName)) return;
      if (ev.key === "ArrowLeft") go(at - 1);
      else if (ev.key === "ArrowRight") go(Math.min(total, at + 1));
    });
    go(params.has("at") ? at : 1e9);
  }

  /**
   * The game's WebSocket for the seat of `token`, kept open. `receive(m)` hears each message
   * (then the host's features do, `Arbiter.message`); `status` (an element) shows the
   * connection (`data-state` connecting, connected, reconnecting or stopped); `closed()`, if given, is
   * told each time the socket closes. A socket that closes without having opened asks the
   * server why (`GET …/moves`): a link to no game (404) or to no seat (401) is told to
   * `fatal(reason)` and not retried. Any other close retries, waiting twice as long each time
   * from 0.5 s up to 10 s, give or take a quarter (a restarted server's pages do not all come
   * back at once). Answers `send(message)`, whether it went out (not while reconnecting), and
   * `socket`, the one open now (or null).
   */
  function connect(gameId, token, opts) {
    let socket = null;
    let attempt = 0;
    let timer = null;
    let stopped = false;
    const show = (state, text) => {
      if (!opts.status) return;
      opts.status.dataset.state = state;
      opts.status.textContent = text;
    };
    const base = "/api/games/" + encodeURIComponent(gameId);
    function open() {
      if (stopped) return;
      timer = null;
      const proto = location.protocol === "https:" ? "wss:" : "ws:";
      show(attempt === 0 ? "connecting" : "reconnecting", attempt === 0 ? "connecting…" : "reconnecting…");
      let opened = false;
      let ws;
      try {
        ws = new WebSocket(proto + "//" + location.host + base + "/ws?token=" + encodeURIComponent(token));
      } catch (e) {
        return retry();
      }
      socket = ws;
      ws.onopen = () => {
        opened = true;
        attempt = 0;
        show("connected", "connected");
      };
      ws.onmessage = (ev) => {
        let m;
        try {
          m = JSON.parse(ev.data);
        } catch (e) {
          return;
        }
        if (!m || typeof m !== "object") return;
        opts.receive(m);
        message(m);
      };
      ws.onclose = () => {
        if (socket !== ws) return;
        socket = null;
        if (opts.closed) opts.closed();
        if (!opened) why();
        retry();
      };
    }
    function retry() {
      if (stopped || timer) return;
      const delay = Math.min(10000, 500 * Math.pow(2, attempt)) * (0.75 + Math.random() * 0.5);
      attempt++;
      show("reconnecting", "reconnecting…");
      timer = setTimeout(open, delay);
    }
    /** A socket that never opened: is the link wrong, or the server away? */
    function why() {
      fetch(base + "/moves?token=" + encodeURIComponent(token))
        .then((r) => {
          if (r.status !== 401 && r.status !== 404) return;
          stopped = true;
          if (timer) clearTimeout(timer);
          show("stopped", "not connected");
          opts.fatal(r.status === 404 ? "There is no such game on this server." : "This link is not a seat of this game.");
        })
        .catch(() => {});
    }
    open();
    return {
      send(m) {
        if (!socket || socket.readyState !== WebSocket.OPEN) return false;
        socket.send(JSON.stringify(m));
        return true;
      },
      get socket() {
        return socket;
      },
    };
  }

  /**
   * The time `seat` has left now on a game's `clock` (the state's: `left_ms` as the server read
   * it at `at`), counting down while its time runs; null without a clock.
   */
  function timeLeft(clock, seat) {
    if (!clock || !clock.left_ms || !(seat in clock.left_ms)) return null;
    let ms = Number(clock.left_ms[seat]) || 0;
    const at = Date.parse(clock.at);
    if ((clock.running_seats || []).includes(seat) && !isNaN(at)) ms -= Date.now() - at;
    return Math.max(0, ms);
  }

  /** Milliseconds as a clock shows them: 4:05, 1:02:03, 2d 3:04:05. */
  function formatTime(ms) {
    const t = Math.floor(Math.max(0, ms) / 1000);
    const d = Math.floor(t / 86400);
    const h = Math.floor((t % 86400) / 3600);
    const m = Math.floor((t % 3600) / 60);
    const two = (n) => (n < 10 ? "0" : "") + n;
    const hms = (d || h ? h + ":" + two(m) : String(m)) + ":" + two(t % 60);
    return d ? d + "d " + hms : hms;
  }

  return { message, replay, connect, myGames, remember, forget, seatLabel, el, timeLeft, formatTime, replaying: mode === "replay" };
})();
