// Arbiter's Twilight Struggle client: a seat's table (play.html). (The new-game page is the
// server's, the same for every game.)
// Plain JavaScript, no framework and nothing fetched from elsewhere. Everything the server sends
// (log lines, move texts, card and country names) is put into the page as text (textContent,
// attributes), never as HTML.
"use strict";

(function () {
  if (document.body.classList.contains("play")) play();

  // ---------------------------------------------------------------- helpers

  /** An element with attributes and children; strings become text nodes, never HTML. */
  function el(tag, attrs) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const k of Object.keys(attrs)) {
        const v = attrs[k];
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") e.className = v;
        else if (k === "text") e.textContent = v;
        // Through the CSSOM: the server's Content-Security-Policy allows no style attributes.
        else if (k === "style") e.style.cssText = String(v);
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : String(v));
      }
    }
    for (let i = 2; i < arguments.length; i++) {
      const c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return e;
  }

  function clear(e) {
    while (e.firstChild) e.removeChild(e.firstChild);
  }

  const SIDE_NAME = { us: "US", ussr: "USSR", observer: "Observer" };
  function sideName(s) {
    return s ? SIDE_NAME[String(s).toLowerCase()] || String(s) : "";
  }

  // ---------------------------------------------------------------- a seat's table

  function play() {
    // The board, in cells of CELL_W x CELL_H pixels: each country's top-left corner, placed
    // roughly as on the printed board (Americas left, Europe over Africa, the Middle East in
    // the middle, Asia right with Southeast Asia below it).
    const CELL_W = 68;
    const CELL_H = 56;
    const POS = {
      // Europe (Canada belongs to Western Europe, beside the UK as on the board)
      Canada: [3, 0], UK: [4, 0], Norway: [5, 0], Sweden: [6, 0], Finland: [7, 0],
      Benelux: [4, 1], Denmark: [5, 1], "East Germany": [6, 1], Poland: [7, 1],
      France: [4, 2], "West Germany": [5, 2], Austria: [6, 2], Czechoslovakia: [7, 2],
      "Spain/Portugal": [3.5, 3], Italy: [4.8, 3], Yugoslavia: [5.8, 3], Hungary: [6.8, 3], Romania: [7.8, 3],
      Greece: [5.8, 4], Bulgaria: [6.8, 4], Turkey: [7.8, 4],
      // Middle East
      Libya: [6.4, 5], Egypt: [7.4, 5], Lebanon: [8.4, 5], Syria: [9.4, 5], Iran: [10.4, 5],
      Israel: [7.9, 6], Jordan: [8.9, 6], Iraq: [9.9, 6],
      "Saudi Arabia": [9.4, 7], "Gulf States": [10.4, 7],
      // Africa
      Morocco: [3.4, 5], Algeria: [4.4, 5], Tunisia: [5.4, 5],
      "West African States": [3.4, 6], "Saharan States": [4.6, 6], Sudan: [6.6, 6],
      "Ivory Coast": [3.4, 7], Nigeria: [4.6, 7], Ethiopia: [6.4, 7], Somalia: [7.4, 7],
      Cameroon: [4.6, 8], Zaire: [5.6, 8], Kenya: [6.8, 8],
      Angola: [4.8, 9], Zimbabwe: [5.8, 9], "SE African States": [6.8, 9],
      "South Africa": [5.0, 10], Botswana: [6.0, 10],
      // Asia
      "North Korea": [12.5, 1.5], "South Korea": [12.5, 2.5], Japan: [13.6, 2.5], Taiwan: [13.1, 3.5],
      Afghanistan: [11.0, 4], Pakistan: [11.4, 5], India: [11.9, 6],
      Australia: [12.2, 10.1],
      // Southeast Asia
      Burma: [11.6, 7], "Laos/Cambodia": [12.6, 7], Thailand: [12.0, 8], Vietnam: [13.0, 8],
      Malaysia: [12.2, 9], Indonesia: [13.2, 9.2], Philippines: [14.0, 8],
      // Central America
      Mexico: [0, 1], Cuba: [1.3, 1], Haiti: [2.4, 1.3],
      Guatemala: [0, 2], Honduras: [1.1, 2.2], "Dominican Republic": [2.4, 2.3],
      "El Salvador": [0, 3], Nicaragua: [1.1, 3.2],
      "Costa Rica": [0.5, 4.1], Panama: [1.3, 5.1],
      // South America
      Colombia: [0.4, 6.2], Venezuela: [1.4, 6.2],
      Ecuador: [0, 7.2], Peru: [1, 7.2], Brazil: [2.3, 7.4],
      Chile: [0.4, 8.2], Bolivia: [1.4, 8.2],
      Argentina: [0.4, 9.2], Paraguay: [1.4, 9.2], Uruguay: [2.4, 9.2],
    };
    // Shorter names where the full one does not fit a box (the full name is in its title).
    const SHORT = {
      "West Germany": "W. Germany", "East Germany": "E. Germany", Czechoslovakia: "Czecho\u00adslovakia",
      "Spain/Portugal": "Spain/\u200bPortugal", "West African States": "W. Afr. States",
      "SE African States": "SE Afr. States", "Dominican Republic": "Dominican Rep.",
      "Laos/Cambodia": "Laos/\u200bCambodia",
    };
    const LABELS = [
      ["USA", 0, 0, "superpower us"], ["USSR", 9.2, 0.2, "superpower ussr"],
      ["Central America", 2.1, 4.3, "region-label"], ["South America", 0, 10.3, "region-label"],
      ["Europe", 8.1, 2.2, "region-label"], ["Middle East", 9.3, 8.0, "region-label"],
      ["Africa", 3.4, 8.1, "region-label"], ["Asia", 10.9, 3.1, "region-label"],
      ["Southeast Asia", 10.5, 9.15, "region-label"],
    ];
    // Rules facts (rounds, DEFCON closures, military ops required, the space track, control,
    // the outcome in words) come from the server's view, `state.rules`: no rule is repeated here.

    const parts = location.pathname.split("/");
    const gameId = decodeURIComponent(parts[2] || "");
    const token = new URLSearchParams(location.search).get("token") || "";

    const $ = function (id) {
      return document.getElementById(id);
    };

    let countries = {}; // name -> country from /api/kinds/twilight-struggle/map
    let cards = {}; // name -> card from /api/kinds/twilight-struggle/cards
    let countryEls = {}; // name -> element on the map
    let W = 0;
    let H = 0;

    // What the server told us.
    let seat = null;
    let state = null;
    // A finished game's replay: every seat's view at the position shown (both hands).
    let seatViews = null;
    let moves = { moves: [], yours: false, prompt: null };
    let log = [];
    let seq = -1;

    // The countries the last move named (highlighted on the map).
    let lastCountries = [];
    function noteLastMove(text) {
      lastCountries = moveInfo(String(text || "")).countries;
    }
    /** The last move's text from a log: its last `#N SIDE: TEXT` heading. */
    function lastMoveInLog() {
      for (let i = log.length - 1; i >= 0; i--) {
        const m = /^#\d+ [^:]*: (.*)$/.exec(String(log[i]));
        if (m) return m[1];
      }
      return "";
    }

    // What the player chose.
    let selectedCountry = null;
    // Where the pointer was when the page last changed under it: an element that slides under
    // a still pointer (a list grown back after a move) is not being pointed at.
    let lastPointer = null;
    let stillAt = null;
    document.addEventListener(
      "mousemove",
      function (ev) {
        lastPointer = { x: ev.clientX, y: ev.clientY };
        if (stillAt && (stillAt.x !== ev.clientX || stillAt.y !== ev.clientY)) stillAt = null;
      },
      true
    );
    function pointerMoved(ev) {
      return !(stillAt && ev.clientX === stillAt.x && ev.clientY === stillAt.y);
    }
    let fullLogNeeded = false;
    let selectedCard = null;
    let pending = null; // the move sent and not yet answered
    let pendingTimer = null;

    // The connection (`Arbiter.connect`).
    let conn = null;

    // For tests and the curious: read-only looks at the client's state, and the socket.
    window.arbiter = {
      get state() { return state; },
      get moves() { return moves; },
      get seat() { return seat; },
      get socket() { return conn && conn.socket; },
    };

    if (!gameId || !/^[0-9a-zA-Z_-]+$/.test(gameId)) return fatal("This is not a game's link.");
    // A replay (`/replay/{id}`) is drawn by the host's script, each position through `receive`.
    const replaying = window.Arbiter && Arbiter.replaying;
    if (!token && !replaying) return fatal("This page needs a seat's link: /play/GAME?token=… (the links are given when the game is created).");

    document.title = "Arbiter · game " + gameId;
    wire();
    // A replay has no chat (the host's panel is the live page's): nothing to go to.
    if (replaying) for (const b of document.querySelectorAll('[data-go="arbiter-slot"]')) b.hidden = true;
    Promise.all([getJson("/api/kinds/twilight-struggle/map"), getJson("/api/kinds/twilight-struggle/cards")])
      .then(function (r) {
        for (const c of r[0].countries) countries[c.name] = c;
        for (const c of r[1].cards) cards[c.name] = c;
        buildMap();
        if (replaying) Arbiter.replay(receive);
        else conn = Arbiter.connect(gameId, token, { status: $("conn"), receive, fatal, closed: clearPending });
      })
      .catch(function (e) {
        fatal("Cannot load the board from the server: " + e.message + ". Reload the page to try again.");
      });

    async function getJson(url) {
      const r = await fetch(url);
      if (!r.ok) throw new Error(url + " answered " + r.status);
      return r.json();
    }

    function fatal(msg) {
      const f = $("fatal");
      f.textContent = msg;
      f.hidden = false;
      setConn("stopped", "not connected");
    }

    // ------------------------------------------------------------ the connection

    function setConn(stateName, text) {
      const c = $("conn");
      c.dataset.state = stateName;
      c.textContent = text || stateName;
    }

    function send(obj) {
      return conn !== null && conn.send(obj);
    }

    /** The server's advice on a move this seat may make (`GET …/advice`): warnings and odds,
     * or null if it cannot be had (the move is then judged as sent). */
    async function advice(text) {
      try {
        const r = await fetch("/api/games/" + encodeURIComponent(gameId) + "/advice?token=" + encodeURIComponent(token) + "&move=" + encodeURIComponent(text));
        if (!r.ok) return null;
        return await r.json();
      } catch (e) {
        return null;
      }
    }

    /** Ask in the page (not window.confirm: tests drive it, and it shows every warning):
     * resolves true if the player goes on. */
    function confirmInPage(title, lines, yes) {
      return new Promise(function (resolve) {
        const box = $("confirm");
        $("confirm-title").textContent = title;
        const list = $("confirm-list");
        clear(list);
        for (const w of lines) list.appendChild(el("li", null, w));
        $("confirm-yes").textContent = yes || "Play it anyway";
        box.hidden = false;
        const done = function (answer) {
          box.hidden = true;
          $("confirm-yes").onclick = null;
          $("confirm-no").onclick = null;
          document.removeEventListener("keydown", onKey);
          resolve(answer);
        };
        const onKey = function (ev) {
          if (ev.key === "Escape") done(false);
        };
        $("confirm-yes").onclick = function () { done(true); };
        $("confirm-no").onclick = function () { done(false); };
        document.addEventListener("keydown", onKey);
        $("confirm-no").focus();
      });
    }

    /** A move chosen by the player: the game's warnings first (a coup that loses the game at
     * DEFCON 2, an event short of military ops…), confirmed in the page, then sent. */
    let asking = false;
    async function playMove(text, why, yes) {
      if (pending || asking) return;
      asking = true;
      try {
        const a = await advice(text);
        const warnings = a && Array.isArray(a.warnings) ? a.warnings : [];
        const lines = (why ? [why] : []).concat(warnings);
        if (lines.length && !(await confirmInPage(text + "?", lines, yes))) return;
      } finally {
        asking = false;
      }
      sendMove(text);
    }

    function sendMove(text) {
      if (pending) return;
      if (!send({ type: "move", move: text })) {
        showRejected("Not connected: the move was not sent. It can be played again once reconnected.");
        return;
      }
      pending = text;
      hideRejected();
      pendingTimer = setTimeout(clearPending, 8000);
      renderDecision();
    }

    function clearPending() {
      pending = null;
      if (pendingTimer) clearTimeout(pendingTimer);
      pendingTimer = null;
    }

    function receive(m) {
      switch (m.type) {
        case "sync":
          seat = m.seat;
          state = m.state || null;
          seatViews = m.seat_views || null;
          moves = m.moves || { moves: [] };
          log = Array.isArray(m.log) ? m.log.slice() : [];
          seq = state ? state.seq : -1;
          noteLastMove(lastMoveInLog());
          clearPending();
          renderAll(true);
          break;
        case "move": {
          if (typeof m.seq === "number" && m.seq <= seq) return;
          const gap = typeof m.seq === "number" && seq >= 0 && m.seq !== seq + 1;
          if (m.state) state = m.state;
          if (m.moves) moves = m.moves;
          // The move before may read differently now (a headline revealed since).
          if (m.previous && typeof m.previous.seq === "number") {
            const head = "#" + m.previous.seq + " ";
            for (let i = log.length - 1; i >= 0; i--) {
              if (String(log[i]).indexOf(head) === 0) {
                const fixed = head + String(log[i]).slice(head.length).replace(/:.*$/, ": " + m.previous.text);
                if (fixed !== log[i]) {
                  log[i] = fixed;
                  fullLogNeeded = true;
                }
                break;
              }
            }
          }
          const lines = ["#" + m.seq + " " + sideName(m.side) + ": " + (m.text || "")].concat(Array.isArray(m.log) ? m.log : []);
          noteLastMove(m.text);
          log = log.concat(lines);
          // A selection or filter stays while it still finds moves (more Influence into one
          // country); one that would hide every move of the new decision is dropped.
          keepUsefulSelection();
          seq = typeof m.seq === "number" ? m.seq : seq;
          clearPending();
          if (gap) send({ type: "sync" }); // a move was missed: the whole view again
          renderAll(fullLogNeeded, lines);
          fullLogNeeded = false;
          break;
        }
        case "undo":
          // A move was taken back (by this seat or another): the server's row is gone, so the
          // whole view comes again, and a line says what was taken back.
          if (m.state) state = m.state;
          if (m.moves) moves = m.moves;
          log = (Array.isArray(m.log) ? m.log.slice() : log).concat(m.line ? [String(m.line)] : []);
          seq = typeof m.seq === "number" ? m.seq : seq;
          noteLastMove(lastMoveInLog());
          keepUsefulSelection();
          clearPending();
          renderAll(true);
          break;
        case "presence":
          if (state) state.presence = m.presence;
          renderPresence();
          break;
        case "clock":
          if (state) state.clock = m.clock;
          renderClock();
          break;
        case "rejected":
          clearPending();
          showRejected(m.error + (m.rule && String(m.error).indexOf(m.rule) < 0 ? " (" + m.rule + ")" : ""));
          renderDecision();
          break;
        case "closing":
          setConn("reconnecting", "server closed the connection: " + (m.reason || "") + "; reconnecting…");
          break;
        default:
          break;
      }
    }

    // ------------------------------------------------------------ moves and what they concern

    const moveInfoCache = new Map();
    /** The words of a move, a quoted name counting as one: `influence "East Germany"`. */
    function words(text) {
      const out = [];
      const re = /"([^"]*)"|(\S+)/g;
      let m;
      while ((m = re.exec(text))) out.push(m[1] !== undefined ? m[1] : m[2]);
      return out;
    }
    function moveInfo(text) {
      let i = moveInfoCache.get(text);
      if (!i) {
        const w = words(text);
        i = { verb: w[0] || "", countries: [], cards: [] };
        for (const x of w.slice(1)) {
          if (countries[x]) i.countries.push(x);
          if (cards[x]) i.cards.push(x);
        }
        moveInfoCache.set(text, i);
      }
      return i;
    }
    function legalMoves() {
      return moves && moves.yours && Array.isArray(moves.moves) ? moves.moves : [];
    }
    function movesForCountry(name) {
      return legalMoves().filter(function (t) {
        return moveInfo(t).countries.indexOf(name) >= 0;
      });
    }

    // ------------------------------------------------------------ building the page

    function wire() {
      $("filter").addEventListener("input", function () {
        // A new filter: the best match is chosen.
        chosenMove = null;
        renderDecision();
      });
      document.addEventListener("keydown", onKey);
      for (const b of document.querySelectorAll("[data-go]")) {
        b.addEventListener("click", function () { goTo(b.dataset.go); });
      }
      $("help-open").addEventListener("click", function () { toggleHelp(true); });
      $("help-close").addEventListener("click", function () { toggleHelp(false); });
      // Unread chat, counted by the host's script: a mark on the buttons that lead to it.
      document.addEventListener("arbiter:unread", function (ev) {
        const n = Number(ev.detail && ev.detail.count) || 0;
        for (const b of document.querySelectorAll("[data-chat-mark]")) {
          b.textContent = n ? "Chat · " + n + " new" : "Chat";
          b.classList.toggle("unread", n > 0);
        }
      });
      $("selection-clear").addEventListener("click", function () {
        selectedCountry = null;
        selectedCard = null;
        renderDecision();
        renderMapMarks();
        renderHand();
      });
      $("rejected-close").addEventListener("click", hideRejected);
      $("undo").addEventListener("click", function () {
        // Under the table's rules (the server says when it is open: `moves.undo`).
        if (pending || !moves || !moves.undo) return;
        if (!send({ type: "undo" })) showRejected("Not connected: nothing was taken back.");
      });
      $("resign").addEventListener("click", function () {
        // Not a legal move of the rules (so not among the buttons): the game's warning asks.
        // Asked even if the game's advice cannot be had (then without its words).
        playMove("resign", "Resign this game? The " + sideName(seat === "us" ? "ussr" : "us") + " wins.", "Resign");
      });
      window.addEventListener("resize", fitMap);
      // The log keeps its newest line in view when its box changes size (a window resized,
      // the layout changing columns), unless the reader scrolled up.
      let logAtEnd = true;
      $("log").addEventListener("scroll", function () {
        const l = $("log");
        logAtEnd = l.scrollHeight - l.scrollTop - l.clientHeight < 4;
      });
      if (window.ResizeObserver) {
        new ResizeObserver(function () {
          const l = $("log");
          if (logAtEnd) l.scrollTop = l.scrollHeight;
        }).observe($("log"));
      }
      const zoomBy = function (f) {
        const box = $("map-box");
        // Keep the middle of the view where it was.
        const cx = (box.scrollLeft + box.clientWidth / 2) / Math.max(1, box.scrollWidth);
        const cy = (box.scrollTop + box.clientHeight / 2) / Math.max(1, box.scrollHeight);
        zoom = Math.max(0.5, Math.min(3, zoom * f));
        fitMap();
        box.scrollLeft = cx * box.scrollWidth - box.clientWidth / 2;
        box.scrollTop = cy * box.scrollHeight - box.clientHeight / 2;
        $("zoom-level").textContent = Math.round(zoom * 100) + "%";
      };
      $("zoom-in").addEventListener("click", function () { fitWhole = false; zoomBy(1.25); });
      $("zoom-out").addEventListener("click", function () { fitWhole = false; zoomBy(0.8); });
      $("zoom-fit").addEventListener("click", function () {
        zoom = 1;
        fitWhole = true;
        fitMap();
        $("map-box").scrollLeft = 0;
        $("map-box").scrollTop = 0;
        $("zoom-level").textContent = "fit";
      });
      // Two fingers zoom (one finger pans: the box scrolls).
      let pinch = null;
      const spread = function (t) { return Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY); };
      $("map-box").addEventListener("touchstart", function (ev) {
        if (ev.touches.length === 2) pinch = spread(ev.touches);
      }, { passive: true });
      $("map-box").addEventListener("touchmove", function (ev) {
        if (ev.touches.length !== 2 || !pinch) return;
        ev.preventDefault();
        const d = spread(ev.touches);
        if (Math.abs(d / pinch - 1) > 0.04) {
          zoomBy(d / pinch);
          pinch = d;
        }
      }, { passive: false });
      $("map-box").addEventListener("touchend", function () { pinch = null; });
      setInterval(renderClock, 1000);
    }

    function buildMap() {
      const map = $("map");
      clear(map);
      let maxX = 0;
      let maxY = 0;
      for (const l of LABELS) {
        map.appendChild(el("div", { class: l[3], style: "left:" + l[1] * CELL_W + "px;top:" + l[2] * CELL_H + "px", "aria-hidden": "true" }, l[0]));
      }
      let fallback = 0;
      for (const name of Object.keys(countries)) {
        const c = countries[name];
        let p = POS[name];
        if (!p) p = [fallback++ % 14, 11.2 + Math.floor(fallback / 14)]; // a country the layout does not know yet
        const regionClass = "r-" + c.region.toLowerCase().replace(/[^a-z]+/g, "-");
        const sub = subMark(c);
        const e = el(
          "button",
          {
            type: "button",
            class: "country " + regionClass + (c.subregions.indexOf("Southeast Asia") >= 0 ? " r-se-asia" : "") + (c.battleground ? " battleground" : ""),
            "data-country": name,
            "data-stability": c.stability,
            "data-battleground": c.battleground ? "true" : "false",
            title: name,
            style: "left:" + p[0] * CELL_W + "px;top:" + p[1] * CELL_H + "px",
            onclick: function () {
              clickCountry(name);
            },
            onmouseenter: function (ev) {
              if (!selectedCard && pointerMoved(ev)) showCountry(name);
            },
          },
          el("span", { class: "cname" }, SHORT[name] || name),
          el(
            "span",
            { class: "row marks" },
            el("span", { class: "stab" + (c.battleground ? " bg" : ""), title: "stability " + c.stability + (c.battleground ? ", battleground" : "") }, String(c.stability)),
            c.battleground ? el("span", { class: "bgmark", title: "battleground" }, "★") : null,
            sub ? el("span", { class: "sub", title: c.subregions.join(", ") }, sub) : null,
            el("span", { class: "ctl" })
          ),
          el(
            "span",
            { class: "row infs" },
            el("span", { class: "inf us", "data-side": "us", title: "US Influence" }, "0"),
            el("span", { class: "inf ussr", "data-side": "ussr", title: "USSR Influence" }, "0")
          )
        );
        countryEls[name] = e;
        map.appendChild(e);
        maxX = Math.max(maxX, p[0] + 1);
        maxY = Math.max(maxY, p[1] + 1);
      }
      W = Math.ceil(maxX * CELL_W) + 4;
      H = Math.ceil(Math.max(maxY, 10.8) * CELL_H) + 4;
      map.style.width = W + "px";
      map.style.height = H + "px";
      map.insertBefore(adjacencyLines(), map.firstChild);
      fitNames();
      fitMap();
      if (window.ResizeObserver) new ResizeObserver(fitMap).observe($("map-box"));
    }

    /** The adjacencies (the map data's `adjacent`, and `superpower` for the USA's and the
     * USSR's neighbours) as lines between the boxes' centres, under the boxes. A superpower's
     * neighbour across the board (Japan and the USA) gets no line: on the printed board the
     * map wraps around there; its details name its neighbours. */
    function adjacencyLines() {
      const NS = "http://www.w3.org/2000/svg";
      const svg = document.createElementNS(NS, "svg");
      svg.setAttribute("class", "adjacency");
      svg.setAttribute("width", String(W));
      svg.setAttribute("height", String(H));
      svg.setAttribute("aria-hidden", "true");
      const centre = function (name) {
        const p = POS[name];
        return p ? [p[0] * CELL_W + 32, p[1] * CELL_H + 26] : null;
      };
      const SUPER = { us: [70, 20], ussr: [9.2 * CELL_W + 75, 0.2 * CELL_H + 20] };
      const line = function (a, b, cls) {
        if (!a || !b || Math.abs(a[0] - b[0]) > 6 * CELL_W) return;
        const l = document.createElementNS(NS, "line");
        l.setAttribute("x1", String(a[0]));
        l.setAttribute("y1", String(a[1]));
        l.setAttribute("x2", String(b[0]));
        l.setAttribute("y2", String(b[1]));
        l.setAttribute("class", cls);
        svg.appendChild(l);
      };
      for (const name of Object.keys(countries)) {
        const c = countries[name];
        for (const other of c.adjacent || []) {
          if (countries[other] && name < other) line(centre(name), centre(other), "adj");
        }
        const sp = c.superpower ? String(c.superpower).toLowerCase() : "";
        if (SUPER[sp]) line(centre(name), SUPER[sp], "adj adj-" + sp);
      }
      return svg;
    }

    /** A name that does not fit its box is set smaller (down to 7.5 px), and failing that on
     * two lines, rather than cut. */
    function fitNames() {
      for (const name of Object.keys(countryEls)) {
        const n = countryEls[name].querySelector(".cname");
        let size = 10;
        while (n.scrollWidth > n.clientWidth + 0.5 && size > 7.5) {
          size -= 0.5;
          n.style.fontSize = size + "px";
        }
        if (n.scrollWidth > n.clientWidth + 0.5) {
          n.style.fontSize = "8.5px";
          n.classList.add("two-lines");
        }
      }
    }

    function subMark(c) {
      const s = c.subregions;
      if (s.indexOf("Eastern Europe") >= 0 && s.indexOf("Western Europe") >= 0) return "B";
      if (s.indexOf("Western Europe") >= 0) return "W";
      if (s.indexOf("Eastern Europe") >= 0) return "E";
      if (s.indexOf("Southeast Asia") >= 0) return "S";
      return "";
    }

    /** The map scaled to its box's width (never below 72%: then the box scrolls), times the
     * player's zoom (the buttons, or pinching on a phone); a zoomed map pans by scrolling. */
    // The window sizes where the table fills the window, each panel scrolling within it
    // (style.css's query of the same sizes); below them the page scrolls as one column.
    const TABLE_LAYOUT = "(min-width: 900px) and (min-height: 560px)";
    let zoom = 1;
    // "Fit": the whole map in view, however small (else the map keeps a readable size and its
    // box scrolls); a zoom button leaves it.
    let fitWhole = false;
    function fitMap() {
      if (!W) return;
      const box = $("map-box");
      const avail = box.clientWidth - 2;
      let s;
      if (fitWhole) {
        // The map's box is as high as the table leaves it (a laptop's or a desktop's layout); on
        // a phone, the window's height less the bars.
        const high = window.matchMedia(TABLE_LAYOUT).matches
          ? box.clientHeight - 2
          : window.innerHeight - ($("quick").offsetHeight || 0) - $("board").querySelector(".zoom-row").offsetHeight - 16;
        s = Math.max(0.1, Math.min(avail / W, high / H));
      } else {
        // In the table's layout the box's height counts too: the map is read whole if it can be.
        const fit = window.matchMedia(TABLE_LAYOUT).matches ? Math.min(avail / W, (box.clientHeight - 2) / H) : avail / W;
        s = Math.max(0.35, Math.min(2.6, Math.max(0.72, Math.min(1.3, fit)) * zoom));
      }
      $("map").style.transform = "scale(" + s + ")";
      $("map-sizer").style.width = Math.floor(W * s) + "px";
      $("map-sizer").style.height = Math.ceil(H * s) + "px";
    }

    // ------------------------------------------------------------ rendering

    function renderAll(fullLog, newLines) {
      if (!state) return;
      stillAt = lastPointer;
      document.body.dataset.seat = seat || "";
      const seatEl = $("seat");
      seatEl.dataset.seat = seat || "";
      if (replaying) seatEl.textContent = seat === "observer" ? "Seen by an observer" : "Seen by the " + sideName(seat);
      else seatEl.textContent = seat === "observer" ? "Observer" : "You play the " + sideName(seat);
      renderTracks();
      renderMapMarks();
      renderDecision();
      renderHand();
      renderEffects();
      renderPresence();
      renderClock();
      renderOutcome();
      if (fullLog) renderLog();
      else appendLog(newLines || []);
      // The detail pane follows the state (a country's Influence, its moves now).
      const d = $("detail");
      if (d.dataset.kind === "country" && d.dataset.name) showCountry(d.dataset.name);
      else if (d.dataset.kind === "card" && d.dataset.name) showCard(d.dataset.name);
      // The host's script marks the title (a move to make, a choice now, unread chat).
      document.title = "Arbiter · game " + gameId;
      renderRecent();
    }

    function track(id, label, value, extra) {
      const t = el("div", { class: "track", id: "track-" + id }, el("span", { class: "label" }, label), el("span", { class: "value" }, value));
      if (extra) t.appendChild(el("span", { class: "extra" }, extra));
      return t;
    }

    /** A row of boxes as on the board, `from` to `to` (either way), the ones in `marks` marked
     * (each mark: a box's number and a class: "us", "ussr", "on", "need"). */
    function boxes(from, to, marks, label) {
      const row = el("span", { class: "boxes", "aria-hidden": "true" });
      if (label) row.appendChild(el("span", { class: "boxes-label" }, label));
      const step = from <= to ? 1 : -1;
      for (let i = from; step > 0 ? i <= to : i >= to; i += step) {
        const cls = marks.filter(function (m) { return m[0] === i; }).map(function (m) { return m[1]; });
        row.appendChild(el("span", { class: "box " + cls.join(" "), "data-box": i }, String(i)));
      }
      return row;
    }

    function renderTracks() {
      const s = state;
      const box = $("tracks");
      clear(box);
      const rules = s.rules || {};
      let round;
      if (rules.phase !== "action round") round = rules.phase || "";
      else round = sideName(s.phasing) + " " + s.action_round + "/" + ((rules.action_rounds || {})[s.phasing] || "?");
      const turn = track("turn", "Turn", s.turn + "/10");
      turn.appendChild(boxes(1, 10, [[s.turn, "on"]]));
      box.appendChild(turn);
      const r = track("round", "Action round", round);
      r.dataset.phasing = s.phasing;
      const rounds = (rules.action_rounds || {})[s.phasing];
      if (rules.phase === "action round" && rounds) r.appendChild(boxes(1, rounds, [[s.action_round, s.phasing]]));
      box.appendChild(r);
      const v = s.vp;
      const vpt = track("vp", "VP", v === 0 ? "0 (even)" : (v > 0 ? "US +" + v : "USSR +" + -v));
      vpt.dataset.value = v;
      vpt.classList.add(v > 0 ? "lead-us" : v < 0 ? "lead-ussr" : "even");
      // -20 (USSR wins) to +20 (US wins), the marker where the VP stand.
      const bar = el("span", { class: "vpbar", "aria-hidden": "true" }, el("span", { class: "vpend ussr" }, "20"), el("span", { class: "vpmid" }), el("span", { class: "vpend us" }, "20"));
      const marker = el("span", { class: "vpmark" });
      marker.style.left = ((Math.max(-20, Math.min(20, v)) + 20) / 40) * 100 + "%";
      bar.querySelector(".vpmid").appendChild(marker);
      vpt.appendChild(bar);
      box.appendChild(vpt);
      const closed = rules.closed_regions || [];
      const d = track("defcon", "DEFCON", String(s.defcon), closed.length ? "no coups or realignments in " + closed.join(", ") : null);
      d.dataset.value = s.defcon;
      d.appendChild(boxes(5, 1, [[s.defcon, "on"]]));
      box.appendChild(d);
      const need = rules.military_ops_required;
      const mil = s.military_ops || { us: 0, ussr: 0 };
      const mo = track("milops", "Military ops", "US " + mil.us + "/" + need + " · USSR " + mil.ussr + "/" + need);
      mo.appendChild(boxes(0, 5, [[Math.min(5, mil.us), "us"], [need, "need"]], "US"));
      mo.appendChild(boxes(0, 5, [[Math.min(5, mil.ussr), "ussr"], [need, "need"]], "USSR"));
      box.appendChild(mo);
      const spaceText = function (side) {
        const t = (rules.space || {})[side];
        if (!t) return "";
        const next = t.next ? " (next " + t.next[1] + " Ops, 1–" + t.next[2] + ")" : "";
        const abilities = t.abilities && t.abilities.length ? " · " + t.abilities.join(", ") : "";
        return t.reached + " " + t.name + next + abilities;
      };
      for (const side of ["us", "ussr"]) {
        const t = track("space-" + side, "Space race " + sideName(side), spaceText(side));
        const reached = ((rules.space || {})[side] || {}).reached;
        if (typeof reached === "number") t.appendChild(boxes(0, 8, [[reached, side]]));
        box.appendChild(t);
      }
      const china = s.china_card || {};
      box.appendChild(track("china", "China Card", sideName(china.holder) + (china.face_up ? ", face up" : ", face down")));
      const hs = s.hand_sizes || {};
      box.appendChild(track("cards", "Cards", "hands US " + hs.us + " · USSR " + hs.ussr + " · deck " + s.deck_size));
    }

    // Who controls a country (§2.1.7), as the server computed it.
    function controller(name) {
      return (state && state.rules && state.rules.control && state.rules.control[name]) || "";
    }

    function renderMapMarks() {
      if (!state) return;
      const playable = new Set();
      for (const t of legalMoves()) for (const c of moveInfo(t).countries) playable.add(c);
      for (const name of Object.keys(countryEls)) {
        const e = countryEls[name];
        const c = countries[name];
        const inf = (state.influence && state.influence[name]) || { us: 0, ussr: 0 };
        const ctl = controller(name);
        e.dataset.us = inf.us;
        e.dataset.ussr = inf.ussr;
        e.dataset.control = ctl || "none";
        e.classList.toggle("ctl-us", ctl === "us");
        e.classList.toggle("ctl-ussr", ctl === "ussr");
        e.classList.toggle("playable", playable.has(name));
        e.classList.toggle("selected", selectedCountry === name);
        e.classList.toggle("last", lastCountries.indexOf(name) >= 0);
        const us = e.querySelector(".inf.us");
        const ussr = e.querySelector(".inf.ussr");
        us.textContent = String(inf.us);
        ussr.textContent = String(inf.ussr);
        us.classList.toggle("zero", !inf.us);
        ussr.classList.toggle("zero", !inf.ussr);
        const mark = e.querySelector(".ctl");
        mark.textContent = ctl === "us" ? "US" : ctl === "ussr" ? "SU" : "";
        mark.title = ctl ? sideName(ctl) + " controls " + name : "";
        e.setAttribute(
          "aria-label",
          name + ", stability " + c.stability + (c.battleground ? ", battleground" : "") + ", US " + inf.us + ", USSR " + inf.ussr + (ctl ? ", " + sideName(ctl) + " control" : "")
        );
      }
    }

    function keepUsefulSelection() {
      const all = legalMoves();
      if (selectedCountry && !all.some(function (t) { return moveInfo(t).countries.indexOf(selectedCountry) >= 0; })) selectedCountry = null;
      if (selectedCard && !all.some(function (t) { return moveInfo(t).cards.indexOf(selectedCard) >= 0; })) selectedCard = null;
      const fwords = $("filter").value.toLowerCase().split(/\s+/).filter(Boolean);
      const matches = all.some(function (t) {
        const low = t.toLowerCase();
        return fwords.every(function (w) { return low.indexOf(w) >= 0; });
      });
      if (fwords.length && !matches) $("filter").value = "";
    }

    function clickCountry(name) {
      showCountry(name);
      const ms = movesForCountry(name);
      const setup = state && state.rules && state.rules.phase === "setup";
      if (ms.length === 1 && !pending && setup) {
        // Setup placements are one click each.
        selectedCountry = null;
        sendMove(ms[0]);
      } else if (ms.length === 1 && !pending && moveInfo(ms[0]).verb === "influence") {
        // One Influence placed by one click, as in setup: the game's warnings still ask first,
        // and Undo takes it back.
        selectedCountry = null;
        playMove(ms[0]);
      } else if (ms.length >= 1) {
        selectedCountry = selectedCountry === name ? null : name;
        selectedCard = null;
      } else if (selectedCountry === name) {
        selectedCountry = null;
      }
      if (selectedCountry === name) showOdds(name);
      renderMapMarks();
      renderHand();
      renderDecision();
      revealMoves();
    }

    /** The odds of the coups and realignments open in `name` (as the table shows them when a
     * target is chosen: the die needed, the chance, the modifiers), from the game's advice,
     * under the country's details. */
    async function showOdds(name) {
      const asked = seq;
      const ts = movesForCountry(name).filter(function (t) {
        const v = moveInfo(t).verb;
        return v === "coup" || v === "realign";
      });
      for (const t of ts) {
        const a = await advice(t);
        const d = $("detail");
        // The page moved on meanwhile (another move, another country): not these odds.
        if (!a || !a.odds || seq !== asked || d.dataset.name !== name || d.querySelector('[data-odds-move="' + CSS.escape(t) + '"]')) continue;
        d.appendChild(el("div", { class: "facts odds", "data-odds-move": t }, el("b", null, "Odds: "), String(a.odds)));
      }
    }

    /** On a narrow screen the move buttons are above the map: bring them into view. */
    function revealMoves() {
      if ((selectedCountry || selectedCard) && !window.matchMedia(TABLE_LAYOUT).matches) {
        $("decision").scrollIntoView({ block: "start", behavior: "smooth" });
      }
    }

    function clickCard(name) {
      showCard(name);
      const concerned = legalMoves().some(function (t) {
        return moveInfo(t).cards.indexOf(name) >= 0;
      });
      selectedCard = selectedCard === name || !concerned ? null : name;
      if (selectedCard) selectedCountry = null;
      renderMapMarks();
      renderHand();
      renderDecision();
      revealMoves();
    }

    function renderDecision() {
      // Hover marks on the map belong to buttons that may be gone now.
      for (const name of Object.keys(countryEls)) countryEls[name].classList.remove("hl");
      const p = $("prompt");
      clear(p);
      const yours = !!(moves && moves.yours);
      const outcome = state && state.outcome;
      // This seat chooses now at the same time as the seat deciding (the server's word).
      const atOnce = !yours && !outcome && moves && moves.simultaneous && moves.simultaneous.prompt ? String(moves.simultaneous.prompt) : "";
      p.dataset.yours = yours || atOnce ? "true" : "false";
      let who = "";
      if (outcome) who = "Game over. ";
      else if (yours || atOnce) who = "Your decision: ";
      else if (moves && moves.to_move) who = seat === "observer" ? sideName(moves.to_move) + " to decide: " : "Waiting for the " + sideName(moves.to_move) + ": ";
      p.appendChild(el("span", { class: "who" }, who));
      const promptText = atOnce ? atOnce + " (the " + sideName(moves.to_move) + " chooses at the same time)" : (moves && moves.prompt) || (state && state.prompt) || "";
      p.appendChild(el("span", { id: "prompt-text" }, promptText));

      const sel = $("selection");
      if (selectedCountry || selectedCard) {
        sel.hidden = false;
        $("selection-text").textContent = selectedCountry || selectedCard;
        sel.dataset.kind = selectedCountry ? "country" : "card";
      } else {
        sel.hidden = true;
      }

      const all = legalMoves();
      const shown = matching(all.filter(function (t) {
        const i = moveInfo(t);
        if (selectedCountry && i.countries.indexOf(selectedCountry) < 0) return false;
        if (selectedCard && i.cards.indexOf(selectedCard) < 0) return false;
        return true;
      }), $("filter").value);
      const box = $("moves");
      clear(box);
      box.classList.toggle("busy", !!pending);
      for (const t of shown) {
        const i = moveInfo(t);
        const card = i.cards.length ? cards[i.cards[0]] : null;
        const b = el(
          "button",
          {
            type: "button",
            class: "move v-" + i.verb.replace(/[^a-z]/gi, ""),
            "data-move": t,
            title: card ? card.name + ": " + card.text : null,
            disabled: pending ? true : null,
            onclick: function () {
              playMove(t);
            },
            onmouseenter: function (ev) {
              if (!pointerMoved(ev)) return;
              for (const c of i.countries) if (countryEls[c]) countryEls[c].classList.add("hl");
              if (card) showCard(card.name);
              else if (i.countries.length) showCountry(i.countries[0]);
            },
            onmouseleave: function () {
              for (const c of i.countries) if (countryEls[c]) countryEls[c].classList.remove("hl");
            },
          },
          t
        );
        box.appendChild(b);
      }
      /** A button for a move made while the other seat decides (at the same time, or "at any
       *  time"); `ask`: the question first. */
      function interjectionButton(t, cls, mark, ask) {
        const c = moveInfo(t).cards;
        const card = c.length ? cards[c[0]] : null;
        return el(
          "button",
          {
            type: "button",
            class: "move " + cls,
            "data-move": t,
            // "data-simultaneous" for this seat's part of a simultaneous step, "data-interjection"
            // for a move "at any time".
            [mark]: "true",
            title: card ? card.name + ": " + card.text : null,
            disabled: pending ? true : null,
            onclick: function () {
              if (ask) playMove(t, ask);
              else playMove(t);
            },
          },
          t
        );
      }
      // Moves an effect allows "at any time", open while the other seat decides (cancelling
      // the Cuban Missile Crisis during the opponent's round): buttons of their own, asked to
      // confirm, since they act in the other side's turn.
      const interjections = !yours && !outcome && moves && Array.isArray(moves.interjections) ? moves.interjections : [];
      // This seat's part of a simultaneous step (its headline, chosen at the same time as the
      // other side's, §4.5C): its own choice, offered as its decision, no question asked.
      const early = atOnce && Array.isArray(moves.simultaneous.moves) ? moves.simultaneous.moves : [];
      const earlyShown = matching(early.filter(function (t) {
        return !selectedCard || moveInfo(t).cards.indexOf(selectedCard) >= 0;
      }), $("filter").value);
      if (early.length) {
        box.appendChild(el("div", { class: "interject-head headline-head" }, "Choose your headline now: the " + sideName(moves.to_move) + " chooses at the same time, and neither sees the other's card until both have chosen (§4.5C)."));
        for (const t of earlyShown) box.appendChild(interjectionButton(t, "v-headline", "data-simultaneous", null));
      }
      if (interjections.length) {
        box.appendChild(el("div", { class: "interject-head" }, "At any time, while the " + sideName(moves.to_move) + " decides:"));
        for (const t of interjections) {
          box.appendChild(interjectionButton(t, "v-interject", "data-interjection", "Interject now, during the " + sideName(moves.to_move) + "'s decision."));
        }
      }
      let count;
      if (outcome) count = "";
      else if (pending) count = "Sent: " + pending + " … waiting for the referee";
      else if (!yours && early.length) count = earlyShown.length === early.length ? early.length + " headlines" : earlyShown.length + " of " + early.length + " headlines";
      else if (!yours) count = seat === "observer" ? "You are observing: no moves." : interjections.length ? "Waiting for the " + sideName(moves.to_move) + "; you may interject." : "Waiting for the " + sideName(moves.to_move) + ".";
      else if (shown.length === all.length) count = all.length + (all.length === 1 ? " move" : " moves");
      else count = shown.length + " of " + all.length + " moves" + (shown.length === 0 ? " (none matches: clear the filter)" : "");
      $("moves-count").textContent = count;
      $("decision").classList.toggle("yours", yours || early.length > 0);
      $("resign").hidden = !yours || !!outcome;
      $("undo").hidden = seat === "observer" || !!outcome;
      $("undo").disabled = !(moves && moves.undo) || !!pending;
      document.querySelector("#decision .filter-row").hidden = !yours && !early.length && !selectedCountry && !selectedCard && !$("filter").value;
      markChosen();
    }

    /** The moves of `listed` that match `typed` (every typed word occurs in the move), ranked
     * as the terminal's table ranks them: first the move typed exactly, then those whose words
     * occur in the order typed, then the others, each in the listing's order. So `play Fidel
     * event then ops` typed in full is never played as `play Fidel ops then event`. */
    function matching(listed, typed) {
      const words = String(typed || "").toLowerCase().split(/\s+/).filter(Boolean);
      const exact = plainText(typed);
      const inOrder = function (low) {
        let at = 0;
        return words.every(function (w) {
          const i = low.indexOf(w, at);
          if (i < 0) return false;
          at = i + w.length;
          return true;
        });
      };
      const ranked = [];
      listed.forEach(function (t, i) {
        const low = t.toLowerCase();
        if (!words.every(function (w) { return low.indexOf(w) >= 0; })) return;
        ranked.push({ t: t, i: i, rank: exact && plainText(t) === exact ? 0 : inOrder(low) ? 1 : 2 });
      });
      ranked.sort(function (a, b) { return a.rank - b.rank || a.i - b.i; });
      return ranked.map(function (r) { return r.t; });
    }
    /** A move's text as typed: lower case, without quotes, single spaces. */
    function plainText(t) {
      return String(t || "").toLowerCase().replace(/"/g, "").split(/\s+/).filter(Boolean).join(" ");
    }

    // ------------------------------------------------------------ keyboard play

    // The move ↑/↓ chose among those shown (its text), which Enter plays unless the filter
    // holds a move's exact text; the first shown when the choice is gone.
    let chosenMove = null;
    function moveButtons() {
      return Array.prototype.slice.call($("moves").querySelectorAll("button[data-move]"));
    }
    function markChosen() {
      const bs = moveButtons();
      if (!bs.some(function (b) { return b.dataset.move === chosenMove; })) chosenMove = bs.length ? bs[0].dataset.move : null;
      for (const b of bs) {
        const on = b.dataset.move === chosenMove;
        b.classList.toggle("chosen", on);
        b.setAttribute("aria-selected", on ? "true" : "false");
      }
    }
    function choose(step) {
      const bs = moveButtons();
      if (!bs.length) return;
      const i = bs.findIndex(function (b) { return b.dataset.move === chosenMove; });
      const next = bs[Math.max(0, Math.min(bs.length - 1, (i < 0 ? 0 : i) + step))];
      chosenMove = next.dataset.move;
      markChosen();
      next.scrollIntoView({ block: "nearest" });
    }
    /** Enter: the move typed, when the filter holds a shown move's exact text, else the one
     * chosen; played as its button plays it (the game's warnings first). */
    function playChosen() {
      const bs = moveButtons();
      const typed = plainText($("filter").value);
      const b = bs.find(function (x) { return typed && plainText(x.dataset.move) === typed; }) || bs.find(function (x) { return x.dataset.move === chosenMove; });
      if (b && !b.disabled) b.click();
    }
    function acting() {
      return !document.querySelector("#decision .filter-row").hidden;
    }
    function typingElsewhere(t) {
      return t && t !== $("filter") && (/^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName) || t.isContentEditable);
    }
    function onKey(ev) {
      if (!$("confirm").hidden) return; // the dialog's own keys
      const t = ev.target;
      if (ev.key === "F1" || (ev.key === "Escape" && !$("help").hidden)) {
        ev.preventDefault();
        toggleHelp(ev.key === "F1" ? $("help").hidden : false);
        return;
      }
      if (ev.key === "F2" || ev.key === "F3") {
        ev.preventDefault();
        goTo(ev.key === "F2" ? "log-panel" : "hand-panel");
        return;
      }
      if (typingElsewhere(t) || ev.altKey) return;
      if ((ev.ctrlKey || ev.metaKey) && !ev.shiftKey && (ev.key === "z" || ev.key === "Z")) {
        ev.preventDefault();
        $("undo").click();
        return;
      }
      if (ev.ctrlKey || ev.metaKey) return;
      // Keys on a button, a card or a link do what they do there (Enter clicks what has focus).
      const onControl = t && t !== $("filter") && t !== document.body && t !== document.documentElement;
      if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
        if (onControl && !t.closest("#moves")) return;
        ev.preventDefault();
        choose(ev.key === "ArrowDown" ? 1 : -1);
      } else if (ev.key === "Enter") {
        if (onControl) return;
        ev.preventDefault();
        playChosen();
      } else if (ev.key === "Escape") {
        $("filter").value = "";
        selectedCountry = null;
        selectedCard = null;
        renderDecision();
        renderMapMarks();
        renderHand();
      } else if (ev.key.length === 1 && ev.key !== " " && t !== $("filter") && acting()) {
        // Typing anywhere filters the moves: the key lands in the filter.
        $("filter").focus();
      }
    }
    function toggleHelp(open) {
      $("help").hidden = !open;
      if (open) $("help-close").focus();
    }

    // ------------------------------------------------------------ getting around the page

    /** Bring a part of the page into view (a tab of the side column, a button of the phone's
     * bar): one tap or key to the hand, the log, the chat. */
    function goTo(id) {
      const target = $(id);
      if (!target) return;
      target.scrollIntoView({ block: "start" });
      if (id === "log-panel") $("log").focus({ preventScroll: true });
      if (id === "decision" && acting()) $("filter").focus({ preventScroll: true });
    }

    // ------------------------------------------------------------ what happened since

    /** The log as moves: each heading `#N SIDE: TEXT` with the lines after it. */
    function logMoves() {
      const out = [];
      for (const l of log) {
        const m = /^#(\d+) ([^:]*): (.*)$/.exec(String(l));
        if (m) out.push({ seq: Number(m[1]), side: m[2], text: m[3], lines: [] });
        else if (out.length) out[out.length - 1].lines.push(String(l));
      }
      return out;
    }

    /** Moves retold in short, as the terminal's table does: a run of Influence placements as
     * one ("placed 6 Influence: Poland 4, East Germany 2"), each other move as written. */
    function recap(texts) {
      const parts = [];
      let run = [];
      const flush = function () {
        if (!run.length) return;
        const counts = [];
        for (const c of run) {
          const e = counts.find(function (x) { return x[0] === c; });
          if (e) e[1]++;
          else counts.push([c, 1]);
        }
        parts.push("placed " + run.length + " Influence: " + counts.map(function (x) { return x[0] + " " + x[1]; }).join(", "));
        run = [];
      };
      for (const t of texts) {
        const w = words(t);
        if (w[0] === "influence" && w.length === 2) run.push(w[1]);
        else {
          flush();
          parts.push(t);
        }
      }
      flush();
      return parts.join("; ");
    }

    /** Beside the moves: this seat's last move and what it gave (the die, the result), then
     * what the other side did since, retold in short with the lines of its last move; so a
     * decision is made without opening the log. */
    function renderRecent() {
      const box = $("recent");
      const lines = $("recent-lines");
      clear(lines);
      const all = logMoves();
      const me = sideName(seat);
      let i = -1;
      for (let k = all.length - 1; k >= 0; k--) if (all[k].side === me) { i = k; break; }
      const mine = i >= 0 ? all[i] : null;
      const since = all.slice(i >= 0 ? i + 1 : Math.max(0, all.length - 3));
      if (!mine && !since.length) {
        box.hidden = true;
        return;
      }
      box.hidden = false;
      $("recent-head").textContent = seat === "observer" ? "Last moves" : mine ? "Since your last move" : "So far";
      const add = function (cls, text) {
        lines.appendChild(el("div", { class: cls }, text));
      };
      const detail = function (m, most, more) {
        const ls = m.lines.filter(function (x) { return !/^(---|===)/.test(x); });
        for (const l of ls.slice(0, most)) add("recent-line", l);
        if (more && ls.length > most) add("recent-line more", "… (" + (ls.length - most) + " more in the log)");
      };
      if (mine && seat !== "observer") {
        add("recent-move own", "You: " + mine.text);
        detail(mine, 3, true);
      }
      // The other seats' moves since, side by side in runs.
      let k = 0;
      while (k < since.length) {
        const side = since[k].side;
        const run = [];
        while (k < since.length && since[k].side === side) run.push(since[k++]);
        add("recent-move", (side === me ? "You" : side) + ": " + recap(run.map(function (m) { return m.text; })));
        detail(run[run.length - 1], 4, true);
      }
      lines.scrollTop = 0;
    }

    function cardMarks(c) {
      const frag = [];
      frag.push(el("span", { class: "ops", title: c.ops + " Ops" }, c.scoring ? "S" : String(c.ops)));
      frag.push(el("span", { class: "name" }, c.name));
      const sideText = c.side ? sideName(c.side) : c.scoring ? "scoring" : "neutral";
      frag.push(el("span", { class: "cside side-" + (c.side || "none"), title: "event: " + sideText }, c.side ? sideName(c.side) : "—"));
      frag.push(el("span", { class: "era", title: c.era + " War" }, String(c.era || "").charAt(0)));
      if (c.starred) frag.push(el("span", { class: "star", title: "starred: removed once its event is played" }, "*"));
      if (c.scoring) frag.push(el("span", { class: "scoring", title: "scoring card" }, "Scoring"));
      return frag;
    }

    function cardItem(name, extraNote) {
      const c = cards[name] || { name: name, ops: "?", side: null, era: "", starred: false, scoring: false, text: "" };
      const li = el("li", {
        class: "card side-" + (c.side || "none") + (selectedCard === name ? " selected" : ""),
        "data-card": name,
        title: c.text,
        tabindex: "0",
        onclick: function () {
          clickCard(name);
        },
        onkeydown: function (ev) {
          if (ev.key === "Enter" || ev.key === " ") {
            ev.preventDefault();
            clickCard(name);
          }
        },
        onmouseenter: function (ev) {
          if (pointerMoved(ev)) showCard(name);
        },
      });
      for (const x of cardMarks(c)) li.appendChild(x);
      if (extraNote) li.appendChild(el("span", { class: "note" }, extraNote));
      return li;
    }

    function renderHand() {
      const hand = $("hand");
      clear(hand);
      if (!state) return;
      if (seatViews) {
        // The game is over: its replay shows both hands.
        hand.hidden = false;
        $("known-wrap").hidden = true;
        const sizes = [];
        for (const side of ["us", "ussr"]) {
          const v = seatViews[side] || {};
          const list = Array.isArray(v.hand) ? v.hand : [];
          sizes.push(side.toUpperCase() + " " + list.length);
          hand.appendChild(el("li", { class: "hand-of", "data-hand-of": side }, side.toUpperCase() + "'s hand"));
          for (const name of list) hand.appendChild(cardItem(name));
        }
        $("hand-title").textContent = "Both hands (" + sizes.join(", ") + ")";
        return;
      }
      if (seat === "observer") {
        $("hand-title").textContent = "Observer: hands are not shown (US " + state.hand_sizes.us + ", USSR " + state.hand_sizes.ussr + " cards)";
        hand.hidden = true;
        $("known-wrap").hidden = true;
        return;
      }
      hand.hidden = false;
      const list = Array.isArray(state.hand) ? state.hand : [];
      $("hand-title").textContent = "Your hand (" + list.length + ")";
      for (const name of list) hand.appendChild(cardItem(name));
      const china = state.china_card || {};
      if (china.holder === seat && cards["The China Card"]) {
        hand.appendChild(cardItem("The China Card", china.face_up ? "face up" : "face down: usable next turn"));
      }
      const known = Array.isArray(state.opponent_known) ? state.opponent_known : [];
      const kw = $("known");
      clear(kw);
      $("known-wrap").hidden = known.length === 0;
      for (const name of known) kw.appendChild(cardItem(name));
    }

    function showCard(name) {
      const c = cards[name];
      const d = $("detail");
      clear(d);
      if (!c) {
        d.appendChild(el("b", null, name));
        return;
      }
      d.dataset.kind = "card";
      d.dataset.name = name;
      const head = el("div", { class: "detail-head card side-" + (c.side || "none") });
      for (const x of cardMarks(c)) head.appendChild(x);
      d.appendChild(head);
      const facts = [
        c.ops + " Ops",
        c.side ? sideName(c.side) + " event" : c.scoring ? "scoring card" : "neutral event",
        c.era + " War",
      ];
      if (c.starred) facts.push("starred: removed after its event");
      if (c.optional) facts.push("optional card");
      d.appendChild(el("div", { class: "facts" }, "#" + c.id + " · " + facts.join(" · ")));
      d.appendChild(el("p", { class: "text" }, c.text || ""));
    }

    function showCountry(name) {
      const c = countries[name];
      if (!c) return;
      const d = $("detail");
      clear(d);
      d.dataset.kind = "country";
      d.dataset.name = name;
      const inf = (state && state.influence && state.influence[name]) || { us: 0, ussr: 0 };
      const ctl = controller(name);
      d.appendChild(el("div", { class: "detail-head" }, el("b", null, name), " · " + c.region + (c.subregions.length ? " (" + c.subregions.join(", ") + ")" : "")));
      d.appendChild(
        el(
          "div",
          { class: "facts" },
          "Stability " + c.stability + (c.battleground ? " · battleground" : "") + " · Influence US " + inf.us + ", USSR " + inf.ussr + " · " + (ctl ? sideName(ctl) + " controls it" : "uncontrolled")
        )
      );
      d.appendChild(el("div", { class: "facts" }, "Adjacent: " + c.adjacent.join(", ")));
      const ms = movesForCountry(name);
      if (moves && moves.yours) {
        if (!ms.length) d.appendChild(el("div", { class: "facts" }, "No legal move concerns " + name + " now."));
        else {
          // The country's moves as buttons here too (on a phone the move list is far above).
          const row = el("div", { class: "facts detail-moves" }, "Your moves here: ");
          for (const t of ms) {
            row.appendChild(
              el(
                "button",
                {
                  type: "button",
                  class: "move v-" + moveInfo(t).verb.replace(/[^a-z]/gi, ""),
                  "data-detail-move": t,
                  disabled: pending ? true : null,
                  onclick: function () {
                    playMove(t);
                  },
                },
                t
              )
            );
          }
          d.appendChild(row);
        }
      }
    }

    function renderEffects() {
      const s = state;
      const hl = $("headline");
      clear(hl);
      const h = s.headline || {};
      const hidden = s.headline_hidden || {};
      // A headline shows while it is chosen or waits to be resolved; one chosen but secret says
      // so; one resolved is in the log.
      const part = function (side, label) {
        if (h[side]) return label + " " + h[side];
        if (hidden[side]) return label + " (chosen, secret)";
        return null;
      };
      const parts = [part("us", "US"), part("ussr", "USSR")].filter(Boolean);
      if (parts.length) hl.appendChild(el("div", { class: "headlines" }, "Headlines: " + parts.join(" · ")));
      const ul = $("effects");
      clear(ul);
      const effects = Array.isArray(s.effects) ? s.effects : [];
      for (const e of effects) {
        ul.appendChild(
          el(
            "li",
            { class: "effect side-" + (e.owner || "none"), "data-effect": e.card, onclick: function () { showCard(e.card); }, title: cards[e.card] ? cards[e.card].text : null },
            el("span", { class: "name" }, e.card),
            " · " + sideName(e.owner) + " · " + e.lasts
          )
        );
      }
      if (!effects.length) ul.appendChild(el("li", { class: "muted" }, "No effect in play."));
      const piles = $("piles");
      clear(piles);
      const table = Array.isArray(s.table) ? s.table : [];
      if (table.length) piles.appendChild(pile("On the table", table));
      piles.appendChild(pile("Discard pile", s.discard || []));
      piles.appendChild(pile("Removed", s.removed || []));
    }

    function pile(title, names) {
      const d = el("details", { class: "pile" }, el("summary", null, title + " (" + names.length + ")"));
      const ul = el("ul", { class: "plain" });
      for (const n of names) ul.appendChild(el("li", { onclick: function () { showCard(n); } }, n));
      d.appendChild(ul);
      return d;
    }

    function renderPresence() {
      const box = $("presence");
      clear(box);
      const p = (state && state.presence) || {};
      for (const s of ["us", "ussr", "observer"]) {
        const v = p[s] || "absent";
        box.appendChild(
          el("span", { class: "pres pres-" + v, "data-presence": s, "data-state": v, title: sideName(s) + " is " + v }, sideName(s) + (s === seat ? " (you)" : "") + ": " + v)
        );
      }
    }

    function fmtMs(ms) {
      ms = Math.max(0, ms);
      const t = Math.floor(ms / 1000);
      const h = Math.floor(t / 3600);
      const m = Math.floor((t % 3600) / 60);
      const s = t % 60;
      const two = function (n) { return (n < 10 ? "0" : "") + n; };
      return (h ? h + ":" + two(m) : String(m)) + ":" + two(s);
    }

    function renderClock() {
      const c = state && state.clock;
      const box = $("clock");
      if (!c) {
        box.hidden = true;
        return;
      }
      box.hidden = false;
      clear(box);
      // `left_ms` is the time left when the server read it (`at`); every seat acting then
      // (both at the headlines) counts down from there.
      const at = c.at ? Date.parse(c.at) : NaN;
      const runs = Array.isArray(c.running_seats) ? c.running_seats : [c.running];
      for (const s of ["us", "ussr"]) {
        let ms = Number(c.left_ms && c.left_ms[s]) || 0;
        const running = runs.indexOf(s) >= 0;
        if (running && !isNaN(at) && !(state && state.outcome)) ms -= Date.now() - at;
        box.appendChild(el("span", { class: "side-clock" + (running ? " running" : ""), "data-clock": s }, sideName(s) + " " + fmtMs(ms)));
      }
    }

    function renderOutcome() {
      const o = state && state.outcome;
      const box = $("outcome");
      if (!o) {
        box.hidden = true;
        return;
      }
      box.hidden = false;
      box.textContent = String((state.rules && state.rules.outcome_text) || (o.winner ? sideName(o.winner) + " wins" : "Draw")) + ".";
    }

    function logLine(text) {
      const t = String(text);
      let cls = "line";
      if (/^#\d+ /.test(t)) cls += " move-head";
      else if (/^(---|===)/.test(t)) cls += " phase";
      return el("div", { class: cls }, t);
    }

    function renderLog() {
      const box = $("log");
      clear(box);
      const frag = document.createDocumentFragment();
      for (const l of log) frag.appendChild(logLine(l));
      box.appendChild(frag);
      box.scrollTop = box.scrollHeight;
    }

    function appendLog(lines) {
      const box = $("log");
      for (const old of box.querySelectorAll(".new")) old.classList.remove("new");
      for (const l of lines) {
        const e = logLine(l);
        e.classList.add("new");
        box.appendChild(e);
      }
      box.scrollTop = box.scrollHeight; // the newest line in view
    }

    function showRejected(text) {
      $("rejected-text").textContent = text;
      $("rejected").hidden = false;
    }
    function hideRejected() {
      $("rejected").hidden = true;
    }
  }
})();
