//! The map (§2.1): 84 countries in 6 regions, loaded once from `engine/data/map.json` and
//! validated against the rulebook's counts.

use crate::side::Side;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

/// Index of a country in [`Map::countries`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CountryId(pub u8);

impl CountryId {
    pub fn idx(self) -> usize {
        self.0 as usize
    }
    pub fn bit(self) -> u128 {
        1u128 << self.0
    }
}

/// A set of countries as a bitset over country numbers: cheap to copy and hash.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CountrySet(pub u128);

impl CountrySet {
    #[inline]
    pub fn contains(self, c: CountryId) -> bool {
        self.0 & c.bit() != 0
    }
    #[inline]
    pub fn insert(&mut self, c: CountryId) {
        self.0 |= c.bit();
    }
    #[inline]
    pub fn with(self, c: CountryId) -> CountrySet {
        CountrySet(self.0 | c.bit())
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// The six scoring regions (§2.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Region {
    Europe,
    Asia,
    MiddleEast,
    CentralAmerica,
    SouthAmerica,
    Africa,
}

impl Region {
    pub const ALL: [Region; 6] =
        [Region::Europe, Region::Asia, Region::MiddleEast, Region::CentralAmerica, Region::SouthAmerica, Region::Africa];

    pub fn name(self) -> &'static str {
        match self {
            Region::Europe => "Europe",
            Region::Asia => "Asia",
            Region::MiddleEast => "Middle East",
            Region::CentralAmerica => "Central America",
            Region::SouthAmerica => "South America",
            Region::Africa => "Africa",
        }
    }

    pub fn from_name(s: &str) -> Option<Region> {
        Region::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(s.trim()))
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Sub-regions (§2.1.1, §2.1.2). Austria and Finland are in both halves of Europe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SubRegion {
    EasternEurope,
    WesternEurope,
    SoutheastAsia,
}

impl SubRegion {
    pub fn name(self) -> &'static str {
        match self {
            SubRegion::EasternEurope => "Eastern Europe",
            SubRegion::WesternEurope => "Western Europe",
            SubRegion::SoutheastAsia => "Southeast Asia",
        }
    }
    fn from_name(s: &str) -> Option<SubRegion> {
        [SubRegion::EasternEurope, SubRegion::WesternEurope, SubRegion::SoutheastAsia].into_iter().find(|r| r.name() == s)
    }
}

#[derive(Debug, Clone)]
pub struct Country {
    pub id: CountryId,
    pub name: String,
    pub aliases: Vec<String>,
    pub region: Region,
    pub subregions: Vec<SubRegion>,
    pub stability: u8,
    pub battleground: bool,
    /// Adjacent countries (symmetric), superpower spaces excluded.
    pub adjacent: Vec<CountryId>,
    /// The superpower whose space touches this country, if any (§2.1.5).
    pub superpower: Option<Side>,
}

impl Country {
    pub fn in_sub(&self, s: SubRegion) -> bool {
        self.subregions.contains(&s)
    }
    /// Asia includes Southeast Asia (§2.1.2).
    pub fn in_asia(&self) -> bool {
        self.region == Region::Asia
    }
    pub fn in_southeast_asia(&self) -> bool {
        self.in_sub(SubRegion::SoutheastAsia)
    }
}

/// The whole map with name lookup.
#[derive(Debug)]
pub struct Map {
    pub countries: Vec<Country>,
    /// Fixed setup influence (§3.2, §3.3), per side.
    pub setup_fixed: [Vec<(CountryId, u8)>; 2],
    /// Free setup influence: US 7 in Western Europe, USSR 6 in Eastern Europe.
    pub setup_free: [u8; 2],
    region_masks: [u128; 6],
    sub_masks: [u128; 3],
    battleground_mask: u128,
    adjacency_masks: Vec<u128>,
    /// Countries adjacent to each superpower: [USA, USSR].
    superpower_masks: [u128; 2],
    /// Stability by country index, dense for fast scans.
    pub stabilities: Vec<u8>,
}

