//! The host's part of every game's page (`static/arbiter.js`) and the home page in real headless
//! browsers, Chromium and Firefox, each body run at a desktop's, a small laptop's and a phone's
//! size (`Screen::TRIED`), with screenshots (`ARBITER_SCREENSHOTS=DIR`; each name says the
//! browser and the screen):
//!
//! - the chat's unread messages: counted while the page is hidden (or the chat out of view),
//!   shown on the chat ("· 2 new") and in the tab's title ("(2) "), told to the page by the
//!   `arbiter:unread` event, cleared once the chat is seen (in view with the page shown, or its
//!   field focused), a message shown as text; the sound's switch remembered; the panel in the page's `#arbiter-slot` if it has one; a seat that must
//!   choose at the same time as the seat deciding is alerted as a seat whose move it is (the
//!   title, the sound, the desktop notification with the game's prompt);
//! - a game of one seat: no chat, no alerts, no webhook, unlisted by default; a replay's own
//!   header (the game, its id, the move, whose view) without the live page's connection,
//!   presence, clock and play-only buttons, for both games;
//! - the home page: an option named after a seat reads as the seat is written ("US bonus"), the
//!   list box unchecked for a game of one seat, a new game's links at the top and in view, a game
//!   against the computer opened at once, "my games" telling games apart (the opponent, when it
//!   was created, its last move, its id).
//!
//! Ignored by default like `browser.rs` (whose header says how to install the browsers);
//! `.ci/run` runs each test on its own:
//!
//! ```sh
//! cargo test --release -p arbiter-server --test browser_host -- --ignored
//! ```

mod common;
mod web;

use arbiter_server::{start, Config, Running};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use std::time::Duration;
use web::*;

/// A server on a fresh data folder, which lets one address make many games (each screen makes
/// its own).
async fn server(dir: &tempfile::TempDir) -> (Running, String) {
    let mut c = Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games"));
    c.games_per_address = 1000;
    let srv = start(c, arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", srv.addr);
    (srv, base)
}

async fn post(http: &reqwest::Client, url: String, body: Value) -> (u16, Value) {
    let r = http.post(&url).body(body.to_string()).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn create(http: &reqwest::Client, base: &str, body: Value) -> Value {
    let (status, g) = post(http, format!("{base}/api/games"), body).await;
    assert_eq!(status, 201, "{g}");
    g
}

fn token<'a>(g: &'a Value, place: &str) -> &'a str {
    g["tokens"][place].as_str().unwrap_or_else(|| panic!("no {place} token in {g}"))
}

async fn moves_of(http: &reqwest::Client, base: &str, g: &Value, place: &str) -> Value {
    get(http, format!("{base}/api/games/{}/moves?token={}", g["id"].as_str().unwrap(), token(g, place))).await
}

async fn play(http: &reqwest::Client, base: &str, g: &Value, place: &str, text: &str) {
    let (status, v) =
        post(http, format!("{base}/api/games/{}/moves?token={}", g["id"].as_str().unwrap(), token(g, place)), json!({ "move": text }))
            .await;
    assert_eq!(status, 200, "{place}: {text}: {v}");
}

async fn say(http: &reqwest::Client, base: &str, g: &Value, place: &str, text: &str) {
    let (status, v) = post(
        http,
        format!("{base}/api/games/{}/chat?token={}", g["id"].as_str().unwrap(), token(g, place)),
        json!({ "text": text, "to": "all" }),
    )
    .await;
    assert_eq!(status, 201, "{v}");
}

async fn click(c: &Client, css: &str) {
    until(&format!("a click on {css}"), || async move { c.find(Locator::Css(css)).await.ok()?.click().await.ok() }).await;
}

async fn title(c: &Client) -> String {
    c.title().await.unwrap_or_default()
}

/// Whether the element is shown: it exists and takes room (no `display: none` on it or above).
async fn shown(c: &Client, css: &str) -> bool {
    let script = format!(
        "const e = document.querySelector({}); return !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'",
        json!(css)
    );
    js(c, &script).await == json!(true)
}

async fn text_of(c: &Client, css: &str) -> String {
    let script = format!("const e = document.querySelector({}); return e ? e.textContent : null", json!(css));
    js(c, &script).await.as_str().unwrap_or("").trim().to_string()
}

