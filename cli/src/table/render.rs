//! Drawing the table: tracks on top, the map by region on the left, the hand, effects and log on
//! the right, the prompt with the filtered legal moves and the detail of the highlighted one at
//! the bottom. Fits 80×24; a larger terminal shows more of the map, the moves and the log.
//! Only `App::viewer()`'s view is read, so a hand-over screen cannot show a hand.

use super::app::{App, Screen};
use super::summary;
use arbiter_twilight::map::SubRegion;
use arbiter_twilight::map::{iter_mask, Map};
use arbiter_twilight::registry::ScoringTime;
use arbiter_twilight::scoring::{self, Level};
use arbiter_twilight::space_race::BOXES;
use arbiter_twilight::view::View;
use arbiter_twilight::{Game, Move, Region, Side};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use ratatui::Frame;

/// Colours, or none (NO_COLOR): every colour has a textual mark beside it.
#[derive(Clone, Copy)]
pub struct Palette {
    pub color: bool,
}

impl Palette {
    pub fn from_env() -> Palette {
        Palette { color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) }
    }
    fn side(self, s: Side) -> Style {
        match (self.color, s) {
            (false, _) => Style::new(),
            (true, Side::Us) => Style::new().fg(Color::LightBlue),
            (true, Side::Ussr) => Style::new().fg(Color::LightRed),
        }
    }
    fn dim(self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new()
        }
    }
}

/// Width of one map column: tag, name, stability, battleground, both Influence, control.
const CELL: u16 = 26;

