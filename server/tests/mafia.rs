//! A game of N seats acting at once over the network: Mafia for six, every seat on its own
//! WebSocket, played to its end through the HTTP API (each seat making its move of each night
//! and day, the seats after the first finding theirs under `simultaneous`), and every message
//! each seat received checked for secrets it may not hold before the game reveals them: another
//! player's role, a night choice, what only the Cop, the Doctor or the Roleblocker is told.

use futures_util::StreamExt;
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn call(http: &reqwest::Client, method: reqwest::Method, url: String, body: Option<Value>) -> (u16, Value) {
    let mut req = http.request(method, &url);
    if let Some(b) = body {
        req = req.body(b.to_string());
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, serde_json::from_str(&r.text().await.unwrap()).unwrap_or(Value::Null))
}

/// A server on `dir` offering every game, its base URL and a client.
async fn server(dir: &tempfile::TempDir) -> (arbiter_server::Running, String, reqwest::Client) {
    let srv = arbiter_server::start(
        arbiter_server::Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf()),
        arbiter_games::web::offered(),
    )
    .await
    .unwrap();
    let base = format!("http://{}", srv.addr);
    (srv, base, reqwest::Client::new())
}

/// Every message that has arrived on `ws` (waiting a little for the last ones).
async fn drain(ws: &mut Ws, into: &mut Vec<Value>) {
    while let Ok(Some(Ok(m))) = tokio::time::timeout(Duration::from_millis(150), ws.next()).await {
        if let Message::Text(t) = m {
            into.push(serde_json::from_str(&t).unwrap());
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn six_players_play_mafia_over_the_network_and_no_seat_hears_another_s_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (srv, base, http) = server(&dir).await;
    let (_, kinds) = call(&http, reqwest::Method::GET, format!("{base}/api/kinds"), None).await;
    let mafia = kinds["games"].as_array().unwrap().iter().find(|k| k["id"] == "mafia").expect("the server offers Mafia").clone();
    assert_eq!((mafia["shape"]["seats"]["min"].as_u64(), mafia["shape"]["seats"]["max"].as_u64()), (Some(5), Some(15)), "{mafia}");
    let (status, e) =
        call(&http, reqwest::Method::POST, format!("{base}/api/games"), Some(json!({ "game": "mafia", "options": { "seats": 16 } }))).await;
    assert_eq!(status, 400, "{e}");
    assert!(e["error"].as_str().unwrap_or_default().contains("5 to 15"), "{e}");

    for seed in [1u64, 2, 3] {
        let (status, g) = call(
            &http,
            reqwest::Method::POST,
            format!("{base}/api/games"),
            Some(json!({ "game": "mafia", "seed": seed, "options": { "seats": 6 } })),
        )
        .await;
        assert_eq!(status, 201, "{g}");
        let id = g["id"].as_str().unwrap().to_string();
        let seats: Vec<String> = (1..=6).map(|n| format!("player-{n}")).collect();
        let token = |s: &str| g["tokens"][s].as_str().unwrap_or_else(|| panic!("a token for {s}: {g}")).to_string();
        let mut sockets = Vec::new();
        for s in &seats {
            let (ws, _) =
                tokio_tungstenite::connect_async(format!("ws://{}/api/games/{id}/ws?token={}", srv.addr, token(s))).await.unwrap();
            sockets.push(ws);
        }
        let mut heard: Vec<Vec<Value>> = vec![Vec::new(); 6];
        let moves_url = |s: &str| format!("{base}/api/games/{id}/moves?token={}", token(s));
        let mut made = 0;
        'game: loop {
            let (_, observer) =
                call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/moves?token={}", token("observer")), None).await;
            if !observer["outcome"].is_null() {
                break;
            }
            let acting: Vec<String> = observer["acting"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
            assert!(!acting.is_empty(), "{observer}");
            for (k, s) in acting.iter().enumerate() {
                let (_, m) = call(&http, reqwest::Method::GET, moves_url(s), None).await;
                // The seat deciding first reads its moves as `moves`, the others theirs under
                // `simultaneous`.
                assert_eq!(m["yours"].as_bool(), Some(m["to_move"] == s.as_str()), "{m}");
                let list = if m["yours"] == true { &m["moves"] } else { &m["simultaneous"]["moves"] };
                let list = list.as_array().unwrap_or_else(|| panic!("{s}'s moves: {m}"));
                assert!(!list.is_empty(), "{s} must act: {m}");
                // An action where there is one (a night passed asleep makes the game no shorter).
                let acts: Vec<&Value> = list.iter().filter(|m| *m != "sleep").collect();
                let acts = if acts.is_empty() { list.iter().collect() } else { acts };
                let mv = acts[(made * 7 + k) % acts.len()].as_str().unwrap().to_string();
                let (status, r) = call(&http, reqwest::Method::POST, moves_url(s), Some(json!({ "move": mv }))).await;
                assert_eq!(status, 200, "{s}: {mv}: {r}");
                made += 1;
                assert!(made < 400, "the game ends");
                // A move of a seat that has acted already is refused with the game's reason.
                if k == 0 && acting.len() > 1 {
                    let (status, r) = call(&http, reqwest::Method::POST, moves_url(s), Some(json!({ "move": mv }))).await;
                    assert!(status == 409 || status == 422, "{s} again: {r}");
                }
                let (_, now) =
                    call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/moves?token={}", token("observer")), None).await;
                if !now["outcome"].is_null() {
                    break 'game;
                }
            }
            for (ws, h) in sockets.iter_mut().zip(heard.iter_mut()) {
                drain(ws, h).await;
            }
        }
        for (ws, h) in sockets.iter_mut().zip(heard.iter_mut()) {
            drain(ws, h).await;
        }
        // The roles, revealed at the end.
        let (_, end) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/state?token={}", token("observer")), None).await;
        let roles: Vec<String> = end["players"].as_array().unwrap().iter().map(|p| p["role"].as_str().unwrap().to_string()).collect();
        let results = &call(&http, reqwest::Method::GET, moves_url("player-1"), None).await.1["outcome"]["results"];
        assert_eq!(results.as_array().map(|r| r.len()), Some(6), "a result per seat: {results}");
        for (s, messages) in heard.iter().enumerate() {
            let mine = roles[s].as_str();
            let mut checked = 0;
            for m in messages.iter().filter(|m| m["type"] == "sync" || m["type"] == "move") {
                if !m["state"]["winner"].is_null() {
                    continue;
                }
                for p in m["state"]["players"].as_array().unwrap() {
                    let n = p["player"].as_u64().unwrap() as usize - 1;
                    let may = n == s || !p["alive"].as_bool().unwrap() || (mine == "Mafioso" && roles[n] == "Mafioso");
                    assert!(may || p["role"].is_null(), "seed {seed}: player {} ({mine}) sees player {}'s role: {m}", s + 1, n + 1);
                }
                let text = m.to_string();
                for (line, of) in [
                    ("Your investigation", "Cop"),
                    ("You protected", "Doctor"),
                    ("(Mafia) chooses", "Mafioso"),
                    ("You blocked", "Roleblocker"),
                ] {
                    assert!(mine == of || !text.contains(line), "seed {seed}: player {} ({mine}) heard {line:?}: {m}", s + 1);
                }
                // Another seat's night move reads as done, not as what it was.
                if m["type"] == "move" && m["side"] != seats[s] {
                    let t = m["text"].as_str().unwrap_or_default();
                    let night = ["kill", "protect", "investigate", "block", "sleep"].iter().any(|w| t.starts_with(w));
                    assert!(!night || (mine == "Mafioso" && t.starts_with("kill")), "seed {seed}: player {} ({mine}) read {t:?}", s + 1);
                }
                checked += 1;
            }
            assert!(checked > 5, "player {} heard the game: {checked} messages", s + 1);
        }
    }
}

/// At night a player takes back its own choice though others chose after it (the night has not
/// resolved): its `undo` is open, the undo is answered with the move as it reads it, it acts
/// again, the others' choices stand; no other seat is told what was taken back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_takes_back_its_night_choice_before_the_night_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let (srv, base, http) = server(&dir).await;
    let (_, g) = call(
        &http,
        reqwest::Method::POST,
        format!("{base}/api/games"),
        Some(json!({ "game": "mafia", "seed": 4, "options": { "seats": 5 } })),
    )
    .await;
    let id = g["id"].as_str().unwrap().to_string();
    let token = |s: &str| g["tokens"][s].as_str().unwrap().to_string();
    let url = |what: &str, s: &str| format!("{base}/api/games/{id}/{what}?token={}", token(s));
    let moves_of = |s: &'static str| {
        let (http, url) = (http.clone(), url("moves", s));
        async move { call(&http, reqwest::Method::GET, url, None).await.1 }
    };
    let own = |m: &Value| -> Vec<String> {
        let list = if m["yours"] == json!(true) { &m["moves"] } else { &m["simultaneous"]["moves"] };
        list.as_array().map(|l| l.iter().map(|t| t.as_str().unwrap().to_string()).collect()).unwrap_or_default()
    };
    let first = own(&moves_of("player-1").await);
    let (status, r) = call(&http, reqwest::Method::POST, url("moves", "player-1"), Some(json!({ "move": first[0] }))).await;
    assert_eq!(status, 200, "{r}");
    let second = own(&moves_of("player-2").await);
    let (status, r) = call(&http, reqwest::Method::POST, url("moves", "player-2"), Some(json!({ "move": second[0] }))).await;
    assert_eq!(status, 200, "{r}");
    let (mut ws2, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/api/games/{id}/ws?token={}", srv.addr, token("player-2"))).await.unwrap();
    assert_eq!(moves_of("player-1").await["undo"], json!(true), "its own choice, the night unresolved");
    assert_eq!(moves_of("player-3").await["undo"], json!(false), "no choice of its own");
    let (status, r) = call(&http, reqwest::Method::POST, url("undo", "player-1"), None).await;
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["undone"], json!(first[0]), "{r}");
    assert_eq!(r["seq"], json!(1), "player-2's choice stands: {r}");
    let again = moves_of("player-1").await;
    assert!(again["acting"].as_array().unwrap().contains(&json!("player-1")), "player-1 acts again: {again}");
    assert!(!again["acting"].as_array().unwrap().contains(&json!("player-2")), "player-2 has chosen: {again}");
    // What another player is told of the move taken back: that it was, not what it was (five
    // players: one Mafioso, so no fellow sees its choice).
    let mut heard = Vec::new();
    drain(&mut ws2, &mut heard).await;
    let undo = heard.iter().find(|m| m["type"] == "undo").unwrap_or_else(|| panic!("player-2 told of the undo: {heard:?}"));
    assert_eq!(undo["undone"]["side"], "player-1", "{undo}");
    assert_ne!(undo["undone"]["text"], json!(first[0]), "{undo}");
    assert!(!undo.to_string().contains(&format!("\"{}\"", first[0])), "{undo}");
    let (status, r) = call(&http, reqwest::Method::POST, url("undo", "player-3"), None).await;
    assert_eq!(status, 409, "{r}");
    srv.task.abort();
}

