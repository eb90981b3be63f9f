//! Mafia on Arbiter's kernel: 5 to 15 players, roles dealt in secret from the seed, nights at
//! which every living player acts at once (a simultaneous step), days at which every living
//! player votes at once. The rules as this crate reads them, with the choices it makes where
//! the game's many variants differ, are numbered in `RULINGS.md` (M01…); comments cite them.
//!
//! Player `n` sits at seat `n - 1`. Every living player acts at night (a Villager sleeps), so
//! that who has acted tells nothing; what a player chose is hidden from the others
//! ([`arbiter_kernel::Game::hidden_move`]) until the game ends, except that the Mafia see one
//! another's kill choices, and day votes are revealed when the day resolves.

mod encode;
pub mod fixture;
pub mod moves;
mod night;
mod policy;
pub mod roles;
mod sample;

pub use moves::{Move, Player};
pub use roles::{Role, Team};

use arbiter_kernel::kind::{Capabilities, Information, SeatRange, Shape};
use arbiter_kernel::{Audience, Decision, GameKind, LogLine, Match, Outcome, Randomness, Refusal, Report, Seat, Turn, Viewer};
use serde::{Deserialize, Serialize};

/// The rules this build implements.
pub const RULES_VERSION: &str = "mafia-2026.12.2";

/// The rule a refusal cites.
const RULES: &str = "Mafia rules";
/// The name of the Mafia's own chat channel (M10).
pub const MAFIA_CHANNEL: &str = "mafia";

/// "Player 3".
pub fn name(p: Player) -> String {
    format!("Player {}", u16::from(p) + 1)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    Night,
    Day,
}

/// A game of Mafia.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mafia {
    roles: Vec<Role>,
    alive: Vec<bool>,
    phase: Phase,
    /// The night or day number, from 1 (night 1, day 1, night 2…).
    round: u16,
    /// Each player's choice at the step now (`None`: not yet, or dead).
    choices: Vec<Option<Move>>,
    /// Whom the Doctor's protection covered last night (M06: not the same player two nights
    /// running).
    last_protected: Option<Player>,
    /// The Cop's findings: (night, player, is Mafia).
    findings: Vec<(u16, Player, bool)>,
    /// Each day's votes as they were revealed (seat order; `None`: dead that day), day 1 first:
    /// the table's public record.
    days: Vec<Vec<Option<Move>>>,
    end: Option<Team>,
    /// In the computer's sample for a player, that player: it acts first at the step now.
    first: Option<Player>,
}

impl Mafia {
    /// A game with `roles` dealt (seat order).
    pub fn with_roles(roles: Vec<Role>) -> Result<Mafia, Refusal> {
        let n = roles.len();
        if !(usize::from(roles::MIN_PLAYERS)..=usize::from(roles::MAX_PLAYERS)).contains(&n) {
            return Err(Refusal::new(format!("Mafia is for 5 to 15 players, not {n}"), RULES));
        }
        if !roles.contains(&Role::Mafioso) {
            return Err(Refusal::new("a game of Mafia has at least one Mafioso", RULES));
        }
        let mut g = Mafia {
            roles,
            alive: vec![true; n],
            phase: Phase::Night,
            round: 1,
            choices: vec![None; n],
            last_protected: None,
            findings: Vec::new(),
            days: Vec::new(),
            end: None,
            first: None,
        };
        g.check_end();
        Ok(g)
    }

    /// A new game of `players`, its roles dealt from `rng` (M01).
    pub fn deal(players: u8, rng: &mut Randomness) -> Result<(Mafia, Report), Refusal> {
        let mut roles = roles::roles_for(players);
        rng.shuffle(&mut roles);
        let g = Mafia::with_roles(roles)?;
        let mut report = Report::default();
        report.drew(&g.roles);
        report.public(format!("A game of Mafia for {players} players: {}.", g.cast()));
        for p in 0..players {
            for line in g.introduction(p) {
                report.log.push(LogLine { to: Audience::Seat(Seat(p)), text: line });
            }
        }
        report.public("Night 1 falls.");
        Ok((g, report))
    }

