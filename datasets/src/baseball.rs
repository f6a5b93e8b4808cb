//! Baseball Databank v2021.2 (`baseball/*.csv.zst`): five of its tables, typed column by column,
//! with `Option` where a column has blank cells. Field names follow the CSV headers in canonical
//! case (`playerID` is `player_id`; `2B` and `3B` are `doubles` and `triples`).

use rand::Rng;
use serde::{Deserialize, Serialize};
use tree_buf::{Decode, Encode};

use crate::DatasetError;

/// One player's batting in one season with one team.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct Batting {
    #[serde(rename = "playerID")]
    pub player_id: String,
    #[serde(rename = "yearID")]
    pub year_id: u16,
    #[serde(rename = "stint")]
    pub stint: u8,
    #[serde(rename = "teamID")]
    pub team_id: String,
    #[serde(rename = "lgID")]
    pub lg_id: String,
    #[serde(rename = "G")]
    pub games: u16,
    #[serde(rename = "AB")]
    pub ab: u16,
    #[serde(rename = "R")]
    pub r: u16,
    #[serde(rename = "H")]
    pub h: u16,
    #[serde(rename = "2B")]
    pub doubles: u8,
    #[serde(rename = "3B")]
    pub triples: u8,
    #[serde(rename = "HR")]
    pub hr: u8,
    #[serde(rename = "RBI")]
    pub rbi: Option<u16>,
    #[serde(rename = "SB")]
    pub sb: Option<u16>,
    #[serde(rename = "CS")]
    pub cs: Option<u8>,
    #[serde(rename = "BB")]
    pub bb: u16,
    #[serde(rename = "SO")]
    pub so: Option<u16>,
    #[serde(rename = "IBB")]
    pub ibb: Option<u8>,
    #[serde(rename = "HBP")]
    pub hbp: Option<u8>,
    #[serde(rename = "SH")]
    pub sh: Option<u8>,
    #[serde(rename = "SF")]
    pub sf: Option<u8>,
    #[serde(rename = "GIDP")]
    pub gidp: Option<u8>,
}

/// One player's pitching in one season with one team.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct Pitching {
    #[serde(rename = "playerID")]
    pub player_id: String,
    #[serde(rename = "yearID")]
    pub year_id: u16,
    #[serde(rename = "stint")]
    pub stint: u8,
    #[serde(rename = "teamID")]
    pub team_id: String,
    #[serde(rename = "lgID")]
    pub lg_id: String,
    #[serde(rename = "W")]
    pub w: u8,
    #[serde(rename = "L")]
    pub l: u8,
    #[serde(rename = "G")]
    pub games: u8,
    #[serde(rename = "GS")]
    pub gs: u8,
    #[serde(rename = "CG")]
    pub cg: u8,
    #[serde(rename = "SHO")]
    pub sho: u8,
    #[serde(rename = "SV")]
    pub sv: u8,
    #[serde(rename = "IPouts")]
    pub i_pouts: u16,
    #[serde(rename = "H")]
    pub h: u16,
    #[serde(rename = "ER")]
    pub earned_runs: u16,
    #[serde(rename = "HR")]
    pub hr: u8,
    #[serde(rename = "BB")]
    pub bb: u16,
    #[serde(rename = "SO")]
    pub so: u16,
    #[serde(rename = "BAOpp")]
    pub ba_opp: Option<f64>,
    #[serde(rename = "ERA")]
    pub era: Option<f64>,
    #[serde(rename = "IBB")]
    pub ibb: Option<u8>,
    #[serde(rename = "WP")]
    pub wp: u8,
    #[serde(rename = "HBP")]
    pub hbp: Option<u8>,
    #[serde(rename = "BK")]
    pub bk: u8,
    #[serde(rename = "BFP")]
    pub bfp: Option<u16>,
    #[serde(rename = "GF")]
    pub gf: u8,
    #[serde(rename = "R")]
    pub r: u16,
    #[serde(rename = "SH")]
    pub sh: Option<u8>,
    #[serde(rename = "SF")]
    pub sf: Option<u8>,
    #[serde(rename = "GIDP")]
    pub gidp: Option<u8>,
}

/// One player's fielding at one position in one season with one team.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct Fielding {
    #[serde(rename = "playerID")]
    pub player_id: String,
    #[serde(rename = "yearID")]
    pub year_id: u16,
    #[serde(rename = "stint")]
    pub stint: u8,
    #[serde(rename = "teamID")]
    pub team_id: String,
    #[serde(rename = "lgID")]
    pub lg_id: String,
    #[serde(rename = "POS")]
    pub pos: String,
    #[serde(rename = "G")]
    pub games: u8,
    #[serde(rename = "GS")]
    pub gs: Option<u8>,
    #[serde(rename = "InnOuts")]
    pub inn_outs: Option<u16>,
    #[serde(rename = "PO")]
    pub po: u16,
    #[serde(rename = "A")]
    pub a: u16,
    #[serde(rename = "E")]
    pub e: Option<u8>,
    #[serde(rename = "DP")]
    pub dp: u8,
    #[serde(rename = "PB")]
    pub pb: Option<u8>,
    #[serde(rename = "WP")]
    pub wp: Option<u8>,
    #[serde(rename = "SB")]
    pub sb: Option<u16>,
    #[serde(rename = "CS")]
    pub cs: Option<u8>,
    #[serde(rename = "ZR")]
    pub zr: Option<u8>,
}

