//! What keeps one client from starving the others (API.md, "Limits"): the accept loop (a cap on
//! open connections in all and per client address, a deadline for a request's headers), a
//! deadline and a size limit for a request's body, and every error answered as JSON.
//!
//! `axum::serve` sets no header deadline (a client sending half a header, or nothing, held its
//! connection for minutes: 1,100 such sockets starved every request) and counts no
//! connections, so the server runs hyper's HTTP/1 connection itself, with upgrades (WebSocket).

use crate::api::ApiError;
use crate::Config;
use axum::body::Body;
use axum::extract::{ConnectInfo, Request};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

/// Open connections, counted in all and per client address; the refusals being answered; and
/// the connections waiting for a request, which a full server sheds to admit another.
#[derive(Default)]
pub struct Connections {
    total: Mutex<usize>,
    per_address: Mutex<HashMap<IpAddr, usize>>,
    refusing: Mutex<Refusing>,
    waiting: Mutex<Waiting>,
}

/// The HTTP connections between requests (idle, kept alive, or still sending a request's head:
/// a slow client's), by when each began to wait: the longest waiting is shed first when the
/// server is full, so that idle and slow sockets never keep a new client out.
#[derive(Default)]
struct Waiting {
    next: u64,
    since: std::collections::BTreeMap<u64, Arc<tokio::sync::Notify>>,
}

/// One HTTP connection's place among the waiting ones, while it waits for a request.
pub struct Idle {
    connections: Arc<Connections>,
    ticket: Mutex<Option<u64>>,
    /// Told when the connection is shed: its task closes it.
    pub shed: Arc<tokio::sync::Notify>,
}

impl Idle {
    fn new(connections: &Arc<Connections>) -> Idle {
        let idle = Idle { connections: connections.clone(), ticket: Mutex::new(None), shed: Arc::new(tokio::sync::Notify::new()) };
        idle.wait();
        idle
    }

    /// The connection waits for its next request (from now: the longest waiting go first).
    pub fn wait(&self) {
        let mut ticket = self.ticket.lock().unwrap_or_else(|p| p.into_inner());
        let mut w = self.connections.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(t) = ticket.take() {
            w.since.remove(&t);
        }
        let t = w.next;
        w.next += 1;
        w.since.insert(t, self.shed.clone());
        *ticket = Some(t);
    }

    /// A request is being answered (or the connection became a WebSocket): not to be shed.
    pub fn busy(&self) {
        if let Some(t) = self.ticket.lock().unwrap_or_else(|p| p.into_inner()).take() {
            self.connections.waiting.lock().unwrap_or_else(|p| p.into_inner()).since.remove(&t);
        }
    }
}

impl Drop for Idle {
    fn drop(&mut self) {
        self.busy();
    }
}

/// Refusals under way (each answered politely, holding its descriptor up to 3 s), in all and
/// per address: beyond a few, a connection over the caps is closed at once, unanswered, so a
/// flood of refused sockets holds no descriptors.
#[derive(Default)]
struct Refusing {
    total: usize,
    per_address: HashMap<IpAddr, usize>,
}

/// The refusals one address may have answered at once; more are closed at once.
pub const REFUSALS_PER_ADDRESS: usize = 4;
/// The refusals answered at once in all.
pub const REFUSALS: usize = 64;

/// A refusal's place among those under way, given back when dropped.
struct Refusal {
    connections: Arc<Connections>,
    ip: IpAddr,
}

impl Drop for Refusal {
    fn drop(&mut self) {
        let mut r = self.connections.refusing.lock().unwrap_or_else(|p| p.into_inner());
        r.total -= 1;
        if let Some(n) = r.per_address.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                r.per_address.remove(&self.ip);
            }
        }
    }
}

/// Why a connection was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum Refused {
    /// This address has its share open (429).
    Address,
    /// The server has as many open as it takes (503).
    Full,
}