pub fn draw(f: &mut Frame, app: &App, pal: Palette) {
    let area = f.area();
    if area.width < 80 || area.height < 24 {
        let text = format!(
            "The table needs a terminal of at least 80×24; this one is {}×{}. Enlarge it (nothing is lost), or leave with Ctrl-Q and use `arbiter play --lines`.",
            area.width, area.height
        );
        f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    match &app.screen {
        Screen::HandOver(side) => {
            let mut lines = vec![
                Line::from(Span::styled(format!("The {side} to decide."), pal.side(*side).add_modifier(Modifier::BOLD))),
                Line::from(""),
                Line::from(format!("Hand the keyboard to the {side} player, who presses Enter.")),
                Line::from("(Anything else typed here is ignored. Ctrl-Q leaves; the game is saved.)"),
            ];
            if let Some(other) = app.may_interject() {
                lines.push(Line::from(format!("F4: the {other} may interject first (a move allowed \"at any time\").")));
            }
            return hand_over(f, app, " Hand-over ", lines, pal);
        }
        Screen::InterjectHandOver(side) => {
            let decider = side.opponent();
            let lines = vec![
                Line::from(Span::styled(format!("The {side} interjects."), pal.side(*side).add_modifier(Modifier::BOLD))),
                Line::from(""),
                Line::from(format!("While the {decider} decides, the {side} may make a move allowed \"at any time\".")),
                Line::from(format!("Hand the keyboard to the {side} player, who presses Enter. Esc: back to the {decider}.")),
            ];
            return hand_over(f, app, " Interjection ", lines, pal);
        }
        Screen::GameOver => return summary::draw(f, app, pal),
        _ => {}
    }
    let viewer = app.viewer();
    let game = app.game();
    let view = game.view(viewer);
    let bottom_h = if area.height >= 36 { 14 } else { 8 };
    let [top, middle, bottom] = Layout::vertical([Constraint::Length(3), Constraint::Min(4), Constraint::Length(bottom_h)]).areas(area);
    f.render_widget(Paragraph::new(tracks(&view, pal)), top);

    // The map takes as many columns as leave the hand room: 2 at 80 wide, 3 at 120.
    let right_min = if area.width >= 110 { 40 } else { 26 };
    let map_cols = (area.width.saturating_sub(right_min) / CELL).clamp(1, 4);
    let map_w = map_cols * CELL;
    let [map_area, side_area] = Layout::horizontal([Constraint::Length(map_w), Constraint::Min(0)]).areas(middle);
    // At the end of a round the map gives way to the log, where the move's results are.
    let whole_log = app.log_view || matches!(app.screen, Screen::EndOfRound { .. });
    if whole_log {
        log_panel(f, app, map_area);
    } else {
        map(f, game, &view, app.region, map_area, pal);
    }
    // The log once: beside the map, or in its place.
    side_panel(f, app, &view, side_area, pal, !whole_log);
    prompt(f, app, bottom, pal);

    match &app.screen {
        Screen::Confirm { text, warnings } => {
            let mut lines: Vec<Line> = warnings.iter().map(|w| Line::from(format!("Warning: {w}."))).collect();
            lines.push(Line::from(""));
            lines.push(Line::from(format!("y: go ahead with `{text}`")).style(Style::new().add_modifier(Modifier::BOLD)));
            lines.push(Line::from("any other key: choose again"));
            overlay(f, "Are you sure?", lines, area);
        }
        Screen::Help => overlay(f, "Keys", HELP.lines().map(Line::from).collect(), area),
        Screen::Interject { side, selected } => {
            let decider = side.opponent();
            let mut lines = vec![Line::from(format!("While the {decider} decides, the {side} may now:")), Line::from("")];
            for (i, m) in app.interjections(*side).iter().enumerate() {
                let l = Line::from(format!("{:>3} {m}", i + 1));
                lines.push(if i == *selected { l.style(Style::new().add_modifier(Modifier::REVERSED)) } else { l });
            }
            lines.push(Line::from(""));
            lines.push(Line::from(format!("Enter: make it now   Up/Down: choose   Esc: back to the {decider}")));
            overlay(f, &format!("Interjection: {side}"), lines, area);
        }
        Screen::HandOver(_)
        | Screen::InterjectHandOver(_)
        | Screen::GameOver
        | Screen::Table
        | Screen::EndOfRound { .. }
        | Screen::Thinking(_) => {}
    }
}

pub const HELP: &str = "\
Type to filter the legal moves; every word must match (coup ira). A card's
name that is no move shows what the card does (an effect in play, say).
Up/Down, PgUp/PgDn  highlight a move; its card text, or the coup or
                    realignment odds, show at the bottom right
Enter               play the highlighted move (or the notation typed)
Tab                 copy the highlighted move to the prompt
Esc                 clear the prompt
Left/Right          the region the map starts with
Ctrl-Z or `undo`    take back your last move (never past a die roll,
                    a draw, a reveal or the other side's move)
F2 or `log`         the whole log in place of the map (PgUp/PgDn scroll)
F4                  the side not deciding interjects: a move allowed 'at
                    any time' (cancelling the Cuban Missile Crisis)
F1 or `help`        this text     Ctrl-Q or `quit`  leave (saved)
Marks: * battleground  W/E/B West, East, both Europe  S Southeast Asia
       U/R controlled by the US/USSR   hand: ops, side, era, * starred";

fn overlay(f: &mut Frame, title: &str, lines: Vec<Line>, area: Rect) {
    let w = area.width.min(76);
    // Wrapped lines take more rows than there are lines.
    let rows: usize = lines.iter().map(|l| l.width().max(1).div_ceil((w as usize).saturating_sub(2).max(1))).sum();
    let h = (rows as u16 + 2).min(area.height);
    let r = Rect { x: area.x + (area.width - w) / 2, y: area.y + (area.height - h) / 2, width: w, height: h };
    f.render_widget(Clear, r);
    // Too tall: the last lines (the keys to press) stay visible.
    let skip = (rows as u16 + 2).saturating_sub(h);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).scroll((skip, 0)).block(Block::bordered().title(format!(" {title} "))),
        r,
    );
}

/// A screen while the keyboard changes hands: the public tracks and `lines`, nothing secret.
fn hand_over(f: &mut Frame, app: &App, title: &str, lines: Vec<Line>, pal: Palette) {
    let area = f.area();
    let game = app.game();
    // The observer's view: the tracks are public; no hand, no secret headline.
    let view = game.view(None);
    let [top, rest] = Layout::vertical([Constraint::Length(3), Constraint::Min(0)]).areas(area);
    f.render_widget(Paragraph::new(tracks(&view, pal)), top);
    let h = (lines.len() as u16 + 2).min(rest.height);
    let r = Rect { x: rest.x, y: rest.y + rest.height.saturating_sub(h) / 2, width: rest.width, height: h };
    f.render_widget(Paragraph::new(lines).centered().block(Block::bordered().title(title)), r);
}

