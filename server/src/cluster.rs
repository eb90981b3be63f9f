//! Several server processes on one database: a game is served by the one process
//! holding its lease (`Storage::claim`); a request for it reaching another process is
//! forwarded to the owner's advertised address (HTTP: the request relayed, its status and body
//! returned; WebSocket: a tunnel of messages both ways). An owner that does not answer (it
//! died) is answered 503 with `Retry-After` until its lease expires; then the next request
//! takes the lease over and the game is served here.
//!
//! Forwarding rather than redirecting: a browser's WebSocket follows no redirect, a `fetch` of
//! a POST redirected to another origin is refused by the page's `connect-src 'self'`, and a
//! client behind one address (a load balancer) may not reach each process's own. Forwarding
//! keeps every client on the address it knows.
//!
//! The lease keeper ([`keep_leases`]) renews every lease of this process every TTL/3 in one
//! statement; a game whose lease it finds lost (the process paused past the expiry and another
//! took over) is unloaded at once and its connections closed (clients reconnect, reaching the
//! new owner). Meanwhile nothing it writes is stored: the store's handle is fenced by this
//! process's lease ([`lease::fenced`]), a write finding the lease lost
//! retires the game's copy at once ([`crate::room::Room::lose`]), and the request is answered
//! 503 (its retry is forwarded to the new owner). Nor does it answer from a copy it may have
//! lost: while its leases have gone unconfirmed for a TTL (the process was paused or starved),
//! a request for a game in memory, a read included, is answered 503 until the keeper's next
//! renewal has unloaded the games lost.

pub mod lease;

use crate::api::ApiError;
use crate::hub::{Hub, HubError};
use crate::limits::ConnectionSlot;
use crate::room::Room;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, FromRequestParts, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};
use ws_client::tungstenite;

/// Marks a request one process forwarded to another: it is never forwarded again (two
/// processes disagreeing on the owner for a moment answer 503 instead of bouncing it).
pub const FORWARDED: &str = "x-arbiter-forwarded";
/// The address of the client a forwarded request is for (trusted with [`PEER`] only).
const CLIENT: &str = "x-arbiter-client";
/// The secret the processes on one database share ([`crate::storage::Storage::peers_secret`]),
/// shown by a forwarding process.
const PEER: &str = "x-arbiter-peer";

/// The headers a forwarded request carries: that it was forwarded, for which client, and the
/// peers' secret that makes the owner trust the client named.
fn forwarding_headers(hub: &Hub, parts: &axum::http::request::Parts) -> Vec<(&'static str, HeaderValue)> {
    let mut out = vec![(FORWARDED, HeaderValue::from_static("1"))];
    let client =
        parts.extensions.get::<ConnectInfo<SocketAddr>>().and_then(|ConnectInfo(a)| HeaderValue::from_str(&a.ip().to_string()).ok());
    let secret = hub.storage().peers_secret().and_then(|s| HeaderValue::from_str(s).ok());
    if let (Some(client), Some(secret)) = (client, secret) {
        out.push((CLIENT, client));
        out.push((PEER, secret));
    }
    out
}

/// A request a peer forwarded counts as its client's in the per-client limits, not the
/// peer's: the client's address (`CLIENT`) replaces the connection's, and a WebSocket's
/// connection, which carries only that client's messages, counts among the client's
/// connections ([`crate::limits::Slot::count_as`]; refused with 429 when the client has its
/// share open). Only with the peers' secret (`PEER`); without it the headers are ignored.
fn count_client(hub: &Hub, req: &mut Request) -> Result<(), Response> {
    let Some(secret) = hub.storage().peers_secret() else { return Ok(()) };
    let shown = req.headers().get(PEER).map(|v| v.as_bytes());
    if !shown.is_some_and(|s| crate::seats::eq_constant_time(s, secret.as_bytes())) {
        return Ok(());
    }
    let Some(ip) = req.headers().get(CLIENT).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<IpAddr>().ok()) else {
        return Ok(());
    };
    req.extensions_mut().insert(ConnectInfo(SocketAddr::new(ip, 0)));
    if !is_websocket(req) {
        return Ok(());
    }
    let Some(ConnectionSlot(slot)) = req.extensions().get::<ConnectionSlot>() else { return Ok(()) };
    slot.count_as(crate::limits::client_of(ip, &hub.config), &hub.config).map_err(|why| {
        let (status, error) = why.answer(hub.config.max_connections_per_address);
        ApiError::new(status, error).retry_after(5).into_response()
    })
}

