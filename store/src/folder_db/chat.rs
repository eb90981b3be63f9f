//! Each game's chat ([`ChatMessage`]), kept beside the record and outside it: numbered 1,
//! 2, 3… per game by the writer (which takes one write at a time, so no two messages get one
//! number).

use super::writer::Work;
use super::{check_id, FolderDatabase, FolderStore};
use crate::{ChatMessage, StoreError};

impl FolderDatabase {
    /// Game `id`'s chat, in the order stored.
    pub fn chat(&self, id: &str) -> Result<Vec<ChatMessage>, StoreError> {
        check_id(id)?;
        self.read(|c| Ok(chat_on(c, id)?))
    }

    /// How many chat messages game `id` holds.
    pub fn chat_len(&self, id: &str) -> Result<u64, StoreError> {
        check_id(id)?;
        self.read(|c| {
            let n: i64 = c.prepare_cached("SELECT COUNT(*) FROM chat WHERE game_id = ?1")?.query_row([id], |r| r.get(0))?;
            Ok(n.max(0) as u64)
        })
    }

    /// Store a chat message of game `id` (durably, on its own), numbered after the last.
    pub fn add_chat(&self, id: &str, from: &str, to: &str, text: &str) -> Result<ChatMessage, StoreError> {
        check_id(id)?;
        let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let work = Work::AddChat { id: id.into(), at: at.clone(), from: from.into(), to: to.into(), text: text.into() };
        let n = self.submit(work)?;
        Ok(ChatMessage { id: n, at, from: from.into(), to: to.into(), text: text.into() })
    }

    /// Store chat messages of game `id` as they were (their numbers and times: a game moved
    /// between stores), in one commit; refused if a number is taken.
    pub fn restore_chat(&self, id: &str, messages: &[ChatMessage]) -> Result<(), StoreError> {
        check_id(id)?;
        self.submit(Work::RestoreChat { id: id.into(), messages: messages.to_vec() }).map(drop)
    }
}

/// Game `id`'s chat on `c`, in order.
pub(super) fn chat_on(c: &rusqlite::Connection, id: &str) -> rusqlite::Result<Vec<ChatMessage>> {
    let mut q = c.prepare_cached("SELECT id, at, sender, audience, text FROM chat WHERE game_id = ?1 ORDER BY id")?;
    let chat = q
        .query_map([id], |r| {
            Ok(ChatMessage { id: r.get::<_, i64>(0)?.max(0) as u64, at: r.get(1)?, from: r.get(2)?, to: r.get(3)?, text: r.get(4)? })
        })?
        .collect();
    chat
}

impl FolderStore {
    /// The game's chat, in the order stored.
    pub fn chat(&self) -> Result<Vec<ChatMessage>, StoreError> {
        self.database().chat(self.id())
    }

    /// How many chat messages the game holds.
    pub fn chat_len(&self) -> Result<u64, StoreError> {
        self.database().chat_len(self.id())
    }

    /// Store a chat message (durably, on its own; never inside a move's write).
    pub fn add_chat(&self, from: &str, to: &str, text: &str) -> Result<ChatMessage, StoreError> {
        self.may_write_aside("a chat message")?;
        self.database().add_chat(self.id(), from, to, text)
    }

    /// Store chat messages as they were ([`FolderDatabase::restore_chat`]).
    pub fn restore_chat(&self, messages: &[ChatMessage]) -> Result<(), StoreError> {
        self.may_write_aside("the chat")?;
        self.database().restore_chat(self.id(), messages)
    }
}
