//! Rematch: a finished game's seats play again, a new game of the same kind and options on a
//! fresh random seed with the seats moved on by one (two seats: swapped; more: rotated; one:
//! the same), the computer keeping its place in the rotation.
//!
//! No token is stored in clear: each old seat's new token is derived from its old token and the
//! new game's id (`derived_token`), which the server sees only when that seat asks. So the new
//! game is made with every person's seat taken by a token nobody is given (as the computer's),
//! and each old seat holder's request (`POST /api/games/{id}/rematch?token=T`) puts the hash of
//! its derived token in its new seat and returns it. Asking again returns the same game and
//! token; the old game's seats document records the rematch's id.

use crate::api::{read, retrying, seat_of, ApiError, TokenQuery, Who};
use crate::hub::Hub;
use crate::seats::{token_hash, ComputerSeat, Place};
use arbiter_kernel::Seat;
use axum::extract::{ConnectInfo, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

/// The token of the seat that held `old` in the rematch `new_id`: 128 bits of SHA-256 of both,
/// as 32 hex digits (a token's shape).
pub fn derived_token(old: &str, new_id: &str) -> String {
    let d = Sha256::digest(format!("arbiter rematch\0{old}\0{new_id}").as_bytes());
    d[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// Seat `i`'s seat in the rematch of a game of `n` seats.
pub fn moved_on(i: usize, n: usize) -> usize {
    (i + 1) % n.max(1)
}

/// `POST /api/games/{id}/rematch?token=T`.
pub async fn rematch(
    State(hub): State<Arc<Hub>>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    Path(id): Path<String>,
    Query(q): Query<TokenQuery>,
) -> Result<Response, ApiError> {
    let (room, place) = seat_of(&hub, &id, q.token.as_deref()).await?;
    let Place::Seat(old_seat) = place else {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "only a seat of the game plays its rematch".into()));
    };
    let token = q.token.unwrap_or_default();
    let (over, kind, options) =
        read(room.clone(), |r| r.with_session(|s| (s.game().outcome().is_some(), s.kind().id(), s.header().options.clone()))).await?;
    if !over {
        return Err(ApiError::new(StatusCode::CONFLICT, "the game is not over: a rematch follows its end".into()));
    }
    let n = room.seat_count();
    let ip = peer.map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |Extension(ConnectInfo(a))| a.ip());
    // Made (or found) one at a time for this game, so that two seats asking at once get one
    // new game; in a task of its own holding the lock until the new game is recorded in the
    // old one's seats: a request dropped meanwhile (its client gone) neither lets the other
    // seat in early nor stops the recording, which would leave two games.
    let lock = hub.lobby.rematching(&id).lock_owned().await;
    let made = tokio::spawn(make(hub.clone(), id.clone(), kind, options, n, ip, lock));
    let new_id = made.await.map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("server fault: {e}")))??;
    let seat = moved_on(old_seat.idx(), n);
    let new_token = derived_token(&token, &new_id);
    let hash = token_hash(&new_token);
    // On the copy loaded then (again if it is unloaded meanwhile): the claim is the same each
    // time.
    let (new_room, ()) = retrying(&hub, &new_id, Who::Anyone, move |r, _| {
        let claimed = r.update_seats(|f| {
            if let Some(h) = f.hashes.get_mut(seat) {
                *h = Some(hash.clone());
            }
            Ok(Some(()))
        });
        r.relist();
        claimed.map(|_| ())
    })
    .await?;
    let new_seat = new_room
        .ids
        .get(seat)
        .ok_or_else(|| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the rematch has no seat {} (server fault)", seat + 1)))?;
    Ok(Json(json!({
        "id": new_id,
        "game": new_room.kind,
        "seat": new_seat,
        "token": new_token,
        "link": format!("/play/{new_id}?token={new_token}"),
    }))
    .into_response())
}

