//! Who is at the table: each place's open connections and its presence as the other places
//! see it (connected; away for the disconnect timeout after its last connection closed; then
//! absent; a computer's seat). One part of a game's room (`crate::room::Room`), told when a
//! connection opens or closes; the room announces what changed.

use serde_json::{json, Value};
use std::sync::Mutex;

/// A seat's connection state, as the other seats see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Presence {
    Connected,
    /// Disconnected less than the disconnect timeout ago.
    Away,
    /// Never connected, or away longer than the timeout: the game waits; the link still works.
    Absent,
    /// The computer plays this seat.
    Computer,
}

#[derive(Debug)]
struct Place {
    connections: usize,
    presence: Presence,
    /// Bumped at each disconnection, so an old timer does not mark a returned seat absent.
    generation: u64,
}

/// Every place's presence (each seat's, then the observers'), by place index.
#[derive(Debug)]
pub struct Presences {
    places: Mutex<Vec<Place>>,
}

impl Presences {
    /// `places` places, none connected; the seats in `computer` are the computer's.
    pub fn new(places: usize, computer: impl IntoIterator<Item = usize>) -> Presences {
        let mut v: Vec<Place> = (0..places).map(|_| Place { connections: 0, presence: Presence::Absent, generation: 0 }).collect();
        for i in computer {
            if let Some(p) = v.get_mut(i) {
                p.presence = Presence::Computer;
            }
        }
        Presences { places: Mutex::new(v) }
    }

    fn places(&self) -> std::sync::MutexGuard<'_, Vec<Place>> {
        self.places.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A connection of place `i` opened.
    pub fn opened(&self, i: usize) {
        let mut p = self.places();
        p[i].connections += 1;
        p[i].presence = Presence::Connected;
    }

    /// A connection of place `i` closed: its generation for the away timer, and whether no
    /// place has a connection left.
    pub fn closed(&self, i: usize) -> (u64, bool) {
        let mut p = self.places();
        let st = &mut p[i];
        st.connections = st.connections.saturating_sub(1);
        if st.connections == 0 {
            st.presence = Presence::Away;
            st.generation += 1;
        }
        let generation = st.generation;
        (generation, p.iter().all(|s| s.connections == 0))
    }

    /// The away timer of place `i` at `generation` ran out: absent, unless it came back
    /// meanwhile. Whether that changed anything.
    pub fn away_timeout(&self, i: usize, generation: u64) -> bool {
        let mut p = self.places();
        let st = &mut p[i];
        let stale = st.connections == 0 && st.generation == generation && st.presence == Presence::Away;
        if stale {
            st.presence = Presence::Absent;
        }
        stale
    }

    /// The open connections of every place.
    pub fn connections(&self) -> usize {
        self.places().iter().map(|s| s.connections).sum()
    }

    /// Whether one of the first `seats` places (the seats, not the observers) is connected.
    pub fn any_seat_connected(&self, seats: usize) -> bool {
        self.places()[..seats].iter().any(|p| p.connections > 0)
    }

    /// Each place's presence by its id, as every message shows it.
    pub fn json(&self, ids: &[String]) -> Value {
        let p = self.places();
        let m: serde_json::Map<String, Value> = ids.iter().zip(p.iter()).map(|(id, st)| (id.clone(), json!(st.presence))).collect();
        Value::Object(m)
    }
}
