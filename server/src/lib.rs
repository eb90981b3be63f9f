//! # Arbiter server
//!
//! `arbiter serve`: any game on the kernel over HTTP and WebSocket, on the same store and the
//! same saved games as the command line. API.md documents the protocol. The server knows
//! seats, views and moves, never a game's concepts: the games it offers ([`Offered`]) come
//! from its caller, each with its browser client.
//!
//! The design's game-server contract, and where each part is:
//! - `init(config)`: [`hub::Hub::create`] (`POST /api/games`; invalid options refused with the
//!   game's reason);
//! - `join`: [`room::Room::join`] (`POST /api/games/{id}/join`; a taken seat, a full game
//!   refused); `leave`: a seat's last connection closing ([`room::Room::disconnected`]), away
//!   then absent after the disconnect timeout;
//! - `connected` → a `sync` message ([`views::sync`]); `disconnected`;
//! - `handle_event`: a seat's move ([`room::Room::play`]) or a scheduled event (the clock's
//!   flag, [`room::Room::flag_if_due`]);
//! - `shutdown`: unloading a game nobody is connected to, or idle ([`hub::Hub::sweep_idle`]).
//!
//! Modules: `seats` (tokens: 128 random bits, only their SHA-256 kept; game ids), `hub` (the
//! loaded games and each game's room: session, topics per place and for all, presence),
//! `clock` (the chess clock or a deadline per step, read from the saved game's move times), `views` (what each place
//! may see, as JSON), `api` (HTTP), `ws` (WebSocket), `webhook` (turn alerts to a seat's URL),
//! `limits` (the accept loop: caps on connections, deadlines for headers and bodies; new games
//! per address; JSON errors), `storage` (where games are kept: a data folder or a PostgreSQL
//! database), `cluster` (several processes on one database: leases, forwarding, tunnels),
//! `computer` (the bounded pool the computer's searches run on; its games per address).
//! `static/`: the new-game page.

pub mod api;
pub mod chat;
pub mod clock;
pub mod cluster;
pub mod computer;
pub mod hub;
pub mod limits;
pub mod lobby;
pub mod presence;
pub mod rematch;
pub mod replay;
pub mod room;
pub mod seats;
pub mod storage;
pub mod views;
pub mod webhook;
pub mod ws;

use arbiter_kernel::{seat_id, GameKind};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use hub::Hub;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The largest request body (a move, new-game options).
pub const MAX_BODY: usize = 16 * 1024;