/// Turn and round, phasing side, DEFCON and what it closes, VP, military ops against the
/// requirement, the China Card, the space race with box names, the next box and abilities.
pub fn tracks<'a>(view: &View, pal: Palette) -> Vec<Line<'a>> {
    // The rules facts come with the view (`View::rules`), computed by the engine.
    let r = &view.rules;
    // "USSR round 3/6": the phasing side and the action round out of this side's rounds.
    let round = if r.phase == "action round" {
        let of = if view.phasing == Side::Us { r.action_rounds.us } else { r.action_rounds.ussr };
        format!("{} round {}/{of}", view.phasing, view.action_round)
    } else if r.phase == "over" {
        "game over".to_string()
    } else {
        r.phase.to_string()
    };
    let closed: Vec<&str> = r
        .closed_regions
        .iter()
        .map(|name| match *name {
            "Europe" => "Eur",
            "Middle East" => "ME",
            other => other,
        })
        .collect();
    let defcon = if closed.is_empty() {
        format!("DEFCON {}", view.defcon)
    } else {
        format!("DEFCON {} (closed: {})", view.defcon, closed.join(", "))
    };
    let defcon_style =
        if view.defcon <= 2 && pal.color { Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD) } else { Style::new() };
    // VP before DEFCON: the longest part comes last, where a narrow terminal cuts.
    let l1 = Line::from(vec![
        Span::raw(format!("Turn {} · ", view.turn)),
        Span::styled(round, pal.side(view.phasing)),
        Span::raw(format!(" · VP {} · ", arbiter_twilight::ctx::vp_text(view.vp as i32))),
        Span::styled(defcon, defcon_style),
    ]);
    // At most 79 characters at 80 columns: the China Card held face down and a deck of 100.
    let china = format!("China: {}, {}", view.china_card.holder, if view.china_card.face_up { "face up" } else { "face down" });
    let need = r.military_ops_required;
    let l2 = Line::from(format!(
        "Mil. ops US {}/{need} USSR {}/{need} · {china} · hands US {}/USSR {} · deck {}",
        view.military_ops.us, view.military_ops.ussr, view.hand_sizes.us, view.hand_sizes.ussr, view.deck_size
    ));
    let space = |s: Side, t: &arbiter_twilight::view::SpaceTrackView| {
        let at = if t.reached == 0 { t.name.clone() } else { format!("{} {}", t.reached, t.name) };
        let next = t.next.as_ref().map(|(_, ops, roll)| format!(", next {ops} Ops 1-{roll}")).unwrap_or_default();
        let abilities = if t.abilities.is_empty() { String::new() } else { format!(" [{}]", t.abilities.join(", ")) };
        format!("{s} {at}{next}{abilities}")
    };
    let l3 = Line::from(vec![
        Span::raw("Space "),
        Span::styled(space(Side::Us, &r.space.us), pal.side(Side::Us)),
        Span::raw(" · "),
        Span::styled(space(Side::Ussr, &r.space.ussr), pal.side(Side::Ussr)),
    ]);
    vec![l1, l2, l3]
}

/// The marks of a country's sub-region: W, E, B (both halves of Europe), S (Southeast Asia).
fn tag(c: &arbiter_twilight::map::Country) -> char {
    match (c.in_sub(SubRegion::WesternEurope), c.in_sub(SubRegion::EasternEurope), c.in_southeast_asia()) {
        (true, true, _) => 'B',
        (true, false, _) => 'W',
        (false, true, _) => 'E',
        (_, _, true) => 'S',
        _ => ' ',
    }
}

fn short(name: &str) -> String {
    let s = match name {
        "Dominican Republic" => "Dominican Rep.",
        "West African States" => "W.African Sts.",
        "SE African States" => "SE African Sts",
        other => other,
    };
    s.chars().take(14).collect()
}

