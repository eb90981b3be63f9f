//! Per-player views: what the US, the USSR or an observer may see. The other hand, the deck
//! order, a secret headline and the random source stay hidden.

use crate::card::CardId;
use crate::flow;
use crate::map::Map;
use crate::registry::Position;
use crate::side::Side;
use crate::state::Outcome;
use crate::task::Task;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PerSide<T> {
    pub us: T,
    pub ussr: T,
}

impl<T: Copy> PerSide<T> {
    pub fn of(a: [T; 2]) -> Self {
        PerSide { us: a[0], ussr: a[1] }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ChinaView {
    pub holder: Side,
    pub face_up: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EffectView {
    pub card: String,
    pub owner: Side,
    /// How long it lasts, in words.
    pub lasts: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    pub viewer: Option<Side>,
    pub turn: u8,
    pub action_round: u8,
    pub phasing: Side,
    pub defcon: u8,
    pub vp: i8,
    pub military_ops: PerSide<u8>,
    pub space_race: PerSide<u8>,
    pub influence: BTreeMap<String, PerSide<u8>>,
    pub china_card: ChinaView,
    /// The viewer's own hand (empty for an observer).
    pub hand: Vec<String>,
    /// Cards of the opponent's hand the viewer has been shown (CIA Created) and that are
    /// still there.
    pub opponent_known: Vec<String>,
    /// Cards in front of their owners while their effects last.
    pub table: Vec<String>,
    pub hand_sizes: PerSide<usize>,
    pub deck_size: usize,
    pub discard: Vec<String>,
    pub removed: Vec<String>,
    pub effects: Vec<EffectView>,
    /// Headline cards the viewer may see (its own, or both once revealed).
    pub headline: PerSide<Option<String>>,
    pub to_move: Option<Side>,
    pub prompt: Option<String>,
    pub outcome: Option<Outcome>,
}

impl View {
    pub fn new(p: Position, viewer: Option<Side>) -> View {
        let st = p.st;
        let map = Map::standard();
        let names = |cs: Vec<CardId>| cs.into_iter().map(|c| p.cards().name(c).to_string()).collect::<Vec<_>>();
        let top = st.stack.last().filter(|t| t.is_decision() && st.outcome.is_none());
        // A chosen headline is secret from the other side until both are revealed, unless that
        // side had to reveal it first (Man in Earth Orbit).
        let headline_secret = matches!(top, Some(Task::HeadlineChoose { .. }));
        let first = crate::headline::reveals_first(p);
        let seen = |s: Side| {
            let c = st.headline[s.idx()]?;
            (viewer == Some(s) || !headline_secret || first == Some(s)).then(|| p.cards().name(c).to_string())
        };
        View {
            viewer,
            turn: st.turn,
            action_round: st.round,
            phasing: st.phasing,
            defcon: st.defcon,
            vp: st.vp,
            military_ops: PerSide::of(st.mil_ops),
            space_race: PerSide::of(st.space),
            influence: map.ids().map(|c| (map.name(c).to_string(), PerSide::of(st.influence[c.idx()]))).collect(),
            china_card: ChinaView { holder: st.china.holder, face_up: st.china.face_up },
            hand: viewer.map(|s| names(st.hand(s).iter().collect())).unwrap_or_default(),
            opponent_known: viewer
                .map(|s| {
                    let o = s.opponent();
                    names(crate::card::CardSet(st.known[o.idx()].0 & st.hand(o).0).iter().collect())
                })
                .unwrap_or_default(),
            table: names(st.table.iter().collect()),
            hand_sizes: PerSide::of([st.hand(Side::Us).len(), st.hand(Side::Ussr).len()]),
            deck_size: st.deck.len(),
            discard: names(st.discard.iter().collect()),
            removed: names(st.removed.iter().collect()),
            effects: st
                .effects
                .iter()
                .map(|e| EffectView { card: p.cards().name(e.card).to_string(), owner: e.owner, lasts: e.expiry.text() })
                .collect(),
            headline: PerSide { us: seen(Side::Us), ussr: seen(Side::Ussr) },
            to_move: top.map(|t| flow::decider(p, t)),
            prompt: top.map(|t| flow::prompt(p, t).for_viewer(viewer, flow::decider(p, t))),
            outcome: st.outcome,
        }
    }
}
