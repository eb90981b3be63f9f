//! Turn alerts by webhook against a real endpoint on a loopback port: the seat that comes to
//! decide is called (not the one going on with its own decision), with no token in the body;
//! failures are retried and reported to the seat; a slow endpoint never holds a move back;
//! URLs are checked (form, inward addresses), and only the seat itself reads its URL.

mod common;

use arbiter_server::{start, Config, Running};
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

async fn server(dir: &tempfile::TempDir, private: bool) -> Running {
    let mut c = Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf());
    c.webhook_private = private;
    c.webhook_backoff = Duration::from_millis(50);
    c.webhook_timeout = Duration::from_secs(5);
    start(c, arbiter_games::web::offered()).await.unwrap()
}

/// An endpoint: the bodies it received, the statuses it answers in turn (then 200), and
/// optionally a gate each request waits at.
#[derive(Clone, Default)]
struct Endpoint {
    got: Arc<Mutex<Vec<Value>>>,
    statuses: Arc<Mutex<Vec<u16>>>,
    gate: Option<Arc<Notify>>,
}

async fn receive(State(e): State<Endpoint>, body: String) -> StatusCode {
    if let Some(g) = &e.gate {
        g.notified().await;
    }
    e.got.lock().unwrap().push(serde_json::from_str(&body).unwrap_or(Value::Null));
    let mut s = e.statuses.lock().unwrap();
    let code = if s.is_empty() { 200 } else { s.remove(0) };
    StatusCode::from_u16(code).unwrap()
}

async fn endpoint(e: Endpoint) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route("/hook/{secret}", post(receive)).with_state(e);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/hook/s3cret")
}

struct Two {
    base: String,
    id: String,
    us: String,
    ussr: String,
    observer: String,
}

async fn game(http: &reqwest::Client, r: &Running) -> Two {
    let base = format!("http://{}", r.addr);
    let v: Value = http.post(format!("{base}/api/games")).body("{}").send().await.unwrap().json().await.unwrap();
    let t = |s: &str| v["tokens"][s].as_str().unwrap().to_string();
    Two { id: v["id"].as_str().unwrap().into(), us: t("us"), ussr: t("ussr"), observer: t("observer"), base }
}

async fn call(http: &reqwest::Client, method: reqwest::Method, url: String, body: Option<Value>) -> (u16, Value) {
    let mut req = http.request(method, &url);
    if let Some(b) = body {
        req = req.body(b.to_string());
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("{url}: not JSON ({e}): {text}")))
}

/// The USSR makes its first legal move until the decision is the US's; how many it made.
async fn ussr_plays_until_us_decides(http: &reqwest::Client, g: &Two) -> u32 {
    let mut n = 0;
    loop {
        let (_, m) = call(http, reqwest::Method::GET, format!("{}/api/games/{}/moves?token={}", g.base, g.id, g.ussr), None).await;
        if m["to_move"] != "ussr" {
            assert_eq!(m["to_move"], "us");
            return n;
        }
        let mv = m["moves"][0].as_str().unwrap().to_string();
        let (s, v) =
            call(http, reqwest::Method::POST, format!("{}/api/games/{}/moves?token={}", g.base, g.id, g.ussr), Some(json!({ "move": mv })))
                .await;
        assert_eq!(s, 200, "{mv}: {v}");
        n += 1;
    }
}