/// One country: `WFrance         3* 4  0 U`.
fn country_cell<'a>(game: &Game, id: arbiter_twilight::map::CountryId, pal: Palette) -> Line<'a> {
    let c = Map::standard().country(id);
    let st = game.state();
    let (us, ussr) = (st.inf(Side::Us, id), st.inf(Side::Ussr, id));
    let ctl = [Side::Us, Side::Ussr].into_iter().find(|s| st.controls(*s, id));
    let num = |n: u8, s: Side| {
        if n == 0 {
            Span::styled(format!("{:>2}", "."), pal.dim())
        } else {
            Span::styled(format!("{n:>2}"), pal.side(s))
        }
    };
    let name_style = match ctl {
        Some(s) => pal.side(s).add_modifier(Modifier::BOLD),
        None => Style::new(),
    };
    Line::from(vec![
        Span::raw(tag(c).to_string()),
        Span::styled(format!("{:<14}", short(&c.name)), name_style),
        Span::raw(format!(" {}{}", c.stability, if c.battleground { '*' } else { ' ' })),
        num(us, Side::Us),
        Span::raw(" "),
        num(ussr, Side::Ussr),
        Span::styled(
            match ctl {
                Some(Side::Us) => " U",
                Some(Side::Ussr) => " R",
                None => "  ",
            },
            ctl.map(|s| pal.side(s).add_modifier(Modifier::BOLD)).unwrap_or_default(),
        ),
    ])
}

fn level(l: Level) -> &'static str {
    match l {
        Level::None => "-",
        Level::Presence => "Pres",
        Level::Domination => "Dom",
        Level::Control => "Ctrl",
    }
}

/// A region's standing, in three parts: its name (abbreviated where long), what its scoring
/// card would give now ("USSR +3", "even", "US wins"), and each side's level, battlegrounds and
/// countries next to the enemy superpower it controls. The map's heading, `name: now`, fits a
/// cell at every score (25 characters).
pub fn region_summary(game: &Game, r: Region) -> (String, String, String) {
    let p = game.pos();
    let map = Map::standard();
    let s = scoring::score(p, r, ScoringTime::Card);
    let mut parts = Vec::new();
    for side in Side::BOTH {
        let bg = iter_mask(map.region_mask(r) & map.battleground_mask()).filter(|c| p.st.controls(side, *c)).count();
        let adj = iter_mask(map.region_mask(r) & map.superpower_mask(side.opponent())).filter(|c| p.st.controls(side, *c)).count();
        let adj = if adj > 0 { format!("+{adj}adj") } else { String::new() };
        parts.push(format!("{}:{} {bg}bg{adj}", if side == Side::Us { "U" } else { "R" }, level(s.level[side.idx()])));
    }
    let net = s.net();
    let now = if r == Region::Europe && s.level.contains(&Level::Control) {
        let w = if s.level[0] == Level::Control { Side::Us } else { Side::Ussr };
        format!("{w} wins")
    } else {
        match net {
            0 => "even".to_string(),
            n if n > 0 => format!("US +{n}"),
            n => format!("USSR +{}", -n),
        }
    };
    let name = match r {
        Region::CentralAmerica => "C. America",
        Region::SouthAmerica => "S. America",
        r => r.name(),
    };
    (name.to_string(), now, parts.join(" "))
}

