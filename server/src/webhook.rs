//! Turn alerts by webhook: a seat may register a URL (stored with the game, in its seats
//! document); when that seat comes to decide after another seat's move, the server POSTs a small
//! JSON body there. Delivery runs on its own task after the move is stored and sent: a slow
//! or failing endpoint never delays or fails a move. Failures are retried a few times, then
//! written to the server's log; the seat can read the last attempt's result.
//!
//! The server, not the player, makes these requests, so a URL must not reach the server's own
//! network: only `http` and `https`, no redirects followed, and (unless the operator allows it,
//! `Config::webhook_private`) every address the host resolves to, at the moment of the call,
//! must be public — a name that resolves to a loopback, private or link-local address is
//! refused, so DNS cannot be used to point a registered name inward later.

use crate::api::{retrying, seat_of, ApiError, TokenQuery, Who};
use crate::hub::Hub;
use crate::room::{MoveError, Room};
use crate::seats::Place;
use crate::Config;
use arbiter_kernel::Seat;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest URL a seat may register.
pub const MAX_URL: usize = 2048;

/// How a delivery ended, as the seat that registered the URL reads it.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Delivery {
    /// RFC 3339, when the last attempt ended.
    pub at: String,
    pub seq: u64,
    /// Attempts made (1 if the first succeeded).
    pub attempts: u32,
    pub ok: bool,
    /// The endpoint's HTTP status, if it answered.
    pub status: Option<u16>,
    /// Why the last attempt failed, if it did.
    pub error: Option<String>,
}

/// Calls in flight at once, over all games: an endpoint that never answers holds a socket
/// for up to the call's timeout, and moves come faster than that.
pub const MAX_IN_FLIGHT: usize = 32;

/// A call to make: the URL, the body, the move it follows, and who is told how it ended.
struct Job {
    url: String,
    body: Value,
    seq: u64,
    done: Box<dyn FnOnce(Delivery) + Send>,
}

/// The server's webhook sender: one HTTP client (its connections reused), its policy, and the
/// calls under way. One call at a time per seat of a game: an alert that comes while one is
/// under way waits, and a newer one replaces it (only the latest "your move" matters), so a
/// seat's alerts hold one socket at most; and at most [`MAX_IN_FLIGHT`] calls at once.
pub struct Sender {
    client: Result<reqwest::Client, String>,
    allow_private: bool,
    retries: u32,
    backoff: Duration,
    /// Per key (game and seat) with a call under way: the next call to make, if any.
    queued: Mutex<std::collections::HashMap<String, Option<Job>>>,
    in_flight: Arc<tokio::sync::Semaphore>,
}

