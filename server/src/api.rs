//! HTTP: creating games, a seat's state, decision and log, and moves (API.md).

use crate::clock::Timing;
use crate::hub::{Hub, HubError};
use crate::room::{MoveError, Room};
use crate::seats::Place;
use crate::views;
use arbiter_kernel::search::{Agent, Level};
use arbiter_kernel::{seat_id, Refusal};
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

/// An error answer: `{"error": …}` with its status, and `rule` when a game's rule decides.
pub struct ApiError {
    pub status: StatusCode,
    pub error: String,
    pub rule: Option<String>,
    /// When to ask again, in whole seconds (`Retry-After`): a limit met, a game moving.
    pub retry_after: Option<u64>,
}

impl ApiError {
    pub fn new(status: StatusCode, error: String) -> ApiError {
        ApiError { status, error, rule: None, retry_after: None }
    }
    /// Told to ask again after `secs` seconds.
    pub fn retry_after(self, secs: u64) -> ApiError {
        ApiError { retry_after: Some(secs), ..self }
    }
    /// 429: too many new games from one address (`POST /api/games`, a rematch), for `wait`
    /// more (`why`: what was counted).
    pub fn too_many_games(wait: std::time::Duration, why: &str) -> ApiError {
        let secs = wait.as_secs() + 1;
        ApiError::new(StatusCode::TOO_MANY_REQUESTS, format!("too many new games from your address ({why}): try again in {secs} s"))
            .retry_after(secs)
    }
    /// 429: the client address has `most` games against the computer in play already
    /// (`POST /api/games`, a rematch); one stops counting when it is over, or once unloaded
    /// (`unload_after` after its last connection closes): asked to try again after that.
    pub fn too_many_computer_games(most: usize, unload_after: std::time::Duration) -> ApiError {
        let secs = unload_after.as_secs().max(1);
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "too many games against the computer in play from your address (at most {most} at once): one stops counting once it is over, or unloaded when nobody is connected to it; try again in {secs} s"
            ),
        )
        .retry_after(secs)
    }
    /// A game's refusal: its text, and its rule.
    pub fn refusal(status: StatusCode, r: Refusal) -> ApiError {
        ApiError { status, error: r.to_string(), rule: Some(r.rule).filter(|x| !x.is_empty()), retry_after: None }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.error });
        if let Some(rule) = self.rule {
            body["rule"] = json!(rule);
        }
        let mut r = (self.status, Json(body)).into_response();
        if let Some(secs) = self.retry_after {
            r.headers_mut().insert(axum::http::header::RETRY_AFTER, secs.into());
        }
        r
    }
}

impl From<HubError> for ApiError {
    fn from(e: HubError) -> Self {
        match e {
            HubError::NotFound => ApiError::new(StatusCode::NOT_FOUND, "no such game".into()),
            HubError::Invalid(m) => ApiError::new(StatusCode::BAD_REQUEST, m),
            HubError::Failed(m) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, m),
            // Names no path: the data folder is the server's business.
            HubError::Full => ApiError::new(
                StatusCode::INSUFFICIENT_STORAGE,
                "this server's storage for games is full: it makes no new game until old ones are removed".into(),
            ),
            // Another process took the game meanwhile (the forwarding middleware found it ours a
            // moment before): the next try is forwarded.
            HubError::Elsewhere { .. } => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "this game is changing servers: try again".into()).retry_after(1)
            }
        }
    }
}

impl From<MoveError> for ApiError {
    fn from(e: MoveError) -> Self {
        match e {
            MoveError::Forbidden(m) => ApiError::new(StatusCode::FORBIDDEN, m),
            MoveError::Conflict(m) => ApiError::new(StatusCode::CONFLICT, m),
            MoveError::Refused(r) => ApiError::refusal(StatusCode::UNPROCESSABLE_ENTITY, r),
            MoveError::Failed(m) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, m),
            // Retried against the loaded copy first ([`retrying`]); only a game unloaded again
            // and again meanwhile comes to this.
            MoveError::Unloaded => {
                ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "the game was being unloaded: try again".into()).retry_after(1)
            }
        }
    }
}

/// The body as JSON of type `T`, whatever its Content-Type (scripts send `curl -d`); bad JSON
/// is a 400 that says what is wrong.
pub(crate) fn body_json<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::new(StatusCode::BAD_REQUEST, format!("bad JSON: {e}")))
}

