//! No player's view, log, prompt or legal moves tells another's role or night choice before the
//! game reveals it, over random games of 5 to 15 players: a secret is tested by changing it.
//! For each position, the same game with the roles of two players the viewer cannot tell apart
//! swapped (and their choices redrawn) must read the same to the viewer: its view, its
//! observation for learning, its prompts, the moves it may make, and every line of the log and
//! every move text it may read.

use arbiter_kernel::{Encodable, Game, Randomness, Seat};
use arbiter_mafia::{Mafia, Move, Role};

/// A random game of `n` players played to its end; the moves in order.
fn random_game(n: u8, seed: u64) -> (Vec<Role>, Vec<(Seat, Move)>) {
    let (mut g, _) = Mafia::deal(n, &mut Randomness::seeded(seed)).unwrap();
    let roles: Vec<Role> = (0..n).map(|p| g.role(p)).collect();
    let mut rng = Randomness::seeded(seed ^ 0xfeed);
    let mut moves = Vec::new();
    while let Some(d) = g.decision() {
        let acting: Vec<Seat> = d.seats().collect();
        let s = acting[rng.pick(acting.len()).unwrap()];
        let legal = g.moves_for(s);
        let m = legal[rng.pick(legal.len()).unwrap()];
        g.play_as(s, &m).unwrap();
        moves.push((s, m));
    }
    (roles, moves)
}

/// What `viewer` reads of the game after `moves`: every log line for it, every move as the game
/// shows it, its view, the decision's prompt for it and its moves, after each move.
fn reading(roles: &[Role], moves: &[(Seat, Move)], viewer: Seat) -> Vec<String> {
    let mut g = Mafia::with_roles(roles.to_vec()).unwrap();
    let mut out = Vec::new();
    let mut texts: Vec<(Seat, String)> = Vec::new();
    for (s, m) in moves {
        let r = g.play_as(*s, m).unwrap();
        texts.push((*s, g.move_text(m)));
        out.extend(r.lines_for(Some(viewer)).map(String::from));
        let n = texts.len();
        for (i, (by, t)) in texts.iter().enumerate() {
            out.push(g.hidden_move(t, *by, n - 1 - i, Some(viewer)).unwrap_or_else(|| t.clone()));
        }
        out.push(serde_json::to_string(&Game::view(&g, Some(viewer))).unwrap());
        let mut obs = vec![0.0f32; g.observation_len()];
        g.observe(viewer, &mut obs);
        out.push(format!("{obs:?}"));
        out.push(format!("{:?} {:?}", g.decision().map(|d| d.prompt(viewer).map(String::from)), g.moves_for(viewer)));
    }
    out
}

/// Night 1, the roles: two players a viewer cannot tell apart (any two others to a villager;
/// two of the village to a Mafioso) dealt each other's roles, with the moves they have made
/// tonight redrawn for their new roles, read the same to the viewer.
#[test]
fn no_seat_reads_another_role_before_the_game_reveals_it() {
    let mut checked = 0;
    for n in 5..=15u8 {
        for seed in 0..2u64 {
            let (roles, moves) = random_game(n, seed * 31 + u64::from(n));
            for cut in [0, usize::from(n) / 2, usize::from(n) - 1] {
                let moves = &moves[..cut];
                for viewer in 0..n {
                    let mine = roles[usize::from(viewer)];
                    let blind = |p: u8| p != viewer && !(mine == Role::Mafioso && roles[usize::from(p)] == Role::Mafioso);
                    let others: Vec<u8> = (0..n).filter(|p| blind(*p)).collect();
                    for (&a, &b) in others.iter().zip(others.iter().skip(1)) {
                        if roles[usize::from(a)] == roles[usize::from(b)] {
                            continue;
                        }
                        let mut swapped = roles.clone();
                        swapped.swap(usize::from(a), usize::from(b));
                        let Some(redone) = replay_with(&swapped, moves, &[a, b]) else { continue };
                        assert_eq!(
                            reading(&roles, moves, Seat(viewer)),
                            reading(&swapped, &redone, Seat(viewer)),
                            "{n} players, seed {seed}: player {} tells the roles of players {} and {} apart",
                            viewer + 1,
                            a + 1,
                            b + 1
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 300, "{checked} comparisons");
}

/// Every step, the choices: another player's choice at the step now, made otherwise, reads the
/// same to a viewer until the step resolves (a Mafioso sees its fellows' kill choices).
#[test]
fn no_seat_reads_another_choice_before_the_step_resolves() {
    let mut checked = 0;
    for n in 5..=15u8 {
        for seed in 0..2u64 {
            let (roles, moves) = random_game(n, seed * 17 + u64::from(n));
            let mut g = Mafia::with_roles(roles.clone()).unwrap();
            for cut in 0..moves.len() {
                // Inside a step: the next move does not resolve it (someone else is still to act).
                let (s, m) = moves[cut];
                let pending = g.decision().map(|d| d.seats().count()).unwrap_or(0);
                if pending > 1 {
                    let others: Vec<Move> = g.moves_for(s).into_iter().filter(|x| *x != m).collect();
                    if let Some(&other) = others.first() {
                        let mut changed = moves[..=cut].to_vec();
                        changed[cut].1 = other;
                        for viewer in (0..n).map(Seat).filter(|v| *v != s) {
                            let mates =
                                roles[usize::from(viewer.0)] == Role::Mafioso && roles[usize::from(s.0)] == Role::Mafioso && m.is_night();
                            if mates {
                                continue;
                            }
                            assert_eq!(
                                reading(&roles, &moves[..=cut], viewer),
                                reading(&roles, &changed, viewer),
                                "{n} players, seed {seed}, move {cut}: player {} reads player {}'s choice {} (not {})",
                                viewer.0 + 1,
                                s.0 + 1,
                                m.text(),
                                other.text()
                            );
                            checked += 1;
                        }
                    }
                }
                g.play_as(s, &m).unwrap();
            }
        }
    }
    assert!(checked > 1000, "{checked} comparisons");
}
/// `moves` replayed on `roles`, the night moves of `redrawn` replaced by the first move their
/// roles may make; `None` when a move of another player no longer fits.
fn replay_with(roles: &[Role], moves: &[(Seat, Move)], redrawn: &[u8]) -> Option<Vec<(Seat, Move)>> {
    let mut g = Mafia::with_roles(roles.to_vec()).unwrap();
    let mut out = Vec::new();
    for (s, m) in moves {
        let m = if redrawn.contains(&s.0) && m.is_night() { *g.moves_for(*s).first()? } else { *m };
        g.play_as(*s, &m).ok()?;
        out.push((*s, m));
    }
    Some(out)
}
