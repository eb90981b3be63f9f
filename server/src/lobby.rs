//! The lobby: the public facts of every game the server holds (`GET /api/games`,
//! `GET /api/games/{id}`), kept in memory. Built once at start from the storage (each game's seats
//! document and its saved game, replayed read-only once), then kept up to date by the rooms: a room
//! puts its game's facts when it is made or loaded, after every stored move and after its seats
//! change (a join, a rematch's claim). A request never opens a saved game.
//!
//! Only what every seat and observer may know is here: the kind, the options, each seat free,
//! taken or the computer's, whose decision it is (every place's `moves` says so), times and the
//! number of moves, the outcome. Never a token, the seed (whoever knows it knows every secret)
//! or a view.

use crate::seats::SeatsFile;
use crate::storage::{Session, Storage};
use arbiter_kernel::{Catalogue, Seat};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Mutex, Weak};

/// The most games one page of the list holds (and its default size).
pub const MAX_PAGE: usize = 100;

/// A seat as the lobby shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeatStatus {
    /// Nobody has it yet: `POST /api/games/{id}/join` takes it.
    Free,
    /// Its link was handed out (or is kept for a rematch's player).
    Taken,
    /// The computer plays it.
    Computer,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatFact {
    pub id: String,
    pub status: SeatStatus,
}

/// One game's public facts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Listing {
    pub id: String,
    /// The kind's id and title.
    pub game: &'static str,
    pub title: &'static str,
    pub options: Value,
    pub seats: Vec<SeatFact>,
    /// The seat whose decision it is (none once the game is over).
    pub to_move: Option<String>,
    /// RFC 3339, UTC.
    pub created_at: String,
    pub last_move_at: Option<String>,
    pub moves: u64,
    /// The outcome, once the game is over: its winner (a seat id, or none) and its text.
    pub outcome: Option<Value>,
    /// Whether it is in the list (`"listed": false` at creation keeps it out).
    pub listed: bool,
    /// Whether it is played on a clock (a chess clock or a deadline).
    pub clock: bool,
    /// When it was found abandoned (every seat away too long): it is read, not played.
    pub abandoned: Option<String>,
    /// Whether its creator chose the seed (whether, never which): a joiner must accept that.
    pub seed_chosen: bool,
}

/// A [`Listing`] as another process stored it (its kind by id: this build's kinds give the
/// names).
#[derive(Deserialize)]
struct StoredListing {
    id: String,
    game: String,
    options: Value,
    seats: Vec<SeatFact>,
    to_move: Option<String>,
    created_at: String,
    last_move_at: Option<String>,
    moves: u64,
    outcome: Option<Value>,
    listed: bool,
    clock: bool,
    abandoned: Option<String>,
    seed_chosen: bool,
}

impl StoredListing {
    /// The listing, if this server offers its kind.
    fn read(self, games: &Catalogue) -> Option<Listing> {
        let kind = games.find(&self.game).ok()?;
        Some(Listing {
            id: self.id,
            game: kind.id(),
            title: kind.title(),
            options: self.options,
            seats: self.seats,
            to_move: self.to_move,
            created_at: self.created_at,
            last_move_at: self.last_move_at,
            moves: self.moves,
            outcome: self.outcome,
            listed: self.listed,
            clock: self.clock,
            abandoned: self.abandoned,
            seed_chosen: self.seed_chosen,
        })
    }
}

/// The game's options, completed by its kind (a game saved with some missing takes them at
/// their defaults, as it was made).
fn full_options(s: &Session) -> Value {
    let given = serde_json::from_str::<Value>(&s.header().options).unwrap_or(Value::Null);
    s.kind().complete_options(&given).unwrap_or_else(|_| s.kind().default_options())
}

impl Listing {
    /// The facts of game `id` as session `s` and its seats document hold them.
    pub fn of(id: &str, s: &Session, seats: &SeatsFile) -> Listing {
        let g = s.game();
        let header = s.header();
        let name = |seat: Seat| header.seats.get(seat.idx()).cloned().unwrap_or_else(|| format!("seat-{}", seat.0));
        let facts = (0..header.seats.len())
            .map(|i| {
                let status = if seats.computer.iter().any(|c| c.seat as usize == i) {
                    SeatStatus::Computer
                } else if seats.taken(Seat(i as u8)) {
                    SeatStatus::Taken
                } else {
                    SeatStatus::Free
                };
                SeatFact { id: name(Seat(i as u8)), status }
            })
            .collect();
        let outcome = g.outcome().map(|o| json!({ "winner": o.winner().map(name), "reason": o.reason, "text": o.text }));
        Listing {
            id: id.to_string(),
            game: s.kind().id(),
            title: s.kind().title(),
            options: full_options(s),
            seats: facts,
            to_move: if outcome.is_some() { None } else { g.decision().map(|d| name(d.first().seat)) },
            created_at: header.created_at.clone(),
            last_move_at: s.rows().last().map(|r| r.at.clone()),
            moves: s.seq(),
            outcome,
            listed: !seats.unlisted,
            clock: seats.clock_ms.is_some(),
            abandoned: seats.abandoned.clone(),
            seed_chosen: seats.seed_chosen,
        }
    }

