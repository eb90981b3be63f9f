//! The night's resolution once every living player has acted (RULINGS.md M03–M07): the
//! Mafia's kill is settled among their choices, then each action is about to happen in the
//! order of its priority, and the effects in play are asked "any objections?" through the
//! kernel's interception ([`arbiter_kernel::effects::first_objection`]): a roleblock cancels
//! the blocked player's action before it happens, the Doctor's protection cancels a kill on
//! the protected player. A death is raised as an event and reacted to until quiet (its role
//! revealed).

use crate::moves::{Move, Player};
use crate::roles::Role;
use crate::{name, Mafia};
use arbiter_kernel::effects::{first_objection, Reactions, Verdict};
use arbiter_kernel::{Audience, Report, Seat};

/// A night action, about to happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    Block { by: Player, target: Player },
    Protect { by: Player, target: Player },
    Investigate { by: Player, target: Player },
    Kill { by: Player, target: Player },
}

impl Action {
    fn by(self) -> Player {
        match self {
            Action::Block { by, .. } | Action::Protect { by, .. } | Action::Investigate { by, .. } | Action::Kill { by, .. } => by,
        }
    }
}

/// An effect in play tonight, entered by an action that happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// The player's own action is cancelled (M05).
    Blocked(Player),
    /// A kill on the player is cancelled (M06).
    Protected(Player),
}

/// Who answers first when both object: a blocked killer is blocked, whether or not its target
/// is protected (M07).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ward {
    Block,
    Protection,
}

fn ward(e: &Effect) -> Ward {
    match e {
        Effect::Blocked(_) => Ward::Block,
        Effect::Protected(_) => Ward::Protection,
    }
}

fn answer(e: &Effect, a: Action) -> Verdict<()> {
    match *e {
        Effect::Blocked(p) if a.by() == p => Verdict::Cancel("was roleblocked".into()),
        Effect::Blocked(_) => Verdict::Allow,
        Effect::Protected(p) => match a {
            Action::Kill { target, .. } if target == p => Verdict::Cancel("was protected by the Doctor".into()),
            Action::Kill { .. } | Action::Block { .. } | Action::Protect { .. } | Action::Investigate { .. } => Verdict::Allow,
        },
    }
}

/// A night move as the action it is, with its place in the night's order (M07); `None` for a
/// move that is no action (a Villager's sleep; the Mafia's kill is settled among their choices).
fn action(by: Player, m: Move) -> Option<(u8, Action)> {
    match m {
        Move::Block(target) => Some((0, Action::Block { by, target })),
        Move::Protect(target) => Some((1, Action::Protect { by, target })),
        Move::Investigate(target) => Some((2, Action::Investigate { by, target })),
        Move::Kill(_) | Move::Sleep | Move::Vote(_) | Move::Skip | Move::Leave => None,
    }
}

/// An event the night's reactions hear.
enum Event {
    Died(Player),
}

/// The Mafia's kill among their choices (M04): the target most of the living Mafia chose; a tie
/// goes to the target of the lowest-numbered Mafioso among those who chose a tied target. The
/// kill is carried out by the lowest-numbered Mafioso who chose it.
pub(crate) fn settle_kill(g: &Mafia) -> Option<(Player, Player)> {
    let choices: Vec<(Player, Player)> = g
        .living()
        .filter(|p| g.roles[usize::from(*p)] == Role::Mafioso)
        .filter_map(|p| if let Some(Move::Kill(t)) = g.choices[usize::from(p)] { Some((p, t)) } else { None })
        .collect();
    let votes = |t: Player| choices.iter().filter(|(_, x)| *x == t).count();
    let most = choices.iter().map(|(_, t)| votes(*t)).max()?;
    // In seat order: the first Mafioso whose target has the most votes.
    let &(by, target) = choices.iter().find(|(_, t)| votes(*t) == most)?;
    Some((by, target))
}

