//! The games a server has loaded (`Hub`) and each game's room (`Room`): its session, its
//! seats, its topics (one for all, one per seat) and who is connected.
//!
//! A move is judged and stored under the room's session lock, and its messages are sent on
//! the topics before the lock is released, so every connection sees moves in stored order.
//! Storage is blocking (SQLite, fsync): it runs on tokio's blocking threads.

use crate::seats::{Place, SeatsFile};
use crate::views;
use crate::{Config, Offered};
use arbiter_kernel::{Catalogue, GameKind, Refusal, Seat};
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
    /// A move was taken back ([`Room::undo`]): the game is back at `seq`, so a connection sends
    /// this whatever it has synced, and moves from `seq + 1` on are new again.
    pub rewind: bool,
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
    /// The computer plays this seat.
    Computer,
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
    /// The kind of game (its id): which client serves it.
    pub kind: &'static str,
    session: Mutex<Session>,
    /// The places' ids: each seat's, then `observer`.
    pub ids: Vec<String>,
    seats: Mutex<SeatsFile>,
    seats_path: PathBuf,
    /// One topic a place (each seat, the observers), and one for all.
    topics: Vec<broadcast::Sender<Arc<Outgoing>>>,
    all: broadcast::Sender<Arc<Outgoing>>,
    presence: Mutex<Vec<SeatState>>,
    last_move: Mutex<Instant>,
    /// The last move's text as each place was sent it (a secret choice reads differently until
    /// revealed; `views::last_move` sends it again once it reads otherwise).
    sent: Mutex<Vec<Option<(u64, String)>>>,
    /// Set when the hub drops this room: its timers stop (a reloaded room has its own).
    unloaded: std::sync::atomic::AtomicBool,
    /// The seats the computer plays.
    computer: Vec<crate::seats::ComputerSeat>,
    /// The computer is thinking (one search at a time).
    thinking: std::sync::atomic::AtomicBool,
}

/// Why a move was not stored, or a seat not joined.
#[derive(Debug)]
pub enum MoveError {
    /// The observer cannot move; a seat is taken or the game is full.
    Forbidden(String),
    /// Not this seat's decision.
    Conflict(String),
    /// The referee refused it (with the game's rule, when one decides); nothing changed.
    Refused(Refusal),
    /// Storage failed; nothing was acknowledged.
    Failed(String),
}

