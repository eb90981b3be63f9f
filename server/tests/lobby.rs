//! The lobby, chat, rematch and replays over HTTP and WebSocket against a real server on a
//! loopback port (API.md: "Lobby", "Chat", "Rematch", "Replays").

use arbiter_server::{start, Config, Running};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

mod common;

/// Whether this binary runs these tests with the games in PostgreSQL (`lobby_postgres.rs`
/// includes this file and says so; here, in a data folder).
#[allow(dead_code)]
const ON_POSTGRES: bool = false;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn server(dir: &tempfile::TempDir) -> Option<Running> {
    server_with(dir, |_| {}).await
}

/// A server on the test's data folder (or database: `None` when PostgreSQL is missing, the
/// test then ends after the skip line).
async fn server_with(dir: &tempfile::TempDir, tune: impl FnOnce(&mut Config)) -> Option<Running> {
    let mut c = Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf());
    if crate::ON_POSTGRES {
        c.store = Some(common::database(dir.path())?);
        c.lease_ttl = common::LEASE_TTL;
    }
    tune(&mut c);
    Some(start(c, arbiter_games::web::offered()).await.unwrap())
}

struct T {
    http: reqwest::Client,
    base: String,
}

impl T {
    fn new(srv: &Running) -> T {
        T { http: reqwest::Client::new(), base: format!("http://{}", srv.addr) }
    }
    async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.http.get(format!("{}{path}", self.base)).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }
    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self.http.post(format!("{}{path}", self.base)).body(body.to_string()).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }
    /// A new game: its answer (id, tokens, links).
    /// The lobby orders games by the time of their latest activity, to the millisecond (ties
    /// by id): each creation here is a few milliseconds after the one before, so that "the
    /// latest first" names one order.
    async fn create(&self, body: Value) -> Value {
        let (status, v) = self.post("/api/games", body).await;
        assert_eq!(status, 201, "{v}");
        tokio::time::sleep(Duration::from_millis(3)).await;
        v
    }
    async fn listed(&self) -> Vec<String> {
        let (status, v) = self.get("/api/games").await;
        assert_eq!(status, 200, "{v}");
        v["games"].as_array().unwrap().iter().map(|g| g["id"].as_str().unwrap().to_string()).collect()
    }
}

fn id(v: &Value) -> String {
    v["id"].as_str().unwrap().to_string()
}

fn seats(listing: &Value) -> Vec<(String, String)> {
    listing["seats"].as_array().unwrap().iter().map(|s| (s["id"].as_str().unwrap().into(), s["status"].as_str().unwrap().into())).collect()
}

async fn connect(srv: &Running, id: &str, token: &str) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/api/games/{id}/ws?token={token}", srv.addr)).await.unwrap();
    ws
}

