//! Ordered modifier pipelines: a base value, then modifiers applied in a game-defined stage
//! order (and, within a stage, in the order given, e.g. the order their effects entered play).
//! Each modifier adds to the value; its cap or floor bounds *that step only*: a cap never lowers
//! a value already above it, a floor never raises one already below it. The result keeps a
//! trace of every step, for the log ("3 (card) +1 a bonus = 4; -1 a penalty (min 1) = 3").
//!
//! A game's modifier is its own type (who benefits, when it applies, where it comes from): it
//! tells the pipeline only its stage, its amount and its bounds ([`Modifier`]).

use std::fmt;

/// What a pipeline needs to know of a modifier.
pub trait Modifier {
    /// The stage it applies in; stages apply in the order the game lists them.
    type Stage: PartialEq + Copy;
    fn stage(&self) -> Self::Stage;
    fn add(&self) -> i32;
    /// This step may not raise the value above this (unless it already was).
    fn cap(&self) -> Option<i32> {
        None
    }
    /// This step may not lower the value below this (unless it already was).
    fn floor(&self) -> Option<i32> {
        None
    }
}

/// One bounded step: `value + add`, bounded by `cap` and `floor` for this step only.
#[inline]
pub fn bounded(value: i32, add: i32, cap: Option<i32>, floor: Option<i32>) -> i32 {
    let mut next = value + add;
    if let Some(cap) = cap {
        next = next.min(cap.max(value));
    }
    if let Some(floor) = floor {
        next = next.max(floor.min(value));
    }
    next
}

/// Fold `mods` over `base`, stage by stage in `stages` order; `step` sees each modifier with
/// its actual change and the value after it. Modifiers of a stage not listed never apply.
#[inline]
pub fn fold<'m, M: Modifier + 'm>(
    base: i32,
    stages: &[M::Stage],
    mods: impl Iterator<Item = &'m M> + Clone,
    mut step: impl FnMut(&M, i32, i32),
) -> i32 {
    let mut v = base;
    for stage in stages {
        for m in mods.clone().filter(|m| m.stage() == *stage) {
            let next = bounded(v, m.add(), m.cap(), m.floor());
            step(m, next - v, next);
            v = next;
        }
    }
    v
}

/// One step of a trace: "+1 a bonus = 4".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub label: String,
    pub delta: i32,
    pub value: i32,
}

/// A value with the trace of how it was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    pub base: i32,
    /// What the base is ("card", "die").
    pub base_label: &'static str,
    pub steps: Vec<Step>,
    pub value: i32,
}

impl fmt::Display for Traced {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.base, self.base_label)?;
        for (i, s) in self.steps.iter().enumerate() {
            let sep = if i == 0 { " " } else { "; " };
            write!(f, "{sep}{:+} {} = {}", s.delta, s.label, s.value)?;
        }
        if self.steps.is_empty() {
            write!(f, " = {}", self.value)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Stage {
        Bonus,
        Penalty,
    }

    struct M(Stage, i32, Option<i32>, Option<i32>, &'static str);

    impl Modifier for M {
        type Stage = Stage;
        fn stage(&self) -> Stage {
            self.0
        }
        fn add(&self) -> i32 {
            self.1
        }
        fn cap(&self) -> Option<i32> {
            self.2
        }
        fn floor(&self) -> Option<i32> {
            self.3
        }
    }

    fn traced(base: i32, mods: &[M]) -> Traced {
        let mut steps = Vec::new();
        let value = fold(base, &[Stage::Bonus, Stage::Penalty], mods.iter(), |m, delta, value| {
            steps.push(Step { label: m.4.into(), delta, value })
        });
        Traced { base, base_label: "card", steps, value }
    }

    /// Stages apply in the listed order whatever the order given: a bonus before a penalty with
    /// a floor (1 + 1 - 1 = 1, not max(1, 1 - 1) + 1 = 2).
    #[test]
    fn stages_apply_in_order_and_bounds_hold_for_their_step_only() {
        let mods = [M(Stage::Penalty, -1, None, Some(1), "penalty"), M(Stage::Bonus, 1, None, None, "bonus")];
        let t = traced(1, &mods);
        assert_eq!(t.value, 1);
        assert_eq!(t.to_string(), "1 (card) +1 bonus = 2; -1 penalty = 1");
        // A floor never raises a value already below it; a cap never lowers one above it.
        assert_eq!(bounded(0, -1, None, Some(1)), 0);
        assert_eq!(bounded(5, 1, Some(4), None), 5);
        assert_eq!(bounded(3, 2, Some(4), None), 4);
        assert_eq!(traced(2, &[]).to_string(), "2 (card) = 2");
    }
}
