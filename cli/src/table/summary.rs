//! The end of a game: winner and reason, VP at the end of each turn as a small chart, and the
//! key moments (scorings, DEFCON changes, space race firsts, the end) from the public log.

use super::app::App;
use super::render::{tracks, Palette};
use arbiter_store::Replay;
use ratatui::layout::{Constraint, Layout};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use ratatui::Frame;

/// VP (positive for the US) when each turn ended, and where the game stopped: replayed from
/// the saved moves, so it is the record's own account.
pub fn vp_by_turn(app: &App) -> Vec<(u8, i8)> {
    let Ok(mut replay) = Replay::new(app.session.header().clone(), app.session.rows().to_vec(), &arbiter_games::TWILIGHT_STRUGGLE) else {
        return Vec::new();
    };
    let ts = |r: &Replay| arbiter_kernel::downcast::<arbiter_twilight::Game>(r.game()).map(|g| (g.state().turn, g.state().vp));
    let Some(mut last) = ts(&replay) else { return Vec::new() };
    let mut out: Vec<(u8, i8)> = Vec::new();
    while let Ok(Some(_)) = replay.step() {
        let Some(st) = ts(&replay) else { break };
        // The move that ended a turn also ran its end (military ops penalties, §8.2): the VP
        // after it are that turn's, before anything of the next.
        if st.0 != last.0 {
            out.push((last.0, st.1));
        }
        last = st;
    }
    out.push(last);
    out
}

/// One line a turn: `T 3 US 5   ····|█████     `, the bar from the centre towards the side
/// ahead, 20 VP at the edge.
pub fn chart(points: &[(u8, i8)], half: usize) -> Vec<String> {
    points
        .iter()
        .map(|(t, vp)| {
            let n = ((vp.unsigned_abs() as usize) * half).div_ceil(20).min(half);
            let (left, right) = if *vp < 0 { ("█".repeat(n), String::new()) } else { (String::new(), "█".repeat(n)) };
            format!("T{t:>2} {:>8} {left:>half$}|{right:<half$}", arbiter_twilight::ctx::vp_text(*vp as i32))
        })
        .collect()
}

/// Public log lines a player would retell.
pub fn key_moments(app: &App) -> Vec<String> {
    let mut out = Vec::new();
    let mut turn = String::new();
    for r in app.session.rows() {
        for l in r.record.lines_for(None) {
            if l.starts_with("=== Turn") {
                turn = l.trim_matches(|c| c == '=' || c == ' ').to_string();
            }
            let key = l.contains(" scoring")
                || l.starts_with("DEFCON ")
                || l.contains("first to arrive")
                || l.starts_with("War in ")
                || l.starts_with("Military ops check")
                || l.starts_with("Game over");
            if key {
                out.push(format!("{turn}: {l}"));
            }
        }
    }
    out
}

pub fn draw(f: &mut Frame, app: &App, pal: Palette) {
    let game = app.game();
    let view = game.view(None);
    let area = f.area();
    let [top, head, body] = Layout::vertical([Constraint::Length(3), Constraint::Length(2), Constraint::Min(0)]).areas(area);
    f.render_widget(Paragraph::new(tracks(&view, pal)), top);
    let result = game.outcome().map(|o| o.to_string()).unwrap_or_else(|| "the game has no pending decision".into());
    f.render_widget(
        Paragraph::new(vec![
            Line::styled(format!("Game over: {result}"), Style::new().add_modifier(Modifier::BOLD)),
            Line::styled("Enter or q leaves; `arbiter log FILE` keeps the whole record.", Style::new()),
        ]),
        head,
    );
    let half = 10;
    let chart_w = (half * 2 + 14) as u16;
    let [left, right] = Layout::horizontal([Constraint::Length(chart_w + 1), Constraint::Min(0)]).areas(body);
    let mut lines: Vec<Line> = vec![Line::from(format!("{:>13}{:>half$}|{:<half$}", "", "USSR ◀", "▶ US"))];
    lines.extend(chart(app.vp_chart.get_or_init(|| vp_by_turn(app)), half).into_iter().map(Line::from));
    f.render_widget(Paragraph::new(lines).block(Block::new().borders(Borders::TOP).title(" VP at each turn's end ")), left);
    let moments: Vec<Line> = key_moments(app).into_iter().map(Line::from).collect();
    let block = Block::new().borders(Borders::TOP).title(" Key moments (PgUp/PgDn) ");
    let inner = block.inner(right);
    f.render_widget(block, right);
    let p = Paragraph::new(moments).wrap(Wrap { trim: false });
    let bottom = (p.line_count(inner.width) as u16).saturating_sub(inner.height);
    let top = bottom.saturating_sub(app.log_scroll.min(u16::MAX as usize) as u16);
    f.render_widget(p.scroll((top, 0)), inner);
}