impl Room {
    fn new(id: String, session: Session, seats: SeatsFile, seats_path: PathBuf) -> Room {
        let n = session.header().seats.len();
        let ids: Vec<String> = Place::all(n).map(|p| views::place_id(&session, p)).collect();
        // What each place reads of the last move now: what a loaded page shows (its sync).
        let rows = session.rows();
        let sent = Place::all(n)
            .map(|p| rows.last().map(|r| (r.seq, arbiter_store::move_text_for(rows, rows.len() - 1, p.viewer(), session.game()))))
            .collect();
        let computer = seats.computer.clone();
        let mut presence: Vec<SeatState> =
            (0..=n).map(|_| SeatState { connections: 0, presence: Presence::Absent, generation: 0 }).collect();
        for c in &computer {
            if let Some(p) = presence.get_mut(c.seat as usize) {
                p.presence = Presence::Computer;
            }
        }
        Room {
            computer,
            thinking: std::sync::atomic::AtomicBool::new(false),
            id,
            kind: session.kind().id(),
            session: Mutex::new(session),
            ids,
            seats: Mutex::new(seats),
            seats_path,
            topics: (0..=n).map(|_| broadcast::channel(256).0).collect(),
            all: broadcast::channel(256).0,
            presence: Mutex::new(presence),
            last_move: Mutex::new(Instant::now()),
            sent: Mutex::new(sent),
            unloaded: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The number of seats.
    pub fn seat_count(&self) -> usize {
        self.ids.len() - 1
    }

    /// The place whose token this is.
    pub fn place(&self, token: &str) -> Option<Place> {
        self.seats.lock().unwrap_or_else(|p| p.into_inner()).place(token)
    }

    /// The contract's `join`: a token for seat `wanted` (its id; `None`: the first free seat),
    /// refused if that seat is taken or none is free ("game full"), and for `observer` (the
    /// observers' token is given with the game). The seat is taken for good (blocking: the
    /// seats file is written).
    pub fn join(&self, wanted: Option<&str>) -> Result<(Place, String), MoveError> {
        let mut seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
        let n = self.seat_count();
        let place = match wanted {
            Some("observer") => return Err(MoveError::Conflict("the observers' link is given with the game; ask for it".into())),
            Some(id) => {
                let i = self.ids[..n].iter().position(|x| x == id).ok_or_else(|| {
                    MoveError::Refused(Refusal::new(format!("no seat {id:?} in this game; its seats: {}", self.ids[..n].join(", ")), ""))
                })?;
                if seats.taken(Seat(i as u8)) {
                    return Err(MoveError::Conflict(format!("the {id} seat is taken")));
                }
                Place::Seat(Seat(i as u8))
            }
            None => match (0..n).map(|i| Seat(i as u8)).find(|s| !seats.taken(*s)) {
                Some(s) => Place::Seat(s),
                None => return Err(MoveError::Conflict("game full: every seat is taken".into())),
            },
        };
        let token = crate::seats::new_token().map_err(MoveError::Failed)?;
        let mut next = seats.clone();
        next.hashes[place.idx(n)] = Some(crate::seats::token_hash(&token));
        next.save(&self.seats_path).map_err(MoveError::Failed)?;
        *seats = next;
        Ok((place, token))
    }

    /// Run `f` with the session (blocking: call from a blocking thread).
    pub fn with_session<T>(&self, f: impl FnOnce(&mut Session) -> T) -> T {
        let mut s = self.session.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut s)
    }

    /// Presence and the clock added to every state this room sends.
    pub fn extra(&self, s: &Session) -> Value {
        let clock = self.clock(s).map(|c| c.to_json(&self.ids[..self.seat_count()])).unwrap_or(Value::Null);
        json!({ "presence": self.presence_json(), "clock": clock })
    }

    /// Each seat's presence, as every message shows it.
    fn presence_json(&self) -> Value {
        let p = self.presence.lock().unwrap_or_else(|p| p.into_inner());
        let m: serde_json::Map<String, Value> = self.ids.iter().zip(p.iter()).map(|(id, st)| (id.clone(), json!(st.presence))).collect();
        Value::Object(m)
    }

    /// The chess clock now, if the game has one (`crate::clock`).
    pub fn clock(&self, s: &Session) -> Option<crate::clock::Clock> {
        let total = self.seats.lock().unwrap_or_else(|p| p.into_inner()).clock_ms?;
        Some(crate::clock::Clock::read(total, s, chrono::Utc::now()))
    }

    /// If the deciding seat's time has run out, store the game's timeout move for it and tell
    /// every place (blocking). Returns whether it was stored.
    pub fn flag_if_due(&self) -> bool {
        if self.unloaded.load(std::sync::atomic::Ordering::SeqCst) {
            return false;
        }
        self.with_session(|s| {
            let Some(c) = self.clock(s) else { return false };
            let Some(seat) = c.running else { return false };
            if c.remaining(seat) > 0 {
                return false;
            }
            let Some(timeout) = s.game().timeout_move(seat) else { return false };
            if s.play(&timeout, Some(seat)).is_err() {
                return false;
            }
            self.broadcast_last(s);
            true
        })
    }

    /// When the deciding side's time would run out, check the flag (a task on the runtime).
    pub fn schedule_flag(self: &Arc<Self>) {
        let due = self.with_session(|s| self.clock(s).and_then(|c| c.running.map(|seat| c.remaining(seat))));
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
        let n = self.seat_count();
        for place in Place::all(n) {
            let i = place.idx(n);
            let (v, shown) = views::last_move(s, place, &extra, sent[i].as_ref());
            sent[i] = Some(shown);
            let json = v.to_string();
            // No receiver is not an error: nobody of that place is connected.
            let _ = self.topics[i].send(Arc::new(Outgoing { seq, json, closing: false, rewind: false }));
        }
    }

    pub fn subscribe(&self, place: Place) -> (broadcast::Receiver<Arc<Outgoing>>, broadcast::Receiver<Arc<Outgoing>>) {
        (self.topics[place.idx(self.seat_count())].subscribe(), self.all.subscribe())
    }

    /// Judge and store `text` as `seat`, then tell every seat (blocking). A clock that ran out
    /// first ends the game before the move is judged.
    pub fn play(self: &Arc<Self>, place: Place, text: &str) -> Result<(u64, Vec<String>), MoveError> {
        let Place::Seat(seat) = place else {
            return Err(MoveError::Forbidden("the observer cannot make moves".into()));
        };
        self.flag_if_due();
        let result = self.with_session(|s| {
            match s.game().decision().map(|t| t.seat) {
                // Out of turn only an interjection ("at any time") is open: a stale or mistaken
                // move is a conflict, as before.
                Some(d) if d != seat && !is_interjection(s, seat, text) => {
                    return Err(MoveError::Conflict(format!("it is the {}'s decision, not the {}'s", s.seat_name(d), s.seat_name(seat))))
                }
                None => {
                    return Err(MoveError::Refused(Refusal::new(
                        match s.game().outcome() {
                            Some(o) => format!("the game is over ({})", o.text),
                            None => "no decision is pending".into(),
                        },
                        "",
                    )))
                }
                _ => {}
            }
            let log = match s.play(text, Some(seat)) {
                Ok((_, report)) => report.lines_for(Some(seat)).map(String::from).collect(),
                Err(SessionError::Rejected(m)) => return Err(MoveError::Refused(m)),
                Err(e) => return Err(MoveError::Failed(e.to_string())),
            };
            *self.last_move.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            self.broadcast_last(s);
            Ok((s.seq(), log))
        });
        if result.is_ok() {
            self.schedule_flag();
            self.computer_turn();
        }
        result
    }

    /// If a computer seat decides now, it thinks on a blocking thread (on a copy of the game,
    /// the session unlocked meanwhile) and then moves through [`Room::play`], the path of a
    /// person's move. Its seed comes from the game's seed and the move's number.
    pub fn computer_turn(self: &Arc<Self>) {
        if self.computer.is_empty() || self.unloaded.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let job = self.with_session(|s| {
            let seat = s.game().decision()?.seat;
            let c = self.computer.iter().find(|c| c.seat == seat.0)?;
            let seed = arbiter_kernel::stable_hash(&(s.header().seed, s.seq()));
            Some((seat, arbiter_kernel::search::Plan::new(c.agent, seed), s.game().boxed_clone(), s.seq()))
        });
        let (Some((seat, plan, game, seq)), Ok(rt)) = (job, tokio::runtime::Handle::try_current()) else { return };
        if self.thinking.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let room = self.clone();
        rt.spawn_blocking(move || {
            /// Clears `thinking` however the search ends (a panic included).
            struct Done<'a>(&'a std::sync::atomic::AtomicBool);
            impl Drop for Done<'_> {
                fn drop(&mut self) {
                    self.0.store(false, std::sync::atomic::Ordering::SeqCst);
                }
            }
            let chosen = {
                let _done = Done(&room.thinking);
                let chosen = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| game.agent_move(seat, &plan, &|_| {})));
                // A search that failed (an engine fault) must not stall the game: a random
                // legal move instead, said in the server's log.
                match chosen {
                    Ok(Ok(text)) => Ok(text),
                    other => {
                        eprintln!(
                            "arbiter serve: game {}: the computer's search failed ({other:?}); it plays a random legal move",
                            room.id
                        );
                        game.agent_move(seat, &arbiter_kernel::search::Plan::new(arbiter_kernel::search::Agent::Random, plan.seed), &|_| {})
                    }
                }
            };
            if room.unloaded.load(std::sync::atomic::Ordering::SeqCst) {
                // A reloaded room thinks for itself.
                return;
            }
            match chosen {
                // Unless someone moved meanwhile (an interjection, a flag): then think again.
                Ok(text) if room.with_session(|s| s.seq()) == seq => {
                    if let Err(e) = room.play(Place::Seat(seat), &text) {
                        eprintln!("arbiter serve: game {}: the computer's move {text} was not stored: {e:?}", room.id);
                    }
                }
                Ok(_) => room.computer_turn(),
                Err(r) => eprintln!("arbiter serve: game {}: the computer could not move: {r}", room.id),
            }
        });
    }

    /// A connection of `seat` opened.
    pub fn connected(&self, place: Place) {
        {
            let i = place.idx(self.seat_count());
            let mut p = self.presence.lock().unwrap_or_else(|p| p.into_inner());
            p[i].connections += 1;
            p[i].presence = Presence::Connected;
        }
        self.announce_presence();
    }

    /// A connection of `seat` closed. Returns the seat's generation for the away timer, and
    /// whether the room has no connection left.
    pub fn disconnected(&self, place: Place) -> (u64, bool) {
        let (generation, empty) = {
            let i = place.idx(self.seat_count());
            let mut p = self.presence.lock().unwrap_or_else(|p| p.into_inner());
            let st = &mut p[i];
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
    pub fn away_timeout(&self, place: Place, generation: u64) {
        let changed = {
            let i = place.idx(self.seat_count());
            let mut p = self.presence.lock().unwrap_or_else(|p| p.into_inner());
            let st = &mut p[i];
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
        let _ = self.all.send(Arc::new(Outgoing { seq: 0, json, closing: false, rewind: false }));
    }

    /// Tell every connection the game is being unloaded; they close.
    fn close_all(&self, reason: &str) {
        let json = json!({ "type": "closing", "reason": reason }).to_string();
        let _ = self.all.send(Arc::new(Outgoing { seq: 0, json, closing: true, rewind: false }));
    }
}

impl Room {
    /// Take back `place`'s last move under the table's rules (`Session::undo`: only at the
    /// seat's own decision, its own move, never past a random outcome, revealed information or
    /// another seat's move), then tell every place (blocking). Returns the game's `seq` after
    /// and the move taken back as the seat reads it.
    ///
    /// The computer never races an undo: it thinks only at its own decision, and an undo is
    /// open only at the seat's; an undo is refused while the computer is thinking all the same
    /// (it could have been asked to think before a move that handed the decision back).
    pub fn undo(self: &Arc<Self>, place: Place) -> Result<(u64, String), MoveError> {
        let Place::Seat(seat) = place else {
            return Err(MoveError::Forbidden("the observer cannot take moves back".into()));
        };
        if self.thinking.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(MoveError::Conflict("the computer is thinking: no move can be taken back now".into()));
        }
        self.flag_if_due();
        let result = self.with_session(|s| {
            match s.game().decision().map(|t| t.seat) {
                Some(d) if d != seat => {
                    return Err(MoveError::Conflict(format!(
                        "it is the {}'s decision: a move can be taken back only at your own decision, before another seat has moved",
                        s.seat_name(d)
                    )))
                }
                _ => {}
            }
            // What each place read of the move, before its row is deleted (a secret choice
            // stays secret in the line that says it was taken back).
            let n = self.seat_count();
            let texts: Vec<String> = match s.rows().len() {
                0 => Vec::new(),
                len => Place::all(n).map(|p| arbiter_store::move_text_for(s.rows(), len - 1, p.viewer(), s.game())).collect(),
            };
            let row = match s.undo() {
                Ok(row) => row,
                Err(SessionError::Rejected(r)) => return Err(MoveError::Refused(r)),
                Err(e) => return Err(MoveError::Failed(e.to_string())),
            };
            *self.last_move.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            self.broadcast_undo(s, &row, &texts);
            Ok((s.seq(), texts.get(seat.idx()).cloned().unwrap_or_default()))
        });
        if result.is_ok() {
            // The clock changed hands back (a clock reads the stored moves' times).
            self.schedule_flag();
        }
        result
    }

    /// A move was taken back: each place gets its state, decision and whole log again, and a
    /// line saying what was taken back (the row is deleted, so only this message tells it).
    fn broadcast_undo(&self, s: &Session, row: &arbiter_store::EventRow, texts: &[String]) {
        let extra = self.extra(s);
        let seq = s.seq();
        let n = self.seat_count();
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        let rows = s.rows();
        for place in Place::all(n) {
            let i = place.idx(n);
            let text = texts.get(i).cloned().unwrap_or_default();
            let mut v = json!({
                "type": "undo",
                "seq": seq,
                "undone": { "seq": row.seq, "side": views::place_id(s, Place::Seat(row.seat)), "text": text },
                "line": format!("The {} took back its move #{}: {}", s.seat_name(row.seat), row.seq, text),
                "state": views::state(s, place),
                "moves": views::moves(s, place),
                "log": views::log(s, place),
            });
            views::merge(&mut v["state"], &extra);
            // The last move is now the one before: what this place reads of it.
            sent[i] = rows.last().map(|r| (r.seq, arbiter_store::move_text_for(rows, rows.len() - 1, place.viewer(), s.game())));
            let _ = self.topics[i].send(Arc::new(Outgoing { seq, json: v.to_string(), closing: false, rewind: true }));
        }
    }
}

/// The loaded games.
pub struct Hub {
    pub config: Config,
    /// The games offered, with their clients.
    pub offered: Vec<Offered>,
    catalogue: Catalogue,
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    /// Serialises loading, so two requests never open one game twice.
    loading: tokio::sync::Mutex<()>,
}

/// Why a game could not be had.
#[derive(Debug)]
pub enum HubError {
    NotFound,
    /// The new game's options were refused.
    Invalid(String),
    Failed(String),
}

impl Hub {
    /// `offered` must not be empty; the first is the default game.
    pub fn new(config: Config, offered: Vec<Offered>) -> Hub {
        let mut catalogue = Catalogue::new(offered.iter().map(|o| o.kind).collect());
        if let Some(o) = offered.iter().find(|o| o.reads_unnamed) {
            catalogue = catalogue.reading_unnamed_as(o.kind);
        }
        Hub { config, offered, catalogue, rooms: Mutex::new(HashMap::new()), loading: tokio::sync::Mutex::new(()) }
    }

    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// The game offered whose kind is `id`.
    pub fn offered(&self, id: &str) -> Option<&Offered> {
        self.offered.iter().find(|o| o.kind.id() == id)
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

    /// The contract's `init`: a new game of `kind` with `options` (refused with the game's
    /// reason if invalid), the tokens of the seats in `seats` (each seat's index; the others
    /// stay free for `join`) and the observers' token, by place index. The saved game is
    /// created and the seats written before anything is returned.
    pub async fn create(
        self: &Arc<Self>,
        kind: &'static dyn GameKind,
        options: Value,
        seed: u64,
        seats: Option<Vec<usize>>,
        clock_ms: Option<u64>,
        computer: Option<crate::seats::ComputerSeat>,
    ) -> Result<(String, Vec<String>, Vec<Option<String>>), HubError> {
        let hub = self.clone();
        tokio::task::spawn_blocking(move || {
            let id = crate::seats::new_game_id().map_err(HubError::Failed)?;
            let path = hub.game_path(&id);
            let session = Session::create(&path, kind, &options, seed).map_err(|e| match e {
                SessionError::Rejected(m) => HubError::Invalid(m.to_string()),
                e => HubError::Failed(e.to_string()),
            })?;
            let n = session.header().seats.len();
            if clock_ms.is_some() && session.game().timeout_move(Seat(0)).is_none() {
                drop(session);
                let _ = std::fs::remove_file(&path);
                return Err(HubError::Invalid(format!("{} is not played on a clock", kind.title())));
            }
            let taken: Vec<bool> = (0..=n).map(|i| i == n || seats.as_ref().is_none_or(|s| s.contains(&i))).collect();
            let tokens: Vec<Option<String>> = taken
                .iter()
                .map(|t| if *t { crate::seats::new_token().map(Some) } else { Ok(None) })
                .collect::<Result<_, _>>()
                .map_err(HubError::Failed)?;
            let mut hashes: Vec<Option<String>> = tokens.iter().map(|t| t.as_ref().map(|t| crate::seats::token_hash(t))).collect();
            if let Some(c) = computer {
                // The computer's seat is taken by a token nobody is given.
                hashes[c.seat as usize] = Some(crate::seats::token_hash(&crate::seats::new_token().map_err(HubError::Failed)?));
            }
            let file = SeatsFile { hashes, clock_ms, computer: computer.into_iter().collect() };
            file.save(&hub.seats_path(&id)).map_err(HubError::Failed)?;
            let room = Arc::new(Room::new(id.clone(), session, file, hub.seats_path(&id)));
            let ids = room.ids.clone();
            hub.rooms.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), room.clone());
            Ok((id, ids, tokens, room))
        })
        .await
        .map_err(|e| HubError::Failed(format!("creating a game failed: {e}")))?
        .map(|(id, ids, tokens, room)| {
            room.schedule_flag();
            room.computer_turn();
            (id, ids, tokens)
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
        let catalogue = self.catalogue.clone();
        let room = tokio::task::spawn_blocking(move || -> Result<Room, HubError> {
            let file = SeatsFile::load(&seats).map_err(HubError::Failed)?;
            // The reason (which names the data folder's files) goes to the server's log; a
            // client, which may hold no token yet, is told only that the game cannot be loaded.
            let session = Session::open(&game, &catalogue).map_err(|e| {
                eprintln!("arbiter serve: game {id2}: {e}");
                HubError::Failed("this game cannot be loaded: the server's log says why".into())
            })?;
            if file.seats() != session.header().seats.len() {
                return Err(HubError::Failed(format!("{} does not match the game's seats", seats.display())));
            }
            Ok(Room::new(id2, session, file, seats))
        })
        .await
        .map_err(|e| HubError::Failed(format!("loading a game failed: {e}")))??;
        let room = Arc::new(room);
        self.rooms.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), room.clone());
        // A clock that ran out while the game was not loaded (the server was down) ends it now.
        room.schedule_flag();
        // The computer was to move when the game was unloaded (or the server stopped).
        room.computer_turn();
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

/// Is `text` one of the interjections `seat` may make now?
fn is_interjection(s: &Session, seat: Seat, text: &str) -> bool {
    s.game().canonical(text).is_ok_and(|m| s.game().interjections(seat).contains(&m))
}