/// M10: the Mafia's night chat. A Mafioso's message to `mafia` reaches its fellow and no one
/// else (no other player, no observer, in a message or in a history); another player may not
/// write there and is not told the channel exists; by day the channel is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mafia_s_night_chat_is_theirs_alone() {
    use arbiter_kernel::{GameKind, Seat};
    let dir = tempfile::tempdir().unwrap();
    let (srv, base, http) = server(&dir).await;
    let (seed, options) = (5u64, json!({ "seats": 8 }));
    let (local, _) = arbiter_games::MAFIA.create(&options, seed).unwrap();
    let name = |i: usize| format!("player-{}", i + 1);
    let mafia: Vec<String> = (0..8).filter(|i| !local.channels(Seat(*i as u8)).is_empty()).map(name).collect();
    assert_eq!(mafia.len(), 2, "two Mafiosi among eight");
    let village = (0..8).map(name).find(|p| !mafia.contains(p)).unwrap();
    let (_, g) =
        call(&http, reqwest::Method::POST, format!("{base}/api/games"), Some(json!({ "game": "mafia", "seed": seed, "options": options })))
            .await;
    let id = g["id"].as_str().unwrap().to_string();
    let token = |s: &str| g["tokens"][s].as_str().unwrap().to_string();
    let url = |what: &str, s: &str| format!("{base}/api/games/{id}/{what}?token={}", token(s));
    let ws = |s: &str| format!("ws://{}/api/games/{id}/ws?token={}", srv.addr, token(s));
    let mut fellow = tokio_tungstenite::connect_async(ws(&mafia[1])).await.unwrap().0;
    let mut villager = tokio_tungstenite::connect_async(ws(&village)).await.unwrap().0;
    let mut observer = tokio_tungstenite::connect_async(ws("observer")).await.unwrap().0;
    let (_, mine) = call(&http, reqwest::Method::GET, url("moves", &mafia[0]), None).await;
    assert_eq!(mine["channels"], json!([{ "name": "mafia", "open": true }]), "{mine}");
    let (_, theirs) = call(&http, reqwest::Method::GET, url("moves", &village), None).await;
    assert_eq!(theirs["channels"], json!([]), "{theirs}");

    let secret = "we take the doctor tonight";
    let (status, sent) = call(&http, reqwest::Method::POST, url("chat", &mafia[0]), Some(json!({ "text": secret, "to": "mafia" }))).await;
    assert_eq!(status, 201, "{sent}");
    let (mut f, mut v, mut o) = (Vec::new(), Vec::new(), Vec::new());
    drain(&mut fellow, &mut f).await;
    drain(&mut villager, &mut v).await;
    drain(&mut observer, &mut o).await;
    assert!(f.iter().any(|m| m["type"] == "chat" && m["text"] == secret && m["to"] == "mafia"), "the fellow Mafioso hears it: {f:?}");
    for (who, heard) in [("the villager", &v), ("the observer", &o)] {
        assert!(!format!("{heard:?}").contains(secret), "{who} heard the Mafia's chat: {heard:?}");
    }
    for (s, reads) in [(&mafia[1], true), (&village, false), (&"observer".to_string(), false)] {
        let (_, h) = call(&http, reqwest::Method::GET, url("chat", s), None).await;
        assert_eq!(h.to_string().contains(secret), reads, "{s}'s history: {h}");
    }
    let (status, e) = call(&http, reqwest::Method::POST, url("chat", &village), Some(json!({ "text": "hello?", "to": "mafia" }))).await;
    assert_eq!(status, 400, "{e}");
    let said = e["error"].as_str().unwrap_or_default();
    assert!(said.contains("`to` is one of all, seats") && !said.contains("all, seats,"), "no channel of another named: {e}");

    // The night resolves (every player acts once): by day the channel is closed.
    let (_, obs) = call(&http, reqwest::Method::GET, url("moves", "observer"), None).await;
    let night: Vec<String> = obs["acting"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    assert_eq!(night.len(), 8, "{obs}");
    for s in &night {
        let (_, m) = call(&http, reqwest::Method::GET, url("moves", s), None).await;
        let list = if m["yours"] == json!(true) { &m["moves"] } else { &m["simultaneous"]["moves"] };
        let first = list[0].as_str().unwrap().to_string();
        let (status, r) = call(&http, reqwest::Method::POST, url("moves", s), Some(json!({ "move": first }))).await;
        assert_eq!(status, 200, "{r}");
    }
    let (_, day) = call(&http, reqwest::Method::GET, url("moves", &mafia[0]), None).await;
    if day["outcome"].is_null() {
        assert_eq!(day["channels"][0]["open"], json!(false), "{day}");
        let (status, e) =
            call(&http, reqwest::Method::POST, url("chat", &mafia[0]), Some(json!({ "text": "by day?", "to": "mafia" }))).await;
        assert_eq!(status, 400, "{e}");
        assert!(e["error"].as_str().unwrap_or_default().contains("closed now"), "{e}");
    }
    srv.task.abort();
}

