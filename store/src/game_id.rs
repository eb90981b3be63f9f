//! Games keyed by id in a store of many (a PostgreSQL database, a folder's database): which ids
//! the stores accept, and how messages name a game.

use crate::StoreError;
use std::path::PathBuf;

/// A game id the stores accept: 1 to 200 bytes, no control characters.
pub(crate) fn check_id(id: &str) -> Result<(), StoreError> {
    if id.is_empty() || id.len() > 200 || id.chars().any(char::is_control) {
        return Err(StoreError::BadId(id.chars().take(60).filter(|c| !c.is_control()).collect()));
    }
    Ok(())
}

/// How messages name game `id` of such a store.
pub(crate) fn game_place(id: &str) -> PathBuf {
    PathBuf::from(format!("game {id}"))
}
