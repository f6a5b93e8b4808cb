//! The speed summary: tree-buf's round trips and decodes as multiples of its peers', dataset by
//! dataset, and whether the speed targets hold.

use tree_buf_benches::{
    BITCODE, BITCODE_ZSTD, RMP_NAMED, TREE_BUF, TREE_BUF_FASTER, TREE_BUF_FASTER_PARALLEL,
    TREE_BUF_PARALLEL,
};

use crate::Row;

/// A dataset's round-trip targets for tree-buf with the default options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Targets {
    /// The most its round trip may take, as a multiple of bitcode + zstd-3's.
    round_trip_vs_bitcode_zstd: f64,
    /// The most its round trip may take as a multiple of rmp-serde (named)'s, if that is a target.
    round_trip_vs_rmp_named: Option<f64>,
}

impl Targets {
    /// Every dataset: a round trip no slower than bitcode + zstd-3's.
    pub const DEFAULT: Targets = Targets {
        round_trip_vs_bitcode_zstd: 1.0,
        round_trip_vs_rmp_named: None,
    };
    /// GeoJSON: a round trip in half bitcode + zstd-3's time.
    pub const GEOJSON: Targets = Targets {
        round_trip_vs_bitcode_zstd: 0.5,
        ..Targets::DEFAULT
    };
    /// GraphQL: also a round trip in half rmp-serde (named)'s time.
    pub const GRAPHQL: Targets = Targets {
        round_trip_vs_rmp_named: Some(0.5),
        ..Targets::DEFAULT
    };
}

/// On every dataset, a decode may take at most this multiple of bitcode + zstd-3's.
const DECODE_VS_BITCODE_ZSTD: f64 = 0.7;
/// On every dataset, a round trip with `Preference::Faster` may take at most this multiple of
/// plain bitcode's, writing files smaller than bitcode + zstd-3's.
const FASTER_ROUND_TRIP_VS_BITCODE: f64 = 2.0;

/// tree-buf's rows of one setting: on one thread, and in parallel.
struct Setting {
    label: &'static str,
    one_thread: &'static str,
    parallel: &'static str,
}

const DEFAULT: Setting = Setting {
    label: "default",
    one_thread: TREE_BUF,
    parallel: TREE_BUF_PARALLEL,
};

const FASTER: Setting = Setting {
    label: "faster",
    one_thread: TREE_BUF_FASTER,
    parallel: TREE_BUF_FASTER_PARALLEL,
};

/// The rows of one dataset.
struct Table<'a> {
    rows: Vec<&'a Row>,
}

impl Table<'_> {
    /// `format`'s `measure`.
    fn get(&self, format: &str, measure: fn(&Row) -> Option<f64>) -> f64 {
        (self.rows.iter())
            .find(|row| row.format == format)
            .and_then(|row| measure(row))
            .unwrap_or_else(|| panic!("{format} is not measured so"))
    }

    /// `format`'s `measure` as a multiple of `peer`'s.
    fn ratio(&self, format: &str, peer: &str, measure: fn(&Row) -> Option<f64>) -> f64 {
        self.get(format, measure) / self.get(peer, measure)
    }

    /// The targets on tree-buf's rows of `default` and `faster` options (both on one thread or
    /// both in parallel), in the order of [`TARGET_HEADINGS`]; `None` where a dataset has no such
    /// target.
    fn checks(&self, targets: &Targets, default: &str, faster: &str) -> [Option<Check>; 5] {
        let round_trip = |format, peer, limit| Check {
            measured: self.ratio(format, peer, |row| row.round_trip_ms),
            limit,
            strictly_below: false,
        };
        [
            Some(round_trip(
                default,
                BITCODE_ZSTD,
                targets.round_trip_vs_bitcode_zstd,
            )),
            (targets.round_trip_vs_rmp_named).map(|limit| round_trip(default, RMP_NAMED, limit)),
            Some(Check {
                measured: self.ratio(default, BITCODE_ZSTD, |row| row.decode_ms),
                limit: DECODE_VS_BITCODE_ZSTD,
                strictly_below: false,
            }),
            Some(round_trip(faster, BITCODE, FASTER_ROUND_TRIP_VS_BITCODE)),
            Some(Check {
                measured: self.ratio(faster, BITCODE_ZSTD, bytes),
                limit: 1.0,
                strictly_below: true,
            }),
        ]
    }
}