fn is_websocket(req: &Request) -> bool {
    req.headers().get(header::UPGRADE).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"websocket"))
}

/// The game a path names, if it names one (`/api/games/{id}/…`, `/play/{id}`, `/replay/{id}`).
pub fn game_of(path: &str) -> Option<&str> {
    let rest = ["/api/games/", "/play/", "/replay/"].iter().find_map(|p| path.strip_prefix(p))?;
    let id = rest.split('/').next()?;
    crate::seats::valid_game_id(id).then_some(id)
}

/// 503 with `Retry-After` (whole seconds, at least 1).
pub fn unavailable(retry: Duration, why: &str) -> Response {
    let secs = retry.as_secs() + u64::from(retry.subsec_nanos() > 0);
    ApiError::new(StatusCode::SERVICE_UNAVAILABLE, why.into()).retry_after(secs.max(1)).into_response()
}

/// The middleware: a request for a game another live process holds goes to that process.
pub async fn route(State(hub): State<Arc<Hub>>, mut req: Request, next: Next) -> Response {
    if !hub.storage().is_shared() {
        return next.run(req).await;
    }
    if let Err(refused) = count_client(&hub, &mut req) {
        return refused;
    }
    let Some(id) = game_of(req.uri().path()).map(String::from) else { return next.run(req).await };
    // Leases unconfirmed for a TTL: the copy in memory may be stale (another process took the
    // game over), so it answers nothing, not even a read, until the keeper's next renewal says
    // which games are still this process's.
    if hub.is_loaded(&id) && hub.peers.unconfirmed(hub.config.lease_ttl) {
        return unavailable(Duration::from_secs(1), "this game is changing servers: try again");
    }
    // Owned elsewhere a moment ago (a forwarded request's owner does not claim it again).
    let known = if hub.is_loaded(&id) || req.headers().contains_key(FORWARDED) { None } else { hub.peers.owner(&id) };
    let found = match known {
        Some(address) => Err(HubError::Elsewhere { address, expires_in: Duration::from_secs(1) }),
        // Loading the game claims it: served here if its lease is free, expired or ours.
        None => hub.room(&id).await,
    };
    match found {
        Err(HubError::Elsewhere { address, expires_in }) => {
            if req.headers().contains_key(FORWARDED) {
                return unavailable(Duration::from_secs(1), "this game is changing servers: try again");
            }
            hub.peers.remember(&id, &address, expires_in);
            let websocket = is_websocket(&req);
            let answer =
                if websocket { tunnel(&hub, req, &address, expires_in).await } else { forward(&hub, req, &address, expires_in).await };
            if answer.status() == StatusCode::SERVICE_UNAVAILABLE {
                // Dead, or no longer the owner: ask the database next time.
                hub.peers.forget(&id);
            }
            answer
        }
        // Ours, or an error the handler will give (no such game…).
        Ok(_) | Err(HubError::NotFound | HubError::Invalid(_) | HubError::Failed(_) | HubError::Full) => next.run(req).await,
    }
}

const OWNER_GONE: &str =
    "the server holding this game does not answer: another server takes the game over when its lease expires; try again then";

