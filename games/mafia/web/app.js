// Arbiter's Mafia client: the table from the player's view (the players, alive or dead, each
// role the player may know, who has acted at the step now), its own part of the decision (the
// moves it may make now, as buttons), and the log it may read. Every seat of a night or a day
// acts at once: a seat that is not the first to act finds its moves under `simultaneous`.
// Everything the server sends is put into the page as text, never as HTML.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  const gameId = decodeURIComponent(location.pathname.split("/").pop() || "");
  let state = null;
  let moves = null;
  let seat = null;
  let conn = null;

  function fatal(msg) {
    $("fatal").textContent = msg;
    $("fatal").hidden = false;
  }
  const replaying = window.Arbiter && Arbiter.replaying;
  if (!token && !replaying) return fatal("This page needs a seat's link: /play/GAME?token=… (the links are given when the game is created).");

  const ROLES = { Mafioso: "Mafia", Doctor: "the Doctor", Cop: "the Cop", Roleblocker: "the Roleblocker", Villager: "a Villager" };

  function send(text) {
    $("rejected").hidden = true;
    if (conn) conn.send({ type: "move", move: text });
  }

  /** This seat's part of the decision now: its prompt and moves (none while it waits). */
  function mine() {
    if (!moves) return { prompt: "", list: [] };
    if (moves.yours) return { prompt: moves.prompt || "", list: moves.moves || [] };
    if (moves.simultaneous) return { prompt: moves.simultaneous.prompt || "", list: moves.simultaneous.moves || [] };
    return { prompt: "", list: [] };
  }

  function render() {
    if (!state) return;
    const night = state.phase === "Night";
    $("phase").textContent = (night ? "Night " : "Day ") + state.round;
    const me = state.you ? state.players[state.you - 1] : null;
    $("role").textContent = me && me.role ? "You are " + ROLES[me.role] + (me.alive ? "" : " (dead)") : seat === "observer" ? "You are watching." : "";
    const players = $("players");
    while (players.firstChild) players.removeChild(players.firstChild);
    for (const p of state.players) {
      const li = document.createElement("li");
      li.dataset.alive = String(p.alive);
      li.dataset.you = String(state.you === p.player);
      li.dataset.player = String(p.player);
      li.appendChild(document.createTextNode("Player " + p.player + (p.role ? ": " + ROLES[p.role] : "")));
      if (p.alive && p.acted) li.appendChild(Object.assign(document.createElement("div"), { className: "acted", textContent: night ? "has acted tonight" : "has voted" }));
      if (!p.alive) li.appendChild(Object.assign(document.createElement("div"), { className: "acted", textContent: "dead" }));
      if (p.alive && state.clock) {
        // The player's time: for this step (a deadline) or the whole game (a chess clock).
        const time = Object.assign(document.createElement("div"), { className: "time" });
        time.dataset.time = "player-" + p.player;
        time.title = state.clock.per === "step" ? "time left for this step" : "time left for the game";
        li.appendChild(time);
      }
      players.appendChild(li);
    }
    const secrets = $("secrets");
    while (secrets.firstChild) secrets.removeChild(secrets.firstChild);
    const notes = [].concat(
      state.your_choice ? ["Your choice: " + state.your_choice] : [],
      (state.mafia_choices || []).map((c) => "The Mafia tonight: " + c),
      (state.findings || []).map((f) => "Found: " + f),
      state.last_protected ? ["You protected Player " + state.last_protected + " last night (not again tonight)."] : []
    );
    for (const n of notes) secrets.appendChild(Object.assign(document.createElement("li"), { textContent: n }));
    const part = mine();
    const box = $("moves");
    while (box.firstChild) box.removeChild(box.firstChild);
    for (const m of part.list) {
      const b = Object.assign(document.createElement("button"), { type: "button", textContent: m });
      b.dataset.move = m;
      b.addEventListener("click", () => send(m));
      box.appendChild(b);
    }
    // M03: a choice may be taken back until the night (or the day's vote) resolves.
    if (moves && moves.undo && !part.list.length) {
      const u = Object.assign(document.createElement("button"), { type: "button", textContent: "Take back my choice" });
      u.dataset.undo = "true";
      u.addEventListener("click", () => {
        if (conn) conn.send({ type: "undo" });
      });
      box.appendChild(u);
    }
    tick();
    $("prompt").textContent = state.winner ? "" : part.list.length ? "Your move: " + part.prompt : seat === "observer" ? "" : me && !me.alive ? "The dead act no more: you watch." : "Waiting for the others.";
    const o = $("outcome");
    o.hidden = !state.winner;
    o.textContent = state.winner === "Village" ? "The village wins." : state.winner === "Mafia" ? "The Mafia win." : "";
  }

  /** The players' clocks, counted down between the server's readings. */
  function tick() {
    for (const span of document.querySelectorAll("[data-time]")) {
      const ms = Arbiter.timeLeft(state && !state.winner ? state.clock : null, span.dataset.time);
      span.textContent = ms === null ? "" : Arbiter.formatTime(ms) + " left";
      span.classList.toggle("running", Boolean(state && state.clock && (state.clock.running_seats || []).includes(span.dataset.time)));
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
      $("seat").textContent = seat === "observer" ? "Observer" : "You play " + String(seat).replace("player-", "Player ");
      state = m.state;
      moves = m.moves;
      $("log").textContent = "";
      addLog(m.log);
      render();
    } else if (m.type === "move") {
      state = m.state;
      moves = m.moves;
      addLog(["#" + m.seq + " " + String(m.side || "").replace("player-", "Player ") + ": " + m.text].concat(m.log || []));
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
  if (replaying) {
    $("conn").textContent = "replay";
    Arbiter.replay(receive);
  } else conn = Arbiter.connect(gameId, token, { status: $("conn"), receive, fatal });
})();