impl Refused {
    /// The status and the reason said (`per_address`: the cap on one client's).
    pub fn answer(&self, per_address: usize) -> (StatusCode, String) {
        match self {
            Refused::Address => {
                (StatusCode::TOO_MANY_REQUESTS, format!("too many connections from your address (at most {per_address} at once)"))
            }
            Refused::Full => (StatusCode::SERVICE_UNAVAILABLE, "the server has as many connections as it takes: try again soon".into()),
        }
    }
}

/// One open connection's place in the counts, given back when the last holder drops it: the
/// HTTP connection, and the WebSocket it was upgraded to, if any (`Slot` travels with the
/// request, and the WebSocket keeps it).
pub struct Slot {
    connections: Arc<Connections>,
    /// The client it counts for: the connecting address's, or the one a peer forwards for
    /// ([`Slot::count_as`]).
    ip: Mutex<IpAddr>,
}

/// One fewer open connection of `ip` in `per`.
fn release(per: &mut HashMap<IpAddr, usize>, ip: &IpAddr) {
    if let Some(n) = per.get_mut(ip) {
        *n -= 1;
        if *n == 0 {
            per.remove(ip);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *self.connections.total.lock().unwrap_or_else(|p| p.into_inner()) -= 1;
        let ip = self.ip.lock().unwrap_or_else(|p| p.into_inner());
        release(&mut self.connections.per_address.lock().unwrap_or_else(|p| p.into_inner()), &ip);
    }
}

impl Slot {
    /// Count this connection as client `to`'s from now on, not the connecting address's: a
    /// peer's connection that carries one client's WebSocket (several servers on one
    /// database). Refused if `to` has its share open.
    pub fn count_as(&self, to: IpAddr, config: &Config) -> Result<(), Refused> {
        let mut ip = self.ip.lock().unwrap_or_else(|p| p.into_inner());
        if *ip == to {
            return Ok(());
        }
        let mut per = self.connections.per_address.lock().unwrap_or_else(|p| p.into_inner());
        let held = per.get(&to).copied().unwrap_or(0);
        if held >= config.max_connections_per_address {
            return Err(Refused::Address);
        }
        per.insert(to, held + 1);
        release(&mut per, &ip);
        *ip = to;
        Ok(())
    }
}

impl Connections {
    /// A slot for a connection from `ip`, unless the address or the server is at its cap.
    pub fn admit(self: &Arc<Self>, ip: IpAddr, config: &Config) -> Result<Slot, Refused> {
        let mut total = self.total.lock().unwrap_or_else(|p| p.into_inner());
        let mut per = self.per_address.lock().unwrap_or_else(|p| p.into_inner());
        let held = per.get(&ip).copied().unwrap_or(0);
        if held >= config.max_connections_per_address {
            return Err(Refused::Address);
        }
        if *total >= config.max_connections {
            return Err(Refused::Full);
        }
        *total += 1;
        per.insert(ip, held + 1);
        Ok(Slot { connections: self.clone(), ip: Mutex::new(ip) })
    }

    /// A place to answer a refusal to `ip`, unless too many are under way (then the connection
    /// is closed unanswered).
    fn refusal(self: &Arc<Self>, ip: IpAddr) -> Option<Refusal> {
        let mut r = self.refusing.lock().unwrap_or_else(|p| p.into_inner());
        let held = r.per_address.get(&ip).copied().unwrap_or(0);
        if held >= REFUSALS_PER_ADDRESS || r.total >= REFUSALS {
            return None;
        }
        r.total += 1;
        r.per_address.insert(ip, held + 1);
        Some(Refusal { connections: self.clone(), ip })
    }

    pub fn open(&self) -> usize {
        *self.total.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A full server's way in for a new connection from `ip`: the connection waiting longest for
    /// a request is shed (closed by its task) and the new one takes its place, still within its
    /// address's share. Refused when none waits: every place is a request being answered or a
    /// WebSocket.
    fn admit_shedding(self: &Arc<Self>, ip: IpAddr, config: &Config) -> Result<Slot, Refused> {
        let mut total = self.total.lock().unwrap_or_else(|p| p.into_inner());
        let mut per = self.per_address.lock().unwrap_or_else(|p| p.into_inner());
        let held = per.get(&ip).copied().unwrap_or(0);
        if held >= config.max_connections_per_address {
            return Err(Refused::Address);
        }
        let shed = self.waiting.lock().unwrap_or_else(|p| p.into_inner()).since.pop_first().map(|(_, shed)| shed);
        let Some(shed) = shed else { return Err(Refused::Full) };
        shed.notify_one();
        // Over the cap for as long as the shed connection takes to close (its task's next turn).
        *total += 1;
        per.insert(ip, held + 1);
        Ok(Slot { connections: self.clone(), ip: Mutex::new(ip) })
    }
}

/// The client an address counts as in the per-address caps: its network, the address with
/// its host bits cleared past `Config::ipv4_prefix` or `Config::ipv6_prefix` bits (an IPv6
/// host is given a /64 of its own, so counting single addresses would let one host open
/// connections from as many addresses as it likes). An IPv4 address carried in IPv6 (mapped)
/// counts as that IPv4 address.
pub fn client_of(ip: IpAddr, config: &Config) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => {
            let bits = u32::from(config.ipv4_prefix.min(32));
            let mask = if bits == 0 { 0 } else { u32::MAX << (32 - bits) };
            IpAddr::V4((u32::from(v4) & mask).into())
        }
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => client_of(IpAddr::V4(v4), config),
            None => {
                let bits = u32::from(config.ipv6_prefix.min(128));
                let mask = if bits == 0 { 0 } else { u128::MAX << (128 - bits) };
                IpAddr::V6((u128::from(v6) & mask).into())
            }
        },
    }
}

