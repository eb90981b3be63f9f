//! The browser at parity with the table, on the server's side (issue 24): advice before a move
//! (warnings and odds), undo over HTTP and WebSocket under the table's rules, headlines chosen
//! at the same time. A real server on a loopback port; positions are reached by random play
//! (`arbiter_twilight::playout::random_until`) and replayed over HTTP on the same seed.

use arbiter_server::{start, Config, Running};
use arbiter_twilight::map::Map;
use arbiter_twilight::{Game, Move, Options, Side};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The options of the games created here, as `random_until` plays them.
const OPTIONS: Options = Options { optional_cards: true, us_bonus: 2 };

async fn server(dir: &tempfile::TempDir) -> Running {
    let c = Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf());
    start(c, arbiter_games::web::offered()).await.unwrap()
}

/// A game on the server: its id, the US's, the USSR's and the observer's tokens.
struct Table {
    base: String,
    id: String,
    tokens: [String; 3],
    http: reqwest::Client,
}

impl Table {
    /// A game on `seed` with `moves` played over HTTP, each by its side.
    async fn at(srv: &Running, seed: u64, moves: &[(Side, String)]) -> Table {
        let base = format!("http://{}", srv.addr);
        let http = reqwest::Client::new();
        let r =
            http.post(format!("{base}/api/games")).body(json!({ "seed": seed, "optional_cards": true }).to_string()).send().await.unwrap();
        assert_eq!(r.status(), 201);
        let v: Value = r.json().await.unwrap();
        let t = |s: &str| v["tokens"][s].as_str().unwrap().to_string();
        let table = Table { base, id: v["id"].as_str().unwrap().into(), tokens: [t("us"), t("ussr"), t("observer")], http };
        for (side, text) in moves {
            let (status, body) = table.play(table.token(*side), text).await;
            assert_eq!(status, 200, "{text}: {body}");
        }
        table
    }
    fn token(&self, side: Side) -> &str {
        &self.tokens[side.idx()]
    }
    fn url(&self, what: &str, token: &str) -> String {
        format!("{}/api/games/{}/{what}?token={token}", self.base, self.id)
    }
    async fn play(&self, token: &str, text: &str) -> (u16, Value) {
        let r = self.http.post(self.url("moves", token)).body(json!({ "move": text }).to_string()).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }
    async fn get(&self, what: &str, token: &str) -> (u16, Value) {
        let r = self.http.get(self.url(what, token)).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }
    async fn advice(&self, token: &str, text: &str) -> (u16, Value) {
        let r = self.http.get(self.url("advice", token)).query(&[("move", text)]).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }
    async fn connect(&self, addr: std::net::SocketAddr, token: &str) -> Ws {
        tokio_tungstenite::connect_async(format!("ws://{addr}/api/games/{}/ws?token={token}", self.id)).await.unwrap().0
    }
}

/// The next JSON message that is not about presence (10 s at most).
async fn next(ws: &mut Ws) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message within 10 s").expect("open").unwrap();
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["type"] != "presence" {
                return v;
            }
        }
    }
}

/// A position reached by random play where `wanted` holds.
fn reach(wanted: impl Fn(&Game) -> bool) -> arbiter_twilight::playout::Reached {
    arbiter_twilight::playout::random_until(&arbiter_twilight_cards::ruleset(), OPTIONS, 0..400, wanted).expect("found in 400 random games")
}

/// The phasing side's coup in a battleground, open at DEFCON 2 (§8.1.3: it loses the game).
fn losing_coup(g: &Game) -> Option<Move> {
    let st = g.state();
    (st.defcon == 2 && g.to_move() == Some(st.phasing))
        .then(|| g.legal().iter().copied().find(|m| matches!(m, Move::Coup(c) if Map::standard().country(*c).battleground)))
        .flatten()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advice_warns_of_a_losing_coup_and_gives_its_odds_to_the_deciding_seat_only() {
    let r = reach(|g| losing_coup(g).is_some());
    let coup = r.game.move_text(&losing_coup(&r.game).unwrap());
    let side = r.game.to_move().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir).await;
    let t = Table::at(&srv, r.seed, &r.moves).await;
    let (status, a) = t.advice(t.token(side), &coup).await;
    assert_eq!(status, 200, "{a}");
    let warnings = a["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains("drops DEFCON to 1")), "{a}");
    assert!(a["odds"].as_str().unwrap().contains("die"), "{a}");
    // A move without warnings: an empty list.
    let (_, moves) = t.get("moves", t.token(side)).await;
    let safe = moves["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .find(|m| !m.starts_with("coup") && !m.starts_with("realign"))
        .map(String::from);
    if let Some(safe) = safe {
        let (status, a) = t.advice(t.token(side), &safe).await;
        assert_eq!((status, &a["odds"]), (200, &Value::Null), "{safe}: {a}");
    }
    // The other seat, the observer, no token, no move, nonsense: JSON errors, nothing played.
    let (status, e) = t.advice(t.token(side.opponent()), &coup).await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].is_string());
    assert_eq!(t.advice(&t.tokens[2], &coup).await.0, 403);
    assert_eq!(t.advice("0123456789abcdef0123456789abcdef", &coup).await.0, 401);
    let (status, e) = t.get("advice", t.token(side)).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("move"));
    let (status, e) = t.advice(t.token(side), "fly to the moon").await;
    assert_eq!(status, 422);
    assert!(e["error"].as_str().unwrap().contains("cannot read"), "{e}");
    assert_eq!(t.get("state", &t.tokens[2]).await.1["seq"], json!(r.moves.len()), "advice plays nothing");
}