/// The next message of type `kind` (others skipped), 10 s at most.
async fn next_of(ws: &mut Ws, kind: &str) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("a message within 10 s").expect("open").unwrap();
        if let Message::Text(t) = m {
            let v: Value = serde_json::from_str(&t).unwrap();
            if v["type"] == kind {
                return v;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_lists_open_listed_games_with_public_facts_only() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    // A game with a free seat, an unlisted one, a Minesweeper game.
    let open = t.create(json!({ "seat": "us" })).await;
    let hidden = t.create(json!({ "seat": "us", "listed": false })).await;
    let ms = t.create(json!({ "game": "minesweeper", "width": 5, "height": 5, "mines": 3, "listed": true })).await;
    let list = t.listed().await;
    assert_eq!(list, [id(&ms), id(&open)], "the latest first; the unlisted game is not listed");
    // Its links work, and its facts are had by id.
    let (status, h) = t.get(&format!("/api/games/{}", id(&hidden))).await;
    assert_eq!((status, h["listed"].as_bool()), (200, Some(false)));
    let (status, _) = t.get(&format!("/api/games/{}/state?token={}", id(&hidden), hidden["tokens"]["us"].as_str().unwrap())).await;
    assert_eq!(status, 200);

    let (_, g) = t.get(&format!("/api/games/{}", id(&open))).await;
    assert_eq!((g["game"].as_str(), g["title"].as_str()), (Some("twilight-struggle"), Some("Twilight Struggle")));
    assert_eq!(seats(&g), [("us".into(), "taken".into()), ("ussr".into(), "free".into())]);
    assert_eq!((g["to_move"].as_str(), g["moves"].as_u64(), &g["last_move_at"]), (Some("ussr"), Some(0), &Value::Null));
    assert!(g["created_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(g["options"]["optional_cards"], json!(false), "the options are public");
    // Nothing secret: no token, no seed, no view.
    let text = g.to_string();
    for secret in [open["tokens"]["us"].as_str().unwrap(), open["tokens"]["observer"].as_str().unwrap()] {
        assert!(!text.contains(secret), "a token in {text}");
    }
    for key in ["seed", "token", "hand", "state", "view"] {
        assert!(!text.contains(&format!("\"{key}\"")), "{key} in {text}");
    }

    // A join takes the free seat; a move changes whose turn it is.
    let (status, joined) = t.post(&format!("/api/games/{}/join", id(&open)), json!({})).await;
    assert_eq!(status, 201);
    let (_, g) = t.get(&format!("/api/games/{}", id(&open))).await;
    assert_eq!(seats(&g), [("us".into(), "taken".into()), ("ussr".into(), "taken".into())]);
    let ussr = joined["token"].as_str().unwrap();
    let (_, moves) = t.get(&format!("/api/games/{}/moves?token={ussr}", id(&open))).await;
    let first = moves["moves"][0].as_str().unwrap();
    let (status, _) = t.post(&format!("/api/games/{}/moves?token={ussr}", id(&open)), json!({ "move": first })).await;
    assert_eq!(status, 200);
    let (_, g) = t.get(&format!("/api/games/{}", id(&open))).await;
    assert_eq!(g["moves"].as_u64(), Some(1));
    assert!(g["last_move_at"].is_string());
    let (_, moves) = t.get(&format!("/api/games/{}/moves?token={ussr}", id(&open))).await;
    assert_eq!(g["to_move"], moves["to_move"], "whose turn, as the seats are told");
    assert_eq!(t.listed().await, [id(&open), id(&ms)], "the latest activity first");

    // Pages: `next` is the cursor of the following page.
    let (_, p1) = t.get("/api/games?limit=1").await;
    assert_eq!(p1["games"].as_array().unwrap().len(), 1);
    let next = p1["next"].as_str().unwrap();
    let (_, p2) = t.get(&format!("/api/games?limit=1&before={next}")).await;
    assert_eq!((id(&p2["games"][0]), &p2["next"]), (id(&ms), &Value::Null));
    for bad in ["limit=0", "limit=x", "limit=101"] {
        let (status, e) = t.get(&format!("/api/games?{bad}")).await;
        assert_eq!(status, 400, "{bad}");
        assert!(e["error"].is_string());
    }

    // A finished game leaves the list.
    let (status, _) = t
        .post(&format!("/api/games/{}/moves?token={}", id(&open), open["tokens"]["us"].as_str().unwrap()), json!({ "move": "resign" }))
        .await;
    let (status2, _) = t.post(&format!("/api/games/{}/moves?token={ussr}", id(&open)), json!({ "move": "resign" })).await;
    assert!(status == 200 || status2 == 200, "one of them decides and resigns");
    assert_eq!(t.listed().await, [id(&ms)]);
    let (_, g) = t.get(&format!("/api/games/{}", id(&open))).await;
    assert_eq!((g["to_move"].clone(), g["outcome"]["reason"].as_str()), (Value::Null, Some("Resigned")));
    let (status, _) = t.get("/api/games/0123456789abcdef").await;
    assert_eq!(status, 404);

    // A restarted server reads the same facts from the data folder.
    let Some(again) = server(&dir).await else { return };
    let t2 = T::new(&again);
    assert_eq!(t2.listed().await, [id(&ms)]);
    let (_, h2) = t2.get(&format!("/api/games/{}", id(&hidden))).await;
    assert_eq!(h2, h);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anyone_may_watch_a_listed_game_and_only_its_creator_an_unlisted_one() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let listed = t.create(json!({ "seat": "us" })).await;
    let hidden = t.create(json!({ "seat": "us", "listed": false })).await;
    let (status, w) = t.get(&format!("/api/games/{}/watch", id(&listed))).await;
    assert_eq!(status, 200, "{w}");
    let token = w["token"].as_str().unwrap();
    assert_ne!(token, listed["tokens"]["observer"].as_str().unwrap());
    let (_, again) = t.get(&format!("/api/games/{}/watch", id(&listed))).await;
    assert_eq!(again["token"].as_str(), Some(token), "one public link");
    // It watches: an observer's view, and no move.
    let (status, s) = t.get(&format!("/api/games/{}/moves?token={token}", id(&listed))).await;
    assert_eq!((status, s["yours"].as_bool()), (200, Some(false)));
    let (status, _) = t.post(&format!("/api/games/{}/moves?token={token}", id(&listed)), json!({ "move": "resign" })).await;
    assert_eq!(status, 403);
    let mut ws = connect(&srv, &id(&listed), token).await;
    assert_eq!(next_of(&mut ws, "sync").await["seat"], "observer");
    let (status, e) = t.get(&format!("/api/games/{}/watch", id(&hidden))).await;
    assert_eq!(status, 403);
    assert!(e["error"].as_str().unwrap().contains("unlisted"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_reaches_its_audience_and_is_kept_with_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({})).await;
    let gid = id(&g);
    let tok = |p: &str| g["tokens"][p].as_str().unwrap().to_string();
    let mut us = connect(&srv, &gid, &tok("us")).await;
    let mut ussr = connect(&srv, &gid, &tok("ussr")).await;
    let mut obs = connect(&srv, &gid, &tok("observer")).await;
    for ws in [&mut us, &mut ussr, &mut obs] {
        assert_eq!(next_of(ws, "sync").await["chat"], json!([]));
    }
    // Over the WebSocket, to all: every place hears it, the sender included.
    us.send(Message::Text(json!({ "type": "chat", "text": "good luck <b>all</b>" }).to_string().into())).await.unwrap();
    for ws in [&mut us, &mut ussr, &mut obs] {
        let m = next_of(ws, "chat").await;
        assert_eq!((m["from"].as_str(), m["to"].as_str(), m["text"].as_str()), (Some("us"), Some("all"), Some("good luck <b>all</b>")));
    }
    // Over HTTP, to the seats: the observer never hears it.
    let (status, m) = t.post(&format!("/api/games/{gid}/chat?token={}", tok("ussr")), json!({ "text": "between us", "to": "seats" })).await;
    assert_eq!(status, 201, "{m}");
    assert_eq!(next_of(&mut us, "chat").await["text"], "between us");
    assert_eq!(next_of(&mut ussr, "chat").await["text"], "between us");
    // The observer's next chat message is the one after.
    let (status, _) = t.post(&format!("/api/games/{gid}/chat?token={}", tok("observer")), json!({ "text": "watching" })).await;
    assert_eq!(status, 201);
    assert_eq!(next_of(&mut obs, "chat").await["text"], "watching");
    // Histories, as each place may read them; kept across a restart.
    let texts = |v: &Value| v["messages"].as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let (_, h) = t.get(&format!("/api/games/{gid}/chat?token={}", tok("observer"))).await;
    assert_eq!(texts(&h), ["good luck <b>all</b>", "watching"]);
    let (_, h) = t.get(&format!("/api/games/{gid}/chat?token={}", tok("us"))).await;
    assert_eq!(texts(&h), ["good luck <b>all</b>", "between us", "watching"]);
    drop((us, ussr, obs));
    let Some(again) = server(&dir).await else { return };
    let mut obs = connect(&again, &gid, &tok("observer")).await;
    let sync = next_of(&mut obs, "sync").await;
    assert_eq!(sync["chat"].as_array().unwrap().len(), 2, "the observer's history: {}", sync["chat"]);
    let mut ussr = connect(&again, &gid, &tok("ussr")).await;
    assert_eq!(next_of(&mut ussr, "sync").await["chat"].as_array().unwrap().len(), 3);
    // The chat changes nothing of the game: it replays, and its moves go on.
    let (status, _) = t.get(&format!("/api/games/{gid}/state?token={}", tok("us"))).await;
    assert_eq!(status, 200);

    // Refusals: empty, too long, an observer to the seats, no token, too fast.
    let t2 = T::new(&again);
    let url = |p: &str| format!("/api/games/{gid}/chat?token={}", tok(p));
    for (who, body, status) in [
        ("us", json!({ "text": "  " }), 400),
        ("us", json!({ "text": "x".repeat(501) }), 400),
        ("observer", json!({ "text": "psst", "to": "seats" }), 400),
        ("us", json!({ "text": "hi", "to": "team" }), 400),
    ] {
        let (s, e) = t2.post(&url(who), body.clone()).await;
        assert_eq!(s, status, "{body}: {e}");
        assert!(e["error"].is_string(), "{e}");
    }
    let (s, _) = t2.post(&format!("/api/games/{gid}/chat"), json!({ "text": "hi" })).await;
    assert_eq!(s, 401);
    let mut codes = Vec::new();
    for i in 0..6 {
        codes.push(t2.post(&url("us"), json!({ "text": format!("spam {i}") })).await.0);
    }
    // The US said "good luck" a moment ago (its refused messages count nothing): four more,
    // then too fast.
    assert_eq!(codes, [201, 201, 201, 201, 429, 429], "five in ten seconds, then 429");
    // Over the WebSocket, a refusal is a `rejected` message.
    ussr.send(Message::Text(json!({ "type": "chat", "text": "" }).to_string().into())).await.unwrap();
    assert!(next_of(&mut ussr, "rejected").await["error"].as_str().unwrap().contains("empty"));
    // Read until it comes (10 s at most): the observer's connection forwards it on a task of
    // its own, which a loaded machine may run late (it had 300 ms).
    assert_eq!(next_of(&mut obs, "chat").await["from"], "us", "the spam to all reached the observer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_swaps_the_seats_and_gives_each_player_its_new_link_once() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "optional_cards": true })).await;
    let gid = id(&g);
    let tok = |p: &str| g["tokens"][p].as_str().unwrap().to_string();
    let (status, e) = t.post(&format!("/api/games/{gid}/rematch?token={}", tok("us")), json!({})).await;
    assert_eq!(status, 409, "not over: {e}");
    let mut ussr_ws = connect(&srv, &gid, &tok("ussr")).await;
    next_of(&mut ussr_ws, "sync").await;
    let (status, _) = t.post(&format!("/api/games/{gid}/moves?token={}", tok("ussr")), json!({ "move": "resign" })).await;
    assert_eq!(status, 200);
    let (status, _) = t.post(&format!("/api/games/{gid}/rematch?token={}", tok("observer")), json!({})).await;
    assert_eq!(status, 403, "an observer plays no rematch");

    let (status, us_new) = t.post(&format!("/api/games/{gid}/rematch?token={}", tok("us")), json!({})).await;
    assert_eq!(status, 200, "{us_new}");
    let new_id = id(&us_new);
    assert_ne!(new_id, gid);
    assert_eq!(us_new["seat"], "ussr", "two seats: swapped");
    // The other seat's page hears of it, and gets its own link from the same call.
    assert_eq!(next_of(&mut ussr_ws, "rematch").await["id"].as_str(), Some(new_id.as_str()));
    let (_, ussr_new) = t.post(&format!("/api/games/{gid}/rematch?token={}", tok("ussr")), json!({})).await;
    assert_eq!((id(&ussr_new), ussr_new["seat"].as_str()), (new_id.clone(), Some("us")));
    let (_, again) = t.post(&format!("/api/games/{gid}/rematch?token={}", tok("us")), json!({})).await;
    assert_eq!(again, us_new, "asking again: the same game and link");
    assert_ne!(us_new["token"], ussr_new["token"]);

    // Each new token acts as its seat; the game has the same kind and options, a new seed.
    for (who, v) in [("ussr", &us_new), ("us", &ussr_new)] {
        let (status, m) = t.get(&format!("/api/games/{new_id}/moves?token={}", v["token"].as_str().unwrap())).await;
        assert_eq!(status, 200);
        assert_eq!(m["yours"].as_bool(), Some(who == "ussr"), "the USSR decides first; {who}");
    }
    let (_, listing) = t.get(&format!("/api/games/{new_id}")).await;
    assert_eq!(listing["options"]["optional_cards"], json!(true));
    assert_eq!(seats(&listing), [("us".into(), "taken".into()), ("ussr".into(), "taken".into())], "nobody else may join");
    let (status, _) = t.post(&format!("/api/games/{new_id}/join"), json!({})).await;
    assert_eq!(status, 409);
    // The old tokens are not the new game's.
    let (status, _) = t.get(&format!("/api/games/{new_id}/moves?token={}", tok("us"))).await;
    assert_eq!(status, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_seats_asking_at_once_get_one_rematch_and_another_game_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let mut games = Vec::new();
    for _ in 0..2 {
        let g = t.create(json!({})).await;
        let ussr = g["tokens"]["ussr"].as_str().unwrap();
        let (status, _) = t.post(&format!("/api/games/{}/moves?token={ussr}", id(&g)), json!({ "move": "resign" })).await;
        assert_eq!(status, 200);
        games.push(g);
    }
    let ask = |g: &Value, seat: &str| format!("/api/games/{}/rematch?token={}", id(g), g["tokens"][seat].as_str().unwrap());
    let (a_us, a_ussr, b_us, b_ussr) = (ask(&games[0], "us"), ask(&games[0], "ussr"), ask(&games[1], "us"), ask(&games[1], "ussr"));
    // Every seat of both games at once: each game's two seats meet in one new game.
    let (a1, a2, b1, b2) =
        tokio::join!(t.post(&a_us, json!({})), t.post(&a_ussr, json!({})), t.post(&b_us, json!({})), t.post(&b_ussr, json!({})));
    for (status, v) in [&a1, &a2, &b1, &b2] {
        assert_eq!(*status, 200, "{v}");
    }
    assert_eq!(id(&a1.1), id(&a2.1), "game a's seats got one rematch");
    assert_eq!(id(&b1.1), id(&b2.1), "game b's seats got one rematch");
    assert_ne!(id(&a1.1), id(&b1.1), "each game its own");
    let mut listed = t.listed().await;
    listed.sort();
    let mut made = vec![id(&a1.1), id(&b1.1)];
    made.sort();
    assert_eq!(listed, made, "no other game was made (the finished ones are not listed)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn against_the_computer_the_rematch_swaps_its_side_too() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "computer": "ussr", "level": 1 })).await;
    let gid = id(&g);
    let us = g["tokens"]["us"].as_str().unwrap().to_string();
    // The computer places its setup Influence first; then the US resigns at its first decision.
    let mut ws = connect(&srv, &gid, &us).await;
    loop {
        let m = next_of(&mut ws, "move").await;
        if m["moves"]["yours"] == json!(true) {
            break;
        }
    }
    let (status, e) = t.post(&format!("/api/games/{gid}/moves?token={us}"), json!({ "move": "resign" })).await;
    assert_eq!(status, 200, "{e}");
    let (status, r) = t.post(&format!("/api/games/{gid}/rematch?token={us}"), json!({})).await;
    assert_eq!((status, r["seat"].as_str()), (200, Some("ussr")));
    let (_, listing) = t.get(&format!("/api/games/{}", id(&r))).await;
    assert_eq!(seats(&listing), [("us".into(), "computer".into()), ("ussr".into(), "taken".into())]);
}

/// Play `count` moves, each the deciding seat's first legal move (over HTTP).
async fn play_first_moves(t: &T, g: &Value, count: usize) {
    let gid = id(g);
    for _ in 0..count {
        let (_, obs) = t.get(&format!("/api/games/{gid}/moves?token={}", g["tokens"]["observer"].as_str().unwrap())).await;
        let Some(seat) = obs["to_move"].as_str() else { return };
        let tok = g["tokens"][seat].as_str().unwrap();
        let (_, m) = t.get(&format!("/api/games/{gid}/moves?token={tok}")).await;
        let first = m["moves"][0].as_str().unwrap().to_string();
        let (status, e) = t.post(&format!("/api/games/{gid}/moves?token={tok}"), json!({ "move": first })).await;
        assert_eq!(status, 200, "{first}: {e}");
    }
}

/// The view of `viewer` after move `at` of the saved game, from a fresh replay of its file.
fn fresh_view(dir: &tempfile::TempDir, gid: &str, at: usize, viewer: arbiter_kernel::Viewer) -> Value {
    let s = common::open_game(dir.path(), gid, crate::ON_POSTGRES);
    let kind = s.kind();
    let mut r = arbiter_store::Replay::new(s.header().clone(), s.rows()[..at].to_vec(), kind).unwrap();
    r.run_to(None).unwrap();
    r.game().view(viewer)
}

/// A replay's state without the fields the server adds (`seq`, `game`).
fn bare(state: &Value) -> Value {
    let mut v = state.clone();
    let o = v.as_object_mut().unwrap();
    o.remove("seq");
    o.remove("game");
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_shows_each_position_as_a_fresh_replay_does_and_no_seat_s_secrets_before_the_end() {
    use arbiter_kernel::Seat;
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({})).await;
    let gid = id(&g);
    play_first_moves(&t, &g, 20).await;
    let (status, end) = t.get(&format!("/api/games/{gid}/replay")).await;
    assert_eq!(status, 200, "{end}");
    let total = end["total"].as_u64().unwrap() as usize;
    assert_eq!((total, end["at"].as_u64()), (20, Some(20)), "no `at`: the end");
    assert_eq!(end["views"], json!(["observer"]), "a game going on: the observer's view only");
    for at in [0usize, 1, 7, 13, 20] {
        let (status, r) = t.get(&format!("/api/games/{gid}/replay?at={at}")).await;
        assert_eq!(status, 200);
        assert_eq!((r["at"].as_u64(), r["seat"].as_str()), (Some(at as u64), Some("observer")));
        assert_eq!(bare(&r["state"]), fresh_view(&dir, &gid, at, None), "move {at}");
        assert_ne!(bare(&r["state"]), fresh_view(&dir, &gid, at, Some(Seat(0))), "the US's view differs (its hand)");
        assert_eq!(r["moves"]["moves"], json!([]), "nothing to play in a replay");
        assert_eq!(r["seat_views"], Value::Null, "no seat's view before the end");
        let heads = r["log"].as_array().unwrap().iter().filter(|l| l.as_str().unwrap().starts_with('#')).count();
        assert_eq!(heads, at, "the log up to move {at}");
    }
    assert_eq!(end["turns"][0], json!({ "turn": 1, "at": 0 }), "the game's view names its turns: where each begins");
    let (status, e) = t.get(&format!("/api/games/{gid}/replay?at=x")).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].is_string());
    let (_, past) = t.get(&format!("/api/games/{gid}/replay?at=999")).await;
    assert_eq!(past["at"].as_u64(), Some(20));
    // A seat's view before the end: only with that seat's token.
    let (status, e) = t.get(&format!("/api/games/{gid}/replay?at=5&as=us")).await;
    assert_eq!(status, 403, "{e}");
    let (status, _) = t.get(&format!("/api/games/{gid}/replay?at=5&as=us&token={}", g["tokens"]["ussr"].as_str().unwrap())).await;
    assert_eq!(status, 403);
    let (status, own) = t.get(&format!("/api/games/{gid}/replay?at=5&token={}", g["tokens"]["us"].as_str().unwrap())).await;
    assert_eq!((status, own["seat"].as_str()), (200, Some("us")), "a seat's token: its own view");
    assert_eq!(bare(&own["state"]), fresh_view(&dir, &gid, 5, Some(Seat(0))));
    let (status, _) = t.get(&format!("/api/games/{gid}/replay?token=0123")).await;
    assert_eq!(status, 401);

    // Over: every seat's view, for anyone.
    let (_, obs) = t.get(&format!("/api/games/{gid}/moves?token={}", g["tokens"]["observer"].as_str().unwrap())).await;
    let decider = obs["to_move"].as_str().unwrap();
    let (status, _) =
        t.post(&format!("/api/games/{gid}/moves?token={}", g["tokens"][decider].as_str().unwrap()), json!({ "move": "resign" })).await;
    assert_eq!(status, 200);
    let (_, end) = t.get(&format!("/api/games/{gid}/replay?at=10&as=ussr")).await;
    assert_eq!(end["views"], json!(["us", "ussr", "observer"]));
    assert_eq!(bare(&end["state"]), fresh_view(&dir, &gid, 10, Some(Seat(1))));
    // Both hands at once: every seat's view of the position.
    assert_eq!(end["seat_views"]["us"], fresh_view(&dir, &gid, 10, Some(Seat(0))));
    assert_eq!(end["seat_views"]["ussr"], fresh_view(&dir, &gid, 10, Some(Seat(1))));
    let (status, e) = t.get(&format!("/api/games/{gid}/replay?as=nobody")).await;
    assert_eq!(status, 400, "{e}");
    // The page serves the game's client.
    let r = t.http.get(format!("{}/replay/{gid}?at=3", t.base)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("/static/arbiter.js"));
}

/// A game of one seat has nobody to join it: it is left out of the list unless its creator asks
/// for it; a game of several seats is listed unless asked not to be.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_of_one_seat_is_unlisted_unless_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let alone = t.create(json!({ "game": "minesweeper" })).await;
    let shown = t.create(json!({ "game": "minesweeper", "listed": true })).await;
    let two = t.create(json!({ "seat": "us" })).await;
    let (_, l) = t.get(&format!("/api/games/{}", id(&alone))).await;
    assert_eq!(l["listed"], json!(false), "{l}");
    let (_, l) = t.get(&format!("/api/games/{}", id(&shown))).await;
    assert_eq!(l["listed"], json!(true), "{l}");
    assert_eq!(t.listed().await, [id(&two), id(&shown)], "the latest first; the one-seat game asked for alone");
    // Unlisted, it is still played and watched by its links.
    let (status, _) = t.get(&format!("/api/games/{}/state?token={}", id(&alone), alone["tokens"]["observer"].as_str().unwrap())).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unlisted_game_s_replay_needs_a_token_of_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "game": "minesweeper", "listed": false })).await;
    let (status, e) = t.get(&format!("/api/games/{}/replay", id(&g))).await;
    assert_eq!(status, 401, "{e}");
    let (status, r) = t.get(&format!("/api/games/{}/replay?token={}", id(&g), g["tokens"]["observer"].as_str().unwrap())).await;
    assert_eq!((status, r["total"].as_u64()), (200, Some(0)));
    assert_eq!(r["turns"], json!([]), "a game whose view names no turn");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_nobody_joined_stays_free_in_the_rematch() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    // The creator takes the USSR, the US is never joined; the USSR resigns at its first decision.
    let g = t.create(json!({ "seat": "ussr" })).await;
    let ussr = g["tokens"]["ussr"].as_str().unwrap();
    let (status, _) = t.post(&format!("/api/games/{}/moves?token={ussr}", id(&g)), json!({ "move": "resign" })).await;
    assert_eq!(status, 200);
    let (_, r) = t.post(&format!("/api/games/{}/rematch?token={ussr}", id(&g)), json!({})).await;
    assert_eq!(r["seat"], "us");
    let (_, listing) = t.get(&format!("/api/games/{}", id(&r))).await;
    assert_eq!(seats(&listing), [("us".into(), "taken".into()), ("ussr".into(), "free".into())]);
    assert!(t.listed().await.contains(&id(&r)), "listed, as the game it follows");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_game_leaves_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server_with(&dir, |c| c.abandon_after = Duration::from_millis(800)).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "game": "minesweeper", "listed": true })).await;
    let mut ws = connect(&srv, &id(&g), g["tokens"]["player"].as_str().unwrap()).await;
    next_of(&mut ws, "sync").await;
    assert_eq!(t.listed().await, [id(&g)]);
    drop(ws);
    let started = std::time::Instant::now();
    while t.listed().await.contains(&id(&g)) {
        assert!(started.elapsed() < Duration::from_secs(8), "still listed after {:?}", started.elapsed());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, l) = t.get(&format!("/api/games/{}", id(&g))).await;
    assert!(l["abandoned"].is_string(), "{l}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rematch_counts_as_a_new_game_against_the_creation_limit() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server_with(&dir, |c| c.games_per_address = 1).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "seat": "ussr" })).await;
    let ussr = g["tokens"]["ussr"].as_str().unwrap();
    let (status, _) = t.post(&format!("/api/games/{}/moves?token={ussr}", id(&g)), json!({ "move": "resign" })).await;
    assert_eq!(status, 200);
    let (status, e) = t.post(&format!("/api/games/{}/rematch?token={ussr}", id(&g)), json!({})).await;
    assert_eq!(status, 429, "{e}");
    assert!(e["error"].as_str().unwrap().contains("rematch"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_s_chat_holds_at_most_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "game": "minesweeper" })).await;
    // Filled to the limit through the store (the rate would take hours through the API).
    let s = common::open_game(dir.path(), &id(&g), crate::ON_POSTGRES);
    tokio::task::block_in_place(|| {
        for i in 0..arbiter_server::chat::MAX_MESSAGES {
            s.store().add_chat("player", "all", &format!("m{i}")).unwrap();
        }
    });
    let (status, e) = t
        .post(&format!("/api/games/{}/chat?token={}", id(&g), g["tokens"]["player"].as_str().unwrap()), json!({ "text": "one more" }))
        .await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("full"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_observers_write_only_their_share_of_the_chat() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "game": "minesweeper", "listed": true })).await;
    let gid = id(&g);
    // Anyone may watch a listed game, and every watcher is the one observer place.
    let (status, w) = t.get(&format!("/api/games/{gid}/watch")).await;
    assert_eq!(status, 200, "{w}");
    let watcher = w["token"].as_str().unwrap().to_string();
    let s = common::open_game(dir.path(), &gid, crate::ON_POSTGRES);
    tokio::task::block_in_place(|| {
        for i in 0..arbiter_server::chat::MAX_OBSERVER_MESSAGES - 1 {
            s.store().add_chat("observer", "all", &format!("m{i}")).unwrap();
        }
    });
    let url = |token: &str| format!("/api/games/{gid}/chat?token={token}");
    let (status, e) = t.post(&url(&watcher), json!({ "text": "the last of our share" })).await;
    assert_eq!(status, 201, "{e}");
    let (status, e) = t.post(&url(&watcher), json!({ "text": "one more" })).await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap().contains("share"), "{e}");
    // The player still speaks.
    let (status, e) = t.post(&url(g["tokens"]["player"].as_str().unwrap()), json!({ "text": "still mine" })).await;
    assert_eq!(status, 201, "{e}");
}