fn bytes(row: &Row) -> Option<f64> {
    row.bytes.map(|bytes| bytes as f64)
}

/// What the columns of the targets table check.
const TARGET_HEADINGS: [&str; 5] = [
    "(a) round trip ÷ bitcode + zstd-3",
    "(a) round trip ÷ rmp-serde (named)",
    "(b) decode ÷ bitcode + zstd-3",
    "(c) faster: round trip ÷ bitcode",
    "(c) faster: bytes ÷ bitcode + zstd-3",
];

/// One target on one dataset: the measured multiple, and the most it may be.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Check {
    measured: f64,
    limit: f64,
    /// Whether the measure must stay below the limit, rather than at most reach it.
    strictly_below: bool,
}

impl Check {
    fn holds(&self) -> bool {
        if self.strictly_below {
            self.measured < self.limit
        } else {
            self.measured <= self.limit
        }
    }
}

/// A check as a table cell, such as `0.85x ≤ 1.00x: yes`.
fn check_cell(check: Option<Check>) -> String {
    check.map_or_else(
        || "–".to_owned(),
        |check| {
            format!(
                "{:.2}x {} {:.2}x: {}",
                check.measured,
                if check.strictly_below { "<" } else { "≤" },
                check.limit,
                if check.holds() { "yes" } else { "**no**" }
            )
        },
    )
}

/// How many of `checks` hold, and how many there are.
fn held<'a>(checks: impl IntoIterator<Item = &'a Option<Check>>) -> (usize, usize) {
    let checks: Vec<&Check> = checks.into_iter().flatten().collect();
    let held = checks.iter().filter(|check| check.holds()).count();
    (held, checks.len())
}

