//! The games a server has loaded (`Hub`): each loaded once, as a `Room` (`crate::room`);
//! creating, loading, attaching connections, and unloading the games nobody uses.
//!
//! Storage is blocking (SQLite, fsync): it runs on tokio's blocking threads.

use crate::room::{Outgoing, Room};
use crate::seats::{Place, SeatsFile};
use crate::storage::Storage;
use crate::{Config, Offered};
use arbiter_kernel::{Catalogue, GameKind, Seat};
use arbiter_store::SessionError;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// How many games a core makes at once ([`Hub::create`]): four. More at once answer a burst of
/// creations sooner, and the moves of games under way wait longer (BENCHMARKS.md, "Store
/// layout").
const CREATIONS_PER_CORE: usize = 4;
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
        clock: Option<(u64, crate::clock::Timing)>,
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
                        clock_ms: clock.map(|(ms, _)| ms),
                        clock_per: clock.map(|(_, per)| per).unwrap_or_default(),
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
            if clock.is_some() && session.game().timeout_move(Seat(0)).is_none() {
                drop(session);
                hub.storage.discard_game(&id);
                return Err(HubError::Invalid(format!("{} is not played on a clock", kind.title())));
            }
            // The new game is this process's to serve: `Storage::create_game` took its lease.
            let room = Arc::new(Room::new(
                id.clone(),
                session,
                file,
                hub.storage.clone(),
                hub.lobby.clone(),
                hub.computer.clone(),
                Some(hub.webhooks.clone()),
            ));
            let ids = room.ids.clone();
            hub.rooms.lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), room.clone());
            Ok((id, ids, tokens, room))
        });
        let made = async move {
            blocking.await.map_err(|e| HubError::Failed(format!("creating a game failed: {e}")))?.map(|(id, ids, tokens, room)| {
                room.went_on();
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
            Ok(Room::new(id2, session, file, storage, lobby, pool, Some(sender)))
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
        // A clock that ran out while the game was not loaded (the server was down) ends it now;
        // the computer was to move when the game was unloaded (or the server stopped).
        room.went_on();
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
