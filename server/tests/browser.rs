//! The browser client in real headless browsers, Chromium and Firefox: a real server on a
//! loopback port, each browser driven by its WebDriver server (fantoccini): Debian's `chromium`
//! by its `chromedriver`, Debian's `firefox-esr` by Mozilla's `geckodriver`. The new-game form
//! gives three secret links; two seats' pages in two browsers: the board and the USSR's hand
//! render, the USSR moves by clicking a country and a move button, the US page updates live, a
//! refused move is shown, a dropped connection comes back with a sync, a wrong link stops with a
//! message, the observer sees no hand,
//! no page scrolls sideways at 1280x800 or on a phone, and the US page never shows a card of the
//! USSR's hand; in a game where the Cuban Missile Crisis may be cancelled "at any time", the
//! seat not deciding interjects by a button (confirmed). And Minesweeper, the second game on
//! the same server: created from the new-game page, played to its end by clicking, its page
//! always the player's view, "game full" for a second player. A game against the computer,
//! created from the same page, its moves arriving live. One test per browser and game, the same
//! body for both browsers.
//!
//! Ignored by default, so that the README's `cargo test --workspace --release` runs on a machine
//! without browsers; `.ci/run` installs them and runs each:
//!
//! ```sh
//! apt-get install -y chromium chromium-driver firefox-esr
//! cargo install geckodriver --locked --root target/tools   # not a Debian package
//! cargo test --release -p arbiter-server --test browser -- --ignored
//! ```
//!
//! `CHROMIUM` and `CHROMEDRIVER` override Chromium's binaries (default `/usr/bin/chromium`,
//! `/usr/bin/chromedriver`); `FIREFOX` and `GECKODRIVER` Firefox's (default
//! `/usr/bin/firefox-esr` and `tools/bin/geckodriver` in the target folder, where the command
//! above puts it); `ARBITER_SCREENSHOTS=DIR` saves a screenshot of each page there, each name
//! starting with the browser's.

mod common;
mod web;

