//! The games a server has loaded (`Hub`) and each game's room (`Room`): its session, its
//! seats, its topics (one for all, one per seat) and who is connected.
//!
//! A move is judged and stored under the room's session lock, and its messages are sent on
//! the topics before the lock is released, so every connection sees moves in stored order.
//! Storage is blocking (SQLite, fsync): it runs on tokio's blocking threads.

use crate::seats::{Place, SeatsFile};
use crate::storage::{Session, Storage};
use crate::views;
use crate::{Config, Offered};
use arbiter_kernel::{Catalogue, GameKind, Refusal, Seat};
use arbiter_store::{SessionError, StoreError};
use serde_json::{json, Value};
use std::collections::HashMap;
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

/// How many games a core makes at once ([`Hub::create`]): four. More at once answer a burst of
/// creations sooner, and the moves of games under way wait longer (BENCHMARKS.md, "Store
/// layout").
const CREATIONS_PER_CORE: usize = 4;

pub struct Room {
    pub id: String,
    /// The kind of game (its id): which client serves it.
    pub kind: &'static str,
    session: Mutex<Session>,
    /// The places' ids: each seat's, then `observer`.
    pub ids: Vec<String>,
    seats: Mutex<SeatsFile>,
    /// Where its seats document is written.
    storage: Arc<Storage>,
    /// One topic a place (each seat, the observers), and one for all.
    topics: Vec<broadcast::Sender<Arc<Outgoing>>>,
    all: broadcast::Sender<Arc<Outgoing>>,
    /// Who is at the table (`crate::presence`).
    presence: crate::presence::Presences,
    last_move: Mutex<Instant>,
    /// When a request last asked the hub for this copy ([`Hub::room`]): a copy no connection
    /// holds is unloaded once unused for `Config::unopened_unload`.
    used: Mutex<Instant>,
    /// The last move's text as each place was sent it (a secret choice reads differently until
    /// revealed; `views::last_move` sends it again once it reads otherwise).
    sent: Mutex<Vec<Option<(u64, String)>>>,
    /// Set when the hub drops this room, under the session lock ([`Hub::retire`]): its timers
    /// stop (a reloaded room has its own), and nothing more is stored through it.
    unloaded: std::sync::atomic::AtomicBool,
    /// The seats the computer plays.
    computer: Vec<crate::seats::ComputerSeat>,
    /// The computer is thinking (one search at a time), or waiting for its turn to.
    thinking: std::sync::atomic::AtomicBool,
    /// The server's pool the computer's searches run on (`crate::computer`).
    pool: Arc<crate::computer::Pool>,
    /// Turn alerts to the seats' webhook URLs (`crate::webhook`), and each seat's last one.
    webhooks: Option<Arc<crate::webhook::Sender>>,
    deliveries: crate::webhook::LastDeliveries,
    /// The server's list of open games, told of this game's moves (`crate::lobby`).
    lobby: Arc<crate::lobby::Lobby>,
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
    /// This copy of the game was unloaded before the move or join was judged; nothing changed.
    /// The loaded copy ([`Hub::room`]) takes it.
    Unloaded,
}

impl Room {
    fn new(
        id: String,
        session: Session,
        seats: SeatsFile,
        storage: Arc<Storage>,
        lobby: Arc<crate::lobby::Lobby>,
        pool: Arc<crate::computer::Pool>,
    ) -> Room {
        let n = session.header().seats.len();
        lobby.put(crate::lobby::Listing::of(&id, &session, &seats));
        let ids: Vec<String> = Place::all(n).map(|p| views::place_id(&session, p)).collect();
        // What each place reads of the last move now: what a loaded page shows (its sync).
        let rows = session.rows();
        let sent = Place::all(n)
            .map(|p| rows.last().map(|r| (r.seq, arbiter_store::move_text_for(rows, rows.len() - 1, p.viewer(), session.game()))))
            .collect();
        let computer = seats.computer.clone();
        let presence = crate::presence::Presences::new(n + 1, computer.iter().map(|c| usize::from(c.seat)));
        Room {
            lobby,
            computer,
            thinking: std::sync::atomic::AtomicBool::new(false),
            pool,
            id,
            kind: session.kind().id(),
            session: Mutex::new(session),
            ids,
            seats: Mutex::new(seats),
            storage,
            topics: (0..=n).map(|_| broadcast::channel(256).0).collect(),
            all: broadcast::channel(256).0,
            presence,
            last_move: Mutex::new(Instant::now()),
            used: Mutex::new(Instant::now()),
            sent: Mutex::new(sent),
            unloaded: std::sync::atomic::AtomicBool::new(false),
            webhooks: None,
            deliveries: Arc::new(Mutex::new(vec![None; n])),
        }
    }

    /// The room calls the seats' webhooks through `sender`.
    fn with_webhooks(mut self, sender: Arc<crate::webhook::Sender>) -> Room {
        self.webhooks = Some(sender);
        self
    }

    /// `seat`'s webhook URL and how its last call went.
    pub fn webhook(&self, seat: Seat) -> (Option<String>, Option<crate::webhook::Delivery>) {
        let url = self.seats.lock().unwrap_or_else(|p| p.into_inner()).webhook(seat).map(String::from);
        let last = self.deliveries.lock().unwrap_or_else(|p| p.into_inner()).get(seat.idx()).cloned().flatten();
        (url, last)
    }

    /// Register (or with `None` remove) `seat`'s webhook URL, checked by the caller; written to
    /// the seats document before it is answered (blocking).
    pub fn set_webhook(&self, seat: Seat, url: Option<String>) -> Result<(), MoveError> {
        let n = self.seat_count();
        self.update_seats(|f| {
            f.webhooks.resize(n, None);
            f.webhooks[seat.idx()] = url;
            if f.webhooks.iter().all(Option::is_none) {
                f.webhooks.clear();
            }
            Ok(Some(()))
        })
        .map(|_| ())
    }

