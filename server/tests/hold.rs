//! A server that holds: each test probes one way a server was found to fail under
//! churn or abuse (stale rooms, slow clients, floods, silent clients, abandoned games, a chosen
//! seed, non-JSON errors, a data folder an earlier server wrote) against a real server on a
//! loopback port.

mod common;

use arbiter_server::{start, Config, Running};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn server(dir: &tempfile::TempDir, tune: impl FnOnce(&mut Config)) -> Running {
    let mut c = Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf());
    tune(&mut c);
    start(c, arbiter_games::web::offered()).await.unwrap()
}

async fn post(http: &reqwest::Client, url: &str, body: Value) -> (u16, Value) {
    let r = http.post(url).body(body.to_string()).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

async fn connect(addr: std::net::SocketAddr, id: &str, token: &str) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/api/games/{id}/ws?token={token}")).await.unwrap();
    ws
}

/// The next JSON message (10 s at most); `None` if the socket closed.
async fn next(ws: &mut Ws) -> Option<Value> {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message within 10 s");
        match m {
            Some(Ok(Message::Text(t))) => return Some(serde_json::from_str(&t).unwrap()),
            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => return None,
            _ => {}
        }
    }
}

/// A one-seat game (Minesweeper: `flag a1` and `unflag a1` alternate for ever): its id and the
/// player's and observers' tokens.
async fn one_seat_game(http: &reqwest::Client, base: &str) -> (String, String, String) {
    let (status, g) = post(http, &format!("{base}/api/games"), json!({ "game": "minesweeper" })).await;
    assert_eq!(status, 201, "{g}");
    let t = |p: &str| g["tokens"][p].as_str().unwrap().to_string();
    (g["id"].as_str().unwrap().to_string(), t("player"), t("observer"))
}

/// Point 1, stale views: connections opened and closed as fast as clients can, against an
/// unload delay of a few milliseconds, so that unloading races with connecting (several games at
/// once, each on its own client, to run the race often). Every connection must hear the move
/// made after its sync: a connection attached to a copy of the game already unloaded would never
/// hear it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_racing_the_unload_still_hears_every_later_move() {
    let dir = tempfile::tempdir().unwrap();
    let srv = std::sync::Arc::new(
        server(&dir, |c| {
            c.unload_after = Duration::from_millis(2);
            c.disconnect_timeout = Duration::from_millis(2);
        })
        .await,
    );
    let mut tasks = Vec::new();
    for game in 0..8u64 {
        let srv = srv.clone();
        tasks.push(tokio::spawn(async move {
            let base = format!("http://{}", srv.addr);
            let http = reqwest::Client::new();
            let (id, player, observer) = one_seat_game(&http, &base).await;
            let mut unloads = 0;
            for i in 0..250u64 {
                let mut ws = connect(srv.addr, &id, &observer).await;
                let sync = next(&mut ws).await.expect("a sync");
                assert_eq!(sync["type"], "sync", "{sync}");
                let seq = sync["state"]["seq"].as_u64().unwrap();
                let text = if seq % 2 == 0 { "flag a1" } else { "unflag a1" };
                let (status, r) = post(&http, &format!("{base}/api/games/{id}/moves?token={player}"), json!({ "move": text })).await;
                assert_eq!(status, 200, "{r}");
                assert_eq!(r["seq"], seq + 1);
                loop {
                    let v = tokio::time::timeout(Duration::from_secs(3), next(&mut ws))
                        .await
                        .unwrap_or_else(|_| panic!("game {game}: connection {i} (synced at move {seq}) never heard move {}", seq + 1))
                        .unwrap_or_else(|| panic!("game {game}: connection {i} closed"));
                    if v["type"] == "move" && v["seq"] == seq + 1 {
                        break;
                    }
                }
                ws.close(None).await.ok();
                // Around the unload delay: the next connection arrives as the game is being unloaded.
                tokio::time::sleep(Duration::from_micros(1000 + ((i + game) * 337) % 3000)).await;
                if !srv.hub.is_loaded(&id) {
                    unloads += 1;
                }
            }
            unloads
        }));
    }
    let mut unloads = 0;
    for t in tasks {
        unloads += t.await.unwrap();
    }
    assert!(unloads > 100, "the games were unloaded between connections ({unloads} times): the race was run");
}

/// A TCP connection to the server from `ip` (any 127.x address is the loopback).
async fn tcp_from(ip: &str, addr: std::net::SocketAddr) -> tokio::net::TcpStream {
    let s = tokio::net::TcpSocket::new_v4().unwrap();
    s.bind(format!("{ip}:0").parse().unwrap()).unwrap();
    s.connect(addr).await.unwrap()
}

/// A connection from `ip` on which one request was answered 200 and which is kept alive (so it
/// holds its place); `None` if the server refused it.
async fn admitted_from(ip: &str, addr: std::net::SocketAddr) -> Option<tokio::net::TcpStream> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tcp_from(ip, addr).await;
    s.write_all(b"GET /api/kinds HTTP/1.1\r\nhost: arbiter\r\n\r\n").await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    // The whole answer: its head, then as many bytes as its content-length says.
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await.expect("an answer within 10 s").unwrap();
        got.extend_from_slice(&buf[..n]);
        let raw = String::from_utf8_lossy(&got).into_owned();
        if let Some((head, body)) = raw.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap()));
            if n == 0 || length.is_some_and(|l| body.len() >= l) {
                let (status, v) = answer(&raw);
                return match status {
                    200 => Some(s),
                    503 => None,
                    other => panic!("200 or 503 for a connection from a third address, not {other}: {v}"),
                };
            }
        }
        assert!(n > 0, "the server closed the connection without a whole answer: {raw:?}");
    }
}

/// What the server sends until it closes the connection (10 s at most), and how long it took.
async fn read_to_close(s: &mut tokio::net::TcpStream) -> (String, Duration) {
    use tokio::io::AsyncReadExt;
    let t = std::time::Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(10), s.read(&mut buf)).await.expect("closed within 10 s") {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), t.elapsed())
}