/// The slot of the connection a request came on (a request extension).
#[derive(Clone)]
pub struct ConnectionSlot(pub Arc<Slot>);

/// Accept connections for ever, each served on its own task with the limits of `config`.
pub async fn serve(listener: TcpListener, app: Router, config: Config) {
    let connections = Arc::new(Connections::default());
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of file descriptors, or the peer gave up: accepting again at once would
                // spin.
                eprintln!("arbiter serve: accepting a connection failed: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let client = client_of(peer.ip(), &config);
        let admitted = match connections.admit(client, &config) {
            Err(Refused::Full) => connections.admit_shedding(client, &config),
            other => other,
        };
        let slot = match admitted {
            Ok(s) => Arc::new(s),
            Err(why) => {
                // Answered while few are; else closed now (the stream dropped).
                if let Some(place) = connections.refusal(client) {
                    let per_address = config.max_connections_per_address;
                    tokio::spawn(async move {
                        refuse(stream, why, per_address).await;
                        drop(place);
                    });
                }
                continue;
            }
        };
        let (app, header_timeout) = (app.clone(), config.header_timeout);
        let idle = Arc::new(Idle::new(&connections));
        tokio::spawn(async move {
            let shed = idle.shed.clone();
            let service = hyper::service::service_fn(move |mut req: Request<hyper::body::Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                req.extensions_mut().insert(ConnectionSlot(slot.clone()));
                let (app, idle) = (app.clone(), idle.clone());
                idle.busy();
                async move {
                    let answer = app.oneshot(req.map(Body::new)).await;
                    // Waiting for the next request, unless it became a WebSocket.
                    if !matches!(&answer, Ok(r) if r.status() == StatusCode::SWITCHING_PROTOCOLS) {
                        idle.wait();
                    }
                    answer
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            // The header deadline runs from the connection's start and again after each answer
            // while the connection is kept alive: idle and half-sent requests alike are closed.
            let serving = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(io, service)
                .with_upgrades();
            // Shed (the server is full and this connection waited longest): dropped, so closed.
            tokio::select! {
                _ = serving => {}
                () = shed.notified() => {}
            }
        });
    }
}

/// Answer a connection over the caps with its status and a JSON reason, then close it. The
/// request's head is awaited first, for a second at most (an HTTP client takes an answer that
/// comes before its request for a fault), and what the client still sends is read and dropped
/// for a moment (closing with unread data would reset the connection, and a reset may lose the
/// answer). A refused connection holds no slot: these moments are its only cost.
async fn refuse(mut stream: TcpStream, why: Refused, per_address: usize) {
    let (status, error) = why.answer(per_address);
    let body = serde_json::json!({ "error": error }).to_string();
    let answer = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    );
    let mut head = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let mut buf = [0u8; 1024];
        while head.len() < 8192 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        stream.write_all(answer.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        while stream.read(&mut sink).await? > 0 {}
        Ok::<(), std::io::Error>(())
    })
    .await;
}