#[derive(Clone, Debug)]
pub struct Config {
    pub addr: SocketAddr,
    /// The folder of saved games (`GAME.arbiter`, each holding its seats document).
    pub data: PathBuf,
    /// A seat disconnected this long is absent instead of away.
    pub disconnect_timeout: Duration,
    /// A game nobody is connected to is unloaded after this long.
    pub unload_after: Duration,
    /// A game with no move for this long is unloaded, its connections closed.
    pub idle_timeout: Duration,
    /// Messages one WebSocket connection may send in a second before it is closed.
    pub ws_messages_per_second: u32,
    /// Webhooks may call loopback, private and link-local addresses (off: a registered URL
    /// must not reach the server's own network; tests and closed networks turn it on).
    pub webhook_private: bool,
    /// How long one webhook call may take.
    pub webhook_timeout: Duration,
    /// Retries after a failed webhook call (each after 4 times the delay before it).
    pub webhook_retries: u32,
    /// The delay before the first retry.
    pub webhook_backoff: Duration,
    /// Open connections (HTTP and WebSocket) the server takes in all; more are answered 503.
    pub max_connections: usize,
    /// Open connections one client address may have; more are answered 429.
    pub max_connections_per_address: usize,
    /// The per-address caps count a client by its network: IPv4 addresses alike in their first
    /// `ipv4_prefix` bits (32: each address), IPv6 in their first `ipv6_prefix` (64: a host's
    /// usual allocation) are one client.
    pub ipv4_prefix: u8,
    pub ipv6_prefix: u8,
    /// A request's headers must arrive within this (from the connection's start, or the end
    /// of the answer before on a kept-alive connection), or the connection is closed.
    pub header_timeout: Duration,
    /// A request's body must arrive within this, or it is answered 408.
    pub body_timeout: Duration,
    /// Games one client address may create in `games_window` (a burst of this many, then
    /// evenly over the window); more are answered 429.
    pub games_per_address: u32,
    pub games_window: Duration,
    /// A game loaded (created, or read for a request) that no WebSocket holds is unloaded from
    /// memory once no request has used it for this long (its files closed); it stays on disk and
    /// is loaded again on demand.
    pub unopened_unload: Duration,
    /// Replay requests one client address may make in a minute (a burst of this many, then
    /// evenly): each replays a game's record; more are answered 429.
    pub replays_per_address: u32,
    /// The computer's searches run at once (on threads of their own, at a lower priority than
    /// the players' moves); more wait their turn. Half the cores by default, at least one.
    pub computer_threads: usize,
    /// Games against the computer one client address may have in play at once (created from
    /// it, loaded, not over); more are answered 429.
    pub computer_games_per_address: usize,
    /// The bytes the data folder may take; a new game beyond it is refused (507). `None`: no
    /// limit.
    pub disk_quota: Option<u64>,
    /// The server pings every WebSocket this often ...
    pub ping_interval: Duration,
    /// ... and one that has sent nothing (a pong, any message) this long after a ping is
    /// disconnected (its seat shows away).
    pub pong_timeout: Duration,
    /// A game without a clock whose seats have all been away this long is abandoned: marked
    /// in its seats document and unloaded; it can be read and replayed, not played. (A game with a
    /// clock is ended by its clock.)
    pub abandon_after: Duration,
    /// Several processes on one database: how long a game's lease lasts unless renewed (renewed
    /// every third of it). A process that dies leaves its games to the others after this.
    pub lease_ttl: Duration,
    /// How long a request forwarded to a game's owner may take before it is answered 503.
    pub forward_timeout: Duration,
    /// A PostgreSQL database (`postgres://USER@HOST/DB`) that keeps the games instead of `data`,
    /// shared by any number of server processes.
    pub store: Option<String>,
    /// Where the other processes on the database reach this one (`http://HOST:PORT`); by
    /// default the address it listens on (127.0.0.1 for an unspecified one).
    pub advertise: Option<String>,
}

impl Config {
    pub fn new(addr: SocketAddr, data: PathBuf) -> Config {
        Config {
            addr,
            data,
            disconnect_timeout: Duration::from_secs(30),
            unload_after: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(24 * 3600),
            ws_messages_per_second: ws::MAX_PER_SECOND,
            webhook_private: false,
            webhook_timeout: Duration::from_secs(10),
            webhook_retries: 3,
            webhook_backoff: Duration::from_secs(2),
            max_connections: 512,
            max_connections_per_address: 32,
            ipv4_prefix: 32,
            ipv6_prefix: 64,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(10),
            games_per_address: 30,
            games_window: Duration::from_secs(600),
            unopened_unload: Duration::from_secs(60),
            replays_per_address: 120,
            computer_threads: computer::default_threads(),
            computer_games_per_address: 4,
            disk_quota: Some(1 << 30),
            ping_interval: Duration::from_secs(20),
            pong_timeout: Duration::from_secs(10),
            abandon_after: Duration::from_secs(14 * 24 * 3600),
            lease_ttl: Duration::from_secs(10),
            forward_timeout: Duration::from_secs(10),
            store: None,
            advertise: None,
        }
    }
}