/// Resolve the night: actions in the order Block, Protect, Investigate, Kill.
pub(crate) fn resolve(g: &mut Mafia, report: &mut Report) {
    let night = g.round;
    let mut ordered: Vec<(u8, Player, Action)> =
        g.living().filter_map(|p| g.choices[usize::from(p)].and_then(|m| action(p, m)).map(|(k, a)| (k, p, a))).collect();
    ordered.sort_by_key(|(k, p, _)| (*k, *p));
    let mut actions: Vec<Action> = ordered.into_iter().map(|(_, _, a)| a).collect();
    let kill = settle_kill(g);
    if let Some((by, target)) = kill {
        actions.push(Action::Kill { by, target });
        let mafia: Vec<Player> = g.living().filter(|p| g.roles[usize::from(*p)] == Role::Mafioso).collect();
        for m in &mafia {
            say(report, *m, format!("The Mafia's kill falls on {}, carried out by {}.", name(target), name(by)));
        }
    }
    let mut effects: Vec<Effect> = Vec::new();
    let mut protected_now = None;
    let mut died: Option<Player> = None;
    // Players already told their action was blocked.
    let mut blocked: Vec<Player> = Vec::new();
    for a in actions {
        if let Some((&effect, _)) = first_objection(effects.iter(), |e| ward(e), |e| answer(e, a)) {
            cancelled(g, report, a, effect);
            if matches!(effect, Effect::Blocked(_)) {
                blocked.push(a.by());
            }
            continue;
        }
        match a {
            Action::Block { by, target } => {
                effects.push(Effect::Blocked(target));
                say(report, by, format!("You blocked {} tonight.", name(target)));
            }
            Action::Protect { by, target } => {
                effects.push(Effect::Protected(target));
                protected_now = Some(target);
                say(report, by, format!("You protected {} tonight.", name(target)));
            }
            Action::Investigate { by, target } => {
                let mafia = g.roles[usize::from(target)] == Role::Mafioso;
                g.findings.push((night, target, mafia));
                say(report, by, format!("Your investigation: {} is {}.", name(target), if mafia { "Mafia" } else { "not Mafia" }));
            }
            // M11: a target who left the game during the night is dead already.
            Action::Kill { target, .. } if !g.is_alive(target) => {
                for m in g.living().filter(|p| g.roles[usize::from(*p)] == Role::Mafioso) {
                    say(report, m, format!("The kill on {} failed: {} had left the game.", name(target), name(target)));
                }
            }
            Action::Kill { target, .. } => died = Some(target),
        }
    }
    // A blocked player who had no action to block still learns it was blocked (M05).
    for p in g.living().collect::<Vec<_>>() {
        if effects.contains(&Effect::Blocked(p)) && !blocked.contains(&p) {
            say(report, p, "You were roleblocked tonight.".into());
        }
    }
    g.last_protected = protected_now;
    report.public(format!("Day {night} dawns."));
    let mut reactions = Reactions::default();
    match died {
        Some(p) => reactions.raise(Event::Died(p)),
        None => report.public("Nobody died in the night."),
    }
    if reactions.begin() {
        while let Some(Event::Died(p)) = reactions.next() {
            g.alive[usize::from(p)] = false;
            report.public(format!("{} was killed in the night: {} was {}.", name(p), name(p), g.roles[usize::from(p)].name()));
        }
    }
}

/// Why `a` did not happen (cancelled by `effect`), to the players who may know (M05, M06).
fn cancelled(g: &Mafia, report: &mut Report, a: Action, effect: Effect) {
    match a {
        Action::Kill { by, target } => {
            for m in g.living().filter(|p| g.roles[usize::from(*p)] == Role::Mafioso) {
                say(report, m, format!("The kill on {} failed.", name(target)));
            }
            match effect {
                Effect::Blocked(_) => say(report, by, "You were roleblocked tonight: you could not carry out the kill.".into()),
                Effect::Protected(_) => {
                    if let Some(doctor) = g.living().find(|p| g.roles[usize::from(*p)] == Role::Doctor) {
                        say(report, doctor, format!("Your protection saved {} from the Mafia.", name(target)));
                    }
                }
            }
        }
        // Only a block objects to these.
        Action::Protect { by, .. } => say(report, by, "You were roleblocked tonight: you protected nobody.".into()),
        Action::Investigate { by, .. } => say(report, by, "You were roleblocked tonight: your investigation found nothing.".into()),
        Action::Block { by, .. } => say(report, by, "You were roleblocked tonight.".into()),
    }
}

fn say(report: &mut Report, to: Player, text: String) {
    report.log.push(arbiter_kernel::LogLine { to: Audience::Seat(Seat(to)), text });
}
