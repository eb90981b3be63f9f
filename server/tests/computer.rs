//! The computer's share of a server: its searches run on a bounded pool, a player's move never
//! waits for them, and one client address has only so many games against the computer in play.
//! The bound is observed through the pool's own counts (searches under way, waiting, the most
//! at once), the pool held full meanwhile: nothing here measures time.

use arbiter_server::{start, Config, Running};
use serde_json::{json, Value};
use std::time::Duration;

async fn server(dir: &tempfile::TempDir, tune: impl FnOnce(&mut Config)) -> Running {
    let mut c = Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf());
    tune(&mut c);
    start(c, arbiter_games::web::offered()).await.unwrap()
}

/// The status, the `Retry-After` header and the JSON body.
async fn post(http: &reqwest::Client, url: &str, body: Value) -> (u16, Option<String>, Value) {
    let r = http.post(url).body(body.to_string()).send().await.unwrap();
    let retry = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
    (r.status().as_u16(), retry, r.json().await.unwrap_or(Value::Null))
}

async fn get(url: &str) -> Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

/// A new game against the computer (the USSR, which sets up first: its search starts at
/// once): its id and the US's token.
async fn against_the_computer(http: &reqwest::Client, base: &str, level: u8) -> (String, String) {
    let (status, _, v) = post(http, &format!("{base}/api/games"), json!({ "computer": "ussr", "level": level })).await;
    assert_eq!(status, 201, "{v}");
    (v["id"].as_str().unwrap().to_string(), v["tokens"]["us"].as_str().unwrap().to_string())
}

/// Until `ready` holds (checked every 20 ms, 30 s at most: a liveness bound, not a timing).
async fn until(what: &str, mut ready: impl FnMut() -> bool) {
    for _ in 0..1500 {
        if ready() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{what}: not within 30 s");
}

/// Game `id`'s state as `token` sees it, once the computer has set up (the US to move).
async fn after_the_setup(base: &str, id: &str, token: &str) -> Value {
    for _ in 0..1500 {
        let s = get(&format!("{base}/api/games/{id}/state?token={token}")).await;
        if s["seq"].as_u64().unwrap_or(0) >= 6 {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("game {id}: the computer did not set up within 30 s");
}

/// One thread for the computer, three games asking it to think: one search is under way, two
/// wait, and a player's move in another game is answered while the pool is full. Let go, every
/// game gets its moves, never more than one search at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_thinks_on_a_bounded_pool_and_a_players_move_is_answered_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| {
        c.computer_threads = 1;
        c.computer_games_per_address = 10;
    })
    .await;
    let (base, http) = (format!("http://{}", srv.addr), reqwest::Client::new());
    let pool = srv.hub.computer.clone();
    assert_eq!(pool.threads(), 1);
    pool.hold(true);
    let mut games = Vec::new();
    for _ in 0..3 {
        games.push(against_the_computer(&http, &base, 1).await);
    }
    until("one search under way and two waiting", || pool.running() == 1 && pool.queued() == 2).await;

    // Two people's game: the USSR's first setup move is answered while every search slot is
    // taken.
    let (status, _, g) = post(&http, &format!("{base}/api/games"), json!({})).await;
    assert_eq!(status, 201, "{g}");
    let (id, ussr) = (g["id"].as_str().unwrap(), g["tokens"]["ussr"].as_str().unwrap());
    let moves = get(&format!("{base}/api/games/{id}/moves?token={ussr}")).await;
    let first = moves["moves"][0].as_str().expect("a setup move").to_string();
    let (status, _, v) = post(&http, &format!("{base}/api/games/{id}/moves?token={ussr}"), json!({ "move": first })).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["seq"], 1, "{v}");
    assert_eq!((pool.running(), pool.queued()), (1, 2), "the move was answered while the pool was full");
    // A game whose search waits for its turn is one where the computer is thinking.
    let (game, us) = &games[2];
    let (status, _, v) = post(&http, &format!("{base}/api/games/{game}/undo?token={us}"), json!({})).await;
    assert_eq!(status, 409, "{v}");
    assert_eq!(get(&format!("{base}/api/games/{game}/state?token={us}")).await["seq"], 0);

    pool.hold(false);
    for (id, us) in &games {
        let s = after_the_setup(&base, id, us).await;
        assert_eq!(s["seq"], 6, "{s}");
    }
    assert_eq!(pool.peak(), 1, "never more than one search at once");
    until("the pool idle", || pool.running() == 0 && pool.queued() == 0).await;
}

/// The pool's size is the server's, whatever the number of games: two threads run two searches
/// at once, the others wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pool_runs_as_many_searches_as_it_has_threads() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| c.computer_threads = 2).await;
    let (base, http) = (format!("http://{}", srv.addr), reqwest::Client::new());
    let pool = srv.hub.computer.clone();
    pool.hold(true);
    let mut games = Vec::new();
    for _ in 0..4 {
        games.push(against_the_computer(&http, &base, 1).await);
    }
    until("two searches under way and two waiting", || pool.running() == 2 && pool.queued() == 2).await;
    pool.hold(false);
    for (id, us) in &games {
        after_the_setup(&base, id, us).await;
    }
    assert_eq!(pool.peak(), 2);
}

/// One client address has at most `computer_games_per_address` games against the computer in
/// play: the next is a 429 naming the limit, with `Retry-After`; a game between people is still
/// made, and a game over stops counting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_has_only_so_many_games_against_the_computer_in_play() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| c.computer_games_per_address = 2).await;
    let (base, http) = (format!("http://{}", srv.addr), reqwest::Client::new());
    let (first, us) = against_the_computer(&http, &base, 1).await;
    against_the_computer(&http, &base, 1).await;
    let (status, retry, v) = post(&http, &format!("{base}/api/games"), json!({ "computer": "ussr", "level": 5 })).await;
    assert_eq!(status, 429, "{v}");
    let error = v["error"].as_str().unwrap();
    assert!(error.contains("games against the computer") && error.contains("at most 2 at once"), "{error}");
    assert!(error.contains("try again in 60 s"), "{error}");
    assert_eq!(retry.as_deref(), Some("60"), "{v}");
    // A game between people is not counted.
    let (status, _, v) = post(&http, &format!("{base}/api/games"), json!({})).await;
    assert_eq!(status, 201, "{v}");
    // The US resigns the first: over, it is no longer in play.
    after_the_setup(&base, &first, &us).await;
    let (status, _, v) = post(&http, &format!("{base}/api/games/{first}/moves?token={us}"), json!({ "move": "resign" })).await;
    assert_eq!(status, 200, "{v}");
    let (status, _, v) = post(&http, &format!("{base}/api/games"), json!({ "computer": "ussr", "level": 1 })).await;
    assert_eq!(status, 201, "a game over stops counting: {v}");
    let (status, _, v) = post(&http, &format!("{base}/api/games"), json!({ "computer": "ussr", "level": 1 })).await;
    assert_eq!(status, 429, "{v}");
}
