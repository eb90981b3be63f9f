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
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

#[derive(Deserialize)]
pub struct ReplayQuery {
    token: Option<String>,
    /// The move to show (0: the setup); past the end, the end.
    at: Option<u64>,
    /// Whose view: a seat's id or `observer` (default: the token's place, else the observer).
    #[serde(rename = "as")]
    view: Option<String>,
}

/// `GET /api/games/{id}/replay?at=N&token=T&as=PLACE`: the position after move N as `sync`
/// shapes it (`state`, `moves`, `log`), with `at`, `total` (the number of moves), `seat` (whose
/// view) and `views` (the places this caller may choose).
pub async fn replay(State(hub): State<Arc<Hub>>, Path(id): Path<String>, Query(q): Query<ReplayQuery>) -> Result<Json<Value>, ApiError> {
    let room = hub.room(&id).await?;
    let token = q.token.filter(|t| !t.is_empty());
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
    let place = match q.view.as_deref() {
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
    let at = q.at.unwrap_or(total).min(total);
    let body = tokio::task::spawn_blocking(move || -> Result<Value, ApiError> {
        let upto = rows[..at as usize].to_vec();
        let mut r = Replay::new(header.clone(), upto.clone(), kind)
            .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the game cannot be replayed: {e}")))?;
        r.run_to(None).map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the game cannot be replayed: {e}")))?;
        let g = r.game();
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
        Ok(json!({
            "type": "replay", "at": at, "total": total, "seat": ids[place.idx(n)],
            "views": views.iter().map(|p| ids[p.idx(n)].clone()).collect::<Vec<_>>(),
            "state": state, "moves": moves, "log": log,
        }))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("server fault: {e}")))??;
    Ok(Json(body))
}
