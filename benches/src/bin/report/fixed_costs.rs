//! Fixed costs: what encoding one short column costs, measured on each field of the AAPL rows as
//! a column of its own (252 values), against the target of 5 µs a column.

use std::time::Duration;

use tree_buf_benches::timing::{timed, Runs};
use tree_buf_benches::{encode_checked, formats, Dataset, BITCODE_ZSTD, TREE_BUF, TREE_BUF_FASTER};
use tree_buf_datasets::stocks::Day;

use crate::medians_in_turn;

/// The most encoding a 252-value column may take, on one thread.
const TARGET: Duration = Duration::from_micros(5);

/// The formats timed, in the order of the table's columns.
const TIMED: [&str; 3] = [TREE_BUF, TREE_BUF_FASTER, BITCODE_ZSTD];

/// One column's encode times, in the order of [`TIMED`], and tree-buf's bytes.
struct Costs {
    name: &'static str,
    bytes: usize,
    medians: Vec<(Duration, usize)>,
}

/// Times encoding `column` alone in each format of [`TIMED`], in turn.
fn costs<T: Dataset>(name: &'static str, column: &T, floats: bool, runs: &Runs) -> Costs {
    let mut formats: Vec<_> = (formats::<T>(floats).into_iter())
        .filter(|format| TIMED.contains(&format.name))
        .collect();
    formats.sort_by_key(|format| TIMED.iter().position(|&name| name == format.name));
    let bytes = (formats.iter())
        .map(|format| (format.name, encode_checked(format, name, column).len()))
        .find(|&(format, _)| format == TREE_BUF)
        .map_or(0, |(_, bytes)| bytes);
    let tasks = (formats.iter())
        .map(|format| {
            let encode = format.encode;
            Box::new(move || timed(|| encode(column)).1) as Box<dyn FnMut() -> Duration>
        })
        .collect();
    Costs {
        name,
        bytes,
        medians: medians_in_turn(runs, tasks),
    }
}

fn micros(duration: Duration) -> String {
    format!("{:.1}", duration.as_secs_f64() * 1e6)
}

/// Prints the fixed-costs table for the columns of `days`.
pub fn print(days: &[Day], runs: &Runs) {
    let column = |field: fn(&Day) -> f64| days.iter().map(field).collect::<Vec<f64>>();
    let columns = [
        costs(
            "`date` (strings)",
            &(days.iter().map(|d| d.date.clone()).collect::<Vec<_>>()),
            false,
            runs,
        ),
        costs("`open` (f64)", &column(|d| d.open), true, runs),
        costs("`high` (f64)", &column(|d| d.high), true, runs),
        costs("`low` (f64)", &column(|d| d.low), true, runs),
        costs("`close` (f64)", &column(|d| d.close), true, runs),
        costs("`adj_close` (f64)", &column(|d| d.adj_close), true, runs),
        costs(
            "`volume` (u64)",
            &(days.iter().map(|d| d.volume).collect::<Vec<_>>()),
            false,
            runs,
        ),
    ];
    let empty = costs("an empty `Vec<u64>`", &Vec::<u64>::new(), false, runs);
    println!("\n### Fixed costs: one short column\n");
    println!(
        "Each field of the {} AAPL rows encoded as a column of its own, on one thread, so that \
         what encoding a column costs before its values shows; the empty vector is the cost of \
         a file with nothing in it. The target is {} µs a column with the default options. \
         bitcode + zstd-3 pays zstd's own start (its tables) on each column here, where on the \
         whole rows it pays it once.\n",
        days.len(),
        TARGET.as_micros(),
    );
    println!(
        "| column | tree-buf bytes | runs | tree-buf µs | tree-buf (faster) µs | bitcode + zstd-3 µs | within {} µs |",
        TARGET.as_micros()
    );
    println!("|---|---:|---:|---:|---:|---:|---|");
    let mut held = 0;
    for costs in columns.iter().chain([&empty]) {
        let [(default, runs), (faster, _), (bitcode_zstd, _)] = costs.medians[..] else {
            panic!("{} is not timed in every format", costs.name);
        };
        let holds = default <= TARGET;
        let is_column = !std::ptr::eq(costs, &empty);
        held += usize::from(holds && is_column);
        println!(
            "| {} | {} | {runs} | {} | {} | {} | {} |",
            costs.name,
            costs.bytes,
            micros(default),
            micros(faster),
            micros(bitcode_zstd),
            match (is_column, holds) {
                (false, _) => "–",
                (true, true) => "yes",
                (true, false) => "**no**",
            },
        );
    }
    println!(
        "\n{held} of {} columns within {} µs.",
        columns.len(),
        TARGET.as_micros()
    );
}
