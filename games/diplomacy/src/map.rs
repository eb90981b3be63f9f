//! The standard map (`data/standard.json`, the project's own file), loaded once and validated:
//! 75 provinces (sea, coastal, inland; the split coasts of Spain, St Petersburg and Bulgaria),
//! 34 supply centres, the seven powers' home centres and 1901 units, and the adjacencies of
//! armies (between provinces) and fleets (between seas and coasts, by coast).
//!
//! A location (`Loc`) is a province, or one coast of a province with split coasts: a fleet on
//! a split-coast province is always on one of its coasts; an army is on the province.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;

/// A province, by its index in the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Province(pub u8);

/// A location: a province (index below the number of provinces) or a coast of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Loc(pub u8);

/// A power, by its index in the map (Austria, England, France, Germany, Italy, Russia, Turkey).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Power(pub u8);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Terrain {
    Sea,
    Coast,
    Inland,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Coast {
    #[serde(rename = "nc")]
    North,
    #[serde(rename = "sc")]
    South,
    #[serde(rename = "ec")]
    East,
}

impl Coast {
    pub fn abbreviation(self) -> &'static str {
        match self {
            Coast::North => "nc",
            Coast::South => "sc",
            Coast::East => "ec",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnitKind {
    Army,
    Fleet,
}

impl UnitKind {
    pub fn letter(self) -> &'static str {
        match self {
            UnitKind::Army => "A",
            UnitKind::Fleet => "F",
        }
    }
}

pub struct ProvinceData {
    pub id: String,
    pub name: String,
    pub terrain: Terrain,
    pub supply_centre: bool,
    pub home: Option<Power>,
    /// Its coasts, where it has split coasts: each a location of its own.
    pub coasts: Vec<(Coast, Loc)>,
    /// Where the province is drawn, on a plane of [`DRAWING`] (a schematic board: a node per
    /// province, the adjacencies as lines).
    pub at: [u16; 2],
}

pub struct PowerData {
    pub id: String,
    pub name: String,
    pub units: Vec<(UnitKind, Loc)>,
}

/// Adjacency as bit sets, one a province or location (the map has fewer than 128 of each).
type Bits = u128;

pub struct Map {
    pub provinces: Vec<ProvinceData>,
    pub powers: Vec<PowerData>,
    /// Each location's province and coast.
    locs: Vec<(Province, Option<Coast>)>,
    army: Vec<Bits>,
    fleet: Vec<Bits>,
    /// Ids, names and aliases, lower case, to provinces.
    names: HashMap<String, Province>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[allow(dead_code)] // read by people
    name: String,
    powers: Vec<FilePower>,
    provinces: Vec<FileProvince>,
    army: Vec<[String; 2]>,
    fleet: Vec<[String; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FilePower {
    id: String,
    name: String,
    units: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileProvince {
    id: String,
    name: String,
    #[serde(rename = "type")]
    terrain: Terrain,
    #[serde(default)]
    supply_centre: bool,
    home: Option<String>,
    #[serde(default)]
    coasts: Vec<FileCoast>,
    #[serde(default)]
    aliases: Vec<String>,
    /// Where a board drawn from the map puts the province: x and y on a plane of
    /// [`DRAWING`].
    at: [u16; 2],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileCoast {
    id: Coast,
    #[allow(dead_code)] // read by people
    name: String,
}

/// The width and height of the plane provinces are drawn on.
pub const DRAWING: [u16; 2] = [1000, 800];

/// The standard map's file, as a board drawn from it reads it.
pub const STANDARD: &str = include_str!("../data/standard.json");

/// The standard map, loaded and checked on first use.
pub fn standard() -> &'static Map {
    static MAP: OnceLock<Map> = OnceLock::new();
    MAP.get_or_init(|| match Map::parse(STANDARD) {
        Ok(m) => m,
        // The file is compiled in and checked by the tests: a bad one is a build defect.
        Err(e) => panic!("data/standard.json: {e}"),
    })
}

impl Map {
    /// Read and validate a map file.
    pub fn parse(text: &str) -> Result<Map, String> {
        let f: File = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let n = f.provinces.len();
        if n == 0 || n > 127 {
            return Err(format!("{n} provinces: a map has 1 to 127"));
        }
        let power_of = |id: &str| f.powers.iter().position(|p| p.id == id).map(|i| Power(i as u8));
        let mut names: HashMap<String, Province> = HashMap::new();
        let mut provinces = Vec::new();
        let mut locs: Vec<(Province, Option<Coast>)> = (0..n).map(|i| (Province(i as u8), None)).collect();
        for (i, p) in f.provinces.iter().enumerate() {
            let province = Province(i as u8);
            for name in [&p.id, &p.name].into_iter().chain(&p.aliases) {
                if names.insert(name.to_lowercase(), province).is_some() {
                    return Err(format!("the name {name:?} is given twice"));
                }
            }
            let home = match &p.home {
                Some(h) => Some(power_of(h).ok_or_else(|| format!("{}: no power {h:?}", p.id))?),
                None => None,
            };
            if home.is_some() && !p.supply_centre {
                return Err(format!("{}: a home centre must be a supply centre", p.id));
            }
            if p.at[0] > DRAWING[0] || p.at[1] > DRAWING[1] {
                return Err(format!("{}: drawn at {:?}, off the {}-by-{} plane", p.id, p.at, DRAWING[0], DRAWING[1]));
            }
            if !p.coasts.is_empty() && p.terrain != Terrain::Coast {
                return Err(format!("{}: only a coastal province has coasts", p.id));
            }
            let mut coasts = Vec::new();
            for c in &p.coasts {
                if coasts.iter().any(|(x, _)| *x == c.id) {
                    return Err(format!("{}: coast {} twice", p.id, c.id.abbreviation()));
                }
                let loc = Loc(locs.len() as u8);
                locs.push((province, Some(c.id)));
                coasts.push((c.id, loc));
            }
            provinces.push(ProvinceData {
                id: p.id.clone(),
                name: p.name.clone(),
                terrain: p.terrain,
                supply_centre: p.supply_centre,
                home,
                coasts,
                at: p.at,
            });
        }
        if locs.len() > 127 {
            return Err("more than 127 locations".into());
        }
        let mut map = Map { provinces, powers: Vec::new(), army: vec![0; n], fleet: vec![0; locs.len()], locs, names };
        for [a, b] in &f.army {
            let (x, y) = (map.exact(a)?, map.exact(b)?);
            for l in [x, y] {
                if map.coast(l).is_some() || map.terrain(map.province(l)) == Terrain::Sea {
                    return Err(format!("army {a}-{b}: an army moves between land provinces, not coasts or seas"));
                }
            }
            if x == y || map.army[usize::from(x.0)] & bit(y) != 0 {
                return Err(format!("army {a}-{b}: twice, or to itself"));
            }
            map.army[usize::from(x.0)] |= bit(y);
            map.army[usize::from(y.0)] |= bit(x);
        }
        for [a, b] in &f.fleet {
            let (x, y) = (map.exact(a)?, map.exact(b)?);
            for l in [x, y] {
                let p = map.province(l);
                if map.terrain(p) == Terrain::Inland {
                    return Err(format!("fleet {a}-{b}: a fleet never goes inland"));
                }
                if map.coast(l).is_none() && !map.provinces[usize::from(p.0)].coasts.is_empty() {
                    return Err(format!("fleet {a}-{b}: name the coast of {}", map.provinces[usize::from(p.0)].id));
                }
            }
            if map.province(x) == map.province(y) || map.fleet[usize::from(x.0)] & bit(y) != 0 {
                return Err(format!("fleet {a}-{b}: twice, or within one province"));
            }
            map.fleet[usize::from(x.0)] |= bit(y);
            map.fleet[usize::from(y.0)] |= bit(x);
        }
        // Every coastal province borders water, every sea another place.
        for (i, p) in map.provinces.iter().enumerate() {
            let at = |l: Loc| map.fleet[usize::from(l.0)] != 0;
            let wet = match p.coasts.is_empty() {
                true => at(Loc(i as u8)),
                false => p.coasts.iter().all(|(_, l)| at(*l)),
            };
            if (p.terrain != Terrain::Inland) != wet {
                return Err(format!("{}: a sea or coast has fleet adjacencies (every coast of it), an inland province none", p.id));
            }
        }
        for p in &f.powers {
            let mut units = Vec::new();
            for u in &p.units {
                let (kind, at) = u.split_once(' ').ok_or_else(|| format!("{}: unit {u:?}", p.id))?;
                let kind = match kind {
                    "A" => UnitKind::Army,
                    "F" => UnitKind::Fleet,
                    _ => return Err(format!("{}: unit {u:?}: A or F", p.id)),
                };
                let loc = map.exact(at)?;
                if !map.can_stand(kind, loc) {
                    return Err(format!("{}: a unit {u:?} cannot stand there", p.id));
                }
                units.push((kind, loc));
            }
            map.powers.push(PowerData { id: p.id.clone(), name: p.name.clone(), units });
        }
        Ok(map)
    }

    /// The location an id names exactly (`spa/sc`, `par`).
    fn exact(&self, id: &str) -> Result<Loc, String> {
        let (p, c) = match id.split_once('/') {
            Some((p, c)) => (p, Some(c)),
            None => (id, None),
        };
        let province = self.provinces.iter().position(|x| x.id == p).ok_or_else(|| format!("no province {p:?}"))?;
        match c {
            None => Ok(Loc(province as u8)),
            Some(c) => self.provinces[province]
                .coasts
                .iter()
                .find(|(x, _)| x.abbreviation() == c)
                .map(|(_, l)| *l)
                .ok_or_else(|| format!("no coast {id:?}")),
        }
    }

    /// The province a name, id or alias names (any case).
    pub fn find(&self, name: &str) -> Option<Province> {
        self.names.get(&name.to_lowercase()).copied()
    }

    pub fn province(&self, l: Loc) -> Province {
        self.locs[usize::from(l.0)].0
    }

    pub fn coast(&self, l: Loc) -> Option<Coast> {
        self.locs[usize::from(l.0)].1
    }

    pub fn terrain(&self, p: Province) -> Terrain {
        self.provinces[usize::from(p.0)].terrain
    }

    pub fn data(&self, p: Province) -> &ProvinceData {
        &self.provinces[usize::from(p.0)]
    }

    /// The location of `p`'s coast `c`, or the province itself with no coast named.
    pub fn loc(&self, p: Province, c: Option<Coast>) -> Option<Loc> {
        match c {
            None => Some(Loc(p.0)),
            Some(c) => self.data(p).coasts.iter().find(|(x, _)| *x == c).map(|(_, l)| *l),
        }
    }

    /// The location's short name: `Par`, `Spa/sc`.
    pub fn short(&self, l: Loc) -> String {
        let id = &self.data(self.province(l)).id;
        let mut s: String = id.chars().take(1).flat_map(char::to_uppercase).chain(id.chars().skip(1)).collect();
        if let Some(c) = self.coast(l) {
            s.push('/');
            s.push_str(c.abbreviation());
        }
        s
    }

    /// The location's full name: `Paris`, `Spain (south coast)`.
    pub fn long(&self, l: Loc) -> String {
        let name = &self.data(self.province(l)).name;
        match self.coast(l) {
            None => name.clone(),
            Some(c) => format!(
                "{name} ({} coast)",
                match c {
                    Coast::North => "north",
                    Coast::South => "south",
                    Coast::East => "east",
                }
            ),
        }
    }

    /// Whether a unit of `kind` may stand at `l`: an army on a land province (never a coast
    /// of one), a fleet at sea, on a coastal province without split coasts, or on a coast.
    pub fn can_stand(&self, kind: UnitKind, l: Loc) -> bool {
        let p = self.province(l);
        match kind {
            UnitKind::Army => self.coast(l).is_none() && self.terrain(p) != Terrain::Sea,
            UnitKind::Fleet => match self.terrain(p) {
                Terrain::Inland => false,
                Terrain::Sea => true,
                Terrain::Coast => self.coast(l).is_some() || self.data(p).coasts.is_empty(),
            },
        }
    }

    /// Whether an army may move from province `a` to province `b` by land.
    pub fn army_adjacent(&self, a: Province, b: Province) -> bool {
        self.army[usize::from(a.0)] & bit(Loc(b.0)) != 0
    }

    /// Whether a fleet may move from location `a` to location `b`.
    pub fn fleet_adjacent(&self, a: Loc, b: Loc) -> bool {
        self.fleet[usize::from(a.0)] & bit(b) != 0
    }

    /// The locations of province `p` a fleet at `from` may move to.
    pub fn fleet_targets(&self, from: Loc, p: Province) -> Vec<Loc> {
        let d = self.data(p);
        match d.coasts.is_empty() {
            true => vec![Loc(p.0)].into_iter().filter(|l| self.fleet_adjacent(from, *l)).collect(),
            false => d.coasts.iter().map(|(_, l)| *l).filter(|l| self.fleet_adjacent(from, *l)).collect(),
        }
    }

    /// Whether a unit of `kind` at `from` may move to province `to` (by land or sea; an army
    /// by convoy is not counted here).
    pub fn reaches(&self, kind: UnitKind, from: Loc, to: Province) -> bool {
        match kind {
            UnitKind::Army => self.army_adjacent(self.province(from), to),
            UnitKind::Fleet => !self.fleet_targets(from, to).is_empty(),
        }
    }

    /// The provinces adjacent to `p` by sea: every location of `p` and its fleet neighbours.
    pub fn sea_neighbours(&self, p: Province) -> impl Iterator<Item = Province> + '_ {
        let d = self.data(p);
        let locs: Vec<Loc> = if d.coasts.is_empty() { vec![Loc(p.0)] } else { d.coasts.iter().map(|(_, l)| *l).collect() };
        let mut bits: Bits = 0;
        for l in locs {
            bits |= self.fleet[usize::from(l.0)];
        }
        (0..self.locs.len()).filter(move |i| bits & (1u128 << i) != 0).map(|i| self.locs[i].0)
    }

    /// The number of locations (provinces, then the coasts of split-coast provinces).
    pub fn location_count(&self) -> usize {
        self.locs.len()
    }

    pub fn province_count(&self) -> usize {
        self.provinces.len()
    }

    /// The power a name or id names (any case).
    pub fn power(&self, name: &str) -> Option<Power> {
        self.powers.iter().position(|p| p.id.eq_ignore_ascii_case(name) || p.name.eq_ignore_ascii_case(name)).map(|i| Power(i as u8))
    }
}

fn bit(l: Loc) -> Bits {
    1u128 << l.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_standard_map_is_valid_and_as_published() {
        let m = standard();
        assert_eq!(m.provinces.len(), 75);
        assert_eq!(m.provinces.iter().filter(|p| p.supply_centre).count(), 34);
        assert_eq!(m.provinces.iter().filter(|p| p.terrain == Terrain::Sea).count(), 19);
        assert_eq!(m.provinces.iter().filter(|p| p.home.is_some()).count(), 22);
        assert_eq!(m.powers.len(), 7);
        assert_eq!(m.powers.iter().map(|p| p.units.len()).sum::<usize>(), 22);
        let p = |n: &str| m.find(n).unwrap();
        assert!(m.army_adjacent(p("Paris"), p("bur")));
        assert!(!m.army_adjacent(p("Paris"), p("Marseilles")));
        let spa_sc = m.loc(p("spa"), Some(Coast::South)).unwrap();
        let spa_nc = m.loc(p("spa"), Some(Coast::North)).unwrap();
        assert!(m.fleet_adjacent(spa_sc, Loc(p("Gulf of Lyon").0)));
        assert!(!m.fleet_adjacent(spa_nc, Loc(p("gol").0)));
        assert_eq!(m.fleet_targets(Loc(p("mao").0), p("spa")).len(), 2);
        assert_eq!(m.fleet_targets(Loc(p("Gascony").0), p("spa")), vec![spa_nc]);
        assert!(!m.can_stand(UnitKind::Fleet, Loc(p("spa").0)), "a fleet in Spain is on a coast");
        assert!(!m.can_stand(UnitKind::Army, Loc(p("nth").0)));
        assert!(m.fleet_adjacent(Loc(p("kie").0), Loc(p("bal").0)) && m.fleet_adjacent(Loc(p("kie").0), Loc(p("hel").0)), "Kiel's canal");
        // A drawn board: no two provinces closer than a node's width apart.
        for (i, a) in m.provinces.iter().enumerate() {
            for b in &m.provinces[i + 1..] {
                let d = (f64::from(a.at[0]) - f64::from(b.at[0])).hypot(f64::from(a.at[1]) - f64::from(b.at[1]));
                assert!(d >= 40.0, "{} and {} are drawn {d:.0} apart", a.id, b.id);
            }
        }
    }

    #[test]
    fn a_bad_map_is_refused_with_its_fault() {
        let good = include_str!("../data/standard.json");
        for (from, to, says) in [
            ("[\"par\", \"bur\"]", "[\"par\", \"nth\"]", "not coasts or seas"),
            ("[\"nth\", \"ska\"]", "[\"nth\", \"par\"]", "never goes inland"),
            ("[\"mao\", \"spa/nc\"]", "[\"mao\", \"spa\"]", "name the coast"),
            ("\"home\": \"france\"", "\"home\": \"atlantis\"", "no power"),
            ("\"at\": [290, 470]", "\"at\": [290, 1470]", "off the 1000-by-800 plane"),
        ] {
            assert!(good.contains(from), "{from}");
            let bad = good.replacen(from, to, 1);
            let e = Map::parse(&bad).err().unwrap_or_default();
            assert!(e.contains(says), "{from} -> {to}: {e}");
        }
    }
}
