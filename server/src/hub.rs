//! The games a server has loaded (`Hub`) and each game's room (`Room`): its session, its
//! seats, its topics (one for all, one per seat) and who is connected.
//!
//! A move is judged and stored under the room's session lock, and its messages are sent on
//! the topics before the lock is released, so every connection sees moves in stored order.
//! Storage is blocking (SQLite, fsync): it runs on tokio's blocking threads.

use crate::seats::{Seat, SeatsFile};
use crate::views;
use crate::Config;
use arbiter_engine::Options;
use arbiter_store::{Session, SessionError};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// A message for the connections of one topic, serialised once. `seq` is the move it follows
/// (0 for presence and notices), so a connection that synced at `seq` skips what it has.
#[derive(Debug)]
pub struct Outgoing {
    pub seq: u64,
    pub json: String,
    /// The game is being unloaded: close after sending.
    pub closing: bool,
}

/// A seat's connection state, as the other seats see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    Connected,
    /// Disconnected less than the disconnect timeout ago.
    Away,
    /// Never connected, or away longer than the timeout: the game waits; the link still works.
    Absent,
}

#[derive(Debug)]
struct SeatState {
    connections: usize,
    presence: Presence,
    /// Bumped at each disconnection, so an old timer does not mark a returned seat absent.
    generation: u64,
}

pub struct Room {
    pub id: String,
    session: Mutex<Session>,
    pub seats: SeatsFile,
    /// One topic a seat, and one for all.
    topics: [broadcast::Sender<Arc<Outgoing>>; 3],
    all: broadcast::Sender<Arc<Outgoing>>,
    presence: Mutex<[SeatState; 3]>,
    last_move: Mutex<Instant>,
    /// The last move's text as each seat was sent it (a secret choice reads differently until
    /// revealed; `views::last_move` sends it again once it reads otherwise).
    sent: Mutex<[Option<(u64, String)>; 3]>,
    /// Set when the hub drops this room: its timers stop (a reloaded room has its own).
    unloaded: std::sync::atomic::AtomicBool,
}

/// Why a move was not stored.
#[derive(Debug)]
pub enum MoveError {
    /// The observer cannot move.
    Forbidden(String),
    /// Not this seat's decision.
    Conflict(String),
    /// The referee refused it; nothing changed.
    Refused(String),
    /// Storage failed; nothing was acknowledged.
    Failed(String),
}

