//! The implemented events, registered by card number.

mod card_plays;
mod che;
mod china_card;
mod counting;
mod cuban_missile_crisis;
mod defcon_cards;
mod early_war;
mod europe;
mod five_year_plan;
mod fixed;
mod headline_cards;
mod junta;
mod late_war;
mod middle_east;
mod modifiers;
mod nato;
mod norad;
mod north_sea_oil;
mod olympic_games;
mod placement;
mod scoring_effects;
mod space;
mod traps;
mod un_watch;
mod wars;

use crate::shapes::{RegionScoring, SoutheastAsiaScoring};
use arbiter_twilight::{Region, Ruleset};

/// Card numbers the events refer to.
pub mod ids {
    use arbiter_twilight::CardId;
    pub const ASIA_SCORING: CardId = CardId(1);
    pub const EUROPE_SCORING: CardId = CardId(2);
    pub const MIDDLE_EAST_SCORING: CardId = CardId(3);
    pub const DUCK_AND_COVER: CardId = CardId(4);
    pub const FIVE_YEAR_PLAN: CardId = CardId(5);
    pub const VIETNAM_REVOLTS: CardId = CardId(9);
    pub const SOCIALIST_GOVERNMENTS: CardId = CardId(7);
    pub const FIDEL: CardId = CardId(8);
    pub const BLOCKADE: CardId = CardId(10);
    pub const KOREAN_WAR: CardId = CardId(11);
    pub const ROMANIAN_ABDICATION: CardId = CardId(12);
    pub const ARAB_ISRAELI_WAR: CardId = CardId(13);
    pub const COMECON: CardId = CardId(14);
    pub const NASSER: CardId = CardId(15);
    pub const WARSAW_PACT: CardId = CardId(16);
    pub const DE_GAULLE: CardId = CardId(17);
    pub const CAPTURED_NAZI_SCIENTIST: CardId = CardId(18);
    pub const TRUMAN_DOCTRINE: CardId = CardId(19);
    pub const OLYMPIC_GAMES: CardId = CardId(20);
    pub const NATO: CardId = CardId(21);
    pub const INDEPENDENT_REDS_CARD: CardId = CardId(22);
    pub const MARSHALL_PLAN: CardId = CardId(23);
    pub const INDO_PAKISTANI_WAR: CardId = CardId(24);
    pub const CONTAINMENT: CardId = CardId(25);
    pub const CIA_CREATED: CardId = CardId(26);
    pub const US_JAPAN_PACT: CardId = CardId(27);
    pub const SUEZ_CRISIS: CardId = CardId(28);
    pub const EAST_EUROPEAN_UNREST: CardId = CardId(29);
    pub const DECOLONIZATION: CardId = CardId(30);
    pub const RED_SCARE: CardId = CardId(31);
    pub const UN_INTERVENTION: CardId = CardId(32);
    pub const DE_STALINIZATION: CardId = CardId(33);
    pub const NUCLEAR_TEST_BAN: CardId = CardId(34);
    pub const FORMOSAN_RESOLUTION: CardId = CardId(35);
    pub const BRUSH_WAR: CardId = CardId(36);
    pub const ARMS_RACE: CardId = CardId(39);
    pub const SUMMIT: CardId = CardId(45);
    pub const HOW_I_LEARNED: CardId = CardId(46);
    pub const KITCHEN_DEBATES: CardId = CardId(48);
    pub const MISSILE_ENVY: CardId = CardId(49);
    pub const WE_WILL_BURY_YOU: CardId = CardId(50);
    pub const PORTUGUESE_EMPIRE: CardId = CardId(52);
    pub const SOUTH_AFRICAN_UNREST: CardId = CardId(53);
    pub const ALLENDE: CardId = CardId(54);
    pub const MUSLIM_REVOLUTION: CardId = CardId(56);
    pub const ABM_TREATY: CardId = CardId(57);
    pub const CULTURAL_REVOLUTION: CardId = CardId(58);
    pub const FLOWER_POWER: CardId = CardId(59);
    pub const U2_INCIDENT: CardId = CardId(60);
    pub const OPEC: CardId = CardId(61);
    pub const LONE_GUNMAN: CardId = CardId(62);
    pub const COLONIAL_REAR_GUARDS: CardId = CardId(63);
    pub const PANAMA_CANAL: CardId = CardId(64);
    pub const PUPPET_GOVERNMENTS: CardId = CardId(66);
    pub const JOHN_PAUL_II: CardId = CardId(68);
    pub const OAS_FOUNDED: CardId = CardId(70);
    pub const NIXON: CardId = CardId(71);
    pub const SADAT: CardId = CardId(72);
    pub const VOICE_OF_AMERICA: CardId = CardId(74);
    pub const LIBERATION_THEOLOGY: CardId = CardId(75);
    pub const USSURI_RIVER: CardId = CardId(76);
    pub const ALLIANCE_FOR_PROGRESS: CardId = CardId(78);
    pub const ONE_SMALL_STEP: CardId = CardId(80);
    pub const CENTRAL_AMERICA_SCORING: CardId = CardId(37);
    pub const SOUTHEAST_ASIA_SCORING: CardId = CardId(38);
    pub const CUBAN_MISSILE_CRISIS: CardId = CardId(40);
    pub const NUCLEAR_SUBS: CardId = CardId(41);
    pub const QUAGMIRE: CardId = CardId(42);
    pub const SALT: CardId = CardId(43);
    pub const BEAR_TRAP: CardId = CardId(44);
    pub const JUNTA: CardId = CardId(47);
    pub const BREZHNEV_DOCTRINE: CardId = CardId(51);
    pub const WILLY_BRANDT: CardId = CardId(55);
    pub const CAMP_DAVID: CardId = CardId(65);
    pub const GRAIN_SALES: CardId = CardId(67);
    pub const LATIN_AMERICAN_DEATH_SQUADS: CardId = CardId(69);
    pub const SHUTTLE_DIPLOMACY: CardId = CardId(73);
    pub const ASK_NOT: CardId = CardId(77);
    pub const AFRICA_SCORING: CardId = CardId(79);
    pub const SOUTH_AMERICA_SCORING: CardId = CardId(81);
    pub const IRON_LADY: CardId = CardId(83);
    pub const NORTH_SEA_OIL: CardId = CardId(86);
    pub const IRAN_CONTRA: CardId = CardId(93);
    pub const IRANIAN_HOSTAGE_CRISIS: CardId = CardId(82);
    pub const REAGAN_BOMBS_LIBYA: CardId = CardId(84);
    pub const STAR_WARS: CardId = CardId(85);
    pub const THE_REFORMER: CardId = CardId(87);
    pub const MARINE_BARRACKS: CardId = CardId(88);
    pub const SOVIETS_SHOOT_DOWN_KAL: CardId = CardId(89);
    pub const GLASNOST: CardId = CardId(90);
    pub const ORTEGA: CardId = CardId(91);
    pub const TERRORISM: CardId = CardId(92);
    pub const CHERNOBYL: CardId = CardId(94);
    pub const LATIN_AMERICAN_DEBT_CRISIS: CardId = CardId(95);
    pub const TEAR_DOWN_THIS_WALL: CardId = CardId(96);
    pub const AN_EVIL_EMPIRE: CardId = CardId(97);
    pub const ALDRICH_AMES: CardId = CardId(98);
    pub const PERSHING_II: CardId = CardId(99);
    pub const SOLIDARITY: CardId = CardId(101);
    pub const IRAN_IRAQ_WAR: CardId = CardId(102);
    pub const YURI_AND_SAMANTHA: CardId = CardId(109);
    pub const AWACS: CardId = CardId(110);
    pub const WARGAMES: CardId = CardId(100);
    pub const DEFECTORS: CardId = CardId(103);
    pub const CAMBRIDGE_FIVE: CardId = CardId(104);
    pub const SPECIAL_RELATIONSHIP: CardId = CardId(105);
    pub const NORAD: CardId = CardId(106);
    pub const CHE: CardId = CardId(107);
    pub const OUR_MAN_IN_TEHRAN: CardId = CardId(108);
}

