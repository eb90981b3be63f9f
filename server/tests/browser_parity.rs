//! The browser at parity with the table, in headless Chromium and Firefox, one body
//! for both: a warning stops a losing coup (the player cancels in the page's dialog and nothing
//! is sent) and the coup's odds are shown when its target is chosen; a move taken back with the
//! Undo button, the other seat's page told; headlines chosen at the same time, the US first
//! while the USSR decides, neither page showing the other's card until both have chosen.
//! Positions are reached by random play (`random_until`) and replayed over HTTP on the same
//! seed; then the pages are opened.
//!
//! Ignored by default like `browser.rs` (see there for the browsers and drivers):
//!
//! ```sh
//! FIREFOX=/usr/bin/firefox-esr GECKODRIVER=…/geckodriver \
//!   cargo test --release -p arbiter-server --test browser_parity -- --ignored
//! ```

mod web;

use arbiter_server::{start, Config, Running};
use arbiter_twilight::flow::Task;
use arbiter_twilight::map::Map;
use arbiter_twilight::{Game, Move, Options, Side};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use std::time::Duration;
use web::*;

const OPTIONS: Options = Options { optional_cards: true, us_bonus: 2 };

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn warnings_undo_and_headlines_in_chromium() {
    warnings_undo_and_headlines(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn warnings_undo_and_headlines_in_firefox() {
    warnings_undo_and_headlines(Browser::Firefox).await;
}

/// A game on the server at `seed` with `moves` played over HTTP: its creation's answer.
async fn game_at(srv: &Running, http: &reqwest::Client, seed: u64, moves: &[(Side, String)]) -> Value {
    let base = format!("http://{}", srv.addr);
    let r = http.post(format!("{base}/api/games")).body(json!({ "seed": seed, "optional_cards": true }).to_string()).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let g: Value = r.json().await.unwrap();
    for (side, text) in moves {
        let token = g["tokens"][seat(*side)].as_str().unwrap();
        let r = http
            .post(format!("{base}/api/games/{}/moves?token={token}", g["id"].as_str().unwrap()))
            .body(json!({ "move": text }).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{text}");
    }
    g
}

fn seat(side: Side) -> &'static str {
    match side {
        Side::Us => "us",
        Side::Ussr => "ussr",
    }
}

async fn seq(http: &reqwest::Client, base: &str, g: &Value) -> u64 {
    get(http, format!("{base}/api/games/{}/state?token={}", g["id"].as_str().unwrap(), g["tokens"]["observer"].as_str().unwrap())).await
        ["seq"]
        .as_u64()
        .unwrap()
}

async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css)).await.map(|e| async move { e.text().await.unwrap_or_default() }).unwrap().await
}

async fn click(c: &Client, css: &str) {
    let e = until(css, || async move { c.find(Locator::Css(css)).await.ok() }).await;
    e.click().await.unwrap_or_else(|e| panic!("{css}: {e}"));
}

/// Click the move's button, and go on through the page's dialog if the game warns.
async fn play_by_click(c: &Client, css: &str) {
    click(c, css).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    if c.find(Locator::Css("#confirm:not([hidden]) #confirm-yes")).await.is_ok() {
        click(c, "#confirm-yes").await;
    }
}

