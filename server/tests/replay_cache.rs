//! Replays start from kept positions (`arbiter_server::replay::ReplayCache`): stepping through a
//! record replays a bounded number of moves for each position, not the record from the setup,
//! and every position shown is the one a full replay of the record gives, for an observer and
//! for a seat, after an undo too. A real server on a loopback port, Twilight Struggle games on
//! chosen seeds; and the cache alone, its bounds and its records, on Minesweeper records.

use arbiter_games::MINESWEEPER;
use arbiter_kernel::{Seat, Viewer};
use arbiter_server::replay::{Bounds, ReplayCache, KEEP_EVERY};
use arbiter_server::{start, Config, Running};
use arbiter_store::{EventRow, GameHeader, Replay};
use arbiter_twilight::Options;
use serde_json::{json, Value};

mod common;

/// The options of the games created here, as `random_until` plays them.
const OPTIONS: Options = Options { optional_cards: true, us_bonus: 2 };

async fn server(dir: &tempfile::TempDir) -> Running {
    let mut c = Config::new("127.0.0.1:0".parse().unwrap(), dir.path().to_path_buf());
    // Every position of a long record is asked for here.
    c.replays_per_address = 1_000_000;
    start(c, arbiter_games::web::offered()).await.unwrap()
}

/// A game on the server: its id and the US's, the USSR's and the observer's tokens.
struct Table {
    base: String,
    id: String,
    tokens: [String; 3],
    http: reqwest::Client,
}

impl Table {
    async fn new(srv: &Running, seed: u64) -> Table {
        let base = format!("http://{}", srv.addr);
        let http = reqwest::Client::new();
        let r =
            http.post(format!("{base}/api/games")).body(json!({ "seed": seed, "optional_cards": true }).to_string()).send().await.unwrap();
        assert_eq!(r.status(), 201);
        let v: Value = r.json().await.unwrap();
        let t = |s: &str| v["tokens"][s].as_str().unwrap().to_string();
        Table { base, id: v["id"].as_str().unwrap().into(), tokens: [t("us"), t("ussr"), t("observer")], http }
    }
    async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.http.get(format!("{}/api/games/{}/{path}", self.base, self.id)).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }
    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self.http.post(format!("{}/api/games/{}/{path}", self.base, self.id)).body(body.to_string()).send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }
    async fn play(&self, token: &str, text: &str) {
        let (status, e) = self.post(&format!("moves?token={token}"), json!({ "move": text })).await;
        assert_eq!(status, 200, "{text}: {e}");
    }
    /// The token of the seat deciding now and its `moves` answer.
    async fn decider(&self) -> (String, Value) {
        let (_, obs) = self.get(&format!("moves?token={}", self.tokens[2])).await;
        let seat = obs["to_move"].as_str().expect("a decision");
        let token = self.tokens[if seat == "us" { 0 } else { 1 }].clone();
        let (_, m) = self.get(&format!("moves?token={token}")).await;
        (token, m)
    }
    /// The replay of move `at`, with `token` if given.
    async fn replay(&self, at: u64, token: Option<&str>) -> Value {
        let token = token.map(|t| format!("&token={t}")).unwrap_or_default();
        let (status, r) = self.get(&format!("replay?at={at}{token}")).await;
        assert_eq!(status, 200, "{r}");
        assert_eq!(r["at"].as_u64(), Some(at));
        r
    }
}

/// Each position of the saved game as `viewer` sees it, from one replay of its whole file.
fn full_replay(dir: &tempfile::TempDir, gid: &str, viewer: Viewer) -> Vec<Value> {
    let s = common::open_game(dir.path(), gid, false);
    let mut r = Replay::new(s.header().clone(), s.rows().to_vec(), s.kind()).unwrap();
    let mut views = vec![r.game().view(viewer)];
    while !r.done() {
        r.step().unwrap();
        views.push(r.game().view(viewer));
    }
    views
}

/// A replay's state without the fields the server adds (`seq`, `game`).
fn bare(state: &Value) -> Value {
    let mut v = state.clone();
    let o = v.as_object_mut().unwrap();
    o.remove("seq");
    o.remove("game");
    v
}