impl Room {
    fn new(id: String, session: Session, seats: SeatsFile) -> Room {
        // What each seat reads of the last move now: what a loaded page shows (its sync).
        let rows = session.rows();
        let sent = Seat::ALL
            .map(|seat| rows.last().map(|r| (r.seq, arbiter_store::move_text_for(rows, rows.len() - 1, seat.side(), session.game()))));
        Room {
            id,
            session: Mutex::new(session),
            seats,
            topics: [broadcast::channel(256).0, broadcast::channel(256).0, broadcast::channel(256).0],
            all: broadcast::channel(256).0,
            presence: Mutex::new([0, 1, 2].map(|_| SeatState { connections: 0, presence: Presence::Absent, generation: 0 })),
            last_move: Mutex::new(Instant::now()),
            sent: Mutex::new(sent),
            unloaded: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Run `f` with the session (blocking: call from a blocking thread).
    pub fn with_session<T>(&self, f: impl FnOnce(&mut Session) -> T) -> T {
        let mut s = self.session.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut s)
    }

    /// Presence and the clock added to every state this room sends.
    pub fn extra(&self, s: &Session) -> Value {
        let clock = self.clock(s).map(|c| serde_json::to_value(c).unwrap_or(Value::Null)).unwrap_or(Value::Null);
        json!({ "presence": self.presence_json(), "clock": clock })
    }

    /// Each seat's presence, as every message shows it.
    fn presence_json(&self) -> Value {
        let p = self.presence.lock().unwrap_or_else(|p| p.into_inner());
        json!({ "us": p[0].presence, "ussr": p[1].presence, "observer": p[2].presence })
    }

    /// The chess clock now, if the game has one (`crate::clock`).
    pub fn clock(&self, s: &Session) -> Option<crate::clock::Clock> {
        let total = self.seats.clock_ms?;
        Some(crate::clock::Clock::read(total, s, chrono::Utc::now()))
    }

    /// If the deciding side's time has run out, store `lose on time` for it and tell every
    /// seat (blocking). Returns whether the game ended so.
    pub fn flag_if_due(&self) -> bool {
        if self.unloaded.load(std::sync::atomic::Ordering::SeqCst) {
            return false;
        }
        self.with_session(|s| {
            let Some(c) = self.clock(s) else { return false };
            let Some(side) = c.running else { return false };
            if c.remaining(side) > 0 {
                return false;
            }
            if s.play("lose on time", Some(side)).is_err() {
                return false;
            }
            self.broadcast_last(s);
            true
        })
    }

    /// When the deciding side's time would run out, check the flag (a task on the runtime).
    pub fn schedule_flag(self: &Arc<Self>) {
        let due = self.with_session(|s| self.clock(s).and_then(|c| c.running.map(|side| c.remaining(side))));
        let (Some(ms), Ok(rt)) = (due, tokio::runtime::Handle::try_current()) else { return };
        let room = self.clone();
        rt.spawn(async move {
            tokio::time::sleep(Duration::from_millis(ms.max(0) as u64 + 5)).await;
            let r = room.clone();
            let flagged = tokio::task::spawn_blocking(move || r.flag_if_due()).await.unwrap_or(false);
            if !flagged && !room.unloaded.load(std::sync::atomic::Ordering::SeqCst) {
                // Another move came first: the clock changed hands, and its own check is due.
                room.schedule_flag();
            }
        });
    }

    /// The last stored move, to every seat as that seat may see it (under the session lock,
    /// so messages go out in stored order).
    fn broadcast_last(&self, s: &Session) {
        let extra = self.extra(s);
        let seq = s.seq();
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        for seat in Seat::ALL {
            let (v, shown) = views::last_move(s, seat, &extra, sent[seat.idx()].as_ref());
            sent[seat.idx()] = Some(shown);
            let json = v.to_string();
            // No receiver is not an error: nobody of that seat is connected.
            let _ = self.topics[seat.idx()].send(Arc::new(Outgoing { seq, json, closing: false }));
        }
    }

    pub fn subscribe(&self, seat: Seat) -> (broadcast::Receiver<Arc<Outgoing>>, broadcast::Receiver<Arc<Outgoing>>) {
        (self.topics[seat.idx()].subscribe(), self.all.subscribe())
    }

    /// Judge and store `text` as `seat`, then tell every seat (blocking). A clock that ran out
    /// first ends the game before the move is judged.
    pub fn play(self: &Arc<Self>, seat: Seat, text: &str) -> Result<(u64, Vec<String>), MoveError> {
        let Some(side) = seat.side() else {
            return Err(MoveError::Forbidden("the observer cannot make moves".into()));
        };
        self.flag_if_due();
        let result = self.with_session(|s| {
            match s.game().to_move() {
                // Out of turn only an interjection ("at any time") is open: a stale or mistaken
                // move is a conflict, as before.
                Some(d) if d != side && !is_interjection(s, side, text) => {
                    return Err(MoveError::Conflict(format!("it is the {d}'s decision, not the {side}'s")))
                }
                None => {
                    return Err(MoveError::Refused(match s.game().outcome() {
                        Some(o) => format!("the game is over ({o})"),
                        None => "no decision is pending".into(),
                    }))
                }
                _ => {}
            }
            let log = match s.play(text, Some(side)) {
                Ok((_, report)) => report.lines_for(Some(side)).into_iter().map(String::from).collect(),
                Err(SessionError::Rejected(m)) => return Err(MoveError::Refused(m)),
                Err(e) => return Err(MoveError::Failed(e.to_string())),
            };
            *self.last_move.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            self.broadcast_last(s);
            Ok((s.seq(), log))
        });
        if result.is_ok() {
            self.schedule_flag();
        }
        result
    }

    /// A connection of `seat` opened.
    pub fn connected(&self, seat: Seat) {
        {
            let mut p = self.presence.lock().unwrap_or_else(|p| p.into_inner());
            p[seat.idx()].connections += 1;
            p[seat.idx()].presence = Presence::Connected;
        }
        self.announce_presence();
    }

    /// A connection of `seat` closed. Returns the seat's generation for the away timer, and
    /// whether the room has no connection left.
    pub fn disconnected(&self, seat: Seat) -> (u64, bool) {
        let (generation, empty) = {
            let mut p = self.presence.lock().unwrap_or_else(|p| p.into_inner());
            let st = &mut p[seat.idx()];
            st.connections = st.connections.saturating_sub(1);
            if st.connections == 0 {
                st.presence = Presence::Away;
                st.generation += 1;
            }
            let generation = st.generation;
            (generation, p.iter().all(|s| s.connections == 0))
        };
        self.announce_presence();
        (generation, empty)
    }

    /// The away timer ran out: absent, unless the seat came back meanwhile.
    pub fn away_timeout(&self, seat: Seat, generation: u64) {
        let changed = {
            let mut p = self.presence.lock().unwrap_or_else(|p| p.into_inner());
            let st = &mut p[seat.idx()];
            let stale = st.connections == 0 && st.generation == generation && st.presence == Presence::Away;
            if stale {
                st.presence = Presence::Absent;
            }
            stale
        };
        if changed {
            self.announce_presence();
        }
    }

    pub fn connections(&self) -> usize {
        self.presence.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|s| s.connections).sum()
    }

