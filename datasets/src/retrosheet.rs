//! Retrosheet game logs 1871-2018 (`retrosheet/GL*.TXT.zst`): one game a line, 161 CSV fields
//! (described in `retrosheet/glfields.txt`), modelled as nested structs: each team's line with its
//! batting, pitching and fielding, the umpires, the pitchers of record, the starting lineups.
//! Blank fields are `None`; [`Game::to_fields`] gives back the 161 fields exactly.

use rand::Rng;
use serde::{Deserialize, Serialize};
use tree_buf::{Decode, Encode};

use crate::DatasetError;

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
pub struct Game {
    /// `yyyymmdd`.
    pub date: u32,
    /// 0 for a single game, 1 to 3 within a double or triple header, `A`/`B` for a
    /// double-header with three teams.
    pub number: char,
    pub day_of_week: Weekday,
    pub visitor: TeamGame,
    pub home: TeamGame,
    /// Length of the game in outs.
    pub length_outs: Option<u16>,
    pub day_night: Option<DayNight>,
    /// `yyyymmdd,park,vs,hs,len` for games completed at a later date.
    pub completion: Option<String>,
    pub forfeit: Option<String>,
    pub protest: Option<String>,
    pub park: String,
    pub attendance: Option<u32>,
    pub duration_minutes: Option<u16>,
    /// Home plate, first, second and third base, left and right field.
    pub umpires: [Person; 6],
    pub winning_pitcher: Person,
    pub losing_pitcher: Person,
    pub saving_pitcher: Person,
    pub game_winning_rbi: Person,
    pub additional_info: Option<String>,
    pub acquisition: Acquisition,
}

/// One team's side of a game.
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
pub struct TeamGame {
    pub team: String,
    pub league: String,
    pub game_number: u16,
    pub score: u8,
    /// Runs by inning, such as `010000(10)0x`.
    pub line_score: Option<String>,
    pub batting: Batting,
    pub pitching: Pitching,
    pub fielding: Fielding,
    pub manager: Person,
    pub starting_pitcher: Person,
    pub lineup: [LineupSlot; 9],
}

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
    pub at_bats: Option<i8>,
    pub hits: Option<i8>,
    pub doubles: Option<i8>,
    pub triples: Option<i8>,
    pub home_runs: Option<i8>,
    pub rbi: Option<i8>,
    pub sacrifice_hits: Option<i8>,
    pub sacrifice_flies: Option<i8>,
    pub hit_by_pitch: Option<i8>,
    pub walks: Option<i8>,
    pub intentional_walks: Option<i8>,
    pub strikeouts: Option<i8>,
    pub stolen_bases: Option<i8>,
    pub caught_stealing: Option<i8>,
    pub grounded_into_double_plays: Option<i8>,
    pub catcher_interference: Option<i8>,
    pub left_on_base: Option<i8>,
}

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
    pub pitchers_used: Option<i8>,
    pub individual_earned_runs: Option<i8>,
    pub team_earned_runs: Option<i8>,
    pub wild_pitches: Option<i8>,
    pub balks: Option<i8>,
}

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
    pub putouts: Option<i8>,
    pub assists: Option<i8>,
    pub errors: Option<i8>,
    pub passed_balls: Option<i8>,
    pub double_plays: Option<i8>,
    pub triple_plays: Option<i8>,
}

/// A player, umpire or manager: an id and a name, either of which the log may leave blank
/// (`"(none)"` is kept as written).
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
    pub id: Option<String>,
    pub name: Option<String>,
}

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
pub struct LineupSlot {
    pub player: Person,
    /// Defensive position, 1 (pitcher) to 9 (right field), 10 for a designated hitter.
    pub position: Option<u8>,
}

#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
)]
pub enum Weekday {
    Sun,
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
}

#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
)]
pub enum DayNight {
    #[serde(rename = "D")]
    Day,
    #[serde(rename = "N")]
    Night,
}