/// The number of log lines that head a move.
fn heads(r: &Value) -> usize {
    r["log"].as_array().unwrap().iter().filter(|l| l.as_str().unwrap().starts_with('#')).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stepping_through_a_long_record_replays_each_position_from_a_kept_one() {
    let rules = arbiter_twilight_cards::ruleset();
    let r = arbiter_twilight::playout::random_until(&rules, OPTIONS, 0..50, |g| g.state().turn >= 6).expect("a game reaching turn 6");
    let moves = &r.moves[..200];
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir).await;
    let t = Table::new(&srv, r.seed).await;
    for (side, text) in moves {
        t.play(&t.tokens[side.idx()], text).await;
    }
    let cache = &srv.hub.replay_cache;
    let before = cache.moves_replayed();
    let mut shown = Vec::new();
    for at in 0..=200 {
        shown.push(t.replay(at, None).await);
    }
    let replayed = cache.moves_replayed() - before;
    // The record once to its end (where each turn begins, and a position kept every
    // KEEP_EVERY moves), then each position from the kept one at or before it.
    let expected: u64 = 200 + (0..=200u64).map(|at| at % KEEP_EVERY).sum::<u64>();
    assert_eq!(replayed, expected, "not the {} moves of replaying each position from the setup", (0..=200u64).sum::<u64>());
    let observer = full_replay(&dir, &t.id, None);
    for (at, r) in shown.iter().enumerate() {
        assert_eq!(bare(&r["state"]), observer[at], "move {at}");
        assert_eq!((r["total"].as_u64(), heads(r)), (Some(200), at), "move {at}");
    }
    assert_eq!(shown[0]["turns"], shown[200]["turns"]);
    assert_eq!(shown[0]["turns"][0], json!({ "turn": 1, "at": 0 }));
    assert!(shown[0]["turns"].as_array().unwrap().len() >= 5, "{}", shown[0]["turns"]);

    // Asked again, a position costs no more than the moves from the kept one before it.
    let before = cache.moves_replayed();
    assert_eq!(bare(&t.replay(199, None).await["state"]), observer[199]);
    assert_eq!(cache.moves_replayed() - before, 199 % KEEP_EVERY);
    assert_eq!(cache.held(), (1, 200 / KEEP_EVERY as usize + 1));
}

/// Positions after an undo and another move (a record of the same length, another game): none
/// kept from the old record past the first row that differs is shown, for an observer or a
/// seat; a seat's view is shown only to that seat while the game goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_an_undo_each_position_is_the_new_record_s() {
    let dir = tempfile::tempdir().unwrap();
    let srv = server(&dir).await;
    let t = Table::new(&srv, 3).await;
    // The first listed moves up to a move that is a multiple of KEEP_EVERY (a position kept
    // there) and that its seat may take back.
    let mut seq = 0u64;
    let token = loop {
        let (token, m) = t.decider().await;
        if seq >= 2 * KEEP_EVERY && seq % KEEP_EVERY == 0 && m["undo"] == json!(true) {
            assert_eq!(m["seq"].as_u64(), Some(seq));
            break token;
        }
        assert!(seq < 1000, "no move to take back at a multiple of {KEEP_EVERY} in 1000");
        t.play(&token, m["moves"][0].as_str().unwrap()).await;
        seq += 1;
    };
    let seat = if token == t.tokens[0] { 0 } else { 1 };
    let other = &t.tokens[1 - seat];
    let old_observer = full_replay(&dir, &t.id, None);
    let old_seat = full_replay(&dir, &t.id, Some(Seat(seat as u8)));
    for at in 0..=seq {
        assert_eq!(bare(&t.replay(at, Some(&token)).await["state"]), old_seat[at as usize], "move {at}");
        assert_eq!(bare(&t.replay(at, None).await["state"]), old_observer[at as usize], "move {at}");
    }
    let (status, last) = t.post(&format!("undo?token={token}"), json!({})).await;
    assert_eq!(status, 200, "{last}");
    let (_, m) = t.get(&format!("moves?token={token}")).await;
    let another = m["moves"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).find(|v| *v != last["undone"]).unwrap().to_string();
    t.play(&token, &another).await;
    let observer = full_replay(&dir, &t.id, None);
    let seats = [full_replay(&dir, &t.id, Some(Seat(0))), full_replay(&dir, &t.id, Some(Seat(1)))];
    assert_eq!(observer.len() as u64, seq + 1, "a record of the same length");
    assert_ne!(seats[seat][seq as usize], old_seat[seq as usize], "another game at move {seq}");
    // A seat's token first, then the observer, on the same kept positions.
    let before = srv.hub.replay_cache.moves_replayed();
    for at in (0..=seq).rev() {
        let mine = t.replay(at, Some(&token)).await;
        assert_eq!(
            (mine["seat"].as_str(), bare(&mine["state"])),
            (Some(["us", "ussr"][seat]), seats[seat][at as usize].clone()),
            "move {at}"
        );
        let theirs = t.replay(at, Some(other)).await;
        assert_eq!(bare(&theirs["state"]), seats[1 - seat][at as usize], "move {at}");
        let public = t.replay(at, None).await;
        assert_eq!((public["seat"].as_str(), bare(&public["state"])), (Some("observer"), observer[at as usize].clone()), "move {at}");
        assert_eq!(public["seat_views"], Value::Null);
        assert_eq!(heads(&public), at as usize);
    }
    assert_ne!(seats[seat][seq as usize], observer[seq as usize], "a seat's view shows what an observer's does not (its hand)");
    // Only the position kept before the move that differs is replayed from: the record once
    // from there to its end, then each position from the kept one at or before it.
    let positions: u64 = (0..=seq).map(|at| 3 * (at % KEEP_EVERY)).sum();
    assert_eq!(srv.hub.replay_cache.moves_replayed() - before, KEEP_EVERY + positions);
    let (status, _) = t.get(&format!("replay?at=3&as={}", ["ussr", "us"][seat])).await;
    assert_eq!(status, 403, "another seat's view while the game goes on");
}