impl Sender {
    pub fn new(config: &Config) -> Sender {
        let client = reqwest::Client::builder()
            .timeout(config.webhook_timeout)
            .connect_timeout(config.webhook_timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("arbiter-server/", env!("CARGO_PKG_VERSION")))
            .dns_resolver(Arc::new(PublicOnly { allow_private: config.webhook_private }))
            // A proxy would resolve the name itself, past the resolver's check.
            .no_proxy()
            .build()
            .map_err(|e| format!("no HTTP client for webhooks: {e}"));
        Sender {
            client,
            allow_private: config.webhook_private,
            retries: config.webhook_retries,
            backoff: config.webhook_backoff,
            queued: Mutex::new(std::collections::HashMap::new()),
            in_flight: Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT)),
        }
    }

    /// Whether `url` may be registered: its form, and where it points now (a name is resolved;
    /// it is resolved again at each call). The reason says what is allowed.
    pub async fn check(&self, url: &str) -> Result<url::Url, String> {
        let u = parse(url)?;
        let host = u.host_str().unwrap_or_default().trim_start_matches('[').trim_end_matches(']').to_string();
        match host.parse::<IpAddr>() {
            Ok(ip) => refuse_inward(ip, self.allow_private)?,
            Err(_) => {
                resolve(&host, self.allow_private).await?;
            }
        }
        Ok(u)
    }

    /// POST `body` to `url` on a task of its own, retried on failure (with a growing delay);
    /// `done` is told how it ended. `key` names the seat (game and seat): while a call of the
    /// same key is under way this one waits for it, replacing any other waiting (whose `done`
    /// is never called). Never waits: the caller may hold a lock.
    pub fn deliver(self: &Arc<Self>, key: String, url: String, body: Value, seq: u64, done: impl FnOnce(Delivery) + Send + 'static) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else { return };
        let job = Job { url, body, seq, done: Box::new(done) };
        {
            let mut queued = self.queued.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(next) = queued.get_mut(&key) {
                *next = Some(job);
                return;
            }
            queued.insert(key.clone(), None);
        }
        let sender = self.clone();
        rt.spawn(async move {
            let mut job = Some(job);
            while let Some(j) = job {
                sender.run(j).await;
                let mut queued = sender.queued.lock().unwrap_or_else(|p| p.into_inner());
                job = queued.get_mut(&key).and_then(Option::take);
                if job.is_none() {
                    queued.remove(&key);
                }
            }
        });
    }

    /// One call, with its retries.
    async fn run(&self, Job { url, body, seq, done }: Job) {
        let mut attempts = 0;
        let mut delay = self.backoff;
        let (status, error) = loop {
            attempts += 1;
            let (status, error) = match self.in_flight.acquire().await {
                // Held for the attempt only, not while waiting to retry.
                Ok(_permit) => self.attempt(&url, &body).await,
                Err(e) => (None, Some(format!("no webhooks now: {e}"))),
            };
            if error.is_none() || attempts > self.retries {
                break (status, error);
            }
            tokio::time::sleep(delay).await;
            delay *= 4;
        };
        if let Some(e) = &error {
            eprintln!("arbiter serve: a webhook failed after {attempts} attempts (move {seq}): {e}");
        }
        done(Delivery { at: chrono::Utc::now().to_rfc3339(), seq, attempts, ok: error.is_none(), status, error });
    }

    /// One POST: the status if the endpoint answered, and why it failed if it did.
    async fn attempt(&self, url: &str, body: &Value) -> (Option<u16>, Option<String>) {
        let client = match &self.client {
            Ok(c) => c,
            Err(e) => return (None, Some(e.clone())),
        };
        // An address in the URL itself is not resolved, so not checked by the resolver.
        if let Err(e) = self.literal_ok(url) {
            return (None, Some(e));
        }
        match client.post(url).json(body).send().await {
            Ok(r) if r.status().is_success() => (Some(r.status().as_u16()), None),
            Ok(r) => (Some(r.status().as_u16()), Some(format!("the endpoint answered {}", r.status()))),
            Err(e) => (None, Some(describe(&e))),
        }
    }

    fn literal_ok(&self, url: &str) -> Result<(), String> {
        let u = parse(url)?;
        match u.host() {
            Some(url::Host::Ipv4(ip)) => refuse_inward(IpAddr::V4(ip), self.allow_private),
            Some(url::Host::Ipv6(ip)) => refuse_inward(IpAddr::V6(ip), self.allow_private),
            Some(url::Host::Domain(_)) | None => Ok(()),
        }
    }
}

/// A reqwest error with its causes (the top level alone says only "error sending request").
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// The URL's form: `http` or `https`, a host, no credentials, at most [`MAX_URL`] bytes.
fn parse(url: &str) -> Result<url::Url, String> {
    if url.len() > MAX_URL {
        return Err(format!("a webhook URL may have at most {MAX_URL} bytes"));
    }
    let u = url::Url::parse(url).map_err(|e| format!("not a URL ({e}): give an http:// or https:// address"))?;
    if !matches!(u.scheme(), "http" | "https") {
        return Err(format!("a webhook must be http:// or https://, not {}:", u.scheme()));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err("a webhook URL needs a host".into());
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err("a webhook URL may not carry a user name or password: put a secret in its path or query".into());
    }
    Ok(u)
}

/// Refuse an address of the server's own networks (unless allowed).
fn refuse_inward(ip: IpAddr, allow_private: bool) -> Result<(), String> {
    if allow_private || is_public(ip) {
        Ok(())
    } else {
        Err(format!("{ip} is a loopback, private, link-local or reserved address: a webhook must point to a public address"))
    }
}

