//! Events whose VP depend on a count made when they resolve (`shapes::VpFromCount`); the log
//! shows the count that decided.
//!
//! - Kitchen Debates (#48): 2 VP to the US if it controls more battlegrounds than the USSR; a
//!   condition: unmet, no effect, and the starred card is discarded, not removed (§5.2).
//! - Alliance for Progress (#78): 1 VP to the US per US-controlled battleground in Central and
//!   South America. With none it still counts as played (and is removed, §5.2 example).
//! - OPEC (#61): 1 VP to the USSR per USSR-controlled Egypt, Iran, Libya, Saudi Arabia, Iraq,
//!   Gulf States and Venezuela; prevented by North Sea Oil (card data).
//! - Arms Race (#39), a condition like Kitchen Debates: the player with more military ops than
//!   the opponent gains 1 VP, or 3 VP
//!   if it has also met its required military ops (as many as the DEFCON level, §8.2). The
//!   track values compared are those on the track (0–5).

// Control is read from the kept masks (`State::masks`, equal to the Influence table's: an
// invariant after every soak move), not recomputed over the map at each count.

use super::ids::*;
use crate::shapes::{names, Count, VpFromCount};
use arbiter_twilight::map::Map;
use arbiter_twilight::{Position, Region, Ruleset, Side, Words};

fn kitchen_debates(p: Position, side: Side, words: Words) -> Count {
    let bgs = Map::standard().battleground_mask();
    let [us, ussr] = [Side::Us, Side::Ussr].map(|s| (p.st.masks().control[s.idx()] & bgs).count_ones());
    let (mine, theirs) = if side == Side::Us { (us, ussr) } else { (ussr, us) };
    let vp = if mine > theirs { 2 } else { 0 };
    Count { vp, why: words.say(|| format!("battlegrounds controlled: {side} {mine}, {} {theirs}", side.opponent())) }
}

fn alliance_for_progress(p: Position, side: Side, words: Words) -> Count {
    let map = Map::standard();
    let area = (map.region_mask(Region::CentralAmerica) | map.region_mask(Region::SouthAmerica)) & map.battleground_mask();
    let held = p.st.masks().control[side.idx()] & area;
    Count {
        vp: held.count_ones() as u8,
        why: words.say(|| format!("{side}-controlled battlegrounds in Central and South America: {} ({})", held.count_ones(), names(held))),
    }
}

fn opec(p: Position, side: Side, words: Words) -> Count {
    let oil = countries!("Egypt", "Iran", "Libya", "Saudi Arabia", "Iraq", "Gulf States", "Venezuela");
    let held = p.st.masks().control[side.idx()] & oil;
    Count {
        vp: held.count_ones() as u8,
        why: words.say(|| format!("{side}-controlled oil countries: {} ({})", held.count_ones(), names(held))),
    }
}

fn arms_race(p: Position, side: Side, words: Words) -> Count {
    let (mine, theirs) = (p.st.mil_ops[side.idx()], p.st.mil_ops[side.opponent().idx()]);
    let required = p.st.defcon;
    let vp = match (mine > theirs, mine >= required) {
        (false, _) => 0,
        (true, false) => 1,
        (true, true) => 3,
    };
    let met = if mine >= required { "met" } else { "not met" };
    Count {
        vp,
        why: words.say(|| format!("military ops {side} {mine}, {} {theirs}; {side} requirement {required} {met}", side.opponent())),
    }
}

pub fn register(r: &mut Ruleset) {
    // "If the US controls more battlegrounds…", "If the phasing player has more military
    // ops…": conditions in the text (§5.2). Alliance for Progress and OPEC count, with no if.
    r.event(KITCHEN_DEBATES, VpFromCount { card: KITCHEN_DEBATES, count: kitchen_debates, conditional: true });
    r.event(ALLIANCE_FOR_PROGRESS, VpFromCount { card: ALLIANCE_FOR_PROGRESS, count: alliance_for_progress, conditional: false });
    r.event(OPEC, VpFromCount { card: OPEC, count: opec, conditional: false });
    r.event(ARMS_RACE, VpFromCount { card: ARMS_RACE, count: arms_race, conditional: true });
}