/// A message sent through a copy of the game being unloaded would be stored and reach nobody
/// live: that copy refuses it (the sender reconnects to the game loaded again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retired_copy_of_a_game_takes_no_chat() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "game": "minesweeper" })).await;
    let gid = id(&g);
    let old = srv.hub.room(&gid).await.unwrap();
    srv.hub.unload_if_unused(&old).await;
    let e =
        arbiter_server::chat::post(&old, arbiter_server::seats::Place::Observer, "hello", arbiter_server::chat::Audience::All).unwrap_err();
    assert!(matches!(e, arbiter_server::chat::ChatError::Unloaded), "{}", e.message());
    let (status, v) =
        t.post(&format!("/api/games/{gid}/chat?token={}", g["tokens"]["player"].as_str().unwrap()), json!({ "text": "hello" })).await;
    assert_eq!(status, 201, "the loaded copy takes it: {v}");
}

/// A game of N seats in the lobby: Mafia for seven, the creator in one seat; the lobby lists all
/// seven, free or taken; `join` takes the first free seat, or the one named, until the game is
/// full; nothing of the roles is listed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_lobby_lists_the_free_seats_of_a_game_of_seven() {
    let dir = tempfile::tempdir().unwrap();
    let Some(srv) = server(&dir).await else { return };
    let t = T::new(&srv);
    let g = t.create(json!({ "game": "mafia", "options": { "seats": 7 }, "seat": "player-3" })).await;
    assert!(t.listed().await.contains(&id(&g)), "a game of several seats is listed");
    let path = format!("/api/games/{}", id(&g));
    let status_of = |free: &[usize]| -> Vec<(String, String)> {
        (1..=7).map(|n| (format!("player-{n}"), if free.contains(&n) { "free" } else { "taken" }.to_string())).collect()
    };
    let (_, listing) = t.get(&path).await;
    assert_eq!(seats(&listing), status_of(&[1, 2, 4, 5, 6, 7]), "{listing}");
    let (status, joined) = t.post(&format!("{path}/join"), json!({})).await;
    assert_eq!((status, joined["seat"].as_str()), (201, Some("player-1")), "{joined}");
    let (status, joined) = t.post(&format!("{path}/join"), json!({ "seat": "player-7" })).await;
    assert_eq!((status, joined["seat"].as_str()), (201, Some("player-7")), "{joined}");
    let (status, e) = t.post(&format!("{path}/join"), json!({ "seat": "player-7" })).await;
    assert_eq!(status, 409, "{e}");
    let (status, e) = t.post(&format!("{path}/join"), json!({ "seat": "player-8" })).await;
    assert_eq!(status, 422, "a seat the game does not have: {e}");
    let (_, listing) = t.get(&path).await;
    assert_eq!(seats(&listing), status_of(&[2, 4, 5, 6]), "{listing}");
    for _ in 0..4 {
        let (status, _) = t.post(&format!("{path}/join"), json!({})).await;
        assert_eq!(status, 201);
    }
    let (status, e) = t.post(&format!("{path}/join"), json!({})).await;
    assert_eq!(status, 409, "{e}");
    assert!(e["error"].as_str().unwrap_or_default().contains("game full"), "{e}");
    let (_, listing) = t.get(&path).await;
    assert_eq!(seats(&listing), status_of(&[]), "{listing}");
    let text = listing.to_string().to_lowercase();
    for role in ["mafioso", "doctor", "\"cop\"", "roleblocker", "villager"] {
        assert!(!text.contains(role), "{role} in {text}");
    }
}