/// A public unicast address: for IPv4 not loopback, private, shared, link-local, unspecified,
/// multicast, broadcast or reserved; for IPv6 a global unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            !(v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_multicast()
                || v4.is_broadcast()
                || v4.is_documentation()
                || o[0] == 0
                // 100.64.0.0/10: carrier-grade NAT (shared address space).
                || (o[0] == 100 && (64..128).contains(&o[1]))
                // 192.0.0.0/24: IETF protocol assignments; 198.18.0.0/15: benchmarking; 240/4: reserved.
                || (o[0] == 192 && o[1] == 0 && o[2] == 0)
                || (o[0] == 198 && (18..20).contains(&o[1]))
                || o[0] >= 240)
        }
        IpAddr::V6(v6) => {
            let (s, o) = (v6.segments(), v6.octets());
            let v4 = |at: usize| IpAddr::V4(std::net::Ipv4Addr::new(o[at], o[at + 1], o[at + 2], o[at + 3]));
            // An IPv4 address carried in IPv6 is judged as that address: mapped
            // (::ffff:a.b.c.d), the well-known NAT64 prefix (64:ff9b::/96), 6to4 (2002::/16).
            if let Some(mapped) = v6.to_ipv4_mapped() {
                return is_public(IpAddr::V4(mapped));
            }
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return is_public(v4(12));
            }
            if s[0] == 0x2002 {
                return is_public(v4(2));
            }
            // Else global unicast only (2000::/3), less its blocks for special purposes:
            // 2001::/23 (IETF protocol assignments: Teredo, benchmarking, ORCHID), 2001:db8::/32
            // and 3fff::/20 (documentation). Everything else (loopback, unique local, link-
            // and site-local, multicast, IPv4-compatible and -translated, local NAT64) is not.
            (s[0] & 0xe000) == 0x2000
                && !(s[0] == 0x2001 && s[1] < 0x0200)
                && !(s[0] == 0x2001 && s[1] == 0x0db8)
                && !(s[0] == 0x3fff && s[1] < 0x1000)
        }
    }
}

/// Every address `host` resolves to, refused if one of them is inward (unless allowed): a
/// name that points both outward and inward is not trusted.
async fn resolve(host: &str, allow_private: bool) -> Result<Vec<SocketAddr>, String> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host, 0)).await.map_err(|e| format!("cannot resolve {host}: {e}"))?.collect();
    if addrs.is_empty() {
        return Err(format!("{host} resolves to no address"));
    }
    for a in &addrs {
        refuse_inward(a.ip(), allow_private).map_err(|e| format!("{host}: {e}"))?;
    }
    Ok(addrs)
}

/// The client's resolver: the system's, with the inward check at every connection.
struct PublicOnly {
    allow_private: bool,
}

impl reqwest::dns::Resolve for PublicOnly {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let (host, allow) = (name.as_str().to_string(), self.allow_private);
        Box::pin(async move {
            let addrs = resolve(&host, allow).await.map_err(|e| -> Box<dyn std::error::Error + Send + Sync> { e.into() })?;
            let addrs: reqwest::dns::Addrs = Box::new(addrs.into_iter());
            Ok(addrs)
        })
    }
}

/// Each seat's last delivery, kept in memory (what `GET …/webhook` shows).
type LastDeliveries = Arc<Mutex<Vec<Option<Delivery>>>>;

/// A game's turn alerts: the part of a room that reacts to "a move was stored" by calling the
/// webhook of each seat that has come to act, and keeps each seat's last delivery.
pub struct Alerts {
    sender: Option<Arc<Sender>>,
    last: LastDeliveries,
}

/// The game a room alerts for: its id, its kind's id and its places' ids.
pub struct AlertedGame<'a> {
    pub id: &'a str,
    pub kind: &'a str,
    pub ids: &'a [String],
}

impl Alerts {
    /// Alerts for `seats` seats, sent through `sender` (none: a room that alerts nobody).
    pub fn new(seats: usize, sender: Option<Arc<Sender>>) -> Alerts {
        Alerts { sender, last: Arc::new(Mutex::new(vec![None; seats])) }
    }

    /// How `seat`'s last call went.
    pub fn last(&self, seat: Seat) -> Option<Delivery> {
        self.last.lock().unwrap_or_else(|p| p.into_inner()).get(seat.idx()).cloned().flatten()
    }

    /// A move was stored in `s`, `acting_before` were the seats acting before it: alert each
    /// seat that has come to act, or to act otherwise (to decide first, or at the same time as
    /// another seat; not a seat going on with its own decision), at its URL in `urls`.
    pub fn moved(&self, game: &AlertedGame<'_>, urls: &crate::seats::SeatsFile, s: &crate::storage::Session, acting_before: &[Seat]) {
        let (Some(sender), Some(next)) = (&self.sender, s.game().decision()) else { return };
        let first = |seats: &[Seat], seat| seats.first() == Some(&seat);
        let now: Vec<Seat> = next.seats().collect();
        for t in next.turns().iter().filter(|t| !acting_before.contains(&t.seat) || first(acting_before, t.seat) != first(&now, t.seat)) {
            if let Some(url) = urls.webhook(t.seat) {
                self.alert(sender, game, s, t.seat, url.to_string(), &t.prompt);
            }
        }
    }