/// A file of a game's browser client, served at `/static/{kind}/{name}`.
#[derive(Clone, Debug)]
pub struct Asset {
    pub name: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

/// A game's browser client: the page of a game (`/play/{id}?token=…`), its files, and data
/// it fetches at `/api/kinds/{kind}/{name}` (a map, the cards).
#[derive(Clone, Debug, Default)]
pub struct WebClient {
    pub page: &'static str,
    pub files: Vec<Asset>,
    pub data: Vec<(&'static str, serde_json::Value)>,
}

/// A game the server offers: its kind and its client.
#[derive(Clone)]
pub struct Offered {
    pub kind: &'static dyn GameKind,
    pub client: WebClient,
    /// Its seats' ids (from a game made with the default options).
    pub seat_ids: Vec<String>,
    /// Whether it can be played on a clock, a chess clock or a deadline (it has a timeout move).
    pub clock: bool,
    /// Saved games that name no kind (written when Arbiter played one game) are of this kind.
    pub reads_unnamed: bool,
    /// Whether a seat may be the computer's: a game of two or more seats whose game samples
    /// what a seat cannot see (`Searchable::determinize`).
    pub computer: bool,
}

impl Offered {
    pub fn new(kind: &'static dyn GameKind, client: WebClient) -> Offered {
        let probe = kind.create(&kind.default_options(), 0).ok().map(|(g, _)| g);
        let seat_ids: Vec<String> = probe.as_ref().map(|g| g.seats().iter().map(|s| seat_id(s)).collect()).unwrap_or_default();
        let clock = probe.as_ref().is_some_and(|g| g.timeout_move(arbiter_kernel::Seat(0)).is_some());
        // Asked of the first decision: the greedy agent needs the game's sampler, as the search does.
        let computer = seat_ids.len() >= 2
            && probe.as_ref().is_some_and(|g| {
                let plan = arbiter_kernel::search::Plan::new(arbiter_kernel::search::Agent::Greedy, 0);
                g.decision().is_some_and(|d| g.computer().agent_move(d.first().seat, &plan, &|_| {}).is_ok())
            });
        Offered { kind, client, seat_ids, clock, reads_unnamed: false, computer }
    }

