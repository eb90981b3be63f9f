//! A game's chat: the players' and observers' own words, kept in the game's saved file beside
//! its record (not in the integrity chain, never replayed: `arbiter_store::ChatMessage`). Each
//! message goes to the audience it was sent to: everyone (`all`), the seats only (`seats`: the
//! observers never see it, in a message or in a history), or a private channel the game defines
//! (`Game::channels`: a team's own), whose members alone read it. The server adds nothing to a
//! message: a client shows its text as text.

use crate::api::{body_json, read, seat_of, ApiError, TokenQuery};
use crate::hub::Hub;
use crate::room::Room;
use crate::seats::Place;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The longest message, in characters.
pub const MAX_CHARS: usize = 500;
/// The most messages a game keeps (its file's size and each sync's are bounded; the rate alone
/// would let a game's chat grow for ever).
pub const MAX_MESSAGES: u64 = 1000;
/// The most of them the observers may write (all observers share one place, and anyone may
/// watch a listed game): the players keep the rest of the chat to themselves.
pub const MAX_OBSERVER_MESSAGES: usize = 200;
/// At most this many messages from one place of a game…
pub const RATE_COUNT: usize = 5;
/// …in this long.
pub const RATE_WINDOW: Duration = Duration::from_secs(10);

/// Who a message is for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum Audience {
    /// Every seat and the observers.
    All,
    /// The seats only.
    Seats,
    /// A private channel the game defines (`Game::channels`: a team's own), by name: its
    /// members only.
    Channel(String),
}

impl From<String> for Audience {
    fn from(s: String) -> Audience {
        match s.as_str() {
            "all" => Audience::All,
            "seats" => Audience::Seats,
            _ => Audience::Channel(s),
        }
    }
}

impl From<Audience> for String {
    fn from(a: Audience) -> String {
        a.id().to_string()
    }
}

impl Audience {
    fn id(&self) -> &str {
        match self {
            Audience::All => "all",
            Audience::Seats => "seats",
            Audience::Channel(name) => name,
        }
    }
    /// Whether `place` may read a message sent to this audience in `game` now.
    pub fn reaches(&self, place: Place, game: &dyn arbiter_kernel::Match) -> bool {
        match (self, place) {
            (Audience::All, _) | (Audience::Seats, Place::Seat(_)) => true,
            (Audience::Seats | Audience::Channel(_), Place::Observer) => false,
            (Audience::Channel(name), Place::Seat(seat)) => game.channels(seat).iter().any(|c| &c.name == name),
        }
    }
}

/// Why a message was not sent.
#[derive(Debug, PartialEq, Eq)]
pub enum ChatError {
    /// Empty, too long, control characters, or `seats` from an observer.
    Invalid(String),
    /// More than the rate allows.
    TooFast,
    /// The game's chat holds `MAX_MESSAGES`.
    Full,
    /// The observers have written their share, `MAX_OBSERVER_MESSAGES`.
    ObserversFull,
    Failed(String),
    /// Sent to a copy of the game being unloaded: its connections are closing, and a message
    /// stored there would reach nobody live.
    Unloaded,
}

impl ChatError {
    pub fn message(&self) -> String {
        match self {
            ChatError::Invalid(m) | ChatError::Failed(m) => m.clone(),
            ChatError::TooFast => format!("at most {RATE_COUNT} messages in {} s: wait a moment", RATE_WINDOW.as_secs()),
            ChatError::Full => format!("this game's chat is full ({MAX_MESSAGES} messages)"),
            ChatError::ObserversFull => {
                format!("the observers have written their share of this game's chat ({MAX_OBSERVER_MESSAGES} messages); the players' part stays theirs")
            }
            ChatError::Unloaded => "the game was being unloaded: reconnect and send it again".into(),
        }
    }
}

impl From<ChatError> for ApiError {
    fn from(e: ChatError) -> ApiError {
        let status = match e {
            ChatError::Invalid(_) => StatusCode::BAD_REQUEST,
            ChatError::TooFast => StatusCode::TOO_MANY_REQUESTS,
            ChatError::Full | ChatError::ObserversFull => StatusCode::CONFLICT,
            ChatError::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ChatError::Unloaded => StatusCode::SERVICE_UNAVAILABLE,
        };
        let retry = matches!(e, ChatError::Unloaded);
        let answer = ApiError::new(status, e.message());
        if retry {
            answer.retry_after(1)
        } else {
            answer
        }
    }
}