    pub fn idle_for(&self) -> Duration {
        self.last_move.lock().unwrap_or_else(|p| p.into_inner()).elapsed()
    }

    fn announce_presence(&self) {
        let json = json!({ "type": "presence", "presence": self.presence_json() }).to_string();
        let _ = self.all.send(Arc::new(Outgoing { seq: 0, json, closing: false }));
    }

    /// Tell every connection the game is being unloaded; they close.
    fn close_all(&self, reason: &str) {
        let json = json!({ "type": "closing", "reason": reason }).to_string();
        let _ = self.all.send(Arc::new(Outgoing { seq: 0, json, closing: true }));
    }
}

/// The loaded games.
pub struct Hub {
    pub config: Config,
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    /// Serialises loading, so two requests never open one game twice.
    loading: tokio::sync::Mutex<()>,
}

/// Why a game could not be had.
#[derive(Debug)]
pub enum HubError {
    NotFound,
    Failed(String),
}

impl Hub {
    pub fn new(config: Config) -> Hub {
        Hub { config, rooms: Mutex::new(HashMap::new()), loading: tokio::sync::Mutex::new(()) }
    }

    fn game_path(&self, id: &str) -> PathBuf {
        self.config.data.join(format!("{id}.arbiter"))
    }
    fn seats_path(&self, id: &str) -> PathBuf {
        self.config.data.join(format!("{id}.seats.json"))
    }

    pub fn is_loaded(&self, id: &str) -> bool {
        self.rooms.lock().unwrap_or_else(|p| p.into_inner()).contains_key(id)
    }