/// Game `id`'s rematch: the one recorded in its seats, else a new game made and recorded
/// there (refused when too many new games came from `ip`). Run holding the game's rematch
/// lock (`_one_at_a_time`).
async fn make(
    hub: Arc<Hub>,
    id: String,
    kind: &'static str,
    options: String,
    n: usize,
    ip: IpAddr,
    _one_at_a_time: tokio::sync::OwnedMutexGuard<()>,
) -> Result<String, ApiError> {
    // Read under the lock, from the copy loaded now (the one the request found may have been
    // unloaded since, its seats not the latest).
    let file = hub.room(&id).await?.seats_file();
    if let Some(new_id) = file.rematch {
        return Ok(new_id);
    }
    // A new game: counted as `POST /api/games` counts them (else resigning and asking for a
    // rematch again and again would make games without limit), against the computer too.
    let reserved = if file.computer.is_empty() {
        None
    } else {
        Some(hub.reserve_computer_game(ip).map_err(|most| ApiError::too_many_computer_games(most, hub.config.unload_after))?)
    };
    if let Err(wait) = hub.creations.take(ip, hub.config.games_per_address, hub.config.games_window) {
        return Err(ApiError::too_many_games(wait, "a rematch is one"));
    }
    let kind = hub.catalogue().find(kind).map_err(|r| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, r.reason))?;
    let options: Value = serde_json::from_str(&options)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the game's options cannot be read: {e}")))?;
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("no randomness for a seed: {e}")))?;
    let computer: Vec<ComputerSeat> =
        file.computer.iter().map(|c| ComputerSeat { seat: moved_on(c.seat as usize, n) as u8, agent: c.agent }).collect();
    // Every person's seat is taken by a token nobody is given, until its player asks; a seat
    // nobody had joined stays free to join.
    let people: Vec<usize> = (0..n)
        .filter(|i| file.taken(Seat(*i as u8)) && !file.computer.iter().any(|c| c.seat as usize == *i))
        .map(|i| moved_on(i, n))
        .collect();
    let (new_id, _, _) = hub
        .create(
            kind,
            options,
            u64::from_le_bytes(b),
            Some(people),
            file.clock_ms.map(|ms| (ms, file.clock_per)),
            computer,
            !file.unlisted,
            false,
        )
        .await?;
    if let Some(r) = reserved {
        r.made(&new_id);
    }
    let ours = new_id.clone();
    // Recorded on the copy loaded then (again if it is unloaded meanwhile), unless one is
    // recorded already: the lock is one process's, and several processes on one database may
    // each have made one (a copy unloaded here and loaded by another meanwhile). The first
    // recorded stands, so that the seats meet in one game.
    let recorded = retrying(&hub, &id, Who::Anyone, move |r, _| {
        let ours = ours.clone();
        r.update_seats(|f| Ok(Some(f.rematch.get_or_insert(ours).clone())))
    })
    .await;
    match recorded {
        Ok((_, Some(standing))) if standing != new_id => {
            hide(&hub, &new_id).await;
            Ok(standing)
        }
        Ok((room, _)) => {
            // Each seat's open page offers to play it.
            let seats: Vec<Place> = (0..n).map(|i| Place::Seat(Seat(i as u8))).collect();
            room.tell(&seats, json!({ "type": "rematch", "id": new_id }).to_string());
            Ok(new_id)
        }
        Err(e) => {
            // Nobody will be given its links: out of the list, not a game people see taken.
            hide(&hub, &new_id).await;
            Err(e)
        }
    }
}

/// Take game `id` (a rematch made but not the one recorded: nobody is given its links) out of
/// the lobby's list. Best effort: it is a game nobody can play either way.
async fn hide(hub: &Arc<Hub>, id: &str) {
    let _ = retrying(hub, id, Who::Anyone, |r, _| {
        let hidden = r.update_seats(|f| {
            f.unlisted = true;
            Ok(Some(()))
        });
        r.relist();
        hidden.map(|_| ())
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_move_on_by_one() {
        assert_eq!((moved_on(0, 2), moved_on(1, 2)), (1, 0));
        assert_eq!((moved_on(0, 3), moved_on(1, 3), moved_on(2, 3)), (1, 2, 0));
        assert_eq!(moved_on(0, 1), 0);
    }

    #[test]
    fn a_derived_token_has_a_token_s_shape_and_depends_on_both() {
        let t = derived_token("00112233445566778899aabbccddeeff", "0123456789abcdef");
        assert_eq!(t.len(), 32);
        assert!(t.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(t, derived_token("00112233445566778899aabbccddeefe", "0123456789abcdef"));
        assert_ne!(t, derived_token("00112233445566778899aabbccddeeff", "0123456789abcdee"));
    }
}
