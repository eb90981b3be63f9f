//! Scoring (§10.1): presence, domination and control of a region, +1 VP per controlled
//! battleground and per controlled country adjacent to the enemy superpower; only the
//! difference moves the marker. Final scoring after turn 10 (§10.3.2).

use crate::ctx::Ctx;
use crate::instr::{DomainEvent, Instr};
use crate::log;
use crate::map::{iter_mask, Map, Region, SubRegion};
use crate::registry::{Position, ScoringModifier, ScoringTime};
use crate::side::Side;
use crate::state::{EndReason, Outcome, State};

/// VP for presence, domination and control; `None` for Europe control, which wins the game.
pub fn levels(r: Region) -> (u8, u8, Option<u8>) {
    match r {
        Region::Europe => (3, 7, None),
        Region::Asia => (3, 7, Some(9)),
        Region::MiddleEast => (3, 5, Some(7)),
        Region::CentralAmerica => (1, 3, Some(5)),
        Region::SouthAmerica => (2, 5, Some(6)),
        Region::Africa => (1, 4, Some(6)),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    None,
    Presence,
    Domination,
    Control,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionScore {
    pub region: Region,
    pub level: [Level; 2],
    /// VP earned by each side [US, USSR].
    pub vp: [i32; 2],
    /// What each side scored, in words; empty when scored quietly ([`score_quiet`]).
    pub detail: [String; 2],
}

impl RegionScore {
    /// Positive favours the US.
    pub fn net(&self) -> i32 {
        self.vp[0] - self.vp[1]
    }
}

/// Score a region in the current position, with the scoring modifiers of the effects in play
/// (Formosan Resolution's Taiwan, Shuttle Diplomacy's ignored battleground).
pub fn score(p: Position, r: Region, when: ScoringTime) -> RegionScore {
    scored(p, r, when, true)
}

/// `score` without the words (`detail` left empty): the computer's evaluation, random play.
pub fn score_quiet(p: Position, r: Region, when: ScoringTime) -> RegionScore {
    scored(p, r, when, false)
}

fn scored(p: Position, r: Region, when: ScoringTime, explain: bool) -> RegionScore {
    let mods = if p.st.effects.is_empty() { Vec::new() } else { p.scoring_modifiers(r, when) };
    score_with(p, r, &mods, explain)
}

/// Score a region with the given scoring modifiers (an effect weighing a choice it offers:
/// which battleground Shuttle Diplomacy ignores), quietly.
pub fn score_with_modifiers(p: Position, r: Region, mods: &[ScoringModifier]) -> RegionScore {
    score_with(p, r, mods, false)
}

/// Each side's level in a region as the map stands, outside any scoring (Summit counts the
/// regions each side dominates or controls; scoring modifiers apply to scoring only).
pub fn levels_now(p: Position, r: Region) -> [Level; 2] {
    score_with(p, r, &[], false).level
}

/// The one scoring of a region; `explain` composes the words of `detail` (the log, the table).
fn score_with(p: Position, r: Region, mods: &[ScoringModifier], explain: bool) -> RegionScore {
    let st = p.st;
    let map = Map::standard();
    let mut bgs = map.battleground_mask() & map.region_mask(r);
    let mut notes = [Vec::<String>::new(), Vec::new()];
    for m in mods {
        if let ScoringModifier::ExtraBattleground { source, country, side } = *m {
            if map.region_mask(r) & country.bit() != 0 && st.controls(side, country) {
                bgs |= country.bit();
                if explain {
                    notes[side.idx()].push(format!("{} counts as a battleground ({})", map.name(country), p.cards().name(source)));
                }
            }
        }
    }
    let (presence, domination, control) = levels(r);
    let held = st.masks().control;
    let mut controlled = [held[0] & map.region_mask(r), held[1] & map.region_mask(r)];
    // A country ignored for a side contributes nothing to it: not its count, not its
    // battleground, not its adjacency bonus (Shuttle Diplomacy, FAQ).
    for m in mods {
        if let ScoringModifier::IgnoreCountry { source, side, country } = *m {
            let i = side.idx();
            if controlled[i] & country.bit() != 0 {
                controlled[i] &= !country.bit();
                if explain {
                    let what = if bgs & country.bit() != 0 { "one battleground is" } else { "one country is" };
                    notes[i].push(format!("{what} not counted ({})", p.cards().name(source)));
                }
            }
        }
    }
    let mut countries = [0u32; 2];
    let mut battlegrounds = [0u32; 2];
    for s in Side::BOTH {
        countries[s.idx()] = controlled[s.idx()].count_ones();
        battlegrounds[s.idx()] = (controlled[s.idx()] & bgs).count_ones();
    }
    let mut out = RegionScore { region: r, level: [Level::None; 2], vp: [0; 2], detail: [String::new(), String::new()] };
    for s in Side::BOTH {
        let (i, o) = (s.idx(), s.opponent().idx());
        let level = if countries[i] > countries[o] && battlegrounds[i] == bgs.count_ones() {
            Level::Control
        } else if countries[i] > countries[o]
            && battlegrounds[i] > battlegrounds[o]
            && battlegrounds[i] >= 1
            && countries[i] > battlegrounds[i]
        {
            Level::Domination
        } else if countries[i] >= 1 {
            Level::Presence
        } else {
            Level::None
        };
        let base = match level {
            Level::None => 0,
            Level::Presence => presence as i32,
            Level::Domination => domination as i32,
            Level::Control => control.unwrap_or(0) as i32,
        };
        // §10.1: +1 per controlled country adjacent to the enemy superpower.
        let adjacent = controlled[i] & map.superpower_mask(s.opponent());
        out.level[i] = level;
        out.vp[i] = base + battlegrounds[i] as i32 + adjacent.count_ones() as i32;
        if !explain {
            continue;
        }
        let adjacent: Vec<&str> = iter_mask(adjacent).map(|c| map.name(c)).collect();
        let bg_names: Vec<&str> = iter_mask(controlled[i] & bgs).map(|c| map.name(c)).collect();
        let mut d = format!("{level:?} {base}");
        if battlegrounds[i] > 0 {
            d.push_str(&format!(" + {} battleground ({})", battlegrounds[i], bg_names.join(", ")));
        }
        if !adjacent.is_empty() {
            d.push_str(&format!(" + {} adjacent to the {} ({})", adjacent.len(), s.opponent(), adjacent.join(", ")));
        }
        out.detail[i] = format!("{d} = {}", out.vp[i]);
        if !notes[i].is_empty() {
            out.detail[i].push_str(&format!(" [{}]", notes[i].join("; ")));
        }
    }
    out
}

/// Play a region's scoring (the scoring cards' events, and final scoring).
pub fn score_region(ctx: &mut Ctx, r: Region, when: ScoringTime) {
    let s = scored(ctx.pos(), r, when, ctx.logging);
    log!(ctx, "{r} scoring (§10.1): US {}; USSR {}", s.detail[0], s.detail[1]);
    if r == Region::Europe {
        if let Some(side) = Side::BOTH.into_iter().find(|x| s.level[x.idx()] == Level::Control) {
            ctx.exec(Instr::EndGame(Outcome { winner: Some(side), reason: EndReason::EuropeControl }));
            return;
        }
    }
    ctx.exec(Instr::VpNet(s.net()));
    ctx.emit(DomainEvent::RegionScored { region: r, final_scoring: when == ScoringTime::Final });
}

/// Southeast Asia Scoring: 1 VP per controlled country, 2 for Thailand, no tiers.
pub fn southeast_asia(st: &State) -> [i32; 2] {
    let map = Map::standard();
    static THAILAND: std::sync::OnceLock<crate::map::CountryId> = std::sync::OnceLock::new();
    let thailand = *THAILAND.get_or_init(|| map.id("Thailand"));
    let mut vp = [0; 2];
    for s in Side::BOTH {
        vp[s.idx()] = iter_mask(map.sub_mask(SubRegion::SoutheastAsia))
            .filter(|c| st.controls(s, *c))
            .map(|c| if c == thailand { 2 } else { 1 })
            .sum();
    }
    vp
}

pub fn score_southeast_asia(ctx: &mut Ctx) {
    let vp = southeast_asia(ctx.st);
    log!(ctx, "Southeast Asia scoring: US {}, USSR {}", vp[0], vp[1]);
    ctx.exec(Instr::VpNet(vp[0] - vp[1]));
}

/// §10.3.2: every region scored as if its card were played (Southeast Asia only inside Asia),
/// +1 VP to the China Card holder, then the VP total decides; no 20-VP threshold applies.
pub fn final_scoring(ctx: &mut Ctx) {
    ctx.log("=== Final scoring (§10.3.2) ===");
    for r in Region::ALL {
        score_region(ctx, r, ScoringTime::Final);
        if ctx.over() {
            return;
        }
    }
    let holder = ctx.st.china.holder;
    log!(ctx, "{holder} holds The China Card: +1 VP (card text)");
    ctx.exec(Instr::Vp { side: holder, n: 1 });
    let winner = match ctx.st.vp {
        v if v > 0 => Some(Side::Us),
        v if v < 0 => Some(Side::Ussr),
        _ => None,
    };
    ctx.exec(Instr::EndGame(Outcome { winner, reason: EndReason::FinalScoring }));
}
