//! WebSocket connections: a `sync` at connection, then the seat's topic and the topic for all;
//! moves sent by the client are judged as over HTTP. Presence follows the connections; the
//! last one closing starts the unload timer.

use crate::api::{seat_of, ApiError, TokenQuery};
use crate::hub::{Attached, Hub};
use crate::limits::ConnectionSlot;
use crate::room::{MoveError, Outgoing, Room};
use crate::seats::Place;
use crate::views;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use axum::Extension;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;

/// The largest message a client may send: a longer one is answered `rejected`.
pub const MAX_MESSAGE: usize = 16 * 1024;
/// The largest message the connection reads at all: one longer closes it (1009, too big).
pub const MAX_READ: usize = 4 * MAX_MESSAGE;
/// Messages a connection may send in one second before it is closed (the default of
/// `Config::ws_messages_per_second`: far above a person's pace).
pub const MAX_PER_SECOND: u32 = 20;

pub async fn upgrade(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
    slot: Option<Extension<ConnectionSlot>>,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let (room, seat) = seat_of(&hub, &id, q.token.as_deref()).await?;
    Ok(ws.max_message_size(MAX_READ).max_frame_size(MAX_READ).on_upgrade(move |socket| async move {
        // The WebSocket keeps its HTTP connection's place in the connection counts.
        let _slot = slot;
        connection(hub, room, seat, socket).await
    }))
}

/// What a client may say.
#[derive(Deserialize, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum ClientMessage {
    Move {
        #[serde(rename = "move")]
        text: String,
    },
    // A struct variant: serde ignores deny_unknown_fields on a unit variant of a tagged enum.
    Sync {},
    /// A chat message (`crate::chat`), to all unless `to` says `seats`.
    Chat {
        text: String,
        to: Option<crate::chat::Audience>,
    },
    /// Take back this seat's last move (`Room::undo`).
    Undo {},
}

/// Parse a client's message, or say why it cannot be read. Never panics, whatever the text.
pub fn parse(text: &str) -> Result<ClientMessage, String> {
    if text.len() > MAX_MESSAGE {
        return Err(format!("a message may have at most {MAX_MESSAGE} bytes"));
    }
    serde_json::from_str(text).map_err(|e| format!("cannot read the message: {e}"))
}

/// A `rejected` message: why, and the game's rule when one decides.
fn rejected(error: &str, rule: Option<&str>) -> String {
    let mut v = json!({ "type": "rejected", "error": error });
    if let Some(rule) = rule.filter(|r| !r.is_empty()) {
        v["rule"] = json!(rule);
    }
    v.to_string()
}

async fn sync(room: &Arc<Room>, seat: Place) -> Option<(u64, String)> {
    let room = room.clone();
    tokio::task::spawn_blocking(move || {
        room.with_session(|s| {
            let mut v = views::sync(s, seat, &room.extra(s));
            v["chat"] = json!(crate::chat::history(s, seat));
            (s.seq(), v.to_string())
        })
    })
    .await
    .ok()
}

