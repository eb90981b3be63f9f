//! Replays: any game the server holds, stepped through move by move (`GET
//! /api/games/{id}/replay?at=N`, the page `/replay/{id}?at=N`). Each position is rebuilt by the
//! store's verified replay (`arbiter_store::Replay`) of the saved record up to move N, from the
//! nearest position kept at or before it (`ReplayCache`), and shown through the game's own view
//! for one place, as a `sync` shows it.
//!
//! Who may see what: an observer's view by default. A seat's view (its hidden information) is
//! shown to that seat's own token, and to anyone once the game is over: a finished game's every
//! seat may then be replayed as it saw the game. An unfinished game never shows a seat's view
//! but to that seat. A listed game's replay needs no token; an unlisted one's needs a token of
//! the game (any place).

use crate::api::{read, ApiError};
use crate::hub::Hub;
use crate::seats::Place;
use arbiter_kernel::{GameKind, Match, Seat};
use arbiter_store::{EventRow, GameHeader, Replay, ReplayError};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The number the game's view gives as `turn`, if it names one (a generic look: the host knows
/// no game's turns).
fn turn_of(view: &Value) -> Option<u64> {
    view.get("turn").and_then(Value::as_u64)
}

/// How far apart the kept positions of a game start: one every this many moves.
pub const KEEP_EVERY: u64 = 16;
/// The most positions kept of one game: past it every other one is dropped and the rest are
/// twice as far apart, so that a long record costs a bounded number of copies of the game.
pub const KEPT_PER_GAME: usize = 128;
/// The most games whose positions are kept (the least recently replayed is dropped first).
pub const KEPT_GAMES: usize = 64;
/// The most positions kept of all games together.
pub const KEPT_POSITIONS: usize = 2048;

/// Positions of the games replayed lately, so that stepping through a record does not replay
/// it from the setup at every step. For each game, the record it was replayed from (a keyed
/// fingerprint of each row), copies of the game every `every` moves as the verified replay
/// reached them, and where each turn begins. A request compares its record with the kept one:
/// positions up to the first row that differs (an undo and another move, a new move) stay
/// valid; the replay goes on from the last of them to the record's end once, then each
/// position is replayed from the nearest kept one at or before it, still verifying each row.
pub struct ReplayCache {
    games: Mutex<Games>,
    /// Keys the rows' fingerprints, drawn for each process: no record can be made on purpose
    /// to give another's.
    keys: std::collections::hash_map::RandomState,
    /// Moves replayed for replays, counted (`ReplayCache::moves_replayed`).
    replayed: AtomicU64,
    /// Replays computed at once, at most (a permit each): the rest of the cores stay free for
    /// the players' moves.
    work: Arc<tokio::sync::Semaphore>,
    bounds: Bounds,
}

/// What a `ReplayCache` keeps at most.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    pub every: u64,
    pub per_game: usize,
    pub games: usize,
    pub positions: usize,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds { every: KEEP_EVERY, per_game: KEPT_PER_GAME, games: KEPT_GAMES, positions: KEPT_POSITIONS }
    }
}

#[derive(Default)]
struct Games {
    by_id: HashMap<String, Slot>,
    /// Ticks at each use, for the least recently used.
    tick: u64,
}

struct Slot {
    kept: Arc<Mutex<Kept>>,
    used: u64,
    /// How many positions `kept` held when last counted.
    positions: usize,
}

/// One game's kept positions.
struct Kept {
    header: Option<GameHeader>,
    /// A keyed fingerprint of each row of the record `positions` and `turns` were replayed
    /// from.
    prints: Vec<u64>,
    /// `positions[i]`: the game after move `i * every`, as the verified replay reached it.
    positions: Vec<Box<dyn Match>>,
    every: u64,
    /// (turn, the move it begins after) for the whole record of `prints`.
    turns: Vec<(u64, u64)>,
    /// Whether `positions` and `turns` reach the end of the record of `prints`.
    complete: bool,
}