/// The status and JSON body of a raw HTTP answer.
fn answer(raw: &str) -> (u16, Value) {
    let status = raw.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("an HTTP answer: {raw:?}"));
    let body = raw.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (status, serde_json::from_str(body).unwrap_or_else(|e| panic!("a JSON body ({e}): {raw:?}")))
}

/// Point 2, slow clients: half a header, or nothing, is closed after the header deadline; half
/// a body is answered 408 with a JSON reason after the body deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_client_is_cut_off_at_the_deadlines() {
    use tokio::io::AsyncWriteExt;
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| {
        c.header_timeout = Duration::from_millis(600);
        c.body_timeout = Duration::from_millis(600);
    })
    .await;
    let mut half_header = tcp_from("127.0.0.1", srv.addr).await;
    half_header.write_all(b"GET /api/kinds HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    let mut silent = tcp_from("127.0.0.1", srv.addr).await;
    for s in [&mut half_header, &mut silent] {
        let (_, took) = read_to_close(s).await;
        assert!(took < Duration::from_secs(3), "closed after {took:?}");
    }
    let mut half_body = tcp_from("127.0.0.1", srv.addr).await;
    half_body.write_all(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"game\"").await.unwrap();
    let (raw, took) = read_to_close(&mut half_body).await;
    assert!(took >= Duration::from_millis(500) && took < Duration::from_secs(3), "answered after {took:?}");
    let (status, e) = answer(&raw);
    assert_eq!(status, 408, "{raw}");
    assert!(e["error"].as_str().unwrap().contains("did not arrive"), "{e}");
    assert_eq!(common::stored_games(dir.path()), Vec::<String>::new(), "no game was made of half a body");
    // A whole request on a fresh connection is served as ever.
    let r = reqwest::get(format!("http://{}/api/kinds", srv.addr)).await.unwrap();
    assert_eq!(r.status(), 200);
}

