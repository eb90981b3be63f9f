//! Twilight Struggle's table in the browser as a new player meets it, in headless Chromium and
//! Firefox at a desktop's (1920x1080), a laptop's (1280x720) and a phone's (390x844) size, one
//! body for both browsers and every size:
//! - what a decision needs is in view without scrolling the page: the prompt, the moves, the
//!   selected card's text beside them, what the other side just did; on a laptop and a desktop
//!   the page does not scroll at all (each panel scrolls within it);
//! - the hand and the log in one key (F3, F2) or tap (the phone's bar, the side column's tabs);
//!   "Fit" puts the whole map in view on a phone;
//! - keyboard play as in the terminal's table: typing filters the moves, ↑/↓ choose, Enter plays
//!   what was typed when it is a move's exact text (an opponent's card typed in its second
//!   listed order is played in that order, not in the first), F1 lists the keys, Ctrl-Z undoes;
//! - one click places one Influence outside setup, and Ctrl-Z takes it back;
//! - the seat that chooses its headline at the same time as the other is told "Choose your
//!   headline now" (prompt, title), never "Not your decision".
//!
//! Positions are reached by random play (`random_until`) and replayed over HTTP on the same
//! seed. Ignored by default like `browser.rs` (see there for the browsers and drivers):
//!
//! ```sh
//! cargo test --release -p arbiter-server --test browser_table -- --ignored
//! ```
//!
//! `ARBITER_SCREENSHOTS=DIR` saves each page's screenshot there.

mod web;

use arbiter_server::{start, Config, Running};
use arbiter_twilight::flow::Task;
use arbiter_twilight::playout::{random_until, Reached};
use arbiter_twilight::{Game, Move, Options, Side};
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use web::*;

/// The options a game created with a seed only is played under.
const OPTIONS: Options = Options { optional_cards: false, us_bonus: 2 };

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn the_table_fits_and_plays_by_keyboard_in_chromium() {
    the_table_fits_and_plays_by_keyboard(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn the_table_fits_and_plays_by_keyboard_in_firefox() {
    the_table_fits_and_plays_by_keyboard(Browser::Firefox).await;
}

fn seat(side: Side) -> &'static str {
    match side {
        Side::Us => "us",
        Side::Ussr => "ussr",
    }
}

/// A game on the server at the position reached: its creation's answer.
async fn game_at(srv: &Running, http: &reqwest::Client, r: &Reached) -> Value {
    let base = format!("http://{}", srv.addr);
    let body = json!({ "seed": r.seed });
    let resp = http.post(format!("{base}/api/games")).body(body.to_string()).send().await.unwrap();
    assert_eq!(resp.status(), 201);
    let g: Value = resp.json().await.unwrap();
    for (side, text) in &r.moves {
        let token = g["tokens"][seat(*side)].as_str().unwrap();
        let resp = http
            .post(format!("{base}/api/games/{}/moves?token={token}", g["id"].as_str().unwrap()))
            .body(json!({ "move": text }).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{text}");
    }
    g
}

/// The first position of `seeds` where `wanted` holds and the last move was `last`'s.
fn reach(seeds: std::ops::Range<u64>, last: Side, wanted: impl Fn(&Game) -> bool + Copy) -> Reached {
    let rules = arbiter_twilight_cards::ruleset();
    let mut from = seeds.start;
    loop {
        let r =
            random_until(&rules, OPTIONS, from..seeds.end, wanted).unwrap_or_else(|| panic!("a position in seeds {from}..{}", seeds.end));
        if r.moves.last().is_some_and(|(s, _)| *s == last) {
            return r;
        }
        from = r.seed + 1;
    }
}

/// A card of the other side's that the US may play now in both orders (§5.2): the two moves'
/// texts, in the order the game lists them.
fn both_orders(g: &Game) -> Option<(String, String)> {
    if g.to_move() != Some(Side::Us)
        || g.state().phasing != Side::Us
        || !matches!(g.state().stack.last(), Some(Task::PlayCard(p)) if p.in_round)
    {
        return None;
    }
    let texts: Vec<String> = g.legal().iter().map(|m| g.move_text(m)).collect();
    let first = texts.iter().find(|t| t.ends_with(" ops then event") || t.ends_with(" event then ops"))?;
    let card = first.trim_end_matches(" ops then event").trim_end_matches(" event then ops");
    let other =
        texts.iter().find(|t| *t != first && t.starts_with(card) && (t.ends_with(" ops then event") || t.ends_with(" event then ops")))?;
    Some((first.clone(), other.clone()))
}

async fn press(c: &Client, keys: &[char]) {
    let mut a = KeyActions::new("keyboard".into());
    for k in keys {
        a = a.then(KeyAction::Down { value: *k }).then(KeyAction::Up { value: *k });
    }
    c.perform_actions(a).await.unwrap();
}

async fn type_text(c: &Client, text: &str) {
    press(c, &text.chars().collect::<Vec<_>>()).await;
}

async fn ctrl(c: &Client, key: char) {
    let a = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: Key::Control.into() })
        .then(KeyAction::Down { value: key })
        .then(KeyAction::Up { value: key })
        .then(KeyAction::Up { value: Key::Control.into() });
    c.perform_actions(a).await.unwrap();
}

