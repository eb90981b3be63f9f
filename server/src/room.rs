//! One loaded game (`Room`): its session under a mutex (a move judged and stored under it, its
//! messages sent on the topics before it is released, so every connection sees moves in stored
//! order), its seats document, its topics (one for all, one per place), and its parts, each
//! owning one concern and told when a change is stored ([`Room::stored`]) or the game goes on
//! ([`Room::went_on`]): presence (`crate::presence`), turn alerts (`crate::webhook::Alerts`), the
//! computer seats (`crate::computer::Seats`), the clock's flag, the lobby's listing.

use crate::seats::{Place, SeatsFile};
use crate::storage::{Session, Storage};
use crate::views;
use arbiter_kernel::{Refusal, Seat};
use arbiter_store::{SessionError, StoreError};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

mod abandon;
mod flag;

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
    pub(crate) unloaded: std::sync::atomic::AtomicBool,
    /// The seats the computer plays (`crate::computer`).
    computer: crate::computer::Seats,
    /// Turn alerts to the seats' webhook URLs (`crate::webhook`).
    alerts: crate::webhook::Alerts,
    /// The server's list of open games, told of this game's moves (`crate::lobby`).
    lobby: Arc<crate::lobby::Lobby>,
}

/// A change stored in the game, that the room's parts react to ([`Room::stored`]).
enum Stored<'a> {
    /// A move, `acting_before` the seats acting before it.
    Move { acting_before: &'a [Seat] },
    /// A move taken back: its row, and its text as each place read it.
    Undo { row: &'a arbiter_store::EventRow, texts: &'a [String] },
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
    pub(crate) fn new(
        id: String,
        session: Session,
        seats: SeatsFile,
        storage: Arc<Storage>,
        lobby: Arc<crate::lobby::Lobby>,
        pool: Arc<crate::computer::Pool>,
        webhooks: Option<Arc<crate::webhook::Sender>>,
    ) -> Room {
        let n = session.header().seats.len();
        lobby.put(crate::lobby::Listing::of(&id, &session, &seats));
        let ids: Vec<String> = Place::all(n).map(|p| views::place_id(&session, p)).collect();
        // What each place reads of the last move now: what a loaded page shows (its sync).
        let rows = session.rows();
        let sent = Place::all(n)
            .map(|p| rows.last().map(|r| (r.seq, arbiter_store::move_text_for(rows, rows.len() - 1, p.viewer(), session.game()))))
            .collect();
        let computer = crate::computer::Seats::new(seats.computer.clone(), pool);
        let presence = crate::presence::Presences::new(n + 1, computer.seats());
        Room {
            lobby,
            computer,
            alerts: crate::webhook::Alerts::new(n, webhooks),
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
        }
    }

    /// `seat`'s webhook URL and how its last call went.
    pub fn webhook(&self, seat: Seat) -> (Option<String>, Option<crate::webhook::Delivery>) {
        let url = self.seats.lock().unwrap_or_else(|p| p.into_inner()).webhook(seat).map(String::from);
        (url, self.alerts.last(seat))
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

    /// Each seat's presence, as every message shows it.
    fn presence_json(&self) -> Value {
        self.presence.json(&self.ids)
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
    }

    /// Under the session lock, once `change` is stored in `s`: the parts that react to it
    /// are told, in this order: every place's connections (in stored order, as the lock
    /// holds), the lobby's listing, the turn alerts of the seats that have come to act.
    fn stored(&self, s: &Session, change: Stored<'_>) {
        *self.last_move.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
        match change {
            Stored::Move { acting_before } => {
                self.broadcast_last(s);
                let game = crate::webhook::AlertedGame { id: &self.id, kind: self.kind, ids: &self.ids };
                self.alerts.moved(&game, &self.seats.lock().unwrap_or_else(|p| p.into_inner()), s, acting_before);
            }
            Stored::Undo { row, texts } => self.broadcast_undo(s, row, texts),
        }
        self.lobby.put(self.listing(s));
    }

    /// Once the session lock is released after a change: the parts that react to the game
    /// going on are told (the clock's next check; the computer, if one of its seats acts).
    pub(crate) fn went_on(self: &Arc<Self>) {
        self.schedule_flag();
        self.computer_turn();
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
    pub(crate) fn touch(&self) {
        *self.used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    /// How long since a request last used this copy.
    pub(crate) fn unused_for(&self) -> Duration {
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
        let flagged = self.flag_if_due();
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
            self.stored(s, Stored::Move { acting_before: &acting_before });
            Ok((s.seq(), log))
        });
        if result.is_ok() || flagged {
            self.went_on();
        }
        result
    }

    /// If a computer seat must act now, it thinks on the server's pool (`crate::computer`: a
    /// search waits there for its turn, on a copy of the game, the session unlocked meanwhile)
    /// and then moves through [`Room::play`], the path of a person's move.
    pub fn computer_turn(self: &Arc<Self>) {
        if self.is_retired() {
            return;
        }
        let Some(turn) = self.with_session(|s| self.computer.turn(s)) else { return };
        // Held weakly while it waits: a copy unloaded meanwhile thinks no more (a reloaded room
        // thinks for itself).
        let weak = Arc::downgrade(self);
        let retired = move || weak.upgrade().is_none_or(|r| r.is_retired());
        let room = self.clone();
        self.computer.think(&self.id, turn, retired, move |seat, seq, chosen| match chosen {
            // Unless someone moved meanwhile (an interjection, a flag): then think again.
            Ok(text) if room.with_session(|s| s.seq()) == seq => match room.play(Place::Seat(seat), &text) {
                // The game was unloaded while it thought: the copy loaded again thinks.
                Ok(_) | Err(MoveError::Unloaded) => {}
                Err(e) => eprintln!("arbiter serve: game {}: the computer's move {text} was not stored: {e:?}", room.id),
            },
            Ok(_) => room.computer_turn(),
            Err(r) => eprintln!("arbiter serve: game {}: the computer could not move: {r}", room.id),
        });
    }

    /// A connection of `place` opened (through [`Hub::attach`], which announces it).
    pub(crate) fn register(&self, place: Place) {
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

    pub(crate) fn announce_presence(&self) {
        let json = json!({ "type": "presence", "presence": self.presence_json() }).to_string();
        let _ = self.all.send(Arc::new(Outgoing { seq: 0, json, closing: false, rewind: false }));
    }

    /// Tell every connection the game is being unloaded; they close.
    pub(crate) fn close_all(&self, reason: &str) {
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
        if self.computer.is_thinking() {
            return Err(MoveError::Conflict("the computer is thinking: no move can be taken back now".into()));
        }
        let flagged = self.flag_if_due();
        let result = self.with_session(|s| {
            self.open_to_change()?;
            // Not the seat deciding first: its own choice at a simultaneous step that has not
            // resolved (`Session::undo_own_choice`), or nothing.
            // A seat deciding first at a simultaneous step takes back its own choice the same
            // way (other seats may have chosen after it).
            let decision = s.game().decision();
            let step = decision.as_ref().is_some_and(|d| d.seats().count() > 1);
            let own = match decision.map(|d| d.first().seat) {
                Some(d) if d != seat || step => match s.own_choice_check(seat) {
                    Ok(i) => Some(i),
                    Err(_) if d == seat => None,
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
            self.stored(s, Stored::Undo { row: &row, texts: &texts });
            Ok((s.seq(), texts.get(seat.idx()).cloned().unwrap_or_default()))
        });
        if result.is_ok() || flagged {
            // The clock changed hands back (a clock reads the stored moves' times).
            self.went_on();
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
