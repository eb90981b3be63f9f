//! The arena (`arbiter arena`, and `arbiter.arena` in Python): two agents play a game against
//! each other, and the strength of one against the other is measured: wins, losses, draws, the
//! Elo difference with its 95% confidence interval, how the games ended, the results by the
//! side `a` played, and the time each agent takes per decision. Game `i` uses seed `S + i`.
//! How the seats are shared ([`Split`]):
//!
//! - by seat (the default): in a game of `n` seats agent `a` plays seat `i % n`, agent `b`
//!   every other seat (two seats: each pair of games with the seats swapped);
//! - by side: in a game whose seats play for sides ([`crate::Searchable::side`]: teams, open or
//!   hidden), agent `a` plays every seat of one side, `b` every other seat; game `i` gives `a`
//!   side `i % k` of the `k` sides of that game, in the order of their names. Each seat's agent
//!   still decides alone, from what its seat may know.
//!
//! So the result does not depend on the thread count. A game counts as `a`'s win when `a`'s
//! seats won (alone or with their side), as `b`'s when they lost, else as a draw.
//!
//! Agents are the kernel's ([`Agent`]): `random`, `greedy`, `computer[:LEVEL]`. Each decision
//! of game `i` is made with a seed drawn from `S + i`, the agent and the decision's number: the
//! same command gives the same games.

use crate::search::{Agent, Plan};
use crate::{GameKind, Seat};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How the arena shares a game's seats between the agents.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// `a` in one seat (rotated over the games), `b` in every other.
    #[default]
    Seat,
    /// `a` in every seat of one side (rotated over the games), `b` in every other.
    Side,
}

impl std::str::FromStr for Split {
    type Err = String;
    fn from_str(s: &str) -> Result<Split, String> {
        match s.trim() {
            "seat" => Ok(Split::Seat),
            "side" => Ok(Split::Side),
            t => Err(format!("no split {:?}: `seat` (a in one seat) or `side` (a in every seat of one side)", crate::echo(t))),
        }
    }
}

/// What the arena plays: how many games, the agents, the first seed, the threads, the split.
#[derive(Clone, Copy, Debug)]
pub struct Setup {
    pub games: u64,
    pub a: Agent,
    pub b: Agent,
    pub seed: u64,
    pub threads: usize,
    pub split: Split,
}

/// The games `a` played for one side, and how they ended for it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SideTally {
    pub games: u64,
    pub a_wins: u64,
    pub b_wins: u64,
    pub draws: u64,
}

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
    pub split: Split,
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
    /// By the side `a` played ([`crate::Searchable::side`]; a game without sides: the name of
    /// `a`'s seat, by seat, or `all` when it played every seat).
    pub a_as: BTreeMap<String, SideTally>,
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
    /// The side `a` played.
    side: String,
    /// Decisions and time of `a`, then of `b`.
    decisions: [u64; 2],
    time: [Duration; 2],
}

/// The seats agent `a` plays in game `i`, and the side they are (see the module's text).
fn seats_of_a(game: &dyn crate::Match, split: Split, i: u64) -> Result<(Vec<Seat>, String), String> {
    let n = game.seats().len().max(1);
    let seats = (0..n).map(|s| Seat(s as u8));
    let sides: Vec<Option<String>> = seats.clone().map(|s| game.computer().side(s)).collect();
    match split {
        Split::Seat => {
            let s = Seat((i % n as u64) as u8);
            let side = sides[s.idx()].clone().unwrap_or_else(|| game.seats()[s.idx()].clone());
            Ok((vec![s], side))
        }
        Split::Side => {
            let mut names: Vec<&String> = sides.iter().flatten().collect();
            names.sort();
            names.dedup();
            if names.len() < 2 || sides.iter().any(Option::is_none) {
                return Err("the arena's split by side needs a game whose every seat plays for one of two sides or more".into());
            }
            let side = names[(i % names.len() as u64) as usize].clone();
            Ok((seats.filter(|s| sides[s.idx()].as_ref() == Some(&side)).collect(), side))
        }
    }
}

fn play_one(kind: &dyn GameKind, options: &serde_json::Value, seed: u64, setup: &Setup, i: u64) -> Result<Played, String> {
    let agents = [setup.a, setup.b];
    let (mut game, _) = kind.create(options, seed).map_err(|r| r.to_string())?;
    let (a_seats, side) = seats_of_a(game.as_ref(), setup.split, i)?;
    let (mut decisions, mut time) = ([0u64; 2], [Duration::ZERO; 2]);
    while game.outcome().is_none() {
        let Some(decision) = game.decision() else { return Err(format!("game {i}: no decision and no outcome")) };
        // One seat at a time, the first of the decision: at a simultaneous step each agent
        // sees only its own seat's view, so the order tells it nothing.
        let seat = decision.first().seat;
        let who = usize::from(!a_seats.contains(&seat));
        let started = Instant::now();
        let plan = Plan::new(agents[who], crate::stable_hash(&(seed, who, decisions[who])));
        let m = game.computer().agent_move(seat, &plan, &|_| {}).map_err(|r| format!("game {i}: {} could not move: {r}", agents[who]))?;
        time[who] += started.elapsed();
        decisions[who] += 1;
        game.play(seat, &m).map_err(|r| format!("game {i}: {}'s move {m:?} was refused: {r}", agents[who]))?;
    }
    let outcome = game.outcome().ok_or("no outcome")?;
    let a_won = match outcome.result(a_seats[0]) {
        Some(crate::SeatResult::Won) => Some(true),
        Some(crate::SeatResult::Lost) => Some(false),
        _ => None,
    };
    Ok(Played { a_won, reason: outcome.reason, side, decisions, time })
}

/// Play `setup.games` games of `kind` with `options` (the kind's defaults where `null`)
/// between `setup.a` and `setup.b` on `setup.threads` threads.
pub fn run(kind: &'static dyn GameKind, options: &serde_json::Value, setup: &Setup) -> Result<ArenaResult, String> {
    let Setup { games, a, b, seed, threads, split } = *setup;
    let options = if options.is_null() { kind.default_options() } else { options.clone() };
    let (probe, _) = kind.create(&options, seed).map_err(|r| r.to_string())?;
    if probe.seats().len() < 2 {
        return Err(format!("the arena pits two agents against each other: {} has {} seat(s)", kind.title(), probe.seats().len()));
    }
    seats_of_a(probe.as_ref(), split, 0)?;
    let agents = [a, b];
    let results: Vec<Result<Played, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let options = &options;
                scope.spawn(move || {
                    (t..games).step_by(threads).map(|i| (i, play_one(kind, options, seed.wrapping_add(i), setup, i))).collect::<Vec<_>>()
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
    let mut a_as: BTreeMap<String, SideTally> = BTreeMap::new();
    let (mut decisions, mut time) = ([0u64; 2], [Duration::ZERO; 2]);
    for r in results {
        let p = r?;
        let tally = a_as.entry(p.side.clone()).or_default();
        tally.games += 1;
        match p.a_won {
            Some(true) => {
                a_wins += 1;
                tally.a_wins += 1;
                *a_won_by.entry(p.reason.clone()).or_insert(0) += 1;
            }
            Some(false) => {
                b_wins += 1;
                tally.b_wins += 1;
                *b_won_by.entry(p.reason.clone()).or_insert(0) += 1;
            }
            None => {
                draws += 1;
                tally.draws += 1;
            }
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
        split,
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
        a_as,
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
