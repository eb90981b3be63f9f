//! Diplomacy over the network: seven powers, each on its own WebSocket, order at once through
//! the HTTP API on a clock running for all seven; each power's orders are its own until the
//! phase resolves (no other power's message holds them), an order is taken back and given
//! again, a second order for one unit is refused with the reason, and the year plays to its
//! draw. The map the board is drawn from is served as data.

use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

const POWERS: [&str; 7] = ["austria", "england", "france", "germany", "italy", "russia", "turkey"];

async fn call(http: &reqwest::Client, method: reqwest::Method, url: String, body: Option<Value>) -> (u16, Value) {
    let mut req = http.request(method, &url);
    if let Some(b) = body {
        req = req.body(b.to_string());
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, serde_json::from_str(&r.text().await.unwrap()).unwrap_or(Value::Null))
}

/// Every message that has arrived on `ws` (waiting a little for the last ones).
async fn drain(ws: &mut Ws, into: &mut Vec<Value>) {
    while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_millis(150), ws.next()).await {
        if let Message::Text(t) = m {
            into.push(serde_json::from_str(&t).unwrap());
        }
    }
}

/// A server of every game offered, its games in `dir`.
async fn serve(dir: &tempfile::TempDir) -> arbiter_server::Running {
    arbiter_server::start(
        arbiter_server::Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf()),
        arbiter_games::web::offered(),
    )
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seven_powers_order_at_once_on_a_clock_and_keep_their_orders_secret() {
    let dir = tempfile::tempdir().unwrap();
    let srv = serve(&dir).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let (_, kinds) = call(&http, reqwest::Method::GET, format!("{base}/api/kinds"), None).await;
    let kind = kinds["games"].as_array().unwrap().iter().find(|k| k["id"] == "diplomacy").expect("the server offers Diplomacy").clone();
    assert_eq!(kind["seats"], json!(POWERS), "{kind}");
    let (status, map) = call(&http, reqwest::Method::GET, format!("{base}/api/kinds/diplomacy/map"), None).await;
    assert_eq!(status, 200);
    assert_eq!(map["provinces"].as_array().map(Vec::len), Some(75), "the map file is the board's data");
    assert!(map["provinces"].as_array().unwrap().iter().all(|p| p["at"].as_array().map(Vec::len) == Some(2)), "each drawn somewhere");

    let (status, g) = call(
        &http,
        reqwest::Method::POST,
        format!("{base}/api/games"),
        Some(json!({ "game": "diplomacy", "seed": 1, "options": { "last_year": 1901 }, "clock_minutes": 60 })),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let token = |s: &str| g["tokens"][s].as_str().unwrap_or_else(|| panic!("a token for {s}: {g}")).to_string();
    let moves_url = |s: &str| format!("{base}/api/games/{id}/moves?token={}", token(s));
    let mut sockets = Vec::new();
    for s in POWERS {
        let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/api/games/{id}/ws?token={}", srv.addr, token(s))).await.unwrap();
        sockets.push(ws);
    }
    let mut heard: Vec<Vec<Value>> = vec![Vec::new(); 7];
    let order = |s: &'static str, mv: &'static str| {
        let (http, url) = (http.clone(), moves_url(s));
        async move { call(&http, reqwest::Method::POST, url, Some(json!({ "move": mv }))).await }
    };

    // Spring 1901: all seven order at once; the clock runs for each of them.
    let (_, m) = call(&http, reqwest::Method::GET, moves_url("observer"), None).await;
    assert_eq!(m["acting"], json!(POWERS), "{m}");
    let (status, r) = order("england", "F Lon - Nth").await;
    assert_eq!(status, 200, "{r}");
    let (_, state) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/state?token={}", token("france")), None).await;
    assert_eq!(state["clock"]["running_seats"], json!(POWERS), "a power still ordering is still on the clock: {state}");
    let (_, m) = call(&http, reqwest::Method::GET, moves_url("france"), None).await;
    assert!(m["simultaneous"]["moves"].as_array().unwrap().iter().any(|v| v == "A Par - Bur"), "France orders now too: {m}");
    // A second order for a unit with its order, and another power's unit: refused with why.
    let (status, r) = order("england", "F Lon - Eng").await;
    assert_eq!(status, 422, "{r}");
    assert!(r["error"].as_str().unwrap().contains("has its order"), "{r}");
    let (status, r) = order("england", "A Par - Bur").await;
    assert_eq!(status, 422, "{r}");
    assert!(r["error"].as_str().unwrap().contains("not England's"), "{r}");
    // England takes its order back and gives another.
    let (status, r) = call(&http, reqwest::Method::POST, format!("{base}/api/games/{id}/undo?token={}", token("england")), None).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["undone"], "F Lon - Nth");
    for (s, mv) in [("england", "F Lon - Eng"), ("france", "F Bre - Eng"), ("germany", "A Mun - Ruh"), ("russia", "A War - Gal")] {
        let (status, r) = order(s, mv).await;
        assert_eq!(status, 200, "{s}: {mv}: {r}");
    }
    for (ws, h) in sockets.iter_mut().zip(heard.iter_mut()) {
        drain(ws, h).await;
    }
    // Before the phase resolves no power holds another's order: not in a message it was
    // sent, its log, its view.
    let secrets = [("england", "F Lon - Eng"), ("france", "F Bre - Eng"), ("germany", "A Mun - Ruh"), ("russia", "A War - Gal")];
    for (k, s) in POWERS.iter().enumerate() {
        let (_, log) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/log?token={}", token(s)), None).await;
        let (_, state) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/state?token={}", token(s)), None).await;
        let text = format!("{} {log} {state}", Value::Array(heard[k].clone()));
        for (by, secret) in secrets {
            // The order itself, as a move's text or a log line's (a support of that move, in
            // the moves another power may make, is not it).
            let holds = text.contains(&format!("\"{secret}\"")) || text.contains(&format!(": {secret}"));
            assert_eq!(holds, by == *s, "{s} and {by}'s order {secret}: {text}");
        }
    }
    for s in POWERS {
        let (status, r) = order(s, "done").await;
        assert_eq!(status, 200, "{s}: {r}");
    }
    let (_, log) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/log?token={}", token("italy")), None).await;
    let text = log.to_string();
    assert!(text.contains("England: F Lon - Eng: does not move to English Channel"), "a standoff, told to all: {text}");
    assert!(text.contains("Russia: A War - Gal: moves to Galicia"), "{text}");
    let (_, state) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/state?token={}", token("observer")), None).await;
    let last = state["last"].as_array().unwrap();
    assert_eq!(last.len(), 22, "every unit's order and result, for the board's arrows: {state}");
    assert!(last.iter().any(|r| r["from"] == "war" && r["to"] == "gal" && r["kind"] == "Move" && r["succeeded"] == true), "{state}");
    assert!(last.iter().any(|r| r["from"] == "lon" && r["to"] == "eng" && r["succeeded"] == false), "{state}");
    // Fall 1901, the last year: nobody orders; the year ends in a draw shared by all seven.
    for s in POWERS {
        let (status, r) = order(s, "done").await;
        assert_eq!(status, 200, "{s}: {r}");
    }
    let (_, m) = call(&http, reqwest::Method::GET, moves_url("observer"), None).await;
    let results = m["outcome"]["results"].as_array().unwrap_or_else(|| panic!("the game is over: {m}"));
    assert_eq!(results.len(), 7, "{m}");
    assert!(results.iter().all(|r| r == "drew"), "{m}");
}

