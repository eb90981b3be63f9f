// Arbiter's Diplomacy client: the board drawn from the project's own map data (each province
// a node at the place the map file gives it, the adjacencies as lines, the supply centres in
// their owners' colours, the units, the last movement's orders as arrows: solid where they
// succeeded, dashed where they failed), the power's part of the phase (its units to click for
// their orders, a box to type an order, its orders given so far, take back, done), and the log
// it may read. Every power orders at once: a power that is not the first to act finds its
// moves under `simultaneous`. Everything the server sends is put into the page as text.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  const gameId = decodeURIComponent(location.pathname.split("/").pop() || "");
  const replaying = window.Arbiter && Arbiter.replaying;
  const COLOURS = { austria: "#e05a4f", england: "#3b5bdb", france: "#74c0fc", germany: "#868e96", italy: "#51cf66", russia: "#f8f9fa", turkey: "#fcc419" };
  const NAMES = { austria: "Austria", england: "England", france: "France", germany: "Germany", italy: "Italy", russia: "Russia", turkey: "Turkey" };
  let map = null;
  let state = null;
  let moves = null;
  let seat = null;
  let conn = null;
  let selected = null;

  function fatal(msg) {
    $("fatal").textContent = msg;
    $("fatal").hidden = false;
  }
  if (!token && !replaying) return fatal("This page needs a power's link: /play/GAME?token=… (the links are given when the game is created).");

  function el(name, attrs, text) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  }
  const province = (name) => String(name).toLowerCase().split("/")[0];
  const at = (id) => (map && map.byId[province(id)] ? map.byId[province(id)].at : [0, 0]);

  function send(text) {
    $("rejected").hidden = true;
    if (conn) conn.send({ type: "move", move: text });
  }

  /** This power's part of the decision now: its prompt and moves (none while it waits). */
  function mine() {
    if (!moves) return { prompt: "", list: [] };
    if (moves.yours) return { prompt: moves.prompt || "", list: moves.moves || [] };
    if (moves.simultaneous) return { prompt: moves.simultaneous.prompt || "", list: moves.simultaneous.moves || [] };
    return { prompt: "", list: [] };
  }

  function owners() {
    const owner = {};
    for (const [power, centres] of state.centres || []) for (const c of centres) owner[province(c)] = power;
    return owner;
  }

  function drawBoard() {
    const svg = $("board");
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (!map) return;
    const edges = el("g", { class: "edges" });
    const seen = new Set();
    for (const [a, b] of map.army.concat(map.fleet)) {
      const key = [province(a), province(b)].sort().join("-");
      if (seen.has(key)) continue;
      seen.add(key);
      const [x1, y1] = at(a);
      const [x2, y2] = at(b);
      edges.appendChild(el("line", { class: "edge", x1, y1, x2, y2 }));
    }
    svg.appendChild(edges);
    const owner = state ? owners() : {};
    for (const p of map.provinces) {
      const g = el("g", { class: "province " + p.type, "data-province": p.id });
      g.appendChild(el("circle", { cx: p.at[0], cy: p.at[1], r: 17 }));
      g.appendChild(el("title", {}, p.name));
      g.appendChild(el("text", { x: p.at[0], y: p.at[1] + 30 }, p.id.charAt(0).toUpperCase() + p.id.slice(1)));
      if (p.supply_centre) {
        const o = owner[p.id];
        g.appendChild(el("circle", { class: "centre", cx: p.at[0] + 13, cy: p.at[1] - 13, r: 5, fill: o ? COLOURS[o] : "#fff", "data-owner": o || "" }));
      }
      svg.appendChild(g);
    }
    if (!state) return;
    // The last movement phase's orders: arrows from the unit to where it moved or supported.
    const defs = el("defs");
    for (const [id, colour] of [["ok", "#1a7f37"], ["failed", "#b42318"]]) {
      const mk = el("marker", { id: "head-" + id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" });
      mk.appendChild(el("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: colour }));
      defs.appendChild(mk);
    }
    svg.appendChild(defs);
    for (const r of state.last || []) {
      if (!r.to || r.to === r.from) continue;
      const [x1, y1] = at(r.from);
      const [x2, y2] = at(r.to);
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const cut = Math.min(18, len / 3);
      const kind = r.succeeded ? "ok" : "failed";
      const line = el("line", {
        class: "result " + kind + (r.kind === "Move" ? "" : " support"),
        x1: x1 + ((x2 - x1) * cut) / len,
        y1: y1 + ((y2 - y1) * cut) / len,
        x2: x2 - ((x2 - x1) * cut) / len,
        y2: y2 - ((y2 - y1) * cut) / len,
        "marker-end": r.kind === "Move" ? "url(#head-" + kind + ")" : "",
        "data-order": r.order,
      });
      line.appendChild(el("title", {}, NAMES[r.power] + ": " + r.order + (r.succeeded ? "" : " (failed)")));
      svg.appendChild(line);
    }
    for (const u of state.units) {
      const [kind, where] = u.unit.split(" ");
      const [x, y] = at(where);
      const dx = u.dislodged ? 14 : 0;
      const g = el("g", { class: "unit" + (u.power === seat ? " mine" : "") + (u.dislodged ? " dislodged" : "") + (selected === u.unit ? " selected" : ""), "data-unit": u.unit, "data-power": u.power });
      g.appendChild(el("rect", { x: x - 10 + dx, y: y - 9 + dx, width: 20, height: 18, rx: kind === "F" ? 9 : 2, fill: COLOURS[u.power] || "#ccc" }));
      g.appendChild(el("text", { x: x + dx, y: y + 4 + dx }, kind));
      g.appendChild(el("title", {}, NAMES[u.power] + ": " + u.unit + (u.dislodged ? " (dislodged; may retreat to " + (u.retreats.join(", ") || "nowhere") + ")" : "")));
      if (u.power === seat) g.addEventListener("click", () => select(u.unit));
      svg.appendChild(g);
    }
  }

  /** Where an order is listed among its unit's: hold, moves to a neighbour, supports,
   * convoys, then moves across the sea (by convoy). */
  function rank(order) {
    const w = order.split(" ");
    if (w[2] === "H") return 0;
    if (w[2] === "S") return 2;
    if (w[2] === "C") return 3;
    if (w[2] === "-") return order.includes("via convoy") || !map.adjacent.has(province(w[1]) + "-" + province(w[3])) ? 4 : 1;
    return 5;
  }

  function select(unit) {
    selected = selected === unit ? null : unit;
    render();
  }

  function button(text, onClick, data) {
    const b = Object.assign(document.createElement("button"), { type: "button", textContent: text });
    for (const [k, v] of Object.entries(data || {})) b.dataset[k] = v;
    b.addEventListener("click", onClick);
    return b;
  }

  function clear(box) {
    while (box.firstChild) box.removeChild(box.firstChild);
  }

  function render() {
    if (!state) return;
    $("phase").textContent = state.season + " " + state.year + ": " + state.phase.toLowerCase();
    const powers = $("powers");
    clear(powers);
    for (const [power, centres] of state.centres) {
      const li = Object.assign(document.createElement("li"), { textContent: (NAMES[power] || power) + " " + centres.length });
      li.style.background = COLOURS[power] || "";
      li.dataset.power = power;
      li.dataset.done = String((state.done || []).includes(power));
      if (state.clock) {
        // Each power's time: for the phase (a deadline) or the whole game (a chess clock).
        const time = Object.assign(document.createElement("span"), { className: "time" });
        time.dataset.time = power;
        time.title = state.clock.per === "step" ? "time left for this phase" : "time left for the game";
        li.appendChild(time);
      }
      powers.appendChild(li);
    }
    tick();
    drawBoard();
    const part = mine();
    const acting = part.list.length > 0;
    $("typed").hidden = !acting;
    // Orders by unit: a unit's own orders start with its name ("A Par ").
    const units = $("units");
    clear(units);
    const byUnit = {};
    const others = [];
    for (const m of part.list) {
      const words = m.split(" ");
      const unit = /^[AF]$/.test(words[0]) ? words[0] + " " + words[1] : null;
      if (unit) (byUnit[unit] = byUnit[unit] || []).push(m);
      else others.push(m);
    }
    if (selected && !byUnit[selected]) selected = null;
    for (const unit of Object.keys(byUnit)) units.appendChild(button(unit, () => select(unit), { unit }));
    const choices = $("choices");
    clear(choices);
    const listed = selected ? byUnit[selected].slice().sort((a, b) => rank(a) - rank(b)) : others.filter((m) => m !== "done");
    for (const m of listed) choices.appendChild(button(m, () => send(m), { move: m }));
    const given = $("given");
    clear(given);
    for (const o of state.your_orders || []) given.appendChild(Object.assign(document.createElement("li"), { textContent: o }));
    const actions = $("actions");
    clear(actions);
    if (part.list.includes("done")) actions.appendChild(button("Done: these are my orders", () => send("done"), { move: "done" }));
    // D03: orders may be taken back until the phase resolves.
    if (moves && moves.undo) actions.appendChild(button("Take back my last order", () => conn && conn.send({ type: "undo" }), { undo: "true" }));
    const end = state.end;
    $("prompt").textContent = end ? "" : acting ? "Your orders: " + part.prompt + (selected ? " (" + selected + " selected)" : " (click a unit of yours)") : seat === "observer" ? "" : "Waiting for the other powers.";
    const o = $("outcome");
    o.hidden = !end;
    o.textContent = !end ? "" : end.Won ? (NAMES[end.Won] || end.Won) + " wins." : "A draw shared by " + (end.Drawn || []).map((p) => NAMES[p] || p).join(", ") + ".";
  }

  /** The powers' clocks, counted down between the server's readings. */
  function tick() {
    for (const span of document.querySelectorAll("[data-time]")) {
      const ms = Arbiter.timeLeft(state && !state.end ? state.clock : null, span.dataset.time);
      const running = state && state.clock && (state.clock.running_seats || []).includes(span.dataset.time);
      span.textContent = ms === null ? "" : Arbiter.formatTime(ms);
      span.classList.toggle("running", Boolean(running) && !state.end);
    }
  }
  setInterval(tick, 1000);

  function addLog(lines) {
    for (const l of lines || []) {
      const heading = /^#\d+ /.test(String(l));
      $("log").appendChild(Object.assign(document.createElement("li"), { textContent: String(l), className: heading ? "heading" : "" }));
    }
    $("log").scrollTop = $("log").scrollHeight;
  }

  function receive(m) {
    if (m.type === "sync") {
      seat = m.seat;
      $("seat").textContent = seat === "observer" ? "Observer" : "You play " + (NAMES[seat] || seat);
      state = m.state;
      moves = m.moves;
      $("log").textContent = "";
      addLog(m.log);
      render();
    } else if (m.type === "move") {
      state = m.state;
      moves = m.moves;
      addLog(["#" + m.seq + " " + (NAMES[m.side] || m.side || "") + ": " + m.text].concat(m.log || []));
      render();
    } else if (m.type === "undo") {
      state = m.state;
      moves = m.moves;
      $("log").textContent = "";
      addLog((m.log || []).concat(m.line ? [m.line] : []));
      render();
    } else if (m.type === "rejected") {
      $("rejected").textContent = m.error;
      $("rejected").hidden = false;
    } else if (m.type === "closing") {
      $("conn").textContent = "closed: " + m.reason;
    }
  }

  $("typed").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("order").value.trim();
    if (text) send(text);
    $("order").value = "";
  });

  fetch("/api/kinds/diplomacy/map")
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error("the map: " + r.status))))
    .then((data) => {
      map = data;
      map.byId = {};
      for (const p of map.provinces) map.byId[p.id] = p;
      map.adjacent = new Set();
      for (const [a, b] of map.army.concat(map.fleet)) {
        map.adjacent.add(province(a) + "-" + province(b));
        map.adjacent.add(province(b) + "-" + province(a));
      }
      if (replaying) {
        $("conn").textContent = "replay";
        Arbiter.replay(receive);
      } else conn = Arbiter.connect(gameId, token, { status: $("conn"), receive, fatal });
    })
    .catch((e) => fatal("The board could not be loaded: " + e.message));
})();
