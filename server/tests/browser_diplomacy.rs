//! A game of seven seats in seven real headless browsers: Diplomacy, each power on its own
//! page. Each page draws the board from the map data (every province where the map file puts
//! it, the 22 units of 1901, the centres in their owners' colours); each power gives its
//! Spring orders by clicking a unit and one of its orders, England by typing one (and France
//! a typed order the rules refuse, shown with the reason); a page shows its own orders and
//! none of another power's before the phase resolves; after it, every page draws the results
//! as arrows (solid where an order succeeded, dashed where it failed) and the year plays to the
//! draw its last year ends in, which every page shows. The game is on a deadline of a day per
//! phase: each page shows each power's time, running for all seven.

mod common;
mod web;

use arbiter_server::{start, Config};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use web::*;

const POWERS: [&str; 7] = ["austria", "england", "france", "germany", "italy", "russia", "turkey"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn seven_powers_play_diplomacy_by_clicking_in_chromium() {
    seven_powers_play_diplomacy(Browser::Chromium).await;
}

/// The page's text where orders are told: its log and its list of orders given.
async fn told(page: &Client) -> String {
    js(page, "return document.getElementById('log').textContent + '\\n' + document.getElementById('given').textContent")
        .await
        .as_str()
        .unwrap()
        .to_string()
}

async fn click(page: &Client, css: &str, what: &str) {
    until(what, || async move { page.find(Locator::Css(css)).await.ok()?.click().await.ok() }).await;
}

async fn seven_powers_play_diplomacy(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{base}/api/games"))
        .body(json!({ "game": "diplomacy", "seed": 1, "options": { "last_year": 1901 }, "deadline_minutes": 1440 }).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let game: Value = r.json().await.unwrap();
    let id = game["id"].as_str().unwrap().to_string();
    let token = |s: &str| game["tokens"][s].as_str().unwrap().to_string();
    let seq = |s: &'static str| {
        let (http, url) = (http.clone(), format!("{base}/api/games/{id}/moves?token={}", token(s)));
        async move { get(&http, url).await["seq"].as_u64().unwrap() }
    };
    let map = get(&http, format!("{base}/api/kinds/diplomacy/map")).await;
    let profiles = tempfile::tempdir().unwrap();
    let mut pages = Vec::new();
    for s in POWERS {
        let page = open(kind, &profiles.path().join(s), false).await;
        page.goto(&format!("{base}{}", game["links"][s].as_str().unwrap())).await.unwrap();
        pages.push(page);
    }
    for (s, page) in POWERS.iter().zip(&pages) {
        until(&format!("{s}'s page to connect and draw the board"), || async move {
            let connected = attr(page, "#conn", "data-state").await.as_deref() == Some("connected");
            let provinces = page.find_all(Locator::Css("#board .province")).await.ok()?.len();
            let units = page.find_all(Locator::Css("#board .unit")).await.ok()?.len();
            (connected && provinces == 75 && units == 22).then_some(())
        })
        .await;
    }
    // The board is the map file's: each province where the file puts it; Paris's centre is
    // France's.
    let drawn = js(
        &pages[0],
        "return Array.from(document.querySelectorAll('#board .province')).map((g) => [g.dataset.province, Number(g.querySelector('circle').getAttribute('cx')), Number(g.querySelector('circle').getAttribute('cy'))])",
    )
    .await;
    let want: Vec<Value> = map["provinces"].as_array().unwrap().iter().map(|p| json!([p["id"], p["at"][0], p["at"][1]])).collect();
    assert_eq!(drawn, Value::Array(want));
    assert_eq!(attr(&pages[0], "[data-province=\"par\"] .centre", "data-owner").await.as_deref(), Some("france"));

    // England types its order; France types one the rules refuse and sees why.
    let england = &pages[1];
    england.find(Locator::Id("order")).await.unwrap().send_keys("f lon - north sea").await.unwrap();
    click(england, "#typed button[type=submit]", "England gives its typed order").await;
    until("England's typed order stored", || async { (seq("england").await == 1).then_some(()) }).await;
    // A deadline of a day for the phase: each power's time shown beside it, running for all
    // seven from the first move.
    for page in [&pages[0], &pages[6]] {
        until("each power's time for the phase, running", || async move {
            let times = js(
                page,
                "return Array.from(document.querySelectorAll('#powers [data-time]')).map((t) => [t.dataset.time, t.textContent, t.classList.contains('running')])",
            )
            .await;
            let times = times.as_array()?.clone();
            let running = |t: &Value| t[2] == true && t[1].as_str().is_some_and(|x| x.starts_with("23:59:") || x == "1d 0:00:00");
            (times.len() == 7 && times.iter().all(running)).then_some(())
        })
        .await;
    }
    let france = &pages[2];
    france.find(Locator::Id("order")).await.unwrap().send_keys("A Par - Mun").await.unwrap();
    click(france, "#typed button[type=submit]", "France gives a typed order").await;
    let why = until("France's refused order explained", || async move {
        let shown = attr(france, "#rejected", "hidden").await.is_none();
        let text = js(france, "return document.getElementById('rejected').textContent").await;
        shown.then(|| text.as_str().unwrap_or_default().to_string()).filter(|t| !t.is_empty())
    })
    .await;
    assert!(why.contains("Munich"), "the reason names the place: {why}");
    assert_eq!(seq("france").await, 1, "a refused order changes nothing");

    // Every power clicks a unit and a move of it (the first listed that is a move). A power's
    // `done` is public (the others see who is done), its orders are not.
    let mut given: Vec<Vec<String>> = vec![Vec::new(); 7];
    given[1].push("F Lon - Nth".into());
    for (k, (s, page)) in POWERS.iter().zip(&pages).enumerate() {
        let units = js(page, "return Array.from(document.querySelectorAll('#units button')).map((b) => b.dataset.unit)").await;
        // The last unit listed (England's F Lon has its order).
        let unit = units.as_array().unwrap().iter().map(|u| u.as_str().unwrap().to_string()).last().unwrap();
        // Click the unit on the board itself.
        click(page, &format!("#board .unit[data-unit=\"{unit}\"]"), &format!("{s} selects {unit}")).await;
        let order = until(&format!("{s}'s orders for {unit}"), || {
            let unit = unit.clone();
            async move {
                let v = js(page, "return Array.from(document.querySelectorAll('#choices button')).map((b) => b.dataset.move)").await;
                let list: Vec<String> = v.as_array()?.iter().filter_map(|m| m.as_str().map(String::from)).collect();
                assert!(list.iter().all(|m| m.starts_with(&format!("{unit} "))), "only the selected unit's orders: {list:?}");
                list.into_iter().find(|m| m.contains(" - ") && !m.contains(" S ") && !m.contains("via"))
            }
        })
        .await;
        let before = seq(s).await;
        click(page, &format!("#choices button[data-move=\"{order}\"]"), &format!("{s} orders {order}")).await;
        until(&format!("{s}'s {order} stored"), || async { (seq(s).await > before).then_some(()) }).await;
        given[k].push(order);
    }
    // Each page lists its own orders, and no page tells another power's.
    for (k, (s, page)) in POWERS.iter().zip(&pages).enumerate() {
        let mine = given[k].clone();
        until(&format!("{s}'s orders listed"), || {
            let mine = mine.clone();
            async move {
                let v = js(page, "return Array.from(document.querySelectorAll('#given li')).map((l) => l.textContent)").await;
                let shown: Vec<String> = v.as_array()?.iter().filter_map(|m| m.as_str().map(String::from)).collect();
                (shown == mine).then_some(())
            }
        })
        .await;
        let text = told(page).await;
        for (j, orders) in given.iter().enumerate().filter(|(j, _)| *j != k) {
            for o in orders {
                assert!(!text.contains(o.as_str()), "{s}'s page tells {}'s order {o}: {text}", POWERS[j]);
            }
        }
    }
    for (s, page) in POWERS.iter().zip(&pages) {
        click(page, "#actions button[data-move=\"done\"]", &format!("{s} is done")).await;
    }
    // Resolved: every page shows Fall 1901 and the results as arrows.
    for (s, page) in POWERS.iter().zip(&pages) {
        until(&format!("{s}'s page to show the results"), || async move {
            let phase = js(page, "return document.getElementById('phase').textContent").await;
            let arrows = page.find_all(Locator::Css("#board line.result")).await.ok()?.len();
            (phase.as_str() == Some("Fall 1901: movement") && arrows >= 7).then_some(())
        })
        .await;
        let text = told(page).await;
        assert!(text.contains("England: F Lon - Nth: moves to North Sea."), "{s}: {text}");
    }
    screenshot(&pages[1], kind, "diplomacy-results.png").await;
    let ok = attr(&pages[0], "#board line.result.ok[data-order=\"F Lon - Nth\"]", "data-order").await;
    assert_eq!(ok.as_deref(), Some("F Lon - Nth"), "a move made is drawn solid");
    // Fall: every power is done at once; the last year ends in a draw every page shows.
    for (s, page) in POWERS.iter().zip(&pages) {
        click(page, "#actions button[data-move=\"done\"]", &format!("{s} is done in the Fall")).await;
    }
    for (s, page) in POWERS.iter().zip(&pages) {
        until(&format!("{s}'s page to show the draw"), || async move {
            let text = js(page, "return document.getElementById('outcome').textContent").await;
            (text.as_str() == Some("A draw shared by Austria, England, France, Germany, Italy, Russia, Turkey.")).then_some(())
        })
        .await;
        no_sideways_scroll(page, s).await;
    }
    for p in pages {
        p.close().await;
    }
}
