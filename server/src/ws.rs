//! WebSocket connections: a `sync` at connection, then the seat's topic and the topic for all;
//! moves sent by the client are judged as over HTTP. Presence follows the connections; the
//! last one closing starts the unload timer.

use crate::api::{seat_of, ApiError, TokenQuery};
use crate::hub::{Hub, MoveError, Outgoing, Room};
use crate::seats::Place;
use crate::views;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast::error::RecvError;

/// The largest message a client may send.
pub const MAX_MESSAGE: usize = 16 * 1024;
/// Messages a connection may send in one second before it is closed (the default of
/// `Config::ws_messages_per_second`: far above a person's pace).
pub const MAX_PER_SECOND: u32 = 20;

pub async fn upgrade(
    State(hub): State<Arc<Hub>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
    ws: WebSocketUpgrade,
) -> Result<Response, ApiError> {
    let (room, seat) = seat_of(&hub, &id, q.token.as_deref()).await?;
    Ok(ws.max_message_size(MAX_MESSAGE).max_frame_size(MAX_MESSAGE).on_upgrade(move |socket| connection(hub, room, seat, socket)))
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
    tokio::task::spawn_blocking(move || room.with_session(|s| (s.seq(), views::sync(s, seat, &room.extra(s)).to_string()))).await.ok()
}

async fn connection(hub: Arc<Hub>, room: Arc<Room>, seat: Place, mut socket: WebSocket) {
    // Subscribe before the sync is read, so that no move falls between the two.
    let (mut own, mut all) = room.subscribe(seat);
    room.connected(seat);
    let mut synced = 0;
    if let Some((seq, text)) = sync(&room, seat).await {
        synced = seq;
        if socket.send(Message::Text(text.into())).await.is_err() {
            return closed(hub, room, seat);
        }
    }
    let mut window = (Instant::now(), 0u32);
    let limit = hub.config.ws_messages_per_second;
    loop {
        tokio::select! {
            m = own.recv() => match m {
                Ok(out) => {
                    if out.rewind {
                        // The game went back: moves after `out.seq` are new again.
                        synced = synced.min(out.seq);
                    } else if out.seq <= synced { continue; }
                    if !send(&mut socket, &out).await { break; }
                }
                // Too far behind: a fresh sync instead of the missed messages.
                Err(RecvError::Lagged(_)) => match sync(&room, seat).await {
                    Some((seq, text)) => {
                        synced = seq;
                        if socket.send(Message::Text(text.into())).await.is_err() { break; }
                    }
                    None => break,
                },
                Err(RecvError::Closed) => break,
            },
            m = all.recv() => match m {
                Ok(out) => {
                    if !send(&mut socket, &out).await { break; }
                    if out.closing {
                        close(&mut socket).await;
                        break;
                    }
                }
                Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => break,
            },
            m = socket.recv() => {
                let text = match m {
                    Some(Ok(Message::Text(t))) => t.to_string(),
                    Some(Ok(Message::Binary(_))) => { let _ = socket.send(Message::Text(rejected("messages are JSON text", None).into())).await; continue; }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                };
                // A per-connection rate limit: a flood closes the connection.
                if window.0.elapsed() >= Duration::from_secs(1) { window = (Instant::now(), 0); }
                window.1 += 1;
                if window.1 > limit {
                    let _ = socket.send(Message::Text(json!({ "type": "closing", "reason": format!("more than {limit} messages a second") }).to_string().into())).await;
                    close(&mut socket).await;
                    break;
                }
                match parse(&text) {
                    Err(why) => { if socket.send(Message::Text(rejected(&why, None).into())).await.is_err() { break; } }
                    Ok(ClientMessage::Sync {}) => match sync(&room, seat).await {
                        Some((seq, text)) => {
                            synced = seq;
                            if socket.send(Message::Text(text.into())).await.is_err() { break; }
                        }
                        None => break,
                    },
                    Ok(ClientMessage::Undo {}) => {
                        let r = room.clone();
                        let error = match tokio::task::spawn_blocking(move || r.undo(seat)).await {
                            Ok(Ok(_)) => None,
                            Ok(Err(e)) => Some(undo_refusal(e)),
                            Err(e) => Some((format!("server fault: {e}"), None)),
                        };
                        // The undo itself reaches this connection through its topic.
                        if let Some((m, rule)) = error {
                            if socket.send(Message::Text(rejected(&m, rule.as_deref()).into())).await.is_err() { break; }
                        }
                    }
                    Ok(ClientMessage::Move { text }) => {
                        let r = room.clone();
                        let result = tokio::task::spawn_blocking(move || r.play(seat, &text)).await;
                        let error = match result {
                            Ok(Ok(_)) => None,
                            Ok(Err(MoveError::Forbidden(m) | MoveError::Conflict(m) | MoveError::Failed(m))) => Some((m, None)),
                            Ok(Err(MoveError::Refused(r))) => Some((r.to_string(), Some(r.rule))),
                            Err(e) => Some((format!("server fault: {e}"), None)),
                        };
                        // The accepted move itself reaches this connection through its topic.
                        if let Some((m, rule)) = error {
                            if socket.send(Message::Text(rejected(&m, rule.as_deref()).into())).await.is_err() { break; }
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

async fn send(socket: &mut WebSocket, out: &Outgoing) -> bool {
    socket.send(Message::Text(out.json.clone().into())).await.is_ok()
}

/// The seat is away; after the disconnect timeout, absent. The room is unloaded when nobody
/// is connected for the unload delay.
fn closed(hub: Arc<Hub>, room: Arc<Room>, seat: Place) {
    let (generation, empty) = room.disconnected(seat);
    let (away, unload) = (hub.config.disconnect_timeout, hub.config.unload_after);
    let r = room.clone();
    tokio::spawn(async move {
        tokio::time::sleep(away).await;
        r.away_timeout(seat, generation);
    });
    if empty {
        tokio::spawn(async move {
            tokio::time::sleep(unload).await;
            hub.unload_if_unused(&room);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn client_messages() {
        assert_eq!(parse(r#"{"type":"move","move":"open c4"}"#), Ok(ClientMessage::Move { text: "open c4".into() }));
        assert_eq!(parse(r#"{"type":"sync"}"#), Ok(ClientMessage::Sync {}));
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
