//! # Arbiter server
//!
//! `arbiter serve`: Twilight Struggle over HTTP and WebSocket, on the same engine and the same
//! saved games as the command line. API.md documents the protocol.
//!
//! - `seats`: seat tokens (128 random bits; only their SHA-256 is kept) and game ids.
//! - `hub`: the loaded games (`Hub`) and each game's `Room`: session, topics, presence.
//! - `clock`: the chess clock, read from the saved game's move times.
//! - `views`: what each seat may see, as JSON.
//! - `api`: the HTTP handlers; `ws`: the WebSocket connections.
//! - `static/`: the browser client, compiled into the binary (no network at run time).

pub mod api;
pub mod clock;
pub mod hub;
pub mod seats;
pub mod views;
pub mod ws;

use axum::extract::DefaultBodyLimit;
use axum::http::header;
use axum::response::{Html, IntoResponse};
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
    /// The folder of saved games (`GAME.arbiter`) and their seats (`GAME.seats.json`).
    pub data: PathBuf,
    /// A seat disconnected this long is absent instead of away.
    pub disconnect_timeout: Duration,
    /// A game nobody is connected to is unloaded after this long.
    pub unload_after: Duration,
    /// A game with no move for this long is unloaded, its connections closed.
    pub idle_timeout: Duration,
    /// Messages one WebSocket connection may send in a second before it is closed.
    pub ws_messages_per_second: u32,
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
        }
    }
}

pub fn router(hub: Arc<Hub>) -> Router {
    Router::new()
        .route("/", get(|| async { Html(include_str!("../static/index.html")) }))
        .route("/play/{id}", get(|| async { Html(include_str!("../static/play.html")) }))
        .route(
            "/static/app.js",
            get(|| async {
                ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], include_str!("../static/app.js")).into_response()
            }),
        )
        .route(
            "/static/style.css",
            get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], include_str!("../static/style.css")).into_response() }),
        )
        .route("/api/map", get(api::map))
        .route("/api/cards", get(api::cards))
        .route("/api/games", post(api::create))
        .route("/api/games/{id}/state", get(api::state))
        .route("/api/games/{id}/moves", get(api::moves).post(api::play))
        .route("/api/games/{id}/log", get(api::log))
        .route("/api/games/{id}/ws", get(ws::upgrade))
        .layer(DefaultBodyLimit::max(MAX_BODY))
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

/// Bind and serve in the background (tests use port 0).
pub async fn start(config: Config) -> Result<Running, String> {
    std::fs::create_dir_all(&config.data).map_err(|e| format!("cannot create {}: {e}", config.data.display()))?;
    let listener = tokio::net::TcpListener::bind(config.addr).await.map_err(|e| format!("cannot listen on {}: {e}", config.addr))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let hub = Arc::new(Hub::new(config.clone()));
    let sweep = config.idle_timeout.min(Duration::from_secs(60)).max(Duration::from_millis(100));
    let h = hub.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(sweep).await;
            h.sweep_idle();
        }
    });
    let app = router(hub.clone());
    let task = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("arbiter serve: {e}");
        }
    });
    Ok(Running { addr, hub, task })
}

/// `arbiter serve`: serve until interrupted.
pub fn serve(config: Config) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(|e| format!("cannot start the server: {e}"))?;
    rt.block_on(async {
        let data = config.data.clone();
        let r = start(config).await?;
        println!("Serving Twilight Struggle on http://{} (games in {}); Ctrl-C stops.", r.addr, data.display());
        tokio::select! {
            _ = tokio::signal::ctrl_c() => Ok(()),
            e = r.task => e.map_err(|e| format!("the server stopped: {e}")),
        }
    })
}