async fn connection(hub: Arc<Hub>, room: Arc<Room>, seat: Place, mut socket: WebSocket) {
    // Heartbeats: a ping every `ping_interval`; a client that has said nothing (a pong, any
    // message) within `pong_timeout` of a ping is gone (its link dropped without a close), and
    // is disconnected: its seat shows away. A message that cannot be handed to the client
    // within `pong_timeout` (it reads nothing) means the same.
    let (every, patience) = (hub.config.ping_interval, hub.config.pong_timeout);
    // Registered with the copy of the game loaded now (the one given may have been unloaded
    // since the upgrade was asked for), subscribed before the sync is read, so that no move
    // falls between the two.
    let Ok(Attached { room, mut own, mut all }) = hub.attach(room, seat).await else {
        let why = "this game cannot be loaded now";
        let _ = put(&mut socket, Message::Text(json!({ "type": "closing", "reason": why }).to_string().into()), patience).await;
        return close(&mut socket).await;
    };
    let mut synced = 0;
    if let Some((seq, text)) = sync(&room, seat).await {
        synced = seq;
        if put(&mut socket, Message::Text(text.into()), patience).await.is_err() {
            return closed(hub, room, seat);
        }
    }
    let limit = hub.config.ws_messages_per_second;
    let mut pace = Pace::new(limit, Instant::now());
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut answer_by: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            _ = ping.tick() => {
                answer_by.get_or_insert(tokio::time::Instant::now() + patience);
                if put(&mut socket, Message::Ping(Default::default()), patience).await.is_err() { break; }
            }
            _ = async { if let Some(t) = answer_by { tokio::time::sleep_until(t).await } }, if answer_by.is_some() => break,
            m = own.recv() => match m {
                Ok(out) => {
                    if out.rewind {
                        // The game went back: moves after `out.seq` are new again.
                        synced = synced.min(out.seq);
                    } else if out.seq <= synced { continue; }
                    if !send(&mut socket, &out, patience).await { break; }
                }
                // Too far behind: a fresh sync instead of the missed messages.
                Err(RecvError::Lagged(_)) => match sync(&room, seat).await {
                    Some((seq, text)) => {
                        synced = seq;
                        if put(&mut socket, Message::Text(text.into()), patience).await.is_err() { break; }
                    }
                    None => break,
                },
                Err(RecvError::Closed) => break,
            },
            m = all.recv() => match m {
                Ok(out) => {
                    if !send(&mut socket, &out, patience).await { break; }
                    if out.closing {
                        close(&mut socket).await;
                        break;
                    }
                }
                Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => break,
            },
            m = socket.recv() => {
                answer_by = None;
                let text = match m {
                    Some(Ok(Message::Text(t))) => t.to_string(),
                    Some(Ok(Message::Binary(_))) => { let _ = put(&mut socket, Message::Text(rejected("messages are JSON text", None).into()), patience).await; continue; }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                };
                // A per-connection rate limit: a flood closes the connection.
                if !pace.take(Instant::now()) {
                    let _ = put(&mut socket, Message::Text(json!({ "type": "closing", "reason": format!("more than {limit} messages a second") }).to_string().into()), patience).await;
                    close(&mut socket).await;
                    break;
                }
                match parse(&text) {
                    Err(why) => { if put(&mut socket, Message::Text(rejected(&why, None).into()), patience).await.is_err() { break; } }
                    Ok(ClientMessage::Sync {}) => match sync(&room, seat).await {
                        Some((seq, text)) => {
                            synced = seq;
                            if put(&mut socket, Message::Text(text.into()), patience).await.is_err() { break; }
                        }
                        None => break,
                    },
                    Ok(ClientMessage::Chat { text, to }) => {
                        let r = room.clone();
                        let to = to.unwrap_or(crate::chat::Audience::All);
                        // The message reaches this connection through its topics, as a move does.
                        let error = match tokio::task::spawn_blocking(move || crate::chat::post(&r, seat, &text, to)).await {
                            Ok(Ok(_)) => None,
                            Ok(Err(e)) => Some(e.message()),
                            Err(e) => Some(format!("server fault: {e}")),
                        };
                        if let Some(m) = error {
                            if put(&mut socket, Message::Text(rejected(&m, None).into()), patience).await.is_err() { break; }
                        }
                    }
                    Ok(ClientMessage::Undo {}) => {
                        let r = room.clone();
                        let error = match tokio::task::spawn_blocking(move || r.undo(seat)).await {
                            Ok(Ok(_)) => None,
                            Ok(Err(e)) => Some(undo_refusal(e)),
                            Err(e) => Some((format!("server fault: {e}"), None)),
                        };
                        // The undo itself reaches this connection through its topic.
                        if let Some((m, rule)) = error {
                            if put(&mut socket, Message::Text(rejected(&m, rule.as_deref()).into()), patience).await.is_err() { break; }
                        }
                    }
                    Ok(ClientMessage::Move { text }) => {
                        let r = room.clone();
                        let result = tokio::task::spawn_blocking(move || r.play(seat, &text)).await;
                        let error = match result {
                            Ok(Ok(_)) => None,
                            Ok(Err(MoveError::Forbidden(m) | MoveError::Conflict(m) | MoveError::Failed(m))) => Some((m, None)),
                            Ok(Err(MoveError::Refused(r))) => Some((r.to_string(), Some(r.rule))),
                            // Only a game unloaded for idleness drops a connected copy; this
                            // connection has been told (`closing`) and reconnects.
                            Ok(Err(MoveError::Unloaded)) => Some(("the game was unloaded: reconnect to resume".into(), None)),
                            Err(e) => Some((format!("server fault: {e}"), None)),
                        };
                        // The accepted move itself reaches this connection through its topic.
                        if let Some((m, rule)) = error {
                            if put(&mut socket, Message::Text(rejected(&m, rule.as_deref()).into()), patience).await.is_err() { break; }
                        }
                    }
                }
            }
        }
    }
    closed(hub, room, seat)
}

/// A refused undo as a `rejected` message says it.
fn undo_refusal(e: MoveError) -> (String, Option<String>) {
    match e {
        MoveError::Forbidden(m) | MoveError::Conflict(m) | MoveError::Failed(m) => (m, None),
        MoveError::Refused(r) => (r.to_string(), Some(r.rule)),
        MoveError::Unloaded => ("the game was unloaded: reconnect to resume".into(), None),
    }
}

