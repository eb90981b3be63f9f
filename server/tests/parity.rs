//! The browser at parity with the table, on the server's side: advice before a move
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
        Table::made(srv, json!({ "seed": seed, "optional_cards": true }), moves).await
    }
    /// A game made with `creation` (its seed, options, clock) and played to `moves`.
    async fn made(srv: &Running, creation: Value, moves: &[(Side, String)]) -> Table {
        let base = format!("http://{}", srv.addr);
        let http = reqwest::Client::new();
        let r = http.post(format!("{base}/api/games")).body(creation.to_string()).send().await.unwrap();
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

async fn post_undo(t: &Table, token: &str) -> (u16, Value) {
    let r = t.http.post(t.url("undo", token)).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

/// The next message of type `kind` (others skipped: presence, the moves before).
async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let v = next(ws).await;
        if v["type"] == kind {
            return v;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_takes_back_its_own_move_and_every_page_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir).await;
    let t = Table::at(&srv, 11, &[]).await;
    let (us, ussr, observer) = (t.tokens[0].clone(), t.tokens[1].clone(), t.tokens[2].clone());
    let mut ws: Vec<Ws> = Vec::new();
    for token in [&us, &ussr, &observer] {
        let mut c = t.connect(srv.addr, token).await;
        assert_eq!(next_of(&mut c, "sync").await["state"]["seq"], json!(0));
        ws.push(c);
    }
    // Nothing to take back yet.
    let (status, e) = post_undo(&t, &ussr).await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("nothing to undo"), "{e}");
    // The USSR places its first Influence (§3.0: the USSR sets up first); it decides still.
    let (_, m) = t.get("moves", &ussr).await;
    let first = m["moves"][0].as_str().unwrap().to_string();
    assert_eq!(t.play(&ussr, &first).await.0, 200);
    for c in ws.iter_mut() {
        assert_eq!(next_of(c, "move").await["seq"], json!(1));
    }
    assert_eq!(t.get("moves", &ussr).await.1["undo"], json!(true));
    assert_eq!(t.get("moves", &us).await.1["undo"], json!(false), "not the US's move, nor its decision");
    assert_eq!(t.get("moves", &observer).await.1["undo"], json!(false));
    // Another seat, the observer: refused with the reason; nothing changed.
    let (status, e) = post_undo(&t, &us).await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("USSR's decision"), "{e}");
    assert_eq!(post_undo(&t, &observer).await.0, 403);
    assert_eq!(post_undo(&t, "0123456789abcdef0123456789abcdef").await.0, 401);
    // The USSR takes it back over HTTP: every place is sent the game as it is now, and a line.
    let (status, r) = post_undo(&t, &ussr).await;
    assert_eq!((status, &r), (200, &json!({ "seq": 0, "undone": first })));
    for (i, c) in ws.iter_mut().enumerate() {
        let u = next_of(c, "undo").await;
        assert_eq!(u["seq"], json!(0));
        assert_eq!(u["state"]["seq"], json!(0));
        assert_eq!(u["undone"], json!({ "seq": 1, "side": "ussr", "text": first }));
        assert_eq!(u["line"], json!(format!("The USSR took back its move #1: {first}")), "place {i}");
        assert_eq!(u["log"].as_array().unwrap().iter().filter(|l| l.as_str().unwrap().starts_with("#1 ")).count(), 0, "the row is gone");
        assert_eq!(u["moves"]["undo"], json!(false));
    }
    let lines = t.get("log", &us).await.1["lines"].clone();
    assert!(!lines.as_array().unwrap().iter().any(|l| l.as_str().unwrap().starts_with("#1 ")), "{lines}");
    // The next move is move 1 again, and every connection hears it (not skipped as seen).
    let (_, m) = t.get("moves", &ussr).await;
    let again = m["moves"][1].as_str().unwrap().to_string();
    assert_eq!(t.play(&ussr, &again).await.0, 200);
    for c in ws.iter_mut() {
        let v = next_of(c, "move").await;
        assert_eq!((v["seq"].clone(), v["text"].clone()), (json!(1), json!(again)));
    }
    // Over the WebSocket: {"type":"undo"}; refused ones come back as `rejected`.
    ws[0].send(Message::Text(json!({ "type": "undo" }).to_string().into())).await.unwrap();
    let r = next_of(&mut ws[0], "rejected").await;
    assert!(r["error"].as_str().unwrap().contains("USSR's decision"), "{r}");
    ws[1].send(Message::Text(json!({ "type": "undo" }).to_string().into())).await.unwrap();
    for c in ws.iter_mut() {
        let u = next_of(c, "undo").await;
        assert_eq!((u["seq"].clone(), u["undone"]["text"].clone()), (json!(0), json!(again)));
    }
    // The USSR finishes its setup; then the US decides, and the USSR's moves are not its own.
    loop {
        let (_, m) = t.get("moves", &ussr).await;
        if m["yours"] != json!(true) {
            break;
        }
        assert_eq!(t.play(&ussr, m["moves"][0].as_str().unwrap()).await.0, 200);
    }
    assert_eq!(t.get("moves", &us).await.1["yours"], json!(true));
    let (status, e) = post_undo(&t, &us).await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("the last move was the USSR's"), "{e}");
    let (status, _) = post_undo(&t, &ussr).await;
    assert_eq!(status, 409, "the other side has the decision: the USSR's move stands");
}