/// Point 2, connection caps: idle connections from one address take its share, not the
/// server's: another address is still served; the next one from that address is refused 429. A
/// server full of idle or slow connections sheds the one waiting longest for a request to serve
/// a new client; full of connections in use (WebSockets), it refuses anyone 503; each refusal
/// with a JSON reason; closed connections give their places back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_are_capped_per_address_and_in_all() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| {
        c.max_connections_per_address = 4;
        c.max_connections = 6;
        // The idle connections must outlive a slow machine's test (the header deadline closes
        // an idle connection: another test's subject).
        c.header_timeout = Duration::from_secs(120);
    })
    .await;
    let url = format!("http://{}/api/kinds", srv.addr);
    let from = |ip: &str| reqwest::Client::builder().local_address(ip.parse::<std::net::IpAddr>().unwrap()).build().unwrap();
    let get = |ip: &'static str| {
        let (c, url) = (from(ip), url.clone());
        async move {
            let r = c.get(&url).send().await.unwrap();
            (r.status().as_u16(), r.headers().get("retry-after").is_some(), r.json::<Value>().await.unwrap())
        }
    };
    // The server counts a connection once its accept loop has taken it, which on a loaded
    // machine may be later than the client's connect: ask until the answer is the one due
    // (the deadline is far beyond any accept; the status must still be exactly that one).
    let until = |ip: &'static str, want: u16| {
        let get = &get;
        async move {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                let (status, retry, v) = get(ip).await;
                if status == want || tokio::time::Instant::now() >= deadline {
                    return (status, retry, v);
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let mut idle = Vec::new();
    for _ in 0..4 {
        idle.push(tcp_from("127.0.0.1", srv.addr).await);
    }
    let (status, retry, e) = until("127.0.0.1", 429).await;
    assert_eq!(status, 429, "{e}");
    assert!(retry && e["error"].as_str().unwrap().contains("your address"), "{e}");
    let (status, _, v) = get("127.0.0.2").await;
    assert_eq!(status, 200, "another address is served: {v}");
    // Fill the server with two kept-alive connections from a third address. Each is held only
    // once it was answered 200 (admitted): the connection the 200 above came on may still hold
    // its place for a moment after its client dropped it, and an idle connection the server
    // refused would look the same as one it admitted.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let mut kept = 0;
    while kept < 2 {
        assert!(tokio::time::Instant::now() < deadline, "the server admitted only {kept} of 2 connections within 10 s");
        match admitted_from("127.0.0.3", srv.addr).await {
            Some(s) => {
                idle.push(s);
                kept += 1;
            }
            None => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    // Full, of connections waiting for a request: a new client is served all the same, in the
    // place of the one that waited longest (the first idle socket, which is closed).
    let (status, _, v) = get("127.0.0.4").await;
    assert_eq!(status, 200, "a full server of idle connections sheds one: {v}");
    let (closed, _) = read_to_close(&mut idle[0]).await;
    assert_eq!(closed, "", "the connection waiting longest was shed, unanswered");
    idle.clear();
    let (status, _, v) = until("127.0.0.1", 200).await;
    assert_eq!(status, 200, "places given back: {v}");
    // Full of WebSockets (in use: none is shed), anyone is refused 503.
    let http = reqwest::Client::new();
    let (id, _, observer) = one_seat_game(&http, &format!("http://{}", srv.addr)).await;
    let mut sockets = Vec::new();
    for ip in ["127.0.0.5", "127.0.0.5", "127.0.0.5", "127.0.0.5", "127.0.0.6", "127.0.0.6"] {
        let url = format!("ws://{}/api/games/{id}/ws?token={observer}", srv.addr);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let ws = loop {
            // A place given back a moment late (a closed connection's task ends after its close).
            match tokio_tungstenite::client_async(url.clone(), tcp_from(ip, srv.addr).await).await {
                Ok((ws, _)) => break ws,
                Err(e) if tokio::time::Instant::now() < deadline => {
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(e) => panic!("a WebSocket from {ip}: {e}"),
            }
        };
        sockets.push(ws);
    }
    let (status, _, e) = until("127.0.0.4", 503).await;
    assert_eq!(status, 503, "{e}");
    assert!(e["error"].as_str().unwrap().contains("connections"), "{e}");
    drop(sockets);
    let (status, _, v) = until("127.0.0.1", 200).await;
    assert_eq!(status, 200, "places given back: {v}");
}

/// Wait until none of `ids` is loaded (10 s at most, far beyond the tests' unload delays).
async fn until_unloaded<'a>(srv: &Running, ids: impl IntoIterator<Item = &'a str> + Clone, what: &str) {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while ids.clone().into_iter().any(|id| srv.hub.is_loaded(id)) {
        assert!(std::time::Instant::now() < deadline, "{what}: still loaded after 10 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Point 3, a creation flood: an address may create its burst of games, then is refused 429
/// with Retry-After and a JSON reason (another address is not); a game nobody opens leaves the
/// memory soon (and loads again on demand), one that is opened stays; past the disk quota a
/// new game is refused 507 with a reason that names no path, and stores nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn game_creation_is_limited_per_address_unopened_games_unload_and_the_disk_has_a_quota() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| {
        c.games_per_address = 3;
        c.games_window = Duration::from_secs(60);
        c.unopened_unload = Duration::from_millis(400);
    })
    .await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let (id, _, observer) = one_seat_game(&http, &base).await;
        ids.push((id, observer));
    }
    let r = http.post(format!("{base}/api/games")).body(json!({ "game": "minesweeper" }).to_string()).send().await.unwrap();
    assert_eq!(r.status(), 429);
    let wait: u64 = r.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=21).contains(&wait), "one game every 20 s: {wait}");
    let e: Value = r.json().await.unwrap();
    assert!(e["error"].as_str().unwrap().contains("too many new games"), "{e}");
    let other = reqwest::Client::builder().local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap()).build().unwrap();
    let (id, _, _) = one_seat_game(&other, &base).await;
    assert!(srv.hub.is_loaded(&id));

    // The first game is opened; the others are not.
    let (open_id, observer) = &ids[0];
    let mut ws = connect(srv.addr, open_id, observer).await;
    assert_eq!(next(&mut ws).await.unwrap()["type"], "sync");
    // The unload delays are timers of the server's, which a loaded machine may run late: the
    // unloads are waited for (10 s at most), not slept for. The opened game's own delay ran
    // out before the second wait ends (it was made first, or loaded again by its connection,
    // before the read below): it is checked after each.
    until_unloaded(&srv, ids[1..].iter().map(|(id, _)| id.as_str()), "a game nobody opened was unloaded").await;
    assert!(srv.hub.is_loaded(open_id), "an opened game stays");
    let (id, observer) = &ids[1];
    let state: Value = http.get(format!("{base}/api/games/{id}/state?token={observer}")).send().await.unwrap().json().await.unwrap();
    assert_eq!((state["game"].as_str(), state["seq"].as_u64()), (Some("minesweeper"), Some(0)), "{state}");
    assert!(srv.hub.is_loaded(id), "loaded again on demand");
    until_unloaded(&srv, [id.as_str()], "and unloaded again, read but not opened").await;
    assert!(srv.hub.is_loaded(open_id), "the opened game still stays");
    drop(ws);

    // A quota the data folder has reached: no new game, and a reason without the server's paths.
    // The quota is what the folder's database and its write-ahead log take after one game.
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |_| {}).await;
    one_seat_game(&http, &format!("http://{}", srv.addr)).await;
    srv.task.abort();
    let used: u64 = ["games.db", "games.db-wal"].iter().filter_map(|f| std::fs::metadata(dir.path().join(f)).ok()).map(|m| m.len()).sum();
    let srv = server(&dir, |c| c.disk_quota = Some(used)).await;
    let base = format!("http://{}", srv.addr);
    let (status, e) = post(&http, &format!("{base}/api/games"), json!({ "game": "minesweeper" })).await;
    assert_eq!(status, 507, "{e}");
    let error = e["error"].as_str().unwrap();
    assert!(error.contains("full") && !error.contains('/') && !error.contains(&*dir.path().to_string_lossy()), "{e}");
    assert_eq!(common::stored_games(dir.path()).len(), 1, "nothing stored");
}

/// Point 4, heartbeats: a client that stops reading (so it answers no ping) is disconnected
/// within the ping interval and the pong timeout, and the other seat sees it away; a client
/// that reads (its library answers pings) stays connected through many intervals.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_answers_no_ping_is_disconnected_and_shown_away() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| {
        c.ping_interval = Duration::from_millis(300);
        c.pong_timeout = Duration::from_millis(300);
        c.disconnect_timeout = Duration::from_secs(60);
    })
    .await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let (status, g) = post(&http, &format!("{base}/api/games"), json!({})).await;
    assert_eq!(status, 201, "{g}");
    let (id, us, ussr) = (g["id"].as_str().unwrap(), g["tokens"]["us"].as_str().unwrap(), g["tokens"]["ussr"].as_str().unwrap());
    let mut silent = connect(srv.addr, id, us).await;
    assert_eq!(next(&mut silent).await.unwrap()["type"], "sync");
    // The US client reads (so its library answers pings) until the USSR has its sync: had it
    // stopped at once, a loaded machine could take the ping interval and the pong timeout to
    // connect the USSR, which would find the US already away.
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let reader = tokio::spawn(async move {
        let mut stopped = stopped;
        loop {
            tokio::select! {
                _ = &mut stopped => return silent,
                m = silent.next() => assert!(matches!(m, Some(Ok(_))), "the US client was disconnected while it answered pings: {m:?}"),
            }
        }
    });
    let mut live = connect(srv.addr, id, ussr).await;
    assert_eq!(next(&mut live).await.unwrap()["state"]["presence"]["us"], "connected");
    // From here on the US client reads nothing: it answers no ping.
    // (Should the reader have failed, its own panic is the one reported, by `reader.await`.)
    let _ = stop.send(());
    let silent = reader.await.unwrap();
    let t = std::time::Instant::now();
    loop {
        let v = next(&mut live).await.expect("the USSR stays connected");
        if v["type"] == "presence" && v["presence"]["us"] == "away" {
            break;
        }
    }
    let took = t.elapsed();
    assert!(took < Duration::from_secs(3), "the silent client was dropped after {took:?}");
    // The reading client keeps answering through several intervals.
    let until = std::time::Instant::now() + Duration::from_millis(1500);
    while std::time::Instant::now() < until {
        match tokio::time::timeout(Duration::from_millis(200), live.next()).await {
            Ok(Some(Ok(Message::Close(_)))) | Ok(None) | Ok(Some(Err(_))) => panic!("the reading client was disconnected"),
            _ => {}
        }
    }
    live.send(Message::Text(json!({ "type": "sync" }).to_string().into())).await.unwrap();
    let sync = loop {
        let v = next(&mut live).await.expect("still open");
        if v["type"] == "sync" {
            break v;
        }
    };
    assert_eq!(sync["state"]["presence"]["ussr"], "connected");
    assert_eq!(sync["state"]["presence"]["us"], "away");
    drop(silent);
}

