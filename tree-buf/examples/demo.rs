//! Encodes a season of generated baseball games, checks that it decodes to the same value, and
//! prints where the bytes go.
//!
//! Run with `cargo run --release -p tree-buf --example demo`.

use std::time::Instant;

use tree_buf::prelude::*;

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Game {
    date: u32,
    home: Team,
    visitor: Team,
    park: String,
    attendance: Option<u32>,
    duration_minutes: u16,
    day_night: DayNight,
    line_score: Vec<(u8, u8)>,
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Team {
    code: String,
    league: League,
    runs: u8,
    hits: u8,
    errors: u8,
    starting_pitcher: String,
}

#[derive(Encode, Decode, Debug, Clone, Copy, PartialEq)]
enum League {
    American,
    National,
}

#[derive(Encode, Decode, Debug, Clone, Copy, PartialEq)]
enum DayNight {
    Day,
    Night,
}

/// A deterministic generator, so every run prints the same sizes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const TEAMS: [(&str, League, &str); 6] = [
    ("BOS", League::American, "Fenway Park"),
    ("NYA", League::American, "Yankee Stadium"),
    ("CHN", League::National, "Wrigley Field"),
    ("LAN", League::National, "Dodger Stadium"),
    ("SEA", League::American, "Safeco Field"),
    ("ATL", League::National, "SunTrust Park"),
];

fn team(rng: &mut Rng, index: usize, line: &[u8]) -> Team {
    let (code, league, _) = TEAMS[index];
    Team {
        code: code.to_string(),
        league,
        runs: line.iter().sum(),
        hits: line.iter().sum::<u8>() + rng.below(6) as u8,
        errors: rng.below(3) as u8,
        starting_pitcher: format!("{}{:03}", &code[..2].to_lowercase(), rng.below(12)),
    }
}

fn season(games: usize) -> Vec<Game> {
    let mut rng = Rng(2018);
    (0..games)
        .map(|i| {
            let home = rng.below(TEAMS.len() as u64) as usize;
            let visitor = (home + 1 + rng.below(TEAMS.len() as u64 - 1) as usize) % TEAMS.len();
            let innings = 9 + usize::from(rng.below(10) == 0) * rng.below(4) as usize;
            let line_score: Vec<(u8, u8)> = (0..innings)
                .map(|_| ((rng.below(7) / 4) as u8, (rng.below(7) / 4) as u8))
                .collect();
            let (home_line, visitor_line): (Vec<u8>, Vec<u8>) = line_score.iter().copied().unzip();
            Game {
                date: 20_180_329 + (i / 8) as u32,
                home: team(&mut rng, home, &home_line),
                visitor: team(&mut rng, visitor, &visitor_line),
                park: TEAMS[home].2.to_string(),
                attendance: (rng.below(20) != 0).then(|| 15_000 + rng.below(35_000) as u32),
                duration_minutes: 150 + rng.below(80) as u16,
                day_night: if rng.below(3) == 0 {
                    DayNight::Day
                } else {
                    DayNight::Night
                },
                line_score,
            }
        })
        .collect()
}

fn main() -> Result<(), tree_buf::DecodeError> {
    let games = season(2_430);
    let start = Instant::now();
    let bytes = encode(&games);
    let encoded_in = start.elapsed();
    let start = Instant::now();
    let back: Vec<Game> = decode(&bytes)?;
    let decoded_in = start.elapsed();
    assert_eq!(
        back, games,
        "the decoded games differ from the encoded ones"
    );

    let text_size: usize = games.iter().map(|g| format!("{g:?}").len()).sum();
    println!("tree-buf demo: a season of {} generated games", games.len());
    println!(
        "  encoded:  {:>9} bytes ({:.1} bytes a game), in {encoded_in:?}",
        bytes.len(),
        bytes.len() as f64 / games.len() as f64
    );
    println!("  decoded and checked equal in {decoded_in:?}");
    println!("  for scale, their Debug text is {text_size} bytes");
    println!();
    println!("Where the bytes go:");
    print!("{}", tree_buf::size_breakdown(&bytes)?);
    Ok(())
}