impl Kept {
    fn new(every: u64) -> Kept {
        Kept { header: None, prints: Vec::new(), positions: Vec::new(), every, turns: Vec::new(), complete: false }
    }
}

impl Default for ReplayCache {
    fn default() -> ReplayCache {
        ReplayCache::new(Bounds::default())
    }
}

impl ReplayCache {
    /// A cache keeping at most `bounds`; replays are computed on half the cores at once (one at
    /// least).
    pub fn new(bounds: Bounds) -> ReplayCache {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let bounds = Bounds { every: bounds.every.max(1), per_game: bounds.per_game.max(2), ..bounds };
        ReplayCache {
            games: Mutex::default(),
            keys: Default::default(),
            replayed: AtomicU64::new(0),
            work: Arc::new(tokio::sync::Semaphore::new((cores / 2).max(1))),
            bounds,
        }
    }

    /// How many moves this cache's replays have replayed in all.
    pub fn moves_replayed(&self) -> u64 {
        self.replayed.load(Ordering::Relaxed)
    }

    /// How many games' positions are kept, and how many positions in all.
    pub fn held(&self) -> (usize, usize) {
        let g = self.games.lock().unwrap_or_else(|p| p.into_inner());
        (g.by_id.len(), g.by_id.values().map(|s| s.positions).sum())
    }

    /// A permit to compute a replay (waited for while others compute theirs).
    pub async fn permit(&self) -> tokio::sync::OwnedSemaphorePermit {
        self.work.clone().acquire_owned().await.expect("the replays' semaphore is never closed")
    }

    fn print(&self, row: &EventRow) -> u64 {
        let mut h = self.keys.build_hasher();
        (row.seq, row.seat.0, &row.move_text, &row.move_json, &row.record.random_json, row.record.reveals, &row.record.state_hash)
            .hash(&mut h);
        h.finish()
    }