/// Point 5, abandoned games. Without a clock: every seat away longer than `abandon_after` (an
/// observer still watching) and the game is marked abandoned and unloaded, its watchers told;
/// it is still read (state, log), not played (409, saying why); a game whose seat stays is
/// not abandoned. With a clock, nobody connected and the game not even loaded: its clock
/// ends it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_every_seat_left_is_abandoned_and_a_clock_ends_a_game_nobody_watches() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| {
        c.abandon_after = Duration::from_millis(800);
        c.unload_after = Duration::from_secs(60);
        c.unopened_unload = Duration::from_millis(300);
    })
    .await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let (left, player, observer) = one_seat_game(&http, &base).await;
    let (kept, kept_player, _) = one_seat_game(&http, &base).await;
    let mut stays = connect(srv.addr, &kept, &kept_player).await;
    let mut seat = connect(srv.addr, &left, &player).await;
    assert_eq!(next(&mut seat).await.unwrap()["type"], "sync");
    let mut watcher = connect(srv.addr, &left, &observer).await;
    assert_eq!(next(&mut watcher).await.unwrap()["type"], "sync");
    seat.close(None).await.ok();
    let t = std::time::Instant::now();
    let closing = loop {
        let v = next(&mut watcher).await.expect("told before the socket closes");
        if v["type"] == "closing" {
            break v;
        }
    };
    assert!(closing["reason"].as_str().unwrap().contains("abandoned"), "{closing}");
    assert!(t.elapsed() < Duration::from_secs(4), "abandoned after {:?}", t.elapsed());
    assert!(!srv.hub.is_loaded(&left), "unloaded");
    let seats: Value = serde_json::from_str(&common::seats_doc(dir.path(), &left, false)).unwrap();
    assert!(seats["abandoned"].is_string(), "marked in the seats document: {seats}");
    let state: Value = http.get(format!("{base}/api/games/{left}/state?token={player}")).send().await.unwrap().json().await.unwrap();
    assert_eq!((state["seq"].as_u64(), state["abandoned"].is_string()), (Some(0), true), "{state}");
    let r = http.get(format!("{base}/api/games/{left}/log?token={observer}")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let (status, e) = post(&http, &format!("{base}/api/games/{left}/moves?token={player}"), json!({ "move": "open e5" })).await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("abandoned"), "{e}");
    // The seat that stayed keeps its game.
    assert!(srv.hub.is_loaded(&kept));
    assert_eq!(next(&mut stays).await.unwrap()["type"], "sync");
    let (status, e) = post(&http, &format!("{base}/api/games/{kept}/moves?token={kept_player}"), json!({ "move": "flag a1" })).await;
    assert_eq!(status, 200, "{e}");

    // A clock of one second, started by the first move; nobody connects, and the game leaves
    // the memory (never opened). The server still ends it when the deciding seat's time is out.
    let (status, g) = post(&http, &format!("{base}/api/games"), json!({ "clock_seconds": 1 })).await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap();
    let ussr = g["tokens"]["ussr"].as_str().unwrap();
    let (status, e) = post(&http, &format!("{base}/api/games/{id}/moves?token={ussr}"), json!({ "move": "influence Poland" })).await;
    assert_eq!(status, 200, "{e}");
    let mut was_unloaded = false;
    let deadline = std::time::Instant::now() + Duration::from_secs(6);
    let session = loop {
        was_unloaded |= !srv.hub.is_loaded(id);
        let s = common::open_game(dir.path(), id, false);
        if s.game().outcome().is_some() {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the clock ended the game within 6 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(was_unloaded, "the game was not in memory when its time ran out");
    assert_eq!(session.game().outcome().unwrap().reason, "Time");
    assert_eq!(session.rows().len(), 2);
}

/// Point 6, a chosen seed: the server draws the seed unless the creator sends one; then every
/// seat's state and sync say `seed_chosen`, the seats document records it, and a join is refused
/// (409, saying why) unless the joiner accepts it. A drawn seed is said too (false).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seed_the_creator_chose_is_told_to_every_seat_and_a_joiner_must_accept_it() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |_| {}).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let (status, g) = post(&http, &format!("{base}/api/games"), json!({ "seed": 42, "seat": "us" })).await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap();
    let us = g["tokens"]["us"].as_str().unwrap();
    let seats: Value = serde_json::from_str(&common::seats_doc(dir.path(), id, false)).unwrap();
    assert_eq!(seats["seed_chosen"], true, "{seats}");
    let state: Value = http.get(format!("{base}/api/games/{id}/state?token={us}")).send().await.unwrap().json().await.unwrap();
    assert_eq!(state["seed_chosen"], true);
    let join = format!("{base}/api/games/{id}/join");
    let (status, e) = post(&http, &join, json!({ "seat": "ussr" })).await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("chose its seed") && e["error"].as_str().unwrap().contains("accept_chosen_seed"), "{e}");
    let (status, e) = post(&http, &join, json!({ "seat": "ussr", "accept_chosen_seed": false })).await;
    assert_eq!(status, 409, "{e}");
    let (status, j) = post(&http, &join, json!({ "seat": "ussr", "accept_chosen_seed": true })).await;
    assert_eq!(status, 201, "{j}");
    let mut ws = connect(srv.addr, id, j["token"].as_str().unwrap()).await;
    let sync = next(&mut ws).await.unwrap();
    assert_eq!((sync["type"].as_str(), sync["state"]["seed_chosen"].as_bool()), (Some("sync"), Some(true)), "{sync}");
    // A move's message carries it too.
    let (status, e) =
        post(&http, &format!("{base}/api/games/{id}/moves?token={}", j["token"].as_str().unwrap()), json!({ "move": "influence Poland" }))
            .await;
    assert_eq!(status, 200, "{e}");
    let moved = loop {
        let v = next(&mut ws).await.unwrap();
        if v["type"] == "move" {
            break v;
        }
    };
    assert_eq!(moved["state"]["seed_chosen"], true);

    // The server's seed: nothing to accept, and said so.
    let (status, g) = post(&http, &format!("{base}/api/games"), json!({ "seat": "us" })).await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap();
    let (status, j) = post(&http, &format!("{base}/api/games/{id}/join"), json!({})).await;
    assert_eq!(status, 201, "{j}");
    let state: Value =
        http.get(format!("{base}/api/games/{id}/state?token={}", j["token"].as_str().unwrap())).send().await.unwrap().json().await.unwrap();
    assert_eq!(state["seed_chosen"], false);
}