/// A player or manager.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct Person {
    #[serde(rename = "playerID")]
    pub player_id: String,
    #[serde(rename = "birthYear")]
    pub birth_year: Option<u16>,
    #[serde(rename = "birthMonth")]
    pub birth_month: Option<u8>,
    #[serde(rename = "birthDay")]
    pub birth_day: Option<u8>,
    #[serde(rename = "birthCountry")]
    pub birth_country: Option<String>,
    #[serde(rename = "birthState")]
    pub birth_state: Option<String>,
    #[serde(rename = "birthCity")]
    pub birth_city: Option<String>,
    #[serde(rename = "deathYear")]
    pub death_year: Option<u16>,
    #[serde(rename = "deathMonth")]
    pub death_month: Option<u8>,
    #[serde(rename = "deathDay")]
    pub death_day: Option<u8>,
    #[serde(rename = "deathCountry")]
    pub death_country: Option<String>,
    #[serde(rename = "deathState")]
    pub death_state: Option<String>,
    #[serde(rename = "deathCity")]
    pub death_city: Option<String>,
    #[serde(rename = "nameFirst")]
    pub name_first: Option<String>,
    #[serde(rename = "nameLast")]
    pub name_last: String,
    #[serde(rename = "nameGiven")]
    pub name_given: Option<String>,
    #[serde(rename = "weight")]
    pub weight: Option<u16>,
    #[serde(rename = "height")]
    pub height: Option<u8>,
    #[serde(rename = "bats")]
    pub bats: Option<String>,
    #[serde(rename = "throws")]
    pub throws: Option<String>,
    #[serde(rename = "debut")]
    pub debut: Option<String>,
    #[serde(rename = "finalGame")]
    pub final_game: Option<String>,
    #[serde(rename = "retroID")]
    pub retro_id: Option<String>,
    #[serde(rename = "bbrefID")]
    pub bbref_id: Option<String>,
}

/// One team's season.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct Team {
    #[serde(rename = "yearID")]
    pub year_id: u16,
    #[serde(rename = "lgID")]
    pub lg_id: String,
    #[serde(rename = "teamID")]
    pub team_id: String,
    #[serde(rename = "franchID")]
    pub franch_id: String,
    #[serde(rename = "divID")]
    pub div_id: Option<String>,
    #[serde(rename = "Rank")]
    pub rank: u8,
    #[serde(rename = "G")]
    pub games: u8,
    #[serde(rename = "Ghome")]
    pub ghome: Option<u8>,
    #[serde(rename = "W")]
    pub w: u8,
    #[serde(rename = "L")]
    pub l: u8,
    #[serde(rename = "DivWin")]
    pub div_win: Option<String>,
    #[serde(rename = "WCWin")]
    pub wc_win: Option<String>,
    #[serde(rename = "LgWin")]
    pub lg_win: Option<String>,
    #[serde(rename = "WSWin")]
    pub ws_win: Option<String>,
    #[serde(rename = "R")]
    pub r: u16,
    #[serde(rename = "AB")]
    pub ab: u16,
    #[serde(rename = "H")]
    pub h: u16,
    #[serde(rename = "2B")]
    pub doubles: u16,
    #[serde(rename = "3B")]
    pub triples: u16,
    #[serde(rename = "HR")]
    pub hr: u16,
    #[serde(rename = "BB")]
    pub bb: Option<u16>,
    #[serde(rename = "SO")]
    pub so: Option<u16>,
    #[serde(rename = "SB")]
    pub sb: Option<u16>,
    #[serde(rename = "CS")]
    pub cs: Option<u16>,
    #[serde(rename = "HBP")]
    pub hbp: Option<u16>,
    #[serde(rename = "SF")]
    pub sf: Option<u16>,
    #[serde(rename = "RA")]
    pub ra: u16,
    #[serde(rename = "ER")]
    pub earned_runs: u16,
    #[serde(rename = "ERA")]
    pub era: f64,
    #[serde(rename = "CG")]
    pub cg: u8,
    #[serde(rename = "SHO")]
    pub sho: u8,
    #[serde(rename = "SV")]
    pub sv: u8,
    #[serde(rename = "IPouts")]
    pub i_pouts: u16,
    #[serde(rename = "HA")]
    pub ha: u16,
    #[serde(rename = "HRA")]
    pub hra: u16,
    #[serde(rename = "BBA")]
    pub bba: u16,
    #[serde(rename = "SOA")]
    pub soa: u16,
    #[serde(rename = "E")]
    pub e: u16,
    #[serde(rename = "DP")]
    pub dp: u16,
    #[serde(rename = "FP")]
    pub fp: f64,
    #[serde(rename = "name")]
    pub name: String,
    #[serde(rename = "park")]
    pub park: Option<String>,
    #[serde(rename = "attendance")]
    pub attendance: Option<u32>,
    #[serde(rename = "BPF")]
    pub bpf: u8,
    #[serde(rename = "PPF")]
    pub ppf: u8,
    #[serde(rename = "teamIDBR")]
    pub team_idbr: String,
    #[serde(rename = "teamIDlahman45")]
    pub team_i_dlahman45: String,
    #[serde(rename = "teamIDretro")]
    pub team_i_dretro: String,
}
/// The five tables.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct Databank {
    pub batting: Vec<Batting>,
    pub pitching: Vec<Pitching>,
    pub fielding: Vec<Fielding>,
    pub people: Vec<Person>,
    pub teams: Vec<Team>,
}