    /// What the table knows of the roles: how many of each.
    fn cast(&self) -> String {
        let count = |r| self.roles.iter().filter(|x| **x == r).count();
        let mut parts = vec![format!("{} Mafia", count(Role::Mafioso)), "a Doctor".into(), "a Cop".into()];
        if count(Role::Roleblocker) > 0 {
            parts.push("a Roleblocker".into());
        }
        parts.push(format!("{} Villagers", count(Role::Villager)));
        parts.join(", ")
    }

    /// What player `p` is told at the deal.
    fn introduction(&self, p: Player) -> Vec<String> {
        let role = self.roles[usize::from(p)];
        let mut v = vec![format!("You are {}.", role.name())];
        if role == Role::Mafioso {
            let others: Vec<String> = self.mafia().filter(|m| *m != p).map(name).collect();
            if !others.is_empty() {
                v.push(format!("The Mafia: you and {}.", others.join(", ")));
            }
        }
        v
    }

    pub fn role(&self, p: Player) -> Role {
        self.roles[usize::from(p)]
    }
    pub fn is_alive(&self, p: Player) -> bool {
        self.alive[usize::from(p)]
    }
    pub fn phase(&self) -> (Phase, u16) {
        (self.phase, self.round)
    }
    pub fn players(&self) -> u8 {
        self.roles.len() as u8
    }
    pub(crate) fn living(&self) -> impl Iterator<Item = Player> + '_ {
        (0..self.players()).filter(|p| self.alive[usize::from(*p)])
    }
    fn mafia(&self) -> impl Iterator<Item = Player> + '_ {
        (0..self.players()).filter(|p| self.roles[usize::from(*p)] == Role::Mafioso)
    }
    /// Players who have not acted at the step now.
    fn pending(&self) -> impl Iterator<Item = Player> + '_ {
        self.living().filter(|p| self.choices[usize::from(*p)].is_none())
    }
    /// The first of them, while the game goes on (in the computer's sample, the player it is
    /// drawn for).
    fn pending_first(&self) -> Option<Player> {
        if self.end.is_some() {
            return None;
        }
        self.first.filter(|p| self.is_alive(*p) && self.choices[usize::from(*p)].is_none()).or_else(|| self.pending().next())
    }

    /// The legal moves of player `p` now.
    pub fn moves_of(&self, p: Player) -> Vec<Move> {
        if self.end.is_some() || !self.alive.get(usize::from(p)).copied().unwrap_or(false) || self.choices[usize::from(p)].is_some() {
            return Vec::new();
        }
        let living: Vec<Player> = self.living().collect();
        let others = || living.iter().copied().filter(move |t| *t != p);
        // M11: every living player may let the night pass (sleep), as every voter may skip.
        let sleep = std::iter::once(Move::Sleep);
        match (self.phase, self.role(p)) {
            (Phase::Night, Role::Mafioso) => {
                living.iter().copied().filter(|t| self.role(*t) != Role::Mafioso).map(Move::Kill).chain(sleep).collect()
            }
            (Phase::Night, Role::Doctor) => {
                living.iter().copied().filter(|t| Some(*t) != self.last_protected).map(Move::Protect).chain(sleep).collect()
            }
            (Phase::Night, Role::Cop) => others().map(Move::Investigate).chain(sleep).collect(),
            (Phase::Night, Role::Roleblocker) => others().map(Move::Block).chain(sleep).collect(),
            (Phase::Night, Role::Villager) => sleep.collect(),
            (Phase::Day, _) => others().map(Move::Vote).chain([Move::Skip]).collect(),
        }
    }

    /// Why `p` may not make `m` now, in the words of the rule (M02, M03, M06, M08).
    fn check(&self, p: Player, m: Move) -> Result<(), Refusal> {
        if let Some(t) = self.end {
            return Err(Refusal::new(format!("the game is over: {} won", t.name()), RULES));
        }
        if usize::from(p) >= self.roles.len() {
            return Err(Refusal::new(format!("no player {}: the players are 1 to {}", u16::from(p) + 1, self.players()), RULES));
        }
        if !self.is_alive(p) {
            return Err(Refusal::new(format!("{} is dead: the dead act no more", name(p)), "Mafia: death"));
        }
        if self.choices[usize::from(p)].is_some() {
            let step = match self.phase {
                Phase::Night => "tonight",
                Phase::Day => "today",
            };
            return Err(Refusal::new(
                format!("{} has already acted {step}: take the choice back (undo) to choose again", name(p)),
                "Mafia: simultaneous steps",
            ));
        }
        // M11: a player may leave the game at its part of any step (never listed).
        if self.moves_of(p).contains(&m) || m == Move::Leave {
            return Ok(());
        }
        let (rule, why) = match (self.phase, m.is_night()) {
            (Phase::Night, false) => ("Mafia: night", "it is night: the votes are by day".to_string()),
            (Phase::Day, true) => ("Mafia: day", "it is day: vote N or skip".to_string()),
            (Phase::Night, true) | (Phase::Day, false) => match m.target().filter(|t| usize::from(*t) < self.roles.len()) {
                Some(t) if !self.is_alive(t) => ("Mafia: death", format!("{} is dead", name(t))),
                Some(t) if m == Move::Protect(t) && self.last_protected == Some(t) => {
                    ("Mafia: the Doctor", format!("the Doctor may not protect {} two nights running", name(t)))
                }
                _ => (
                    "Mafia: night",
                    format!("your moves now: {}", self.moves_of(p).iter().map(|m| m.text()).collect::<Vec<_>>().join(", ")),
                ),
            },
        };
        Err(Refusal::new(format!("cannot {}: {why}", m.text()), rule))
    }

    /// Play `m` as player `p`.
    pub fn play(&mut self, p: Player, m: Move) -> Result<Report, Refusal> {
        self.check(p, m)?;
        let mut report = Report::default();
        self.choices[usize::from(p)] = Some(m);
        if m == Move::Leave {
            // M11: dead at once, its role told; it has made its part of the step.
            self.alive[usize::from(p)] = false;
            report.revealed = true;
            report.public(format!("{} leaves the game: {} was {}.", name(p), name(p), self.role(p).name()));
            if self.check_end() {
                self.choices.iter_mut().for_each(|c| *c = None);
                self.announce_end(&mut report);
                return Ok(report);
            }
        }
        let choice = match m {
            Move::Kill(t) => Some(format!("{} (Mafia) chooses to kill {}.", name(p), name(t))),
            Move::Sleep => Some(format!("{} (Mafia) chooses no kill tonight.", name(p))),
            Move::Protect(_) | Move::Investigate(_) | Move::Block(_) | Move::Vote(_) | Move::Skip | Move::Leave => None,
        };
        if let (Some(text), Phase::Night, Role::Mafioso) = (choice, self.phase, self.role(p)) {
            // M04: the Mafia see one another's choices as they are made.
            let mates: Vec<Player> = self.mafia().filter(|x| self.is_alive(*x)).collect();
            for x in &mates {
                report.log.push(LogLine { to: Audience::Seat(Seat(*x)), text: text.clone() });
            }
            // Shown to another seat: not to be taken back.
            report.revealed = mates.len() > 1;
        }
        if self.pending().next().is_none() {
            self.resolve(&mut report);
        }
        Ok(report)
    }

    fn resolve(&mut self, report: &mut Report) {
        report.revealed = true;
        match self.phase {
            Phase::Night => {
                night::resolve(self, report);
                self.phase = Phase::Day;
            }
            Phase::Day => {
                self.resolve_day(report);
                self.phase = Phase::Night;
                self.round += 1;
            }
        }
        self.choices.iter_mut().for_each(|c| *c = None);
        if self.check_end() {
            self.announce_end(report);
        } else if self.phase == Phase::Night {
            report.public(format!("Night {} falls.", self.round));
        }
    }

    /// The end told to all: who won, and every role (M09).
    fn announce_end(&self, report: &mut Report) {
        let Some(t) = self.end else { return };
        report.public(format!("{} win{}.", capitalised(t.name()), if t == Team::Mafia { "" } else { "s" }));
        let roles: Vec<String> = (0..self.players()).map(|p| format!("{} was {}", name(p), self.role(p).name())).collect();
        report.public(format!("The roles: {}.", roles.join("; ")));
    }

    /// M08: each vote is revealed; a strict majority of the living lynches.
    fn resolve_day(&mut self, report: &mut Report) {
        let living: Vec<Player> = self.living().collect();
        let mut tally = vec![0usize; self.roles.len()];
        for &p in &living {
            let vote = self.choices[usize::from(p)];
            if let Some(Move::Vote(t)) = vote {
                tally[usize::from(t)] += 1;
            }
            report.public(match vote {
                Some(Move::Vote(t)) => format!("{} votes to lynch {}.", name(p), name(t)),
                Some(Move::Skip | Move::Kill(_) | Move::Protect(_) | Move::Investigate(_) | Move::Block(_) | Move::Sleep | Move::Leave)
                | None => {
                    format!("{} votes to lynch nobody.", name(p))
                }
            });
        }
        self.days.push(self.choices.clone());
        let need = living.len() / 2 + 1;
        match (0..self.players()).find(|t| tally[usize::from(*t)] >= need) {
            Some(t) => {
                self.alive[usize::from(t)] = false;
                report.public(format!(
                    "{} is lynched with {} of {} votes: {} was {}.",
                    name(t),
                    tally[usize::from(t)],
                    living.len(),
                    name(t),
                    self.role(t).name()
                ));
            }
            None => report.public(format!("No player has a majority ({need} of {} votes): nobody is lynched.", living.len())),
        }
    }

    /// M09: the village wins when no Mafioso lives, the Mafia when they are at least half of
    /// the living.
    fn check_end(&mut self) -> bool {
        let living = self.living().count();
        let mafia = self.living().filter(|p| self.role(*p) == Role::Mafioso).count();
        self.end = if mafia == 0 {
            Some(Team::Village)
        } else if 2 * mafia >= living {
            Some(Team::Mafia)
        } else {
            None
        };
        self.end.is_some()
    }

    pub fn winner(&self) -> Option<Team> {
        self.end
    }

    /// The same words for every player (a prompt names no role).
    fn prompt(&self) -> String {
        match self.phase {
            Phase::Night => format!("Night {}: make your night move", self.round),
            Phase::Day => format!("Day {}: vote to lynch a player, or skip", self.round),
        }
    }

    /// What `viewer` may know.
    pub fn view(&self, viewer: Viewer) -> View {
        let me = viewer.map(|s| s.0).filter(|p| usize::from(*p) < self.roles.len());
        let over = self.end.is_some();
        let knows = |p: Player| -> Option<Role> {
            let r = self.role(p);
            let mafia_mate = me.is_some_and(|m| self.role(m) == Role::Mafioso && r == Role::Mafioso);
            (over || !self.is_alive(p) || me == Some(p) || mafia_mate).then_some(r)
        };
        View {
            players: (0..self.players())
                .map(|p| PlayerView {
                    player: u16::from(p) + 1,
                    alive: self.is_alive(p),
                    role: knows(p),
                    acted: self.is_alive(p) && self.choices[usize::from(p)].is_some(),
                })
                .collect(),
            phase: self.phase,
            round: self.round,
            you: me.map(|p| u16::from(p) + 1),
            your_choice: me.and_then(|p| self.choices[usize::from(p)]).map(|m| m.text()),
            mafia_choices: match me {
                Some(p) if self.role(p) == Role::Mafioso && self.phase == Phase::Night => {
                    self.mafia().filter_map(|x| self.choices[usize::from(x)].map(|c| format!("{}: {}", name(x), c.text()))).collect()
                }
                _ => Vec::new(),
            },
            findings: match me {
                Some(p) if self.role(p) == Role::Cop || over => self
                    .findings
                    .iter()
                    .map(|(n, t, m)| format!("night {n}: {} is {}", name(*t), if *m { "Mafia" } else { "not Mafia" }))
                    .collect(),
                _ => Vec::new(),
            },
            last_protected: match me {
                Some(p) if self.role(p) == Role::Doctor => self.last_protected.map(|t| u16::from(t) + 1),
                _ => None,
            },
            winner: self.end,
        }
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// A player's view of the table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct View {
    pub players: Vec<PlayerView>,
    pub phase: Phase,
    pub round: u16,
    /// Your player number (`None`: an observer).
    pub you: Option<u16>,
    /// What you chose at the step now.
    pub your_choice: Option<String>,
    /// Tonight's kill choices of the Mafia, to a Mafioso.
    pub mafia_choices: Vec<String>,
    /// The Cop's findings, to the Cop (and to all at the end).
    pub findings: Vec<String>,
    /// Whom your protection covered last night, to the Doctor.
    pub last_protected: Option<u16>,
    pub winner: Option<Team>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PlayerView {
    pub player: u16,
    pub alive: bool,
    /// The role, where you may know it (yours, a fellow Mafioso's, a dead player's, all at the
    /// end).
    pub role: Option<Role>,
    /// Has acted at the step now (public: every living player acts).
    pub acted: bool,
}

impl arbiter_kernel::Game for Mafia {
    type Move = Move;
    type View = View;

    fn seats(&self) -> Vec<String> {
        (0..self.players()).map(name).collect()
    }
    /// Every living player who has not acted yet: a simultaneous step.
    fn decision(&self) -> Option<Decision> {
        if self.end.is_some() {
            return None;
        }
        let first = self.pending_first();
        let order = first.into_iter().chain(self.pending().filter(|p| Some(*p) != first));
        Decision::step(order.map(|p| Turn { seat: Seat(p), prompt: self.prompt() }))
    }
    fn legal_moves(&self) -> Vec<Move> {
        self.pending_first().map(|p| self.moves_of(p)).unwrap_or_default()
    }
    fn moves_for(&self, seat: Seat) -> Vec<Move> {
        if usize::from(seat.0) >= self.roles.len() {
            return Vec::new();
        }
        self.moves_of(seat.0)
    }
    fn eliminated(&self) -> Vec<Seat> {
        (0..self.players()).filter(|p| !self.is_alive(*p)).map(Seat).collect()
    }
    fn deciding(&self) -> Option<Seat> {
        self.pending_first().map(Seat)
    }
    fn play_as(&mut self, seat: Seat, m: &Move) -> Result<Report, Refusal> {
        self.play(seat.0, *m)
    }
    fn view(&self, viewer: Viewer) -> View {
        Mafia::view(self, viewer)
    }
    fn state_hash(&self) -> u64 {
        arbiter_kernel::stable_hash(self)
    }
    fn outcome(&self) -> Option<Outcome> {
        let team = self.end?;
        let winners: Vec<Seat> = (0..self.players()).filter(|p| self.role(*p).team() == team).map(Seat).collect();
        let (reason, text) = match team {
            Team::Village => ("village", "no Mafioso is left alive: the village wins"),
            Team::Mafia => ("mafia", "the Mafia are at least half of the living: the Mafia win"),
        };
        Some(Outcome::won_by(&winners, self.roles.len(), reason, text))
    }
    fn move_text(&self, m: &Move) -> String {
        m.text()
    }
    fn parse_move(&self, text: &str) -> Result<Move, Refusal> {
        moves::parse(text, self.players())
    }
    /// M10: the Mafia's own channel: every Mafioso reads it; a living one writes there at night.
    fn channels(&self, seat: Seat) -> Vec<arbiter_kernel::Channel> {
        let p = seat.0;
        if usize::from(p) >= self.roles.len() || self.role(p) != Role::Mafioso {
            return Vec::new();
        }
        let open = self.end.is_none() && self.phase == Phase::Night && self.is_alive(p);
        vec![arbiter_kernel::Channel { name: MAFIA_CHANNEL.into(), open }]
    }
    /// M03: a choice may be taken back (and made again) until the night or the day resolves.
    fn choices_revocable(&self) -> bool {
        true
    }
    /// M11: a player whose time runs out leaves the game (so that a game on a clock always
    /// comes to its end).
    fn timeout_move(&self, _seat: Seat) -> Option<Move> {
        Some(Move::Leave)
    }
    /// A night move is the player's own (a Mafioso's kill choice also its fellows'), until the
    /// game ends; a day vote is secret until the day resolves (M03, M08).
    fn hidden_move(&self, text: &str, by: Seat, age: usize, viewer: Viewer) -> Option<String> {
        if self.end.is_some() || viewer == Some(by) {
            return None;
        }
        let m = moves::parse(text, self.players()).ok()?;
        if m == Move::Leave {
            // Told to all as it happens (M11); counted among the day's moves below.
            return None;
        }
        let mates = viewer.is_some_and(|v| usize::from(v.0) < self.roles.len() && self.role(v.0) == Role::Mafioso)
            && usize::from(by.0) < self.roles.len()
            && self.role(by.0) == Role::Mafioso;
        if m.is_night() {
            return (!(mates && matches!(m, Move::Kill(_) | Move::Sleep))).then(|| format!("{} acted in the night", name(by.0)));
        }
        // Votes of the day now: the moves made since it began.
        let cast_today = if self.phase == Phase::Day { self.choices.iter().filter(|c| c.is_some()).count() } else { 0 };
        (age < cast_today).then(|| format!("{} voted", name(by.0)))
    }
}

impl arbiter_kernel::Searchable for Mafia {
    fn determinize(&self, seat: Seat, rng: &mut Randomness) -> Option<Mafia> {
        sample::determinize(self, seat.0, rng)
    }
    /// The conventions of play without talk (`crate::policy`).
    fn playout_move(&self, moves: &[Move], rng: &mut Randomness) -> usize {
        match self.pending_first() {
            Some(p) => policy::choose(self, p, moves, rng),
            None => 0,
        }
    }
    /// The team of the player's role (a secret while the game goes on).
    fn side(&self, seat: Seat) -> Option<String> {
        self.roles.get(seat.idx()).map(|r| r.team().name().to_string())
    }
}

impl arbiter_kernel::Encodable for Mafia {
    fn encoding(&self) -> Option<arbiter_kernel::learn::Encoding> {
        Some(Mafia::encoding(self))
    }
    fn action_id(&self, m: &Move) -> Option<u32> {
        Mafia::action_id(self, m)
    }
    fn move_of(&self, id: u32) -> Option<Move> {
        Mafia::move_of(self, id)
    }
    fn frame(&self) -> Option<arbiter_kernel::learn::Frame> {
        Mafia::frame(self)
    }
    fn observe(&self, seat: Seat, out: &mut [f32]) {
        Mafia::observe(self, seat, out)
    }
}

/// Mafia as a kind of game a host offers.
pub struct Kind;

impl GameKind for Kind {
    fn id(&self) -> &'static str {
        "mafia"
    }
    fn title(&self) -> &'static str {
        "Mafia"
    }
    fn rules_version(&self) -> &'static str {
        RULES_VERSION
    }
    fn shape(&self) -> Shape {
        Shape {
            seats: SeatRange { min: roles::MIN_PLAYERS, max: roles::MAX_PLAYERS, default: 7 },
            options: Vec::new(),
            information: Information::Imperfect,
            capabilities: Capabilities { computer: true, encoding: true, clock: true },
        }
    }
    fn create(&self, options: &serde_json::Value, seed: u64) -> Result<(Box<dyn Match>, Report), Refusal> {
        if let Some(o) = options.as_object() {
            if let Some(k) = o.keys().find(|k| k.as_str() != arbiter_kernel::kind::SEATS) {
                return Err(Refusal::new(format!("bad options: Mafia has no option {k:?} (only seats)"), "game options"));
            }
        } else if !options.is_null() {
            return Err(Refusal::new("bad options: an object of options", "game options"));
        }
        let players = arbiter_kernel::kind::seats_of(options, self.shape().seats)?;
        let (g, report) = Mafia::deal(players, &mut Randomness::seeded(seed))?;
        Ok((Box::new(g), report))
    }
}