/// Point 7: every error body is JSON (`{"error": …}`), axum's own refusals included (a body
/// too large, a query or path it cannot read, no such route, a method a route does not take),
/// and the saved game (its seats document inside it) is readable by the server's user only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_error_is_json_and_saved_files_are_private() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |_| {}).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let (id, player, _) = one_seat_game(&http, &base).await;
    let big = "x".repeat(17 * 1024);
    let asks = [
        (http.post(format!("{base}/api/games")).body(big.clone()), 413),
        (http.post(format!("{base}/api/games/{id}/moves?token={player}")).body(big), 413),
        (http.get(format!("{base}/api/games/{id}/state?token=a&token=b")), 400),
        (http.get(format!("{base}/api/kinds/%FF%FE/x")), 400),
        (http.get(format!("{base}/api/nothing")), 404),
        (http.get(format!("{base}/api/games/{id}/state/more")), 404),
        (http.put(format!("{base}/api/games")), 405),
        (http.delete(format!("{base}/api/games/{id}/moves?token={player}")), 405),
        (http.get(format!("{base}/static/minesweeper/nothing.js")), 404),
        (http.post(format!("{base}/api/games")).body("{"), 400),
    ];
    for (ask, want) in asks {
        let r = ask.send().await.unwrap();
        let (status, url) = (r.status().as_u16(), r.url().to_string());
        let kind = r.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
        let text = r.text().await.unwrap();
        assert_eq!(status, want, "{url}: {text}");
        assert!(kind.starts_with("application/json"), "{url}: {kind}");
        let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{url}: not JSON ({e}): {text:?}"));
        assert!(v["error"].as_str().is_some_and(|e| !e.is_empty()), "{url}: {v}");
    }

    use std::os::unix::fs::PermissionsExt;
    let (status, e) = post(&http, &format!("{base}/api/games/{id}/moves?token={player}"), json!({ "move": "flag a1" })).await;
    assert_eq!(status, 200, "{e}");
    let (status, g) = post(&http, &format!("{base}/api/games"), json!({ "seat": "us" })).await;
    assert_eq!(status, 201, "{g}");
    let (status, _) = post(&http, &format!("{base}/api/games/{}/join", g["id"].as_str().unwrap()), json!({})).await;
    assert_eq!(status, 201, "the seats document rewritten by a join");
    // The database holds the games' seeds and the seats' hashes: every file of the folder is
    // its owner's only (the database, its write-ahead log and the log's index, the lock).
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir.path()).unwrap() {
        let e = e.unwrap();
        let mode = e.metadata().unwrap().permissions().mode() & 0o777;
        let name = e.file_name().to_string_lossy().into_owned();
        assert_eq!(mode, 0o600, "{name} is {mode:o}");
        files.push(name);
    }
    files.sort();
    assert_eq!(files, ["games.db", "games.db-shm", "games.db-wal", "games.lock"]);
    assert_eq!(common::stored_games(dir.path()).len(), 2, "two games, each holding its seats");
}