pub(super) fn map(f: &mut Frame, game: &Game, _view: &View, start: usize, area: Rect, pal: Palette) {
    let map = Map::standard();
    let mut lines: Vec<Line> = Vec::new();
    for k in 0..Region::ALL.len() {
        let r = Region::ALL[(start + k) % Region::ALL.len()];
        let (name, now, standing) = region_summary(game, r);
        let head: String = format!("{name}: {now}").chars().take(25).collect();
        lines.push(Line::from(Span::styled(format!("{head:<25}"), Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED))));
        lines.push(Line::from(standing.chars().take(25).collect::<String>()));
        // As on the board: Western Europe, then the countries of both halves, then Eastern
        // Europe; Asia before Southeast Asia.
        let mut ids: Vec<_> = iter_mask(map.region_mask(r)).collect();
        ids.sort_by_key(|id| {
            let c = map.country(*id);
            let order = match tag(c) {
                'W' => 0,
                'B' => 1,
                'E' => 2,
                'S' => 4,
                _ => 3,
            };
            (order, c.name.clone())
        });
        let mut sea_done = false;
        for id in ids {
            if map.country(id).in_southeast_asia() && !sea_done {
                sea_done = true;
                let v = scoring::southeast_asia(game.state());
                let net = v[0] - v[1];
                let now = match net {
                    0 => "even".to_string(),
                    n if n > 0 => format!("US +{n}"),
                    n => format!("USSR +{}", -n),
                };
                lines.push(Line::from(Span::styled(format!("SE Asia: {now}"), Style::new().add_modifier(Modifier::BOLD))));
            }
            lines.push(country_cell(game, id, pal));
        }
    }
    let block = Block::new().borders(Borders::TOP).title(" Map: each region's score now (←/→ region) ");
    let inner = block.inner(area);
    f.render_widget(block, area);
    // Each column of countries under a heading of its fields (as `country_cell` lays them out):
    // stability (* a battleground), US and USSR Influence, who controls it.
    let h = (inner.height as usize).saturating_sub(1);
    if h == 0 {
        return;
    }
    let heading = Line::styled(format!("{:<16}{:<2}{:>2} {:>2}{:>2}", " country", "s", "US", "SU", "c"), pal.dim());
    let cols = (inner.width / CELL).max(1) as usize;
    for (i, chunk) in lines.chunks(h).take(cols).enumerate() {
        let r = Rect { x: inner.x + (i as u16) * CELL, y: inner.y, width: CELL.min(inner.width), height: inner.height };
        let column: Vec<Line> = std::iter::once(heading.clone()).chain(chunk.iter().cloned()).collect();
        f.render_widget(Paragraph::new(column), r);
    }
}

/// The card a move is about, if any.
fn card_of(m: &Move) -> Option<arbiter_twilight::CardId> {
    match *m {
        Move::Play { card, .. } | Move::Headline(card) | Move::Discard(card) | Move::Take(card) | Move::Cancel { card, .. } => Some(card),
        _ => None,
    }
}

/// The hand, the effects in play, and the newest log lines below them `with_log`.
fn side_panel(f: &mut Frame, app: &App, view: &View, area: Rect, pal: Palette, with_log: bool) {
    let game = app.game();
    let p = game.pos();
    let highlighted_card = app.highlighted().and_then(|t| game.parse(&t).ok()).as_ref().and_then(card_of);
    let mut hand: Vec<Line> = Vec::new();
    let side = view.viewer;
    let mut cards: Vec<arbiter_twilight::CardId> = view.hand.iter().filter_map(|n| game.rules().cards.by_name(n)).collect();
    if let Some(s) = side {
        if view.china_card.holder == s {
            cards.push(arbiter_twilight::CardId::CHINA);
        }
    }
    for id in &cards {
        let info = game.rules().cards.info(*id);
        let ops = crate::board::ops_label(p, *id, side);
        let owner = match info.side.side() {
            Some(Side::Us) => "US",
            Some(Side::Ussr) => "SU",
            None => "--",
        };
        let era = format!("{:?}", info.era).chars().next().unwrap_or(' ');
        let width = (area.width as usize).saturating_sub(10).max(8);
        let mut name = info.name.clone();
        if *id == arbiter_twilight::CardId::CHINA && !view.china_card.face_up {
            name.push_str(" (face down)");
        }
        let name: String = name.chars().take(width).collect();
        let style = info.side.side().map(|s| pal.side(s)).unwrap_or_default();
        let mut line = Line::from(vec![
            Span::raw(ops),
            Span::raw(" "),
            Span::raw(format!("{name:<width$} ")),
            Span::styled(owner, style),
            Span::raw(format!(" {era}{}", if info.starred { '*' } else { ' ' })),
        ]);
        if highlighted_card == Some(*id) {
            line = line.style(Style::new().add_modifier(Modifier::REVERSED));
        }
        hand.push(line);
    }
    let hand_title = match side {
        Some(s) => format!(" {s} hand ({}) ", view.hand.len()),
        None => " Hands hidden ".into(),
    };
    let mut effects: Vec<String> = view.effects.iter().map(|e| format!("{} ({})", e.card, e.owner)).collect();
    if !view.opponent_known.is_empty() {
        effects.push(format!("seen in the other hand: {}", view.opponent_known.join(", ")));
    }
    // The hand first, whole; then the effects; the log gets what is left.
    let hand_h = (hand.len() as u16 + 1).min(area.height);
    let effects_want = if effects.is_empty() { 0 } else { 1 + (effects.join(", ").chars().count() as u16 + 8).div_ceil(area.width.max(1)) };
    let effects_h = effects_want.min(area.height - hand_h);
    let [hand_area, effects_area, log_area] =
        Layout::vertical([Constraint::Length(hand_h), Constraint::Length(effects_h), Constraint::Min(0)]).areas(area);
    f.render_widget(Paragraph::new(hand).block(Block::new().borders(Borders::TOP).title(hand_title)), hand_area);
    if effects_h > 0 {
        f.render_widget(
            Paragraph::new(effects.join(", ")).wrap(Wrap { trim: true }).block(Block::new().borders(Borders::TOP).title(" In effect ")),
            effects_area,
        );
    }
    if !with_log {
        return;
    }
    // The newest lines, wrapped rather than cut, the last at the bottom.
    let block = Block::new().borders(Borders::TOP).title(" Log (› new; F2 all) ");
    let inner = block.inner(log_area);
    f.render_widget(block, log_area);
    let mut log = log_lines(app);
    let recent = log.split_off(log.len().saturating_sub(inner.height as usize));
    let p = Paragraph::new(recent).wrap(Wrap { trim: false });
    let over = (p.line_count(inner.width) as u16).saturating_sub(inner.height);
    f.render_widget(p.scroll((over, 0)), inner);
}

