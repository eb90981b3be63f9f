//! Several `arbiter serve` processes (the built binary) on one real PostgreSQL:
//! games played through all of them, the owner of a game SIGKILLed in the middle of play, the
//! game going on through another process after the takeover with every acknowledged move kept
//! and the record replayed and verified; and a paused owner whose lease expired racing the new
//! owner to store the same move: never both.
//!
//! Without PostgreSQL each test prints `arbiter-pgtest`'s skip line and passes;
//! `ARBITER_REQUIRE_POSTGRES=1` (`.ci/run`) makes that a failure. The `arbiter` binary is the
//! one built beside this test (`cargo test --workspace` builds it; `cargo build --release -p
//! arbiter-cli` otherwise).

use arbiter_store::{GamePlace, PgDatabase, Session};
use futures_util::StreamExt;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The lease's TTL the servers run with: short, so that a takeover comes quickly.
const TTL: &str = "1.5";

fn arbiter_bin() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    // target/release/deps/postgres_cluster-HASH -> target/release/arbiter
    let bin = exe.parent().and_then(|d| d.parent()).map(|d| d.join("arbiter")).expect("the target folder");
    assert!(bin.exists(), "{} is missing: build it first (cargo build --release -p arbiter-cli)", bin.display());
    bin
}

/// One `arbiter serve` process.
struct Server {
    child: Child,
    base: String,
    _data: tempfile::TempDir,
}

impl Server {
    fn start(url: &str) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let data = tempfile::tempdir().unwrap();
        let child = Command::new(arbiter_bin())
            .args(["serve", "--addr", &format!("127.0.0.1:{port}"), "--store", url, "--lease-ttl", TTL])
            .arg("--data")
            .arg(data.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("arbiter serve starts");
        let base = format!("http://127.0.0.1:{port}");
        // Listening (requests wait in the queue until it serves).
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "arbiter serve on {base} did not listen within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        Server { child, base, _data: data }
    }