    /// `seat` has come to decide, or to choose at the same time as the seat deciding, as
    /// `prompt` asks: call its webhook, if it has one (on a task of its own: this returns at
    /// once, under the session lock).
    fn alert(&self, s: &Session, seat: Seat, prompt: String) {
        let Some(sender) = &self.webhooks else { return };
        let Some(url) = self.seats.lock().unwrap_or_else(|p| p.into_inner()).webhook(seat).map(String::from) else { return };
        let rows = s.rows();
        let last = rows.last().map(|_| arbiter_store::move_text_for(rows, rows.len() - 1, Some(seat), s.game()));
        let title = s.kind().title();
        let seat_name = s.seat_name(seat);
        // `text` and `content`: what chat services' incoming webhooks post (Slack reads `text`,
        // Discord `content`); the rest for programs. Nothing another seat could not know but
        // the seat's own prompt; never the seat's token.
        let line = format!("Your move in {title}, game {} (move {}), as the {seat_name}: {prompt}", self.id, s.seq() + 1);
        let body = json!({
            "type": "your_turn",
            "game": self.id,
            "kind": self.kind,
            "title": title,
            "seat": self.ids[seat.idx()],
            "seq": s.seq(),
            "prompt": prompt,
            "last_move": last,
            "text": line,
            "content": line,
        });
        let deliveries = self.deliveries.clone();
        sender.deliver(format!("{}/{}", self.id, seat.0), url, body, s.seq(), move |d| {
            if let Some(slot) = deliveries.lock().unwrap_or_else(|p| p.into_inner()).get_mut(seat.idx()) {
                *slot = Some(d);
            }
        });
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
    /// seats document is written).
    pub fn join(&self, wanted: Option<&str>, accept_chosen_seed: bool) -> Result<(Place, String), MoveError> {
        // Under the session lock, as a move: an unloaded copy writes nothing (a reloaded copy
        // would not know the seat was taken).
        let session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_retired() {
            return Err(MoveError::Unloaded);
        }
        if let Some(why) = self.abandoned() {
            return Err(MoveError::Conflict(why));
        }
        let mut seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
        if seats.seed_chosen && !accept_chosen_seed {
            return Err(MoveError::Conflict(
                "the creator of this game chose its seed, so they can know every draw and your hidden cards: join with \"accept_chosen_seed\": true to play it anyway"
                    .into(),
            ));
        }
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
        self.save_seats(&session, &next)?;
        *seats = next;
        Ok((place, token))
    }

    /// Run `f` with the session (blocking: call from a blocking thread).
    pub fn with_session<T>(&self, f: impl FnOnce(&mut Session) -> T) -> T {
        let mut s = self.session.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut s)
    }