/// Relay an HTTP request to the owner at `address`; its status, type and body come back.
async fn forward(hub: &Arc<Hub>, req: Request, address: &str, expires_in: Duration) -> Response {
    let (parts, body) = req.into_parts();
    // The body was read and bounded before (`limits::read_body`).
    let Ok(body) = axum::body::to_bytes(body, crate::MAX_BODY).await else {
        return ApiError::new(StatusCode::BAD_REQUEST, "the request body could not be read".into()).into_response();
    };
    let target = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let url = format!("{}{target}", address.trim_end_matches('/'));
    let mut out = hub.peers.client.request(parts.method.clone(), url).timeout(hub.config.forward_timeout).body(body);
    for (name, value) in forwarding_headers(hub, &parts) {
        out = out.header(name, value);
    }
    if let Some(ct) = parts.headers.get(header::CONTENT_TYPE) {
        out = out.header(header::CONTENT_TYPE, ct);
    }
    let answer = match out.send().await {
        Ok(a) => a,
        Err(e) => {
            // Without the URL: its query holds the seat's token.
            eprintln!("arbiter serve: forwarding {} {} to {address}: {}", parts.method, parts.uri.path(), e.without_url());
            return unavailable(expires_in, OWNER_GONE);
        }
    };
    let status = answer.status();
    let kept: Vec<(header::HeaderName, HeaderValue)> =
        [header::CONTENT_TYPE, header::RETRY_AFTER].into_iter().filter_map(|h| answer.headers().get(&h).cloned().map(|v| (h, v))).collect();
    match answer.bytes().await {
        Ok(bytes) => {
            let mut r = (status, bytes).into_response();
            r.headers_mut().extend(kept);
            r
        }
        Err(e) => {
            eprintln!(
                "arbiter serve: forwarding {} {} to {address}: the answer broke off: {}",
                parts.method,
                parts.uri.path(),
                e.without_url()
            );
            unavailable(expires_in, OWNER_GONE)
        }
    }
}

/// A WebSocket for a game another process holds: connected to that process, then every message
/// relayed both ways. The owner closing (or dying) closes the client's connection, which
/// reconnects.
async fn tunnel(hub: &Arc<Hub>, req: Request, address: &str, expires_in: Duration) -> Response {
    let (mut parts, _body) = req.into_parts();
    let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, &()).await {
        Ok(u) => u,
        Err(r) => return r.into_response(),
    };
    let target = parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let base = address.trim_end_matches('/');
    let ws_base = match (base.strip_prefix("http://"), base.strip_prefix("https://")) {
        (Some(rest), _) => format!("ws://{rest}"),
        (None, Some(rest)) => format!("wss://{rest}"),
        (None, None) => {
            eprintln!("arbiter serve: the owner's address {address:?} is not an http(s) URL");
            return unavailable(expires_in, OWNER_GONE);
        }
    };
    let mut request = match tungstenite::client::IntoClientRequest::into_client_request(format!("{ws_base}{target}")) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("arbiter serve: the owner's address {address:?} makes no WebSocket URL: {e}");
            return unavailable(expires_in, OWNER_GONE);
        }
    };
    for (name, value) in forwarding_headers(hub, &parts) {
        request.headers_mut().insert(name, value);
    }
    let limits = tungstenite::protocol::WebSocketConfig::default().max_message_size(Some(1 << 24));
    let upstream =
        match tokio::time::timeout(hub.config.forward_timeout, ws_client::connect_async_with_config(request, Some(limits), false)).await {
            Ok(Ok((s, _))) => s,
            // The owner refused the connection (a bad token, no such seat): its answer, relayed.
            Ok(Err(tungstenite::Error::Http(answer))) => {
                let status = StatusCode::from_u16(answer.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY);
                let ct = answer.headers().get(header::CONTENT_TYPE).cloned();
                let mut r = (status, answer.into_body().unwrap_or_default()).into_response();
                if let Some(ct) = ct {
                    r.headers_mut().insert(header::CONTENT_TYPE, ct);
                }
                return r;
            }
            Ok(Err(e)) => {
                eprintln!("arbiter serve: a WebSocket to {address} for {}: {e}", parts.uri.path());
                return unavailable(expires_in, OWNER_GONE);
            }
            Err(_) => return unavailable(expires_in, OWNER_GONE),
        };
    let slot = parts.extensions.get::<ConnectionSlot>().cloned();
    let (ping, pong) = (hub.config.ping_interval, hub.config.pong_timeout);
    upgrade.max_message_size(crate::ws::MAX_MESSAGE).max_frame_size(crate::ws::MAX_MESSAGE).on_upgrade(move |socket| async move {
        // The tunnel keeps its HTTP connection's place in the connection counts.
        let _slot = slot;
        pump(socket, upstream, ping, pong).await
    })
}