/// A deadline (`deadline_seconds`): each power has its time for each phase, given afresh when a
/// phase begins; a power whose time runs out is done (its units hold, orders given stand), and
/// another power's order does not stop its clock. A chess clock and a deadline together, or a
/// deadline out of bounds, are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_gives_each_power_its_time_for_each_phase() {
    let dir = tempfile::tempdir().unwrap();
    let srv = serve(&dir).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let create = |body: Value| {
        let (http, url) = (http.clone(), format!("{base}/api/games"));
        async move { call(&http, reqwest::Method::POST, url, Some(body)).await }
    };
    let (status, r) = create(json!({ "game": "diplomacy", "clock_minutes": 60, "deadline_minutes": 1440 })).await;
    assert_eq!(status, 400, "{r}");
    assert!(r["error"].as_str().unwrap().contains("not both"), "{r}");
    let (status, r) = create(json!({ "game": "diplomacy", "deadline_minutes": 20000 })).await;
    assert_eq!(status, 400, "{r}");
    assert!(r["error"].as_str().unwrap().contains("deadline_minutes must be between 1 and 10080"), "{r}");

    const DEADLINE: i64 = 4000;
    let (status, g) = create(json!({ "game": "diplomacy", "seed": 1, "options": { "last_year": 1902 }, "deadline_seconds": 4 })).await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let token = |s: &str| g["tokens"][s].as_str().unwrap().to_string();
    let order = |s: &str, mv: &str| {
        let (http, url, body) = (http.clone(), format!("{base}/api/games/{id}/moves?token={}", token(s)), json!({ "move": mv }));
        async move { call(&http, reqwest::Method::POST, url, Some(body)).await }
    };
    let state = || {
        let (http, url) = (http.clone(), format!("{base}/api/games/{id}/state?token={}", token("observer")));
        async move { call(&http, reqwest::Method::GET, url, None).await.1 }
    };
    let ms = |t: &Value| chrono::DateTime::parse_from_rfc3339(t.as_str().unwrap()).unwrap().timestamp_millis();
    assert_eq!(state().await["clock"]["per"], "step");
    // The clock starts with the first move; nobody else orders and every time runs out.
    for (s, mv) in [("france", "A Par - Bur"), ("england", "F Lon - Nth")] {
        let (status, r) = order(s, mv).await;
        assert_eq!(status, 200, "{s}: {r}");
    }
    let mut st = state().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while st["season"] != "Fall" {
        assert!(std::time::Instant::now() < deadline, "Spring 1901 never ended: {st}");
        tokio::time::sleep(Duration::from_millis(200)).await;
        st = state().await;
    }
    let units: Vec<&str> = st["units"].as_array().unwrap().iter().map(|u| u["unit"].as_str().unwrap()).collect();
    assert!(
        units.contains(&"A Bur") && units.contains(&"F Nth") && units.contains(&"A Mun"),
        "the orders given stood, the rest held: {st}"
    );
    // Fall 1901: every power's time afresh, running since the move that began the phase.
    let clock = &st["clock"];
    assert_eq!(clock["running_seats"], json!(POWERS), "{st}");
    let elapsed = ms(&clock["at"]) - ms(&clock["since"]);
    // (Times are shown to the millisecond: a reading may differ from their difference by one.)
    let near = |a: i64, b: i64| (a - b).abs() <= 2;
    for p in POWERS {
        let left = clock["left_ms"][p].as_i64().unwrap();
        assert!(near(left, (DEADLINE - elapsed).max(0)), "{p}: a new phase, a new deadline: {clock}");
    }
    // England orders; France's time runs on all the while (another's move stops no clock).
    let (status, r) = order("england", "F Nth - Nwy").await;
    assert_eq!(status, 200, "{r}");
    let later = state().await;
    let c2 = &later["clock"];
    let spent = ms(&c2["at"]) - ms(&clock["at"]);
    let (before, after) = (clock["left_ms"]["france"].as_i64().unwrap(), c2["left_ms"]["france"].as_i64().unwrap());
    // Read within the phase (else the phase's end would have given France a new deadline).
    assert_eq!(later["season"], "Fall", "{later}");
    assert!(spent < DEADLINE && after > 0, "{clock} then {c2}");
    assert!(near(after, before - spent), "France's time ran on through England's order: {clock} then {c2}");
    assert_eq!(c2["per"], "step");
    srv.task.abort();
}