/// A move that revealed something (an opened cell) cannot be taken back; a flag can. The
/// server's undo is the game's, whatever the game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_stops_at_a_reveal_in_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let v: Value =
        http.post(format!("{base}/api/games")).body(r#"{"game":"minesweeper","seed":5}"#).send().await.unwrap().json().await.unwrap();
    let t = Table {
        base,
        id: v["id"].as_str().unwrap().into(),
        tokens: [v["tokens"]["player"].as_str().unwrap().into(), String::new(), v["tokens"]["observer"].as_str().unwrap().into()],
        http,
    };
    let player = t.tokens[0].clone();
    assert_eq!(t.play(&player, "flag a1").await.0, 200);
    assert_eq!(t.get("moves", &player).await.1["undo"], json!(true));
    assert_eq!(post_undo(&t, &player).await, (200, json!({ "seq": 0, "undone": "flag a1" })));
    let (status, body) = t.play(&player, "open e5").await;
    assert_eq!(status, 200, "{body}");
    assert!(!t.get("moves", &player).await.1["to_move"].is_null(), "the first cell opened does not end the game");
    assert_eq!(t.get("moves", &player).await.1["undo"], json!(false));
    let (status, e) = post_undo(&t, &player).await;
    assert_eq!(status, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("revealed"), "{e}");
}

/// Against the computer: the player's undo never races its answer. Undo is open only at the
/// player's own decision, when the computer is not thinking; once the decision passed to the
/// computer, the player's move stands, and the computer's moves are never the player's to undo.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn undo_against_the_computer_is_the_players_own_decision_only() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir).await;
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let body = json!({ "seed": 3, "computer": "ussr", "level": 1 });
    let v: Value = http.post(format!("{base}/api/games")).body(body.to_string()).send().await.unwrap().json().await.unwrap();
    let t = Table {
        base,
        id: v["id"].as_str().unwrap().into(),
        tokens: [v["tokens"]["us"].as_str().unwrap().into(), String::new(), v["tokens"]["observer"].as_str().unwrap().into()],
        http,
    };
    let us = t.tokens[0].clone();
    let mut watch = t.connect(srv.addr, &us).await;
    next_of(&mut watch, "sync").await;
    // The computer sets up first (the USSR); then the US decides.
    let mine = || async {
        for _ in 0..200 {
            let (_, m) = t.get("moves", &us).await;
            if m["yours"] == json!(true) {
                return m;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the US never decided");
    };
    let m = mine().await;
    let (status, e) = post_undo(&t, &us).await;
    assert_eq!(status, 422, "the computer's moves are not the US's: {e}");
    let first = m["moves"][0].as_str().unwrap().to_string();
    let (_, played) = t.play(&us, &first).await;
    let seq = played["seq"].as_u64().unwrap();
    assert_eq!(post_undo(&t, &us).await, (200, json!({ "seq": seq - 1, "undone": first })));
    // The US places the rest of its Influence; its last placement hands the decision over.
    loop {
        let (_, m) = t.get("moves", &us).await;
        if m["yours"] != json!(true) {
            break;
        }
        assert_eq!(t.play(&us, m["moves"][0].as_str().unwrap()).await.0, 200);
    }
    let (status, e) = post_undo(&t, &us).await;
    assert!(status == 409 || status == 422, "the computer decides or has decided: {status} {e}");
    let m = mine().await;
    assert_eq!(m["undo"], json!(false), "{m}");
    let (status, _) = post_undo(&t, &us).await;
    assert_eq!(status, 422, "the last move is the computer's");
}

/// A webhook endpoint on a loopback port: its URL, and the bodies it received.
async fn webhook_endpoint() -> (String, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    use axum::extract::State;
    type Got = std::sync::Arc<std::sync::Mutex<Vec<Value>>>;
    async fn receive(State(got): State<Got>, body: String) -> &'static str {
        got.lock().unwrap().push(serde_json::from_str(&body).unwrap_or(Value::Null));
        "ok"
    }
    let got: Got = Default::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().route("/hook", axum::routing::post(receive)).with_state(got.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), got)
}