type Upstream = ws_client::WebSocketStream<ws_client::MaybeTlsStream<tokio::net::TcpStream>>;

/// Relay messages until either side closes. The client is pinged here as the owner would (the
/// owner's own pings are answered by the tunnel's WebSocket library, so they tell nothing of
/// the client): a client silent for a ping interval and the pong timeout is dropped.
async fn pump(mut client: WebSocket, mut upstream: Upstream, ping: Duration, pong: Duration) {
    let mut heard = Instant::now();
    let mut tick = tokio::time::interval(ping);
    tick.tick().await;
    loop {
        tokio::select! {
            m = client.recv() => {
                let Some(Ok(m)) = m else { break };
                heard = Instant::now();
                let out = match m {
                    Message::Text(t) => tungstenite::Message::text(t.as_str()),
                    Message::Binary(b) => tungstenite::Message::binary(b.to_vec()),
                    // Answered by the library (a ping), or the answer to ours (a pong).
                    Message::Ping(_) | Message::Pong(_) => continue,
                    Message::Close(_) => break,
                };
                if upstream.send(out).await.is_err() {
                    break;
                }
            }
            m = upstream.next() => {
                let Some(Ok(m)) = m else { break };
                let out = match m {
                    tungstenite::Message::Text(t) => Message::Text(t.as_str().into()),
                    tungstenite::Message::Binary(b) => Message::Binary(b),
                    tungstenite::Message::Ping(_) | tungstenite::Message::Pong(_) | tungstenite::Message::Frame(_) => continue,
                    tungstenite::Message::Close(_) => break,
                };
                if !matches!(tokio::time::timeout(pong, client.send(out)).await, Ok(Ok(()))) {
                    break;
                }
            }
            _ = tick.tick() => {
                if heard.elapsed() > ping + pong {
                    break;
                }
                if !matches!(tokio::time::timeout(pong, client.send(Message::Ping(Vec::new().into()))).await, Ok(Ok(()))) {
                    break;
                }
            }
        }
    }
    let _ = tokio::time::timeout(pong, client.send(Message::Close(None))).await;
    let _ = tokio::time::timeout(pong, upstream.close(None)).await;
}

/// What forwarding needs: one HTTP client for the other processes (no proxy, no redirects:
/// an owner's answer is relayed as it is).
pub struct Peers {
    pub client: reqwest::Client,
    /// Who held each game another process serves, as last asked, and until when that answer is
    /// used (a second at most, never past the lease): a forwarded request costs no query of the
    /// database. A stale answer is safe: the process asked serves a game only after claiming it
    /// itself, and answers 503 otherwise.
    owners: std::sync::Mutex<std::collections::HashMap<String, (String, Instant)>>,
    /// When the lease keeper asked for the last renewal of this process's leases that was
    /// answered (the games it found lost already unloaded): until a lease's TTL past it, every
    /// game loaded here is still this process's own.
    confirmed: std::sync::Mutex<Instant>,
}

impl Peers {
    /// The owner last found for game `id`, if that answer is still fresh.
    fn owner(&self, id: &str) -> Option<String> {
        let owners = self.owners.lock().unwrap_or_else(|p| p.into_inner());
        owners.get(id).filter(|(_, until)| Instant::now() < *until).map(|(a, _)| a.clone())
    }