    fn signal(&self, sig: &str) {
        let ok = Command::new("kill").args([sig, &self.child.id().to_string()]).status().unwrap().success();
        assert!(ok, "kill {sig}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Game {
    id: String,
    /// Each seat's token, then the observers'.
    tokens: Vec<String>,
}

async fn create(http: &reqwest::Client, base: &str, seed: u64) -> Game {
    let r = http.post(format!("{base}/api/games")).body(json!({ "seed": seed }).to_string()).send().await.unwrap();
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    let tokens = ["us", "ussr", "observer"].iter().map(|s| v["tokens"][s].as_str().unwrap().to_string()).collect();
    Game { id: v["id"].as_str().unwrap().to_string(), tokens }
}

/// A GET or POST, retried while the answer is 503 (the owner died and its lease has not
/// expired yet, or the game is changing servers), 30 s at most. The status and body.
async fn ask(http: &reqwest::Client, url: &str, body: Option<&Value>) -> (u16, Value) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let req = match body {
            Some(b) => http.post(url).body(b.to_string()),
            None => http.get(url),
        };
        match req.send().await {
            Ok(r) if r.status() == 503 => {
                assert!(r.headers().contains_key("retry-after"), "a 503 says when to retry: {url}");
            }
            Ok(r) => {
                let status = r.status().as_u16();
                return (status, r.json().await.unwrap_or(Value::Null));
            }
            // The process asked is the one killed: the test asks another.
            Err(e) => return (0, json!({ "error": e.to_string() })),
        }
        assert!(Instant::now() < deadline, "{url} answered 503 for 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The deciding seat's index and the legal moves, asked of `base`.
async fn decision(http: &reqwest::Client, base: &str, g: &Game) -> Option<(usize, Vec<String>)> {
    for seat in 0..2 {
        let (status, v) = ask(http, &format!("{base}/api/games/{}/moves?token={}", g.id, g.tokens[seat]), None).await;
        assert_eq!(status, 200, "{v}");
        if !v["outcome"].is_null() {
            return None;
        }
        if v["yours"] == true {
            let moves: Vec<String> = v["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap().to_string()).collect();
            return Some((seat, moves));
        }
    }
    panic!("no seat decides and the game is not over");
}

/// Play one move of `g` through `base` (reading the decision through `read`); its text and
/// number once acknowledged.
async fn play_one(http: &reqwest::Client, read: &str, base: &str, g: &Game, pick: u64) -> Option<(u64, String)> {
    let (seat, moves) = decision(http, read, g).await?;
    let text = moves[(pick as usize) % moves.len()].clone();
    let (status, v) = ask(http, &format!("{base}/api/games/{}/moves?token={}", g.id, g.tokens[seat]), Some(&json!({ "move": text }))).await;
    assert_eq!(status, 200, "{text}: {v}");
    Some((v["seq"].as_u64().unwrap(), text))
}

/// The stored record of `id`, replayed and verified by the store.
fn stored_moves(url: &str, id: &str) -> Vec<String> {
    let db = PgDatabase::connect(url).unwrap();
    let kinds = arbiter_games::web::offered().iter().map(|o| o.kind).collect();
    let catalogue = arbiter_kernel::Catalogue::new(kinds);
    // Opening replays every row from the seed: the random outcomes, the state hashes, the chain.
    let s = Session::open_in(GamePlace::Postgres { db: &db, id }, &catalogue).expect("the game replays and verifies");
    s.rows().iter().map(|r| r.move_text.clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_go_on_through_another_server_when_their_owner_is_killed() {
    let Some(pg) = arbiter_pgtest::PgServer::start() else { return };
    let url = pg.new_database("cluster_kill");
    let servers: Vec<Server> = (0..3).map(|_| Server::start(&url)).collect();
    let http = reqwest::Client::new();
    // One game made on each server (its owner), moves sent through every server in turn.
    let mut games = Vec::new();
    for (i, s) in servers.iter().enumerate() {
        games.push(create(&http, &s.base, 40 + i as u64).await);
    }
    let mut acked: Vec<Vec<String>> = vec![Vec::new(); games.len()];
    // A WebSocket to a server that does not own game 1 still receives its moves.
    let (mut ws, _) = tokio_tungstenite::connect_async(format!(
        "{}/api/games/{}/ws?token={}",
        servers[0].base.replace("http://", "ws://"),
        games[1].id,
        games[1].tokens[2]
    ))
    .await
    .expect("a WebSocket through a server that does not own the game");
    let mut pick = 7u64;
    for round in 0..12 {
        for (gi, g) in games.iter().enumerate() {
            let via = &servers[(round + gi) % 3].base;
            pick = pick.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407) >> 1;
            if let Some((seq, text)) = play_one(&http, via, via, g, pick).await {
                assert_eq!(seq as usize, acked[gi].len() + 1);
                acked[gi].push(text);
            }
        }
    }
    // The observer's WebSocket on server 0 saw game 1's moves (its sync, then each move).
    let mut seen = 0u64;
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen < acked[1].len() as u64 {
        let left = deadline.saturating_duration_since(Instant::now());
        let m = tokio::time::timeout(left, ws.next()).await.expect("game 1's moves reach the tunnelled WebSocket").unwrap().unwrap();
        if let Ok(v) = serde_json::from_str::<Value>(m.to_text().unwrap_or("")) {
            seen = seen.max(v["seq"].as_u64().or(v["state"]["seq"].as_u64()).unwrap_or(0));
        }
    }
    // Game 0's owner (server 0, which made it) dies in the middle of play.
    let mut servers = servers;
    let killed = servers.remove(0);
    killed.signal("-KILL");
    drop(killed);
    let killed_at = Instant::now();
    // The game goes on through the others: 503 (with Retry-After) until the lease expires,
    // then the first request takes it over.
    for round in 0..12 {
        for (gi, g) in games.iter().enumerate() {
            let via = &servers[(round + gi) % 2].base;
            pick = pick.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407) >> 1;
            if let Some((seq, text)) = play_one(&http, via, via, g, pick).await {
                assert_eq!(seq as usize, acked[gi].len() + 1, "game {gi}: no acknowledged move lost");
                acked[gi].push(text);
            }
        }
    }
    assert!(killed_at.elapsed() >= Duration::from_secs_f64(1.0), "the takeover waited for the lease");
    // Every acknowledged move is stored, in order, and nothing else; the record replays.
    for (gi, g) in games.iter().enumerate() {
        let url = url.clone();
        let id = g.id.clone();
        let stored = tokio::task::spawn_blocking(move || stored_moves(&url, &id)).await.unwrap();
        assert_eq!(stored, acked[gi], "game {gi}");
        assert!(acked[gi].len() >= 20, "game {gi} was played: {} moves", acked[gi].len());
    }
    // The lobby of every live server lists the games, the dead one's included.
    for s in &servers {
        let (status, v) = ask(&http, &format!("{}/api/games/{}", s.base, games[0].id), None).await;
        assert_eq!(status, 200);
        assert_eq!(v["moves"], acked[0].len(), "{v}");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let (_, list) = ask(&http, &format!("{}/api/games", s.base), None).await;
            let ids: Vec<&str> = list["games"].as_array().unwrap().iter().filter_map(|l| l["id"].as_str()).collect();
            if games.iter().all(|g| ids.contains(&g.id.as_str())) {
                break;
            }
            assert!(Instant::now() < deadline, "{} lists every game: {ids:?}", s.base);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_and_the_server_that_took_its_game_over_never_both_store_a_move() {
    let Some(pg) = arbiter_pgtest::PgServer::start() else { return };
    let url = pg.new_database("cluster_race");
    let (a, b) = (Server::start(&url), Server::start(&url));
    let http = reqwest::Client::new();
    let mut both_answered = 0;
    for round in 0..3u64 {
        let g = create(&http, &a.base, 70 + round).await;
        let mut acked = Vec::new();
        for i in 0..4 {
            acked.push(play_one(&http, &a.base, &a.base, &g, i * 5 + round).await.unwrap().1);
        }
        // A stops (its lease runs out), B takes the game over and plays on.
        a.signal("-STOP");
        tokio::time::sleep(Duration::from_secs(2)).await;
        acked.push(play_one(&http, &b.base, &b.base, &g, round).await.unwrap().1);
        // The next decision, read on B; A wakes with its old copy of the game (and a lease it
        // has not yet found lost); the same move goes to both at once.
        let (seat, moves) = decision(&http, &b.base, &g).await.unwrap();
        let body = json!({ "move": moves[0] });
        a.signal("-CONT");
        let url_a = format!("{}/api/games/{}/moves?token={}", a.base, g.id, g.tokens[seat]);
        let url_b = format!("{}/api/games/{}/moves?token={}", b.base, g.id, g.tokens[seat]);
        let (ra, rb) = tokio::join!(http.post(&url_a).body(body.to_string()).send(), http.post(&url_b).body(body.to_string()).send());
        let codes = [ra.unwrap().status().as_u16(), rb.unwrap().status().as_u16()];
        let ok = codes.iter().filter(|c| **c == 200).count();
        assert!(ok <= 1, "round {round}: both servers stored the move: {codes:?}");
        if ok == 1 {
            acked.push(moves[0].clone());
        }
        // A answers either way: 503, try again (its leases unconfirmed since the pause, or its
        // old copy's write refused by the lease's fence), or the move forwarded to B, the owner
        // now (200 or 409).
        if codes.iter().all(|c| [200, 409, 503].contains(c)) {
            both_answered += 1;
        }
        let (url2, id) = (url.clone(), g.id.clone());
        let stored = tokio::task::spawn_blocking(move || stored_moves(&url2, &id)).await.unwrap();
        assert_eq!(stored, acked, "round {round}: exactly the acknowledged moves, once each ({codes:?})");
    }
    assert!(both_answered > 0, "the racing move never reached both servers");
}

/// One request's status and body, not retried.
async fn once(req: reqwest::RequestBuilder) -> (u16, Value) {
    match req.send().await {
        Ok(r) => {
            let status = r.status().as_u16();
            (status, r.json().await.unwrap_or(Value::Null))
        }
        Err(e) => (0, json!({ "error": e.to_string() })),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_whose_game_was_taken_over_writes_neither_seats_nor_webhooks_nor_chat() {
    let Some(pg) = arbiter_pgtest::PgServer::start() else { return };
    let url = pg.new_database("cluster_fence");
    let (a, b) = (Server::start(&url), Server::start(&url));
    let http = reqwest::Client::new();
    let hook = "http://93.184.216.34/arbiter-hook";
    let mut games = Vec::new();
    let mut stale = 0;
    for round in 0..4 {
        // Made on A with only the US seat taken: A serves it.
        let (status, made) = once(http.post(format!("{}/api/games", a.base)).body(json!({ "seat": "us" }).to_string())).await;
        assert_eq!(status, 201, "{made}");
        let id = made["id"].as_str().unwrap().to_string();
        let us = made["tokens"]["us"].as_str().unwrap().to_string();
        // A stops past its lease; B takes the game over and gives the USSR seat.
        a.signal("-STOP");
        tokio::time::sleep(Duration::from_secs(2)).await;
        let (status, joined) = ask(&http, &format!("{}/api/games/{id}/join", b.base), Some(&json!({ "seat": "ussr" }))).await;
        assert_eq!(status, 201, "round {round}: {joined}");
        let ussr = joined["token"].as_str().unwrap().to_string();
        // A join, a webhook and a chat message wait for A, which wakes with its old copy of the
        // seats (the USSR seat free, no webhook).
        let game = format!("{}/api/games/{id}", a.base);
        let join = tokio::spawn(once(http.post(format!("{game}/join")).body(json!({ "seat": "ussr" }).to_string())));
        let webhook = tokio::spawn(once(http.put(format!("{game}/webhook?token={us}")).body(json!({ "url": hook }).to_string())));
        let chat = tokio::spawn(once(http.post(format!("{game}/chat?token={us}")).body(json!({ "text": "from A" }).to_string())));
        tokio::time::sleep(Duration::from_millis(200)).await;
        a.signal("-CONT");
        let (join, webhook, chat) = (join.await.unwrap(), webhook.await.unwrap(), chat.await.unwrap());
        assert_ne!(join.0, 201, "round {round}: the USSR seat B gave was given again: {}", join.1);
        // Refused by A (503: try again; its leases unconfirmed since the pause, or its old
        // copy's write fenced), or forwarded to B (409: taken).
        assert!(join.0 == 503 || join.0 == 409, "round {round}: the second join: {join:?}");
        if join.0 == 503 {
            stale += 1;
        }
        // What was refused is sent again (through A, forwarded to B by now) until answered.
        let webhook_stored = match webhook.0 {
            200 | 204 => true,
            503 => {
                let (status, v) = ask_put(&http, &format!("{game}/webhook?token={us}"), &json!({ "url": hook })).await;
                assert!(status == 200 || status == 204, "round {round}: the webhook sent again: {status} {v}");
                true
            }
            other => panic!("round {round}: the webhook: {other} {}", webhook.1),
        };
        let chat_stored = match chat.0 {
            201 => true,
            503 => {
                let (status, v) = ask(&http, &format!("{game}/chat?token={us}"), Some(&json!({ "text": "from A" }))).await;
                assert_eq!(status, 201, "round {round}: the chat message sent again: {v}");
                true
            }
            other => panic!("round {round}: the chat message: {other} {}", chat.1),
        };
        games.push((id, us, ussr, webhook_stored, chat_stored));
    }
    assert!(stale > 0, "A never refused a request for a game it had lost: the race was not run");
    // Every server restarted (the seats read again from the database): each game's USSR seat is
    // B's joiner's, the webhook and the chat message are there once.
    drop((a, b));
    let c = Server::start(&url);
    for (id, us, ussr, _, _) in &games {
        let game = format!("{}/api/games/{id}", c.base);
        let (status, v) = ask(&http, &format!("{game}/state?token={ussr}"), None).await;
        assert_eq!(status, 200, "game {id}: B's joiner lost the USSR seat: {v}");
        let (status, v) = ask(&http, &format!("{game}/webhook?token={us}"), None).await;
        assert_eq!(status, 200, "{v}");
        assert_eq!(v["url"], hook, "game {id}: the webhook acknowledged is kept");
        let (status, v) = ask(&http, &format!("{game}/chat?token={us}"), None).await;
        assert_eq!(status, 200, "{v}");
        let texts: Vec<&str> = v["messages"].as_array().unwrap().iter().filter_map(|m| m["text"].as_str()).collect();
        assert_eq!(texts, ["from A"], "game {id}: the chat message acknowledged, once");
    }
}

/// A PUT retried while the answer is 503, 30 s at most.
async fn ask_put(http: &reqwest::Client, url: &str, body: &Value) -> (u16, Value) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, v) = once(http.put(url).body(body.to_string())).await;
        if status != 503 {
            return (status, v);
        }
        assert!(Instant::now() < deadline, "{url} answered 503 for 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A WebSocket to `base`'s `path` from the loopback address `from` (127.0.0.X: another client
/// as the servers count clients); the handshake's error if it was refused.
async fn ws_from(
    from: [u8; 4],
    base: &str,
    path: &str,
) -> Result<tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>, tokio_tungstenite::tungstenite::Error> {
    let server: std::net::SocketAddr = base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind((std::net::Ipv4Addr::from(from), 0).into()).unwrap();
    let stream = socket.connect(server).await.unwrap();
    let url = format!("{}{path}", base.replace("http://", "ws://"));
    tokio_tungstenite::client_async(url, stream).await.map(|(ws, _)| ws)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_s_websockets_tunnelled_to_the_owner_count_against_that_client_not_the_forwarding_server() {
    let Some(pg) = arbiter_pgtest::PgServer::start() else { return };
    let url = pg.new_database("cluster_tunnels");
    let (a, b) = (Server::start(&url), Server::start(&url));
    let http = reqwest::Client::new();
    // A owns the game; every WebSocket below reaches it through B.
    let g = create(&http, &a.base, 5).await;
    let path = format!("/api/games/{}/ws?token={}", g.id, g.tokens[2]);
    // One client opens as many as a client may (32 at once, API.md's limits)...
    let mut held = Vec::new();
    for i in 0..32 {
        held.push(ws_from([127, 0, 0, 2], &b.base, &path).await.unwrap_or_else(|e| panic!("client 1's WebSocket {i}: {e}")));
    }
    // ...and no more: its 33rd is refused (by B, which counts it too, or by A).
    match ws_from([127, 0, 0, 2], &b.base, &path).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => assert_eq!(r.status(), 429),
        other => panic!("client 1's 33rd WebSocket: {:?}", other.map(|_| ())),
    }
    // Another client's WebSockets through the same server still reach the owner.
    for (i, from) in [[127, 0, 0, 3], [127, 0, 0, 4]].into_iter().enumerate() {
        let mut ws = ws_from(from, &b.base, &path).await.unwrap_or_else(|e| panic!("client {}'s WebSocket through B: {e}", i + 2));
        let first = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("the owner's sync").unwrap().unwrap();
        let v: Value = serde_json::from_str(first.to_text().unwrap()).unwrap();
        assert_eq!(v["type"], "sync", "{v}");
    }
    drop(held);
}

/// A server paused past its lease answers nothing from its old copy of the game another server
/// took over meanwhile: once resumed, a read it was sent is 503 (try again: the retry reaches
/// the new owner) or the new owner's answer, never the old position, and a move legal on the
/// new owner is never refused as "not your decision".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_owner_answers_nothing_from_its_old_copy_once_resumed() {
    let Some(pg) = arbiter_pgtest::PgServer::start() else { return };
    let url = pg.new_database("cluster_stale");
    let (a, b) = (Server::start(&url), Server::start(&url));
    let http = reqwest::Client::new();
    let mut stale = Vec::new();
    for round in 0..3u64 {
        let g = create(&http, &a.base, 90 + round).await;
        // A holds the game, the USSR deciding (its setup).
        let (status, v) = ask(&http, &format!("{}/api/games/{}/moves?token={}", a.base, g.id, g.tokens[1]), None).await;
        assert_eq!((status, &v["yours"]), (200, &json!(true)), "{v}");
        a.signal("-STOP");
        tokio::time::sleep(Duration::from_secs(2)).await;
        // B takes the game over and plays the USSR's setup, until the US decides.
        let mut played = 0u64;
        loop {
            let (seat, _) = decision(&http, &b.base, &g).await.expect("the game goes on");
            if seat == 0 {
                break;
            }
            play_one(&http, &b.base, &b.base, &g, played).await.expect("a move");
            played += 1;
        }
        let (_, moves) = decision(&http, &b.base, &g).await.unwrap();
        // Queued to A while it is stopped: reads of the US's decision, and the US's move.
        let us = &g.tokens[0];
        let reads: Vec<_> =
            (0..6).map(|_| tokio::spawn(once(http.get(format!("{}/api/games/{}/moves?token={us}", a.base, g.id))))).collect();
        let post = http.post(format!("{}/api/games/{}/moves?token={us}", a.base, g.id)).body(json!({ "move": moves[0] }).to_string());
        let moved = tokio::spawn(once(post));
        tokio::time::sleep(Duration::from_millis(200)).await;
        a.signal("-CONT");
        for r in reads {
            let (status, v) = r.await.unwrap();
            let current = status == 200 && v["yours"] == true && v["seq"].as_u64().is_some_and(|s| s >= played);
            if status != 503 && !current {
                stale.push(format!("round {round}: A read the US's decision at move {played} as {status} {v}"));
            }
        }
        let (status, v) = moved.await.unwrap();
        if status != 503 && status != 200 {
            stale.push(format!("round {round}: A answered the US's move {:?}: {status} {v}", moves[0]));
        }
    }
    assert!(stale.is_empty(), "answers from the paused owner's old copy: {stale:#?}");
}