use arbiter_server::{start, Config};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use web::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn two_seats_play_by_clicking_in_chromium() {
    two_seats_play_by_clicking(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn two_seats_play_by_clicking_in_firefox() {
    two_seats_play_by_clicking(Browser::Firefox).await;
}

async fn two_seats_play_by_clicking(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();

    // The game, as a player creates it: the three links.
    let r = http.post(format!("{base}/api/games")).body(json!({ "seed": 7 }).to_string()).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let game: Value = r.json().await.unwrap();
    let (id, links, tokens) = (game["id"].as_str().unwrap(), &game["links"], &game["tokens"]);
    let link = |seat: &str| format!("{base}{}", links[seat].as_str().unwrap());
    let truth = |seat: &str| get(&http, format!("{base}/api/games/{id}/state?token={}", tokens[seat].as_str().unwrap()));
    let (ussr_view, us_view) = (truth("ussr").await, truth("us").await);
    let names = |v: &Value| v["hand"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect::<Vec<_>>();
    let ussr_hand = names(&ussr_view);
    let us_hand = names(&us_view);
    assert!(!ussr_hand.is_empty() && !us_hand.is_empty());
    let countries = get(&http, format!("{base}/api/kinds/twilight-struggle/map")).await["countries"].as_array().unwrap().len();

    let profiles = tempfile::tempdir().unwrap();
    let ussr_browser = open(kind, &profiles.path().join("ussr"), false).await;
    let us_browser = open(kind, &profiles.path().join("us"), false).await;
    let (ussr, us) = (&ussr_browser, &us_browser);

    // The new-game page: the form creates a game and shows its three links, each a secret.
    us.goto(&format!("{base}/")).await.unwrap();
    us.find(Locator::Id("seed")).await.unwrap().send_keys("12345678901234567890").await.unwrap();
    us.find(Locator::Id("create-button")).await.unwrap().click().await.unwrap();
    let links_shown = until("the new game's links", || async move {
        let mut out = Vec::new();
        for seat in ["us", "ussr", "observer"] {
            let v = us.find(Locator::Id(&format!("link-{seat}"))).await.ok()?.prop("value").await.ok()??;
            out.push(v);
        }
        out.iter().all(|l| !l.is_empty()).then_some(out)
    })
    .await;
    for l in &links_shown {
        let (prefix, token) = l.split_once("?token=").unwrap();
        assert!(prefix.starts_with(&format!("{base}/play/")) && token.len() == 32, "{l}");
    }
    let warning = us.find(Locator::Id("secret-warning")).await.unwrap().text().await.unwrap();
    assert!(warning.contains("secret"), "{warning}");
    assert_eq!(us.find_all(Locator::Css("button.copy")).await.unwrap().len(), 3);

    // The USSR's page: the whole board, its hand with each card's details, its decision.
    ussr.goto(&link("ussr")).await.unwrap();
    wait_connected(ussr, "USSR").await;
    assert_eq!(ussr.find_all(Locator::Css("#map [data-country]")).await.unwrap().len(), countries, "every country on the map");
    for bg in ["Poland", "East Germany", "Iran", "South Africa", "Mexico"] {
        assert_eq!(attr(ussr, &format!("[data-country=\"{bg}\"]"), "data-battleground").await.as_deref(), Some("true"), "{bg}");
    }
    assert_eq!(influence(ussr, "East Germany", "ussr").await, ussr_view["influence"]["East Germany"]["ussr"].as_u64().unwrap() as u32);
    assert_eq!(influence(ussr, "Canada", "us").await, us_view["influence"]["Canada"]["us"].as_u64().unwrap() as u32);
    let shown: Vec<String> = hand(ussr).await.into_iter().filter(|c| c != "The China Card").collect();
    assert_eq!(shown, ussr_hand, "the USSR's hand as the server deals it");
    let first = &ussr_hand[0];
    let title = attr(ussr, &format!("#hand [data-card=\"{first}\"]"), "title").await.unwrap();
    assert!(title.len() > 20, "{first}'s text is on the card: {title:?}");
    ussr.find(Locator::Css(&format!("#hand [data-card=\"{first}\"]"))).await.unwrap().click().await.unwrap();
    let detail = ussr.find(Locator::Id("detail")).await.unwrap().text().await.unwrap();
    assert!(detail.contains(first.as_str()) && detail.contains("Ops"), "the detail pane shows {first}: {detail}");
    let prompt = ussr.find(Locator::Id("prompt")).await.unwrap().text().await.unwrap();
    assert!(prompt.contains("Your decision") && prompt.contains("setup"), "{prompt}");
    assert!(!ussr.find_all(Locator::Css("#moves [data-move]")).await.unwrap().is_empty(), "the USSR's moves are buttons");
    no_sideways_scroll(ussr, "USSR at 1280x800").await;

    // The US page: its own hand, no moves (not its decision), and the USSR there.
    us.goto(&link("us")).await.unwrap();
    wait_connected(us, "US").await;
    let shown: Vec<String> = hand(us).await.into_iter().filter(|c| c != "The China Card").collect();
    assert_eq!(shown, us_hand, "the US hand");
    assert!(us.find_all(Locator::Css("#moves [data-move]")).await.unwrap().is_empty(), "no moves for the US while the USSR decides");
    until("the US page to show the USSR connected", || async move {
        (attr(us, "[data-presence=\"ussr\"]", "data-state").await.as_deref() == Some("connected")).then_some(())
    })
    .await;
    screenshot(ussr, kind, "ussr-1280x800.png").await;

    // A click on Poland, whose only move is `influence Poland`, plays it; the US page follows.
    let before = influence(us, "Poland", "ussr").await;
    ussr.find(Locator::Css("#map [data-country=\"Poland\"]")).await.unwrap().click().await.unwrap();
    until("the US page to show the USSR's Influence in Poland", || async move {
        (influence(us, "Poland", "ussr").await == before + 1).then_some(())
    })
    .await;
    until("the USSR page to show its own move", || async move { (influence(ussr, "Poland", "ussr").await == before + 1).then_some(()) })
        .await;
    let log = us.find(Locator::Id("log")).await.unwrap().text().await.unwrap();
    assert!(log.contains("USSR: influence Poland"), "the US log shows the move: {log}");

    // Words in the filter, then the one move button left.
    let hungary = influence(us, "Hungary", "ussr").await;
    ussr.find(Locator::Id("filter")).await.unwrap().send_keys("hung").await.unwrap();
    let buttons = until("the filter to leave one move", || async move {
        let b = ussr.find_all(Locator::Css("#moves [data-move]")).await.unwrap();
        (b.len() == 1).then_some(b)
    })
    .await;
    assert_eq!(buttons[0].attr("data-move").await.unwrap().as_deref(), Some("influence Hungary"));
    buttons[0].click().await.unwrap();
    until("the US page to show the USSR's Influence in Hungary", || async move {
        (influence(us, "Hungary", "ussr").await == hungary + 1).then_some(())
    })
    .await;

    // A move the referee refuses is shown with its reason.
    js(ussr, r#"window.arbiter.socket.send(JSON.stringify({type: "move", move: "influence France"})); return null"#).await;
    let refusal = until("the refusal to show", || async move {
        let e = ussr.find(Locator::Id("rejected")).await.ok()?;
        if !e.is_displayed().await.ok()? {
            return None;
        }
        e.text().await.ok()
    })
    .await;
    assert!(refusal.contains("France"), "{refusal}");

    // A dropped connection: "reconnecting", then a sync that brings the move made meanwhile.
    js(us, "window.arbiter.socket.close(); return null").await;
    let czech = influence(us, "Czechoslovakia", "ussr").await;
    let r = http
        .post(format!("{base}/api/games/{id}/moves?token={}", tokens["ussr"].as_str().unwrap()))
        .body(json!({ "move": "influence Czechoslovakia" }).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (t, mut saw_reconnecting) = (Instant::now(), false);
    loop {
        let state = attr(us, "#conn", "data-state").await;
        saw_reconnecting |= state.as_deref() == Some("reconnecting");
        if saw_reconnecting && state.as_deref() == Some("connected") {
            break;
        }
        assert!(t.elapsed() < PATIENCE, "the US page did not show reconnecting, then connected (now {state:?})");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    until("the resynced US page to show Czechoslovakia", || async move {
        (influence(us, "Czechoslovakia", "ussr").await == czech + 1).then_some(())
    })
    .await;
    screenshot(us, kind, "us-1280x800.png").await;
    no_sideways_scroll(us, "US at 1280x800").await;

    // Nothing of the USSR's hand on the US page, in its text or its attributes (where the
    // USSR's own page has every one of them).
    let own = everything(ussr).await;
    assert!(ussr_hand.iter().all(|c| own.contains(c.as_str())), "the USSR's page names its hand");
    let page = everything(us).await;
    let ussr_now = names(&truth("ussr").await);
    for card in ussr_hand.iter().chain(&ussr_now) {
        assert!(!page.contains(card.as_str()), "the US page shows the USSR's card {card}");
    }

    // The observer: the board, no hand.
    us.goto(&link("observer")).await.unwrap();
    wait_connected(us, "observer").await;
    assert!(hand(us).await.is_empty(), "the observer sees no hand");
    let page = everything(us).await;
    for card in ussr_now.iter().chain(&us_hand) {
        assert!(!page.contains(card.as_str()), "the observer's page shows {card}");
    }

    // A phone-sized screen: the USSR's page stacks, the map scrolls inside its box, the page
    // does not scroll sideways, and a country still plays by a tap.
    let phone_browser = open(kind, &profiles.path().join("phone"), true).await;
    let phone = &phone_browser;
    phone.goto(&link("ussr")).await.unwrap();
    wait_connected(phone, "phone").await;
    no_sideways_scroll(phone, "USSR at 390x844").await;
    let width = js(phone, "return [window.innerWidth, document.documentElement.clientWidth]").await;
    assert_eq!(width, json!([390, 390]), "phone emulation: the window's width, and the page's");
    screenshot(phone, kind, "ussr-phone.png").await;
    let bulgaria = influence(ussr, "Bulgaria", "ussr").await;
    phone.find(Locator::Css("#map [data-country=\"Bulgaria\"]")).await.unwrap().click().await.unwrap();
    until("the desktop USSR page to show the phone's move", || async move {
        (influence(ussr, "Bulgaria", "ussr").await == bulgaria + 1).then_some(())
    })
    .await;

    // "At any time": in a game where the Cuban Missile Crisis may be cancelled while the other
    // seat decides, the interjecting seat's page shows the move as a button of its own; a
    // click asks to confirm, then the move is made and the log says who interjected.
    let (seed, prefix, interjector, interjection) = common::interjection_ahead(arbiter_twilight::Options::default());
    let r = http.post(format!("{base}/api/games")).body(json!({ "seed": seed }).to_string()).send().await.unwrap();
    let crisis: Value = r.json().await.unwrap();
    let crisis_id = crisis["id"].as_str().unwrap();
    let seat_of = |side: arbiter_twilight::Side| if side == arbiter_twilight::Side::Us { "us" } else { "ussr" };
    for (side, text) in &prefix {
        let r = http
            .post(format!("{base}/api/games/{crisis_id}/moves?token={}", crisis["tokens"][seat_of(*side)].as_str().unwrap()))
            .body(json!({ "move": text }).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{text}");
    }
    let seat = seat_of(interjector);
    us.goto(&format!("{base}{}", crisis["links"][seat].as_str().unwrap())).await.unwrap();
    wait_connected(us, seat).await;
    let button =
        until("the interjection button", || async move { us.find(Locator::Css("#moves [data-interjection=\"true\"]")).await.ok() }).await;
    assert_eq!(button.attr("data-move").await.unwrap().as_deref(), Some(interjection.as_str()));
    let count = us.find(Locator::Id("moves-count")).await.unwrap().text().await.unwrap();
    assert!(count.contains("you may interject"), "{count}");
    screenshot(us, kind, "interjection-1280x800.png").await;
    button.click().await.unwrap();
    // Confirmed in the page (the in-page dialog the game's advice also uses).
    until("the confirmation", || async move { us.find(Locator::Css("#confirm:not([hidden]) #confirm-yes")).await.ok() })
        .await
        .click()
        .await
        .unwrap();
    let said = format!("The {interjector} interjects while the {} decides", interjector.opponent());
    until("the log to show the interjection", || {
        let said = said.clone();
        async move { us.find(Locator::Id("log")).await.ok()?.text().await.ok()?.contains(&said).then_some(()) }
    })
    .await;
    assert!(us.find_all(Locator::Css("#moves [data-interjection]")).await.unwrap().is_empty(), "the Crisis is cancelled: no button left");

    wrong_link_stops(us, &base, "Twilight Struggle", &id).await;
    for c in [ussr_browser, us_browser, phone_browser] {
        c.close().await;
    }
    server.task.abort();
}

/// A page opened with a token of no seat of game `id` says so and stops trying (the shared
/// `Arbiter.connect` asks the server why its socket never opened).
async fn wrong_link_stops(page: &Client, base: &str, kind: &str, id: &str) {
    let link = format!("{base}/play/{id}?token=not-a-seat");
    page.goto(&link).await.unwrap();
    let shown = until("the wrong link's message", || async move {
        let e = page.find(Locator::Id("fatal")).await.ok()?;
        if !e.is_displayed().await.ok()? {
            return None;
        }
        e.text().await.ok().filter(|t| !t.is_empty())
    })
    .await;
    assert_eq!(shown, "This link is not a seat of this game.", "{kind}: {link}");
    until(
        "the connection stopped",
        || async move { (attr(page, "#conn", "data-state").await.as_deref() == Some("stopped")).then_some(()) },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn minesweeper_by_clicking_in_chromium() {
    minesweeper_by_clicking(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox ESR and geckodriver; .ci/run runs it"]
async fn minesweeper_by_clicking_in_firefox() {
    minesweeper_by_clicking(Browser::Firefox).await;
}

/// The board as the page shows it: one string per row, as the view's `board`.
async fn minefield(c: &Client) -> Vec<String> {
    let v = js(
        c,
        r##"const rows = {};
           for (const b of document.querySelectorAll("#board [data-cell]")) {
             const cell = b.dataset.cell, row = Number(cell.slice(1));
             const ch = { closed: "#", flag: "F", mine: "*", boom: "X" }[b.dataset.state] || b.dataset.n;
             rows[row] = (rows[row] || "") + ch;
           }
           return Object.keys(rows).sort((a, b) => a - b).map((k) => rows[k]);"##,
    )
    .await;
    v.as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect()
}

/// Click cell `name` (found again should the board be redrawn between finding and clicking).
async fn click_cell(page: &Client, name: &str) {
    let css = format!("[data-cell=\"{name}\"]");
    until(&format!("a click on {name}"), || {
        let css = css.clone();
        async move { page.find(Locator::Css(&css)).await.ok()?.click().await.ok() }
    })
    .await;
}

/// The second game, Minesweeper, on the same server: the new-game page offers it; the
/// player's page draws the board from its view, a click opens a cell (the first never a mine),
/// a right-click flags one; the page shows exactly the server's view after each move, and no
/// mine before the end; a second player asking for the seat is refused ("game full"); the
/// game is played to its end by clicking, every mine then shown.
async fn minesweeper_by_clicking(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let profiles = tempfile::tempdir().unwrap();
    let browser = open(kind, &profiles.path().join("player"), false).await;
    let page = &browser;

    // The first open never loses but may win outright; the walk below needs a game under way,
    // so a board won at once is set aside and another started from the new-game page.
    let mut attempt = 0;
    let (observer_link, id, token, opened) = loop {
        attempt += 1;
        // The new-game page offers both games; choosing Minesweeper shows its options.
        page.goto(&format!("{base}/")).await.unwrap();
        let offered = until("the games offered", || async move {
            let v = js(page, "return Array.from(document.querySelectorAll('#game option')).map(o => o.value)").await;
            let ids: Vec<String> = v.as_array()?.iter().filter_map(|x| x.as_str().map(String::from)).collect();
            (ids.len() == 4).then_some(ids)
        })
        .await;
        assert_eq!(offered, ["twilight-struggle", "minesweeper", "mafia", "diplomacy"]);
        js(page, "const s = document.getElementById('game'); s.value = 'minesweeper'; s.dispatchEvent(new Event('change'));").await;
        for (option, value) in [("opt-width", "8"), ("opt-height", "6"), ("opt-mines", "5")] {
            let input = page.find(Locator::Id(option)).await.unwrap();
            input.clear().await.unwrap();
            input.send_keys(value).await.unwrap();
        }
        assert!(page.find(Locator::Id("clock-row")).await.unwrap().attr("hidden").await.unwrap().is_some(), "Minesweeper has no clock");
        page.find(Locator::Id("create-button")).await.unwrap().click().await.unwrap();
        let link = until("the player's link", || async move {
            let v = page.find(Locator::Id("link-player")).await.ok()?.prop("value").await.ok()??;
            (!v.is_empty()).then_some(v)
        })
        .await;
        let observer_link = page.find(Locator::Id("link-observer")).await.unwrap().prop("value").await.unwrap().unwrap();
        let (prefix, token) = link.split_once("?token=").unwrap();
        let id = prefix.rsplit('/').next().unwrap().to_string();

        // A second player: the seat is taken.
        let r = http.post(format!("{base}/api/games/{id}/join")).body("{}").send().await.unwrap();
        assert_eq!(r.status(), 409);
        let e: Value = r.json().await.unwrap();
        assert!(e["error"].as_str().unwrap().contains("game full"), "{e}");

        page.goto(&link).await.unwrap();
        until("the board", || async move { (minefield(page).await.len() == 6).then_some(()) }).await;
        assert_eq!(minefield(page).await, vec!["########"; 6]);
        no_sideways_scroll(page, "Minesweeper at 1280x800").await;

        // A right-click flags, a click opens: the page shows the server's view after each.
        click_cell(page, "a1").await;
        let opened = until("the first open", || async move {
            let b = minefield(page).await;
            (b[0].as_bytes()[0] != b'#').then_some(b)
        })
        .await;
        let server_view = get(&http, format!("{base}/api/games/{id}/state?token={token}")).await;
        let server_board: Vec<String> = server_view["board"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
        assert_eq!(opened, server_board, "the page shows the player's view");
        assert_ne!(server_view["outcome"], "lost", "the first open never loses");
        if server_view["outcome"].is_null() {
            assert!(opened.iter().all(|r| !r.contains('*')), "no mine shown while playing");
            break (observer_link, id, token.to_string(), opened);
        }
        // Won at once: the cascade from a1 reached every safe cell (about 1 board in 370 at
        // 8×6 with 5 mines). The rest needs a game under way: start another, as a player would.
        assert_eq!(server_view["outcome"], "won", "{server_view}");
        assert!(attempt < 10, "ten boards in a row won by their first open");
    };
    let truth = |token: String| {
        let (http, base, id) = (http.clone(), base.clone(), id.clone());
        async move { get(&http, format!("{base}/api/games/{id}/state?token={token}")).await }
    };
    let closed = |b: &[String]| {
        b.iter()
            .enumerate()
            .flat_map(|(r, row)| row.char_indices().filter(|(_, c)| *c == '#').map(move |(c, _)| (c, r)))
            .collect::<Vec<_>>()
    };
    let (c, r) = closed(&opened)[0];
    let name = format!("{}{}", char::from(b'a' + c as u8), r + 1);
    // Each move draws the board anew: the cell is looked up each time.
    let state_of = |name: String| async move { attr(page, &format!("[data-cell=\"{name}\"]"), "data-state").await };
    js(page, &format!("document.querySelector('[data-cell=\"{name}\"]').dispatchEvent(new MouseEvent('contextmenu', {{bubbles: true, cancelable: true}}))")).await;
    until("the flag", || async { (state_of(name.clone()).await? == "flag").then_some(()) }).await;

    // The observer sees the same board and cannot move.
    let watcher = open(kind, &profiles.path().join("observer"), false).await;
    watcher.goto(&observer_link).await.unwrap();
    until("the observer's board", || async { (minefield(&watcher).await.iter().any(|r| r.contains('F'))).then_some(()) }).await;
    assert_eq!(watcher.find(Locator::Id("seat")).await.unwrap().text().await.unwrap(), "Observer");

    // Unflag, then open cells until the game ends: the end shows every mine.
    js(page, &format!("document.querySelector('[data-cell=\"{name}\"]').dispatchEvent(new MouseEvent('contextmenu', {{bubbles: true, cancelable: true}}))")).await;
    until("the unflag", || async { (state_of(name.clone()).await? == "closed").then_some(()) }).await;
    let mut moves = 0;
    loop {
        let view = truth(token.to_string()).await;
        if !view["outcome"].is_null() {
            break;
        }
        let board: Vec<String> = view["board"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
        let (c, r) = closed(&board)[0];
        let name = format!("{}{}", char::from(b'a' + c as u8), r + 1);
        // The page shows the server's board before the next click: each move draws the board
        // anew, and a cell found before a redraw is gone after it.
        until("the page to show the last move", || {
            let board = board.clone();
            async move { (minefield(page).await == board).then_some(()) }
        })
        .await;
        click_cell(page, &name).await;
        let n = moves;
        until("the open", || {
            let t = truth(token.to_string());
            async move { (t.await["seq"].as_u64()? > 3 + n).then_some(()) }
        })
        .await;
        moves += 1;
    }
    let end = truth(token.to_string()).await;
    until("the end on the page", || async { (!page.find(Locator::Id("outcome")).await.ok()?.text().await.ok()?.is_empty()).then_some(()) })
        .await;
    let board: Vec<String> = end["board"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_string()).collect();
    let mines: usize = board.iter().map(|r| r.chars().filter(|c| *c == '*' || *c == 'X').count()).sum();
    assert_eq!(mines, 5, "every mine is shown at the end: {board:?}");
    until("the page's final board", || async { (minefield(page).await == board).then_some(()) }).await;
    screenshot(page, kind, "minesweeper-1280x800.png").await;
    wrong_link_stops(page, &base, "Minesweeper", &id).await;
    for c in [browser, watcher] {
        c.close().await;
    }
    server.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn against_the_computer_by_clicking_in_chromium() {
    against_the_computer_by_clicking(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox ESR and geckodriver; .ci/run runs it"]
async fn against_the_computer_by_clicking_in_firefox() {
    against_the_computer_by_clicking(Browser::Firefox).await;
}

/// A game against the computer as a new player starts one: the new-game page offers the
/// computer for Twilight Struggle (not for Minesweeper), the player chooses the US and level 1
/// and is taken to its own seat's page at once; its page shows the computer's seat as the computer's, the
/// computer's setup arrives without anyone at its seat, and each move the player clicks is
/// answered by the computer's moves, live.
async fn against_the_computer_by_clicking(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", server.addr);
    let profiles = tempfile::tempdir().unwrap();
    let browser = open(kind, &profiles.path().join("player"), false).await;
    let page = &browser;

    page.goto(&format!("{base}/")).await.unwrap();
    until("the computer offered", || async move {
        (attr(page, "#computer-row", "hidden").await.is_none() && page.find(Locator::Css("#my-seat option")).await.is_ok()).then_some(())
    })
    .await;
    js(page, "const s = document.getElementById('game'); s.value = 'minesweeper'; s.dispatchEvent(new Event('change'));").await;
    assert!(attr(page, "#computer-row", "hidden").await.is_some(), "no computer opponent for a game of one seat");
    js(page, "const s = document.getElementById('game'); s.value = 'twilight-struggle'; s.dispatchEvent(new Event('change'));").await;
    js(
        page,
        "for (const [id, v] of [['opponent', 'computer'], ['my-seat', 'us'], ['level', '1']]) { const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('change')); }",
    )
    .await;
    page.find(Locator::Id("create-button")).await.unwrap().click().await.unwrap();
    // Nobody to send a link to: the page goes straight to the player's seat.
    until("the player's page", || async move {
        let u = page.current_url().await.ok()?.to_string();
        (u.contains("/play/") && u.contains("?token=")).then_some(())
    })
    .await;

    // The US page: the computer has set up (6 Influence in Eastern Europe) and shows as such.
    wait_connected(page, "US").await;
    assert_eq!(js(page, "return window.arbiter ? window.arbiter.seat : null").await, "us", "the player's own seat");
    let presence = until("the computer's presence", || async move {
        let t = page.find(Locator::Css("[data-presence=\"ussr\"]")).await.ok()?.text().await.ok()?;
        t.contains("computer").then_some(t)
    })
    .await;
    assert!(presence.contains("USSR"), "{presence}");
    until("the computer's setup and the US decision", || async move {
        (!page.find_all(Locator::Css("#moves [data-move]")).await.ok()?.is_empty()).then_some(())
    })
    .await;
    let log = page.find(Locator::Id("log")).await.unwrap().text().await.unwrap();
    assert_eq!(log.matches("USSR: influence").count(), 6, "the computer's six setup moves: {log}");

    // Click the first move a few times; the computer answers once the US setup is done.
    for k in 0..9 {
        let before = page.find(Locator::Id("log")).await.unwrap().text().await.unwrap().matches("US: ").count();
        until(&format!("a move button ({k})"), || async move {
            let b = page.find_all(Locator::Css("#moves [data-move]")).await.ok()?;
            b.first()?.click().await.ok()
        })
        .await;
        until("the move in the log", || async move {
            let log = page.find(Locator::Id("log")).await.ok()?.text().await.ok()?;
            (log.matches("US: ").count() > before).then_some(())
        })
        .await;
    }
    let answered = until("the computer's answer", || async move {
        let log = page.find(Locator::Id("log")).await.ok()?.text().await.ok()?;
        (log.matches("USSR: ").count() > 6).then_some(log)
    })
    .await;
    assert!(answered.contains("USSR: headline") || answered.contains("USSR: "), "{answered}");
    // The computer has chosen its headline and the US chooses its own: nothing on the US's
    // page names the computer's card (as the game stores it) before both are revealed.
    until("the US's headline decision", || async move { page.find(Locator::Css("#moves [data-move^=\"headline\"]")).await.ok() }).await;
    let url = page.current_url().await.unwrap();
    let id = url.path().trim_start_matches("/play/").to_string();
    let room = server.hub.room(&id).await.unwrap();
    let theirs = room.with_session(|s| s.game().view(Some(arbiter_kernel::Seat(1))))["headline"]["ussr"].as_str().map(String::from);
    let theirs = theirs.expect("the computer's headline, chosen first");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let shown = everything(page).await;
    assert!(!shown.contains(&theirs), "the US's page names the computer's headline {theirs} before the reveal");
    assert!(
        shown.contains("(a secret choice until both headlines are revealed)") || shown.contains("chosen, secret"),
        "the headline told as a secret"
    );
    screenshot(page, kind, "vs-computer-1280x800.png").await;
    browser.close().await;
    server.task.abort();
}
