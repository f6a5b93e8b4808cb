//! Measures tree-buf against other formats on every dataset and prints markdown tables: bytes,
//! size relative to tree-buf, and median encode, decode and round-trip times, plus the partial
//! load of the GeoJSON names. Each format's output and each partial load is checked before it is
//! timed (`tree_buf_benches::encode_checked` and `names_file`).
//!
//! `cargo run --release -p tree-buf-benches --bin report [-- --quick] [--json PATH]`

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use tree_buf_benches::{
    encode_checked, formats, load_compact_names, load_names, median, names_file,
    with_repeated_geometry, CompactNames, Dataset, Names,
};
use tree_buf_datasets::{baseball, datasets_dir, geojson, graphql, retrosheet, stocks};

#[derive(Serialize)]
struct Row {
    dataset: String,
    format: String,
    bytes: Option<usize>,
    encode_ms: Option<f64>,
    decode_ms: Option<f64>,
    round_trip_ms: Option<f64>,
}

struct Settings {
    budget: Duration,
    rows: Vec<Row>,
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

fn cell(value: Option<f64>) -> String {
    value.map_or_else(
        || "–".to_owned(),
        |v| {
            if v < 10.0 {
                format!("{v:.3}")
            } else {
                format!("{v:.1}")
            }
        },
    )
}

/// zstd at level 19 takes minutes on inputs this large; those rows are left out.
const SLOW_COMPRESSION_LIMIT: usize = 256 << 20;

fn measure<T: Dataset>(dataset: &str, value: &T, floats: bool, settings: &mut Settings) {
    println!("\n### {dataset}\n");
    println!("| format | bytes | size vs tree-buf | encode ms | decode ms | round trip ms |");
    println!("|---|---:|---:|---:|---:|---:|");
    let json_size = serde_json::to_vec(value).map(|j| j.len()).unwrap_or(0);
    let mut tree_buf_size = None;
    for format in formats::<T>(floats) {
        if format.size_only && json_size > SLOW_COMPRESSION_LIMIT {
            println!(
                "| {} | n/a (zstd-19 over {} MB of input) | | | | |",
                format.name,
                json_size >> 20
            );
            continue;
        }
        let bytes = encode_checked(&format, dataset, value);
        let baseline = *tree_buf_size.get_or_insert(bytes.len());
        let (encode, decode, round_trip) = if format.size_only {
            (None, None, None)
        } else {
            let encode = median(settings.budget, 1, || {
                drop(black_box((format.encode)(black_box(value))))
            });
            let decode = median(settings.budget, 1, || {
                drop(black_box((format.decode)(black_box(&bytes))))
            });
            let round_trip = median(settings.budget, 1, || {
                drop(black_box((format.decode)(&(format.encode)(black_box(
                    value,
                )))))
            });
            (Some(ms(encode)), Some(ms(decode)), Some(ms(round_trip)))
        };
        println!(
            "| {} | {} | {:.2}x | {} | {} | {} |",
            format.name,
            bytes.len(),
            bytes.len() as f64 / baseline as f64,
            cell(encode),
            cell(decode),
            cell(round_trip)
        );
        settings.rows.push(Row {
            dataset: dataset.to_owned(),
            format: format.name.to_owned(),
            bytes: Some(bytes.len()),
            encode_ms: encode,
            decode_ms: decode,
            round_trip_ms: round_trip,
        });
    }
}

fn partial_load(countries: &geojson::FeatureCollection, settings: &mut Settings) {
    let bytes = names_file(countries);
    let json = serde_json::to_vec(countries).expect("JSON");
    let compact_time = median(settings.budget, 20, || {
        drop(black_box(load_compact_names(&bytes)))
    });
    let string_time = median(settings.budget, 20, || drop(black_box(load_names(&bytes))));
    let full_time = median(settings.budget, 3, || {
        drop(black_box(
            tree_buf::decode::<geojson::FeatureCollection>(&bytes).expect("decodes"),
        ))
    });
    let json_time = median(settings.budget, 3, || {
        drop(black_box(
            serde_json::from_slice::<geojson::FeatureCollection>(&json).expect("JSON"),
        ))
    });
    let json_names_time = median(settings.budget, 3, || {
        drop(black_box(
            serde_json::from_slice::<Names>(&json).expect("JSON"),
        ))
    });
    let json_compact_names_time = median(settings.budget, 3, || {
        drop(black_box(
            serde_json::from_slice::<CompactNames>(&json).expect("JSON"),
        ))
    });
    println!("\n### Partial load: the GeoJSON country names and ISO codes, without geometry\n");
    println!(
        "Names and codes are read into `String`s (`Names`) or into `CompactString`s \
         (`CompactNames`, the `compact_str` feature), which keep strings of up to 24 bytes \
         inline, so that loading them allocates nothing per string.\n"
    );
    println!(
        "| how | median ms | slower than the `CompactNames` load | slower than the `Names` load |"
    );
    println!("|---|---:|---:|---:|");
    for (how, time) in [
        (
            "tree-buf, names only (`Reader::decode::<CompactNames>`)",
            compact_time,
        ),
        (
            "tree-buf, names only (`Reader::decode::<Names>`)",
            string_time,
        ),
        ("tree-buf, full decode", full_time),
        ("serde_json, full parse into the typed model", json_time),
        ("serde_json, parse into `Names`", json_names_time),
        (
            "serde_json, parse into `CompactNames`",
            json_compact_names_time,
        ),
    ] {
        println!(
            "| {how} | {:.4} | {} | {} |",
            ms(time),
            ratio(time, compact_time),
            ratio(time, string_time)
        );
    }
    println!(
        "\nThe same partial load on files with k times the geometry (each ring repeated k times, \
         shifted a little each time so that the copies differ; names unchanged):\n"
    );
    println!("| k | file bytes | `CompactNames` load ms | `Names` load ms |");
    println!("|---:|---:|---:|---:|");
    for k in [1usize, 4, 16] {
        let bytes = names_file(&with_repeated_geometry(countries, k));
        let compact = median(settings.budget, 20, || {
            drop(black_box(load_compact_names(&bytes)))
        });
        let string = median(settings.budget, 20, || drop(black_box(load_names(&bytes))));
        println!(
            "| {k} | {} | {:.4} | {:.4} |",
            bytes.len(),
            ms(compact),
            ms(string)
        );
    }
}

/// How many times `time` is `reference`: one decimal below ten.
fn ratio(time: Duration, reference: Duration) -> String {
    let ratio = time.as_secs_f64() / reference.as_secs_f64();
    if ratio < 10.0 {
        format!("{ratio:.1}x")
    } else {
        format!("{ratio:.0}x")
    }
}

/// The dataset, or the error and exit.
fn loaded<T>(result: Result<T, tree_buf_datasets::DatasetError>) -> T {
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1)
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut quick = false;
    let mut json: Option<PathBuf> = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--json" => json = args.next().map(PathBuf::from),
            other => {
                eprintln!("usage: report [--quick] [--json PATH]; unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let Some(dir) = datasets_dir() else {
        eprintln!(
            "error: ../shared/datasets not found; set TREE_BUF_DATASETS to the datasets folder"
        );
        std::process::exit(1);
    };
    let mut settings = Settings {
        budget: Duration::from_millis(if quick { 150 } else { 1500 }),
        rows: Vec::new(),
    };
    println!("# tree-buf benchmark report");
    println!(
        "\nData from {}; {} cores; medians of repeated runs, release build.",
        dir.display(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    measure(
        "GraphQL response (typed)",
        &loaded(graphql::load()),
        false,
        &mut settings,
    );
    measure(
        "GraphQL response (all strings)",
        &loaded(graphql::load_raw()),
        false,
        &mut settings,
    );
    let countries = loaded(geojson::load());
    measure("GeoJSON countries", &countries, true, &mut settings);
    partial_load(&countries, &mut settings);
    drop(countries);
    measure(
        "Baseball Databank (Batting, Pitching, Fielding, People, Teams)",
        &loaded(baseball::load()),
        true,
        &mut settings,
    );
    measure(
        "Retrosheet game logs, 1871-2018",
        &loaded(retrosheet::load_all()),
        false,
        &mut settings,
    );
    measure(
        "AAPL stock prices 2016",
        &loaded(stocks::load()),
        true,
        &mut settings,
    );

    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&settings.rows).expect("JSON");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