/// Everything a page of the seat hears in place of the real thing: the sound (counted), the
/// desktop notifications (kept), the unread counts the host tells, and whether the page is
/// hidden (`window.__hide(true)`, as a tab in the background).
const STUBS: &str = r#"
  window.__beeps = 0; window.__notes = []; window.__unread = [];
  const A = function () { this.currentTime = 0; this.destination = {}; };
  A.prototype.createOscillator = function () { window.__beeps++; return { frequency: {}, connect: (x) => x, start() {}, stop() {} }; };
  A.prototype.createGain = function () { return { gain: { setValueAtTime() {}, exponentialRampToValueAtTime() {} }, connect: (x) => x }; };
  window.AudioContext = A; window.webkitAudioContext = A;
  const N = function (title, o) { window.__notes.push({ title: String(title), body: String((o && o.body) || "") }); };
  N.permission = "granted"; N.requestPermission = () => Promise.resolve("granted");
  window.Notification = N;
  document.addEventListener("arbiter:unread", (e) => window.__unread.push(e.detail.count));
  window.__hide = (h) => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => h });
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (h ? "hidden" : "visible") });
    document.dispatchEvent(new Event("visibilitychange"));
  };
"#;

/// Whether the chat's log is on the screen, as the reader would see it.
async fn chat_in_view(c: &Client) -> bool {
    let v = js(
        c,
        "const r = document.getElementById('chat-log').getBoundingClientRect(); return r.height > 0 && r.bottom > 32 && r.top < window.innerHeight - 32",
    )
    .await;
    v == json!(true)
}