    /// Saved games that name no kind are of this one (at most one game offered says so).
    pub fn reading_unnamed_files(mut self) -> Offered {
        self.reads_unnamed = true;
        self
    }
}

const HOME_JS: &str = include_str!("../static/home.js");
const HOME_CSS: &str = include_str!("../static/home.css");
/// The host's features on every game's page (`static/arbiter.js`): my games, chat, rematch,
/// turn alerts, replays.
const ARBITER_JS: &str = include_str!("../static/arbiter.js");
const ARBITER_CSS: &str = include_str!("../static/arbiter.css");

fn text(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

/// The page of game `id`: its game's client.
async fn play_page(State(hub): State<Arc<Hub>>, Path(id): Path<String>) -> Response {
    match hub.room(&id).await {
        Ok(room) => match hub.offered(room.kind) {
            Some(o) => Html(o.client.page).into_response(),
            None => (StatusCode::NOT_FOUND, Html("<!doctype html><title>Arbiter</title><p>This server does not offer that game."))
                .into_response(),
        },
        Err(_) => (StatusCode::NOT_FOUND, Html("<!doctype html><title>Arbiter</title><p>No such game. <a href=\"/\">New game</a>"))
            .into_response(),
    }
}

/// A file of a game's client.
async fn asset(State(hub): State<Arc<Hub>>, Path((kind, name)): Path<(String, String)>) -> Response {
    match hub.offered(&kind).and_then(|o| o.client.files.iter().find(|a| a.name == name)) {
        Some(a) => text(a.content_type, a.body),
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}

pub fn router(hub: Arc<Hub>) -> Router {
    let body_limits = (hub.config.body_timeout, MAX_BODY);
    Router::new()
        .route("/", get(|| async { Html(include_str!("../static/index.html")) }))
        .route("/play/{id}", get(play_page))
        .route("/static/home.js", get(|| async { text("text/javascript; charset=utf-8", HOME_JS) }))
        .route("/static/home.css", get(|| async { text("text/css; charset=utf-8", HOME_CSS) }))
        .route("/static/{kind}/{name}", get(asset))
        .route("/api/kinds", get(api::kinds))
        .route("/api/kinds/{kind}/{name}", get(api::kind_data))
        .route("/api/games", post(api::create))
        .route("/api/games/{id}/join", post(api::join))
        .route("/api/games/{id}/state", get(api::state))
        .route("/api/games/{id}/moves", get(api::moves).post(api::play))
        .route("/api/games/{id}/log", get(api::log))
        .route("/api/games/{id}/ws", get(ws::upgrade))
        .route("/api/games/{id}/webhook", get(webhook::get).put(webhook::put).delete(webhook::delete))
        .route("/api/games", get(lobby::list))
        .route("/api/games/{id}", get(lobby::one))
        .route("/api/games/{id}/watch", get(lobby::watch))
        .route("/api/games/{id}/chat", get(chat::list).post(chat::send))
        .route("/api/games/{id}/rematch", post(rematch::rematch))
        .route("/api/games/{id}/replay", get(replay::replay))
        .route("/replay/{id}", get(play_page))
        .route("/static/arbiter.js", get(|| async { text("text/javascript; charset=utf-8", ARBITER_JS) }))
        .route("/static/arbiter.css", get(|| async { text("text/css; charset=utf-8", ARBITER_CSS) }))
        .route("/api/games/{id}/advice", get(api::advice))
        .route("/api/games/{id}/undo", post(api::undo))
        .layer(axum::middleware::from_fn_with_state(hub.clone(), cluster::route))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .layer(axum::middleware::from_fn_with_state(body_limits, limits::read_body))
        .layer(axum::middleware::from_fn(limits::json_errors))
        .layer(axum::middleware::from_fn(limits::request_size))
        .layer(axum::middleware::map_response(security_headers))
        .with_state(hub)
}

/// Every answer: a seat's token is in its page's address, so no referrer leaves it; content
/// types are not sniffed; the page runs only its own script and talks only to its server; the
/// client files are revalidated, so an upgraded server never runs an old client.
async fn security_headers(mut r: axum::response::Response) -> axum::response::Response {
    use axum::http::HeaderValue;
    let h = r.headers_mut();
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; connect-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        ),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// A running server: its address and games.
pub struct Running {
    pub addr: SocketAddr,
    pub hub: Arc<Hub>,
    pub task: tokio::task::JoinHandle<()>,
}

/// A listening socket at `addr` whose queue of connections not yet accepted holds up to
/// `connections` (the server's cap; at least 128, and the system's own cap applies). Tokio's
/// `bind` queues 128: with more clients connecting at once while the cores are busy, the
/// kernel drops the others' first packet and they try again a second later (then three): the
/// load example's 200 games lost 25 such seconds in a run, a move waiting up to 3 s
/// (docs/benchmarks-history.md, "2026-11-27: the server under a creation burst").
fn listen(addr: SocketAddr, connections: usize) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
    // As `TcpListener::bind`: a restarted server binds its port again at once.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(u32::try_from(connections).unwrap_or(u32::MAX).clamp(128, 65_535))
}

/// Bind and serve the games `offered` (the first is the default) in the background (tests use
/// port 0).
pub async fn start(config: Config, offered: Vec<Offered>) -> Result<Running, String> {
    if offered.is_empty() {
        return Err("no game to serve".into());
    }
    let listener = listen(config.addr, config.max_connections).map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let advertise = config.advertise.clone().unwrap_or_else(|| {
        let ip = if addr.ip().is_unspecified() { std::net::IpAddr::from([127, 0, 0, 1]) } else { addr.ip() };
        format!("http://{}", SocketAddr::new(ip, addr.port()))
    });
    // Connecting to a database blocks (the `postgres` crate).
    let storage = {
        let (c, a) = (config.clone(), advertise.clone());
        tokio::task::spawn_blocking(move || storage::Storage::open(&c, &a)).await.map_err(|e| format!("cannot open the storage: {e}"))??
    };
    storage.prepare()?;
    let hub = Arc::new(Hub::new(config.clone(), offered, storage));
    if hub.storage().is_shared() {
        hub.lobby.share();
    }
    // The lobby reads the data folder once, before the first request.
    let h = hub.clone();
    tokio::task::spawn_blocking(move || h.lobby.scan(h.storage(), h.catalogue()))
        .await
        .map_err(|e| format!("cannot read the games: {e}"))?;
    let sweep = config.idle_timeout.min(config.abandon_after).min(Duration::from_secs(1)).max(Duration::from_millis(100));
    let h = hub.clone();
    let _ = tokio::task::spawn_blocking(move || h.watch_clocks_on_disk()).await;
    let h = hub.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(sweep).await;
            h.sweep().await;
            h.creations.prune(h.config.games_window);
            h.webhook_writes.prune(webhook::WRITES_WINDOW);
            h.replays.prune(replay::REPLAYS_WINDOW);
            h.computer_games.prune(|id| h.in_play(id));
        }
    });
    // The leases and the shared lobby live as long as the serving task: a server stopped
    // (its task aborted) renews nothing more, and its leases expire.
    let leases = cluster::keep_leases(hub.clone());
    let h = hub.clone();
    let lobby = async move {
        if !h.storage().is_shared() {
            return std::future::pending().await;
        }
        // Other processes' games reach this one's list within a second.
        loop {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let h = h.clone();
            let _ = tokio::task::spawn_blocking(move || h.lobby.sync(h.storage(), h.catalogue(), |id| h.is_loaded(id))).await;
        }
    };
    let app = router(hub.clone());
    let task = tokio::spawn(async move {
        tokio::select! {
            _ = limits::serve(listener, app, config) => {}
            // Returns at once without leases: then only the others run on.
            _ = async { leases.await; std::future::pending::<()>().await } => {}
            _ = lobby => {}
        }
    });
    Ok(Running { addr, hub, task })
}