/// A data folder an earlier server wrote (a file per game on the folder's redo log, the
/// seats inside each file, or beside it in an older server's `GAME.seats.json`) is imported at
/// the first start: each game served as it was, its tokens acting, its files moved into
/// `imported/`; a file without seats (one `arbiter` made, copied into the folder) is stored but
/// is no game of the server's; what a creation killed midway left (empty files) stays in
/// place, said in the log, and is no game. A second start imports nothing again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_earlier_server_s_folder_is_imported_at_the_first_start() {
    use arbiter_server::seats::{token_hash, SeatsFile};
    use arbiter_store::{RedoLog, Session, SqliteStore};
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path();
    let (inside, beside, plain) = ("0123456789abcde0", "0123456789abcde1", "0123456789abcdef");
    let (us, ussr) = ("us-token-of-an-earlier-server", "ussr-token-of-an-earlier-server");
    let seats = |token: &str| SeatsFile {
        hashes: vec![Some(token_hash(token)), None, Some(token_hash("observers-token-of-an-earlier-server"))],
        ..Default::default()
    };
    {
        // As the earlier server wrote them: each game's file on the redo log, a move played.
        let (log, _) = RedoLog::open(data).unwrap();
        for (id, token, doc) in [(inside, us, true), (beside, ussr, false)] {
            let json = seats(token).to_json().unwrap();
            let docs: Vec<(&str, &str)> = if doc { vec![("seats", json.as_str())] } else { Vec::new() };
            let path = data.join(format!("{id}.arbiter"));
            let mut s = Session::create_with(&arbiter_games::TWILIGHT_STRUGGLE, &json!({}), 7, |h| {
                SqliteStore::create_on_log(&path, h, &docs, log.clone())
            })
            .unwrap();
            let m = s.game().first_moves().into_iter().next().expect("the USSR's setup move");
            s.play(&m, None).unwrap();
            if !doc {
                std::fs::write(data.join(format!("{id}.seats.json")), &json).unwrap();
            }
        }
    }
    drop(Session::create(&data.join(format!("{plain}.arbiter")), &arbiter_games::TWILIGHT_STRUGGLE, &json!({}), 1).unwrap());
    let killed = "fedcba9876543210";
    for suffix in ["", "-wal", "-shm"] {
        std::fs::write(data.join(format!("{killed}.arbiter{suffix}")), b"").unwrap();
    }

    let srv = server(&dir, |_| {}).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let listed: Value = http.get(format!("{base}/api/games")).send().await.unwrap().json().await.unwrap();
    let mut ids: Vec<&str> = listed["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap()).collect();
    ids.sort();
    assert_eq!(ids, [inside, beside], "{listed}");
    for (id, token, seat) in [(inside, us, "us"), (beside, ussr, "us")] {
        let moves: Value = http.get(format!("{base}/api/games/{id}/moves?token={token}")).send().await.unwrap().json().await.unwrap();
        assert!(moves["error"].is_null(), "{id}: the earlier token still acts: {moves}");
        assert_eq!(moves["seat"].as_str().or(moves["you"].as_str()).unwrap_or(seat), seat, "{moves}");
        assert_eq!(common::open_game(data, id, false).rows().len(), 1, "{id}: its move kept");
        assert!(data.join("imported").join(format!("{id}.arbiter")).exists() && !data.join(format!("{id}.arbiter")).exists());
    }
    assert!(data.join("imported").join(format!("{beside}.seats.json")).exists(), "the seats file moved beside its game");
    assert!(!data.join(format!("{beside}.seats.json")).exists());
    for gone in [plain, killed] {
        assert_eq!(http.get(format!("{base}/api/games/{gone}")).send().await.unwrap().status(), 404, "{gone}");
    }
    assert!(data.join(format!("{killed}.arbiter")).exists(), "what cannot be read is left in place");
    // The join writes the seats document in the database; a restart serves it from there.
    let (status, joined) = post(&http, &format!("{base}/api/games/{beside}/join"), json!({ "seat": "ussr" })).await;
    assert_eq!(status, 201, "{joined}");
    srv.task.abort();
    let srv = server(&dir, |_| {}).await;
    let token = joined["token"].as_str().unwrap();
    let moves: Value =
        http.get(format!("http://{}/api/games/{beside}/moves?token={token}", srv.addr)).send().await.unwrap().json().await.unwrap();
    assert!(moves["error"].is_null(), "{moves}");
    let mut ids = common::stored_games(data);
    ids.sort();
    assert_eq!(ids, [inside, beside, plain], "nothing imported twice");
}

/// The descriptors this process holds open on files of data folder `dir` (its database, the
/// database's write-ahead log and index, the folder's lock).
fn descriptors_on(dir: &std::path::Path) -> Vec<String> {
    let dir = std::fs::canonicalize(dir).unwrap();
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|p| p.parent() == Some(dir.as_path()))
        .map(|p| p.display().to_string())
        .collect()
}

/// A game unloaded and loaded again, 20 times over (a seat's WebSocket opened and closed, the
/// unload delay short): the server holds no more descriptors on its data folder after the
/// twentieth time than after the first (a game keeps no file of its own open; the database's
/// connections are a bounded pool); a descriptor kept by each unloaded copy would let anyone
/// holding a seat run the server out of descriptors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unloaded_game_holds_no_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| {
        // The seat's away timer (`disconnect_timeout`) as it is by default: longer than the
        // unload delay.
        c.unload_after = Duration::from_millis(20);
        c.unopened_unload = Duration::from_millis(20);
    })
    .await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let (id, player, _) = one_seat_game(&http, &base).await;
    cycles(&srv, dir.path(), &id, &player, 20).await;
    // A game on a chess clock: its flag's timer waits for hours.
    let (status, g) = post(&http, &format!("{base}/api/games"), json!({ "clock_minutes": 600 })).await;
    assert_eq!(status, 201, "{g}");
    // Its clock runs from the first move.
    let ussr = g["tokens"]["ussr"].as_str().unwrap();
    let url = format!("{base}/api/games/{}/moves?token={ussr}", g["id"].as_str().unwrap());
    let first = http.get(&url).send().await.unwrap().json::<Value>().await.unwrap()["moves"][0].as_str().unwrap().to_string();
    assert_eq!(post(&http, &url, json!({ "move": first })).await.0, 200);
    cycles(&srv, dir.path(), g["id"].as_str().unwrap(), g["tokens"]["ussr"].as_str().unwrap(), 5).await;
}

