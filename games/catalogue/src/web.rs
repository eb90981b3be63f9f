//! Each game's browser client, as the server offers it: Twilight Struggle's table (its map and
//! cards as data), Minesweeper's board, Mafia's table, Diplomacy's board (its map file as
//! data).

use arbiter_server::{Asset, Offered, WebClient};
use serde_json::{json, Value};

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// Every game this build offers over the network, the default first.
pub fn offered() -> Vec<Offered> {
    vec![
        Offered::new(&crate::TWILIGHT_STRUGGLE, twilight_struggle()).reading_unnamed_files(),
        Offered::new(&crate::MINESWEEPER, minesweeper()),
        Offered::new(&crate::MAFIA, mafia()),
        Offered::new(&crate::DIPLOMACY, diplomacy()),
    ]
}

fn twilight_struggle() -> WebClient {
    WebClient {
        page: include_str!("../web/twilight-struggle/play.html"),
        files: vec![
            Asset { name: "app.js", content_type: JS, body: include_str!("../web/twilight-struggle/app.js") },
            Asset { name: "style.css", content_type: CSS, body: include_str!("../web/twilight-struggle/style.css") },
        ],
        data: vec![("map", map()), ("cards", cards())],
    }
}

fn minesweeper() -> WebClient {
    WebClient {
        page: include_str!("../../minesweeper/web/play.html"),
        files: vec![
            Asset { name: "app.js", content_type: JS, body: include_str!("../../minesweeper/web/app.js") },
            Asset { name: "style.css", content_type: CSS, body: include_str!("../../minesweeper/web/style.css") },
        ],
        data: Vec::new(),
    }
}

fn mafia() -> WebClient {
    WebClient {
        page: include_str!("../../mafia/web/play.html"),
        files: vec![
            Asset { name: "app.js", content_type: JS, body: include_str!("../../mafia/web/app.js") },
            Asset { name: "style.css", content_type: CSS, body: include_str!("../../mafia/web/style.css") },
        ],
        data: Vec::new(),
    }
}

fn diplomacy() -> WebClient {
    WebClient {
        page: include_str!("../../diplomacy/web/play.html"),
        files: vec![
            Asset { name: "app.js", content_type: JS, body: include_str!("../../diplomacy/web/app.js") },
            Asset { name: "style.css", content_type: CSS, body: include_str!("../../diplomacy/web/style.css") },
        ],
        // The map file itself: provinces (where each is drawn), coasts, adjacencies.
        data: vec![("map", serde_json::from_str(arbiter_diplomacy::map::STANDARD).expect("the map file is JSON (checked by its tests)"))],
    }
}

/// The board, for the client to draw.
fn map() -> Value {
    let map = arbiter_twilight::map::Map::standard();
    let countries: Vec<Value> = map
        .ids()
        .map(|id| {
            let c = map.country(id);
            json!({
                "name": c.name,
                "region": c.region.name(),
                "subregions": c.subregions.iter().map(|s| s.name()).collect::<Vec<_>>(),
                "stability": c.stability,
                "battleground": c.battleground,
                "adjacent": c.adjacent.iter().map(|a| map.name(*a)).collect::<Vec<_>>(),
                "superpower": c.superpower,
            })
        })
        .collect();
    json!({ "countries": countries })
}

/// The cards, with their texts.
fn cards() -> Value {
    let rules = arbiter_twilight_cards::ruleset();
    let cards: Vec<Value> = rules
        .cards
        .all()
        .map(|c| {
            json!({
                "id": c.id.0, "name": c.name, "ops": c.ops, "side": c.side.side(), "era": format!("{:?}", c.era),
                "starred": c.starred, "scoring": c.scoring, "optional": c.optional, "text": arbiter_twilight_cards::text(c.id),
            })
        })
        .collect();
    json!({ "cards": cards })
}