    /// The time of its last activity (its last move, or its creation): the list's order.
    pub fn activity(&self) -> &str {
        self.last_move_at.as_deref().unwrap_or(&self.created_at)
    }

    /// Where the list stands after this game: `before` of the next page.
    pub fn cursor(&self) -> String {
        format!("{}_{}", self.activity(), self.id)
    }

    /// Whether it is in the list: listed, not over, not abandoned (nothing more is played).
    pub fn open(&self) -> bool {
        self.listed && self.outcome.is_none() && self.abandoned.is_none()
    }
}

/// The public facts of every game the server holds, by id.
#[derive(Default)]
pub struct Lobby {
    games: Mutex<HashMap<String, Listing>>,
    /// A lock for each game whose rematch is being made ([`Lobby::rematching`]), kept while
    /// some request holds it.
    rematches: Mutex<HashMap<String, Weak<tokio::sync::Mutex<()>>>>,
    /// Several processes on one database: the games whose facts changed here since they were
    /// last stored for the others ([`Lobby::sync`]).
    shared: std::sync::atomic::AtomicBool,
    changed: Mutex<std::collections::HashSet<String>>,
}

impl Lobby {
    /// The lock serialising the making of game `id`'s rematch, so that two seats asking at
    /// once get one new game. One a game: another game's rematch is not held meanwhile (a
    /// creation may wait for its turn among many).
    pub fn rematching(&self, id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.rematches.lock().unwrap_or_else(|p| p.into_inner());
        locks.retain(|_, lock| lock.strong_count() > 0);
        if let Some(lock) = locks.get(id).and_then(Weak::upgrade) {
            return lock;
        }
        let lock = Arc::new(tokio::sync::Mutex::new(()));
        locks.insert(id.into(), Arc::downgrade(&lock));
        lock
    }

    pub fn put(&self, l: Listing) {
        if self.shared.load(std::sync::atomic::Ordering::Relaxed) {
            self.changed.lock().unwrap_or_else(|p| p.into_inner()).insert(l.id.clone());
        }
        self.games.lock().unwrap_or_else(|p| p.into_inner()).insert(l.id.clone(), l);
    }