    /// Call `seat`'s webhook at `url`: it decides now as `prompt` asks (on a task of its own:
    /// this returns at once, under the session lock).
    fn alert(&self, sender: &Arc<Sender>, game: &AlertedGame<'_>, s: &crate::storage::Session, seat: Seat, url: String, prompt: &str) {
        let rows = s.rows();
        let last = rows.last().map(|_| arbiter_store::move_text_for(rows, rows.len() - 1, Some(seat), s.game()));
        let title = s.kind().title();
        let seat_name = s.seat_name(seat);
        // `text` and `content`: what chat services' incoming webhooks post (Slack reads `text`,
        // Discord `content`); the rest for programs. Nothing another seat could not know but
        // the seat's own prompt; never the seat's token.
        let line = format!("Your move in {title}, game {} (move {}), as the {seat_name}: {prompt}", game.id, s.seq() + 1);
        let body = json!({
            "type": "your_turn",
            "game": game.id,
            "kind": game.kind,
            "title": title,
            "seat": game.ids[seat.idx()],
            "seq": s.seq(),
            "prompt": prompt,
            "last_move": last,
            "text": line,
            "content": line,
        });
        let last = self.last.clone();
        sender.deliver(format!("{}/{}", game.id, seat.0), url, body, s.seq(), move |d| {
            if let Some(slot) = last.lock().unwrap_or_else(|p| p.into_inner()).get_mut(seat.idx()) {
                *slot = Some(d);
            }
        });
    }
}

/// The seat a token acts as: webhooks are a seat's (the observers have no decision).
async fn seat(hub: &Arc<Hub>, id: &str, token: Option<&str>) -> Result<(Arc<Room>, Seat), ApiError> {
    match seat_of(hub, id, token).await? {
        (room, Place::Seat(s)) => Ok((room, s)),
        (_, Place::Observer) => Err(ApiError::new(StatusCode::FORBIDDEN, "a webhook is a seat's: the observers never decide".into())),
    }
}

fn answer(url: Option<String>, last: Option<Delivery>) -> Json<Value> {
    Json(json!({ "url": url, "last": last }))
}

/// `GET /api/games/{id}/webhook?token=T`: the seat's URL and how its last call went.
pub async fn get(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    let (room, s) = seat(&hub, &id, q.token.as_deref()).await?;
    let (url, last) = room.webhook(s);
    Ok(answer(url, last))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookBody {
    url: String,
}

/// `PUT /api/games/{id}/webhook?token=T` `{"url": …}`: register the seat's URL (checked now,
/// and again at each call).
pub async fn put(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
    body: axum::body::Bytes,
) -> Result<Json<Value>, ApiError> {
    seat(&hub, &id, q.token.as_deref()).await?;
    let WebhookBody { url } = serde_json::from_slice(&body)
        .map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, format!("bad JSON: {e}; send {{\"url\": \"https://…\"}}")))?;
    let url = hub.webhooks().check(&url).await.map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, e))?.to_string();
    set(&hub, &id, q.token.as_deref(), Some(url)).await
}

/// The webhook writes (`PUT`, `DELETE`) one seat may make: a burst of `WRITES`, then one every
/// `WRITES_WINDOW / WRITES` (each is a synced write of the game's seats document).
pub const WRITES: u32 = 10;
pub const WRITES_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// Write `url` as the token's seat's webhook through the loaded copy of the game (a copy
/// being unloaded writes nothing: `retrying` asks the one loaded now), within the seat's
/// writes (429 beyond).
async fn set(hub: &Arc<Hub>, id: &str, token: Option<&str>, url: Option<String>) -> Result<Json<Value>, ApiError> {
    let (_, at) = seat(hub, id, token).await?;
    if let Err(wait) = hub.webhook_writes.take((id.to_string(), at.0), WRITES, WRITES_WINDOW) {
        let secs = wait.as_secs() + 1;
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many webhook changes for this seat (at most {WRITES} a minute): try again in {secs} s"),
        )
        .retry_after(secs));
    }
    let (room, s) = retrying(hub, id, Who::Token(token), move |r, place| match place {
        Place::Seat(s) => r.set_webhook(s, url.clone()).map(|_| s),
        Place::Observer => Err(MoveError::Forbidden("a webhook is a seat's: the observers never decide".into())),
    })
    .await?;
    let (url, last) = room.webhook(s);
    Ok(answer(url, last))
}

