//! A server that holds (issue 24): each test probes one way a server was found to fail under
//! churn or abuse (stale rooms, slow clients, floods, silent clients, abandoned games, a chosen
//! seed, non-JSON errors) against a real server on a loopback port.

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
