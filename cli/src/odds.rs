//! Coup and realignment odds for a player (`odds coup NAME`, `odds realign NAME` in the line
//! mode; the detail pane of the table). The game answers (`arbiter_twilight::advice`, also what
//! the browser is told); a module of its own so that the table and the line mode both use it
//! without depending on each other.

pub use arbiter_twilight::advice::odds;