/// Prints the speed summary and the targets of every dataset in `targets`, from their `rows`.
pub fn print(rows: &[Row], targets: &[(String, Targets)]) {
    let tables: Vec<(&str, Table<'_>, &Targets)> = (targets.iter())
        .map(|(dataset, targets)| {
            let rows = rows.iter().filter(|row| row.dataset == *dataset).collect();
            (dataset.as_str(), Table { rows }, targets)
        })
        .collect();

    println!("\n### Speed summary\n");
    println!(
        "tree-buf's round trip and decode times as multiples of a peer's, from the dataset \
         tables (below 1.00x: faster than the peer), and its throughputs. Each cell is tree-buf on one \
         thread, as every peer runs, then in parallel in parentheses. Bytes are the same either \
         way.\n"
    );
    println!(
        "| dataset | options | round trip ÷ bitcode + zstd-3 | round trip ÷ bitcode | round trip \
         ÷ rmp-serde (named) | decode ÷ bitcode + zstd-3 | encode MB/s | decode MB/s | bytes ÷ \
         bitcode + zstd-3 |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (dataset, table, _) in &tables {
        for setting in [DEFAULT, FASTER] {
            let both = |cell: &dyn Fn(&str) -> String| {
                format!("{} ({})", cell(setting.one_thread), cell(setting.parallel))
            };
            let ratio = |peer: &'static str, measure: fn(&Row) -> Option<f64>| {
                both(&move |format| format!("{:.2}x", table.ratio(format, peer, measure)))
            };
            let throughput = |measure: fn(&Row) -> Option<f64>| {
                both(&move |format| format!("{:.0}", table.get(format, measure)))
            };
            println!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {:.2}x |",
                if setting.label == DEFAULT.label {
                    dataset
                } else {
                    ""
                },
                setting.label,
                ratio(BITCODE_ZSTD, |row| row.round_trip_ms),
                ratio(BITCODE, |row| row.round_trip_ms),
                ratio(RMP_NAMED, |row| row.round_trip_ms),
                ratio(BITCODE_ZSTD, |row| row.decode_ms),
                throughput(|row| row.encode_mb_s),
                throughput(|row| row.decode_mb_s),
                table.ratio(setting.one_thread, BITCODE_ZSTD, bytes),
            );
        }
    }

    println!("\n### Speed targets\n");
    println!(
        "tree-buf on one thread: (a) a round trip with the default options no slower than \
         bitcode + zstd-3's on every dataset, in half its time on GeoJSON, and in half \
         rmp-serde (named)'s on GraphQL; (b) a decode in at most 0.7 times bitcode + zstd-3's; \
         (c) with `Preference::Faster`, a round trip in at most twice plain bitcode's, with files \
         smaller than bitcode + zstd-3's.\n"
    );
    println!("| dataset | {} |", TARGET_HEADINGS.join(" | "));
    println!("|---|{}", "---|".repeat(TARGET_HEADINGS.len()));
    let mut one_thread = Vec::new();
    let mut parallel = Vec::new();
    for (dataset, table, targets) in &tables {
        let checks = table.checks(targets, TREE_BUF, TREE_BUF_FASTER);
        let cells: Vec<String> = checks.iter().copied().map(check_cell).collect();
        println!("| {dataset} | {} |", cells.join(" | "));
        one_thread.extend(checks);
        parallel.extend(table.checks(targets, TREE_BUF_PARALLEL, TREE_BUF_FASTER_PARALLEL));
    }
    let (held_one, count) = held(&one_thread);
    let (held_parallel, _) = held(&parallel);
    println!(
        "\n{held_one} of {count} hold on one thread; {held_parallel} of {count} with tree-buf in \
         parallel."
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(format: &str, bytes: usize, decode_ms: f64, round_trip_ms: f64) -> Row {
        Row {
            dataset: "data".to_owned(),
            format: format.to_owned(),
            bytes: Some(bytes),
            runs: Some(5),
            encode_ms: Some(round_trip_ms - decode_ms),
            decode_ms: Some(decode_ms),
            round_trip_ms: Some(round_trip_ms),
            encode_mb_s: None,
            decode_mb_s: None,
        }
    }

    #[test]
    fn checks_compare_the_named_rows_against_their_limits() {
        let rows = [
            row(TREE_BUF, 90, 0.7, 1.0),
            row(TREE_BUF_FASTER, 100, 0.5, 4.2),
            row(BITCODE_ZSTD, 100, 1.0, 2.0),
            row(BITCODE, 400, 0.5, 2.0),
            row(RMP_NAMED, 800, 1.5, 1.9),
        ];
        let table = Table {
            rows: rows.iter().collect(),
        };
        let checks = table.checks(&Targets::GRAPHQL, TREE_BUF, TREE_BUF_FASTER);
        let measured: Vec<f64> = checks.iter().flatten().map(|c| c.measured).collect();
        assert_eq!(measured, [0.5, 1.0 / 1.9, 0.7, 2.1, 1.0]);
        let holds: Vec<bool> = checks.iter().flatten().map(Check::holds).collect();
        // Exactly at the limit holds, but for the bytes, which must be strictly smaller.
        assert_eq!(holds, [true, false, true, false, false]);
        assert_eq!(held(&checks), (2, 5));

        let checks = table.checks(&Targets::GEOJSON, TREE_BUF, TREE_BUF_FASTER);
        assert!(
            checks[1].is_none(),
            "GeoJSON has no target against rmp-serde"
        );
        assert_eq!(check_cell(checks[0]), "0.50x ≤ 0.50x: yes");
        assert_eq!(check_cell(checks[4]), "1.00x < 1.00x: **no**");
        assert_eq!(check_cell(None), "–");
    }
}