    /// Run `f` with the session if nobody holds it now (no waiting: callable on an async
    /// thread); `None` if it is held (a move or an undo being judged and stored, through its
    /// fsync).
    pub fn try_with_session<T>(&self, f: impl FnOnce(&mut Session) -> T) -> Option<T> {
        let mut s = match self.session.try_lock() {
            Ok(s) => s,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        Some(f(&mut s))
    }

    /// Presence and the clock added to every state this room sends.
    pub fn extra(&self, s: &Session) -> Value {
        let clock = self.clock(s).map(|c| c.to_json(&self.ids[..self.seat_count()])).unwrap_or(Value::Null);
        let seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
        let mut v = json!({ "presence": self.presence_json(), "clock": clock, "seed_chosen": seats.seed_chosen });
        if let Some(when) = &seats.abandoned {
            v["abandoned"] = json!(when);
        }
        v
    }

    /// Why nothing more may be played, if the game was abandoned.
    fn abandoned(&self) -> Option<String> {
        let when = self.seats.lock().unwrap_or_else(|p| p.into_inner()).abandoned.clone()?;
        Some(format!("this game was abandoned ({when}: every seat away too long, no clock): it can be read and replayed, not played"))
    }

    /// A seat's last connection closed now: remember when (blocking: the seats document is
    /// written). Under the session lock, as a join, so a copy being unloaded writes nothing.
    /// Written at most once in `every` (a tenth of the abandonment delay, a minute at most): a
    /// client connecting and closing in a loop does not write and sync for each close, and the
    /// time kept is never older than that, beside days before a game is abandoned.
    pub fn seen(&self, every: Duration) {
        let session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_retired() {
            return;
        }
        let mut seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
        let now = chrono::Utc::now();
        let recent = seats
            .last_seen
            .as_deref()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
            .and_then(|t| (now - t.with_timezone(&chrono::Utc)).to_std().ok())
            .is_some_and(|ago| ago < every);
        if recent {
            return;
        }
        let mut next = seats.clone();
        next.last_seen = Some(now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        match self.save_seats(&session, &next) {
            Ok(()) => *seats = next,
            Err(MoveError::Failed(e)) => eprintln!("arbiter serve: {e}"),
            Err(_) => {}
        }
    }

    /// Mark the game abandoned if it is (blocking): not over, no clock (a clock ends a game
    /// whose seats are away: their time runs out), no seat connected, and nothing from any seat
    /// (a move, a connection) for `after`. Returns whether it was marked now.
    pub fn abandon_if_due(&self, after: Duration) -> bool {
        let s = self.session.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_retired() || s.game().outcome().is_some() {
            return false;
        }
        let n = self.seat_count();
        if self.presence.any_seat_connected(n) {
            return false;
        }
        let mut seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
        if seats.clock_ms.is_some() || seats.abandoned.is_some() {
            return false;
        }
        let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok().map(|d| d.with_timezone(&chrono::Utc));
        let last = [Some(s.header().created_at.as_str()), s.rows().last().map(|r| r.at.as_str()), seats.last_seen.as_deref()]
            .into_iter()
            .flatten()
            .filter_map(parse)
            .max();
        let now = chrono::Utc::now();
        let Some(last) = last else { return false };
        if (now - last).to_std().unwrap_or_default() < after {
            return false;
        }
        let mut next = seats.clone();
        next.abandoned = Some(now.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        match self.save_seats(&s, &next) {
            Ok(()) => {
                *seats = next;
                // Out of the lobby's list.
                self.lobby.put(crate::lobby::Listing::of(&self.id, &s, &seats));
                true
            }
            Err(e) => {
                if let MoveError::Failed(e) = e {
                    eprintln!("arbiter serve: {e}");
                }
                false
            }
        }
    }

    /// When the running clock of this game runs out, if it has one running.
    fn clock_due(&self) -> Option<Instant> {
        self.with_session(|s| {
            let (_, ms) = self.clock(s)?.next_due()?;
            Some(Instant::now() + Duration::from_millis(ms.max(0) as u64))
        })
    }

    /// Each seat's presence, as every message shows it.
    fn presence_json(&self) -> Value {
        self.presence.json(&self.ids)
    }

    /// The chess clock now, if the game has one (`crate::clock`).
    pub fn clock(&self, s: &Session) -> Option<crate::clock::Clock> {
        let total = self.seats.lock().unwrap_or_else(|p| p.into_inner()).clock_ms?;
        Some(crate::clock::Clock::read(total, s, chrono::Utc::now()))
    }

    /// If an acting seat's time has run out, store the game's timeout move for it and tell
    /// every place (blocking), for each such seat in turn (at a simultaneous step several may
    /// run out at once). Returns whether one was stored.
    pub fn flag_if_due(&self) -> bool {
        self.with_session(|s| {
            let mut flagged = false;
            // At most one timeout move a seat: a game whose timeout move leaves the seat acting
            // is not asked again here (its next check is scheduled as usual).
            for _ in 0..self.seat_count() {
                if self.is_retired() {
                    break;
                }
                let Some((seat, ms)) = self.clock(s).and_then(|c| c.next_due()) else { break };
                if ms > 0 {
                    break;
                }
                let Some(timeout) = s.game().timeout_move(seat) else { break };
                if s.play(&timeout, Some(seat)).is_err() {
                    break;
                }
                self.broadcast_last(s);
                flagged = true;
            }
            flagged
        })
    }

    /// When an acting seat's time would run out, check the flag (a task on the runtime).
    pub fn schedule_flag(self: &Arc<Self>) {
        let due = self.with_session(|s| self.clock(s).and_then(|c| c.next_due().map(|(_, ms)| ms)));
        let (Some(ms), Ok(rt)) = (due, tokio::runtime::Handle::try_current()) else { return };
        // Held weakly while it waits (hours, on a long clock): an unloaded copy is dropped, its
        // file closed; the loaded copy has its own timer, and a game not loaded its alarm.
        let weak = Arc::downgrade(self);
        rt.spawn(async move {
            tokio::time::sleep(Duration::from_millis(ms.max(0) as u64 + 5)).await;
            let Some(room) = weak.upgrade() else { return };
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
    ///
    /// A place nobody is subscribed to gets no message built: its state, decision and view
    /// would be made for nobody (most of a move's cost when no one watches over WebSocket). Its
    /// `sent` is kept all the same. This is safe against a connection arriving meanwhile: a
    /// connection subscribes before its `sync` is read under this lock, so it either counts
    /// here (and is sent the move) or reads a sync that already holds the move.
    fn broadcast_last(&self, s: &Session) {
        let mut extra = None;
        let seq = s.seq();
        let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
        let n = self.seat_count();
        for place in Place::all(n) {
            let i = place.idx(n);
            if self.topics[i].receiver_count() == 0 {
                sent[i] = views::last_move_text(s, place);
                continue;
            }
            let extra = extra.get_or_insert_with(|| self.extra(s));
            let (v, shown) = views::last_move(s, place, extra, sent[i].as_ref());
            sent[i] = Some(shown);
            let json = v.to_string();
            // A receiver gone since the count is not an error: nobody of that place is connected.
            let _ = self.topics[i].send(Arc::new(Outgoing { seq, json, closing: false, rewind: false }));
        }
        drop(sent);
        self.lobby.put(self.listing(s));
    }

    /// What the lobby shows of this game now (the session is the caller's, locked).
    pub fn listing(&self, s: &Session) -> crate::lobby::Listing {
        crate::lobby::Listing::of(&self.id, s, &self.seats.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Tell the lobby this game's facts again (after its seats changed; blocking).
    pub fn relist(&self) {
        let l = self.with_session(|s| self.listing(s));
        self.lobby.put(l);
    }

    /// A copy of the seats document as it stands.
    pub fn seats_file(&self) -> SeatsFile {
        self.seats.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Change the seats document with `f` and write it (blocking); unchanged if `f` or the write
    /// fails. `f` may also just read it (returning `None` keeps the document unwritten). Under the
    /// session lock, as a join: a retired copy writes nothing ([`MoveError::Unloaded`]; a copy
    /// loaded again would never know).
    pub fn update_seats<T>(&self, f: impl FnOnce(&mut SeatsFile) -> Result<Option<T>, String>) -> Result<Option<T>, MoveError> {
        let session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        if self.is_retired() {
            return Err(MoveError::Unloaded);
        }
        let mut seats = self.seats.lock().unwrap_or_else(|p| p.into_inner());
        let mut next = seats.clone();
        let out = f(&mut next).map_err(MoveError::Failed)?;
        if next != *seats {
            self.save_seats(&session, &next)?;
            *seats = next;
        }
        Ok(out)
    }

    /// Send `json` to every connection of the game.
    pub fn tell_all(&self, json: String) {
        let _ = self.all.send(Arc::new(Outgoing { seq: 0, json, closing: false, rewind: false }));
    }

    /// Send `json` to the connections of the places `to`. Its `seq` is the highest, so that a
    /// connection never skips it as a move it already has (it is not a move).
    pub fn tell(&self, to: &[Place], json: String) {
        let n = self.seat_count();
        let out = Arc::new(Outgoing { seq: u64::MAX, json, closing: false, rewind: false });
        for p in to {
            let _ = self.topics[p.idx(n)].send(out.clone());
        }
    }

    pub fn subscribe(&self, place: Place) -> (broadcast::Receiver<Arc<Outgoing>>, broadcast::Receiver<Arc<Outgoing>>) {
        (self.topics[place.idx(self.seat_count())].subscribe(), self.all.subscribe())
    }

    /// Whether this copy of the game was unloaded (another copy may be loaded since). Read under
    /// the session lock to know that nothing will change through it.
    pub fn is_retired(&self) -> bool {
        self.unloaded.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// A request used this copy now.
    fn touch(&self) {
        *self.used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// How long since a request last used this copy.
    fn unused_for(&self) -> Duration {
        self.used.lock().unwrap_or_else(|p| p.into_inner()).elapsed()
    }

    /// Write the seats document `next` (under the session lock, held as `session`).
    fn save_seats(&self, session: &Session, next: &SeatsFile) -> Result<(), MoveError> {
        self.storage.save_seats(&self.id, session, next).map_err(|e| match self.lost_lease(&e) {
            true => MoveError::Unloaded,
            false => MoveError::Failed(format!("game {}'s seats document was not stored: {e}", self.id)),
        })
    }

    /// Whether write failure `e` found this game's lease lost; if so this copy is retired
    /// ([`Room::lose`]) and the caller tries again on the copy loaded now (the new owner's,
    /// reached by forwarding): [`MoveError::Unloaded`].
    pub fn lost_lease(&self, e: &StoreError) -> bool {
        let lost = matches!(e, StoreError::LeaseLost(_));
        if lost {
            self.lose();
        }
        lost
    }

    /// Another process holds this game's lease (a write found it lost): this copy, stale
    /// perhaps, writes nothing more ([`Hub::room`] loads the game again, from its owner's
    /// side), and its connections are closed so that their clients reconnect to the owner.
    /// Called under the session lock, as unloading marks a copy retired.
    pub fn lose(&self) {
        if !self.unloaded.swap(true, std::sync::atomic::Ordering::SeqCst) {
            eprintln!("arbiter serve: game {}: its lease was lost (another server holds it now): unloaded", self.id);
            self.close_all("another server took this game over: reconnect");
        }
    }

    /// Whether this copy of the game may change now (a move, an undo). Called under the session
    /// lock, which unloading takes to retire a copy: a change is stored before the game is
    /// unloaded, or not at all through this copy (the caller retries on the loaded one). An
    /// abandoned game is read, not played.
    fn open_to_change(&self) -> Result<(), MoveError> {
        if self.is_retired() {
            return Err(MoveError::Unloaded);
        }
        match self.abandoned() {
            Some(why) => Err(MoveError::Conflict(why)),
            None => Ok(()),
        }
    }

    /// Judge and store `text` as `seat`, then tell every seat (blocking). A clock that ran out
    /// first ends the game before the move is judged.
    pub fn play(self: &Arc<Self>, place: Place, text: &str) -> Result<(u64, Vec<String>), MoveError> {
        let Place::Seat(seat) = place else {
            return Err(MoveError::Forbidden("the observer cannot make moves".into()));
        };
        self.flag_if_due();
        let result = self.with_session(|s| {
            self.open_to_change()?;
            let before = s.game().decision();
            let acting_before: Vec<Seat> = before.iter().flat_map(|d| d.seats()).collect();
            match &before {
                // Out of turn only an interjection ("at any time") is open: a stale or mistaken
                // move is a conflict, as before.
                Some(d) if !d.includes(seat) && !is_interjection(s, seat, text) => {
                    return Err(match interjection_refusal(s, seat, text) {
                        Some(r) => MoveError::Refused(r),
                        None => {
                            let now: Vec<String> = d.seats().map(|a| s.seat_name(a)).collect();
                            MoveError::Conflict(format!("it is the {}'s decision, not the {}'s", now.join(" and "), s.seat_name(seat)))
                        }
                    })
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
                Err(SessionError::Store(e)) if self.lost_lease(&e) => return Err(MoveError::Unloaded),
                Err(e) => return Err(MoveError::Failed(e.to_string())),
            };
            *self.last_move.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            self.broadcast_last(s);
            // Each seat that has come to act, or to act otherwise: to decide first, or at the
            // same time as another seat (not one going on with its own decision).
            if let Some(next) = s.game().decision() {
                let first = |seats: &[Seat], seat| seats.first() == Some(&seat);
                let now: Vec<Seat> = next.seats().collect();
                for t in
                    next.turns().iter().filter(|t| !acting_before.contains(&t.seat) || first(&acting_before, t.seat) != first(&now, t.seat))
                {
                    self.alert(s, t.seat, t.prompt.clone());
                }
            }
            Ok((s.seq(), log))
        });
        if result.is_ok() {
            self.schedule_flag();
            self.computer_turn();
        }
        result
    }

    /// If a computer seat decides now, it thinks on the server's pool (`crate::computer`: a
    /// search waits there for its turn, on a copy of the game, the session unlocked meanwhile)
    /// and then moves through [`Room::play`], the path of a person's move, on tokio's blocking
    /// threads. Its seed comes from the game's seed and the move's number.
    pub fn computer_turn(self: &Arc<Self>) {
        if self.computer.is_empty() || self.is_retired() {
            return;
        }
        let job = self.with_session(|s| {
            // The first computer seat that must act and can think now (at a simultaneous step,
            // a seat the game's sampler cannot put first waits for the seats before it; the
            // next computer seat thinks once this one's move is stored).
            let d = s.game().decision()?;
            let seed = arbiter_kernel::stable_hash(&(s.header().seed, s.seq()));
            let (seat, c) = d.seats().enumerate().find_map(|(k, a)| {
                let c = self.computer.iter().find(|c| c.seat == a.0)?;
                (k == 0 || s.game().computer().sample_hidden(a, seed).is_ok()).then_some((a, c))
            })?;
            Some((seat, arbiter_kernel::search::Plan::new(c.agent, seed), s.game().boxed_clone(), s.seq()))
        });
        let (Some((seat, plan, game, seq)), Ok(rt)) = (job, tokio::runtime::Handle::try_current()) else { return };
        if self.thinking.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        /// Clears `thinking` however the turn ends: its search done, failed or panicked, or
        /// the job dropped unrun.
        struct Thinking(Arc<Room>);
        impl Drop for Thinking {
            fn drop(&mut self) {
                self.0.thinking.store(false, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let turn = Thinking(self.clone());
        self.pool.submit(move || {
            let room = turn.0.clone();
            // A copy unloaded while its search waited thinks no more: a reloaded room thinks
            // for itself.
            if room.is_retired() {
                return;
            }
            let chosen = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| game.computer().agent_move(seat, &plan, &|_| {})));
            // A search that failed (an engine fault) must not stall the game: a random legal
            // move instead, said in the server's log.
            let chosen = match chosen {
                Ok(Ok(text)) => Ok(text),
                other => {
                    eprintln!("arbiter serve: game {}: the computer's search failed ({other:?}); it plays a random legal move", room.id);
                    game.computer().agent_move(
                        seat,
                        &arbiter_kernel::search::Plan::new(arbiter_kernel::search::Agent::Random, plan.seed),
                        &|_| {},
                    )
                }
            };
            if room.is_retired() {
                return;
            }
            // The move is stored off the pool, as a person's: the pool's thread goes on to the
            // next search.
            rt.spawn_blocking(move || {
                // The search is over: once the move is stored, the seat deciding next sees the
                // computer done (and [`Room::play`] asks for the computer's next decision).
                drop(turn);
                match chosen {
                    // Unless someone moved meanwhile (an interjection, a flag): then think again.
                    Ok(text) if room.with_session(|s| s.seq()) == seq => match room.play(Place::Seat(seat), &text) {
                        // The game was unloaded while it thought: the copy loaded again thinks.
                        Ok(_) | Err(MoveError::Unloaded) => {}
                        Err(e) => eprintln!("arbiter serve: game {}: the computer's move {text} was not stored: {e:?}", room.id),
                    },
                    Ok(_) => room.computer_turn(),
                    Err(r) => eprintln!("arbiter serve: game {}: the computer could not move: {r}", room.id),
                }
            });
        });
    }

    /// A connection of `place` opened (through [`Hub::attach`], which announces it).
    fn register(&self, place: Place) {
        self.presence.opened(place.idx(self.seat_count()));
    }

    /// A connection of `seat` closed. Returns the seat's generation for the away timer, and
    /// whether the room has no connection left.
    pub fn disconnected(&self, place: Place) -> (u64, bool) {
        let closed = self.presence.closed(place.idx(self.seat_count()));
        self.announce_presence();
        closed
    }

    /// The away timer ran out: absent, unless the seat came back meanwhile.
    pub fn away_timeout(&self, place: Place, generation: u64) {
        if self.presence.away_timeout(place.idx(self.seat_count()), generation) {
            self.announce_presence();
        }
    }

    pub fn connections(&self) -> usize {
        self.presence.connections()
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
    /// another seat's move; or `Session::undo_own_choice`: its own choice at a simultaneous step
    /// that has not resolved), then tell every place (blocking). Returns the game's `seq` after
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
            self.open_to_change()?;
            // Not the seat deciding first: its own choice at a simultaneous step that has not
            // resolved (`Session::undo_own_choice`), or nothing.
            let own = match s.game().decision().map(|d| d.first().seat) {
                Some(d) if d != seat => match s.own_choice_check(seat) {
                    Ok(i) => Some(i),
                    Err(_) => {
                        return Err(MoveError::Conflict(format!(
                            "it is the {}'s decision: a move can be taken back only at your own decision, before another seat has moved, or your own choice at a step of seats acting at once before it resolves",
                            s.seat_name(d)
                        )))
                    }
                },
                _ => None,
            };
            // What each place read of the move, before its row is deleted (a secret choice
            // stays secret in the line that says it was taken back).
            let n = self.seat_count();
            let texts: Vec<String> = match own.or(s.rows().len().checked_sub(1)) {
                None => Vec::new(),
                Some(i) => Place::all(n).map(|p| arbiter_store::move_text_for(s.rows(), i, p.viewer(), s.game())).collect(),
            };
            let undone = match own {
                Some(_) => s.undo_own_choice(seat),
                None => s.undo(),
            };
            let row = match undone {
                Ok(row) => row,
                Err(SessionError::Rejected(r)) => return Err(MoveError::Refused(r)),
                Err(SessionError::Store(e)) if self.lost_lease(&e) => return Err(MoveError::Unloaded),
                Err(e) => return Err(MoveError::Failed(e.to_string())),
            };
            *self.last_move.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
            self.broadcast_undo(s, &row, &texts);
            // The lobby's facts (whose decision, the number of moves) go back too.
            self.lobby.put(self.listing(s));
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
    /// Where the games are kept (`crate::storage`).
    storage: Arc<Storage>,
    rooms: Mutex<HashMap<String, Arc<Room>>>,
    /// Serialises loading and unloading, so a game is never open twice: a game is loaded only
    /// once the copy unloaded before it is retired ([`Hub::retire`]).
    loading: tokio::sync::Mutex<()>,
    /// At most [`CREATIONS_PER_CORE`] creations a core at once ([`Hub::create`]).
    creating: Arc<tokio::sync::Semaphore>,
    /// Every room's webhook calls go through one client.
    webhooks: Arc<crate::webhook::Sender>,
    /// The open games' public facts (`crate::lobby`).
    pub lobby: Arc<crate::lobby::Lobby>,
    /// Games created per client address (`Config::games_per_address`).
    pub creations: crate::limits::Buckets,
    /// Webhook URLs written per seat (game id, seat): each write is a synced document.
    pub webhook_writes: crate::limits::Buckets<(String, u8)>,
    /// Replay requests per client address: each replays a record (`crate::replay`).
    pub replays: crate::limits::Buckets,
    /// The pool every room's computer thinks on (`Config::computer_threads` at once).
    pub computer: Arc<crate::computer::Pool>,
    /// The games against the computer each client address has in play
    /// (`Config::computer_games_per_address`).
    pub computer_games: crate::computer::InPlay,
    /// Positions of the games replayed lately (`crate::replay`).
    pub replay_cache: crate::replay::ReplayCache,
    /// Forwarding to the other processes (`crate::cluster`).
    pub peers: crate::cluster::Peers,
    /// The games not in memory whose clock runs, and when it runs out: the sweep loads each
    /// when due, and loading flags it (a clock ends a game also when nobody is connected).
    alarms: Mutex<HashMap<String, Instant>>,
}

/// Why a game could not be had.
#[derive(Debug)]
pub enum HubError {
    NotFound,
    /// The new game's options were refused.
    Invalid(String),
    Failed(String),
    /// The data folder has reached `Config::disk_quota`.
    Full,
    /// Another live process holds the game's lease (several processes on one database): its
    /// address, and how long until its lease expires if it is not renewed.
    Elsewhere {
        address: String,
        expires_in: Duration,
    },
}

impl Hub {
    /// `offered` must not be empty; the first is the default game. The games are kept in
    /// `storage`.
    pub fn new(config: Config, offered: Vec<Offered>, storage: Storage) -> Hub {
        let mut catalogue = Catalogue::new(offered.iter().map(|o| o.kind).collect());
        if let Some(o) = offered.iter().find(|o| o.reads_unnamed) {
            catalogue = catalogue.reading_unnamed_as(o.kind);
        }
        let webhooks = Arc::new(crate::webhook::Sender::new(&config));
        let computer = Arc::new(crate::computer::Pool::new(config.computer_threads));
        Hub {
            config,
            offered,
            catalogue,
            storage: Arc::new(storage),
            rooms: Mutex::new(HashMap::new()),
            loading: tokio::sync::Mutex::new(()),
            creating: Arc::new(tokio::sync::Semaphore::new(
                CREATIONS_PER_CORE * std::thread::available_parallelism().map_or(1, |n| n.get()),
            )),
            lobby: Arc::default(),
            webhooks,
            creations: crate::limits::Buckets::default(),
            webhook_writes: crate::limits::Buckets::default(),
            replays: crate::limits::Buckets::default(),
            computer,
            computer_games: crate::computer::InPlay::default(),
            replay_cache: crate::replay::ReplayCache::default(),
            alarms: Mutex::new(HashMap::new()),
            peers: crate::cluster::Peers::new(),
        }
    }

    pub fn webhooks(&self) -> &Arc<crate::webhook::Sender> {
        &self.webhooks
    }

    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// The game offered whose kind is `id`.
    pub fn offered(&self, id: &str) -> Option<&Offered> {
        self.offered.iter().find(|o| o.kind.id() == id)
    }

    /// Where the games are kept.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }

    /// The rooms loaded now.
    pub fn loaded_rooms(&self) -> Vec<Arc<Room>> {
        self.rooms.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect()
    }

    /// These rooms' leases were lost (another process serves their games now): unload each
    /// still loaded at once, and close its connections (clients reconnect and reach the owner).
    pub async fn drop_lost(&self, lost: Vec<Arc<Room>>) {
        let gone = self
            .retire(|rooms| {
                let loaded: Vec<&Arc<Room>> = lost.iter().filter(|r| rooms.get(&r.id).is_some_and(|x| Arc::ptr_eq(x, r))).collect();
                loaded.into_iter().filter_map(|r| rooms.remove(&r.id)).collect()
            })
            .await;
        for r in gone {
            eprintln!("arbiter serve: game {}: its lease was lost (another server holds it now): unloaded", r.id);
            r.close_all("another server took this game over: reconnect");
        }
    }

    /// Unload every game (the server is stopping); connections are told to reconnect.
    pub async fn unload_all(&self) {
        let gone = self.retire(|rooms| rooms.drain().map(|(_, r)| r).collect()).await;
        for r in gone {
            r.close_all("the server is stopping: reconnect");
        }
    }

    pub fn is_loaded(&self, id: &str) -> bool {
        self.rooms.lock().unwrap_or_else(|p| p.into_inner()).contains_key(id)
    }

    /// Whether game `id` is in play here: loaded, not over, not abandoned (what
    /// `Config::computer_games_per_address` counts).
    pub fn in_play(&self, id: &str) -> bool {
        self.is_loaded(id) && self.lobby.get(id).is_some_and(|l| l.outcome.is_none() && l.abandoned.is_none())
    }

    /// A place for a new game against the computer created by `client`, unless it has
    /// `Config::computer_games_per_address` in play already (then that number).
    pub fn reserve_computer_game(&self, client: std::net::IpAddr) -> Result<crate::computer::Reserved<'_>, usize> {
        self.computer_games.reserve(client, self.config.computer_games_per_address, |id| self.in_play(id))
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
        computer: Vec<crate::seats::ComputerSeat>,
        listed: bool,
        seed_chosen: bool,
    ) -> Result<(String, Vec<String>, Vec<Option<String>>), HubError> {
        let hub = self.clone();
        // In a data folder, a creation is a core's work (the game's setup) and a write queued
        // with the moves' (one commit, one sync for many), on a thread of its own: a burst of
        // creations, each on its own thread, would share the cores with every move in play. A
        // few a core keep the cores busy and the others wait here, asleep. The turn is the
        // creation's, held until its work ends (a request dropped meanwhile does not stop that
        // work). On PostgreSQL a creation waits on the network: not bounded so.
        let turn = match &*self.storage {
            Storage::Folder { .. } => {
                let turn = self.creating.clone().acquire_owned().await;
                Some(turn.map_err(|e| HubError::Failed(format!("creating a game failed: {e}")))?)
            }
            Storage::Postgres { .. } => None,
        };
        // Once its turn has come, a creation runs to its end in a task of its own, even if the
        // request is dropped meanwhile: a game made is always given its timers and its unloading
        // when nobody opens it (a dropped request's game is one nobody has the links of).
        let after = self.clone();
        let blocking = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            if hub.config.disk_quota.is_some_and(|q| hub.storage.bytes_used().is_some_and(|used| used >= q)) {
                return Err(HubError::Full);
            }
            let id = crate::seats::new_game_id().map_err(HubError::Failed)?;
            // The seats document is made for the game's number of seats and stored with the
            // game's first write; the tokens go back to the creator only.
            let mut tokens: Vec<Option<String>> = Vec::new();
            let (session, file) = hub
                .storage
                .create_game(&id, kind, &options, seed, |n| {
                    let taken: Vec<bool> = (0..=n).map(|i| i == n || seats.as_ref().is_none_or(|s| s.contains(&i))).collect();
                    tokens =
                        taken.iter().map(|t| if *t { crate::seats::new_token().map(Some) } else { Ok(None) }).collect::<Result<_, _>>()?;
                    let mut hashes: Vec<Option<String>> = tokens.iter().map(|t| t.as_ref().map(|t| crate::seats::token_hash(t))).collect();
                    for c in &computer {
                        // A computer's seat is taken by a token nobody is given.
                        hashes[c.seat as usize] = Some(crate::seats::token_hash(&crate::seats::new_token()?));
                    }
                    Ok(SeatsFile {
                        hashes,
                        clock_ms,
                        computer: computer.clone(),
                        unlisted: !listed,
                        last_seen: None,
                        abandoned: None,
                        seed_chosen,
                        ..Default::default()
                    })
                })
                .map_err(|e| match e {
                    SessionError::Rejected(m) => HubError::Invalid(m.to_string()),
                    e => HubError::Failed(e.to_string()),
                })?;
            if clock_ms.is_some() && session.game().timeout_move(Seat(0)).is_none() {
                drop(session);
                hub.storage.discard_game(&id);
                return Err(HubError::Invalid(format!("{} is not played on a clock", kind.title())));
            }
            // The new game is this process's to serve: `Storage::create_game` took its lease.
            let room = Arc::new(
                Room::new(id.clone(), session, file, hub.storage.clone(), hub.lobby.clone(), hub.computer.clone())
                    .with_webhooks(hub.webhooks.clone()),
            );
            let ids = room.ids.clone();
            hub.rooms.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), room.clone());
            Ok((id, ids, tokens, room))
        });
        let made = async move {
            blocking.await.map_err(|e| HubError::Failed(format!("creating a game failed: {e}")))?.map(|(id, ids, tokens, room)| {
                room.schedule_flag();
                room.computer_turn();
                after.unload_unopened(room);
                (id, ids, tokens)
            })
        };
        tokio::spawn(made).await.map_err(|e| HubError::Failed(format!("creating a game failed: {e}")))?
    }

    /// The room of game `id`, loaded from its file if it is not in memory.
    pub async fn room(self: &Arc<Self>, id: &str) -> Result<Arc<Room>, HubError> {
        if !crate::seats::valid_game_id(id) {
            return Err(HubError::NotFound);
        }
        if let Some(r) = self.rooms.lock().unwrap_or_else(|p| p.into_inner()).get(id).filter(|r| !r.is_retired()) {
            r.touch();
            return Ok(r.clone());
        }
        let _guard = self.loading.lock().await;
        {
            let mut rooms = self.rooms.lock().unwrap_or_else(|p| p.into_inner());
            match rooms.get(id) {
                Some(r) if !r.is_retired() => {
                    r.touch();
                    return Ok(r.clone());
                }
                // A copy whose lease a write found lost ([`Room::lose`]): loaded again (or
                // found another server's).
                Some(_) => {
                    rooms.remove(id);
                }
                None => {}
            }
        }
        let storage = self.storage.clone();
        if !tokio::task::spawn_blocking({
            let (storage, id) = (storage.clone(), id.to_string());
            move || storage.exists(&id)
        })
        .await
        .unwrap_or(false)
        {
            return Err(HubError::NotFound);
        }
        // Only the lease's holder serves a game (several processes on one database).
        let claim = tokio::task::spawn_blocking({
            let (storage, id) = (storage.clone(), id.to_string());
            move || storage.claim(&id)
        })
        .await
        .map_err(|e| HubError::Failed(format!("loading a game failed: {e}")))?;
        match claim {
            Ok(crate::storage::Claim::Ours) => {}
            Ok(crate::storage::Claim::Elsewhere { address, expires_in }) => return Err(HubError::Elsewhere { address, expires_in }),
            Err(e) => {
                eprintln!("arbiter serve: game {id}: {e}");
                return Err(HubError::Failed("this game cannot be loaded now: the server's log says why".into()));
            }
        }
        let id2 = id.to_string();
        let catalogue = self.catalogue.clone();
        let sender = self.webhooks.clone();
        let lobby = self.lobby.clone();
        let pool = self.computer.clone();
        let room = tokio::task::spawn_blocking(move || -> Result<Room, HubError> {
            // The reason (which names the data folder's files) goes to the server's log; a
            // client, which may hold no token yet, is told only that the game cannot be loaded.
            let session = storage.open_game(&id2, &catalogue).map_err(|e| {
                eprintln!("arbiter serve: game {id2}: {e}");
                HubError::Failed("this game cannot be loaded: the server's log says why".into())
            })?;
            let file = storage.seats_of(&id2, &session).map_err(HubError::Failed)?;
            if file.seats() != session.header().seats.len() {
                eprintln!("arbiter serve: game {id2}: its seats document does not match the game's seats");
                return Err(HubError::Failed("this game cannot be loaded: the server's log says why".into()));
            }
            Ok(Room::new(id2, session, file, storage, lobby, pool).with_webhooks(sender))
        })
        .await
        .map_err(|e| HubError::Failed(format!("loading a game failed: {e}")));
        let room = match room {
            Ok(Ok(room)) => room,
            Ok(Err(e)) | Err(e) => {
                // Not served here after all: its lease goes back.
                let (storage, id) = (self.storage.clone(), id.to_string());
                let _ = tokio::task::spawn_blocking(move || storage.release(&id)).await;
                return Err(e);
            }
        };
        let room = Arc::new(room);
        self.rooms.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_string(), room.clone());
        self.alarms.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
        // Found abandoned while it was not loaded (it is then read, not played).
        let (r, after) = (room.clone(), self.config.abandon_after);
        let _ = tokio::task::spawn_blocking(move || r.abandon_if_due(after)).await;
        // A clock that ran out while the game was not loaded (the server was down) ends it now.
        room.schedule_flag();
        // The computer was to move when the game was unloaded (or the server stopped).
        room.computer_turn();
        self.unload_unopened(room.clone());
        Ok(room)
    }

    /// A game loaded for a request (or created) that no connection opens stays in memory
    /// only while requests use it, and `Config::unopened_unload` after the last: a flood of
    /// games nobody plays, or of reads, holds neither memory nor the games' files (the game
    /// stays on disk; the next request loads it again), and a game played by HTTP requests
    /// alone is not loaded again and again while it is played.
    fn unload_unopened(self: &Arc<Self>, room: Arc<Room>) {
        let (hub, after) = (self.clone(), self.config.unopened_unload);
        // Weakly, as a connection's timers: a copy unloaded meanwhile closes its file at once.
        let weak = Arc::downgrade(&room);
        tokio::spawn(async move {
            let mut wait = after;
            loop {
                tokio::time::sleep(wait).await;
                let Some(room) = weak.upgrade() else { return };
                let unused = room.unused_for();
                if unused < after {
                    wait = after - unused;
                    continue;
                }
                hub.unload_if_unused(&room).await;
                return;
            }
        });
    }

    /// A connection of `place` to game `room.id`, registered with the loaded copy of the game:
    /// the copy it is given may have been unloaded since (a connection that registered with it
    /// would hear no later move), so the registration is checked, under the lock of the loaded
    /// games, against the copy loaded now, and made with that copy (loaded again if need be).
    /// Unloading checks for connections under the same lock, so a registered connection keeps
    /// its copy loaded. The topics are subscribed before registering: a copy unloaded after
    /// it tells this connection (`closing`).
    pub async fn attach(self: &Arc<Self>, mut room: Arc<Room>, place: Place) -> Result<Attached, HubError> {
        loop {
            let (own, all) = room.subscribe(place);
            {
                let rooms = self.rooms.lock().unwrap_or_else(|p| p.into_inner());
                if rooms.get(&room.id).is_some_and(|r| Arc::ptr_eq(r, &room)) {
                    room.register(place);
                    drop(rooms);
                    room.announce_presence();
                    return Ok(Attached { room, own, all });
                }
            }
            room = self.room(&room.id).await?;
        }
    }

    /// Unload `room` if it is still the loaded one and nobody is connected. Nothing is lost:
    /// every move was stored before it was acknowledged.
    pub async fn unload_if_unused(&self, room: &Arc<Room>) {
        self.retire(|rooms| {
            let unused = room.connections() == 0 && rooms.get(&room.id).is_some_and(|r| Arc::ptr_eq(r, room));
            if unused {
                rooms.remove(&room.id);
            }
            unused.then(|| room.clone()).into_iter().collect()
        })
        .await;
    }

    /// At start: every game on disk played on a clock is looked at by the first sweep (loaded:
    /// a clock that ran out while the server was down ends its game then, not when someone
    /// next asks for it; a game still running is watched again once unloaded). Blocking.
    pub fn watch_clocks_on_disk(&self) {
        let now = Instant::now();
        let clocks: Vec<String> = self
            .storage
            .game_ids()
            .into_iter()
            .filter(|id| self.storage.load_seats(id).is_ok_and(|f| f.clock_ms.is_some() && f.abandoned.is_none()))
            .collect();
        let mut alarms = self.alarms.lock().unwrap_or_else(|p| p.into_inner());
        for id in clocks {
            alarms.insert(id, now);
        }
    }

    /// What the sweep does, every second at most: unload idle games, games found abandoned,
    /// and load the games whose clock ran out while they were not loaded (loading flags them).
    pub async fn sweep(self: &Arc<Self>) {
        self.sweep_idle().await;
        self.sweep_abandoned().await;
        let due: Vec<String> = {
            let mut alarms = self.alarms.lock().unwrap_or_else(|p| p.into_inner());
            let now = Instant::now();
            let due: Vec<String> = alarms.iter().filter(|(_, t)| **t <= now).map(|(k, _)| k.clone()).collect();
            for k in &due {
                alarms.remove(k);
            }
            due
        };
        for id in due {
            match self.room(&id).await {
                Ok(_) => {}
                // Its owner runs its clock; should the owner die, looked at again once the
                // lease can have expired.
                Err(HubError::Elsewhere { expires_in, .. }) => {
                    self.alarms
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(id, Instant::now() + expires_in + Duration::from_millis(100));
                }
                Err(e) => {
                    eprintln!("arbiter serve: game {id}: its clock ran out but it could not be loaded: {e:?}");
                }
            }
        }
    }

    /// Unload every game found abandoned (`Room::abandon_if_due`); its connections (observers)
    /// are told. It stays on disk, marked: read and replayed, not played.
    pub async fn sweep_abandoned(&self) {
        let rooms: Vec<Arc<Room>> = self.rooms.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect();
        let after = self.config.abandon_after;
        let marked = tokio::task::spawn_blocking(move || rooms.into_iter().filter(|r| r.abandon_if_due(after)).collect::<Vec<_>>())
            .await
            .unwrap_or_default();
        if marked.is_empty() {
            return;
        }
        let gone = self
            .retire(|rooms| {
                let loaded: Vec<&Arc<Room>> = marked.iter().filter(|r| rooms.get(&r.id).is_some_and(|x| Arc::ptr_eq(x, r))).collect();
                loaded.into_iter().filter_map(|r| rooms.remove(&r.id)).collect()
            })
            .await;
        for r in gone {
            r.close_all("every seat has been away too long: the game was abandoned (it can be read, not played)");
        }
    }

    /// Unload every game with no move for the idle timeout; its connections are told and
    /// closed (reconnecting loads it again).
    pub async fn sweep_idle(&self) {
        let idle = self
            .retire(|rooms| {
                let ids: Vec<String> =
                    rooms.iter().filter(|(_, r)| r.idle_for() >= self.config.idle_timeout).map(|(k, _)| k.clone()).collect();
                ids.iter().filter_map(|k| rooms.remove(k)).collect()
            })
            .await;
        for r in idle {
            r.close_all("no move for the idle timeout: the game was unloaded; reconnect to resume");
        }
    }

    /// The invariant "a game is loaded once": `pick` removes rooms from the loaded games (under
    /// their lock); each is then marked unloaded under its session lock, so a move or join in
    /// progress on it is stored first and any later one is refused ([`MoveError::Unloaded`]).
    /// All of it under the loading lock: the game cannot be loaded again (a second session on
    /// its file) until its old copy is retired. Returns the rooms retired.
    async fn retire(&self, pick: impl FnOnce(&mut HashMap<String, Arc<Room>>) -> Vec<Arc<Room>>) -> Vec<Arc<Room>> {
        let _guard = self.loading.lock().await;
        let gone = pick(&mut self.rooms.lock().unwrap_or_else(|p| p.into_inner()));
        if gone.is_empty() {
            return gone;
        }
        let marked = gone.clone();
        let storage = self.storage.clone();
        let done = tokio::task::spawn_blocking(move || {
            let mut due = Vec::new();
            for r in &marked {
                // Its clock, if running, is looked after while it is not loaded.
                due.extend(r.clock_due().map(|t| (r.id.clone(), t)));
                r.with_session(|_| r.unloaded.store(true, std::sync::atomic::Ordering::SeqCst));
                // Another process may serve it at once (a lease lost already is not ours to
                // give: releasing it changes nothing).
                storage.release(&r.id);
            }
            due
        })
        .await;
        if let Ok(due) = &done {
            self.alarms.lock().unwrap_or_else(|p| p.into_inner()).extend(due.iter().cloned());
        }
        if done.is_err() {
            // The blocking pool is gone (the runtime is stopping): mark them here.
            for r in &gone {
                r.unloaded.store(true, std::sync::atomic::Ordering::SeqCst);
            }
        }
        gone
    }
}

/// A connection registered with the loaded copy of its game, and its topics.
pub struct Attached {
    pub room: Arc<Room>,
    pub own: broadcast::Receiver<Arc<Outgoing>>,
    pub all: broadcast::Receiver<Arc<Outgoing>>,
}

/// Is `text` one of the interjections `seat` may make now?
fn is_interjection(s: &Session, seat: Seat, text: &str) -> bool {
    s.game().canonical(text).is_ok_and(|m| s.game().interjections(seat).contains(&m))
}

/// A move of a kind `seat` may make now although another seat decides (its first word is an
/// open interjection's: a cancellation "at any time" written for another target) but that is
/// refused: the game's reason, tried on a copy, rather than whose decision it is.
fn interjection_refusal(s: &Session, seat: Seat, text: &str) -> Option<Refusal> {
    let word = |t: &str| t.split_whitespace().next().map(str::to_lowercase);
    if !s.game().interjections(seat).iter().any(|m| word(m) == word(text)) {
        return None;
    }
    s.game().boxed_clone().play(seat, text).err()
}