    /// Several processes share the storage: keep the facts of this one's games there
    /// ([`Lobby::sync`]).
    pub fn share(&self) {
        self.shared.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Store the facts of the games that changed here, then read every game's facts as their
    /// servers stored them, but for the games loaded here (`ours`: this process's own facts
    /// are the newest). Blocking; a second at most behind the other processes.
    pub fn sync(&self, storage: &Storage, games: &Catalogue, ours: impl Fn(&str) -> bool) {
        let changed: Vec<String> = std::mem::take(&mut *self.changed.lock().unwrap_or_else(|p| p.into_inner())).into_iter().collect();
        for id in changed {
            if let Some(l) = self.get(&id) {
                match serde_json::to_string(&l) {
                    Ok(json) => storage.put_listing(&id, &json),
                    Err(e) => eprintln!("arbiter serve: game {id}'s lobby facts: {e}"),
                }
            }
        }
        for (id, json) in storage.listings() {
            if ours(&id) {
                continue;
            }
            match serde_json::from_str::<StoredListing>(&json).ok().and_then(|l| l.read(games)) {
                Some(l) if l.id == id => {
                    self.games.lock().unwrap_or_else(|p| p.into_inner()).insert(id, l);
                }
                _ => eprintln!("arbiter serve: game {id}'s stored lobby facts cannot be read; left as they were"),
            }
        }
    }

    pub fn get(&self, id: &str) -> Option<Listing> {
        self.games.lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned()
    }

    /// The open games, the latest activity first (ties: the higher id first), at most `limit`,
    /// after the cursor `before` (a game's [`Listing::cursor`]), and the cursor of the next
    /// page if there is more.
    pub fn list(&self, limit: usize, before: Option<&str>) -> (Vec<Listing>, Option<String>) {
        let games = self.games.lock().unwrap_or_else(|p| p.into_inner());
        // Activity times are RFC 3339 in one format (UTC, milliseconds, `Z`): as strings they
        // sort as times, and so do the cursors.
        let mut open: Vec<(String, &Listing)> =
            games.values().filter(|l| l.open()).map(|l| (l.cursor(), l)).filter(|(c, _)| before.is_none_or(|b| c.as_str() < b)).collect();
        open.sort_by(|a, b| b.0.cmp(&a.0));
        let more = open.len() > limit;
        let page: Vec<Listing> = open.into_iter().take(limit).map(|(_, l)| l.clone()).collect();
        let next = if more { page.last().map(Listing::cursor) } else { None };
        (page, next)
    }

    /// Read every game of the storage once (at start): its seats document and its saved game,
    /// replayed read-only. A game that cannot be read is left out and said in the server's log
    /// (opening it later says why to whoever asks).
    pub fn scan(&self, storage: &Storage, games: &Catalogue) {
        for id in storage.game_ids() {
            let id = id.as_str();
            if self.get(id).is_some() {
                continue;
            }
            let listing = storage.open_read_only(id, games).map(|(s, seats)| Listing::of(id, &s, &seats));
            match listing {
                Ok(l) => self.put(l),
                Err(e) => eprintln!("arbiter serve: the lobby leaves game {id} out: {e}"),
            }
        }
    }
}

// ------------------------------------------------------------------------------------ HTTP

use crate::api::{read, ApiError};
use crate::hub::Hub;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::Json;
use std::sync::Arc;

/// `GET /api/games?limit=N&before=CURSOR`: a page of the open listed games, the latest
/// activity first, and `next`, the cursor of the following page (`null` at the end).
pub async fn list(State(hub): State<Arc<Hub>>, Query(q): Query<HashMap<String, String>>) -> Result<Json<Value>, ApiError> {
    let limit = match q.get("limit") {
        None => MAX_PAGE,
        Some(n) => n
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_PAGE).contains(n))
            .ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, format!("limit is a whole number from 1 to {MAX_PAGE}")))?,
    };
    let (games, next) = hub.lobby.list(limit, q.get("before").map(String::as_str));
    Ok(Json(json!({ "games": games, "next": next })))
}

/// `GET /api/games/{id}`: one game's public facts, listed or not (its id is in its links).
pub async fn one(State(hub): State<Arc<Hub>>, UrlPath(id): UrlPath<String>) -> Result<Json<Listing>, ApiError> {
    if let Some(l) = hub.lobby.get(&id) {
        return Ok(Json(l));
    }
    // Not read at start (written meanwhile by another process): loading it lists it.
    let room = hub.room(&id).await?;
    Ok(Json(read(room, |r| r.with_session(|s| r.listing(s))).await?))
}

/// `GET /api/games/{id}/watch`: the observers' link of a listed game, for anyone (an observer
/// sees only what every seat may see). An unlisted game's is given only to its creator.
pub async fn watch(State(hub): State<Arc<Hub>>, UrlPath(id): UrlPath<String>) -> Result<Json<Value>, ApiError> {
    let room = hub.room(&id).await?;
    let token = read(room, |r| {
        r.update_seats(|f| {
            if f.unlisted {
                return Ok(None);
            }
            if f.watch.is_none() {
                f.watch = Some(crate::seats::new_token()?);
            }
            Ok(f.watch.clone())
        })
    })
    .await??
    .ok_or_else(|| {
        ApiError::new(StatusCode::FORBIDDEN, "this game is unlisted: only its creator's observers' link lets one watch it".into())
    })?;
    Ok(Json(json!({ "seat": "observer", "token": token, "link": format!("/play/{id}?token={token}") })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_s_rematch_lock_is_one_while_held_and_another_game_s_is_its_own() {
        let lobby = Lobby::default();
        let first = lobby.rematching("a");
        let held = first.try_lock().unwrap();
        // A second seat of game a meets the same lock, held: it waits.
        assert!(Arc::ptr_eq(&first, &lobby.rematching("a")));
        assert!(lobby.rematching("a").try_lock().is_err());
        // Game b's rematch is not held by a's.
        assert!(lobby.rematching("b").try_lock().is_ok());
        drop(held);
        drop(first);
        // Nobody holds a's lock any more: it is forgotten (the locks do not grow with the games).
        let _again = lobby.rematching("c");
        assert_eq!(lobby.rematches.lock().unwrap().len(), 1);
    }
}