/// The text as it is stored: trimmed; refused if empty, too long or holding control characters
/// (other than a line break or a tab).
pub fn check(text: &str) -> Result<String, ChatError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ChatError::Invalid("an empty message".into()));
    }
    if t.chars().count() > MAX_CHARS {
        return Err(ChatError::Invalid(format!("a message has at most {MAX_CHARS} characters")));
    }
    if t.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return Err(ChatError::Invalid("a message holds no control characters".into()));
    }
    Ok(t.to_string())
}

/// Each place's recent messages, by game id and place index.
fn recent() -> &'static Mutex<HashMap<(String, usize), VecDeque<Instant>>> {
    static RECENT: OnceLock<Mutex<HashMap<(String, usize), VecDeque<Instant>>>> = OnceLock::new();
    RECENT.get_or_init(Default::default)
}

/// Whether `place` of game `id` may send one more message now; `count` counts it if so (a
/// message is counted only where it is stored: a refused one costs nothing of the rate).
fn within_rate(id: &str, place: usize, count: bool) -> bool {
    let mut all = recent().lock().unwrap_or_else(|p| p.into_inner());
    let now = Instant::now();
    if all.len() > 10_000 {
        // Forget the places that have been quiet for a window (the map does not grow forever).
        all.retain(|_, q| q.back().is_some_and(|t| now.duration_since(*t) < RATE_WINDOW));
    }
    let q = all.entry((id.to_string(), place)).or_default();
    while q.front().is_some_and(|t| now.duration_since(*t) >= RATE_WINDOW) {
        q.pop_front();
    }
    if q.len() >= RATE_COUNT {
        return false;
    }
    if count {
        q.push_back(now);
    }
    true
}

fn to_json(m: &arbiter_store::ChatMessage) -> Value {
    json!({ "type": "chat", "id": m.id, "at": m.at, "from": m.from, "to": m.to, "text": m.text })
}

/// Whether `place` may write to the channel `name` in `game` now, judged where the message is
/// stored (under the session lock, so the channel judged is the one the message reaches). A
/// refusal names only the seat's own channels, no other seat's (which may tell its role).
fn channel_open(game: &dyn arbiter_kernel::Match, place: Place, name: &str) -> Result<(), ChatError> {
    let own = match place {
        Place::Seat(seat) => game.channels(seat),
        Place::Observer => Vec::new(),
    };
    match own.iter().find(|c| c.name == name) {
        Some(c) if c.open => Ok(()),
        Some(_) => Err(ChatError::Invalid(format!("the channel {name:?} is closed now"))),
        None => {
            let mut open: Vec<String> = vec!["all".into(), "seats".into()];
            open.extend(own.iter().map(|c| c.name.clone()));
            Err(ChatError::Invalid(format!("no audience {:?} here: `to` is one of {}", arbiter_kernel::echo(name), open.join(", "))))
        }
    }
}