use ids::*;

pub fn register(r: &mut Ruleset) {
    for (card, region) in [
        (ASIA_SCORING, Region::Asia),
        (EUROPE_SCORING, Region::Europe),
        (MIDDLE_EAST_SCORING, Region::MiddleEast),
        (CENTRAL_AMERICA_SCORING, Region::CentralAmerica),
        (SOUTH_AMERICA_SCORING, Region::SouthAmerica),
        (AFRICA_SCORING, Region::Africa),
    ] {
        r.event(card, RegionScoring(region));
    }
    r.event(SOUTHEAST_ASIA_SCORING, SoutheastAsiaScoring);
    modifiers::register(r);
    nato::register(r);
    placement::register(r);
    traps::register(r);
    wars::register(r);
    r.both(CUBAN_MISSILE_CRISIS, cuban_missile_crisis::CubanMissileCrisis::new());
    r.event(JUNTA, junta::Junta);
    r.event(OLYMPIC_GAMES, olympic_games::OlympicGames);
    r.event(FIVE_YEAR_PLAN, five_year_plan::FiveYearPlan);
    r.both(NORAD, norad::Norad);
    headline_cards::register(r);
    defcon_cards::register(r);
    early_war::register(r);
    europe::register(r);
    middle_east::register(r);
    scoring_effects::register(r);
    card_plays::register(r);
    che::register(r);
    north_sea_oil::register(r);
    china_card::register(r);
    counting::register(r);
    fixed::register(r);
    space::register(r);
    un_watch::register(r);
    late_war::register(r);
}
