// Arbiter's Minesweeper client: the board from the player's view (`board`: one string per
// row), a click opens a cell, a right-click (or a click in flag mode) flags or unflags it.
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
  // A replay (`/replay/{id}`) is drawn by the host's script, each position through `receive`.
  const replaying = window.Arbiter && Arbiter.replaying;
  if (!token && !replaying) return fatal("This page needs a seat's link: /play/GAME?token=… (the links are given when the game is created).");

  /** The cell's name: column letter, row number from 1 at the top ("c4"). */
  function cellName(col, row) {
    return String.fromCharCode(97 + col) + (row + 1);
  }

  function send(text) {
    $("rejected").hidden = true;
    if (conn) conn.send({ type: "move", move: text });
  }

  function click(col, row, flag) {
    if (!moves || !moves.yours) return;
    const ch = state.board[row][col];
    const name = cellName(col, row);
    if (flag || $("flag-mode").checked) {
      if (ch === "#") send("flag " + name);
      else if (ch === "F") send("unflag " + name);
    } else if (ch === "#") send("open " + name);
  }

  function render() {
    if (!state) return;
    const board = $("board");
    // One column of row numbers, then the cells; a first row of column letters: the names the
    // log and the notation use (a1 at the top left).
    board.style.gridTemplateColumns = "24px repeat(" + state.width + ", 30px)";
    while (board.firstChild) board.removeChild(board.firstChild);
    const label = (text) => Object.assign(document.createElement("span"), { className: "coord", textContent: text });
    board.appendChild(label(""));
    for (let col = 0; col < state.width; col++) board.appendChild(label(String.fromCharCode(97 + col)));
    state.board.forEach(function (line, row) {
      board.appendChild(label(String(row + 1)));
      Array.from(line).forEach(function (ch, col) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "cell";
        b.dataset.cell = cellName(col, row);
        b.title = cellName(col, row);
        const kind = ch === "#" ? "closed" : ch === "F" ? "flag" : ch === "*" ? "mine" : ch === "X" ? "boom" : "open";
        b.dataset.state = kind;
        if (kind === "open") b.dataset.n = ch;
        b.textContent = kind === "closed" ? "" : kind === "flag" ? "⚑" : kind === "mine" || kind === "boom" ? "✹" : ch === "0" ? "" : ch;
        b.addEventListener("click", () => click(col, row, false));
        b.addEventListener("contextmenu", (ev) => {
          ev.preventDefault();
          click(col, row, true);
        });
        board.appendChild(b);
      });
    });
    // Open only when the server says so (a flag can be taken back; an opened cell revealed
    // what was under it, so it cannot).
    $("undo").disabled = !(moves && moves.undo);
    $("undo").hidden = seat === "observer" || !!state.outcome;
    $("counts").textContent = state.mines + " mines, " + state.flags + " flagged";
    $("prompt").textContent = state.outcome ? "" : moves && moves.yours ? "Your move: " + (moves.prompt || "") : seat === "observer" ? "You are watching." : "";
    const o = $("outcome");
    o.hidden = !state.outcome;
    o.textContent = state.outcome === "won" ? "You won: every safe cell is open." : state.outcome === "lost" ? "A mine! The game is lost." : "";
  }

  function addLog(lines) {
    for (const l of lines || []) {
      // A move's heading (`#3 Player: open c4`) stands out from what it did.
      const heading = /^#\d+ /.test(String(l));
      $("log").appendChild(Object.assign(document.createElement("li"), { textContent: String(l), className: heading ? "heading" : "" }));
    }
    $("log").scrollTop = $("log").scrollHeight;
  }

  function receive(m) {
    if (m.type === "sync") {
      seat = m.seat;
      $("seat").textContent = seat === "observer" ? "Observer" : "You play";
      state = m.state;
      moves = m.moves;
      $("log").textContent = "";
      addLog(m.log);
      render();
    } else if (m.type === "move") {
      state = m.state;
      moves = m.moves;
      const who = String(m.side || "");
      addLog(["#" + m.seq + " " + who.charAt(0).toUpperCase() + who.slice(1) + ": " + m.text].concat(m.log || []));
      render();
    } else if (m.type === "undo") {
      // A move taken back: its row is gone from the server's log; the whole view again.
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
  $("undo").addEventListener("click", () => {
    $("rejected").hidden = true;
    if (conn) conn.send({ type: "undo" });
  });
  if (replaying) {
    $("conn").textContent = "replay";
    Arbiter.replay(receive);
  } else conn = Arbiter.connect(gameId, token, { status: $("conn"), receive, fatal });
})();