/// Store a message of `place` to `to` and send it to every connection of that audience
/// (blocking). Returns the message as sent.
pub fn post(room: &Room, place: Place, text: &str, to: Audience) -> Result<Value, ChatError> {
    let text = check(text)?;
    if to == Audience::Seats && place == Place::Observer {
        return Err(ChatError::Invalid("an observer's messages are for all (`to`: `all`)".into()));
    }
    let n = room.seat_count();
    // Refused before the session lock when already too fast; counted where it is stored.
    if !within_rate(&room.id, place.idx(n), false) {
        return Err(ChatError::TooFast);
    }
    room.with_session(|s| {
        if room.is_retired() {
            return Err(ChatError::Unloaded);
        }
        if let Audience::Channel(name) = &to {
            channel_open(s.game(), place, name)?;
        }
        if s.store().chat_len().map_err(|e| ChatError::Failed(e.to_string()))? >= MAX_MESSAGES {
            return Err(ChatError::Full);
        }
        if place == Place::Observer {
            let from = &room.ids[n];
            let theirs = s.store().chat().map_err(|e| ChatError::Failed(e.to_string()))?.iter().filter(|m| &m.from == from).count();
            if theirs >= MAX_OBSERVER_MESSAGES {
                return Err(ChatError::ObserversFull);
            }
        }
        if !within_rate(&room.id, place.idx(n), true) {
            return Err(ChatError::TooFast);
        }
        let m = s.store().add_chat(&room.ids[place.idx(n)], to.id(), &text).map_err(|e| match room.lost_lease(&e) {
            true => ChatError::Unloaded,
            false => ChatError::Failed(e.to_string()),
        })?;
        let v = to_json(&m);
        // Under the session lock, as moves: a connection's history (its sync) and its messages
        // do not cross.
        match to {
            Audience::All => room.tell_all(v.to_string()),
            Audience::Seats | Audience::Channel(_) => {
                room.tell(&Place::all(n).filter(|p| to.reaches(*p, s.game())).collect::<Vec<_>>(), v.to_string())
            }
        }
        Ok(v)
    })
}

/// The messages `place` may read (a read error is said in the server's log: a chat that
/// cannot be read must not keep a player from the game).
pub fn history(s: &crate::storage::Session, place: Place) -> Vec<Value> {
    match s.store().chat() {
        Ok(all) => all.iter().filter(|m| Audience::from(m.to.clone()).reaches(place, s.game())).map(to_json).collect(),
        Err(e) => {
            eprintln!("arbiter serve: a game's chat cannot be read: {e}");
            Vec::new()
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatBody {
    text: String,
    to: Option<Audience>,
}

/// `POST /api/games/{id}/chat?token=T` `{"text": "…", "to": "all"}`.
pub async fn send(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
    body: Bytes,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let (room, place) = seat_of(&hub, &id, q.token.as_deref()).await?;
    let ChatBody { text, to } = body_json(&body)?;
    let v = read(room, move |r| post(r, place, &text, to.unwrap_or(Audience::All))).await??;
    Ok((StatusCode::CREATED, Json(v)))
}

/// `GET /api/games/{id}/chat?token=T`: the messages this place may read.
pub async fn list(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<TokenQuery>) -> Result<Json<Value>, ApiError> {
    let (room, place) = seat_of(&hub, &id, q.token.as_deref()).await?;
    Ok(Json(json!({ "messages": read(room, move |r| r.with_session(|s| history(s, place))).await? })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_checked() {
        assert_eq!(check("  hi \n"), Ok("hi".into()));
        assert_eq!(check("<b>x</b>"), Ok("<b>x</b>".into()), "kept as text: the client shows it as text");
        assert!(check("   ").is_err());
        assert!(check(&"é".repeat(MAX_CHARS)).is_ok());
        assert!(check(&"é".repeat(MAX_CHARS + 1)).is_err());
        assert!(check("a\u{7}b").is_err());
        assert!(check("a\nb\tc").is_ok());
    }

    #[test]
    fn the_seats_audience_never_reaches_the_observers() {
        // The catalogue's default game: two seats, no channels.
        let kind = arbiter_games::catalogue().default_kind();
        let (game, _) = kind.create(&kind.default_options(), 1).unwrap();
        let game = game.as_ref();
        assert!(Audience::Seats.reaches(Place::Seat(arbiter_kernel::Seat(1)), game));
        assert!(!Audience::Seats.reaches(Place::Observer, game));
        assert!(Audience::All.reaches(Place::Observer, game));
        let none = Audience::from("team".to_string());
        assert!(!none.reaches(Place::Seat(arbiter_kernel::Seat(0)), game), "a channel the game does not define reaches nobody");
    }

    #[test]
    fn a_place_is_held_to_the_rate() {
        let id = crate::seats::new_game_id().unwrap();
        assert!((0..RATE_COUNT).all(|_| within_rate(&id, 0, false)), "a look counts nothing");
        assert!((0..RATE_COUNT).all(|_| within_rate(&id, 0, true)));
        assert!(!within_rate(&id, 0, true));
        assert!(!within_rate(&id, 0, false));
        assert!(within_rate(&id, 1, true), "another place has its own count");
    }
}