/// How much of the game Retrosheet has.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
)]
pub enum Acquisition {
    /// `Y`: the complete game.
    #[serde(rename = "Y")]
    Complete,
    /// `N`: no portion of the game.
    #[serde(rename = "N")]
    Missing,
    /// `D`: derived from box score and game story.
    #[serde(rename = "D")]
    Derived,
    /// `P`: some portion of the game.
    #[serde(rename = "P")]
    Partial,
}

const WEEKDAYS: [(&str, Weekday); 7] = [
    ("Sun", Weekday::Sun),
    ("Mon", Weekday::Mon),
    ("Tue", Weekday::Tue),
    ("Wed", Weekday::Wed),
    ("Thu", Weekday::Thu),
    ("Fri", Weekday::Fri),
    ("Sat", Weekday::Sat),
];
const ACQUISITIONS: [(&str, Acquisition); 4] = [
    ("Y", Acquisition::Complete),
    ("N", Acquisition::Missing),
    ("D", Acquisition::Derived),
    ("P", Acquisition::Partial),
];

/// Where one team's fields start in a game log line, by their 1-based numbers: team, league and
/// game number; score; line score; the 28 offensive, pitching and defensive stats; manager;
/// starting pitcher; and the nine lineup slots.
struct TeamFields {
    team: usize,
    score: usize,
    line: usize,
    stats: usize,
    manager: usize,
    starter: usize,
    lineup: usize,
}

/// Reads one line's fields, by their 1-based numbers in `glfields.txt`.
struct Fields<'r>(&'r csv::StringRecord);

impl Fields<'_> {
    fn text(&self, field: usize) -> &str {
        self.0.get(field - 1).unwrap_or_default()
    }

    fn optional(&self, field: usize) -> Option<String> {
        Some(self.text(field))
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    }

    fn number<T: std::str::FromStr>(&self, field: usize) -> Result<Option<T>, String> {
        match self.text(field) {
            "" => Ok(None),
            text => text
                .parse()
                .map(Some)
                .map_err(|_| format!("field {field} is {text:?}, not a number")),
        }
    }

    fn required<T: std::str::FromStr>(&self, field: usize) -> Result<T, String> {
        self.number(field)?
            .ok_or_else(|| format!("field {field} is blank"))
    }

    fn person(&self, field: usize) -> Person {
        Person {
            id: self.optional(field),
            name: self.optional(field + 1),
        }
    }

    fn stats<const N: usize>(&self, first: usize) -> Result<[Option<i8>; N], String> {
        let mut out = [None; N];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = self.number(first + i)?;
        }
        Ok(out)
    }

    /// One team's side, from the fields its [`TeamFields`] name.
    fn team(&self, fields: TeamFields) -> Result<TeamGame, String> {
        let TeamFields {
            team,
            score,
            line,
            stats,
            manager,
            starter,
            lineup,
        } = fields;
        let [at_bats, hits, doubles, triples, home_runs, rbi, sacrifice_hits, sacrifice_flies, hit_by_pitch, walks, intentional_walks, strikeouts, stolen_bases, caught_stealing, grounded_into_double_plays, catcher_interference, left_on_base] =
            self.stats::<17>(stats)?;
        let [pitchers_used, individual_earned_runs, team_earned_runs, wild_pitches, balks] =
            self.stats::<5>(stats + 17)?;
        let [putouts, assists, errors, passed_balls, double_plays, triple_plays] =
            self.stats::<6>(stats + 22)?;
        let mut slots = Vec::with_capacity(9);
        for i in 0..9 {
            let field = lineup + 3 * i;
            slots.push(LineupSlot {
                player: self.person(field),
                position: self.number(field + 2)?,
            });
        }
        Ok(TeamGame {
            team: self.text(team).to_owned(),
            league: self.text(team + 1).to_owned(),
            game_number: self.required(team + 2)?,
            score: self.required(score)?,
            line_score: self.optional(line),
            batting: Batting {
                at_bats,
                hits,
                doubles,
                triples,
                home_runs,
                rbi,
                sacrifice_hits,
                sacrifice_flies,
                hit_by_pitch,
                walks,
                intentional_walks,
                strikeouts,
                stolen_bases,
                caught_stealing,
                grounded_into_double_plays,
                catcher_interference,
                left_on_base,
            },
            pitching: Pitching {
                pitchers_used,
                individual_earned_runs,
                team_earned_runs,
                wild_pitches,
                balks,
            },
            fielding: Fielding {
                putouts,
                assists,
                errors,
                passed_balls,
                double_plays,
                triple_plays,
            },
            manager: self.person(manager),
            starting_pitcher: self.person(starter),
            lineup: slots
                .try_into()
                .map_err(|_| "a lineup of nine".to_owned())?,
        })
    }
}

