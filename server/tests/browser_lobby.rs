//! The host's features in real headless browsers, Chromium and Firefox (one body for both;
//! ignored by default like `browser.rs`, whose header says how to run them): a game created
//! from the home page taking one seat, listed in another browser, its free seat joined from the
//! list; "my games" listing it with whose move it is and its link; watching it from the list;
//! the chat (a message to the seats never reaches the observer, a seat's message reaches the
//! other, a page's history); a rematch from the game-over banner, offered to the other seat's
//! open page; and a replay stepped back and forth, then seen as a seat once the game is over.
//! On Minesweeper's page (one seat), the same script: no chat and no alerts (nobody to talk to,
//! nothing to be told), the observer's title never marked, a replay draws the board at each move. `.ci/run` runs each test on its own (`--exact`), as browser.rs's.
//!
//! ```sh
//! FIREFOX=/usr/bin/firefox-esr GECKODRIVER=…/geckodriver \
//!   cargo test --release -p arbiter-server --test browser_lobby -- --ignored
//! ```

mod web;

use arbiter_server::{start, Config};
use fantoccini::{Client, Locator};
use serde_json::{json, Value};
use web::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn lobby_chat_rematch_and_replay_in_chromium() {
    lobby_chat_rematch_and_replay(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn lobby_chat_rematch_and_replay_in_firefox() {
    lobby_chat_rematch_and_replay(Browser::Firefox).await;
}

async fn url(c: &Client) -> String {
    c.current_url().await.unwrap().to_string()
}

/// The page's address once it is a game's page of game `id` (any game if `None`) other than
/// `not`.
async fn on_game_page(c: &Client, id: Option<&str>, not: Option<&str>) -> String {
    until("a game's page", || async move {
        let u = url(c).await;
        let good = u.contains("/play/") && u.contains("?token=") && id.is_none_or(|i| u.contains(i)) && not.is_none_or(|n| !u.contains(n));
        good.then_some(u)
    })
    .await
}

/// Click the element `css`, found again should the page redraw it between finding and clicking.
async fn click(c: &Client, css: &str) {
    until(&format!("a click on {css}"), || async move { c.find(Locator::Css(css)).await.ok()?.click().await.ok() }).await;
}

async fn chat_texts(c: &Client) -> Vec<String> {
    let v = js(c, "return Array.from(document.querySelectorAll('#chat-log .chat-text')).map(e => e.textContent)").await;
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

async fn send_chat(c: &Client, text: &str, to: &str) {
    js(c, &format!("document.getElementById('chat-to').value = {};", json!(to))).await;
    c.find(Locator::Id("chat-text")).await.unwrap().send_keys(text).await.unwrap();
    c.find(Locator::Id("chat-send")).await.unwrap().click().await.unwrap();
    until(&format!("{text:?} sent"), || async move { chat_texts(c).await.contains(&text.to_string()).then_some(()) }).await;
}

async fn seat_of_page(c: &Client) -> Value {
    js(c, "return window.arbiter ? window.arbiter.seat : null").await
}

async fn lobby_chat_rematch_and_replay(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let profiles = tempfile::tempdir().unwrap();
    let a_browser = open(kind, &profiles.path().join("a"), false).await;
    let b_browser = open(kind, &profiles.path().join("b"), false).await;
    let (a, b) = (&a_browser, &b_browser);

    // A creates a game from the home page, taking the US seat: the USSR is left free.
    a.goto(&format!("{base}/")).await.unwrap();
    until("the seats to take", || async move {
        (js(a, "return document.querySelectorAll('#take option').length").await.as_u64()? == 3).then_some(())
    })
    .await;
    js(a, "document.getElementById('take').value = 'us';").await;
    a.find(Locator::Id("create-button")).await.unwrap().click().await.unwrap();
    let us_link = until("the US link", || async move {
        let v = a.find(Locator::Id("link-us")).await.ok()?.prop("value").await.ok()??;
        (!v.is_empty()).then_some(v)
    })
    .await;
    assert!(a.find(Locator::Id("link-ussr")).await.is_err(), "the USSR's seat is free: no link for it");
    let id = us_link.split("/play/").nth(1).unwrap().split('?').next().unwrap().to_string();
    let us_token = us_link.split("token=").nth(1).unwrap().to_string();

    // B sees it in the open games and joins the free seat.
    b.goto(&format!("{base}/")).await.unwrap();
    screenshot(b, kind, "lobby-home.png").await;
    click(b, &format!("#lobby li[data-game=\"{id}\"] button.join[data-seat=\"ussr\"]")).await;
    let b_link = on_game_page(b, Some(&id), None).await;
    wait_connected(b, "USSR").await;
    assert_eq!(seat_of_page(b).await, "ussr");
    let ussr_token = b_link.split("token=").nth(1).unwrap().to_string();

    // B's "my games" lists it: its seat, its move, its link on request.
    b.goto(&format!("{base}/")).await.unwrap();
    let row = format!("#my-games li[data-game=\"{id}\"][data-seat=\"ussr\"]");
    let r = row.clone();
    until("my games to say whose move", || {
        let r = r.clone();
        async move { b.find(Locator::Css(&format!("{r} .your-move"))).await.ok().map(|_| ()) }
    })
    .await;
    click(b, &format!("{row} button.show-link")).await;
    let shown = b.find(Locator::Css(&format!("{row} input.link"))).await.unwrap().prop("value").await.unwrap().unwrap();
    assert_eq!(shown, b_link);
    b.goto(&b_link).await.unwrap();
    wait_connected(b, "USSR").await;

    // A watches it from the open games: an observer's page.
    a.goto(&format!("{base}/")).await.unwrap();
    click(a, &format!("#lobby li[data-game=\"{id}\"] button.watch")).await;
    on_game_page(a, Some(&id), Some(&us_token)).await;
    wait_connected(a, "observer").await;
    assert_eq!(seat_of_page(a).await, "observer");

    // The chat: to the seats, then to all. The observer hears only the second.
    send_chat(b, "secret plan", "seats").await;
    send_chat(b, "hello all", "all").await;
    until(
        "the observer to hear the message to all",
        || async move { chat_texts(a).await.contains(&"hello all".to_string()).then_some(()) },
    )
    .await;
    assert_eq!(chat_texts(a).await, ["hello all"], "a message to the seats never reaches the observer");

    // A takes its US seat: the page's history holds both; A's message reaches B.
    a.goto(&us_link).await.unwrap();
    wait_connected(a, "US").await;
    until("the US's chat history", || async move { (chat_texts(a).await == ["secret plan", "hello all"]).then_some(()) }).await;
    send_chat(a, "good luck", "all").await;
    until("the USSR to hear the US", || async move { chat_texts(b).await.contains(&"good luck".to_string()).then_some(()) }).await;

    // Six moves (the USSR's setup), then the seat deciding resigns: 7 moves in all.
    for _ in 0..7 {
        for token in [&us_token, &ussr_token] {
            let m = get(&http, format!("{base}/api/games/{id}/moves?token={token}")).await;
            if m["yours"] == json!(true) {
                let text = if m["seq"].as_u64() == Some(6) { "resign".to_string() } else { m["moves"][0].as_str().unwrap().to_string() };
                let r = http
                    .post(format!("{base}/api/games/{id}/moves?token={token}"))
                    .body(json!({ "move": text }).to_string())
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 200, "{text}");
                break;
            }
        }
    }
    let listing = get(&http, format!("{base}/api/games/{id}")).await;
    assert_eq!((listing["moves"].as_u64(), listing["outcome"]["reason"].as_str()), (Some(7), Some("Resigned")));

    // The rematch, from the game-over banner: A gets the USSR, B is offered the US.
    until("the rematch button beside the game-over banner", || async move {
        let v = js(a, "const e = document.getElementById('rematch'); return !!e && e.offsetParent !== null && document.getElementById('outcome').nextElementSibling.id === 'arbiter-end'").await;
        (v == json!(true)).then_some(())
    })
    .await;
    if std::env::var_os("ARBITER_SCREENSHOTS").is_some() {
        js(a, "window.scrollTo(0, 0)").await;
        screenshot(a, kind, "lobby-game-over.png").await;
    }
    click(a, "#rematch").await;
    let a_new = on_game_page(a, None, Some(&id)).await;
    let new_id = a_new.split("/play/").nth(1).unwrap().split('?').next().unwrap().to_string();
    wait_connected(a, "the rematch's USSR").await;
    assert_eq!(seat_of_page(a).await, "ussr");
    click(b, "#play-rematch").await;
    on_game_page(b, Some(&new_id), None).await;
    wait_connected(b, "the rematch's US").await;
    assert_eq!(seat_of_page(b).await, "us");

    // The replay of the first game, stepped back and forth.
    a.goto(&format!("{base}/replay/{id}")).await.unwrap();
    let at = |c: &'static str| async move {
        a.find(Locator::Id("replay-at")).await.ok()?.text().await.ok().filter(|t| t.trim() == c).map(|_| ())
    };
    until("the end of the replay", || at("move 7 of 7")).await;
    let seq = || async move { js(a, "return window.arbiter && window.arbiter.state ? window.arbiter.state.seq : null").await.as_u64() };
    assert_eq!(seq().await, Some(7));
    click(a, "#replay-back").await;
    until("move 6", || at("move 6 of 7")).await;
    assert_eq!(seq().await, Some(6));
    click(a, "#replay-first").await;
    until("the start", || at("move 0 of 7")).await;
    click(a, "#replay-forward").await;
    until("move 1", || at("move 1 of 7")).await;
    assert_eq!(seq().await, Some(1));
    assert!(url(a).await.contains("at=1"), "a shareable address: {}", url(a).await);
    assert_eq!(seat_of_page(a).await, "observer");
    // Over: the USSR's view, its hand included.
    js(a, "const s = document.getElementById('replay-as'); s.value = 'ussr'; s.dispatchEvent(new Event('change'));").await;
    until("the USSR's view", || async move { (seat_of_page(a).await == "ussr").then_some(()) }).await;
    let hand = js(a, "return window.arbiter.state.hand").await;
    assert!(hand.as_array().is_some_and(|h| !h.is_empty()), "the USSR's hand after the end: {hand}");
    // Both hands at once, each under its side's heading.
    let v = js(
        a,
        r##"const out = {};
           let side = null;
           for (const e of document.querySelectorAll("#hand > *")) {
             if (e.dataset.handOf) { side = e.dataset.handOf; out[side] = []; }
             else if (side && e.dataset.card) out[side].push(e.dataset.card);
           }
           return out;"##,
    )
    .await;
    let shown = js(a, "return document.getElementById('replay-jump').value").await;
    let facts: Value =
        http.get(format!("{base}/api/games/{id}/replay?as=us&at={}", shown.as_str().unwrap())).send().await.unwrap().json().await.unwrap();
    assert_eq!(v["ussr"], hand, "the USSR's hand under its heading: {v}");
    assert_eq!(v["us"], facts["state"]["hand"], "the US's hand beside it: {v}");

    a_browser.close().await;
    b_browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn one_seat_without_chat_or_alerts_and_its_replay_in_chromium() {
    one_seat_without_chat_or_alerts_and_its_replay(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn one_seat_without_chat_or_alerts_and_its_replay_in_firefox() {
    one_seat_without_chat_or_alerts_and_its_replay(Browser::Firefox).await;
}

/// The same host script on Minesweeper's page (it knows no game; a game of one seat has nobody
/// to chat with and nothing to be alerted of): no chat, no sound's switch, no mark in the title,
/// and a replay draws the board at each move.
async fn one_seat_without_chat_or_alerts_and_its_replay(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{base}/api/games"))
        .body(json!({ "game": "minesweeper", "seed": 3, "listed": true }).to_string())
        .send()
        .await
        .unwrap();
    let game: Value = r.json().await.unwrap();
    let id = game["id"].as_str().unwrap().to_string();
    let profiles = tempfile::tempdir().unwrap();
    let page_browser = open(kind, &profiles.path().join("p"), false).await;
    let page = &page_browser;
    page.goto(&format!("{base}{}", game["links"]["player"].as_str().unwrap())).await.unwrap();
    until("the board", || async move { page.find(Locator::Css("[data-cell=\"e5\"]")).await.ok().map(|_| ()) }).await;
    until("the page connected", || async move { (attr(page, "#conn", "data-state").await.as_deref() == Some("connected")).then_some(()) })
        .await;
    let absent = |css: &'static str| async move {
        let v = js(page, &format!("const e = document.querySelector('{css}'); return !e || e.getClientRects().length === 0")).await;
        assert_eq!(v, json!(true), "a page of one seat shows no {css}");
    };
    for css in ["#arbiter-chat", "#alert-sound", "#webhook-form"] {
        absent(css).await;
    }
    assert!(!page.title().await.unwrap().starts_with('●'), "one seat alone is not alerted");

    // A move: the board changes.
    click(page, "[data-cell=\"e5\"]").await;
    until(
        "the opened cell",
        || async move { (attr(page, "[data-cell=\"e5\"]", "data-state").await.as_deref() == Some("open")).then_some(()) },
    )
    .await;

    // The observer's page is never told it is its move.
    let obs_browser = open(kind, &profiles.path().join("o"), false).await;
    let obs = &obs_browser;
    obs.goto(&format!("{base}{}", game["links"]["observer"].as_str().unwrap())).await.unwrap();
    until("the observer's board", || async move {
        (attr(obs, "[data-cell=\"e5\"]", "data-state").await.as_deref() == Some("open")).then_some(())
    })
    .await;
    assert!(!obs.title().await.unwrap().starts_with('●'));

    // The replay: every cell closed at the start, the opened one after move 1.
    obs.goto(&format!("{base}/replay/{id}?at=0")).await.unwrap();
    let closed = || async move { js(obs, "return document.querySelectorAll('[data-state=\"closed\"]').length").await.as_u64() };
    until("the board at the start", || async move { (closed().await == Some(81)).then_some(()) }).await;
    click(obs, "#replay-forward").await;
    until("the board after move 1", || async move {
        (attr(obs, "[data-cell=\"e5\"]", "data-state").await.as_deref() == Some("open")).then_some(())
    })
    .await;
    assert!(url(obs).await.contains("at=1"));

    page_browser.close().await;
    obs_browser.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Chromium and chromedriver (Debian's chromium, chromium-driver); .ci/run runs it"]
async fn a_chosen_seed_is_told_and_a_webhook_set_from_the_page_in_chromium() {
    a_chosen_seed_is_told_and_a_webhook_set_from_the_page(Browser::Chromium).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs Firefox and geckodriver (Debian's firefox-esr, cargo install geckodriver); .ci/run runs it"]
async fn a_chosen_seed_is_told_and_a_webhook_set_from_the_page_in_firefox() {
    a_chosen_seed_is_told_and_a_webhook_set_from_the_page(Browser::Firefox).await;
}

/// A game whose creator chose the seed: the list says so, joining asks to accept it first (no
/// seat is taken before), the game's page says so; the seat's webhook field saves a URL and
/// shows the server's refusal of one pointing inward.
async fn a_chosen_seed_is_told_and_a_webhook_set_from_the_page(kind: Browser) {
    let dir = tempfile::tempdir().unwrap();
    let server = start(Config::new("127.0.0.1:0".parse().unwrap(), dir.path().join("games")), arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", server.addr);
    let http = reqwest::Client::new();
    let created: Value = http
        .post(format!("{base}/api/games"))
        .body(json!({ "seed": 7, "seat": "us" }).to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    let profiles = tempfile::tempdir().unwrap();
    let browser = open(kind, &profiles.path().join("a"), false).await;
    let c = &browser.client;
    c.goto(&format!("{base}/")).await.unwrap();
    let row = format!("[data-game=\"{id}\"]");
    until("the game listed, its seed said chosen", || {
        let row = row.clone();
        async move { c.find(Locator::Css(&format!("{row} .seed-chosen"))).await.ok().map(|_| ()) }
    })
    .await;
    click(c, &format!("{row} button.join[data-seat=\"ussr\"]")).await;
    // Asked first: nothing is sent until accepted.
    until("the question", || async move { c.find(Locator::Id("accept-seed")).await.ok().map(|_| ()) }).await;
    let facts: Value = http.get(format!("{base}/api/games/{id}")).send().await.unwrap().json().await.unwrap();
    assert_eq!(facts["seats"][1], json!({ "id": "ussr", "status": "free" }), "joined before accepting: {facts}");
    click(c, "#accept-seed").await;
    on_game_page(c, Some(&id), None).await;
    until("the seed's notice on the game's page", || async move {
        let shown = js(c, "const e = document.getElementById('arbiter-seed'); return !!e && !e.hidden").await;
        (shown == json!(true)).then_some(())
    })
    .await;
    let seat_token = url(c).await.split("token=").nth(1).unwrap().to_string();

    // The webhook field: an inward address is refused and says why; a public one is saved.
    until("the webhook field", || async move {
        (js(c, "return !document.getElementById('webhook-form').hidden").await == json!(true)).then_some(())
    })
    .await;
    let status =
        || async move { js(c, "return document.getElementById('webhook-status').textContent").await.as_str().unwrap_or("").to_string() };
    c.find(Locator::Id("webhook-url")).await.unwrap().send_keys("http://127.0.0.1:9/hook").await.unwrap();
    click(c, "#webhook-save").await;
    until("the refusal shown", || async move { status().await.contains("public address").then_some(()) }).await;
    js(c, "document.getElementById('webhook-url').value = 'https://93.184.216.34/hook/s3cret'").await;
    click(c, "#webhook-save").await;
    until("the webhook saved", || async move { (status().await == "saved").then_some(()) }).await;
    let v: Value = http.get(format!("{base}/api/games/{id}/webhook?token={seat_token}")).send().await.unwrap().json().await.unwrap();
    assert_eq!(v["url"], "https://93.184.216.34/hook/s3cret", "{v}");
    click(c, "#webhook-remove").await;
    until("the webhook removed", || async move { (status().await == "none").then_some(()) }).await;
    browser.close().await;
}
