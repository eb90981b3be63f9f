//! The roles, their sides and the deal (RULINGS.md M01).

use serde::{Deserialize, Serialize};

/// The side a role plays for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Team {
    Village,
    Mafia,
}

impl Team {
    pub fn name(self) -> &'static str {
        match self {
            Team::Village => "the village",
            Team::Mafia => "the Mafia",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Role {
    Mafioso,
    Doctor,
    Cop,
    Roleblocker,
    Villager,
}

impl Role {
    pub fn team(self) -> Team {
        match self {
            Role::Mafioso => Team::Mafia,
            Role::Doctor | Role::Cop | Role::Roleblocker | Role::Villager => Team::Village,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Role::Mafioso => "Mafia",
            Role::Doctor => "the Doctor",
            Role::Cop => "the Cop",
            Role::Roleblocker => "the Roleblocker",
            Role::Villager => "a Villager",
        }
    }
}

/// The fewest and most players.
pub const MIN_PLAYERS: u8 = 5;
pub const MAX_PLAYERS: u8 = 15;

/// The roles of a game of `players` (before they are dealt): one Mafioso for every four
/// players, at least one; a Doctor and a Cop; a Roleblocker from seven players; Villagers for
/// the rest (M01).
pub fn roles_for(players: u8) -> Vec<Role> {
    let mafia = (players / 4).max(1);
    let mut roles = vec![Role::Mafioso; usize::from(mafia)];
    roles.extend([Role::Doctor, Role::Cop]);
    if players >= 7 {
        roles.push(Role::Roleblocker);
    }
    while roles.len() < usize::from(players) {
        roles.push(Role::Villager);
    }
    roles
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(5, 1, false)]
    #[case(6, 1, false)]
    #[case(7, 1, true)]
    #[case(8, 2, true)]
    #[case(11, 2, true)]
    #[case(12, 3, true)]
    #[case(15, 3, true)]
    fn one_mafioso_for_every_four_players(#[case] players: u8, #[case] mafia: usize, #[case] roleblocker: bool) {
        let r = roles_for(players);
        assert_eq!(r.len(), usize::from(players));
        assert_eq!(r.iter().filter(|x| **x == Role::Mafioso).count(), mafia);
        assert_eq!(r.contains(&Role::Roleblocker), roleblocker);
        assert_eq!((r.iter().filter(|x| **x == Role::Doctor).count(), r.iter().filter(|x| **x == Role::Cop).count()), (1, 1));
    }
}