/// The closing handshake (RFC 6455 §7): send Close, then read (and drop) what the client still
/// sends until its Close, for 2 s at most. Dropping the connection at once would reset it
/// while the client's messages are unread, and a reset may discard the `closing` message
/// before the client reads it.
async fn close(socket: &mut WebSocket) {
    if socket.send(Message::Close(None)).await.is_err() {
        return;
    }
    let drain = async {
        while let Some(Ok(m)) = socket.recv().await {
            if let Message::Close(_) = m {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), drain).await;
}

async fn send(socket: &mut WebSocket, out: &Outgoing, patience: Duration) -> bool {
    put(socket, Message::Text(out.json.clone().into()), patience).await.is_ok()
}

/// The messages a connection may send: a bucket of twice `limit`, refilled at `limit` a
/// second. A client at its pace whose messages arrive bunched (a busy network, a busy server)
/// is not taken for a flood; one sending faster than `limit` for long is.
struct Pace {
    tokens: f64,
    at: Instant,
    limit: f64,
}

impl Pace {
    fn new(limit: u32, now: Instant) -> Pace {
        let limit = f64::from(limit.max(1));
        Pace { tokens: 2.0 * limit, at: now, limit }
    }

    /// One message at `now`: within the pace, or not.
    fn take(&mut self, now: Instant) -> bool {
        self.tokens = (self.tokens + now.saturating_duration_since(self.at).as_secs_f64() * self.limit).min(2.0 * self.limit);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Send `m`, unless the socket fails or the client takes no data for `patience` (it reads
/// nothing: the send would wait for ever).
async fn put(socket: &mut WebSocket, m: Message, patience: Duration) -> Result<(), ()> {
    match tokio::time::timeout(patience, socket.send(m)).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) | Err(_) => Err(()),
    }
}

/// The seat is away; after the disconnect timeout, absent. The room is unloaded when nobody
/// is connected for the unload delay.
fn closed(hub: Arc<Hub>, room: Arc<Room>, seat: Place) {
    let (generation, empty) = room.disconnected(seat);
    if let Place::Seat(_) = seat {
        // When a seat was last here: what tells an abandoned game (`Room::abandon_if_due`).
        let r = room.clone();
        let every = (hub.config.abandon_after / 10).min(Duration::from_secs(60));
        tokio::task::spawn_blocking(move || r.seen(every));
    }
    let (away, unload) = (hub.config.disconnect_timeout, hub.config.unload_after);
    // The timers hold the room weakly: a copy unloaded meanwhile is dropped at once, its file
    // closed (a copy kept alive by its timers would hold its descriptors until they ring).
    let r = Arc::downgrade(&room);
    tokio::spawn(async move {
        tokio::time::sleep(away).await;
        if let Some(r) = r.upgrade() {
            r.away_timeout(seat, generation);
        }
    });
    if empty {
        let r = Arc::downgrade(&room);
        drop(room);
        tokio::spawn(async move {
            tokio::time::sleep(unload).await;
            if let Some(room) = r.upgrade() {
                hub.unload_if_unused(&room).await;
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_pace_takes_bunched_messages_and_stops_a_flood() {
        let t0 = Instant::now();
        let mut p = Pace::new(20, t0);
        // Two seconds' worth at once (messages sent at 19 a second, arriving bunched).
        assert!((0..40).all(|_| p.take(t0)));
        assert!(!p.take(t0), "the 41st at once");
        // Refilled at 20 a second: one more every 50 ms.
        assert!(p.take(t0 + Duration::from_millis(50)));
        assert!(!p.take(t0 + Duration::from_millis(50)));
        // A steady 19 a second for a minute never runs out.
        let mut p = Pace::new(20, t0);
        assert!((1..=19 * 60).all(|i| p.take(t0 + Duration::from_secs_f64(f64::from(i) / 19.0))));
        // 40 a second for long does.
        let mut p = Pace::new(20, t0);
        assert!(!(1..=400).all(|i| p.take(t0 + Duration::from_secs_f64(f64::from(i) / 40.0))));
    }

    #[test]
    fn client_messages() {
        assert_eq!(parse(r#"{"type":"move","move":"open c4"}"#), Ok(ClientMessage::Move { text: "open c4".into() }));
        assert_eq!(parse(r#"{"type":"sync"}"#), Ok(ClientMessage::Sync {}));
        assert_eq!(parse(r#"{"type":"chat","text":"hi"}"#), Ok(ClientMessage::Chat { text: "hi".into(), to: None }));
        assert_eq!(
            parse(r#"{"type":"chat","text":"hi","to":"seats"}"#),
            Ok(ClientMessage::Chat { text: "hi".into(), to: Some(crate::chat::Audience::Seats) })
        );
        assert_eq!(
            parse(r#"{"type":"chat","text":"hi","to":"team"}"#),
            Ok(ClientMessage::Chat { text: "hi".into(), to: Some(crate::chat::Audience::Channel("team".into())) }),
            "a channel's name: the game judges it when the message is sent"
        );
        assert_eq!(parse(r#"{"type":"undo"}"#), Ok(ClientMessage::Undo {}));
        assert!(parse(r#"{"type":"undo","move":"x"}"#).is_err());
        for bad in ["", "{", "[]", r#"{"type":"resign"}"#, r#"{"type":"move"}"#, r#"{"type":"move","move":3}"#, r#"{"type":"sync","x":1}"#]
        {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert!(parse(&"x".repeat(MAX_MESSAGE + 1)).unwrap_err().contains("at most"));
    }

    proptest! {
        #[test]
        fn the_message_parser_never_panics(s in any::<String>()) {
            let _ = parse(&s);
        }

        #[test]
        fn json_shaped_messages_never_panic(t in "(move|sync|[a-z]{0,8})", m in any::<String>(), extra in proptest::option::of(any::<i64>())) {
            let mut v = json!({ "type": t, "move": m });
            if let Some(x) = extra { v["x"] = json!(x); }
            let _ = parse(&v.to_string());
        }
    }
}