fn prompt(f: &mut Frame, app: &App, area: Rect, pal: Palette) {
    let game = app.game();
    let Some(d) = game.decision() else { return };
    // A long prompt or reply takes a second line rather than being cut.
    let w = area.width.max(1) as usize;
    let prompt_h = if d.prompt.chars().count() + 6 > w { 2 } else { 1 };
    let reply: String = app.message.iter().rev().take(2).rev().cloned().collect::<Vec<_>>().join(" | ");
    let status_h = if reply.chars().count() > w { 2 } else { 1 };
    let [prompt_area, input_area, lists, status] =
        Layout::vertical([Constraint::Length(prompt_h), Constraint::Length(1), Constraint::Min(1), Constraint::Length(status_h)])
            .areas(area);
    if app.viewer() != Some(d.side) {
        // Another side's decision: only what this side may read of it, never its moves.
        let text = game.view(app.viewer()).prompt.unwrap_or_default();
        let mut lines = vec![Line::styled(format!("Next: the {} decides. {text}", d.side), pal.side(d.side))];
        if let (Screen::Thinking(side), Some(c)) = (&app.screen, &app.computer) {
            let pct = c.percent();
            let bar: String = (0..20).map(|i| if i * 5 < pct { '█' } else { '░' }).collect();
            lines.push(Line::styled(
                format!("The computer ({side}, {}) is thinking: {bar} {pct:>3} %", c.agent),
                Style::new().add_modifier(Modifier::BOLD),
            ));
            lines.push(Line::from("PgUp/PgDn: scroll the log   F2: the log in place of the map   Ctrl-Q: leave (the game is saved)"));
        }
        if let Screen::EndOfRound { side, can_undo } = app.screen {
            lines.push(Line::styled(
                format!("End of your round, {side}: what your move did is in the log above."),
                Style::new().add_modifier(Modifier::BOLD),
            ));
            let enter = if app.computer.is_some() { "Enter: the computer answers." } else { "Enter: hand the keyboard over." };
            lines.push(Line::styled(enter, Style::new().add_modifier(Modifier::BOLD)));
            lines.push(Line::from(if can_undo {
                "u: take your last move back.   PgUp/PgDn: scroll the log."
            } else {
                "It revealed a die roll, a card or a choice: it cannot be taken back.   PgUp/PgDn: scroll the log."
            }));
            if app.may_interject() == Some(side) {
                lines.push(Line::from(format!("F4: interject now, while the {} decides (a move allowed \"at any time\").", d.side)));
            }
        }
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
        return;
    }
    // The prompt names its side already ("USSR setup: …"); else say whose it is.
    let who = if d.prompt.starts_with(&d.side.to_string()) { String::new() } else { format!("{}: ", d.side) };
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(who, pal.side(d.side).add_modifier(Modifier::BOLD)),
            Span::styled(d.prompt.clone(), Style::new().add_modifier(Modifier::BOLD)),
        ]))
        .wrap(Wrap { trim: false }),
        prompt_area,
    );
    let moves = app.filtered();
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(format!("{}> ", d.side), pal.side(d.side)),
            Span::raw(app.input.clone()),
            Span::styled("_", Style::new().add_modifier(Modifier::SLOW_BLINK)),
            Span::styled(format!("   {} of {} moves", moves.len(), d.moves.len()), pal.dim()),
            Span::styled(app.may_interject().map(|o| format!("   F4: the {o} may interject")).unwrap_or_default(), pal.dim()),
        ])),
        input_area,
    );
    // The list as wide as its longest move (up to 60%), the rest for the detail.
    let longest = moves.iter().map(|m| m.chars().count()).max().unwrap_or(20) as u16 + 5;
    let list_w = longest.clamp(24, lists.width * 3 / 5);
    let [list_area, detail_area] = Layout::horizontal([Constraint::Length(list_w), Constraint::Min(0)]).areas(lists);
    let h = list_area.height as usize;
    let first = app.selected.saturating_sub(h.saturating_sub(1));
    let list: Vec<Line> = moves
        .iter()
        .enumerate()
        .skip(first)
        .take(h)
        .map(|(i, m)| {
            let l = Line::from(format!("{:>3} {m}", i + 1));
            if i == app.selected {
                l.style(Style::new().add_modifier(Modifier::REVERSED))
            } else {
                l
            }
        })
        .collect();
    let list = if list.is_empty() && !app.input.trim().is_empty() {
        vec![Line::from("  (no legal move matches; Enter asks the referee why)")]
    } else {
        list
    };
    f.render_widget(Paragraph::new(list).wrap(Wrap { trim: false }), list_area);
    f.render_widget(Paragraph::new(detail(app)).wrap(Wrap { trim: false }).block(Block::new().borders(Borders::LEFT)), detail_area);
    let status_line = if app.message.is_empty() {
        Line::styled("Enter play · ↑↓ · type to filter · F1 help · F2 log · ^Z undo · ^Q quit", pal.dim())
    } else {
        Line::from(reply)
    };
    f.render_widget(Paragraph::new(status_line).wrap(Wrap { trim: false }), status);
}