/// `arbiter serve`: serve until interrupted.
pub fn serve(config: Config, offered: Vec<Offered>) -> Result<(), String> {
    if let Err(e) = raise_descriptor_limit() {
        eprintln!("arbiter serve: the limit on open files stays as it is: {e}");
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| format!("cannot start the server: {e}"))?;
    rt.block_on(async {
        let titles: Vec<&str> = offered.iter().map(|o| o.kind.title()).collect();
        let r = start(config, offered).await?;
        println!("Serving {} on http://{} ({}); Ctrl-C stops.", titles.join(" and "), r.addr, r.hub.storage().describe());
        let hub = r.hub.clone();
        let result = tokio::select! {
            _ = tokio::signal::ctrl_c() => Ok(()),
            e = r.task => e.map_err(|e| format!("the server stopped: {e}")),
        };
        // Every game unloaded: on a shared database their leases are released, so another
        // server (or this one restarted) serves them at once instead of after the lease's TTL.
        hub.unload_all().await;
        result
    })
}

/// The process's soft limit on open files raised to its hard limit: each connection and each
/// loaded game holds descriptors, and a soft limit of 1,024 (a common default) is reached by a
/// crowd the hard limit would serve. Returns the limit now.
pub fn raise_descriptor_limit() -> Result<u64, String> {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: `lim` is a valid, writable rlimit for the call to fill.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return Err(format!("getrlimit: {}", std::io::Error::last_os_error()));
    }
    // An unlimited hard limit is not one a process may set: Linux's own ceiling (`nr_open`,
    // 2^20 by default) then.
    let want = if lim.rlim_max == libc::RLIM_INFINITY { 1 << 20 } else { lim.rlim_max };
    if lim.rlim_cur < want {
        let raised = libc::rlimit { rlim_cur: want, rlim_max: lim.rlim_max };
        // SAFETY: `raised` is a valid rlimit, read by the call.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } != 0 {
            return Err(format!("setrlimit to {want}: {}", std::io::Error::last_os_error()));
        }
        return Ok(want as u64);
    }
    Ok(lim.rlim_cur as u64)
}

#[cfg(test)]
mod tests {
    /// A crowd connecting at once is queued until the server accepts, up to its cap: none of
    /// 300 connections is dropped to try again a second later (tokio's own `bind` queues 128).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_crowd_connecting_at_once_is_queued_not_dropped() {
        let listener = super::listen("127.0.0.1:0".parse().unwrap(), 512).expect("listening");
        let addr = listener.local_addr().unwrap();
        let connects: Vec<_> = (0..300)
            .map(|_| tokio::spawn(tokio::time::timeout(std::time::Duration::from_millis(800), tokio::net::TcpStream::connect(addr))))
            .collect();
        let mut held = Vec::new();
        for c in connects {
            // Nothing is accepted meanwhile: each connection waits in the listening queue.
            held.push(c.await.unwrap().expect("connected within 0.8 s, not dropped and retried").expect("connected"));
        }
        assert_eq!(held.len(), 300);
        drop(listener);
    }
}
