//! Diplomacy on Arbiter: the standard map (`map`), orders in the notation players write
//! (`orders`), and the movement phase adjudicated to the rules of the 2000 edition as the
//! Diplomacy Adjudicator Test Cases read them (`adjudicate`). Rulings: RULINGS.md; the DATC
//! cases: `fixtures/`.

pub mod adjudicate;
pub mod fixture;
pub mod game;
pub mod map;
pub mod orders;
pub mod phases;

pub use adjudicate::{adjudicate, Board, Dislodgement, Outcome};
pub use game::{Diplomacy, Kind};
pub use map::{Coast, Loc, Map, Power, Province, Terrain, UnitKind};
pub use orders::{Order, OrderError, Unit};