fn lookup<T: Copy>(table: &[(&str, T)], text: &str, field: usize) -> Result<T, String> {
    table
        .iter()
        .find(|(name, _)| *name == text)
        .map(|&(_, value)| value)
        .ok_or_else(|| format!("field {field} is {text:?}"))
}

impl Game {
    /// Parses the 161 fields of one line.
    pub fn from_record(record: &csv::StringRecord) -> Result<Game, String> {
        if record.len() != 161 {
            return Err(format!("{} fields, not 161", record.len()));
        }
        let f = Fields(record);
        let number = f.text(2);
        let mut chars = number.chars();
        let (Some(number), None) = (chars.next(), chars.next()) else {
            return Err(format!("field 2 is {number:?}"));
        };
        Ok(Game {
            date: f.required(1)?,
            number,
            day_of_week: lookup(&WEEKDAYS, f.text(3), 3)?,
            visitor: f.team(TeamFields {
                team: 4,
                score: 10,
                line: 20,
                stats: 22,
                manager: 90,
                starter: 102,
                lineup: 106,
            })?,
            home: f.team(TeamFields {
                team: 7,
                score: 11,
                line: 21,
                stats: 50,
                manager: 92,
                starter: 104,
                lineup: 133,
            })?,
            length_outs: f.number(12)?,
            day_night: match f.text(13) {
                "" => None,
                "D" => Some(DayNight::Day),
                "N" => Some(DayNight::Night),
                other => return Err(format!("field 13 is {other:?}")),
            },
            completion: f.optional(14),
            forfeit: f.optional(15),
            protest: f.optional(16),
            park: f.text(17).to_owned(),
            attendance: f.number(18)?,
            duration_minutes: f.number(19)?,
            umpires: [
                f.person(78),
                f.person(80),
                f.person(82),
                f.person(84),
                f.person(86),
                f.person(88),
            ],
            winning_pitcher: f.person(94),
            losing_pitcher: f.person(96),
            saving_pitcher: f.person(98),
            game_winning_rbi: f.person(100),
            additional_info: f.optional(160),
            acquisition: lookup(&ACQUISITIONS, f.text(161), 161)?,
        })
    }