#[derive(Deserialize)]
pub struct TokenQuery {
    pub token: Option<String>,
}

/// The room and the place a token acts as.
pub async fn seat_of(hub: &Arc<Hub>, id: &str, token: Option<&str>) -> Result<(Arc<Room>, Place), ApiError> {
    let room = hub.room(id).await?;
    let token = token.ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "a seat token is needed (?token=…)".into()))?;
    let place = room.place(token).ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "this token is not a seat of this game".into()))?;
    Ok((room, place))
}

/// A new game: its kind (the server's default if not named), seed, the game's options (in
/// `options`, or as further fields beside these), a clock, and the seat the creator takes
/// (all seats if none: the links are shared; else the others stay free to `join`).
#[derive(Deserialize, Default)]
pub struct NewGame {
    game: Option<String>,
    seed: Option<u64>,
    options: Option<serde_json::Map<String, Value>>,
    clock_minutes: Option<u32>,
    /// The same in seconds (short clocks, tests); `clock_minutes` wins if both are given.
    clock_seconds: Option<u32>,
    /// A deadline instead: each seat's time for each step (a phase of orders), in minutes.
    deadline_minutes: Option<u32>,
    /// The same in seconds; `deadline_minutes` wins if both are given.
    deadline_seconds: Option<u32>,
    seat: Option<String>,
    /// The seat the computer plays, or a list of seats (every other seat is the creator's
    /// unless `seat` names one), and its level.
    computer: Option<SeatIds>,
    level: Option<u8>,
    /// `false`: left out of the lobby's list (the links work as any). By default a game of
    /// several seats is listed and a game of one seat is not (nobody is there to join it).
    listed: Option<bool>,
    #[serde(flatten)]
    more: serde_json::Map<String, Value>,
}

/// One seat by its id, or several.
#[derive(Deserialize)]
#[serde(untagged)]
enum SeatIds {
    One(String),
    Many(Vec<String>),
}

impl SeatIds {
    fn ids(&self) -> Vec<&str> {
        match self {
            SeatIds::One(id) => vec![id.as_str()],
            SeatIds::Many(ids) => ids.iter().map(String::as_str).collect(),
        }
    }
}

/// A time given as `NAME_minutes` (1 to `most`) or `NAME_seconds` (the minutes win), in
/// milliseconds.
fn time_ms(name: &str, minutes: Option<u32>, seconds: Option<u32>, most: u32) -> Result<Option<u64>, ApiError> {
    match (minutes, seconds) {
        (Some(m), _) if !(1..=most).contains(&m) => {
            Err(ApiError::new(StatusCode::BAD_REQUEST, format!("{name}_minutes must be between 1 and {most}")))
        }
        (Some(m), _) => Ok(Some(u64::from(m) * 60_000)),
        (None, Some(s)) if !(1..=most.saturating_mul(60)).contains(&s) => {
            Err(ApiError::new(StatusCode::BAD_REQUEST, format!("{name}_seconds must be between 1 and {}", most.saturating_mul(60))))
        }
        (None, Some(s)) => Ok(Some(u64::from(s) * 1000)),
        (None, None) => Ok(None),
    }
}

