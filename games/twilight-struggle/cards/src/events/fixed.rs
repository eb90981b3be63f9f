//! Mid War events that make a fixed list of changes (`shapes::FixedChanges`):
//! Portuguese Empire Crumbles (#52), Allende (#54), Panama Canal Returned (#64), Sadat Expels
//! Soviets (#72), and John Paul II Elected Pope (#68), whose marker stays in play and allows
//! Solidarity (card data: Solidarity `requires_any` it).

use super::ids::*;
use crate::shapes::{Change, FixedChanges, Who};
use arbiter_twilight::Ruleset;

pub fn register(r: &mut Ruleset) {
    let table: [(arbiter_twilight::CardId, &'static [Change], bool); 5] = [
        (PORTUGUESE_EMPIRE, &[Change::Add(Who::Owner, "SE African States", 2), Change::Add(Who::Owner, "Angola", 2)], false),
        (ALLENDE, &[Change::Add(Who::Owner, "Chile", 2)], false),
        (
            PANAMA_CANAL,
            &[Change::Add(Who::Owner, "Panama", 1), Change::Add(Who::Owner, "Costa Rica", 1), Change::Add(Who::Owner, "Venezuela", 1)],
            false,
        ),
        // "Remove all USSR Influence from Egypt and add 1 US Influence."
        (SADAT, &[Change::RemoveAll(Who::Opponent, "Egypt"), Change::Add(Who::Owner, "Egypt", 1)], false),
        // "Remove 2 USSR Influence from Poland and then add 1 US Influence to Poland."
        (JOHN_PAUL_II, &[Change::Remove(Who::Opponent, "Poland", 2), Change::Add(Who::Owner, "Poland", 1)], true),
    ];
    for (card, changes, lasting) in table {
        r.event(card, FixedChanges::new(card, changes, lasting));
    }
}