/// The computer in several seats: a game of Mafia for five with the computer in four, one
/// person at the table. The person gets its own link only; the computers' seats are taken; the
/// game plays to its end with the person making only its own moves, each computer seat
/// deciding alone. Naming a seat twice, the creator's own, or every seat is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_plays_several_seats_and_a_person_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let (_srv, base, http) = server(&dir).await;
    let computers = json!(["player-2", "player-3", "player-4", "player-5"]);
    for (body, says) in [
        (json!({ "game": "mafia", "options": { "seats": 5 }, "computer": ["player-2", "player-2"] }), "named twice"),
        (
            json!({ "game": "mafia", "options": { "seats": 5 }, "computer": ["player-2"], "seat": "player-2" }),
            "both yours and the computer's",
        ),
        (
            json!({ "game": "mafia", "options": { "seats": 5 }, "computer": ["player-1", "player-2", "player-3", "player-4", "player-5"] }),
            "cannot play every seat",
        ),
        (json!({ "game": "mafia", "options": { "seats": 5 }, "computer": [] }), "at least one seat"),
    ] {
        let (status, e) = call(&http, reqwest::Method::POST, format!("{base}/api/games"), Some(body.clone())).await;
        assert_eq!(status, 400, "{body}: {e}");
        assert!(e["error"].as_str().unwrap_or_default().contains(says), "{body}: {e}");
    }
    let (status, g) = call(
        &http,
        reqwest::Method::POST,
        format!("{base}/api/games"),
        Some(json!({ "game": "mafia", "seed": 4, "options": { "seats": 5 }, "computer": computers, "level": 1 })),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let tokens = g["tokens"].as_object().unwrap();
    assert!(tokens.contains_key("player-1") && tokens.contains_key("observer"), "{g}");
    for c in computers.as_array().unwrap() {
        assert!(!tokens.contains_key(c.as_str().unwrap()), "nobody gets a computer's link: {g}");
    }
    let id = g["id"].as_str().unwrap().to_string();
    let me = g["tokens"]["player-1"].as_str().unwrap().to_string();
    let (_, seats) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}"), None).await;
    let statuses: Vec<&str> = seats["seats"].as_array().unwrap().iter().map(|s| s["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["taken", "computer", "computer", "computer", "computer"], "{seats}");
    let mut made = 0;
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let (_, m) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/moves?token={me}"), None).await;
        if !m["outcome"].is_null() {
            assert_eq!(m["outcome"]["results"].as_array().map(|r| r.len()), Some(5), "{m}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the game ends: {m}");
        let acting: Vec<&str> = m["acting"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        let list = if m["yours"] == true { &m["moves"] } else { &m["simultaneous"]["moves"] };
        match list.as_array().filter(|l| !l.is_empty() && acting.contains(&"player-1")) {
            Some(list) => {
                let mv = list[made % list.len()].as_str().unwrap().to_string();
                let (status, r) =
                    call(&http, reqwest::Method::POST, format!("{base}/api/games/{id}/moves?token={me}"), Some(json!({ "move": mv })))
                        .await;
                assert!(status == 200 || status == 409, "{mv}: {r}");
                made += 1;
            }
            // The computers are thinking, or the person is dead and watches.
            None => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    assert!(made > 0, "the person played");
}

/// Mafia on a clock (M11): nobody at the table moves, each player's time runs out and it
/// leaves the game, its role told; the game comes to its end on its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_whose_time_runs_out_leaves_and_the_game_ends() {
    let dir = tempfile::tempdir().unwrap();
    let (_srv, base, http) = server(&dir).await;
    let (status, g) = call(
        &http,
        reqwest::Method::POST,
        format!("{base}/api/games"),
        Some(json!({ "game": "mafia", "seed": 2, "options": { "seats": 5 }, "clock_seconds": 1 })),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let observer = g["tokens"]["observer"].as_str().unwrap().to_string();
    // The clock starts with the game's first move (the players are still arriving before it).
    let one = g["tokens"]["player-1"].as_str().unwrap().to_string();
    let (_, m) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/moves?token={one}"), None).await;
    let list = if m["yours"] == true { &m["moves"] } else { &m["simultaneous"]["moves"] };
    let first = list[0].as_str().unwrap().to_string();
    let (status, r) =
        call(&http, reqwest::Method::POST, format!("{base}/api/games/{id}/moves?token={one}"), Some(json!({ "move": first }))).await;
    assert_eq!(status, 200, "{r}");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let outcome = loop {
        let (_, m) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/moves?token={observer}"), None).await;
        if !m["outcome"].is_null() {
            break m["outcome"].clone();
        }
        assert!(std::time::Instant::now() < deadline, "the game ends on its clock: {m}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(outcome["results"].as_array().map(|r| r.len()), Some(5), "{outcome}");
    let (_, log) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/log?token={observer}"), None).await;
    let text = log.to_string();
    assert!(text.contains("leaves the game: Player"), "{text}");
}

/// A clock's move is a move like any other: once it is stored the seats acting next are told
/// and the computer goes on. A person at a table of computers on a clock makes no move; its
/// time runs out, it leaves, and the computers play the game to its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_clock_s_move_the_computer_plays_on() {
    let dir = tempfile::tempdir().unwrap();
    let (_srv, base, http) = server(&dir).await;
    let (status, g) = call(
        &http,
        reqwest::Method::POST,
        format!("{base}/api/games"),
        Some(json!({
            "game": "mafia", "seed": 3, "options": { "seats": 5 }, "clock_seconds": 1,
            "computer": ["player-2", "player-3", "player-4", "player-5"], "level": 1,
        })),
    )
    .await;
    assert_eq!(status, 201, "{g}");
    let id = g["id"].as_str().unwrap().to_string();
    let observer = g["tokens"]["observer"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let outcome = loop {
        let (_, m) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/moves?token={observer}"), None).await;
        if !m["outcome"].is_null() {
            break m["outcome"].clone();
        }
        assert!(std::time::Instant::now() < deadline, "the computers play the game to its end: {m}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(outcome["results"].as_array().map(|r| r.len()), Some(5), "{outcome}");
    let (_, log) = call(&http, reqwest::Method::GET, format!("{base}/api/games/{id}/log?token={observer}"), None).await;
    let text = log.to_string();
    assert!(text.contains("Player 1 leaves the game"), "the person's time ran out: {text}");
    for p in 2..=5 {
        assert!(!text.contains(&format!("Player {p} leaves the game")), "the computers play on: {text}");
    }
}