async fn click(c: &Client, css: &str) {
    let e = until(css, || async move { c.find(Locator::Css(css)).await.ok() }).await;
    e.click().await.unwrap_or_else(|e| panic!("{css}: {e}"));
}

async fn text(c: &Client, css: &str) -> String {
    js(c, &format!("const e = document.querySelector({css:?}); return e ? e.textContent : '';"))
        .await
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Where `css` is, against the part of the window that shows it (below the phone's bar of
/// buttons, within the boxes that scroll around it): `[wholly in view, its top, its bottom, the
/// top and bottom of what shows]`.
async fn placed(c: &Client, css: &str) -> Value {
    js(
        c,
        &format!(
            r#"const e = document.querySelector({css:?});
               if (!e) return [false, "missing", 0, 0];
               const r = e.getBoundingClientRect();
               const bar = document.getElementById("quick");
               let [top, bottom] = [0, innerHeight];
               // The phone's bar of buttons covers what is under it.
               if (bar && getComputedStyle(bar).display !== "none") top = Math.max(top, bar.getBoundingClientRect().bottom);
               // Clipped by a box that scrolls (the decision's moves, the side column): only
               // what shows of it counts.
               for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {{
                 if (getComputedStyle(a).overflowY === "visible") continue;
                 const b = a.getBoundingClientRect();
                 top = Math.max(top, b.top);
                 bottom = Math.min(bottom, b.bottom);
               }}
               return [r.width > 0 && r.height > 0 && r.top >= top - 0.5 && r.bottom <= bottom + 0.5, r.top, r.bottom, top, bottom];"#
        ),
    )
    .await
}

async fn in_view(c: &Client, css: &str, what: &str) {
    let v = until(&format!("{what} ({css}) in view"), || async move {
        let v = placed(c, css).await;
        (v[0] == json!(true)).then_some(v)
    })
    .await;
    assert_eq!(v[0], json!(true), "{what}: {v}");
}

/// The page's own scroll: `[scrollY, page height, window height]`.
async fn page_scroll(c: &Client) -> Value {
    js(c, "return [scrollY, document.documentElement.scrollHeight, innerHeight]").await
}

/// The game's last move as the US reads it: its number and its heading in the log.
async fn last_move(http: &reqwest::Client, base: &str, g: &Value) -> (u64, String) {
    let id = g["id"].as_str().unwrap();
    let v = get(http, format!("{base}/api/games/{id}/log?token={}", g["tokens"]["us"].as_str().unwrap())).await;
    let head =
        v["lines"].as_array().unwrap_or_else(|| panic!("a log: {v}")).iter().filter_map(Value::as_str).rev().find(|l| l.starts_with('#'));
    let seq = get(http, format!("{base}/api/games/{id}/state?token={}", g["tokens"]["observer"].as_str().unwrap())).await["seq"]
        .as_u64()
        .unwrap();
    (seq, head.unwrap_or_default().to_string())
}

/// Go on through the page's dialog if the game warns.
async fn through_warnings(c: &Client) {
    tokio::time::sleep(Duration::from_millis(400)).await;
    if c.find(Locator::Css("#confirm:not([hidden]) #confirm-yes")).await.is_ok() {
        click(c, "#confirm-yes").await;
    }
}

async fn the_table_fits_and_plays_by_keyboard(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let srv = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let profiles = tempfile::tempdir().unwrap();

    // The US decides its action round just after the USSR's, an opponent's card in hand.
    let round = reach(0..400, Side::Ussr, |g| both_orders(g).is_some());
    let (listed_first, listed_second) = both_orders(&round.game).unwrap();
    let card = listed_first
        .trim_start_matches("play ")
        .trim_end_matches(" ops then event")
        .trim_end_matches(" event then ops")
        .trim_matches('"')
        .to_string();
    // The US places Influence with its Operations, after its own move, and goes on placing
    // after one more (so that its placement may be taken back: its decision still).
    let placing_only = |g: &Game| {
        g.to_move() == Some(Side::Us)
            && matches!(g.state().stack.last(), Some(Task::Ops(_)))
            && !g.legal().is_empty()
            && g.legal().iter().all(|m| matches!(m, Move::Influence(_)))
    };
    let placing = reach(0..400, Side::Us, |g| {
        let mut after = g.clone();
        placing_only(g)
            && g.legal().iter().all(|m| {
                after = g.clone();
                after.play_quiet(m).is_ok() && placing_only(&after)
            })
    });
    // The headlines: the USSR decides, the US chooses at the same time (§4.5C).
    let headlines = reach(0..400, Side::Us, |g| {
        matches!(g.state().stack.last(), Some(Task::HeadlineChoose { side: Side::Ussr })) && g.acting().contains(&Side::Us)
    });

    for screen in Screen::TRIED {
        let name = screen.name();
        let session = open_at(kind, &profiles.path().join(name), screen).await;
        let page = &session.client;
        let shot = |what: &str| format!("table-{what}-{name}.png");

        // ---- the decision in view, the other side's last move beside it
        let g = game_at(&srv, &http, &round).await;
        page.goto(&format!("{base}{}", g["links"]["us"].as_str().unwrap())).await.unwrap();
        wait_connected(page, "US").await;
        until("the moves", || async move { (!page.find_all(Locator::Css("#moves [data-move]")).await.ok()?.is_empty()).then_some(()) })
            .await;
        // The USSR's last move, as retold in its run of moves: Influence placements in short
        // ("placed 3 Influence: Poland 2, …"), any other move as written.
        let ussr_last = round.moves.last().unwrap().1.clone();
        let told = match ussr_last.strip_prefix("influence ") {
            Some(country) => vec!["USSR: placed".to_string(), format!("{} ", country.trim_matches('"'))],
            None => vec!["USSR: ".to_string(), ussr_last.clone()],
        };
        let recent = until("what the USSR just did", || {
            let told = told.clone();
            async move {
                let t = text(page, "#recent").await;
                told.iter().all(|w| t.contains(w.as_str())).then_some(t)
            }
        })
        .await;
        assert!(!recent.contains("Not your decision"), "{recent}");
        for (css, what) in [("#prompt", "the prompt"), ("#moves [data-move]", "the first move"), ("#recent", "what the USSR just did")] {
            in_view(page, css, what).await;
        }
        let scroll = page_scroll(page).await;
        if screen != Screen::Phone {
            assert!(scroll[1].as_f64().unwrap() <= scroll[2].as_f64().unwrap() + 1.0, "{name}: the page scrolls: {scroll}");
            // The hand and the log are in view too.
            in_view(page, "#hand [data-card]", "the hand").await;
            in_view(page, "#log-panel", "the log").await;
        }
        no_sideways_scroll(page, name).await;
        screenshot(page, kind, &shot("decision")).await;

        // ---- the hand: in view by a tap (the phone's bar) or already; a card's text beside
        // the moves once it is chosen.
        if screen == Screen::Phone {
            click(page, "#quick [data-go=\"hand-panel\"]").await;
            in_view(page, "#hand-panel h2", "the hand after one tap").await;
        }
        // A click the page did not take (a slow machine's page still drawing) is made again;
        // a click it took shows the card, so a second click is never made on a chosen card.
        let mut card_text = None;
        for _ in 0..3 {
            click(page, &format!("#hand [data-card=\"{card}\"]")).await;
            let asked = Instant::now();
            while card_text.is_none() && asked.elapsed() < Duration::from_secs(5) {
                let t = text(page, "#detail .text").await;
                if text(page, "#detail").await.contains(&card) && t.len() > 20 {
                    card_text = Some(t);
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            if card_text.is_some() {
                break;
            }
        }
        let card_text = card_text.unwrap_or_else(|| panic!("the card's details: {card} clicked three times"));
        for (css, what) in
            [("#prompt", "the prompt"), ("#moves [data-move]", "the card's first move"), ("#detail .text", "the card's text")]
        {
            in_view(page, css, what).await;
        }
        assert!(!card_text.is_empty());
        screenshot(page, kind, &shot("card")).await;

        // ---- keys: F2 the log, F3 the hand, F1 the keys listed
        press(page, &[Key::Escape.into()]).await;
        press(page, &[Key::F2.into()]).await;
        in_view(page, "#log", "the log after F2").await;
        let focused = js(page, "return document.activeElement && document.activeElement.id").await;
        assert_eq!(focused, json!("log"), "F2 takes the reader to the log");
        js(page, "document.activeElement.blur(); window.scrollTo(0, 0);").await;
        press(page, &[Key::F3.into()]).await;
        in_view(page, "#hand-panel h2", "the hand after F3").await;
        press(page, &[Key::F1.into()]).await;
        until("the keys listed", || async move { (attr(page, "#help", "hidden").await.is_none()).then_some(()) }).await;
        let listed = text(page, "#keys").await;
        for k in ["Enter", "Ctrl-Z", "F2", "↑ ↓"] {
            assert!(listed.contains(k), "{k} is listed: {listed}");
        }
        press(page, &[Key::Escape.into()]).await;
        until("the keys closed", || async move { attr(page, "#help", "hidden").await.map(|_| ()) }).await;
        js(page, "window.scrollTo(0, 0);").await;

        // ---- typing filters; the exact text ranks first; ↑/↓ choose; Enter plays what was
        // typed: the card in its second listed order.
        let typed = listed_second.replace('"', "");
        js(page, "document.activeElement.blur();").await;
        type_text(page, &typed).await;
        let filter = until("the filter to hold the typed text", || {
            let typed = typed.clone();
            async move {
                let v = page.find(Locator::Id("filter")).await.ok()?.prop("value").await.ok()??;
                (v == typed).then_some(v)
            }
        })
        .await;
        assert_eq!(filter, typed);
        let shown = js(page, "return [...document.querySelectorAll('#moves [data-move]')].map(b => b.dataset.move)").await;
        assert_eq!(shown[0], json!(listed_second), "the move typed exactly comes first: {shown}");
        assert!(shown.as_array().unwrap().contains(&json!(listed_first)), "the other order still matches every word: {shown}");
        let chosen = || async move { attr(page, "#moves .move.chosen", "data-move").await };
        assert_eq!(chosen().await.as_deref(), Some(listed_second.as_str()));
        press(page, &[Key::Down.into()]).await;
        assert_ne!(chosen().await.as_deref(), Some(listed_second.as_str()), "↓ chooses the next move");
        press(page, &[Key::Up.into()]).await;
        assert_eq!(chosen().await.as_deref(), Some(listed_second.as_str()), "↑ back");
        // Enter plays the move typed, even with another chosen.
        press(page, &[Key::Down.into()]).await;
        let (before, _) = last_move(&http, &base, &g).await;
        press(page, &[Key::Enter.into()]).await;
        through_warnings(page).await;
        until("the typed move played", || {
            let (http, base, g) = (&http, &base, &g);
            async move { (last_move(http, base, g).await.0 > before).then_some(()) }
        })
        .await;
        let log =
            get(&http, format!("{base}/api/games/{}/log?token={}", g["id"].as_str().unwrap(), g["tokens"]["us"].as_str().unwrap())).await;
        let head = format!("#{} ", before + 1);
        let played = log["lines"].as_array().unwrap().iter().filter_map(Value::as_str).find(|l| l.starts_with(&head)).map(String::from);
        assert_eq!(played, Some(format!("{head}US: {listed_second}")), "typed {typed:?}");
        no_sideways_scroll(page, name).await;

        // ---- one click places one Influence; Ctrl-Z takes it back
        let g = game_at(&srv, &http, &placing).await;
        page.goto(&format!("{base}{}", g["links"]["us"].as_str().unwrap())).await.unwrap();
        wait_connected(page, "US").await;
        let target = until("a country the US may place Influence in", || async move {
            let v = js(page, "const e = document.querySelector('#map .country.playable'); return e ? e.dataset.country : null").await;
            v.as_str().map(String::from)
        })
        .await;
        let us = influence(page, &target, "us").await;
        let (before, _) = last_move(&http, &base, &g).await;
        click(page, &format!("#map [data-country=\"{target}\"]")).await;
        through_warnings(page).await;
        until("one Influence placed by one click", || {
            let target = target.clone();
            async move { (influence(page, &target, "us").await == us + 1).then_some(()) }
        })
        .await;
        assert_eq!(last_move(&http, &base, &g).await.0, before + 1, "one move");
        until("Undo to be open", || async move { attr(page, "#undo", "disabled").await.is_none().then_some(()) }).await;
        js(page, "document.activeElement.blur();").await;
        ctrl(page, 'z').await;
        until("Ctrl-Z to take it back", || {
            let target = target.clone();
            async move { (influence(page, &target, "us").await == us).then_some(()) }
        })
        .await;
        assert_eq!(last_move(&http, &base, &g).await.0, before, "taken back");

        // ---- "Fit": the whole map in view on a phone
        if screen == Screen::Phone {
            click(page, "#quick [data-go=\"board\"]").await;
            click(page, "#zoom-fit").await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            let v = js(
                page,
                r#"const box = document.getElementById("map-box"); const s = document.getElementById("map-sizer").getBoundingClientRect();
                   const bar = document.getElementById("quick").getBoundingClientRect().height;
                   return [box.scrollWidth - box.clientWidth, s.width, innerWidth, s.height, innerHeight - bar];"#,
            )
            .await;
            assert!(v[0].as_f64().unwrap() <= 1.0 && v[1].as_f64().unwrap() <= v[2].as_f64().unwrap(), "the map's width fits: {v}");
            assert!(v[3].as_f64().unwrap() <= v[4].as_f64().unwrap(), "the map's height fits below the bar: {v}");
            in_view(page, "#map-sizer", "the whole map after Fit").await;
            screenshot(page, kind, &shot("fit")).await;
        }

        // ---- the headlines at the same time: the US is told to choose now
        let g = game_at(&srv, &http, &headlines).await;
        page.goto(&format!("{base}{}", g["links"]["us"].as_str().unwrap())).await.unwrap();
        wait_connected(page, "US").await;
        let prompt = until("the US told to choose its headline now", || async move {
            let t = text(page, "#prompt").await;
            t.contains("Choose your headline now").then_some(t)
        })
        .await;
        assert!(prompt.contains("Your decision"), "{prompt}");
        let count = text(page, "#moves-count").await;
        assert!(!count.contains("Not your decision") && !text(page, "#decision").await.contains("Not your decision"), "{count}");
        if std::env::var_os("SKIP_TITLE").is_none() {
            until("the tab's title", || async move {
                let t = page.title().await.ok()?;
                t.contains("Choose your headline now").then_some(())
            })
            .await;
        }
        in_view(page, "#moves [data-simultaneous=\"true\"]", "the headline choices").await;
        screenshot(page, kind, &shot("headline")).await;
        session.close().await;
    }
    srv.task.abort();
}
