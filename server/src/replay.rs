//! Replays: any game the server holds, stepped through move by move (`GET
//! /api/games/{id}/replay?at=N`, the page `/replay/{id}?at=N`). Each position is rebuilt by the
//! store's verified replay (`arbiter_store::Replay`) from the saved record up to move N, and
//! shown through the game's own view for one place, as a `sync` shows it.
//!
//! Who may see what: an observer's view by default. A seat's view (its hidden information) is
//! shown to that seat's own token, and to anyone once the game is over: a finished game's every
//! seat may then be replayed as it saw the game. An unfinished game never shows a seat's view
//! but to that seat. A listed game's replay needs no token; an unlisted one's needs a token of
//! the game (any place).

use crate::api::{read, ApiError};
use crate::hub::Hub;
use crate::seats::Place;
use arbiter_kernel::Seat;
use arbiter_store::Replay;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Each game's turns (`turns` of the answer), by game id, for the record they were computed
/// from (its number of moves and last state hash): the whole record is replayed once for them,
/// not at every step.
fn turn_cache() -> &'static Mutex<HashMap<String, ((u64, String), Value)>> {
    static TURNS: OnceLock<Mutex<HashMap<String, ((u64, String), Value)>>> = OnceLock::new();
    TURNS.get_or_init(Default::default)
}

/// The number the game's view gives as `turn`, if it names one (a generic look: the host knows
/// no game's turns).
fn turn_of(view: &Value) -> Option<u64> {
    view.get("turn").and_then(Value::as_u64)
}