    /// A new game with its three tokens: the saved game is created and the seats written
    /// before anything is returned.
    pub async fn create(self: &Arc<Self>, seed: u64, options: Options, clock_ms: Option<u64>) -> Result<(String, [String; 3]), HubError> {
        let hub = self.clone();
        tokio::task::spawn_blocking(move || {
            let id = crate::seats::new_game_id().map_err(HubError::Failed)?;
            let tokens: [String; 3] = [crate::seats::new_token(), crate::seats::new_token(), crate::seats::new_token()]
                .into_iter()
                .collect::<Result<Vec<_>, _>>()
                .map_err(HubError::Failed)?
                .try_into()
                .map_err(|_| HubError::Failed("three tokens".into()))?;
            let seats = SeatsFile { hashes: tokens.clone().map(|t| crate::seats::token_hash(&t)), clock_ms };
            let session = Session::create(&hub.game_path(&id), seed, options).map_err(|e| HubError::Failed(e.to_string()))?;
            seats.save(&hub.seats_path(&id)).map_err(HubError::Failed)?;
            let room = Arc::new(Room::new(id.clone(), session, seats));
            hub.rooms.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), room.clone());
            Ok((id, tokens, room))
        })
        .await
        .map_err(|e| HubError::Failed(format!("creating a game failed: {e}")))?
        .map(|(id, tokens, room)| {
            room.schedule_flag();
            (id, tokens)
        })
    }

    /// The room of game `id`, loaded from its file if it is not in memory.
    pub async fn room(self: &Arc<Self>, id: &str) -> Result<Arc<Room>, HubError> {
        if !crate::seats::valid_game_id(id) {
            return Err(HubError::NotFound);
        }
        if let Some(r) = self.rooms.lock().unwrap_or_else(|p| p.into_inner()).get(id) {
            return Ok(r.clone());
        }
        let _guard = self.loading.lock().await;
        if let Some(r) = self.rooms.lock().unwrap_or_else(|p| p.into_inner()).get(id) {
            return Ok(r.clone());
        }
        let (game, seats) = (self.game_path(id), self.seats_path(id));
        if !game.exists() || !seats.exists() {
            return Err(HubError::NotFound);
        }
        let id2 = id.to_string();
        let room = tokio::task::spawn_blocking(move || -> Result<Room, HubError> {
            let seats = SeatsFile::load(&seats).map_err(HubError::Failed)?;
            let session = Session::open(&game).map_err(|e| HubError::Failed(e.to_string()))?;
            Ok(Room::new(id2, session, seats))
        })
        .await
        .map_err(|e| HubError::Failed(format!("loading a game failed: {e}")))??;
        let room = Arc::new(room);
        self.rooms.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), room.clone());
        // A clock that ran out while the game was not loaded (the server was down) ends it now.
        room.schedule_flag();
        Ok(room)
    }

    /// Unload `room` if it is still the loaded one and nobody is connected. Nothing is lost:
    /// every move was stored before it was acknowledged.
    pub fn unload_if_unused(&self, room: &Arc<Room>) {
        let mut rooms = self.rooms.lock().unwrap_or_else(|p| p.into_inner());
        if room.connections() == 0 && rooms.get(&room.id).is_some_and(|r| Arc::ptr_eq(r, room)) {
            rooms.remove(&room.id);
            room.unloaded.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    /// Unload every game with no move for the idle timeout; its connections are told and
    /// closed (reconnecting loads it again).
    pub fn sweep_idle(&self) {
        let idle: Vec<Arc<Room>> = {
            let mut rooms = self.rooms.lock().unwrap_or_else(|p| p.into_inner());
            let ids: Vec<String> = rooms.iter().filter(|(_, r)| r.idle_for() >= self.config.idle_timeout).map(|(k, _)| k.clone()).collect();
            ids.iter().filter_map(|k| rooms.remove(k)).collect()
        };
        for r in idle {
            r.unloaded.store(true, std::sync::atomic::Ordering::SeqCst);
            r.close_all("no move for the idle timeout: the game was unloaded; reconnect to resume");
        }
    }
}

/// Is `text` one of the interjections `side` may make now?
fn is_interjection(s: &Session, side: arbiter_engine::Side, text: &str) -> bool {
    s.game().parse(text).is_ok_and(|m| s.game().interjections(side).contains(&m))
}