/// Read a request's body before any handler sees it: within the body deadline (a client that
/// sends part of a body is answered 408, not waited for) and the size limit (413), both as
/// JSON. Every body the API takes is small.
pub async fn read_body(limits: axum::extract::State<(Duration, usize)>, req: Request, next: Next) -> Response {
    let (deadline, max) = *limits;
    let (parts, body) = req.into_parts();
    let bytes = match tokio::time::timeout(deadline, axum::body::to_bytes(body, max)).await {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => {
            // `to_bytes` fails with a length-limit error for a body over `max`; anything else is
            // a body that broke off.
            let too_large = std::error::Error::source(&e).is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            return if too_large {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, format!("a request body may have at most {max} bytes")).into_response()
            } else {
                ApiError::new(StatusCode::BAD_REQUEST, format!("the request body could not be read: {e}")).into_response()
            };
        }
        Err(_) => {
            let mut r =
                ApiError::new(StatusCode::REQUEST_TIMEOUT, format!("the request body did not arrive within {} s", deadline.as_secs_f64()))
                    .into_response();
            r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
            return r;
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// The longest request address (path and query) and the most header bytes a request may have:
/// beyond them it is answered 414 or 431 in JSON, as every error. (Past the HTTP library's own
/// ceilings, 64 KiB for an address and 400 KiB for headers, it answers with no body, and closes.)
pub const MAX_URI: usize = 8 * 1024;
pub const MAX_HEADERS: usize = 16 * 1024;

/// Refuse a request whose address or headers are over [`MAX_URI`] or [`MAX_HEADERS`].
pub async fn request_size(req: Request, next: Next) -> Response {
    let too_big = |status: StatusCode, error: String| {
        (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], serde_json::json!({ "error": error }).to_string())
            .into_response()
    };
    let uri = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if uri > MAX_URI {
        return too_big(StatusCode::URI_TOO_LONG, format!("a request's address (path and query) may have at most {MAX_URI} bytes"));
    }
    let headers: usize = req.headers().iter().map(|(k, v)| k.as_str().len() + v.len() + 4).sum();
    if headers > MAX_HEADERS {
        return too_big(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, format!("a request's headers may have at most {MAX_HEADERS} bytes"));
    }
    next.run(req).await
}

/// Every error answer is JSON (`{"error": …}`), whoever made it: axum's own refusals (a path
/// or query it cannot read: 400; a method a route does not take: 405; no route: 404) come as
/// plain text or empty; their text becomes the error. Pages (HTML) are left as they are.
pub async fn json_errors(req: Request, next: Next) -> Response {
    let r = next.run(req).await;
    let status = r.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return r;
    }
    let kind = r.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    if kind.starts_with("application/json") || kind.starts_with("text/html") {
        return r;
    }
    let (mut parts, body) = r.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024).await.map(|b| String::from_utf8_lossy(&b).trim().to_string()).unwrap_or_default();
    let error = if text.is_empty() { status.canonical_reason().unwrap_or("error").to_lowercase() } else { text };
    let body = serde_json::json!({ "error": error }).to_string();
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

/// A token bucket for each key (games created per client address, webhooks written per seat),
/// of `capacity` refilled evenly over `window` (a burst of `capacity`, then one every
/// `window / capacity`).
pub struct Buckets<K = IpAddr> {
    buckets: Mutex<HashMap<K, (f64, std::time::Instant)>>,
}

impl<K> Default for Buckets<K> {
    fn default() -> Self {
        Buckets { buckets: Mutex::new(HashMap::new()) }
    }
}