#[derive(Deserialize)]
struct RawMap {
    setup: RawSetup,
    countries: Vec<RawCountry>,
}
#[derive(Deserialize)]
struct RawSetup {
    ussr_fixed: BTreeMap<String, u8>,
    ussr_free: u8,
    us_fixed: BTreeMap<String, u8>,
    us_free: u8,
}
#[derive(Deserialize)]
struct RawCountry {
    name: String,
    region: String,
    sub: Vec<String>,
    stability: u8,
    bg: bool,
    adj: Vec<String>,
    #[serde(default)]
    aliases: Vec<String>,
}

/// Errors in the map data file.
#[derive(Debug, thiserror::Error)]
#[error("map data: {0}")]
pub struct MapError(pub String);

impl Map {
    /// The standard map, parsed and validated once.
    pub fn standard() -> &'static Map {
        static MAP: OnceLock<Map> = OnceLock::new();
        MAP.get_or_init(|| Map::parse(include_str!("../data/map.json")).unwrap_or_else(|e| panic!("the built-in map is invalid: {e}")))
    }

    pub fn parse(json: &str) -> Result<Map, MapError> {
        let raw: RawMap = serde_json::from_str(json).map_err(|e| MapError(e.to_string()))?;
        let names: Vec<&str> = raw.countries.iter().map(|c| c.name.as_str()).collect();
        let find = |n: &str| -> Result<CountryId, MapError> {
            names.iter().position(|x| *x == n).map(|i| CountryId(i as u8)).ok_or_else(|| MapError(format!("unknown country {n:?}")))
        };
        let mut countries = Vec::new();
        for (i, c) in raw.countries.iter().enumerate() {
            let region = Region::from_name(&c.region).ok_or_else(|| MapError(format!("{}: unknown region {:?}", c.name, c.region)))?;
            let subregions = c
                .sub
                .iter()
                .map(|s| SubRegion::from_name(s).ok_or_else(|| MapError(format!("unknown sub-region {s:?}"))))
                .collect::<Result<Vec<_>, _>>()?;
            let mut adjacent = Vec::new();
            let mut superpower = None;
            for a in &c.adj {
                match a.as_str() {
                    "USA" => superpower = Some(Side::Us),
                    "USSR" => superpower = Some(Side::Ussr),
                    _ => adjacent.push(find(a)?),
                }
            }
            countries.push(Country {
                id: CountryId(i as u8),
                name: c.name.clone(),
                aliases: c.aliases.clone(),
                region,
                subregions,
                stability: c.stability,
                battleground: c.bg,
                adjacent,
                superpower,
            });
        }
        // §2.1.6: adjacency is symmetric.
        for c in &countries {
            for a in &c.adjacent {
                if !countries[a.idx()].adjacent.contains(&c.id) {
                    return Err(MapError(format!("{} lists {} but not the reverse", c.name, countries[a.idx()].name)));
                }
            }
        }
        let fixed =
            |m: &BTreeMap<String, u8>| -> Result<Vec<(CountryId, u8)>, MapError> { m.iter().map(|(n, v)| Ok((find(n)?, *v))).collect() };
        let mut map = Map {
            setup_fixed: [fixed(&raw.setup.us_fixed)?, fixed(&raw.setup.ussr_fixed)?],
            setup_free: [raw.setup.us_free, raw.setup.ussr_free],
            countries,
            region_masks: [0; 6],
            sub_masks: [0; 3],
            battleground_mask: 0,
            adjacency_masks: Vec::new(),
            superpower_masks: [0; 2],
            stabilities: Vec::new(),
        };
        map.stabilities = map.countries.iter().map(|c| c.stability).collect();
        for c in &map.countries {
            map.region_masks[c.region as usize] |= c.id.bit();
            for s in &c.subregions {
                map.sub_masks[*s as usize] |= c.id.bit();
            }
            if c.battleground {
                map.battleground_mask |= c.id.bit();
            }
            if let Some(s) = c.superpower {
                map.superpower_masks[s.idx()] |= c.id.bit();
            }
        }
        map.adjacency_masks = map.countries.iter().map(|c| c.adjacent.iter().fold(0u128, |m, a| m | a.bit())).collect();
        map.validate()?;
        Ok(map)
    }

    /// The rulebook's counts (§2.1): 84 countries, 29 battlegrounds, regions 21/15/10/10/10/18.
    fn validate(&self) -> Result<(), MapError> {
        let check = |what: &str, got: usize, want: usize| {
            if got == want {
                Ok(())
            } else {
                Err(MapError(format!("{what}: {got}, expected {want}")))
            }
        };
        check("countries", self.countries.len(), 84)?;
        check("battlegrounds", self.battleground_mask.count_ones() as usize, 29)?;
        let want = [21, 15, 10, 10, 10, 18];
        let bgs = [5, 6, 6, 3, 4, 5];
        for (i, r) in Region::ALL.iter().enumerate() {
            check(r.name(), self.region_masks[i].count_ones() as usize, want[i])?;
            check(&format!("{} battlegrounds", r.name()), (self.region_masks[i] & self.battleground_mask).count_ones() as usize, bgs[i])?;
        }
        let edges: usize = self.countries.iter().map(|c| c.adjacent.len()).sum::<usize>() / 2;
        check("adjacency edges", edges, 112)?;
        check("superpower edges", self.countries.iter().filter(|c| c.superpower.is_some()).count(), 9)?;
        let total = |s: Side| self.setup_fixed[s.idx()].iter().map(|x| x.1 as usize).sum::<usize>() + self.setup_free[s.idx()] as usize;
        check("US setup influence", total(Side::Us), 25)?;
        check("USSR setup influence", total(Side::Ussr), 15)?;
        Ok(())
    }

    pub fn country(&self, id: CountryId) -> &Country {
        &self.countries[id.idx()]
    }
    pub fn name(&self, id: CountryId) -> &str {
        &self.countries[id.idx()].name
    }
    pub fn ids(&self) -> impl Iterator<Item = CountryId> + '_ {
        (0..self.countries.len()).map(|i| CountryId(i as u8))
    }
    /// Exact (case-insensitive) lookup by name or alias.
    pub fn by_name(&self, name: &str) -> Option<CountryId> {
        let n = name.trim();
        self.countries.iter().find(|c| c.name.eq_ignore_ascii_case(n) || c.aliases.iter().any(|a| a.eq_ignore_ascii_case(n))).map(|c| c.id)
    }
    /// The id of a country the program itself names: a typo here is a programming error.
    pub fn id(&self, name: &str) -> CountryId {
        self.by_name(name).unwrap_or_else(|| panic!("no country named {name:?} on the map"))
    }
    pub fn region_mask(&self, r: Region) -> u128 {
        self.region_masks[r as usize]
    }
    pub fn sub_mask(&self, s: SubRegion) -> u128 {
        self.sub_masks[s as usize]
    }
    /// Every country of the map.
    pub fn all_mask(&self) -> u128 {
        match self.countries.len() {
            128.. => u128::MAX,
            n => (1u128 << n) - 1,
        }
    }
    pub fn battleground_mask(&self) -> u128 {
        self.battleground_mask
    }
    pub fn adjacency_mask(&self, id: CountryId) -> u128 {
        self.adjacency_masks[id.idx()]
    }
    /// Countries adjacent to `side`'s superpower space (§2.1.5).
    pub fn superpower_mask(&self, side: Side) -> u128 {
        self.superpower_masks[side.idx()]
    }
}

/// Iterate the set bits of a country mask as ids.
pub fn iter_mask(m: u128) -> impl Iterator<Item = CountryId> {
    crate::bits::set_bits(m).map(CountryId)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_map_loads_and_validates() {
        let m = Map::standard();
        assert_eq!(m.countries.len(), 84);
        let austria = m.country(m.id("Austria"));
        assert!(austria.in_sub(SubRegion::EasternEurope) && austria.in_sub(SubRegion::WesternEurope));
        assert_eq!(m.country(m.id("Cuba")).superpower, Some(Side::Us));
        assert_eq!(m.country(m.id("North Korea")).superpower, Some(Side::Ussr));
        assert!(m.country(m.id("Thailand")).in_southeast_asia());
        assert_eq!(m.by_name("united kingdom"), Some(m.id("UK")));
    }

    #[test]
    fn asymmetric_adjacency_is_rejected() {
        let bad = include_str!("../data/map.json").replacen(r#""adj": ["UK", "USA"]"#, r#""adj": ["USA"]"#, 1);
        let err = Map::parse(&bad).unwrap_err().to_string();
        assert!(err.contains("not the reverse"), "{err}");
    }
}