async fn warnings_undo_and_headlines(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let rules = arbiter_twilight_cards::ruleset();
    let profiles = tempfile::tempdir().unwrap();
    let a_browser = open(kind, &profiles.path().join("a"), false).await;
    let b_browser = open(kind, &profiles.path().join("b"), false).await;
    let (a, b) = (&a_browser, &b_browser);

    // A losing coup: the phasing side's coup in a battleground at DEFCON 2 (§8.1.3). Its odds
    // show when the country is chosen; its button asks first, and cancelling sends nothing.
    let losing = |g: &Game| {
        let st = g.state();
        (st.defcon == 2 && g.to_move() == Some(st.phasing))
            .then(|| g.legal().iter().copied().find(|m| matches!(m, Move::Coup(c) if Map::standard().country(*c).battleground)))
            .flatten()
    };
    let r = arbiter_twilight::playout::random_until(&rules, OPTIONS, 0..400, |g| losing(g).is_some()).expect("a losing coup");
    let coup = losing(&r.game).unwrap();
    let Move::Coup(country) = coup else { unreachable!() };
    let (coup, name) = (r.game.move_text(&coup), Map::standard().name(country).to_string());
    let side = r.game.to_move().unwrap();
    let g = game_at(&srv, &http, r.seed, &r.moves).await;
    a.goto(&format!("{base}{}", g["links"][seat(side)].as_str().unwrap())).await.unwrap();
    wait_connected(a, seat(side)).await;
    let at = seq(&http, &base, &g).await;
    click(a, &format!("#map [data-country=\"{name}\"]")).await;
    let odds_css = format!("#detail [data-odds-move=\"{}\"]", coup.replace('"', "\\\""));
    let odds = until("the coup's odds", || {
        let css = odds_css.clone();
        async move { a.find(Locator::Css(&css)).await.ok()?.text().await.ok() }
    })
    .await;
    assert!(odds.contains("die") && odds.contains(&name), "{odds}");
    click(a, &format!("#moves [data-move=\"{}\"]", coup.replace('"', "\\\""))).await;
    let warned =
        until("the warning", || async move { a.find(Locator::Css("#confirm:not([hidden]) #confirm-list")).await.ok()?.text().await.ok() })
            .await;
    assert!(warned.contains("drops DEFCON to 1") && warned.contains("you lose"), "{warned}");
    click(a, "#confirm-no").await;
    until("the dialog to close", || async move { a.find(Locator::Css("#confirm[hidden]")).await.ok() }).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(seq(&http, &base, &g).await, at, "nothing was sent");
    assert!(!text(a, "#moves-count").await.contains("Sent"), "nothing is pending");

    // Undo: the USSR places its first Influence by a click (setup) and takes it back; the US
    // page is told, and both show the Influence as it was.
    let g = game_at(&srv, &http, 11, &[]).await;
    a.goto(&format!("{base}{}", g["links"]["ussr"].as_str().unwrap())).await.unwrap();
    b.goto(&format!("{base}{}", g["links"]["us"].as_str().unwrap())).await.unwrap();
    wait_connected(a, "USSR").await;
    wait_connected(b, "US").await;
    assert_eq!(attr(a, "#undo", "disabled").await.as_deref(), Some("true"), "nothing to take back");
    let poland = influence(a, "Poland", "ussr").await;
    click(a, "#map [data-country=\"Poland\"]").await;
    until("the US page to show the placement", || async move { (influence(b, "Poland", "ussr").await == poland + 1).then_some(()) }).await;
    // The last move's countries are marked on both pages.
    for c in [a, b] {
        until("Poland marked as the last move", || async move {
            c.find(Locator::Css("#map .country.last[data-country=\"Poland\"]")).await.ok()
        })
        .await;
    }
    until("Undo to be enabled", || async move { (attr(a, "#undo", "disabled").await.is_none()).then_some(()) }).await;
    assert_eq!(attr(b, "#undo", "disabled").await.as_deref(), Some("true"), "the US has nothing to take back");
    click(a, "#undo").await;
    until("the US page to show the move taken back", || async move {
        let log = text(b, "#log").await;
        (log.contains("The USSR took back its move #1") && influence(b, "Poland", "ussr").await == poland).then_some(())
    })
    .await;
    until("the USSR page too", || async move { (influence(a, "Poland", "ussr").await == poland).then_some(()) }).await;
    assert_eq!(seq(&http, &base, &g).await, 0);

    // Headlines at the same time (§4.5C): the US chooses while the USSR decides; neither page
    // shows the other's card until both have chosen.
    let r = arbiter_twilight::playout::random_until(&rules, OPTIONS, 0..400, |g| {
        matches!(g.state().stack.last(), Some(Task::HeadlineChoose { side: Side::Ussr })) && g.acting().contains(&Side::Us)
    })
    .expect("a headline phase");
    let g = game_at(&srv, &http, r.seed, &r.moves).await;
    a.goto(&format!("{base}{}", g["links"]["ussr"].as_str().unwrap())).await.unwrap();
    b.goto(&format!("{base}{}", g["links"]["us"].as_str().unwrap())).await.unwrap();
    wait_connected(a, "USSR").await;
    wait_connected(b, "US").await;
    let us_choice =
        until("the US's headline buttons", || async move { b.find(Locator::Css("#moves [data-simultaneous=\"true\"]")).await.ok() }).await;
    let us_move = us_choice.attr("data-move").await.unwrap().unwrap();
    let us_card = us_move.trim_start_matches("headline ").trim_matches('"').to_string();
    assert!(!a.find_all(Locator::Css("#moves [data-move^=\"headline\"]")).await.unwrap().is_empty(), "the USSR chooses too");
    play_by_click(b, &format!("#moves [data-move=\"{}\"]", us_move.replace('"', "\\\""))).await;
    until("the US page to show its headline", || {
        let card = us_card.clone();
        async move { text(b, "#headline").await.contains(&card).then_some(()) }
    })
    .await;
    until("the USSR page to hear of it", || async move { text(a, "#log").await.contains("US has chosen a headline card").then_some(()) })
        .await;
    for css in ["#headline", "#log", "#moves", "#detail"] {
        assert!(!text(a, css).await.contains(&us_card), "the USSR page shows the US's headline {us_card} in {css}");
    }
    assert!(a.find_all(Locator::Css("#moves [data-move^=\"headline\"]")).await.unwrap().len() > 0, "the USSR still decides");
    let ussr_move = a.find(Locator::Css("#moves [data-move^=\"headline\"]")).await.unwrap().attr("data-move").await.unwrap().unwrap();
    let ussr_card = ussr_move.trim_start_matches("headline ").trim_matches('"').to_string();
    play_by_click(a, &format!("#moves [data-move=\"{}\"]", ussr_move.replace('"', "\\\""))).await;
    for (c, who) in [(a, "USSR"), (b, "US")] {
        until(&format!("the {who} page to see both headlines revealed"), || {
            let (us_card, ussr_card) = (us_card.clone(), ussr_card.clone());
            async move {
                let log = text(c, "#log").await;
                log.lines().any(|l| l.starts_with("Headlines revealed") && l.contains(&us_card) && l.contains(&ussr_card)).then_some(())
            }
        })
        .await;
    }

    // A board that reads as a board, at 1366x768: the log in view without scrolling the page
    // (its newest line shown), the whole map in its box, no country's name cut (a line cut
    // off would overflow by a line; Firefox reports 2 px of its glyphs' overflow), adjacency
    // lines drawn, the tracks as boxes; the zoom buttons scale the map.
    a.set_window_size(1366, 768).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let v = js(
        a,
        r##"const r = document.getElementById("log-panel").getBoundingClientRect();
           const l = document.getElementById("log");
           const box = document.getElementById("map-box");
           const cut = [...document.querySelectorAll("#map .cname")].filter(n => n.scrollWidth > n.clientWidth + 1 || n.scrollHeight > n.clientHeight + 3).map(n => [n.textContent, n.scrollWidth, n.clientWidth, n.scrollHeight, n.clientHeight]);
           return [r.top, r.bottom, innerHeight, l.scrollHeight - l.scrollTop - l.clientHeight, box.scrollWidth - box.clientWidth, cut,
                   document.querySelectorAll("#map svg.adjacency line").length, document.querySelectorAll("#track-defcon .box").length];"##,
    )
    .await;
    assert!(
        v[0].as_f64().unwrap() >= 0.0 && v[1].as_f64().unwrap() <= v[2].as_f64().unwrap(),
        "the log panel out of view at 1366x768: {v}"
    );
    assert!(v[3].as_f64().unwrap() <= 2.0, "the newest log line in view: {v}");
    assert!(v[4].as_f64().unwrap() <= 1.0, "the map fits its box at 1366x768: {v}");
    assert_eq!(v[5], json!([]), "names cut: {v}");
    assert!(v[6].as_u64().unwrap() > 100, "adjacency lines: {v}");
    assert_eq!(v[7], json!(5), "DEFCON as five boxes");
    screenshot(a, kind, "parity-1366x768.png").await;
    let before = js(a, "return document.getElementById('map-sizer').getBoundingClientRect().width").await.as_f64().unwrap();
    click(a, "#zoom-in").await;
    assert_eq!(text(a, "#zoom-level").await, "125%");
    let after = js(a, "return document.getElementById('map-sizer').getBoundingClientRect().width").await.as_f64().unwrap();
    assert!(after > before * 1.2, "zoomed: {before} -> {after}");
    click(a, "#zoom-fit").await;

    a_browser.close().await;
    b_browser.close().await;
    srv.task.abort();
}