    /// The 161 fields of the line this game was read from.
    pub fn to_fields(&self) -> Vec<String> {
        let mut fields = vec![String::new(); 161];
        let mut set = |field: usize, value: String| fields[field - 1] = value;
        let text = |value: &Option<String>| value.clone().unwrap_or_default();
        let number = |value: Option<i8>| value.map_or_else(String::new, |v| v.to_string());
        let person = |set: &mut dyn FnMut(usize, String), field: usize, person: &Person| {
            set(field, text(&person.id));
            set(field + 1, text(&person.name));
        };
        set(1, self.date.to_string());
        set(2, self.number.to_string());
        set(
            3,
            WEEKDAYS
                .iter()
                .find(|(_, d)| *d == self.day_of_week)
                .map(|(n, _)| (*n).to_owned())
                .unwrap_or_default(),
        );
        for (side, team, score, line, stats, manager, starter, lineup) in [
            (&self.visitor, 4, 10, 20, 22, 90, 102, 106),
            (&self.home, 7, 11, 21, 50, 92, 104, 133),
        ] {
            set(team, side.team.clone());
            set(team + 1, side.league.clone());
            set(team + 2, side.game_number.to_string());
            set(score, side.score.to_string());
            set(line, text(&side.line_score));
            let b = &side.batting;
            let p = &side.pitching;
            let d = &side.fielding;
            let all = [
                b.at_bats,
                b.hits,
                b.doubles,
                b.triples,
                b.home_runs,
                b.rbi,
                b.sacrifice_hits,
                b.sacrifice_flies,
                b.hit_by_pitch,
                b.walks,
                b.intentional_walks,
                b.strikeouts,
                b.stolen_bases,
                b.caught_stealing,
                b.grounded_into_double_plays,
                b.catcher_interference,
                b.left_on_base,
                p.pitchers_used,
                p.individual_earned_runs,
                p.team_earned_runs,
                p.wild_pitches,
                p.balks,
                d.putouts,
                d.assists,
                d.errors,
                d.passed_balls,
                d.double_plays,
                d.triple_plays,
            ];
            for (i, value) in all.into_iter().enumerate() {
                set(stats + i, number(value));
            }
            person(&mut set, manager, &side.manager);
            person(&mut set, starter, &side.starting_pitcher);
            for (i, slot) in side.lineup.iter().enumerate() {
                person(&mut set, lineup + 3 * i, &slot.player);
                set(
                    lineup + 3 * i + 2,
                    slot.position.map_or_else(String::new, |v| v.to_string()),
                );
            }
        }
        set(
            12,
            self.length_outs.map_or_else(String::new, |v| v.to_string()),
        );
        set(
            13,
            self.day_night.map_or_else(String::new, |d| {
                if d == DayNight::Day {
                    "D".into()
                } else {
                    "N".into()
                }
            }),
        );
        set(14, text(&self.completion));
        set(15, text(&self.forfeit));
        set(16, text(&self.protest));
        set(17, self.park.clone());
        set(
            18,
            self.attendance.map_or_else(String::new, |v| v.to_string()),
        );
        set(
            19,
            self.duration_minutes
                .map_or_else(String::new, |v| v.to_string()),
        );
        for (i, umpire) in self.umpires.iter().enumerate() {
            person(&mut set, 78 + 2 * i, umpire);
        }
        person(&mut set, 94, &self.winning_pitcher);
        person(&mut set, 96, &self.losing_pitcher);
        person(&mut set, 98, &self.saving_pitcher);
        person(&mut set, 100, &self.game_winning_rbi);
        set(160, text(&self.additional_info));
        set(
            161,
            ACQUISITIONS
                .iter()
                .find(|(_, a)| *a == self.acquisition)
                .map(|(n, _)| (*n).to_owned())
                .unwrap_or_default(),
        );
        fields
    }
}

/// The seasons there are logs for.
pub const SEASONS: std::ops::RangeInclusive<u16> = 1871..=2018;

/// Reads the CSV records of a log (Latin-1 text, no header).
pub fn records(bytes: &[u8]) -> Vec<Result<csv::StringRecord, csv::Error>> {
    // The logs are Latin-1; map bytes to chars one to one so every line reads.
    let text: String = bytes.iter().map(|&b| char::from(b)).collect();
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .collect()
}

/// The games of one season.
pub fn load_season(season: u16) -> Result<Vec<Game>, DatasetError> {
    let name = format!("retrosheet/GL{season}.TXT.zst");
    let bytes = crate::read(&name)?;
    records(&bytes)
        .into_iter()
        .enumerate()
        .map(|(line, record)| {
            let record = record.map_err(|e| crate::error(name.as_ref(), e))?;
            Game::from_record(&record)
                .map_err(|e| crate::error(name.as_ref(), format!("line {}: {e}", line + 1)))
        })
        .collect()
}

/// Every game of every season, 218,167 in all.
pub fn load_all() -> Result<Vec<Game>, DatasetError> {
    let mut games = Vec::new();
    for season in SEASONS {
        games.extend(load_season(season)?);
    }
    Ok(games)
}

