//! Bear Trap (#44, traps the USSR) and Quagmire (#42, traps the US; also ends NORAD, card
//! data). The shape is `shapes::Trap`.

use super::ids::{BEAR_TRAP, QUAGMIRE};
use crate::shapes::Trap;
use arbiter_twilight::{Ruleset, Side};

pub fn register(r: &mut Ruleset) {
    r.both(BEAR_TRAP, Trap { card: BEAR_TRAP, victim: Side::Ussr });
    r.both(QUAGMIRE, Trap { card: QUAGMIRE, victim: Side::Us });
}
