//! Effects in play, as the design has them: before something happens, each effect is asked
//! "I'm about to do X, any objections?" and may allow it, cancel it or replace it
//! ([`Verdict`]), with priorities ([`Priority`]); after something happens, the effects react,
//! one event at a time, until quiet ([`Reactions`]). A game keeps its effects and what they do;
//! these are the protocols, the same for every game.

use std::collections::VecDeque;

/// An effect's answer to something about to happen. `T` is what the game does instead (its
/// tasks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict<T> {
    Allow,
    /// It does not happen, and why (a phrase the game logs after the effect's name).
    Cancel(String),
    /// It does not happen; these happen instead. The reason as for `Cancel`.
    Replace(Vec<T>, String),
}

/// When an effect answers, among the effects in play, for a game whose effects need two
/// groups (each group in the order its effects entered play). A game may rank its effects by
/// any ordered type of its own instead ([`first_objection`] takes any).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Priority {
    /// First: obligations that narrow what happens, so that what replaces it sees the narrowed
    /// form.
    Narrow,
    /// Then: effects that cancel or replace it.
    Replace,
}

/// The objection that counts among `effects` (in the order they entered play) to something
/// about to happen: the one of the first priority (the least, by `P`'s order) among those that
/// object, and among those the first in play. `answer` is asked of an effect only while its
/// answer could still count (once one has objected, no effect of a later or equal priority
/// is asked), so this is one pass over the effects. `None`: all allow it.
pub fn first_objection<E, T, P: Ord>(
    effects: impl IntoIterator<Item = E>,
    mut priority: impl FnMut(&E) -> P,
    mut answer: impl FnMut(&E) -> Verdict<T>,
) -> Option<(E, Verdict<T>)> {
    let mut found: Option<(P, E, Verdict<T>)> = None;
    for e in effects {
        let p = priority(&e);
        if found.as_ref().is_some_and(|(q, _, _)| p >= *q) {
            continue;
        }
        match answer(&e) {
            Verdict::Allow => {}
            v => found = Some((p, e, v)),
        }
    }
    found.map(|(_, e, v)| (e, v))
}

/// Reactions until quiet: events are handled one at a time in the order they happened; an
/// event raised while reacting waits for its turn instead of being handled inside another
/// event's reactions.
#[derive(Clone, Debug)]
pub struct Reactions<Ev> {
    queue: VecDeque<Ev>,
    reacting: bool,
}

impl<Ev> Default for Reactions<Ev> {
    fn default() -> Self {
        Reactions { queue: VecDeque::new(), reacting: false }
    }
}

impl<Ev> Reactions<Ev> {
    /// Something happened.
    #[inline]
    pub fn raise(&mut self, ev: Ev) {
        self.queue.push_back(ev);
    }

    /// Start handling what was raised: `false` while already handling (the caller is a
    /// reaction; the outer loop will reach the new events).
    #[inline]
    pub fn begin(&mut self) -> bool {
        !std::mem::replace(&mut self.reacting, true)
    }

    /// How many events wait to be handled.
    #[inline]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Neither handling an event nor holding one: an event raised now is the next handled, by
    /// the game's next handling, before any reaction runs (a game may leave out one that no
    /// effect it has in play could hear).
    #[inline]
    pub fn is_idle(&self) -> bool {
        !self.reacting && self.queue.is_empty()
    }

    /// Forget anything pending, keeping the queue's allocation: a game may keep one queue from
    /// move to move instead of allocating one for every move.
    pub fn clear(&mut self) {
        self.queue.clear();
        self.reacting = false;
    }

    /// The next event to react to; `None` when quiet (handling then ends).
    #[inline]
    pub fn next(&mut self) -> Option<Ev> {
        let ev = self.queue.pop_front();
        if ev.is_none() {
            self.reacting = false;
        }
        ev
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(effects: &[(char, Priority, Verdict<u8>)]) -> (Option<(char, Verdict<u8>)>, String) {
        let mut asked = String::new();
        let found = first_objection(
            effects.iter(),
            |e| e.1,
            |e| {
                asked.push(e.0);
                e.2.clone()
            },
        );
        (found.map(|(e, v)| (e.0, v)), asked)
    }

    #[test]
    fn a_narrowing_effect_answers_before_any_replacement_in_one_pass() {
        use Priority::*;
        let cancel = |s: &str| Verdict::Cancel(s.to_string());
        // The replacement entered play first; the obligation still answers first.
        let effects = [
            ('a', Replace, cancel("traps it")),
            ('b', Replace, cancel("never asked")),
            ('c', Narrow, Verdict::Replace(vec![7], "narrows it".into())),
        ];
        assert_eq!(ask(&effects), (Some(('c', Verdict::Replace(vec![7], "narrows it".into()))), "ac".to_string()));
        // No narrowing objection: the first replacement, and later replacements are not asked.
        let effects = [('a', Narrow, Verdict::Allow), ('b', Replace, cancel("first")), ('c', Replace, cancel("second"))];
        assert_eq!(ask(&effects), (Some(('b', cancel("first"))), "ab".to_string()));
        // All allow.
        assert_eq!(ask(&[('a', Replace, Verdict::Allow)]), (None, "a".to_string()));
    }

    #[test]
    fn reactions_run_in_order_and_never_inside_one_another() {
        let mut r = Reactions::default();
        let mut handled = Vec::new();
        r.raise(1);
        assert!(r.begin());
        while let Some(ev) = r.next() {
            handled.push(ev);
            if ev == 1 {
                // A reaction raises two more: they wait for their turn.
                r.raise(2);
                r.raise(3);
                assert!(!r.begin(), "already handling");
            }
        }
        assert_eq!(handled, [1, 2, 3]);
        assert!(r.begin(), "quiet again: the next event starts a new round");
    }
}
