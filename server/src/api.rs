//! HTTP: creating games, a seat's state, decision and log, and moves (API.md).

use crate::hub::{Hub, HubError, MoveError, Room};
use crate::seats::Seat;
use crate::views;
use arbiter_engine::Options;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// An error answer: `{"error": …}` (and `rule`) with its status.
pub struct ApiError(pub StatusCode, pub String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "error": self.1 });
        if let Some(rule) = views::rule_of(&self.1) {
            body["rule"] = json!(rule);
        }
        (self.0, Json(body)).into_response()
    }
}

impl From<HubError> for ApiError {
    fn from(e: HubError) -> Self {
        match e {
            HubError::NotFound => ApiError(StatusCode::NOT_FOUND, "no such game".into()),
            HubError::Failed(m) => ApiError(StatusCode::INTERNAL_SERVER_ERROR, m),
        }
    }
}

impl From<MoveError> for ApiError {
    fn from(e: MoveError) -> Self {
        match e {
            MoveError::Forbidden(m) => ApiError(StatusCode::FORBIDDEN, m),
            MoveError::Conflict(m) => ApiError(StatusCode::CONFLICT, m),
            MoveError::Refused(m) => ApiError(StatusCode::UNPROCESSABLE_ENTITY, m),
            MoveError::Failed(m) => ApiError(StatusCode::INTERNAL_SERVER_ERROR, m),
        }
    }
}

/// The body as JSON of type `T`, whatever its Content-Type (scripts send `curl -d`); bad JSON
/// is a 400 that says what is wrong.
fn body_json<T: serde::de::DeserializeOwned>(body: &Bytes) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError(StatusCode::BAD_REQUEST, format!("bad JSON: {e}")))
}

#[derive(Deserialize)]
pub struct TokenQuery {
    pub token: Option<String>,
}

/// The room and the seat a token acts as.
pub async fn seat_of(hub: &Arc<Hub>, id: &str, token: Option<&str>) -> Result<(Arc<Room>, Seat), ApiError> {
    let room = hub.room(id).await?;
    let token = token.ok_or_else(|| ApiError(StatusCode::UNAUTHORIZED, "a seat token is needed (?token=…)".into()))?;
    let seat = room.seats.seat(token).ok_or_else(|| ApiError(StatusCode::UNAUTHORIZED, "this token is not a seat of this game".into()))?;
    Ok((room, seat))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    seed: Option<u64>,
    optional_cards: Option<bool>,
    us_bonus: Option<u8>,
    clock_minutes: Option<u32>,
    /// The same in seconds (short clocks, tests); `clock_minutes` wins if both are given.
    clock_seconds: Option<u32>,
}

pub async fn create(State(hub): State<Arc<Hub>>, body: Bytes) -> Result<Response, ApiError> {
    // No body: every option at its default.
    let o: NewGame = if body.iter().all(u8::is_ascii_whitespace) { NewGame::default() } else { body_json(&body)? };
    let seed = match o.seed {
        Some(s) => s,
        None => {
            let mut b = [0u8; 8];
            getrandom::fill(&mut b).map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("no randomness for a seed: {e}")))?;
            u64::from_le_bytes(b)
        }
    };
    let us_bonus = o.us_bonus.unwrap_or(2);
    if us_bonus > 10 {
        return Err(ApiError(StatusCode::BAD_REQUEST, "us_bonus must be between 0 and 10".into()));
    }
    let clock_ms = match (o.clock_minutes, o.clock_seconds) {
        (Some(m), _) if !(1..=600).contains(&m) => {
            return Err(ApiError(StatusCode::BAD_REQUEST, "clock_minutes must be between 1 and 600".into()))
        }
        (Some(m), _) => Some(m as u64 * 60_000),
        (None, Some(s)) if !(1..=36_000).contains(&s) => {
            return Err(ApiError(StatusCode::BAD_REQUEST, "clock_seconds must be between 1 and 36000".into()))
        }
        (None, Some(s)) => Some(s as u64 * 1000),
        (None, None) => None,
    };
    let options = Options { optional_cards: o.optional_cards.unwrap_or(false), us_bonus };
    let (id, tokens) = hub.create(seed, options, clock_ms).await?;
    let link = |t: &str| format!("/play/{id}?token={t}");
    let body = json!({
        "id": id,
        "tokens": { "us": tokens[0], "ussr": tokens[1], "observer": tokens[2] },
        "links": { "us": link(&tokens[0]), "ussr": link(&tokens[1]), "observer": link(&tokens[2]) },
    });
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

async fn read<T: Send + 'static>(room: Arc<Room>, f: impl FnOnce(&Arc<Room>) -> T + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(move || f(&room))
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("server fault: {e}")))
}

pub async fn state(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    let (room, seat) = seat_of(&hub, &id, q.token.as_deref()).await?;
    Ok(Json(
        read(room, move |r| {
            r.with_session(|s| {
                let mut v = views::state(s, seat);
                views::merge(&mut v, &r.extra(s));
                v
            })
        })
        .await?,
    ))
}

pub async fn moves(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    let (room, seat) = seat_of(&hub, &id, q.token.as_deref()).await?;
    Ok(Json(read(room, move |r| r.with_session(|s| views::moves(s, seat))).await?))
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
    let (room, seat) = seat_of(&hub, &id, q.token.as_deref()).await?;
    let MoveBody { text } = body_json(&body)?;
    let (seq, log) = read(room, move |r| r.play(seat, &text)).await??;
    Ok(Json(json!({ "seq": seq, "log": log })))
}

pub async fn map() -> Json<Value> {
    Json(views::map())
}

pub async fn cards() -> Json<Value> {
    Json(views::cards())
}