/// The window of `Config::replays_per_address`.
pub const REPLAYS_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// `GET /api/games/{id}/replay?at=N&token=T&as=PLACE`: the position after move N as `sync`
/// shapes it (`state`, `moves`, `log`), with `at`, `total` (the number of moves), `seat` (whose
/// view) and `views` (the places this caller may choose).
pub async fn replay(
    State(hub): State<Arc<Hub>>,
    peer: Option<axum::Extension<axum::extract::ConnectInfo<std::net::SocketAddr>>>,
    Path(id): Path<String>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Json<Value>, ApiError> {
    // Each position is replayed from the record: limited per client address (without a peer
    // address, the router served by other means, every request shares one bucket).
    let ip = peer.map_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |axum::Extension(axum::extract::ConnectInfo(a))| {
        crate::limits::client_of(a.ip(), &hub.config)
    });
    let most = hub.config.replays_per_address;
    if let Err(wait) = hub.replays.take(ip, most, REPLAYS_WINDOW) {
        let secs = wait.as_secs() + 1;
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            format!("too many replay requests from your address (at most {most} a minute): try again in {secs} s"),
        )
        .retry_after(secs));
    }
    let room = hub.room(&id).await?;
    let token = q.get("token").filter(|t| !t.is_empty());
    let wanted_at = match q.get("at") {
        None => None,
        Some(a) => {
            Some(a.parse::<u64>().map_err(|_| ApiError::new(StatusCode::BAD_REQUEST, "at is a move's number (0: the setup)".into()))?)
        }
    };
    let own = match &token {
        Some(t) => {
            Some(room.place(t).ok_or_else(|| ApiError::new(StatusCode::UNAUTHORIZED, "this token is not a seat of this game".into()))?)
        }
        None if room.seats_file().unlisted => {
            return Err(ApiError::new(StatusCode::UNAUTHORIZED, "an unlisted game's replay needs a token of the game (?token=…)".into()))
        }
        None => None,
    };
    let (header, rows, kind, over) =
        read(room.clone(), |r| r.with_session(|s| (s.header().clone(), s.rows().to_vec(), s.kind(), s.game().outcome().is_some()))).await?;
    let n = room.seat_count();
    let ids = room.ids.clone();
    // The places this caller may see the game as.
    let views: Vec<Place> = Place::all(n).filter(|p| *p == Place::Observer || over || Some(*p) == own).collect();
    let place = match q.get("as").map(String::as_str) {
        None | Some("") => own.filter(|p| views.contains(p)).unwrap_or(Place::Observer),
        Some(v) => {
            let p = ids.iter().position(|x| x == v).map(|i| if i == n { Place::Observer } else { Place::Seat(Seat(i as u8)) }).ok_or_else(
                || ApiError::new(StatusCode::BAD_REQUEST, format!("no place {v:?} in this game; its places: {}", ids.join(", "))),
            )?;
            if !views.contains(&p) {
                return Err(ApiError::new(StatusCode::FORBIDDEN, format!("the {v} seat's view is its own until the game is over")));
            }
            p
        }
    };
    let total = rows.len() as u64;
    let at = wanted_at.unwrap_or(total).min(total);
    // Known by the number of moves and the last move's state hash: an undo and another move
    // make the same number with another game.
    let version = (total, rows.last().map(|r| r.record.state_hash.clone()).unwrap_or_default());
    let cached = turn_cache().lock().unwrap_or_else(|p| p.into_inner()).get(&id).filter(|(v, _)| *v == version).map(|(_, t)| t.clone());
    let body = tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let failed =
            |e: arbiter_store::ReplayError| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the game cannot be replayed: {e}"));
        let upto = rows[..at as usize].to_vec();
        let mut r = Replay::new(header.clone(), rows.clone(), kind).map_err(failed)?;
        // The first move of each turn, if the game's view names turns: the replay goes on to the
        // end once (then it is kept) and the position at `at` is a copy taken on the way.
        let mut turns: Vec<Value> = Vec::new();
        let mut shown = None;
        let mut last_turn = None;
        loop {
            if r.seq() == at {
                shown = Some(r.game().boxed_clone());
                if cached.is_some() {
                    break;
                }
            }
            if cached.is_none() {
                let t = turn_of(&r.game().view(None));
                if t.is_some() && t != last_turn {
                    turns.push(json!({ "turn": t, "at": r.seq() }));
                    last_turn = t;
                }
            }
            if r.done() {
                break;
            }
            r.step().map_err(failed)?;
        }
        let turns = cached.unwrap_or_else(|| {
            let v = json!(turns);
            turn_cache().lock().unwrap_or_else(|p| p.into_inner()).insert(id.clone(), (version, v.clone()));
            v
        });
        let shown = shown.ok_or_else(|| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "the position was not reached".into()))?;
        let g = shown.as_ref();
        let viewer = place.viewer();
        let mut state = g.view(viewer);
        if !state.is_object() {
            state = json!({ "view": state });
        }
        state["seq"] = json!(at);
        state["game"] = json!(kind.id());
        let name = |s: Seat| ids.get(s.idx()).cloned().unwrap_or_default();
        let d = g.decision();
        let outcome = g.outcome().map(|o| json!({ "winner": o.winner.map(name), "reason": o.reason, "text": o.text }));
        let moves = json!({
            "seq": at, "to_move": d.as_ref().map(|d| name(d.seat)), "yours": false, "prompt": null,
            "moves": [], "interjections": [], "outcome": outcome,
        });
        let log: Vec<String> = arbiter_store::log_for(&header, &upto, viewer, g).into_iter().map(|e| e.text).collect();
        // Once the game is over nothing is secret: every seat's view of this position, so a
        // client can show every hand at once.
        let seat_views: Value =
            if over { Value::Object((0..n).map(|i| (ids[i].clone(), g.view(Some(Seat(i as u8))))).collect()) } else { Value::Null };
        Ok(json!({
            "type": "replay", "at": at, "total": total, "seat": ids[place.idx(n)],
            "views": views.iter().map(|p| ids[p.idx(n)].clone()).collect::<Vec<_>>(),
            "state": state, "moves": moves, "log": log, "turns": turns, "seat_views": seat_views,
        }))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("server fault: {e}")))??;
    Ok(Json(body))
}