pub async fn create(
    State(hub): State<Arc<Hub>>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    body: Bytes,
) -> Result<Response, ApiError> {
    // No body: every option at its default.
    let o: NewGame = if body.iter().all(u8::is_ascii_whitespace) { NewGame::default() } else { body_json(&body)? };
    let kind = match &o.game {
        Some(id) => hub.catalogue().find(id).map_err(|r| ApiError::new(StatusCode::BAD_REQUEST, r.reason))?,
        None => hub.catalogue().default_kind(),
    };
    let seed = match o.seed {
        Some(s) => s,
        None => {
            let mut b = [0u8; 8];
            getrandom::fill(&mut b)
                .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("no randomness for a seed: {e}")))?;
            u64::from_le_bytes(b)
        }
    };
    let chess = time_ms("clock", o.clock_minutes, o.clock_seconds, 600)?;
    let deadline = time_ms("deadline", o.deadline_minutes, o.deadline_seconds, 7 * 24 * 60)?;
    let clock = match (chess, deadline) {
        (Some(_), Some(_)) => {
            return Err(ApiError::new(StatusCode::BAD_REQUEST, "a game has a chess clock or a deadline, not both".into()))
        }
        (Some(ms), None) => Some((ms, Timing::Game)),
        (None, Some(ms)) => Some((ms, Timing::Step)),
        (None, None) => None,
    };
    let mut given = o.options.unwrap_or_default();
    given.extend(o.more);
    // Kept whole, as the game completes them (its defaults, a preset's numbers): the saved
    // game replays alike whatever later defaults.
    let options = match kind.complete_options(&Value::Object(given)) {
        Ok(Value::Object(o)) => o,
        Ok(_) => return Err(ApiError::new(StatusCode::BAD_REQUEST, "the options are a JSON object".into())),
        Err(r) => return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("cannot create the game: {r}"))),
    };
    // The seats of a game with these options (a game whose number of seats varies names them
    // by its options); options it refuses are refused below, when the game is made.
    let names = match kind.create(&Value::Object(options.clone()), 0) {
        Ok((probe, _)) => probe.seats().iter().map(|s| seat_id(s)).collect(),
        Err(_) => hub.offered(kind.id()).map(|g| g.seat_ids.clone()).unwrap_or_default(),
    };
    let seat_index = |id: &str| {
        names.iter().position(|n| n == id).ok_or_else(|| {
            ApiError::new(StatusCode::BAD_REQUEST, format!("no seat {id:?} in {}; its seats: {}", kind.title(), names.join(", ")))
        })
    };
    let computer: Vec<crate::seats::ComputerSeat> = match (&o.computer, o.level) {
        (None, None) => Vec::new(),
        (None, Some(_)) => {
            return Err(ApiError::new(StatusCode::BAD_REQUEST, "level is the computer's: name its seat in `computer`".into()))
        }
        (Some(ids), level) => {
            if !hub.offered(kind.id()).is_some_and(|g| g.computer) {
                return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("{} offers no computer opponent", kind.title())));
            }
            let level =
                Level::new(level.unwrap_or(Level::DEFAULT.number())).map_err(|r| ApiError::new(StatusCode::BAD_REQUEST, r.reason))?;
            let ids = ids.ids();
            if ids.is_empty() {
                return Err(ApiError::new(StatusCode::BAD_REQUEST, "`computer` names at least one seat".into()));
            }
            let mut seats = Vec::new();
            for id in &ids {
                let i = seat_index(id)?;
                if o.seat.as_deref() == Some(*id) {
                    return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("the {id} seat cannot be both yours and the computer's")));
                }
                if seats.iter().any(|c: &crate::seats::ComputerSeat| usize::from(c.seat) == i) {
                    return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("the {id} seat is named twice in `computer`")));
                }
                seats.push(crate::seats::ComputerSeat { seat: i as u8, agent: Agent::Computer(level) });
            }
            if seats.len() == names.len() {
                return Err(ApiError::new(
                    StatusCode::BAD_REQUEST,
                    format!("the computer cannot play every seat: leave one of {} to a person", names.join(", ")),
                ));
            }
            seats
        }
    };
    // The creator's seats: the one named; against the computer, else every seat but its.
    let seats = match (&o.seat, computer.is_empty()) {
        (None, true) => None,
        (Some(id), _) => Some(vec![seat_index(id)?]),
        (None, false) => Some((0..names.len()).filter(|i| !computer.iter().any(|c| usize::from(c.seat) == *i)).collect()),
    };
    // Counted once the request is found sound (a mistyped option costs nothing). Without a
    // peer address (the router served by other means) every request shares one bucket.
    let ip = peer.map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |Extension(ConnectInfo(a))| crate::limits::client_of(a.ip(), &hub.config));
    // Each game against the computer keeps a search going at each of its decisions: an address
    // has only so many in play at once (asked before the new game is counted in its bucket).
    let reserved = match computer.is_empty() {
        false => Some(hub.reserve_computer_game(ip).map_err(|most| ApiError::too_many_computer_games(most, hub.config.unload_after))?),
        true => None,
    };
    if let Err(wait) = hub.creations.take(ip, hub.config.games_per_address, hub.config.games_window) {
        let counted = format!("at most {} in {} s", hub.config.games_per_address, hub.config.games_window.as_secs());
        return Err(ApiError::too_many_games(wait, &counted));
    }
    // Whoever chooses the seed knows every random outcome, the other seats' secrets: the server
    // draws it unless the creator chose, and then every seat is told (`seed_chosen` in each
    // state) and a joiner must accept it.
    let seed_chosen = o.seed.is_some();
    let (id, ids, tokens) = hub
        .create(kind, Value::Object(options), seed, seats, clock, computer, o.listed.unwrap_or(names.len() > 1), seed_chosen)
        .await
        .map_err(creation_failed)?;
    if let Some(r) = reserved {
        r.made(&id);
    }
    let link = |t: &str| format!("/play/{id}?token={t}");
    let given = || ids.iter().zip(&tokens).filter_map(|(p, t)| t.as_ref().map(|t| (p.clone(), t)));
    let body = json!({
        "id": id,
        "game": kind.id(),
        "tokens": given().map(|(p, t)| (p, json!(t))).collect::<serde_json::Map<_, _>>(),
        "links": given().map(|(p, t)| (p, json!(link(t)))).collect::<serde_json::Map<_, _>>(),
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// A new game the server could not make (its folder, its descriptors): the client hears to try
/// again (503, `Retry-After`), in words that name no path; the reason goes to the server's log.
fn creation_failed(e: HubError) -> ApiError {
    match e {
        HubError::Failed(why) => {
            eprintln!("arbiter serve: a new game could not be made: {why}");
            ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "the server cannot make a new game now (nothing was stored): try again soon".into(),
            )
            .retry_after(5)
        }
        other => other.into(),
    }
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct JoinBody {
    seat: Option<String>,
    /// The joiner knows the creator chose the seed, and plays anyway.
    #[serde(default)]
    accept_chosen_seed: bool,
}

/// The contract's `join`: take a free seat (the one named, or the first free) and get its
/// token and link. A taken seat or a full game is refused (409).
pub async fn join(State(hub): State<Arc<Hub>>, Path(id): Path<String>, body: Bytes) -> Result<Response, ApiError> {
    let JoinBody { seat, accept_chosen_seed } =
        if body.iter().all(u8::is_ascii_whitespace) { JoinBody::default() } else { body_json(&body)? };
    let (room, (place, token)) = retrying(&hub, &id, Who::Anyone, move |r, _| {
        let joined = r.join(seat.as_deref(), accept_chosen_seed);
        if joined.is_ok() {
            r.relist();
        }
        joined
    })
    .await?;
    let body = json!({
        "seat": room.ids[place.idx(room.seat_count())],
        "token": token,
        "link": format!("/play/{id}?token={token}"),
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// The games this server offers: each kind's id, title, rules version, seats and options
/// with their defaults (what the new-game page shows).
pub async fn kinds(State(hub): State<Arc<Hub>>) -> Json<Value> {
    let kinds: Vec<Value> = hub
        .offered
        .iter()
        .map(|o| {
            json!({
                "id": o.kind.id(), "title": o.kind.title(), "rules_version": o.kind.rules_version(),
                "seats": o.seat_ids, "options": o.kind.default_options(), "shape": o.kind.shape(), "clock": o.clock,
                "computer": o.computer.then(|| json!({ "levels": [1, 2, 3, 4, 5], "default_level": Level::DEFAULT.number() })),
            })
        })
        .collect();
    Json(json!({ "games": kinds }))
}

/// Data a game's client fetches (its map, its cards): `/api/kinds/{kind}/{name}`.
pub async fn kind_data(State(hub): State<Arc<Hub>>, Path((kind, name)): Path<(String, String)>) -> Result<Json<Value>, ApiError> {
    let o = hub.offered(&kind).ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no game {kind:?} here")))?;
    let data = o
        .client
        .data
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("no {name:?} for {kind}")))?;
    Ok(Json(data.1.clone()))
}

/// Who asks: the holder of a token (a seat, the observers), or anyone (a join).
#[derive(Clone, Copy)]
pub(crate) enum Who<'a> {
    Token(Option<&'a str>),
    Anyone,
}

/// `f` (a move, a join) on the loaded copy of game `id`, as the place the token acts as (the
/// observer for anyone): if the copy was unloaded before `f` was judged
/// ([`MoveError::Unloaded`]; nothing changed), again on the copy loaded now (a game is loaded
/// once: the hub retires the old copy before loading a new one).
pub(crate) async fn retrying<T: Send + 'static>(
    hub: &Arc<Hub>,
    id: &str,
    who: Who<'_>,
    f: impl Fn(&Arc<Room>, Place) -> Result<T, MoveError> + Send + Sync + 'static,
) -> Result<(Arc<Room>, T), ApiError> {
    let f = Arc::new(f);
    let mut tries = 0;
    loop {
        let (room, place) = match who {
            Who::Token(token) => seat_of(hub, id, token).await?,
            Who::Anyone => (hub.room(id).await?, Place::Observer),
        };
        let g = f.clone();
        match read(room.clone(), move |r| g(r, place)).await? {
            Err(MoveError::Unloaded) if tries < 3 => tries += 1,
            r => return Ok((room, r?)),
        }
    }
}

pub(crate) async fn read<T: Send + 'static>(room: Arc<Room>, f: impl FnOnce(&Arc<Room>) -> T + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(move || f(&room))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("server fault: {e}")))
}

/// A short read of the session (a view, a decision): here, on the async thread, when the
/// session is free, else on a blocking thread once the move holding it is stored. Free is the
/// rule (only a move or an undo being judged and stored holds it, through its fsync), and a
/// blocking thread's hand-off both ways cost more than such a read (the load example's profile:
/// docs/benchmarks-history.md, "Server move throughput").
async fn read_session<T: Send + 'static>(
    room: Arc<Room>,
    f: impl Fn(&Arc<Room>, &mut crate::storage::Session) -> T + Send + 'static,
) -> Result<T, ApiError> {
    if let Some(v) = room.try_with_session(|s| f(&room, s)) {
        return Ok(v);
    }
    read(room, move |r| r.with_session(|s| f(r, s))).await
}