/// All five tables.
pub fn load() -> Result<Databank, DatasetError> {
    Ok(Databank {
        batting: crate::read_csv("baseball/Batting.csv.zst")?,
        pitching: crate::read_csv("baseball/Pitching.csv.zst")?,
        fielding: crate::read_csv("baseball/Fielding.csv.zst")?,
        people: crate::read_csv("baseball/People.csv.zst")?,
        teams: crate::read_csv("baseball/Teams.csv.zst")?,
    })
}

/// Look-alike tables: `players` players with a few seasons each, counts drawn like real ones
/// (mostly small, some blank for early seasons).
pub fn generate(players: usize, seed: u64) -> Databank {
    let mut rng = crate::rng(seed);
    let teams = ["BOS", "NYA", "CHN", "LAN", "SEA", "ATL", "DET", "CLE"];
    let mut databank = Databank {
        batting: vec![],
        pitching: vec![],
        fielding: vec![],
        people: vec![],
        teams: vec![],
    };
    for p in 0..players {
        let id = format!("player{p:05}");
        let debut = rng.gen_range(1871..2020u16);
        databank.people.push(Person {
            player_id: id.clone(),
            birth_year: Some(debut - rng.gen_range(19..30)),
            birth_month: Some(rng.gen_range(1..13)),
            birth_day: Some(rng.gen_range(1..29)),
            birth_country: Some("USA".into()),
            birth_state: Some(["CA", "TX", "NY", "FL"][rng.gen_range(0..4)].into()),
            birth_city: Some(format!("Town {}", rng.gen_range(0..500))),
            death_year: None,
            death_month: None,
            death_day: None,
            death_country: None,
            death_state: None,
            death_city: None,
            name_first: Some(format!("First{}", rng.gen_range(0..300))),
            name_last: format!("Last{}", rng.gen_range(0..3000)),
            name_given: None,
            weight: Some(rng.gen_range(150..260)),
            height: Some(rng.gen_range(66..80)),
            bats: Some(["R", "L", "B"][rng.gen_range(0..3)].into()),
            throws: Some(["R", "L"][rng.gen_range(0..2)].into()),
            debut: Some(format!("{debut}-04-{:02}", rng.gen_range(1..29))),
            final_game: None,
            retro_id: Some(format!("retro{p:05}")),
            bbref_id: Some(format!("bbref{p:05}")),
        });
        for season in 0..rng.gen_range(1..8u16) {
            let team = teams[rng.gen_range(0..teams.len())].to_string();
            let modern = debut + season > 1950;
            let at_bats = rng.gen_range(0..600u16);
            let hits = at_bats / rng.gen_range(3..6);
            databank.batting.push(Batting {
                player_id: id.clone(),
                year_id: debut + season,
                stint: 1,
                team_id: team.clone(),
                lg_id: "AL".into(),
                games: rng.gen_range(1..163),
                ab: at_bats,
                r: hits / 2,
                h: hits,
                doubles: (hits / 5) as u8,
                triples: (hits / 40) as u8,
                hr: (hits / 10) as u8,
                rbi: Some(hits / 2),
                sb: Some(rng.gen_range(0..30)),
                cs: modern.then(|| rng.gen_range(0..10)),
                bb: at_bats / 10,
                so: Some(at_bats / 5),
                ibb: modern.then(|| rng.gen_range(0..10)),
                hbp: Some(rng.gen_range(0..10)),
                sh: Some(rng.gen_range(0..10)),
                sf: modern.then(|| rng.gen_range(0..10)),
                gidp: modern.then(|| rng.gen_range(0..20)),
            });
            databank.fielding.push(Fielding {
                player_id: id.clone(),
                year_id: debut + season,
                stint: 1,
                team_id: team,
                lg_id: "AL".into(),
                pos: ["SS", "2B", "OF", "C", "P", "1B", "3B"][rng.gen_range(0..7)].into(),
                games: rng.gen_range(1..163),
                gs: modern.then(|| rng.gen_range(0..160)),
                inn_outs: modern.then(|| rng.gen_range(0..4000)),
                po: rng.gen_range(0..1500),
                a: rng.gen_range(0..500),
                e: Some(rng.gen_range(0..30)),
                dp: rng.gen_range(0..100),
                pb: None,
                wp: None,
                sb: None,
                cs: None,
                zr: None,
            });
        }
    }
    databank
}