/// The whole log as the side at the keyboard may read it, wrapped, newest last; `›` marks
/// what happened since that side last had the keyboard.
fn log_lines(app: &App) -> Vec<Line<'static>> {
    arbiter_store::log_for(app.session.header(), app.session.rows(), app.viewer().map(arbiter_twilight::contract::seat), app.session.game())
        .into_iter()
        .map(|e| {
            let news = e.seq > app.news_from;
            let mark = if news { '›' } else { ' ' };
            let style = if news { Style::new().add_modifier(Modifier::BOLD) } else { Style::new() };
            match (e.seq, e.heading) {
                (0, _) => Line::from(format!(" {}", e.text)),
                (_, true) => Line::styled(format!("{mark}{}", e.text), style.add_modifier(Modifier::UNDERLINED)),
                (_, false) => Line::styled(format!("{mark} {}", e.text), style),
            }
        })
        .collect()
}

fn log_panel(f: &mut Frame, app: &App, area: Rect) {
    let block = Block::new().borders(Borders::TOP).title(" Log (F2: back to the map; PgUp/PgDn scroll) ");
    let mut inner = block.inner(area);
    inner.width = inner.width.saturating_sub(1); // a gap before the hand
    f.render_widget(block, area);
    let p = Paragraph::new(log_lines(app)).wrap(Wrap { trim: false });
    let total = p.line_count(inner.width) as u16;
    let bottom = total.saturating_sub(inner.height);
    let top = bottom.saturating_sub(app.log_scroll.min(u16::MAX as usize) as u16);
    f.render_widget(p.scroll((top, 0)), inner);
}