pub async fn state(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    let (room, seat) = seat_of(&hub, &id, q.token.as_deref()).await?;
    Ok(Json(
        read_session(room, move |r, s| {
            let mut v = views::state(s, seat);
            views::merge(&mut v, &r.extra(s));
            v
        })
        .await?,
    ))
}

pub async fn moves(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    let (room, seat) = seat_of(&hub, &id, q.token.as_deref()).await?;
    Ok(Json(read_session(room, move |_, s| views::moves(s, seat)).await?))
}

pub async fn log(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    let (room, seat) = seat_of(&hub, &id, q.token.as_deref()).await?;
    Ok(Json(json!({ "lines": read(room, move |r| r.with_session(|s| views::log(s, seat))).await? })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveBody {
    #[serde(rename = "move")]
    text: String,
}

pub async fn play(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
    body: Bytes,
) -> Result<Json<Value>, ApiError> {
    let MoveBody { text } = body_json(&body)?;
    let (_, (seq, log)) = retrying(&hub, &id, Who::Token(q.token.as_deref()), move |r, seat| r.play(seat, &text)).await?;
    Ok(Json(json!({ "seq": seq, "log": log })))
}

#[derive(Deserialize)]
pub struct AdviceQuery {
    pub token: Option<String>,
    #[serde(rename = "move")]
    pub text: Option<String>,
}

/// What the seat should hear before making a move (`Game::advice`): `{"warnings": [...],
/// "odds": ...}`. Only for a move the seat may make now (its decision's or an interjection);
/// anything else is refused with the game's reason (422), and the observer makes no moves (403).
pub async fn advice(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<AdviceQuery>) -> Result<Json<Value>, ApiError> {
    let (room, place) = seat_of(&hub, &id, q.token.as_deref()).await?;
    let text = q.text.ok_or_else(|| ApiError::new(StatusCode::BAD_REQUEST, "the move is needed (?move=…)".into()))?;
    if text.len() > crate::ws::MAX_MESSAGE {
        return Err(ApiError::new(StatusCode::BAD_REQUEST, format!("a move may have at most {} bytes", crate::ws::MAX_MESSAGE)));
    }
    let Place::Seat(seat) = place else {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "the observer cannot make moves".into()));
    };
    let advice = read(room, move |r| r.with_session(|s| s.game().advice(seat, &text))).await?;
    let a = advice.map_err(|r| ApiError::refusal(StatusCode::UNPROCESSABLE_ENTITY, r))?;
    Ok(Json(json!({ "warnings": a.warnings, "odds": a.odds })))
}

/// Take back the seat's last move (`Room::undo`): `{"seq": N, "undone": TEXT}`. Refused with
/// the reason: 403 for the observer, 409 at another seat's decision (or while the computer
/// thinks), 422 where the table's rules forbid it (another seat's move, a roll, a draw or a
/// reveal since, nothing to take back).
pub async fn undo(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    let (_, (seq, undone)) = retrying(&hub, &id, Who::Token(q.token.as_deref()), move |r, place| r.undo(place)).await?;
    Ok(Json(json!({ "seq": seq, "undone": undone })))
}