/// Against the computer (the USSR, which headlines first): nothing the US's seat is sent, over
/// its WebSocket, in the answers to its requests, in its replay of the game or in its webhook's
/// calls, names the computer's headline card before both headlines are revealed; the
/// computer's headline move reads as the game hides it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn against_the_computer_its_headline_is_never_sent_to_the_player_before_the_reveal() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf());
    c.webhook_private = true;
    // The US's replay is read at every step below.
    c.replays_per_address = 1_000_000;
    let srv = start(c, arbiter_games::web::offered()).await.unwrap();
    let base = format!("http://{}", srv.addr);
    let http = reqwest::Client::new();
    let body = json!({ "seed": 5, "computer": "ussr", "level": 1 });
    let v: Value = http.post(format!("{base}/api/games")).body(body.to_string()).send().await.unwrap().json().await.unwrap();
    let t = Table {
        base,
        id: v["id"].as_str().unwrap().into(),
        tokens: [v["tokens"]["us"].as_str().unwrap().into(), String::new(), String::new()],
        http,
    };
    let us = t.tokens[0].clone();
    let (hook, calls) = webhook_endpoint().await;
    let r = t.http.put(t.url("webhook", &us)).body(json!({ "url": hook }).to_string()).send().await.unwrap();
    assert_eq!(r.status(), 200);
    // Everything the US's seat is sent, in the order it arrives.
    let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let mut ws = t.connect(srv.addr, &us).await;
    let heard = shown.clone();
    let listener = tokio::spawn(async move {
        while let Some(Ok(m)) = ws.next().await {
            if let Message::Text(text) = m {
                heard.lock().unwrap().push(text.to_string());
            }
        }
    });
    for _ in 0..4000 {
        let (_, m) = t.get("moves", &us).await;
        let (_, state) = t.get("state", &us).await;
        if state["turn"].as_u64().unwrap_or(0) >= 3 || !state["outcome"].is_null() {
            break;
        }
        // The US's replay of the game so far: its own view at the last move.
        let (status, replay) = t.get("replay", &us).await;
        assert_eq!(status, 200, "{replay}");
        shown.lock().unwrap().extend([m.to_string(), state.to_string(), replay.to_string()]);
        match m["moves"][0].as_str().filter(|_| m["yours"] == json!(true)) {
            Some(first) => {
                let (status, played) = t.play(&us, first).await;
                assert_eq!(status, 200, "{first}: {played}");
                shown.lock().unwrap().push(played.to_string());
            }
            None => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    listener.abort();
    let shown = shown.lock().unwrap().clone();
    let mut from = 0;
    let mut checked = 0;
    while let Some(at) =
        shown[from..].iter().position(|s| s.contains(r#""side":"ussr""#) && s.contains(r#""text":"headline"#)).map(|i| from + i)
    {
        let move_message: Value = serde_json::from_str(&shown[at]).unwrap();
        assert_eq!(move_message["text"], "headline (a secret choice until both headlines are revealed)", "{move_message}");
        // The move that reveals them, as its message or its answer tells it (a replay's whole
        // log holds the reveals of the turns before).
        let reveals = |s: &String| {
            let v: Value = serde_json::from_str(s).unwrap_or(Value::Null);
            v["total"].is_null()
                && v["log"].as_array().is_some_and(|l| l.iter().any(|l| l.as_str().is_some_and(|l| l.starts_with("Headlines revealed: "))))
        };
        let Some(reveal) = shown[at..].iter().position(reveals).map(|i| at + i) else { break };
        let line = &shown[reveal][shown[reveal].find("Headlines revealed: ").unwrap()..];
        let card = line.split(", USSR ").nth(1).and_then(|rest| rest.split('"').next()).expect("the USSR's headline named at the reveal");
        for s in &shown[at..reveal] {
            assert!(!s.contains(card), "{card} was sent to the US before the reveal: {s}");
        }
        checked += 1;
        from = reveal + 1;
    }
    assert!(checked >= 2, "the computer's headlines of turns 1 and 2 were checked: {checked}");

    // The webhook's calls: each as of its move (`seq`); none between the computer's headline
    // and the reveal names the card, and the headline reads hidden as its last move.
    let (_, log) = t.get("log", &us).await;
    let (mut heading, mut chosen, mut secrets, mut headlines) = (0, None, Vec::new(), Vec::new());
    for line in log["lines"].as_array().unwrap().iter().filter_map(Value::as_str) {
        if let Some(rest) = line.strip_prefix('#') {
            heading = rest.split(' ').next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(heading);
            if let Some(card) = rest.split_once(" USSR: headline ").map(|(_, c)| c.trim_matches('"').to_string()) {
                // The last turn's may be still a secret: its move is known, not its card.
                headlines.push(heading);
                chosen = Some((heading, card));
            }
        } else if line.starts_with("Headlines revealed: ") {
            if let Some((at, card)) = chosen.take() {
                secrets.push((at, heading, card));
            }
        }
    }
    assert!(secrets.len() >= 2, "the computer's headlines in the log: {secrets:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let calls = calls.lock().unwrap().clone();
    assert!(calls.len() >= 4, "the US's webhook was called as it came to decide: {calls:?}");
    for call in &calls {
        let seq = call["seq"].as_u64().unwrap();
        for (at, revealed, card) in &secrets {
            if (*at..*revealed).contains(&seq) {
                assert!(!call.to_string().contains(card.as_str()), "{card} in a webhook call before the reveal: {call}");
            }
        }
        if let Some(last) = call["last_move"].as_str().filter(|l| l.starts_with("headline")) {
            assert!(headlines.contains(&seq), "the computer's headline is the last move of call {call}: {headlines:?}");
            assert_eq!(last, "headline (a secret choice until both headlines are revealed)", "{call}");
        }
    }
}

/// At the USSR's headline the US chooses its own at the same time (a simultaneous step of both
/// seats): a US headline of a card it does not hold is refused with the game's reason (422), not
/// as out of turn; so is a move of another kind, with the rule that allows only a headline now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_headline_chosen_at_the_same_time_gets_the_game_s_reason() {
    let r = reach(|g| g.to_move() == Some(Side::Ussr) && g.acting().contains(&Side::Us));
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir).await;
    let t = Table::at(&srv, r.seed, &r.moves).await;
    let theirs = r.game.state().hand(Side::Ussr).iter().next().expect("a USSR card");
    let name = r.game.rules().cards.name(theirs).to_string();
    let (status, e) = t.play(t.token(Side::Us), &format!("headline {name:?}")).await;
    assert_eq!(status, 422, "{e}");
    let reason = e["error"].as_str().unwrap_or_default();
    assert!(!reason.contains("decision") && reason.contains(&name), "the game's reason: {e}");
    let (status, e) = t.play(t.token(Side::Us), "influence Italy").await;
    assert_eq!(status, 422, "{e}");
    let reason = e["error"].as_str().unwrap_or_default();
    assert!(
        reason.contains("cannot influence Italy") && reason.contains("headline") && e["rule"].as_str().is_some_and(|r| r.contains("§4.5")),
        "the game's reason: {e}"
    );
}

/// The chess clock at a simultaneous step runs for every seat that must act: at the headlines
/// both sides' time runs; once the USSR has chosen, only the US's, until it runs out and the
/// US loses on time (its timeout move, stored as its move).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_runs_for_both_sides_at_the_headlines() {
    let r = reach(|g| g.to_move() == Some(Side::Ussr) && g.acting().contains(&Side::Us));
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir).await;
    let creation = json!({ "seed": r.seed, "optional_cards": true, "clock_seconds": 5 });
    let t = Table::made(&srv, creation, &r.moves).await;
    let observer = t.tokens[2].clone();
    let clock = || async { t.get("state", &observer).await.1["clock"].clone() };
    let first = clock().await;
    assert_eq!(first["running_seats"], json!(["ussr", "us"]), "both sides choose at once: {first}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let later = clock().await;
    for side in ["us", "ussr"] {
        let spent = first["left_ms"][side].as_i64().unwrap() - later["left_ms"][side].as_i64().unwrap();
        assert!(spent >= 300, "the {side}'s time runs at the step ({spent} ms of 300): {first} then {later}");
    }
    let ussr_card = r.game.state().hand(Side::Ussr).iter().find(|c| !r.game.rules().cards.info(*c).no_headline).unwrap();
    let text = format!("headline {:?}", r.game.rules().cards.name(ussr_card));
    let (status, body) = t.play(t.token(Side::Ussr), &text).await;
    assert_eq!(status, 200, "{body}");
    let after = clock().await;
    assert_eq!(after["running_seats"], json!(["us"]), "only the US still to choose: {after}");
    // The US's time runs out: it loses on time.
    let over = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            let (_, st) = t.get("state", &observer).await;
            if !st["outcome"].is_null() {
                return st;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("the US's flag falls within 15 s");
    assert_eq!(over["outcome"]["winner"], "ussr", "{over}");
    assert_eq!(over["outcome"]["reason"], "Time", "{over}");
    assert_eq!(over["clock"]["left_ms"]["us"], 0, "{over}");
}