/// Open and close a seat's WebSocket `n` times, each time until the game is unloaded; then
/// no descriptor is held on the game's files.
async fn cycles(srv: &Running, dir: &std::path::Path, id: &str, token: &str, n: usize) {
    until_unloaded(srv, [id], "the new game, unopened").await;
    let mut after_first = None;
    for round in 0..n {
        let mut ws = connect(srv.addr, id, token).await;
        let sync = next(&mut ws).await.expect("a sync");
        assert_eq!(sync["type"], "sync");
        ws.close(None).await.unwrap();
        drop(ws);
        until_unloaded(srv, [id], &format!("round {round}")).await;
        after_first.get_or_insert_with(|| descriptors_on(dir).len());
    }
    let first = after_first.unwrap_or_default();
    assert!(first > 0, "the server holds its database open");
    // The last copy's own tasks end within moments of the unload.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        let held = descriptors_on(dir);
        if held.len() <= first {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "after {n} loads and unloads the server holds {} descriptors on its folder, {first} after the first: {held:?}",
            held.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The `arbiter` binary built beside this test (`cargo test --workspace` builds it).
fn arbiter_bin() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let bin = exe.parent().and_then(|d| d.parent()).map(|d| d.join("arbiter")).expect("the target folder");
    assert!(bin.exists(), "{} is missing: build it first (cargo build --release -p arbiter-cli)", bin.display());
    bin
}

/// The soft and hard limits on open files of process `pid` (`/proc/PID/limits`).
fn open_files_limits(pid: u32) -> (String, String) {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).expect("a line for open files");
    let mut v = line["Max open files".len()..].split_whitespace();
    (v.next().unwrap().to_string(), v.next().unwrap().to_string())
}

/// Started under a soft limit of 200 open files (a hard one above it), `arbiter serve` raises
/// its soft limit to the hard one: a soft limit of 1,024 (a common default) would refuse a
/// crowd the hard limit serves.
#[test]
fn the_server_raises_its_soft_limit_on_open_files_to_the_hard_one() {
    let data = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let script = format!("ulimit -Sn 200 && exec \"$0\" serve --addr 127.0.0.1:{port} --data \"$1\"");
    let mut child = std::process::Command::new("bash")
        .args(["-c", &script])
        .arg(arbiter_bin())
        .arg(data.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "arbiter serve did not listen within 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (soft, hard) = open_files_limits(child.id());
    let _ = child.kill();
    let _ = child.wait();
    assert_ne!(hard, "200", "the test needs a hard limit above 200");
    let want = if hard == "unlimited" { (1u64 << 20).to_string() } else { hard.clone() };
    assert_eq!(soft, want, "the soft limit (hard: {hard})");
}

/// One address opening sockets past its cap and never reading: a few are answered 429 (each
/// holds its descriptor for the answer's moments), the rest are closed at once, so the flood
/// holds no descriptor of the server's; other addresses are served meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_sockets_past_the_cap_is_closed_at_once() {
    use tokio::io::AsyncReadExt;
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| {
        c.max_connections_per_address = 2;
        c.header_timeout = Duration::from_secs(120);
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..2 {
        held.push(tcp_from("127.0.0.1", srv.addr).await);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    // 60 sockets past the cap, none sending or reading.
    let mut flood = Vec::new();
    for _ in 0..60 {
        flood.push(tcp_from("127.0.0.1", srv.addr).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Most were closed at once (the server's descriptor given back): they read the end at once.
    let mut closed = 0;
    for s in &mut flood {
        let mut b = [0u8; 64];
        if matches!(tokio::time::timeout(Duration::from_millis(20), s.read(&mut b)).await, Ok(Ok(0)) | Ok(Err(_))) {
            closed += 1;
        }
    }
    assert!(closed >= 60 - arbiter_server::limits::REFUSALS_PER_ADDRESS - 2, "{closed} of 60 closed at once");
    let r = reqwest::Client::builder().local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap()).build().unwrap();
    let status = r.get(format!("http://{}/api/kinds", srv.addr)).send().await.unwrap().status();
    assert_eq!(status, 200, "another address is served");
}

/// A new game the server cannot make (its database's commit failing, as a full disk or a
/// failing disk fails it; out of descriptors alike) is a 503 with Retry-After, in words that
/// name no path, and nothing is stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_the_server_cannot_make_is_a_503_naming_no_path() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |_| {}).await;
    let arbiter_server::storage::Storage::Folder { db } = &**srv.hub.storage() else { panic!("a data folder") };
    db.fault_fail_next_commit();
    let r = reqwest::Client::new().post(format!("http://{}/api/games", srv.addr)).body("{}").send().await.unwrap();
    let (status, retry) = (r.status().as_u16(), r.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(String::from));
    let text = r.text().await.unwrap();
    assert_eq!((status, retry.as_deref()), (503, Some("5")), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(v["error"].as_str().unwrap().contains("try again"), "{v}");
    assert!(!text.contains(dir.path().to_str().unwrap()) && !text.contains("games.db"), "a path in the answer: {text}");
    assert_eq!(common::stored_games(dir.path()), Vec::<String>::new(), "nothing was stored");
}

/// A WebSocket message over 16 KiB is answered `rejected` with the limit, and the connection
/// goes on; one over 64 KiB is not read at all: the connection closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_websocket_message_is_rejected_and_a_huge_one_closes() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |_| {}).await;
    let http = reqwest::Client::new();
    let (id, player, _) = one_seat_game(&http, &format!("http://{}", srv.addr)).await;
    let mut ws = connect(srv.addr, &id, &player).await;
    assert_eq!(next(&mut ws).await.unwrap()["type"], "sync");
    let long = json!({ "type": "move", "move": "x".repeat(20 * 1024) }).to_string();
    ws.send(Message::Text(long.into())).await.unwrap();
    // The first answer to this connection's message (a presence message may come before it).
    async fn answer(ws: &mut Ws, kind: &str) -> Value {
        loop {
            let m = next(ws).await.expect("an answer, not a closed connection");
            if m["type"] != "presence" {
                assert_eq!(m["type"], kind, "{m}");
                return m;
            }
        }
    }
    let r = answer(&mut ws, "rejected").await;
    assert!(r["error"].as_str().unwrap().contains("at most 16384 bytes"), "{r}");
    ws.send(Message::Text(json!({ "type": "sync" }).to_string().into())).await.unwrap();
    answer(&mut ws, "sync").await;
    let huge = json!({ "type": "move", "move": "x".repeat(100 * 1024) }).to_string();
    let _ = ws.send(Message::Text(huge.into())).await;
    while let Some(m) = next(&mut ws).await {
        assert_eq!(m["type"], "presence", "the connection closes, answering nothing: {m}");
    }
}

/// A seat connecting and closing in a loop does not write the game's seats document at each
/// close: when it was last seen is written once a minute at most (a tenth of the delay before a
/// game is abandoned, a minute at most), not 3,000 times a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_closing_in_a_loop_writes_when_it_was_seen_once_a_minute() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |_| {}).await;
    let http = reqwest::Client::new();
    let (id, player, _) = one_seat_game(&http, &format!("http://{}", srv.addr)).await;
    let seen = || serde_json::from_str::<Value>(&common::seats_doc(dir.path(), &id, false)).unwrap()["last_seen"].clone();
    let mut ws = connect(srv.addr, &id, &player).await;
    next(&mut ws).await.expect("a sync");
    ws.close(None).await.unwrap();
    drop(ws);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while seen().is_null() {
        assert!(std::time::Instant::now() < deadline, "the first close is written");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let first = seen();
    for _ in 0..10 {
        let mut ws = connect(srv.addr, &id, &player).await;
        next(&mut ws).await.expect("a sync");
        ws.close(None).await.unwrap();
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(seen(), first, "ten closes within a minute of the first write nothing");
}

/// Replays are limited per client address (each replays a game's record): a burst, then 429
/// with Retry-After; another address is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replays_are_limited_per_address() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| c.replays_per_address = 5).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let (id, player, _) = one_seat_game(&http, &base).await;
    let url = format!("{base}/api/games/{id}/replay?token={player}");
    for i in 0..5 {
        assert_eq!(http.get(&url).send().await.unwrap().status(), 200, "replay {i}");
    }
    let r = http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.headers().get("retry-after").is_some());
    let v: Value = r.json().await.unwrap();
    assert!(v["error"].as_str().unwrap().contains("replay requests"), "{v}");
    let other = reqwest::Client::builder().local_address("127.0.0.2".parse::<std::net::IpAddr>().unwrap()).build().unwrap();
    assert_eq!(other.get(&url).send().await.unwrap().status(), 200, "another address");
}

/// A client at its pace whose messages arrive bunched (30 at once: a busy network, a busy
/// server) is not taken for a flood: each is answered and the connection goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bunched_messages_at_a_client_s_pace_do_not_close_its_connection() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |_| {}).await;
    let http = reqwest::Client::new();
    let (id, player, _) = one_seat_game(&http, &format!("http://{}", srv.addr)).await;
    let mut ws = connect(srv.addr, &id, &player).await;
    assert_eq!(next(&mut ws).await.unwrap()["type"], "sync");
    for _ in 0..30 {
        ws.send(Message::Text("{\"type\":\"nonsense\"}".into())).await.unwrap();
    }
    let mut rejected = 0;
    while rejected < 30 {
        let m = next(&mut ws).await.unwrap_or_else(|| panic!("closed after {rejected} answers"));
        match m["type"].as_str() {
            Some("rejected") => rejected += 1,
            Some("presence") => {}
            _ => panic!("{m}"),
        }
    }
    ws.send(Message::Text(json!({ "type": "sync" }).to_string().into())).await.unwrap();
    loop {
        let m = next(&mut ws).await.expect("the connection goes on");
        if m["type"] == "sync" {
            break;
        }
    }
}

/// A request whose address or headers are too long is answered 414 or 431 in JSON, as every
/// error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_too_long_is_answered_in_json() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |_| {}).await;
    let http = reqwest::Client::new();
    let long = format!("http://{}/api/kinds?x={}", srv.addr, "a".repeat(10_000));
    let big = http.get(format!("http://{}/api/kinds", srv.addr)).header("x-big", "b".repeat(20_000));
    for (want, request, said) in [(414, http.get(&long), "address"), (431, big, "headers")] {
        let r = request.send().await.unwrap();
        assert_eq!(r.status().as_u16(), want);
        assert_eq!(r.headers().get("content-type").and_then(|v| v.to_str().ok()), Some("application/json"));
        let v: Value = r.json().await.unwrap();
        assert!(v["error"].as_str().unwrap().contains(said), "{v}");
    }
    assert_eq!(http.get(format!("http://{}/api/kinds", srv.addr)).send().await.unwrap().status(), 200);
}