/// A Minesweeper record of `flags` moves (a flag on each of the first cells), saved in `dir`.
fn record(dir: &std::path::Path, name: &str, flags: usize) -> (GameHeader, Vec<EventRow>) {
    let path = dir.join(format!("{name}.arbiter"));
    let mut s = arbiter_store::Session::create(&path, &MINESWEEPER, &json!({"width": 9, "height": 9, "mines": 10}), 7).unwrap();
    for i in 0..flags {
        s.play(&format!("flag {}{}", (b'a' + (i % 9) as u8) as char, i / 9 + 1), None).unwrap();
    }
    (s.header().clone(), s.rows().to_vec())
}

/// Each position's state hash, from one replay of the whole record.
fn hashes(header: &GameHeader, rows: &[EventRow]) -> Vec<u64> {
    let mut r = Replay::new(header.clone(), rows.to_vec(), &MINESWEEPER).unwrap();
    let mut out = vec![r.game().state_hash()];
    while !r.done() {
        r.step().unwrap();
        out.push(r.game().state_hash());
    }
    out
}

#[test]
fn the_cache_keeps_at_most_its_bounds_and_every_position_is_a_full_replay_s() {
    let dir = tempfile::tempdir().unwrap();
    let cache = ReplayCache::new(Bounds { every: 2, per_game: 4, games: 3, positions: 7 });
    let games: Vec<_> = (0..5).map(|i| record(dir.path(), &format!("g{i}"), 10 + i)).collect();
    for (i, (header, rows)) in games.iter().enumerate() {
        let full = hashes(header, rows);
        for at in 0..=rows.len() as u64 {
            let (g, _) = cache.position(&format!("g{i}"), header, rows, &MINESWEEPER, at).unwrap();
            assert_eq!(g.state_hash(), full[at as usize], "game {i}, move {at}");
        }
        let (held, positions) = cache.held();
        assert!(held <= 3 && positions <= 7, "{held} games, {positions} positions");
    }
    // Past 4 positions of one game (one every 2 moves), every other one is dropped and the
    // rest are 4 moves apart: 0, 4, 8, 12 of the last game's 14 moves.
    let (header, rows) = &games[4];
    let before = cache.moves_replayed();
    cache.position("g4", header, rows, &MINESWEEPER, 14).unwrap();
    cache.position("g4", header, rows, &MINESWEEPER, 11).unwrap();
    assert_eq!(cache.moves_replayed() - before, 2 + 3);
    // The least recently replayed games went first: the first one is replayed anew.
    let (header, rows) = &games[0];
    let before = cache.moves_replayed();
    cache.position("g0", header, rows, &MINESWEEPER, 0).unwrap();
    assert_eq!(cache.moves_replayed() - before, 10, "the record once to its end");
}

#[test]
fn a_record_that_is_not_the_kept_one_is_replayed_from_before_the_first_row_that_differs() {
    let dir = tempfile::tempdir().unwrap();
    let cache = ReplayCache::new(Bounds { every: 4, ..Bounds::default() });
    let (header, rows) = record(dir.path(), "a", 10);
    cache.position("a", &header, &rows, &MINESWEEPER, 10).unwrap();
    // The same game with another record: flags on other cells from move 7 on.
    let options = json!({"width": 9, "height": 9, "mines": 10});
    let mut s = arbiter_store::Session::create(&dir.path().join("b.arbiter"), &MINESWEEPER, &options, 7).unwrap();
    for r in &rows[..6] {
        s.play(&r.move_text, None).unwrap();
    }
    for m in ["flag i9", "flag h9", "flag g9", "flag f9"] {
        s.play(m, None).unwrap();
    }
    assert_eq!(s.header().seed, header.seed);
    let other = s.rows().to_vec();
    let full = hashes(&header, &other);
    let before = cache.moves_replayed();
    let (g, _) = cache.position("a", &header, &other, &MINESWEEPER, 10).unwrap();
    assert_eq!(g.state_hash(), full[10]);
    assert_eq!(cache.moves_replayed() - before, 10 - 4 + 10 % 4, "from the position after move 4 (the last kept before move 7)");
    for at in 0..=10 {
        assert_eq!(cache.position("a", &header, &other, &MINESWEEPER, at).unwrap().0.state_hash(), full[at as usize], "move {at}");
    }
    // A record that is not the kept one's to the end is refused with the replay's error, and
    // nothing of it is kept.
    let mut tampered = other.clone();
    tampered[8].record.state_hash = "0".repeat(16);
    let e = cache.position("a", &header, &tampered, &MINESWEEPER, 3).err().unwrap();
    assert_eq!((e.seq, e.what.as_str()), (9, "state hash"));
    assert_eq!(cache.held(), (1, 0));
    assert_eq!(cache.position("a", &header, &other, &MINESWEEPER, 9).unwrap().0.state_hash(), full[9]);
}