/// `DELETE /api/games/{id}/webhook?token=T`: no more calls for this seat.
pub async fn delete(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    seat(&hub, &id, q.token.as_deref()).await?;
    set(&hub, &id, q.token.as_deref(), None).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_called() {
        for inward in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "2002:a00:1::1",
            "255.255.255.255",
            "224.0.0.1",
            // IPv4-translated, local-use NAT64, site-local, Teredo, benchmarking, ORCHIDv2,
            // documentation, IPv4-compatible (deprecated), multicast.
            "::ffff:0:7f00:1",
            "::ffff:0:101:101",
            "64:ff9b:1::1",
            "64:ff9b:1:ffff::101:101",
            "fec0::1",
            "2001::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001:2::1",
            "2001:20::1",
            "2001:db8::1",
            "3fff::1",
            "::1.1.1.1",
            "ff02::1",
        ] {
            assert!(!is_public(inward.parse().unwrap()), "{inward}");
        }
        for public in [
            "93.184.216.34",
            "1.1.1.1",
            "2606:4700:4700::1111",
            "2a00:1450:4007:80c::200e",
            "64:ff9b::101:101",
            "2002:5db8:d822::1",
            "::ffff:1.1.1.1",
            "2001:200::1",
        ] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }

    #[test]
    fn urls_are_checked_for_their_form() {
        assert!(parse("https://example.com/hook?k=1").is_ok());
        for (bad, why) in [
            ("ftp://example.com/x", "http:// or https://"),
            ("file:///etc/passwd", "http:// or https://"),
            ("example.com/x", "not a URL"),
            ("https://user:pw@example.com/", "user name or password"),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
        assert!(parse(&format!("https://example.com/{}", "a".repeat(MAX_URL))).unwrap_err().contains("at most"));
    }

    /// Ten alerts for one seat while its endpoint holds the first call: one socket, then only
    /// the latest alert; another seat's alert is not held back by it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_call_at_a_time_per_seat_and_only_the_latest_waits() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let got = Arc::new(Mutex::new(Vec::<u64>::new()));
        let open = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(tokio::sync::Semaphore::new(0));
        let (g, o, gt) = (got.clone(), open.clone(), gate.clone());
        let app = axum::Router::new().route(
            "/{who}",
            axum::routing::post(move |axum::extract::Path(who): axum::extract::Path<String>, body: String| {
                let (g, o, gt) = (g.clone(), o.clone(), gt.clone());
                async move {
                    o.fetch_add(1, Ordering::SeqCst);
                    if who == "held" {
                        gt.acquire().await.unwrap().forget();
                    }
                    let v: Value = serde_json::from_str(&body).unwrap();
                    g.lock().unwrap().push(v["n"].as_u64().unwrap());
                    "ok"
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let mut c = Config::new("127.0.0.1:0".parse().unwrap(), std::env::temp_dir());
        c.webhook_private = true;
        let sender = Arc::new(Sender::new(&c));
        let done = Arc::new(AtomicUsize::new(0));
        for n in 1..=10u64 {
            let d = done.clone();
            sender.deliver("g/0".into(), format!("http://{addr}/held"), json!({ "n": n }), n, move |_| {
                d.fetch_add(1, Ordering::SeqCst);
            });
        }
        sender.deliver("g/1".into(), format!("http://{addr}/free"), json!({ "n": 100 }), 1, |_| {});
        for _ in 0..200 {
            if got.lock().unwrap().contains(&100) && open.load(Ordering::SeqCst) == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(*got.lock().unwrap(), vec![100], "the other seat's call went through");
        assert_eq!(open.load(Ordering::SeqCst), 2, "one call of the held seat at a time");
        gate.add_permits(10);
        for _ in 0..200 {
            if done.load(Ordering::SeqCst) == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(*got.lock().unwrap(), vec![100, 1, 10], "the first, then only the latest");
        assert_eq!(done.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_name_or_address_pointing_inward_is_refused_unless_allowed() {
        let mut c = Config::new("127.0.0.1:0".parse().unwrap(), std::env::temp_dir());
        let strict = Sender::new(&c);
        for url in ["http://127.0.0.1:9/x", "http://[::1]:9/x", "http://localhost:9/x"] {
            let e = strict.check(url).await.unwrap_err();
            assert!(e.contains("public address"), "{url}: {e}");
        }
        c.webhook_private = true;
        assert!(Sender::new(&c).check("http://127.0.0.1:9/x").await.is_ok());
    }
}
