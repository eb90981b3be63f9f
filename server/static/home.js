// Arbiter's new-game page, the same for every game: the games and their options come from
// /api/kinds; each option is a field of its default's type (a box for true/false, a number, a
// text). Everything the server sends is put into the page as text, never as HTML.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const err = $("create-error");
  let kinds = [];

  // The host's script (arbiter.js, loaded first) builds elements as text-only DOM.
  const el = Arbiter.el;
  function fail(msg) {
    err.textContent = msg;
    err.hidden = false;
  }
  /** "max_turns" -> "Max turns"; a word that is one of the game's seats is written as the seat
   * is when short ("b_bonus" -> "B bonus" in a game whose seats are "a" and "b"). */
  function label(key, seats) {
    const words = String(key).split("_").map((w) => ((seats || []).includes(w) && w.length <= 4 ? w.toUpperCase() : w));
    const t = words.join(" ");
    return t.charAt(0).toUpperCase() + t.slice(1);
  }
  /** Seat ids are shown upper-case when short ("b" -> "B"). */
  function seatLabel(id) {
    return id.length <= 4 && id !== "observer" ? id.toUpperCase() : label(id);
  }
  /** A time the server gave (RFC 3339) as this browser writes dates. */
  function when(t) {
    const d = new Date(t);
    if (isNaN(d.getTime())) return String(t);
    try {
      return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
    } catch (e) {
      return d.toLocaleString();
    }
  }

  function kindSeats() {
    const k = kinds.find((x) => x.id === $("game").value);
    return (k && k.seats) || [];
  }

  function showOptions() {
    const k = kinds.find((x) => x.id === $("game").value);
    const box = $("options");
    while (box.firstChild) box.removeChild(box.firstChild);
    if (!k) return;
    for (const [key, def] of Object.entries(k.options || {})) {
      const id = "opt-" + key;
      const name = label(key, k.seats);
      if (typeof def === "boolean") box.appendChild(el("label", { class: "check" }, el("input", { id, type: "checkbox", "data-option": key, checked: def }), " " + name));
      else if (typeof def === "number") {
        // The bounds the game gives (`shape`): an option's, or the range of seats.
        const shape = k.shape || {};
        const spec = (shape.options || []).find((o) => o.key === key);
        const range = key === "seats" && shape.seats ? { min: shape.seats.min, max: shape.seats.max } : spec && spec.type === "integer" ? { min: spec.min, max: spec.max } : {};
        box.appendChild(el("label", {}, name + " ", el("input", Object.assign({ id, type: "number", "data-option": key, value: def }, range))));
      }
      else box.appendChild(el("label", {}, name + " ", el("input", { id, "data-option": key, value: def === null ? "" : String(def) })));
    }
    // An option with choices and no default (a preset): none, or one of them.
    for (const spec of ((k.shape || {}).options || []).filter((o) => o.type === "choice" && !(o.key in (k.options || {})))) {
      const pick = el("select", { id: "opt-" + spec.key, "data-option": spec.key, title: spec.help || "" }, el("option", { value: "" }, "none"));
      for (const c of spec.choices) pick.appendChild(el("option", { value: c }, c));
      box.appendChild(el("label", {}, label(spec.key, k.seats) + " ", pick));
    }
    // A game of one seat has nobody to join it: not listed unless asked for.
    $("listed").checked = k.seats.length > 1;
    $("clock-row").hidden = !k.clock;
    // Against the computer: the player's seat (the computer takes another) and the level.
    $("computer-row").hidden = !k.computer;
    const ownSeat = $("my-seat");
    while (ownSeat.firstChild) ownSeat.removeChild(ownSeat.firstChild);
    const level = $("level");
    while (level.firstChild) level.removeChild(level.firstChild);
    if (k.computer) {
      for (const s of k.seats) ownSeat.appendChild(el("option", { value: s }, seatLabel(s)));
      for (const n of k.computer.levels) {
        const words = n === 1 ? " (quick)" : n === k.computer.levels.length ? " (slow)" : n === k.computer.default_level ? " (default)" : "";
        level.appendChild(el("option", { value: n, selected: n === k.computer.default_level }, String(n) + words));
      }
    }
    showOpponent();
  }

  function showOpponent() {
    const vs = !$("computer-row").hidden && $("opponent").value === "computer";
    for (const e of document.querySelectorAll(".vs-computer")) e.hidden = !vs;
    // Against a person: every seat's link to share, or one seat and the others free to join
    // from the open games.
    const k = kinds.find((x) => x.id === $("game").value);
    const take = $("take");
    while (take.firstChild) take.removeChild(take.firstChild);
    take.appendChild(el("option", { value: "" }, "all (share the links)"));
    for (const s of (k && k.seats) || []) take.appendChild(el("option", { value: s }, seatLabel(s) + " (others join)"));
    $("take-row").hidden = vs || !k || k.seats.length < 2;
  }

  async function load() {
    try {
      const r = await fetch("/api/kinds");
      kinds = (await r.json()).games || [];
    } catch (e) {
      return fail("Cannot reach the server: " + e.message);
    }
    for (const k of kinds) $("game").appendChild(el("option", { value: k.id }, k.title));
    $("game").addEventListener("change", showOptions);
    $("opponent").addEventListener("change", showOpponent);
    showOptions();
  }

  $("create").addEventListener("submit", async function (ev) {
    ev.preventDefault();
    err.hidden = true;
    // Built by hand so that a seed up to 2^64-1 keeps every digit (JSON numbers in JavaScript
    // do not).
    const parts = ['"game": ' + JSON.stringify($("game").value)];
    const seed = $("seed").value.trim();
    if (seed !== "") {
      if (!/^[0-9]{1,20}$/.test(seed)) return fail("The seed is a whole number (or empty for a random one).");
      parts.push('"seed": ' + seed);
    }
    // Only the options changed from their defaults (and a choice made): the game completes
    // the rest, so that a preset chosen is not overridden by the numbers it replaces.
    const options = {};
    const defaults = (kinds.find((x) => x.id === $("game").value) || {}).options || {};
    for (const input of document.querySelectorAll("[data-option]")) {
      const key = input.dataset.option;
      let value;
      if (input.type === "checkbox") value = input.checked;
      else if (input.type === "number") {
        if (input.value.trim() === "" || !/^-?[0-9]+$/.test(input.value.trim())) return fail(label(key, kindSeats()) + " is a whole number.");
        value = Number(input.value);
      } else if (input.tagName === "SELECT" && input.value === "") continue;
      else value = input.value;
      if (!(key in defaults) || defaults[key] !== value) options[key] = value;
    }
    parts.push('"options": ' + JSON.stringify(options));
    const clock = $("clock").value.trim();
    if (clock !== "" && !$("clock-row").hidden) {
      // The server's bounds: a chess clock up to 600 minutes, a deadline up to a week.
      const deadline = $("clock-per").value === "step";
      const most = deadline ? 10080 : 600;
      if (!/^[0-9]{1,5}$/.test(clock) || Number(clock) < 1 || Number(clock) > most) return fail("The clock is a whole number of minutes, 1 to " + most + ".");
      parts.push((deadline ? '"deadline_minutes": ' : '"clock_minutes": ') + Number(clock));
    }
    let me = null;
    if (!$("computer-row").hidden && $("opponent").value === "computer") {
      const k = kinds.find((x) => x.id === $("game").value);
      me = $("my-seat").value;
      // The computer in every other seat (one seat by its id, several as a list).
      const others = k.seats.filter((s) => s !== me);
      parts.push('"computer": ' + JSON.stringify(others.length === 1 ? others[0] : others));
      parts.push('"level": ' + Number($("level").value));
    }
    parts.push('"listed": ' + ($("listed").checked ? "true" : "false"));
    if (!$("take-row").hidden && $("take").value) {
      parts.push('"seat": ' + JSON.stringify($("take").value));
    }
    const button = $("create-button");
    button.disabled = true;
    try {
      const r = await fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{" + parts.join(", ") + "}" });
      const body = await r.json().catch(() => ({}));
      if (!r.ok) return fail(body.error || "The server answered " + r.status + ".");
      // This browser holds every link it was given: "my games" lists them.
      for (const [seat, path] of Object.entries(body.links || {})) {
        Arbiter.remember({ id: body.id, seat: seat, token: body.tokens[seat], link: path, game: body.game });
      }
      // Against the computer there is nobody to send a link to: straight to the game.
      if (me && body.links && typeof body.links[me] === "string") {
        location.href = body.links[me];
        return;
      }
      showMine();
      showLobby();
      const rows = $("link-rows");
      while (rows.firstChild) rows.removeChild(rows.firstChild);
      for (const [seat, path] of Object.entries(body.links || {})) {
        const url = location.origin + path;
        const input = el("input", { readonly: true, id: "link-" + seat, "aria-label": seatLabel(seat) + " link" });
        input.value = url;
        const copy = el("button", { type: "button", class: "copy" }, "Copy");
        copy.addEventListener("click", async function () {
          let ok = false;
          try {
            await navigator.clipboard.writeText(input.value);
            ok = true;
          } catch (e) {
            input.focus();
            input.select();
            try {
              ok = document.execCommand("copy");
            } catch (e2) {
              ok = false;
            }
          }
          copy.textContent = ok ? "Copied" : "Select and copy";
          setTimeout(() => (copy.textContent = "Copy"), 1500);
        });
        rows.appendChild(el("div", { class: "link-row", "data-seat": seat }, el("span", { class: "seat-name " + seat }, seatLabel(seat)), input, copy, el("a", { id: "open-" + seat, target: "_blank", rel: "noopener", href: url }, "Open")));
      }
      const vs = parts.find((p) => p.startsWith('"computer"'));
      $("vs-note").hidden = !vs;
      if (vs) $("vs-note").textContent = "The computer plays the " + seatLabel(JSON.parse(vs.slice(vs.indexOf(":") + 1))) + ": open your link to play; it answers as soon as it has decided.";
      $("game-id").textContent = body.id;
      $("links").hidden = false;
      // The links are what the creator needs next: at the top of the page, scrolled to.
      $("links").scrollIntoView({ block: "start" });
    } catch (e) {
      fail("Cannot reach the server: " + e.message);
    } finally {
      button.disabled = false;
    }
  });

  // ------------------------------------------------------------------ the lobby

  function outcomeText(g) {
    return g.outcome ? "over: " + (g.outcome.text || g.outcome.reason || "") : null;
  }
  function facts(g) {
    const bits = [g.moves + (g.moves === 1 ? " move" : " moves")];
    if (g.to_move) bits.push(seatLabel(g.to_move) + " to move");
    bits.push(g.last_move_at ? "last move " + when(g.last_move_at) : "created " + when(g.created_at));
    return bits.join(" · ");
  }
  function optionsText(g) {
    const o = g.options && typeof g.options === "object" ? Object.entries(g.options) : [];
    const seats = Array.isArray(g.seats) ? g.seats.map((s) => s.id) : [];
    return o.map(([k, v]) => label(k, seats) + ": " + (v === true ? "yes" : v === false ? "no" : String(v))).join(", ");
  }

  let lobbyNext = null;
  async function showLobby(more) {
    const list = $("lobby");
    if (!more) {
      while (list.firstChild) list.removeChild(list.firstChild);
      lobbyNext = null;
    }
    try {
      const r = await fetch("/api/games?limit=50" + (more && lobbyNext ? "&before=" + encodeURIComponent(lobbyNext) : ""));
      const body = await r.json();
      if (!r.ok) throw new Error(body.error || r.status);
      for (const g of body.games || []) list.appendChild(lobbyRow(g));
      lobbyNext = body.next || null;
      $("lobby-more").hidden = !lobbyNext;
      $("lobby-empty").hidden = list.children.length > 0;
      $("lobby-error").hidden = true;
    } catch (e) {
      $("lobby-error").textContent = "Cannot read the open games: " + e.message;
      $("lobby-error").hidden = false;
    }
  }

  function lobbyRow(g) {
    const row = el("li", { class: "game-row", "data-game": g.id }, el("span", { class: "title" }, g.title), el("span", { class: "facts" }, optionsText(g)));
    for (const s of g.seats) {
      if (s.status === "free") {
        row.appendChild(el("button", { type: "button", class: "join", "data-seat": s.id, onclick: () => join(g, s.id) }, "Join as " + seatLabel(s.id)));
      } else {
        row.appendChild(el("span", { class: "seat " + s.status }, seatLabel(s.id) + ": " + (s.status === "computer" ? "the computer" : "taken")));
      }
    }
    row.appendChild(el("button", { type: "button", class: "watch", onclick: () => watch(g) }, "Watch"));
    row.appendChild(el("span", { class: "facts" }, facts(g)));
    if (g.seed_chosen) row.appendChild(el("span", { class: "facts seed-chosen" }, "seed chosen by its creator"));
    return row;
  }

  async function join(g, seat, accepted) {
    if (g.seed_chosen && !accepted) {
      // Told before joining (API.md, join): whoever chose the seed can know every draw.
      const note = $("lobby-error");
      while (note.firstChild) note.removeChild(note.firstChild);
      note.appendChild(document.createTextNode("The creator of this game chose its seed, so they can know every draw and die roll, your hidden cards included. "));
      note.appendChild(el("button", { type: "button", id: "accept-seed", onclick: () => join(g, seat, true) }, "Accept and join as " + seatLabel(seat)));
      note.hidden = false;
      return;
    }
    try {
      const body0 = { seat: seat };
      if (accepted) body0.accept_chosen_seed = true;
      const r = await fetch("/api/games/" + encodeURIComponent(g.id) + "/join", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body0) });
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.error || "the server answered " + r.status);
      Arbiter.remember({ id: g.id, seat: body.seat, token: body.token, link: body.link, game: g.game });
      location.href = body.link;
    } catch (e) {
      $("lobby-error").textContent = "Cannot join: " + e.message;
      $("lobby-error").hidden = false;
      showLobby();
    }
  }

  async function watch(g) {
    try {
      const r = await fetch("/api/games/" + encodeURIComponent(g.id) + "/watch");
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body.error || "the server answered " + r.status);
      location.href = body.link;
    } catch (e) {
      $("lobby-error").textContent = "Cannot watch: " + e.message;
      $("lobby-error").hidden = false;
    }
  }

  // ------------------------------------------------------------------ my games

  /** Who plays against the seat `m` holds in game `g` (its public facts): the computer, a person,
   * nobody yet, or this browser too. */
  function opponents(g, m, held) {
    if (m.seat === "observer") return "";
    const others = (g.seats || []).filter((s) => s.id !== m.seat);
    if (others.length === 0) return "one seat";
    return others
      .map((s) => {
        const who = seatLabel(s.id);
        if (s.status === "computer") return "against the computer (" + who + ")";
        if (held.some((h) => h.id === m.id && h.seat === s.id)) return who + " held here too";
        if (s.status === "taken") return "against a person (" + who + ")";
        return who + " free: nobody joined yet";
      })
      .join(", ");
  }
  function lastMove(g) {
    if (!g.moves) return "no move yet";
    return "last move #" + g.moves + (g.last_move_at ? " " + when(g.last_move_at) : "");
  }

  async function showMine() {
    const list = $("my-games");
    while (list.firstChild) list.removeChild(list.firstChild);
    const held = Arbiter.myGames();
    $("my-games-panel").hidden = held.length === 0;
    for (const m of held) {
      const state = el("span", { class: "facts state" }, "…");
      const vs = el("span", { class: "facts opponent" });
      const created = el("span", { class: "facts created" });
      const last = el("span", { class: "facts last-move" });
      const link = el("input", { class: "link", readonly: true, hidden: true, "aria-label": "Link" });
      link.value = location.origin + m.link;
      const title = el("span", { class: "title" }, m.game || "game");
      const row = el(
        "li",
        { class: "game-row held", "data-game": m.id, "data-seat": m.seat },
        title,
        el("span", { class: "seat" }, m.seat === "observer" ? "watching" : "you play " + seatLabel(m.seat)),
        vs,
        state,
        created,
        last,
        el("span", { class: "facts game-id" }, "game ", el("code", {}, m.id)),
        el("a", { href: m.link, class: "open" }, "Open"),
        el("button", { type: "button", class: "show-link", onclick: () => (link.hidden = !link.hidden) }, "Show the link"),
        el("button", { type: "button", class: "forget", onclick: () => { Arbiter.forget(m.id, m.token); showMine(); } }, "Forget"),
        link
      );
      list.appendChild(row);
      fetch("/api/games/" + encodeURIComponent(m.id))
        .then((r) => (r.ok ? r.json() : Promise.reject(new Error(r.status === 404 ? "no longer on this server" : "answered " + r.status))))
        .then((g) => {
          title.textContent = g.title;
          const yours = g.to_move && g.to_move === m.seat;
          state.textContent = outcomeText(g) || (yours ? "your move" : g.to_move ? seatLabel(g.to_move) + " to move" : "");
          state.className = yours ? "facts state your-move" : "facts state";
          vs.textContent = opponents(g, m, held);
          vs.hidden = vs.textContent === "";
          created.textContent = "created " + when(g.created_at);
          last.textContent = lastMove(g);
        })
        .catch((e) => (state.textContent = e.message));
    }
  }

  $("lobby-more").addEventListener("click", () => showLobby(true));
  load();
  showMine();
  showLobby();
})();