async fn unread_events(c: &Client) -> Vec<u64> {
    js(c, "return window.__unread").await.as_array().unwrap().iter().filter_map(Value::as_u64).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn unread_chat_and_a_choice_made_at_once_in_chromium() {
    unread_chat_and_a_choice_made_at_once(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn unread_chat_and_a_choice_made_at_once_in_firefox() {
    unread_chat_and_a_choice_made_at_once(Browser::Firefox).await;
}

/// The moves (by place) that lead a game of `seed` to the first position where the seat `who`
/// chooses at the same time as the seat deciding (`moves.simultaneous`), each deciding seat
/// playing its first move.
async fn moves_to_a_choice_at_once(http: &reqwest::Client, base: &str, seed: u64, who: &str) -> Vec<(String, String)> {
    let g = create(http, base, json!({ "seed": seed })).await;
    let mut played = Vec::new();
    for _ in 0..80 {
        if moves_of(http, base, &g, who).await["simultaneous"].is_object() {
            return played;
        }
        let mut next = None;
        for place in ["us", "ussr"] {
            let m = moves_of(http, base, &g, place).await;
            if m["yours"] == json!(true) {
                next = Some((place.to_string(), m["moves"][0].as_str().expect("a move").to_string()));
            }
        }
        let (place, text) = next.expect("a seat deciding");
        play(http, base, &g, &place, &text).await;
        played.push((place, text));
    }
    panic!("no choice made at once in 80 moves");
}

/// A two-seat game's page (the second seat's), the other seat writing in the chat: unread
/// messages counted while the page is hidden, told by the chat's mark, the title and the
/// `arbiter:unread` event, cleared when the chat is seen; then the seat comes to choose at the
/// same time as the seat deciding: the title says the game's prompt, the sound plays, the desktop
/// notification tells the prompt.
async fn unread_chat_and_a_choice_made_at_once(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let (_srv, base) = server(&dir).await;
    let http = reqwest::Client::new();
    let seed = 7;
    let path = moves_to_a_choice_at_once(&http, &base, seed, "us").await;
    let (last, before) = path.split_last().expect("moves before the choice");
    assert_eq!(last.0, "us", "the US makes the move before it chooses at once: {last:?}");
    let profiles = tempfile::tempdir().unwrap();
    for screen in Screen::TRIED {
        let g = create(&http, &base, json!({ "seed": seed })).await;
        for (place, text) in before {
            play(&http, &base, &g, place, text).await;
        }
        let browser = open_at(kind, &profiles.path().join(screen.name()), screen).await;
        let c = &browser;
        c.goto(&format!("{base}/")).await.unwrap();
        js(c, "localStorage.setItem('arbiter.notify', 'on');").await;
        c.goto(&format!("{base}{}", g["links"]["us"].as_str().unwrap())).await.unwrap();
        wait_connected(c, "US").await;
        // The sound is off until switched on, and stays on after a reload.
        let sound =
            || async move { js(c, "const e = document.getElementById('alert-sound'); return e ? e.checked : null").await.as_bool() };
        until("the sound's switch", || async move { (sound().await == Some(false)).then_some(()) }).await;
        click(c, "#alert-sound").await;
        assert_eq!(js(c, "return localStorage.getItem('arbiter.sound')").await, "on");
        c.refresh().await.unwrap();
        wait_connected(c, "US").await;
        until("the sound still on", || async move { (sound().await == Some(true)).then_some(()) }).await;
        until("the title to say it is the US's move", || async move { title(c).await.starts_with("● Your move — ").then_some(()) }).await;
        js(c, STUBS).await;
        let at = screen.name();

        // The panel is where the page asks for it.
        let placed = js(
            c,
            "const p = document.getElementById('arbiter-panel'), s = document.getElementById('arbiter-slot'); return s ? p.parentElement === s : p.parentElement === document.body",
        )
        .await;
        assert_eq!(placed, json!(true), "{at}: the panel in #arbiter-slot if the page has one, else in the body");

        // Hidden (another tab in front): two messages from the other seat are unread.
        js(c, "window.__hide(true)").await;
        say(&http, &base, &g, "ussr", "<i>first</i>").await;
        say(&http, &base, &g, "ussr", "second").await;
        until("the title to count two unread messages", || async move { title(c).await.starts_with("(2) ● Your move — ").then_some(()) })
            .await;
        let page_title = title(c).await.trim_start_matches("(2) ● Your move — ").to_string();
        assert!(!page_title.contains('●') && !page_title.starts_with('('), "{at}: one mark only: {}", title(c).await);
        assert_eq!(text_of(c, "#chat-title").await, "Chat · 2 new", "{at}");
        assert_eq!(unread_events(c).await, [1, 2], "{at}: each change told to the page");
        let html = js(c, "return document.getElementById('chat-log').innerHTML").await;
        assert!(html.as_str().unwrap().contains("&lt;i&gt;first"), "{at}: a message is shown as text: {html}");

        // Now the US comes to choose at the same time as the USSR decides: alerted as its move.
        play(&http, &base, &g, "us", &last.1).await;
        let m = moves_of(&http, &base, &g, "us").await;
        let prompt = m["simultaneous"]["prompt"].as_str().unwrap_or_else(|| panic!("a prompt: {m}")).to_string();
        assert_eq!(m["yours"], json!(false), "{m}");
        let want = format!("(2) ● {prompt} — {page_title}");
        let w = want.clone();
        until(&format!("the title {want:?}"), || {
            let w = w.clone();
            async move { (title(c).await == w).then_some(()) }
        })
        .await;
        assert_eq!(js(c, "return window.__beeps").await, json!(1), "{at}: the sound, once");
        assert_eq!(js(c, "return window.__notes").await, json!([{ "title": "Your move", "body": prompt }]), "{at}: the notification");
        // A chat seen while the page is hidden is still unread: the mark is on the screen.
        js(c, "document.getElementById('chat-log').scrollIntoView({ block: 'center' })").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(title(c).await.starts_with("(2) "), "{at}: hidden, nothing is seen: {}", title(c).await);
        screenshot(c, kind, &format!("host-unread-{at}.png")).await;

        // Shown again with the chat in view: read.
        js(c, "window.__hide(false)").await;
        let read = format!("● {prompt} — {page_title}");
        let r = read.clone();
        until("the messages read", || {
            let r = r.clone();
            async move { (title(c).await == r).then_some(()) }
        })
        .await;
        assert_eq!(text_of(c, "#chat-title").await, "Chat", "{at}");
        assert_eq!(unread_events(c).await.last(), Some(&0), "{at}");
        // A message arriving while the chat is in view is read at once.
        say(&http, &base, &g, "ussr", "third").await;
        until("the third message shown", || async move { text_of(c, "#chat-log").await.contains("third").then_some(()) }).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!title(c).await.starts_with('('), "{at}: seen as it came: {}", title(c).await);

        // Out of view (where the page scrolls it away) a message stays unread until the chat's
        // field is focused.
        js(c, "window.scrollTo(0, 0); for (const e of document.querySelectorAll('*')) if (e.scrollTop) e.scrollTop = 0;").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let away = !chat_in_view(c).await;
        if !away {
            js(c, "window.__hide(true)").await;
        }
        say(&http, &base, &g, "ussr", "fourth").await;
        until("the fourth message unread", || async move { title(c).await.starts_with("(1) ").then_some(()) }).await;
        if !away {
            js(c, "window.__hide(false)").await;
        }
        js(c, "document.getElementById('chat-text').focus()").await;
        until("the fourth message read", || async move { (!title(c).await.starts_with('(')).then_some(()) }).await;
        assert_eq!(unread_events(c).await.last(), Some(&0), "{at}");
        browser.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn a_page_of_one_seat_and_a_replay_s_header_in_chromium() {
    a_page_of_one_seat_and_a_replay_s_header(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn a_page_of_one_seat_and_a_replay_s_header_in_firefox() {
    a_page_of_one_seat_and_a_replay_s_header(Browser::Firefox).await;
}

/// A game of one seat (Minesweeper) is unlisted by default and its page has no chat, no alerts
/// and no webhook, nor a mark in the title; a replay, of it and of a game of two seats, shows its
/// own header (the game, its id, the move, whose view) and none of the live page's connection,
/// presence, clock or play-only buttons.
async fn a_page_of_one_seat_and_a_replay_s_header(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let (_srv, base) = server(&dir).await;
    let http = reqwest::Client::new();
    let profiles = tempfile::tempdir().unwrap();
    for screen in Screen::TRIED {
        let at = screen.name();
        let ms = create(&http, &base, json!({ "game": "minesweeper", "seed": 3 })).await;
        let ms_id = ms["id"].as_str().unwrap().to_string();
        let facts = get(&http, format!("{base}/api/games/{ms_id}")).await;
        assert_eq!(facts["listed"], json!(false), "a game of one seat is unlisted by default: {facts}");

        let browser = open_at(kind, &profiles.path().join(at), screen).await;
        let c = &browser;
        c.goto(&format!("{base}{}", ms["links"]["player"].as_str().unwrap())).await.unwrap();
        until("the board", || async move { c.find(Locator::Css("[data-cell=\"e5\"]")).await.ok().map(|_| ()) }).await;
        until("the page connected", || async move { (attr(c, "#conn", "data-state").await.as_deref() == Some("connected")).then_some(()) })
            .await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        for css in ["#arbiter-chat", "#chat-text", "#alert-sound", "#alert-notify", "#webhook-form"] {
            assert!(!shown(c, css).await, "{at}: a game of one seat shows no {css}");
        }
        assert!(!title(c).await.contains('●'), "{at}: nobody to alert: {}", title(c).await);
        let placed = js(c, "const p = document.getElementById('arbiter-panel'); return !!p && p.parentElement.id").await;
        assert_eq!(placed, json!("arbiter-slot"), "{at}: the host's panel in the page's slot");
        click(c, "[data-cell=\"e5\"]").await;
        until(
            "the opened cell",
            || async move { (attr(c, "[data-cell=\"e5\"]", "data-state").await.as_deref() == Some("open")).then_some(()) },
        )
        .await;
        no_sideways_scroll(c, &format!("Minesweeper's page ({at})")).await;
        screenshot(c, kind, &format!("host-one-seat-{at}.png")).await;

        // Its replay (unlisted: the seat's token opens it), seen as the player.
        c.goto(&format!("{base}/replay/{ms_id}?token={}", token(&ms, "player"))).await.unwrap();
        until("the replay at its end", || async move { (text_of(c, "#replay-at").await == "move 1 of 1").then_some(()) }).await;
        until("the game's title", || async move { (text_of(c, "#replay-title").await == "Replay of Minesweeper").then_some(()) }).await;
        assert_eq!(text_of(c, "#replay-id").await, ms_id, "{at}");
        assert_eq!(text_of(c, "#replay-seat").await, "seen as Player", "{at}");
        assert_eq!(js(c, "return document.body.classList.contains('replaying')").await, json!(true));
        for css in ["#conn", "#undo", "#arbiter-panel"] {
            assert!(!shown(c, css).await, "{at}: a replay shows no {css}");
        }
        click(c, "#replay-back").await;
        until("the start", || async move { (text_of(c, "#replay-at").await == "move 0 of 1").then_some(()) }).await;
        no_sideways_scroll(c, &format!("Minesweeper's replay ({at})")).await;
        screenshot(c, kind, &format!("host-replay-one-seat-{at}.png")).await;

        // A game of two seats, listed: its replay needs no token and is an observer's.
        let ts = create(&http, &base, json!({ "seed": 5 })).await;
        let ts_id = ts["id"].as_str().unwrap().to_string();
        for _ in 0..3 {
            let m = moves_of(&http, &base, &ts, "ussr").await;
            play(&http, &base, &ts, "ussr", m["moves"][0].as_str().unwrap()).await;
        }
        c.goto(&format!("{base}/replay/{ts_id}")).await.unwrap();
        until("the replay at its end", || async move { (text_of(c, "#replay-at").await == "move 3 of 3").then_some(()) }).await;
        let game_title = get(&http, format!("{base}/api/games/{ts_id}")).await["title"].as_str().unwrap().to_string();
        let want = format!("Replay of {game_title}");
        until("the game's title", || {
            let want = want.clone();
            async move { (text_of(c, "#replay-title").await == want).then_some(()) }
        })
        .await;
        assert_eq!(text_of(c, "#replay-id").await, ts_id, "{at}");
        assert_eq!(text_of(c, "#replay-seat").await, "seen as an observer", "{at}");
        for css in [
            "#conn",
            "#presence",
            "#clock",
            "#undo",
            "#resign",
            "#arbiter-panel",
            "#tabs [data-go=\"arbiter-slot\"]",
            "#quick [data-go=\"arbiter-slot\"]",
        ] {
            assert!(!shown(c, css).await, "{at}: a replay shows no {css}");
        }
        assert_eq!(text_of(c, "#seat").await, "Seen by an observer", "{at}: the table's badge");
        let fits = js(c, "const b = document.getElementById('replay-bar'); return b.scrollWidth <= b.clientWidth").await;
        assert_eq!(fits, json!(true), "{at}: the replay's bar fits the screen");
        js(c, "window.scrollTo(0, 0)").await;
        screenshot(c, kind, &format!("host-replay-two-seats-{at}.png")).await;
        browser.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn the_home_page_names_links_and_tells_games_apart_in_chromium() {
    the_home_page_names_links_and_tells_games_apart(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn the_home_page_names_links_and_tells_games_apart_in_firefox() {
    the_home_page_names_links_and_tells_games_apart(Browser::Firefox).await;
}

async fn choose(c: &Client, id: &str, value: &str) {
    js(c, &format!("const s = document.getElementById({}); s.value = {}; s.dispatchEvent(new Event('change'));", json!(id), json!(value)))
        .await;
}

async fn url(c: &Client) -> String {
    c.current_url().await.unwrap().to_string()
}

/// The home page: an option named after a seat is written as the seat is; the list box follows
/// the game's number of seats; a new game's links come first and in view; a game against the
/// computer opens at once; "my games" rows tell each game apart.
async fn the_home_page_names_links_and_tells_games_apart(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let (_srv, base) = server(&dir).await;
    let http = reqwest::Client::new();
    let kinds = get(&http, format!("{base}/api/kinds")).await;
    let two_seats = kinds["games"].as_array().unwrap().iter().find(|k| k["seats"].as_array().unwrap().len() == 2).unwrap().clone();
    let one_seat = kinds["games"].as_array().unwrap().iter().find(|k| k["seats"].as_array().unwrap().len() == 1).unwrap().clone();
    let profiles = tempfile::tempdir().unwrap();
    for screen in Screen::TRIED {
        let at = screen.name();
        let browser = open_at(kind, &profiles.path().join(at), screen).await;
        let c = &browser;
        c.goto(&format!("{base}/")).await.unwrap();
        until("the options", || async move { c.find(Locator::Id("opt-us_bonus")).await.ok().map(|_| ()) }).await;
        let name = js(c, "return document.getElementById('opt-us_bonus').closest('label').textContent.trim()").await;
        assert_eq!(name, json!("US bonus"), "{at}: an option named after a seat");
        let listed = || async move { js(c, "return document.getElementById('listed').checked").await };
        assert_eq!(listed().await, json!(true), "{at}: a game of two seats is listed by default");
        choose(c, "game", one_seat["id"].as_str().unwrap()).await;
        assert_eq!(listed().await, json!(false), "{at}: a game of one seat is not");
        choose(c, "game", two_seats["id"].as_str().unwrap()).await;
        assert_eq!(listed().await, json!(true), "{at}");

        // A game between people: its links first on the page, and in view.
        click(c, "#create-button").await;
        let link = until("the US link", || async move {
            let v = c.find(Locator::Id("link-us")).await.ok()?.prop("value").await.ok()??;
            (!v.is_empty()).then_some(v)
        })
        .await;
        let people_id = link.split("/play/").nth(1).unwrap().split('?').next().unwrap().to_string();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let placed = js(
            c,
            r#"const l = document.getElementById("links"), r = l.getBoundingClientRect();
               const first = Array.from(document.querySelector("main").children).find((e) => !e.hidden);
               return [first === l, r.top >= 0 && r.top < window.innerHeight / 2];"#,
        )
        .await;
        assert_eq!(placed, json!([true, true]), "{at}: the links first on the page and at the top of the screen");
        no_sideways_scroll(c, &format!("the home page with links ({at})")).await;
        screenshot(c, kind, &format!("host-home-links-{at}.png")).await;

        // Against the computer: straight to the game, the player's seat.
        c.goto(&format!("{base}/")).await.unwrap();
        until("the computer offered", || async move { c.find(Locator::Css("#my-seat option")).await.ok().map(|_| ()) }).await;
        for (id, v) in [("opponent", "computer"), ("my-seat", "us"), ("level", "1")] {
            choose(c, id, v).await;
        }
        click(c, "#create-button").await;
        let page = until("the game's page", || async move {
            let u = url(c).await;
            (u.contains("/play/") && u.contains("?token=")).then_some(u)
        })
        .await;
        let vs_id = page.split("/play/").nth(1).unwrap().split('?').next().unwrap().to_string();
        let facts = until("the computer's setup", || {
            let (http, base, vs_id) = (http.clone(), base.clone(), vs_id.clone());
            async move {
                let f = get(&http, format!("{base}/api/games/{vs_id}")).await;
                (f["to_move"] == "us" && f["moves"].as_u64()? > 0).then_some(f)
            }
        })
        .await;
        assert_eq!(facts["seats"][1], json!({ "id": "ussr", "status": "computer" }), "{facts}");

        // My games: each row says the game, the seat, the opponent, when, the last move, the id.
        c.goto(&format!("{base}/")).await.unwrap();
        let row = |id: &str| format!("#my-games li[data-game=\"{id}\"][data-seat=\"us\"]");
        let vs_row = row(&vs_id);
        let r = vs_row.clone();
        until("my games filled in", || {
            let r = r.clone();
            async move { (!text_of(c, &format!("{r} .created")).await.is_empty()).then_some(()) }
        })
        .await;
        assert_eq!(text_of(c, &format!("{vs_row} .opponent")).await, "against the computer (USSR)", "{at}");
        let last = text_of(c, &format!("{vs_row} .last-move")).await;
        assert!(last.starts_with(&format!("last move #{} ", facts["moves"])), "{at}: {last}");
        assert!(text_of(c, &format!("{vs_row} .game-id")).await.contains(&vs_id), "{at}");
        let people_row = row(&people_id);
        let p = people_row.clone();
        until("the other game's row", || {
            let p = p.clone();
            async move { (!text_of(c, &format!("{p} .created")).await.is_empty()).then_some(()) }
        })
        .await;
        assert_eq!(text_of(c, &format!("{people_row} .opponent")).await, "USSR held here too", "{at}: both links given here");
        assert_eq!(text_of(c, &format!("{people_row} .last-move")).await, "no move yet", "{at}");
        assert!(text_of(c, &format!("{people_row} .game-id")).await.contains(&people_id), "{at}");
        assert!(text_of(c, &format!("{people_row} .created")).await.starts_with("created "), "{at}");
        no_sideways_scroll(c, &format!("my games ({at})")).await;
        js(c, "document.getElementById('my-games-panel').scrollIntoView()").await;
        screenshot(c, kind, &format!("host-my-games-{at}.png")).await;
        browser.close().await;
    }
}