/// What the highlighted move is about: its card's text and Ops now, or the country with its
/// neighbours and, for a coup or realignment, the odds from the engine's own pipelines.
fn detail<'a>(app: &App) -> Vec<Line<'a>> {
    let game = app.game();
    let Some(side) = game.to_move() else { return Vec::new() };
    let Some(m) = app.highlighted().and_then(|t| game.parse(&t).ok()) else {
        // Typed words that are no move but name a card: what the card does (an effect in play,
        // a card in the discard pile, one seen in the other hand).
        let typed = app.input.trim().trim_matches('"');
        if typed.len() >= 3 {
            if let Ok(id) = arbiter_twilight::moves::find_card(typed, &game.rules().cards) {
                let info = game.rules().cards.info(id);
                return vec![
                    Line::styled(format!("{} · {} Ops · {:?}", info.name, info.ops, info.era), Style::new().add_modifier(Modifier::BOLD)),
                    Line::from(arbiter_twilight_cards::text(id).to_string()),
                ];
            }
        }
        let (name, now, standing) = region_summary(game, Region::ALL[app.region]);
        return vec![Line::from(format!("{name} scores {now}")), Line::from(standing)];
    };
    if let Some(card) = card_of(&m) {
        let info = game.rules().cards.info(card);
        let mut out = vec![Line::styled(
            format!(
                "{} · {} Ops · {:?} · {}{}",
                info.name,
                info.ops,
                info.era,
                info.side.side().map(|s| format!("{s} event")).unwrap_or("both sides".into()),
                if info.starred { " · removed after its event" } else { "" }
            ),
            Style::new().add_modifier(Modifier::BOLD),
        )];
        if info.scoring {
            if let Some(r) = Region::ALL.into_iter().find(|r| info.name.starts_with(r.name())) {
                let (name, now, standing) = region_summary(game, r);
                out.push(Line::from(format!("Now: {name} scores {now}; {standing}")));
            }
        }
        if let Move::Play { mode: arbiter_twilight::PlayMode::Space, .. } = m {
            let b = game.state().space[side.idx()] as usize;
            if let Some(next) = BOXES.get(b) {
                out.push(Line::from(format!(
                    "Space race: box {} ({}) needs a roll of 1-{} ({}%); the event does not happen (§6.4)",
                    b + 1,
                    next.name,
                    next.max_roll,
                    next.max_roll as u32 * 100 / 6
                )));
            }
            return out;
        }
        out.push(Line::from(arbiter_twilight_cards::text(card).to_string()));
        return out;
    }
    let country = match m {
        Move::Influence(c) | Move::Remove(c) | Move::Coup(c) | Move::Realign(c) | Move::Target(c) => c,
        _ => return Vec::new(),
    };
    let map = Map::standard();
    let c = map.country(country);
    let mut neighbours: Vec<&str> = c.adjacent.iter().map(|a| map.name(*a)).collect();
    if let Some(sp) = c.superpower {
        neighbours.push(if sp == Side::Us { "USA" } else { "USSR" });
    }
    let st = game.state();
    let mut out = vec![
        Line::styled(
            format!("{} · {} · stability {}{}", c.name, c.region, c.stability, if c.battleground { " · battleground" } else { "" }),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Line::from(format!("Influence US {} USSR {}", st.inf(Side::Us, country), st.inf(Side::Ussr, country))),
    ];
    let odds = match m {
        Move::Coup(_) => crate::odds::odds(game, side, &format!("coup {}", c.name)),
        Move::Realign(_) => crate::odds::odds(game, side, &format!("realign {}", c.name)),
        _ => String::new(),
    };
    out.extend(odds.lines().map(|l| Line::from(l.to_string())));
    out.push(Line::from(format!("Neighbours: {}", neighbours.join(", "))));
    out
}
