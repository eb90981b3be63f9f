//! The search on two toy games: noughts and crosses (perfect information: it must win and
//! block) and a guess at a hidden card (it must not peek).

use super::*;
use crate::{Decision, Encodable, Outcome, Report, Viewer};
use pretty_assertions::assert_eq;

/// Noughts and crosses: seat 0 (X) moves first; a move is a square 0..9.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Noughts {
    board: [Option<u8>; 9],
    next: u8,
}

const LINES: [[usize; 3]; 8] = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];

impl Noughts {
    /// `x` and `o` are the squares each holds; X moves next when they hold as many.
    fn with(x: &[usize], o: &[usize]) -> Noughts {
        let mut board = [None; 9];
        x.iter().for_each(|&s| board[s] = Some(0));
        o.iter().for_each(|&s| board[s] = Some(1));
        Noughts { board, next: u8::from(x.len() > o.len()) }
    }
    fn winner(&self) -> Option<u8> {
        LINES.iter().find_map(|l| match l.map(|s| self.board[s]) {
            [Some(a), Some(b), Some(c)] if a == b && b == c => Some(a),
            _ => None,
        })
    }
}

impl Game for Noughts {
    type Move = u8;
    type View = [Option<u8>; 9];
    fn seats(&self) -> Vec<String> {
        vec!["X".into(), "O".into()]
    }
    fn decision(&self) -> Option<Decision> {
        self.outcome().is_none().then(|| Decision::turn(Seat(self.next), "your square"))
    }
    fn legal_moves(&self) -> Vec<u8> {
        if self.outcome().is_some() {
            return Vec::new();
        }
        (0..9).filter(|&s| self.board[s as usize].is_none()).collect()
    }
    fn play_as(&mut self, seat: Seat, m: &u8) -> Result<Report, Refusal> {
        if seat.0 != self.next || !self.legal_moves().contains(m) {
            return Err(Refusal::new("not a free square of the seat to move", "noughts"));
        }
        self.board[*m as usize] = Some(self.next);
        self.next = 1 - self.next;
        Ok(Report::default())
    }
    fn view(&self, _viewer: Viewer) -> [Option<u8>; 9] {
        self.board
    }
    fn state_hash(&self) -> u64 {
        crate::stable_hash(self)
    }
    fn outcome(&self) -> Option<Outcome> {
        match self.winner() {
            Some(w) => Some(Outcome::won_by(&[Seat(w)], 2, "end", "end")),
            None if self.board.iter().all(Option::is_some) => Some(Outcome::drawn(2, "end", "end")),
            None => None,
        }
    }
    fn move_text(&self, m: &u8) -> String {
        m.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<u8, Refusal> {
        text.parse().map_err(|_| Refusal::new("a square 0-8", "noughts"))
    }
}

impl Searchable for Noughts {
    /// Perfect information: the position itself.
    fn determinize(&self, _seat: Seat, _rng: &mut Randomness) -> Option<Noughts> {
        Some(self.clone())
    }
}

impl Encodable for Noughts {}

fn choose<G: Searchable>(g: &G, seat: Seat, iterations: u32, seed: u64, threads: usize) -> Thought<G::Move> {
    let seen = Seen::new(g, seat).unwrap();
    let budget = Budget { iterations, time: None, trees: Budget::TREES, threads, seed };
    think(&seen, &budget, &|_| {}).unwrap()
}

#[rstest::rstest]
// X to move: completes the top row.
#[case::wins_at_once(&[0, 1], &[3, 4], 0, 2)]
// O to move: X threatens the top row, O blocks.
#[case::blocks(&[0, 1, 8], &[4, 6], 1, 2)]
// X to move: only 8 completes a line (the diagonal 0-4-8).
#[case::finds_the_only_win(&[0, 4], &[1, 5], 0, 8)]
fn it_wins_and_blocks(#[case] x: &[usize], #[case] o: &[usize], #[case] seat: u8, #[case] best: u8) {
    let g = Noughts::with(x, o);
    assert_eq!(choose(&g, Seat(seat), 2_000, 7, 1).best, best);
}

#[test]
fn same_seed_and_iterations_same_thought_on_any_thread_count() {
    let g = Noughts::with(&[4], &[]);
    let one = choose(&g, Seat(1), 800, 42, 1);
    let two = choose(&g, Seat(1), 800, 42, 2);
    assert_eq!(one.weighed, two.weighed);
    assert_eq!(one.iterations, 800);
    // Another seed is another search (the statistics differ, whatever the move).
    assert_ne!(choose(&g, Seat(1), 800, 43, 1).weighed, one.weighed);
}

#[test]
fn a_single_move_is_played_without_search_and_others_are_refused() {
    let g = Noughts::with(&[0, 1, 5, 6], &[2, 3, 4, 8]);
    let t = choose(&g, Seat(0), 1_000, 1, 1);
    assert_eq!((t.best, t.iterations), (7, 0));
    let r = Seen::new(&g, Seat(1)).err().unwrap();
    assert!(r.reason.contains("its own decision"), "{r}");
}

/// Seat 1 holds a card 0, 1 or 2 that seat 0 may not see; seat 0 names one and wins if it is
/// the card. `honest`: the sampler draws the card; otherwise it copies it (a cheat).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Guess {
    card: u8,
    named: Option<u8>,
    honest: bool,
}