/// `games` look-alike games: a league of 16 teams with rosters, modern box scores.
pub fn generate(games: usize, seed: u64) -> Vec<Game> {
    let mut rng = crate::rng(seed);
    let teams: Vec<String> = [
        "BOS", "NYA", "BAL", "TOR", "TBA", "CHA", "CLE", "DET", "KCA", "MIN", "HOU", "LAA", "OAK",
        "SEA", "TEX", "ATL",
    ]
    .iter()
    .map(|t| (*t).to_owned())
    .collect();
    let person = |rng: &mut rand::rngs::StdRng, team: usize| {
        let n = rng.gen_range(0..40);
        Person {
            id: Some(format!("{}{n:03}", teams[team].to_lowercase())),
            name: Some(format!("Player {n} of {}", teams[team])),
        }
    };
    let stats = |rng: &mut rand::rngs::StdRng, max: i8| Some(rng.gen_range(0..max));
    (0..games)
        .map(|i| {
            let (v, h) = (rng.gen_range(0..16), rng.gen_range(0..16));
            let side = |rng: &mut rand::rngs::StdRng, team: usize| TeamGame {
                team: teams[team].clone(),
                league: "AL".into(),
                game_number: (i / 8) as u16 + 1,
                score: rng.gen_range(0..12),
                line_score: Some(
                    (0..9)
                        .map(|_| char::from(b'0' + rng.gen_range(0..3)))
                        .collect(),
                ),
                batting: Batting {
                    at_bats: stats(rng, 40),
                    hits: stats(rng, 15),
                    doubles: stats(rng, 5),
                    triples: stats(rng, 2),
                    home_runs: stats(rng, 4),
                    rbi: stats(rng, 10),
                    sacrifice_hits: stats(rng, 2),
                    sacrifice_flies: stats(rng, 2),
                    hit_by_pitch: stats(rng, 2),
                    walks: stats(rng, 8),
                    intentional_walks: stats(rng, 2),
                    strikeouts: stats(rng, 14),
                    stolen_bases: stats(rng, 3),
                    caught_stealing: stats(rng, 2),
                    grounded_into_double_plays: stats(rng, 3),
                    catcher_interference: Some(0),
                    left_on_base: stats(rng, 12),
                },
                pitching: Pitching {
                    pitchers_used: stats(rng, 7),
                    individual_earned_runs: stats(rng, 8),
                    team_earned_runs: stats(rng, 8),
                    wild_pitches: stats(rng, 2),
                    balks: Some(0),
                },
                fielding: Fielding {
                    putouts: Some(27),
                    assists: stats(rng, 15),
                    errors: stats(rng, 3),
                    passed_balls: Some(0),
                    double_plays: stats(rng, 3),
                    triple_plays: Some(0),
                },
                manager: Person {
                    id: Some(format!("mgr{team}")),
                    name: Some(format!("Manager {team}")),
                },
                starting_pitcher: person(rng, team),
                lineup: std::array::from_fn(|slot| LineupSlot {
                    player: person(rng, team),
                    position: Some(slot as u8 + 1),
                }),
            };
            let visitor = side(&mut rng, v);
            let home = side(&mut rng, h);
            Game {
                date: 20_180_329 + (i / 8) as u32,
                number: '0',
                day_of_week: WEEKDAYS[i / 8 % 7].1,
                visitor,
                home,
                length_outs: Some(54),
                day_night: Some(if rng.gen_bool(0.3) {
                    DayNight::Day
                } else {
                    DayNight::Night
                }),
                completion: None,
                forfeit: None,
                protest: None,
                park: format!("{}01", teams[h]),
                attendance: Some(rng.gen_range(10_000..50_000)),
                duration_minutes: Some(rng.gen_range(140..240)),
                umpires: std::array::from_fn(|u| {
                    if u < 4 {
                        Person {
                            id: Some(format!("ump{}", rng.gen_range(0..80))),
                            name: Some("An Umpire".into()),
                        }
                    } else {
                        Person {
                            id: None,
                            name: Some("(none)".into()),
                        }
                    }
                }),
                winning_pitcher: person(&mut rng, v),
                losing_pitcher: person(&mut rng, h),
                saving_pitcher: Person {
                    id: None,
                    name: Some("(none)".into()),
                },
                game_winning_rbi: Person {
                    id: None,
                    name: Some("(none)".into()),
                },
                additional_info: None,
                acquisition: Acquisition::Complete,
            }
        })
        .collect()
}