impl<K: std::hash::Hash + Eq> Buckets<K> {
    /// Take one from `key`'s bucket, or say how long until one is there.
    pub fn take(&self, key: K, capacity: u32, window: Duration) -> Result<(), Duration> {
        let now = std::time::Instant::now();
        let capacity = f64::from(capacity.max(1));
        let rate = capacity / window.as_secs_f64().max(0.001);
        let mut b = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let (tokens, at) = b.entry(key).or_insert((capacity, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * rate).min(capacity);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - *tokens) / rate))
        }
    }

    /// Forget the buckets that are full again (they are as good as new): the map holds only
    /// the addresses that created games within the last window.
    pub fn prune(&self, window: Duration) {
        let now = std::time::Instant::now();
        self.buckets.lock().unwrap_or_else(|p| p.into_inner()).retain(|_, (_, at)| now.duration_since(*at) < window);
    }
}

/// The bytes the files of folder `dir` take (its games and their companions, an earlier
/// server's seats files; not its subfolders).
pub fn folder_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().filter_map(|e| e.metadata().ok()).filter(|m| m.is_file()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

/// A size in bytes as `arbiter serve --disk-quota` takes it: a number, or one with `K`, `M` or
/// `G` (powers of 1024).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("{s:?}: a size is a number of bytes, or one with K, M or G (500M)")),
    };
    let n: u64 = digits.trim().parse().map_err(|_| format!("{s:?}: a size is a number of bytes, or one with K, M or G (500M)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("{s:?} is too large"))
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_client_is_its_network() {
        let mut c = crate::Config::new("127.0.0.1:0".parse().unwrap(), std::path::PathBuf::from("."));
        let key = |ip: &str, c: &crate::Config| super::client_of(ip.parse().unwrap(), c).to_string();
        // By default: each IPv4 address; an IPv6 host's /64; a mapped IPv4 address as itself.
        assert_eq!(key("203.0.113.7", &c), "203.0.113.7");
        assert_eq!(key("2001:db8:1:2:aaaa:bbbb:cccc:dddd", &c), "2001:db8:1:2::");
        assert_eq!(key("2001:db8:1:2::1", &c), key("2001:db8:1:2:ffff::9", &c));
        assert_ne!(key("2001:db8:1:2::1", &c), key("2001:db8:1:3::1", &c));
        assert_eq!(key("::ffff:203.0.113.7", &c), "203.0.113.7");
        // As an option: IPv4 by /24.
        c.ipv4_prefix = 24;
        assert_eq!(key("203.0.113.7", &c), "203.0.113.0");
        assert_eq!(key("203.0.113.200", &c), key("203.0.113.7", &c));
        c.ipv6_prefix = 0;
        assert_eq!(key("2001:db8::1", &c), "::");
    }
    use super::*;

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_bytes("0"), Ok(0));
        assert_eq!(parse_bytes("1500"), Ok(1500));
        assert_eq!(parse_bytes("2k"), Ok(2048));
        assert_eq!(parse_bytes("500M"), Ok(500 << 20));
        assert_eq!(parse_bytes("1G"), Ok(1 << 30));
        for bad in ["", "G", "1T", "-1", "1.5G", "99999999999999G"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bucket_gives_its_burst_then_refills_at_its_rate() {
        let b = Buckets::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for _ in 0..3 {
            assert!(b.take(ip, 3, Duration::from_secs(300)).is_ok());
        }
        let wait = b.take(ip, 3, Duration::from_secs(300)).unwrap_err();
        assert!(wait > Duration::from_secs(90) && wait <= Duration::from_secs(100), "{wait:?}");
        assert!(b.take("192.0.2.2".parse().unwrap(), 3, Duration::from_secs(300)).is_ok(), "another address has its own");
        // A bucket refilled long ago is forgotten; a recent one is kept.
        b.prune(Duration::from_secs(300));
        assert_eq!(b.buckets.lock().unwrap().len(), 2);
        b.prune(Duration::ZERO);
        assert!(b.buckets.lock().unwrap().is_empty());
    }
}
