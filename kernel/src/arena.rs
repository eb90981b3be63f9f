//! The arena (`arbiter arena`, and `arbiter.arena` in Python): two agents play a game against
//! each other, and the strength of one against the other is measured: wins, losses, draws, the
//! Elo difference with its 95% confidence interval, how the games ended, and the time each
//! agent takes per decision. In a game of `n` seats, game `i` uses seed `S + i` and agent `a`
//! plays seat `i % n`, agent `b` every other seat (two seats: each pair of games with the seats
//! swapped), so the result does not depend on the thread count. A game counts as `a`'s win when
//! `a`'s seat won (alone or with its side), as `b`'s when it lost, else as a draw.
//!
//! Agents are the kernel's ([`Agent`]): `random`, `greedy`, `computer[:LEVEL]`. Each decision
//! of game `i` is made with a seed drawn from `S + i`, the agent and the decision's number: the
//! same command gives the same games.

use crate::search::{Agent, Plan};
use crate::{GameKind, Seat};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// One agent's share of the games.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct AgentStats {
    pub agent: String,
    pub decisions: u64,
    /// Mean time per decision, in microseconds.
    pub micros_per_decision: f64,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct ArenaResult {
    pub game: String,
    pub games: u64,
    pub seed: u64,
    pub threads: usize,
    pub a_wins: u64,
    pub b_wins: u64,
    pub draws: u64,
    /// `a`'s score: (wins + draws / 2) / games.
    pub a_score: f64,
    /// `a`'s Elo advantage over `b`, with its 95% confidence interval; `null` where infinite
    /// (a won or lost every game: see `elo_bound`).
    pub elo: Option<f64>,
    pub elo_low: Option<f64>,
    pub elo_high: Option<f64>,
    /// At 100% or 0%: the one-sided 95% bound on the Elo difference (Wilson).
    pub elo_bound: Option<f64>,
    /// How the games ended (the game's own names), and how many each way.
    pub end_reasons: BTreeMap<String, u64>,
    /// The same for the games `a` won, and for those `b` won.
    pub a_won_by: BTreeMap<String, u64>,
    pub b_won_by: BTreeMap<String, u64>,
    pub a: AgentStats,
    pub b: AgentStats,
}

/// The two-sided 95% normal quantile.
const Z: f64 = 1.959_963_984_540_054;

fn elo_of(score: f64) -> f64 {
    400.0 * (score / (1.0 - score)).log10()
}

/// Elo difference, its 95% interval (clipped to scores strictly between 0 and 1), and at a
/// score of 0 or 1 the one-sided Wilson bound instead: (elo, low, high, bound).
pub fn elo(wins: u64, draws: u64, losses: u64) -> (Option<f64>, Option<f64>, Option<f64>, Option<f64>) {
    let n = (wins + draws + losses) as f64;
    if n == 0.0 {
        return (None, None, None, None);
    }
    let s = (wins as f64 + draws as f64 / 2.0) / n;
    if s >= 1.0 || s <= 0.0 {
        // No finite estimate: at least (or at most) this much, with 95% confidence.
        let s_lo = n / (n + Z * Z);
        let bound = elo_of(s_lo);
        return (None, None, None, Some(if s >= 1.0 { bound } else { -bound }));
    }
    let var = (wins as f64 * (1.0 - s).powi(2) + draws as f64 * (0.5 - s).powi(2) + losses as f64 * s.powi(2)) / n;
    let se = (var / n).sqrt();
    let clip = |x: f64| x.clamp(f64::EPSILON, 1.0 - f64::EPSILON);
    (Some(elo_of(s)), Some(elo_of(clip(s - Z * se))), Some(elo_of(clip(s + Z * se))), None)
}

/// The result of one game, seen from agent `a`.
struct Played {
    /// 1: `a` won, 0: `b` won, `None`: a draw.
    a_won: Option<bool>,
    reason: String,
    /// Decisions and time of `a`, then of `b`.
    decisions: [u64; 2],
    time: [Duration; 2],
}

fn play_one(kind: &dyn GameKind, options: &serde_json::Value, seed: u64, agents: [Agent; 2], i: u64) -> Result<Played, String> {
    let (mut game, _) = kind.create(options, seed).map_err(|r| r.to_string())?;
    // Agent `a` plays seat i % n.
    let a_seat = Seat((i % game.seats().len().max(1) as u64) as u8);
    let (mut decisions, mut time) = ([0u64; 2], [Duration::ZERO; 2]);
    while game.outcome().is_none() {
        let Some(decision) = game.decision() else { return Err(format!("game {i}: no decision and no outcome")) };
        // One seat at a time, the first of the decision: at a simultaneous step each agent
        // sees only its own seat's view, so the order tells it nothing.
        let seat = decision.first().seat;
        let who = usize::from(seat != a_seat);
        let started = Instant::now();
        let plan = Plan::new(agents[who], crate::stable_hash(&(seed, who, decisions[who])));
        let m = game.computer().agent_move(seat, &plan, &|_| {}).map_err(|r| format!("game {i}: {} could not move: {r}", agents[who]))?;
        time[who] += started.elapsed();
        decisions[who] += 1;
        game.play(seat, &m).map_err(|r| format!("game {i}: {}'s move {m:?} was refused: {r}", agents[who]))?;
    }
    let outcome = game.outcome().ok_or("no outcome")?;
    let a_won = match outcome.result(a_seat) {
        Some(crate::SeatResult::Won) => Some(true),
        Some(crate::SeatResult::Lost) => Some(false),
        _ => None,
    };
    Ok(Played { a_won, reason: outcome.reason, decisions, time })
}