impl Game for Guess {
    type Move = u8;
    type View = Option<u8>;
    fn seats(&self) -> Vec<String> {
        vec!["guesser".into(), "holder".into()]
    }
    fn decision(&self) -> Option<Decision> {
        self.named.is_none().then(|| Decision::turn(Seat(0), "name the card"))
    }
    fn legal_moves(&self) -> Vec<u8> {
        if self.named.is_some() {
            Vec::new()
        } else {
            vec![0, 1, 2]
        }
    }
    fn play_as(&mut self, _seat: Seat, m: &u8) -> Result<Report, Refusal> {
        self.named = Some(*m);
        Ok(Report::default())
    }
    fn view(&self, viewer: Viewer) -> Option<u8> {
        (viewer == Some(Seat(1))).then_some(self.card)
    }
    fn state_hash(&self) -> u64 {
        crate::stable_hash(self)
    }
    fn outcome(&self) -> Option<Outcome> {
        let named = self.named?;
        let winner = Seat(u8::from(named != self.card));
        Some(Outcome::won_by(&[winner], 2, "named", "named"))
    }
    fn move_text(&self, m: &u8) -> String {
        m.to_string()
    }
    fn parse_move(&self, text: &str) -> Result<u8, Refusal> {
        text.parse().map_err(|_| Refusal::new("0, 1 or 2", "guess"))
    }
}

impl Searchable for Guess {
    fn determinize(&self, _seat: Seat, rng: &mut Randomness) -> Option<Guess> {
        let card = if self.honest { rng.pick(3).ok()? as u8 } else { self.card };
        Some(Guess { card, ..self.clone() })
    }
}

impl Encodable for Guess {}

/// What the search chose and why, for each hidden card.
fn thoughts(honest: bool) -> Vec<Thought<u8>> {
    (0..3).map(|card| choose(&Guess { card, named: None, honest }, Seat(0), 600, 5, 1)).collect()
}

#[test]
fn it_does_not_peek_and_the_check_catches_a_game_that_lets_it() {
    // The same view and seed: the same statistics and move, whatever the hidden card.
    let honest = thoughts(true);
    assert_eq!(honest[0], Thought { elapsed: honest[0].elapsed, ..honest[1].clone() });
    assert_eq!(honest[0], Thought { elapsed: honest[0].elapsed, ..honest[2].clone() });
    // A sampler that copies the hidden card leads the search to it every time: the check
    // above would fail for such a game.
    let cheat: Vec<u8> = thoughts(false).iter().map(|t| t.best).collect();
    assert_eq!(cheat, vec![0, 1, 2]);
}

#[test]
fn greedy_takes_the_win_in_front_of_it() {
    let g = Noughts::with(&[0, 1], &[3, 4]);
    assert_eq!(greedy(&Seen::new(&g, Seat(0)).unwrap(), 1, 3).unwrap(), 2);
}

#[rstest::rstest]
#[case("3", Ok(3))]
#[case("0", Err(()))]
#[case("6", Err(()))]
#[case("x", Err(()))]
fn levels_are_one_to_five(#[case] text: &str, #[case] want: Result<u8, ()>) {
    assert_eq!(text.parse::<Level>().map(Level::number).map_err(|_| ()), want);
}
