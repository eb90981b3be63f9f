//! A game of six seats in six real headless browsers: Mafia, every player on its own page,
//! played to its end by clicking the move buttons each page shows for its own part of each
//! night and day (the six act at once; each page shows its moves whether or not it is the seat
//! deciding first). Each page shows exactly the server's view for its seat, never a line only
//! another role is told, and at the end every page shows who won. The Mafioso's page alone
//! offers the Mafia's night channel in its chat, and alone shows what was written there. The
//! game is on a deadline of an hour a step: each page shows each living player's time.

mod common;
mod web;

use arbiter_server::{start, Config};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use web::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn six_players_play_mafia_by_clicking_in_chromium() {
    six_players_play_mafia_by_clicking(Browser::Chromium).await;
}

/// The roles each player shows on its page (`None` where it shows none).
async fn roles_shown(c: &Client) -> Vec<Option<String>> {
    let v = js(c, "return Array.from(document.querySelectorAll('#players li')).map((li) => li.firstChild.textContent)").await;
    v.as_array().unwrap().iter().map(|t| t.as_str().unwrap().split_once(": ").map(|(_, r)| r.to_string())).collect()
}

async fn six_players_play_mafia_by_clicking(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{base}/api/games"))
        .body(json!({ "game": "mafia", "seed": 11, "options": { "seats": 6 }, "deadline_minutes": 60 }).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let game: Value = r.json().await.unwrap();
    let id = game["id"].as_str().unwrap().to_string();
    let seats: Vec<String> = (1..=6).map(|n| format!("player-{n}")).collect();
    let token = |s: &str| game["tokens"][s].as_str().unwrap().to_string();
    let profiles = tempfile::tempdir().unwrap();
    let mut pages = Vec::new();
    for s in &seats {
        let page = open(kind, &profiles.path().join(s), false).await;
        page.goto(&format!("{base}{}", game["links"][s].as_str().unwrap())).await.unwrap();
        pages.push(page);
    }
    for (s, page) in seats.iter().zip(&pages) {
        until(&format!("{s}'s page to connect and show the table"), || async move {
            let connected = attr(page, "#conn", "data-state").await.as_deref() == Some("connected");
            let players = page.find_all(Locator::Css("#players li")).await.ok()?.len();
            (connected && players == 6).then_some(())
        })
        .await;
    }
    // M10: the Mafioso's page offers its private channel at night, no other page does; a line
    // written there shows on its page only.
    let (local, _) = arbiter_kernel::GameKind::create(&arbiter_games::MAFIA, &json!({ "seats": 6 }), 11).unwrap();
    let mafioso: Vec<bool> = (0..6).map(|i| !local.channels(arbiter_kernel::Seat(i)).is_empty()).collect();
    assert_eq!(mafioso.iter().filter(|m| **m).count(), 1, "one Mafioso among six");
    let secret = "a word for the Mafia alone";
    for (k, (s, page)) in seats.iter().zip(&pages).enumerate() {
        let want = 2 + usize::from(mafioso[k]);
        let audiences = until(&format!("{s}'s chat audiences"), || async move {
            let v =
                js(page, "return Array.from(document.querySelectorAll('#chat-to option')).filter((o) => !o.disabled).map((o) => o.value)")
                    .await;
            let v: Vec<String> = v.as_array()?.iter().filter_map(|o| o.as_str().map(String::from)).collect();
            (v.len() == want).then_some(v)
        })
        .await;
        assert_eq!(audiences.contains(&"mafia".to_string()), mafioso[k], "{s}: {audiences:?}");
        if mafioso[k] {
            js(page, &format!("document.getElementById('chat-to').value = 'mafia'; document.getElementById('chat-text').value = {secret:?}; document.getElementById('chat-send').click(); return true")).await;
            until(&format!("{s}'s line to its channel"), || async move {
                page.find(Locator::Css("#chat-log li[data-to=\"mafia\"]")).await.ok()
            })
            .await;
        }
    }
    // M03: the first player chooses, takes its choice back from its page, and chooses again
    // in the loop below.
    {
        let page = &pages[0];
        let first = until("player-1's first move", || async move {
            let v = js(page, "const b = document.querySelector('#moves button[data-move]'); return b ? b.dataset.move : null").await;
            v.as_str().map(String::from)
        })
        .await;
        let css = format!("#moves button[data-move=\"{first}\"]");
        page.find(Locator::Css(&css)).await.unwrap().click().await.unwrap();
        let undo =
            until("player-1's take-back button", || async move { page.find(Locator::Css("#moves button[data-undo]")).await.ok() }).await;
        undo.click().await.unwrap();
        until("player-1's choice taken back", || {
            let (http, url) = (&http, format!("{base}/api/games/{id}/moves?token={}", token("player-1")));
            async move { (get(http, url).await["seq"].as_u64() == Some(0)).then_some(()) }
        })
        .await;
        until("player-1's moves shown again", || async move { page.find(Locator::Css("#moves button[data-move]")).await.ok() }).await;
        // On a deadline of an hour a step: each living player's time shown beside it.
        until("each player's time for the step", || async move {
            let times = js(page, "return Array.from(document.querySelectorAll('#players [data-time]')).map((t) => t.textContent)").await;
            let times = times.as_array()?.clone();
            let hour = |t: &Value| t.as_str().is_some_and(|x| x == "1:00:00 left" || (x.starts_with("59:") && x.ends_with(" left")));
            (times.len() == 6 && times.iter().all(hour)).then_some(())
        })
        .await;
    }
    let observer = format!("{base}/api/games/{id}/moves?token={}", token("observer"));
    let mut clicks = 0usize;
    loop {
        if !get(&http, observer.clone()).await["outcome"].is_null() {
            break;
        }
        for (k, (s, page)) in seats.iter().zip(&pages).enumerate() {
            let truth = get(&http, format!("{base}/api/games/{id}/moves?token={}", token(s))).await;
            let mine: Vec<String> = match (&truth["yours"], &truth["simultaneous"]) {
                (Value::Bool(true), _) => truth["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect(),
                (_, Value::Object(o)) => o["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect(),
                _ => Vec::new(),
            };
            if mine.is_empty() {
                continue;
            }
            // The page shows this seat's moves, as the server lists them, and its view.
            let shown = until(&format!("{s}'s moves on its page"), || async move {
                let v = js(page, "return Array.from(document.querySelectorAll('#moves button')).map((b) => b.dataset.move)").await;
                let shown: Vec<String> = v.as_array()?.iter().filter_map(|m| m.as_str().map(String::from)).collect();
                (!shown.is_empty()).then_some(shown)
            })
            .await;
            assert_eq!(shown, mine, "{s}'s page shows the moves the server gives it");
            let view = get(&http, format!("{base}/api/games/{id}/state?token={}", token(s))).await;
            let want: Vec<Option<String>> =
                view["players"].as_array().unwrap().iter().map(|p| p["role"].as_str().map(role_words)).collect();
            assert_eq!(roles_shown(page).await, want, "{s}'s page shows the roles its view holds");
            // An action where there is one (a night passed asleep makes the game no shorter).
            let acts: Vec<&String> = mine.iter().filter(|m| *m != "sleep").collect();
            let acts = if acts.is_empty() { mine.iter().collect() } else { acts };
            let pick = acts[(clicks + k) % acts.len()].clone();
            let css = format!("#moves button[data-move=\"{pick}\"]");
            until(&format!("{s} clicks {pick}"), || {
                let css = css.clone();
                async move { page.find(Locator::Css(&css)).await.ok()?.click().await.ok() }
            })
            .await;
            clicks += 1;
            assert!(clicks < 300, "the game ends");
            // Stored: the game has moved on.
            let before = truth["seq"].as_u64();
            until(&format!("{s}'s move {pick} stored"), || {
                let http = &http;
                let url = format!("{base}/api/games/{id}/moves?token={}", token(s));
                async move { (get(http, url).await["seq"].as_u64() > before).then_some(()) }
            })
            .await;
        }
    }
    // The end: every page says who won, and every role is shown.
    let end = get(&http, format!("{base}/api/games/{id}/state?token={}", token("observer"))).await;
    let winner = if end["winner"] == "Village" { "The village wins." } else { "The Mafia win." };
    let roles: Vec<String> = end["players"].as_array().unwrap().iter().map(|p| p["role"].as_str().unwrap().to_string()).collect();
    for (n, (s, page)) in seats.iter().zip(&pages).enumerate() {
        until(&format!("{s}'s page to show the end"), || async move {
            let text = js(page, "return document.getElementById('outcome').textContent").await;
            (text.as_str() == Some(winner)).then_some(())
        })
        .await;
        assert!(roles_shown(page).await.iter().all(Option::is_some), "{s}: every role shown at the end");
        // What only another role is told was never on this page (its log keeps every line).
        let text = everything(page).await;
        assert_eq!(text.contains(secret), mafioso[n], "{s}: the Mafia's channel");
        for (line, of) in
            [("Your investigation", "Cop"), ("You protected", "Doctor"), ("(Mafia) chooses", "Mafioso"), ("You blocked", "Roleblocker")]
        {
            assert!(roles[n] == of || !text.contains(line), "{s} ({}) shows {line:?}", roles[n]);
        }
    }
    for p in pages {
        p.close().await;
    }
}

/// A role as the page writes it.
fn role_words(r: &str) -> String {
    match r {
        "Mafioso" => "Mafia",
        "Doctor" => "the Doctor",
        "Cop" => "the Cop",
        "Roleblocker" => "the Roleblocker",
        _ => "a Villager",
    }
    .to_string()
}