/// Play `games` games of `kind` with `options` (the kind's defaults where `null`) between `a`
/// and `b` on `threads` threads.
pub fn run(
    kind: &'static dyn GameKind,
    options: &serde_json::Value,
    games: u64,
    a: Agent,
    b: Agent,
    seed: u64,
    threads: usize,
) -> Result<ArenaResult, String> {
    let options = if options.is_null() { kind.default_options() } else { options.clone() };
    let (probe, _) = kind.create(&options, seed).map_err(|r| r.to_string())?;
    if probe.seats().len() < 2 {
        return Err(format!("the arena pits two agents against each other: {} has {} seat(s)", kind.title(), probe.seats().len()));
    }
    let agents = [a, b];
    let results: Vec<Result<Played, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let options = &options;
                scope.spawn(move || {
                    (t..games).step_by(threads).map(|i| (i, play_one(kind, options, seed.wrapping_add(i), agents, i))).collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(u64, Result<Played, String>)> =
            handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|_| vec![(0, Err("a thread of the arena failed".into()))])).collect();
        all.sort_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, r)| r).collect()
    });
    let (mut a_wins, mut b_wins, mut draws) = (0, 0, 0);
    let (mut end_reasons, mut a_won_by, mut b_won_by) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
    let (mut decisions, mut time) = ([0u64; 2], [Duration::ZERO; 2]);
    for r in results {
        let p = r?;
        match p.a_won {
            Some(true) => {
                a_wins += 1;
                *a_won_by.entry(p.reason.clone()).or_insert(0) += 1;
            }
            Some(false) => {
                b_wins += 1;
                *b_won_by.entry(p.reason.clone()).or_insert(0) += 1;
            }
            None => draws += 1,
        }
        *end_reasons.entry(p.reason).or_insert(0) += 1;
        for k in 0..2 {
            decisions[k] += p.decisions[k];
            time[k] += p.time[k];
        }
    }
    let stats = |k: usize| AgentStats {
        agent: agents[k].to_string(),
        decisions: decisions[k],
        micros_per_decision: if decisions[k] == 0 { 0.0 } else { time[k].as_secs_f64() * 1e6 / decisions[k] as f64 },
    };
    let (elo, elo_low, elo_high, elo_bound) = elo(a_wins, draws, b_wins);
    Ok(ArenaResult {
        game: kind.id().to_string(),
        games,
        seed,
        threads,
        a_wins,
        b_wins,
        draws,
        a_score: (a_wins as f64 + draws as f64 / 2.0) / games.max(1) as f64,
        elo,
        elo_low,
        elo_high,
        elo_bound,
        end_reasons,
        a_won_by,
        b_won_by,
        a: stats(0),
        b: stats(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Level;

    #[test]
    fn elo_follows_the_logistic_curve_with_its_interval() {
        // 75% is +190.8 Elo; an even score is 0; the interval holds the estimate and narrows
        // with more games.
        let (e, lo, hi, bound) = elo(75, 0, 25);
        assert!((e.unwrap() - 190.85).abs() < 0.1, "{e:?}");
        assert!(lo.unwrap() < e.unwrap() && e.unwrap() < hi.unwrap() && bound.is_none());
        let (e, lo, hi, _) = elo(50, 0, 50);
        assert!(e.unwrap().abs() < 1e-9 && (lo.unwrap() + hi.unwrap()).abs() < 1e-6);
        let wide = hi.unwrap() - lo.unwrap();
        let (_, lo, hi, _) = elo(500, 0, 500);
        assert!(hi.unwrap() - lo.unwrap() < wide / 3.0);
        // Draws count half; all draws is an even score.
        assert!(elo(0, 10, 0).0.unwrap().abs() < 1e-9);
    }

    #[test]
    fn a_perfect_score_gives_a_bound_not_a_number() {
        let (e, lo, hi, bound) = elo(200, 0, 0);
        assert_eq!((e, lo, hi), (None, None, None));
        // At least about +690 Elo after 200 straight wins (Wilson, 95%).
        let b = bound.unwrap();
        assert!(b > 600.0 && b < 800.0, "{b}");
        assert_eq!(elo(0, 0, 200).3, Some(-b));
        assert_eq!(elo(0, 0, 0), (None, None, None, None));
    }

    #[test]
    fn agents_are_read_by_name() {
        for (text, agent) in [("random", Agent::Random), ("greedy", Agent::Greedy), ("computer:2", Agent::Computer(Level::new(2).unwrap()))]
        {
            assert_eq!(text.parse::<Agent>(), Ok(agent));
            assert_eq!(agent.to_string(), text);
        }
        assert_eq!("computer".parse::<Agent>(), Ok(Agent::Computer(Level::DEFAULT)));
        assert!("alphago".parse::<Agent>().unwrap_err().reason.contains("the agents are: random, greedy, computer"));
        assert!("computer:9".parse::<Agent>().unwrap_err().reason.contains("no level 9"));
    }
}