    fn step(&self, r: &mut Replay) -> Result<(), ReplayError> {
        r.step()?;
        self.replayed.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Game `id`'s position after move `at` of `rows` (verified), and where each of its turns
    /// begins (`[{"turn": T, "at": N}]`, if the game's view names turns). Blocking: the
    /// replay's work.
    pub fn position(
        &self,
        id: &str,
        header: &GameHeader,
        rows: &[EventRow],
        kind: &'static dyn GameKind,
        at: u64,
    ) -> Result<(Box<dyn Match>, Value), ReplayError> {
        let kept = {
            let mut g = self.games.lock().unwrap_or_else(|p| p.into_inner());
            g.tick += 1;
            let tick = g.tick;
            let every = self.bounds.every;
            let slot = g.by_id.entry(id.to_string()).or_insert_with(|| Slot {
                kept: Arc::new(Mutex::new(Kept::new(every))),
                used: 0,
                positions: 0,
            });
            slot.used = tick;
            slot.kept.clone()
        };
        // The game's own lock, held while its record is replayed: a request for the same game
        // meanwhile waits, then starts from what this one kept.
        let mut k = kept.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = self.bring_up_to_date(&mut k, header, rows, kind) {
            *k = Kept::new(self.bounds.every);
            drop(k);
            self.counted(id, &kept, 0);
            return Err(e);
        }
        let i = ((at / k.every) as usize).min(k.positions.len().saturating_sub(1));
        let from = i as u64 * k.every;
        let start = k.positions.get(i).map(|p| p.boxed_clone());
        let turns = json!(k.turns.iter().map(|(t, a)| json!({ "turn": t, "at": a })).collect::<Vec<_>>());
        let count = k.positions.len();
        drop(k);
        self.counted(id, &kept, count);
        let upto = rows[..(at as usize).min(rows.len())].to_vec();
        let mut r = match start {
            Some(game) => Replay::resume(header.clone(), upto, kind, game, from)?,
            None => Replay::new(header.clone(), upto, kind)?,
        };
        while !r.done() {
            self.step(&mut r)?;
        }
        Ok((r.into_game(), turns))
    }

    /// Make `k` hold `rows`' positions and turns: what it kept up to the first row that
    /// differs stays, the record is replayed on from the last position kept there.
    fn bring_up_to_date(
        &self,
        k: &mut Kept,
        header: &GameHeader,
        rows: &[EventRow],
        kind: &'static dyn GameKind,
    ) -> Result<(), ReplayError> {
        if k.header.as_ref() != Some(header) {
            *k = Kept { header: Some(header.clone()), ..Kept::new(self.bounds.every) };
        }
        let prints: Vec<u64> = rows.iter().map(|r| self.print(r)).collect();
        let same = k.prints.iter().zip(&prints).take_while(|(a, b)| a == b).count() as u64;
        if k.complete && same == k.prints.len() as u64 && same == prints.len() as u64 {
            return Ok(());
        }
        k.complete = false;
        k.positions.truncate((same / k.every) as usize + 1);
        let mut r = match k.positions.last() {
            Some(p) => Replay::resume(header.clone(), rows.to_vec(), kind, p.boxed_clone(), (k.positions.len() as u64 - 1) * k.every)?,
            None => {
                let r = Replay::new(header.clone(), rows.to_vec(), kind)?;
                k.positions.push(r.game().boxed_clone());
                r
            }
        };
        k.prints = prints;
        let from = r.seq();
        k.turns.retain(|(_, a)| *a < from);
        let mut last = k.turns.last().map(|(t, _)| *t);
        loop {
            if let Some(t) = turn_of(&r.game().view(None)).filter(|t| Some(*t) != last) {
                k.turns.push((t, r.seq()));
                last = Some(t);
            }
            if r.done() {
                break;
            }
            self.step(&mut r)?;
            if r.seq() % k.every == 0 {
                k.positions.push(r.game().boxed_clone());
                if k.positions.len() > self.bounds.per_game {
                    let all = std::mem::take(&mut k.positions);
                    k.positions = all.into_iter().step_by(2).collect();
                    k.every *= 2;
                }
            }
        }
        k.complete = true;
        Ok(())
    }

    /// Game `id` keeps `positions` now (if `kept` is still its slot); then the least recently
    /// used games are dropped while the bounds are passed.
    fn counted(&self, id: &str, kept: &Arc<Mutex<Kept>>, positions: usize) {
        let mut g = self.games.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = g.by_id.get_mut(id).filter(|s| Arc::ptr_eq(&s.kept, kept)) {
            slot.positions = positions;
        }
        loop {
            let total: usize = g.by_id.values().map(|s| s.positions).sum();
            if g.by_id.len() <= self.bounds.games && total <= self.bounds.positions {
                break;
            }
            // The least recently used other than `id` (the one just replayed stays).
            let Some(oldest) = g.by_id.iter().filter(|(i, _)| i.as_str() != id).min_by_key(|(_, s)| s.used).map(|(i, _)| i.clone()) else {
                break;
            };
            g.by_id.remove(&oldest);
        }
    }
}

/// The window of `Config::replays_per_address`.
pub const REPLAYS_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// `GET /api/games/{id}/replay?at=N&token=T&as=PLACE`: the position after move N as `sync`
/// shapes it (`state`, `moves`, `log`), with `at`, `total` (the number of moves), `seat` (whose
/// view) and `views` (the places this caller may choose).
pub async fn replay(
    State(hub): State<Arc<Hub>>,
    peer: Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    // Each position is replayed from the record: limited per client address (without a peer
    // address, the router served by other means, every request shares one bucket).
    let ip = peer.map_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |axum::Extension(axum::extract::ConnectInfo(a))| {
        crate::limits::client_of(a.ip(), &hub.config)
    });
    let most = hub.config.replays_per_address;
    if let Err(wait) = hub.replays.take(ip, most, REPLAYS_WINDOW) {
        let secs = wait.as_secs() + 1;
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many replay requests from your address (at most {most} a minute): try again in {secs} s"),
        )
        .retry_after(secs));
    }
    let room = hub.room(&id).await?;
    let token = q.get("token").filter(|t| !t.is_empty());
    let wanted_at = match q.get("at") {
        None => None,
        Some(a) => {
            Some(a.parse::<u64>().map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "at is a move's number (0: the setup)".into()))?)
        }
    };
    let own = match &token {
        Some(t) => {
            Some(room.place(t).ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "this token is not a seat of this game".into()))?)
        }
        None if room.seats_file().unlisted => {
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, "an unlisted game's replay needs a token of the game (?token=…)".into()))
        }
        None => None,
    };
    let (header, rows, kind, over) =
        read(room.clone(), |r| r.with_session(|s| (s.header().clone(), s.rows().to_vec(), s.kind(), s.game().outcome().is_some()))).await?;
    let n = room.seat_count();
    let ids = room.ids.clone();
    // The places this caller may see the game as.
    let views: Vec<Place> = Place::all(n).filter(|p| *p == Place::Observer || over || Some(*p) == own).collect();
    let place = match q.get("as").map(String::as_str) {
        None | Some("") => own.filter(|p| views.contains(p)).unwrap_or(Place::Observer),
        Some(v) => {
            let p = ids.iter().position(|x| x == v).map(|i| if i == n { Place::Observer } else { Place::Seat(Seat(i as u8)) }).ok_or_else(
                || ApiError::new(StatusCode::BAD_REQUEST, format!("no place {v:?} in this game; its places: {}", ids.join(", "))),
            )?;
            if !views.contains(&p) {
                return Err(ApiError::new(StatusCode::FORBIDDEN, format!("the {v} seat's view is its own until the game is over")));
            }
            p
        }
    };
    let total = rows.len() as u64;
    let at = wanted_at.unwrap_or(total).min(total);
    // One replay computed at a time per two cores: the others are the players' moves'. The
    // permit goes with the work, which runs on even if this request is dropped.
    let permit = hub.replay_cache.permit().await;
    let cache = hub.clone();
    let body = tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let _permit = permit;
        let failed =
            |e: arbiter_store::ReplayError| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the game cannot be replayed: {e}"));
        let (shown, turns) = cache.replay_cache.position(&id, &header, &rows, kind, at).map_err(failed)?;
        let upto = &rows[..at as usize];
        let g = shown.as_ref();
        let viewer = place.viewer();
        let mut state = g.view(viewer);
        if !state.is_object() {
            state = json!({ "view": state });
        }
        state["seq"] = json!(at);
        state["game"] = json!(kind.id());
        let name = |s: Seat| ids.get(s.idx()).cloned().unwrap_or_default();
        let d = g.decision();
        let outcome = g.outcome().map(|o| json!({ "winner": o.winner().map(name), "reason": o.reason, "text": o.text }));
        let moves = json!({
            "seq": at, "to_move": d.as_ref().map(|d| name(d.first().seat)), "yours": false, "prompt": null,
            "moves": [], "interjections": [], "outcome": outcome,
        });
        let log: Vec<String> = arbiter_store::log_for(&header, upto, viewer, g).into_iter().map(|e| e.text).collect();
        // Once the game is over nothing is secret: every seat's view of this position, so a
        // client can show every hand at once.
        let seat_views: Value =
            if over { Value::Object((0..n).map(|i| (ids[i].clone(), g.view(Some(Seat(i as u8))))).collect()) } else { Value::Null };
        Ok(json!({
            "type": "replay", "at": at, "total": total, "seat": ids[place.idx(n)],
            "views": views.iter().map(|p| ids[p.idx(n)].clone()).collect::<Vec<_>>(),
            "state": state, "moves": moves, "log": log, "turns": turns, "seat_views": seat_views,
        }))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("server fault: {e}")))??;
    Ok(Json(body))
}