/// A game no WebSocket holds is unloaded once requests stop using it, not at a fixed time
/// after it was loaded: played by HTTP requests alone it stays the same copy while they come
/// (not loaded again and again), and it is unloaded soon after the last. The default delay is
/// a minute, not ten: a flood of games nobody opens holds the server's memory that long at most.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_played_by_http_alone_stays_loaded_while_used_and_closes_its_files_soon_after() {
    assert_eq!(Config::new("127.0.0.1:0".parse().unwrap(), "x".into()).unopened_unload, Duration::from_secs(60));
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir, |c| c.unopened_unload = Duration::from_secs(1)).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let (id, player, _) = one_seat_game(&http, &base).await;
    let copy = || srv.hub.loaded_rooms().into_iter().find(|r| r.id == id).expect("loaded");
    let first = copy();
    // Three times the delay of requests, one every 100 ms: the same copy throughout.
    let url = format!("{base}/api/games/{id}/moves?token={player}");
    for i in 0..30 {
        let m = if i % 2 == 0 { "flag a1" } else { "unflag a1" };
        assert_eq!(post(&http, &url, json!({ "move": m })).await.0, 200, "{m}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(std::sync::Arc::ptr_eq(&first, &copy()), "move {i}: the game was loaded again while played");
    }
    drop(first);
    until_unloaded(&srv, [id.as_str()], "a game no request uses any more").await;
}