    fn remember(&self, id: &str, address: &str, expires_in: Duration) {
        let mut owners = self.owners.lock().unwrap_or_else(|p| p.into_inner());
        // Bounded: stale answers go first.
        if owners.len() >= 10_000 {
            let now = Instant::now();
            owners.retain(|_, (_, until)| *until > now);
        }
        if owners.len() < 10_000 {
            owners.insert(id.to_string(), (address.to_string(), Instant::now() + expires_in.min(Duration::from_secs(1))));
        }
    }

    fn forget(&self, id: &str) {
        self.owners.lock().unwrap_or_else(|p| p.into_inner()).remove(id);
    }

    fn confirm(&self, asked: Instant) {
        let mut confirmed = self.confirmed.lock().unwrap_or_else(|p| p.into_inner());
        *confirmed = (*confirmed).max(asked);
    }

    /// Whether this process's leases went unconfirmed for `ttl` (it was paused, starved of the
    /// CPU or cut off from the database): another process may serve any of its games by now.
    fn unconfirmed(&self, ttl: Duration) -> bool {
        self.confirmed.lock().unwrap_or_else(|p| p.into_inner()).elapsed() >= ttl
    }
}

impl Peers {
    pub fn new() -> Peers {
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_else(|_| reqwest::Client::new());
        Peers { client, owners: Default::default(), confirmed: std::sync::Mutex::new(Instant::now()) }
    }
}

impl Default for Peers {
    fn default() -> Self {
        Peers::new()
    }
}

/// Renew this process's leases every TTL/3 while it runs; unload the games whose lease was
/// lost. Returns at once for a storage without leases.
pub async fn keep_leases(hub: Arc<Hub>) {
    let ttl = hub.config.lease_ttl;
    let every = (ttl / 3).max(Duration::from_millis(50));
    let mut renewed = Instant::now();
    loop {
        tokio::time::sleep(every).await;
        // Only the rooms loaded before the renewal are judged by it: one loaded meanwhile
        // claimed its lease after the statement's snapshot, perhaps.
        let loaded: Vec<Arc<Room>> = hub.loaded_rooms();
        let storage = hub.storage().clone();
        // The database's expiry runs from its statement, no sooner than this.
        let asked = Instant::now();
        match tokio::task::spawn_blocking(move || storage.renew()).await {
            Ok(Ok(None)) => return,
            Ok(Ok(Some(held))) => {
                renewed = Instant::now();
                let lost: Vec<Arc<Room>> = loaded.into_iter().filter(|r| !held.contains(&r.id)).collect();
                if !lost.is_empty() {
                    hub.drop_lost(lost).await;
                }
                hub.peers.confirm(asked);
            }
            failed => {
                eprintln!("arbiter serve: the games' leases could not be renewed: {failed:?}");
                // Past the TTL another process may have taken every game over.
                if renewed.elapsed() >= ttl {
                    hub.drop_lost(loaded).await;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_their_game() {
        assert_eq!(game_of("/api/games/0123456789abcdef/moves"), Some("0123456789abcdef"));
        assert_eq!(game_of("/api/games/0123456789abcdef"), Some("0123456789abcdef"));
        assert_eq!(game_of("/play/0123456789abcdef"), Some("0123456789abcdef"));
        assert_eq!(game_of("/replay/0123456789abcdef"), Some("0123456789abcdef"));
        for none in ["/api/games", "/api/games/", "/api/games/../etc", "/", "/api/kinds/x/y", "/static/arbiter.js"] {
            assert_eq!(game_of(none), None, "{none}");
        }
    }

    #[test]
    fn retry_after_is_whole_seconds_rounded_up() {
        let r = unavailable(Duration::from_millis(2100), "x");
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()[header::RETRY_AFTER], "3");
        assert_eq!(unavailable(Duration::ZERO, "x").headers()[header::RETRY_AFTER], "1");
    }
}
