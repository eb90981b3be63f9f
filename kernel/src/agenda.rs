//! The lazily unfolding work stack of the design: what remains to be done is a stack of tasks;
//! an automatic task runs (and may push more), a decision waits for a seat's move. A game's
//! flow implements [`Agenda`]; [`unfold`] runs it until the next decision that has a move, or
//! until the game stops.

/// A game's flow as a work stack.
pub trait Agenda {
    type Task;
    /// The tasks still to do, the next last.
    fn stack(&mut self) -> &mut Vec<Self::Task>;
    /// The next task, if any.
    fn top(&self) -> Option<&Self::Task>;
    /// Checked before each task: `true` stops the unfolding (the game is over, a fault).
    fn stopped(&mut self) -> bool;
    /// Does `t` wait for a seat's move?
    fn is_decision(&self, t: &Self::Task) -> bool;
    /// List the legal moves of the decision on top (asked while it is on the stack: a game may
    /// read its whole state) where the game keeps them, in its own form, written in place
    /// rather than returned (moved out and in again at every decision, they cost a game more
    /// than the unfolding); `true` if there is one: unfolding stops there.
    fn list(&mut self) -> bool;
    /// A decision with no legal move: the game says what happens instead (it is popped).
    fn no_moves(&mut self, t: Self::Task);
    /// Run automatic task `t` (popped); it may push tasks.
    fn run(&mut self, t: Self::Task);
}

/// Unfold `a` until a decision with at least one legal move (listed by [`Agenda::list`]), an
/// empty stack, or [`Agenda::stopped`].
pub fn unfold<A: Agenda>(a: &mut A) {
    loop {
        if a.stopped() {
            return;
        }
        let decision = match a.top() {
            None => return,
            Some(t) => a.is_decision(t),
        };
        if decision && a.list() {
            return;
        }
        let Some(t) = a.stack().pop() else { return };
        if decision {
            a.no_moves(t);
        } else {
            a.run(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A countdown: `Count(n)` pushes `Count(n - 1)` and logs; `Ask(k)` is a decision with `k`
    /// moves; a decision with none logs that it was skipped.
    #[derive(Debug, PartialEq)]
    enum T {
        Count(u8),
        Ask(u8),
    }

    #[derive(Default)]
    struct Flow {
        stack: Vec<T>,
        log: Vec<String>,
        moves: Vec<u8>,
        stop_at: Option<usize>,
    }

    impl Agenda for Flow {
        type Task = T;
        fn stack(&mut self) -> &mut Vec<T> {
            &mut self.stack
        }
        fn top(&self) -> Option<&T> {
            self.stack.last()
        }
        fn stopped(&mut self) -> bool {
            self.stop_at.is_some_and(|n| self.log.len() >= n)
        }
        fn is_decision(&self, t: &T) -> bool {
            matches!(t, T::Ask(_))
        }
        fn list(&mut self) -> bool {
            self.moves = match self.stack.last() {
                Some(T::Ask(k)) => (0..*k).collect(),
                _ => Vec::new(),
            };
            !self.moves.is_empty()
        }
        fn no_moves(&mut self, t: T) {
            self.log.push(format!("skipped {t:?}"));
        }
        fn run(&mut self, t: T) {
            if let T::Count(n) = t {
                self.log.push(format!("count {n}"));
                if n > 0 {
                    self.stack.push(T::Count(n - 1));
                }
            }
        }
    }

    #[test]
    fn automatic_tasks_unfold_until_a_decision_with_moves() {
        let mut f = Flow { stack: vec![T::Ask(2), T::Ask(0), T::Count(2)], ..Flow::default() };
        unfold(&mut f);
        assert_eq!(f.log, ["count 2", "count 1", "count 0", "skipped Ask(0)"]);
        assert_eq!(f.moves, [0, 1]);
        assert_eq!(f.stack, [T::Ask(2)], "the decision stays on top");
    }

    #[test]
    fn unfolding_stops_when_the_game_says_so() {
        let mut f = Flow { stack: vec![T::Count(5)], stop_at: Some(2), ..Flow::default() };
        unfold(&mut f);
        assert_eq!(f.log, ["count 5", "count 4"]);
        assert_eq!(f.stack, [T::Count(3)]);
    }
}