async fn until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    for _ in 0..200 {
        if let Some(v) = f() {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("waited 5 s for {what}");
}

/// The seat's webhook answer (`GET …/webhook`) once it reports a delivery (10 s at most).
async fn last_delivery(http: &reqwest::Client, url: &str) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, v) = call(http, reqwest::Method::GET, url.to_string(), None).await;
        assert_eq!(status, 200, "{v}");
        if !v["last"].is_null() {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "no delivery reported within 10 s: {v}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seat_that_comes_to_decide_is_called_once_without_its_token() {
    let dir = tempfile::tempdir().unwrap();
    let r = server(&dir, true).await;
    let http = reqwest::Client::new();
    let e = Endpoint::default();
    let url = endpoint(e.clone()).await;
    let g = game(&http, &r).await;
    let hook = format!("{}/api/games/{}/webhook", g.base, g.id);
    let (s, v) = call(&http, reqwest::Method::PUT, format!("{hook}?token={}", g.us), Some(json!({ "url": url }))).await;
    assert_eq!((s, &v["url"]), (200, &json!(url)), "{v}");
    // Registered with the game: another seat's state and the observer's never show it.
    for t in [&g.ussr, &g.observer] {
        let text = http.get(format!("{}/api/games/{}/state?token={t}", g.base, g.id)).send().await.unwrap().text().await.unwrap();
        assert!(!text.contains("s3cret"), "{text}");
    }
    let seats = common::seats_doc(dir.path(), &g.id, false);
    assert!(seats.contains(&url), "stored with the game: {seats}");

    let made = ussr_plays_until_us_decides(&http, &g).await;
    assert!(made > 1, "the USSR's setup is several moves, each of its own decision");
    let got = until("the US's webhook", || {
        let g = e.got.lock().unwrap();
        (!g.is_empty()).then(|| g.clone())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(e.got.lock().unwrap().len(), 1, "one call when the US came to decide, none for the USSR's own steps");
    let body = &got[0];
    assert_eq!((body["type"].as_str(), body["seat"].as_str(), body["game"].as_str()), (Some("your_turn"), Some("us"), Some(g.id.as_str())));
    assert_eq!(body["seq"], json!(made));
    assert!(body["text"].as_str().unwrap().contains("Your move"), "{body}");
    assert_eq!(body["text"], body["content"]);
    let text = body.to_string();
    for t in [&g.us, &g.ussr, &g.observer] {
        assert!(!text.contains(t.as_str()), "a token in the webhook's body: {text}");
    }
    // The server records the delivery once it has read the endpoint's answer, which may come
    // after the endpoint counted the call: asked until it is there.
    let v = last_delivery(&http, &format!("{hook}?token={}", g.us)).await;
    assert_eq!(
        (v["last"]["ok"].as_bool(), v["last"]["attempts"].as_u64(), v["last"]["status"].as_u64()),
        (Some(true), Some(1), Some(200)),
        "{v}"
    );

    // Removed: no more calls.
    let (s, v) = call(&http, reqwest::Method::DELETE, format!("{hook}?token={}", g.us), None).await;
    assert_eq!((s, &v["url"]), (200, &Value::Null));
    assert!(!common::seats_doc(dir.path(), &g.id, false).contains(&url));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_endpoint_is_retried_and_a_slow_one_never_holds_a_move_back() {
    let dir = tempfile::tempdir().unwrap();
    let r = server(&dir, true).await;
    let http = reqwest::Client::new();
    // Fails twice, then answers.
    let e = Endpoint { statuses: Arc::new(Mutex::new(vec![500, 503])), ..Endpoint::default() };
    let url = endpoint(e.clone()).await;
    let g = game(&http, &r).await;
    let hook = format!("{}/api/games/{}/webhook", g.base, g.id);
    call(&http, reqwest::Method::PUT, format!("{hook}?token={}", g.us), Some(json!({ "url": url }))).await;
    ussr_plays_until_us_decides(&http, &g).await;
    let last = until("the third attempt", || (e.got.lock().unwrap().len() == 3).then_some(())).await;
    let _ = last;
    let v = last_delivery(&http, &format!("{hook}?token={}", g.us)).await;
    assert_eq!((v["last"]["ok"].as_bool(), v["last"]["attempts"].as_u64()), (Some(true), Some(3)), "{v}");

    // An endpoint that never answers until released: the moves are acknowledged meanwhile.
    let gate = Arc::new(Notify::new());
    let slow = Endpoint { gate: Some(gate.clone()), ..Endpoint::default() };
    let slow_url = endpoint(slow.clone()).await;
    let g2 = game(&http, &r).await;
    call(&http, reqwest::Method::PUT, format!("{}/api/games/{}/webhook?token={}", g2.base, g2.id, g2.us), Some(json!({ "url": slow_url })))
        .await;
    let moved = tokio::time::timeout(Duration::from_secs(3), ussr_plays_until_us_decides(&http, &g2)).await;
    assert!(moved.is_ok(), "the moves waited for the webhook");
    assert!(slow.got.lock().unwrap().is_empty(), "the endpoint has not answered yet");
    gate.notify_one();
    until("the slow endpoint's call", || (!slow.got.lock().unwrap().is_empty()).then_some(())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urls_are_checked_and_webhooks_are_a_seats() {
    let dir = tempfile::tempdir().unwrap();
    let r = server(&dir, false).await;
    let http = reqwest::Client::new();
    let g = game(&http, &r).await;
    let hook = format!("{}/api/games/{}/webhook", g.base, g.id);
    for (url, why) in [
        ("http://127.0.0.1:9/x", "public address"),
        ("http://localhost:9/x", "public address"),
        ("http://169.254.169.254/latest/meta-data", "public address"),
        ("ftp://example.com/x", "http:// or https://"),
        ("nonsense", "not a URL"),
    ] {
        let (s, v) = call(&http, reqwest::Method::PUT, format!("{hook}?token={}", g.us), Some(json!({ "url": url }))).await;
        assert_eq!(s, 400, "{url}: {v}");
        assert!(v["error"].as_str().unwrap().contains(why), "{url}: {v}");
    }
    let (s, v) =
        call(&http, reqwest::Method::PUT, format!("{hook}?token={}", g.observer), Some(json!({ "url": "https://example.com/x" }))).await;
    assert_eq!(s, 403, "{v}");
    let (s, _) = call(&http, reqwest::Method::GET, format!("{hook}?token=nope"), None).await;
    assert_eq!(s, 401);
    let (s, v) = call(&http, reqwest::Method::PUT, format!("{hook}?token={}", g.us), Some(json!({ "hook": 1 }))).await;
    assert_eq!(s, 400, "{v}");
    // Nothing was stored by the refusals.
    let (_, v) = call(&http, reqwest::Method::GET, format!("{hook}?token={}", g.us), None).await;
    assert_eq!(v["url"], Value::Null);
}

/// A seats document written through a copy of the game being unloaded would be lost when the game
/// loads again (its webhook answered 200, then never called): such a copy writes nothing, and
/// the request is answered by the loaded copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retired_copy_of_a_game_writes_no_webhook() {
    let dir = tempfile::tempdir().unwrap();
    let r = server(&dir, true).await;
    let http = reqwest::Client::new();
    let g = game(&http, &r).await;
    let old = r.hub.room(&g.id).await.unwrap();
    r.hub.unload_if_unused(&old).await;
    assert!(!r.hub.is_loaded(&g.id), "nobody was connected: unloaded");
    let e = old.set_webhook(arbiter_kernel::Seat(0), Some("http://127.0.0.1:9/x".into())).unwrap_err();
    assert!(matches!(e, arbiter_server::room::MoveError::Unloaded), "{e:?}");
    // Over HTTP the loaded copy takes it, and it is kept.
    let hook = format!("{}/api/games/{}/webhook?token={}", g.base, g.id, g.us);
    let (s, v) = call(&http, reqwest::Method::PUT, hook.clone(), Some(json!({ "url": "http://127.0.0.1:9/x" }))).await;
    assert_eq!(s, 200, "{v}");
    let fresh = r.hub.room(&g.id).await.unwrap();
    assert_eq!(fresh.webhook(arbiter_kernel::Seat(0)).0.as_deref(), Some("http://127.0.0.1:9/x"));
}

/// A seat that chooses at the same time as the seat deciding (the US's headline while the USSR
/// chooses its own, §4.5C) is told as a seat that comes to decide is: its webhook is called with
/// the game's prompt, and its moves say so (`simultaneous`), the other seat's not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_choosing_at_the_same_time_is_called_too() {
    let dir = tempfile::tempdir().unwrap();
    let r = server(&dir, true).await;
    let http = reqwest::Client::new();
    let e = Endpoint::default();
    let url = endpoint(e.clone()).await;
    let g = game(&http, &r).await;
    call(&http, reqwest::Method::PUT, format!("{}/api/games/{}/webhook?token={}", g.base, g.id, g.us), Some(json!({ "url": url }))).await;
    let moves = |token: &str| format!("{}/api/games/{}/moves?token={token}", g.base, g.id);
    // Each seat's first legal move until the USSR chooses its headline.
    loop {
        let (_, m) = call(&http, reqwest::Method::GET, moves(&g.observer), None).await;
        let token = if m["to_move"] == "us" { &g.us } else { &g.ussr };
        let (_, m) = call(&http, reqwest::Method::GET, moves(token), None).await;
        let first = m["moves"][0].as_str().unwrap().to_string();
        if first.starts_with("headline") {
            assert_eq!(m["to_move"], "ussr", "the USSR chooses first on the stack");
            break;
        }
        let (s, v) = call(&http, reqwest::Method::POST, moves(token), Some(json!({ "move": first }))).await;
        assert_eq!(s, 200, "{first}: {v}");
    }
    let (_, us) = call(&http, reqwest::Method::GET, moves(&g.us), None).await;
    assert_eq!((&us["yours"], &us["simultaneous"]["prompt"]), (&json!(false), &json!("Choose your headline now")), "{us}");
    assert!(us["simultaneous"]["moves"].as_array().is_some_and(|m| !m.is_empty()), "the US's headline choices: {us}");
    assert_eq!(us["acting"], json!(["ussr", "us"]), "{us}");
    let (_, ussr) = call(&http, reqwest::Method::GET, moves(&g.ussr), None).await;
    assert_eq!((&ussr["yours"], &ussr["simultaneous"]), (&json!(true), &Value::Null), "{ussr}");
    let got = until("the US's call for its headline", || {
        let got = e.got.lock().unwrap();
        got.iter().find(|b| b["prompt"] == "Choose your headline now").cloned()
    })
    .await;
    assert_eq!((got["type"].as_str(), got["seat"].as_str()), (Some("your_turn"), Some("us")), "{got}");
    assert!(got["text"].as_str().unwrap().contains("Choose your headline now"), "{got}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(e.got.lock().unwrap().iter().filter(|b| b["prompt"] == got["prompt"]).count(), 1, "called once");
}

/// A seat's webhook writes are limited (each is a synced write of the game's seats document):
/// a burst of ten, then 429 with Retry-After; another seat's are its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_s_webhook_writes_are_limited() {
    let dir = tempfile::tempdir().unwrap();
    let r = server(&dir, true).await;
    let http = reqwest::Client::new();
    let g = game(&http, &r).await;
    let hook = |t: &str| format!("{}/api/games/{}/webhook?token={t}", g.base, g.id);
    for i in 0..10 {
        let (s, v) = call(&http, reqwest::Method::PUT, hook(&g.us), Some(json!({ "url": format!("http://127.0.0.1:9/{i}") }))).await;
        assert_eq!(s, 200, "write {i}: {v}");
    }
    let resp = http.delete(hook(&g.us)).send().await.unwrap();
    assert_eq!(resp.status(), 429);
    assert!(resp.headers().get("retry-after").is_some());
    let v: Value = resp.json().await.unwrap();
    assert!(v["error"].as_str().unwrap().contains("webhook changes"), "{v}");
    let (s, v) = call(&http, reqwest::Method::GET, hook(&g.us), None).await;
    assert_eq!((s, &v["url"]), (200, &json!("http://127.0.0.1:9/9")), "the last write kept, reading not limited");
    let (s, v) = call(&http, reqwest::Method::PUT, hook(&g.ussr), Some(json!({ "url": "http://127.0.0.1:9/x" }))).await;
    assert_eq!(s, 200, "another seat: {v}");
}

/// A clock's move is a move like any other: the seats that come to act after it are called.
/// Mafia for five on a clock of a second: four players make their night moves, the fifth (one
/// of the village, so that the game goes on) lets its time run out and leaves (the fifth
/// move); the day dawns, and player 2, acting again, is called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seats_acting_after_a_clock_s_move_are_called() {
    let dir = tempfile::tempdir().unwrap();
    let r = server(&dir, true).await;
    let http = reqwest::Client::new();
    let e = Endpoint::default();
    let url = endpoint(e.clone()).await;
    let base = format!("http://{}", r.addr);
    let (status, g) = call(
        &http,
        reqwest::Method::POST,
        format!("{base}/api/games"),
        Some(json!({ "game": "mafia", "seed": 2, "options": { "seats": 5 }, "clock_seconds": 1 })),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let token = |p: u8| g["tokens"][format!("player-{p}")].as_str().unwrap().to_string();
    let (status, v) =
        call(&http, reqwest::Method::PUT, format!("{base}/api/games/{id}/webhook?token={}", token(2)), Some(json!({ "url": url }))).await;
    assert_eq!(status, 200, "{v}");
    let mut idle = None;
    for p in [1, 3, 4, 5] {
        let (_, log) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/log?token={}", token(p)), None).await;
        if !log.to_string().contains("You are Mafia") {
            idle = Some(p);
            break;
        }
    }
    let idle = idle.expect("four players, one Mafioso");
    for p in (1..=5).filter(|p| *p != idle) {
        let (_, m) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/moves?token={}", token(p)), None).await;
        let list = if m["yours"] == true { &m["moves"] } else { &m["simultaneous"]["moves"] };
        let mv = list.as_array().unwrap().iter().map(|m| m.as_str().unwrap()).find(|m| !m.starts_with("kill")).unwrap().to_string();
        let (status, v) =
            call(&http, reqwest::Method::POST, format!("{base}/api/games/{id}/moves?token={}", token(p)), Some(json!({ "move": mv })))
                .await;
        assert_eq!(status, 200, "player {p}, {mv}: {v}");
    }
    // (Player 2 may have been called at night, when it came to act first.)
    let got =
        until("player 2's call once the clock's move is stored", || e.got.lock().unwrap().iter().find(|b| b["seq"] == 5).cloned()).await;
    assert_eq!((got["type"].as_str(), got["seat"].as_str()), (Some("your_turn"), Some("player-2")), "{got}");
    assert!(got["prompt"].as_str().unwrap().starts_with("Day 1"), "{got}");
    let (_, log) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/log?token={}", token(2)), None).await;
    assert!(log.to_string().contains(&format!("Player {idle} leaves the game")), "{log}");
}
