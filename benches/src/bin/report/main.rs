//! Measures tree-buf against other formats on every dataset and prints markdown tables: bytes,
//! size relative to tree-buf, and median encode, decode and round-trip times and throughputs,
//! plus the partial load of the GeoJSON names and the archives' sizes and parallel decoding; then a speed summary of tree-buf against
//! bitcode + zstd-3, bitcode and rmp-serde, and whether the speed targets hold. Each format's
//! output and each partial load is checked before it is timed (`tree_buf_benches::encode_checked`
//! and `names_file`).
//!
//! The formats of a table run in turn, round after round (`tree_buf_benches::timing`), so that a
//! shared machine's drift hits all alike; every row says how many runs its medians are of.
//!
//! `cargo run --release -p tree-buf-benches --bin report [-- --quick] [--runs N] [--json PATH]`;
//! with `--features mimalloc`, every format allocates through mimalloc instead of the system's
//! allocator, and the report says so.

mod fixed_costs;
mod summary;

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;
use tree_buf_benches::timing::{
    load_task, median, round_robin, round_robin_warm, timed, Runs, Task,
};
use tree_buf_benches::{
    archive_checked, available_threads, encode_checked, formats, in_each_pool, load_compact_names,
    load_everything, load_names, names_file, one_thread, thread_pool, with_borrowed_names,
    with_repeated_geometry, CompactNames, Dataset, Format, GameNumbers, NameFeature, Names,
    ALLOCATOR_NAME, BITCODE,
};
use tree_buf_datasets::{baseball, datasets_dir, geojson, graphql, noise, retrosheet, stocks};

use summary::Targets;

/// One format on one dataset, as the tables print it and `--json` writes it.
#[derive(Serialize)]
struct Row {
    dataset: String,
    format: String,
    bytes: Option<usize>,
    /// How many runs each of the row's medians is of; none for a row measured for size only.
    runs: Option<usize>,
    encode_ms: Option<f64>,
    decode_ms: Option<f64>,
    /// The median of the runs' encode time plus the decode time of that run's output.
    round_trip_ms: Option<f64>,
    /// The bitcode encoding's bytes of the dataset per second of encoding, in MB (10^6 bytes).
    encode_mb_s: Option<f64>,
    /// The bitcode encoding's bytes of the dataset per second of decoding, in MB.
    decode_mb_s: Option<f64>,
}

struct Settings {
    runs: Runs,
    rows: Vec<Row>,
    /// Each dataset's name and speed targets, in the order measured.
    targets: Vec<(String, Targets)>,
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// A time or a throughput: three decimals below ten, one above.
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

/// One run of `format` on `value`: how long encoding took, and decoding what it wrote.
fn round_trip<T: Dataset>(format: &Format<T>, value: &T) -> (Duration, Duration) {
    let (bytes, encode) = timed(|| (format.encode)(black_box(value)));
    let (_decoded, decode) = timed(|| (format.decode)(black_box(&bytes)));
    (encode, decode)
}

/// Medians of a format's runs: encode, decode, and round trip (each run's encode plus decode).
fn medians(runs: &[(Duration, Duration)]) -> [Duration; 3] {
    let encodes = runs.iter().map(|run| run.0).collect();
    let decodes = runs.iter().map(|run| run.1).collect();
    let round_trips = runs.iter().map(|run| run.0 + run.1).collect();
    [median(encodes), median(decodes), median(round_trips)]
}

fn measure<T: Dataset>(
    dataset: &str,
    value: &T,
    floats: bool,
    targets: Targets,
    settings: &mut Settings,
) {
    let json_size = serde_json::to_vec(value).map(|j| j.len()).unwrap_or(0);
    let formats = formats::<T>(floats);
    // Checking each output also runs each format once before it is timed.
    let sizes: Vec<Option<usize>> = (formats.iter())
        .map(|format| {
            let too_slow = format.size_only && json_size > SLOW_COMPRESSION_LIMIT;
            (!too_slow).then(|| encode_checked(format, dataset, value).len())
        })
        .collect();
    let mut tasks: Vec<Task<'_, (Duration, Duration)>> = (formats.iter())
        .filter(|format| !format.size_only)
        .map(|format| Box::new(move || round_trip(format, value)) as Box<_>)
        .collect();
    let mut runs = round_robin(&settings.runs, &mut tasks).into_iter();

    let bitcode_bytes = (formats.iter().zip(&sizes))
        .find_map(|(format, size)| (format.name == BITCODE).then_some(*size)?)
        .expect("every dataset has a bitcode row");
    let mb_s = |time: Duration| bitcode_bytes as f64 / 1e6 / time.as_secs_f64();
    println!("\n### {dataset}\n");
    println!(
        "| format | bytes | size vs tree-buf | runs | encode ms | decode ms | round trip ms | \
         encode MB/s | decode MB/s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let baseline = sizes[0].expect("tree-buf's row comes first and is never left out");
    for (format, size) in formats.iter().zip(sizes) {
        let Some(bytes) = size else {
            println!(
                "| {} | n/a (zstd-19 over {} MB of input) | | | | | | | |",
                format.name,
                json_size >> 20
            );
            continue;
        };
        let row_runs = (!format.size_only).then(|| runs.next().expect("a run per timed format"));
        let [encode, decode, round_trip] = row_runs
            .as_deref()
            .map_or([None; 3], |runs| medians(runs).map(Some));
        let row = Row {
            dataset: dataset.to_owned(),
            format: format.name.to_owned(),
            bytes: Some(bytes),
            runs: row_runs.as_ref().map(Vec::len),
            encode_ms: encode.map(ms),
            decode_ms: decode.map(ms),
            round_trip_ms: round_trip.map(ms),
            encode_mb_s: encode.map(mb_s),
            decode_mb_s: decode.map(mb_s),
        };
        println!(
            "| {} | {bytes} | {:.2}x | {} | {} | {} | {} | {} | {} |",
            row.format,
            bytes as f64 / baseline as f64,
            row.runs.map_or_else(|| "–".to_owned(), |n| n.to_string()),
            cell(row.encode_ms),
            cell(row.decode_ms),
            cell(row.round_trip_ms),
            cell(row.encode_mb_s),
            cell(row.decode_mb_s),
        );
        settings.rows.push(row);
    }
    settings.targets.push((dataset.to_owned(), targets));
}

/// The median time of each of `tasks`, timed in a round robin, and how many runs it is of.
fn medians_in_turn(runs: &Runs, mut tasks: Vec<Task<'_, Duration>>) -> Vec<(Duration, usize)> {
    (round_robin(runs, &mut tasks).into_iter())
        .map(|times| {
            let count = times.len();
            (median(times), count)
        })
        .collect()
}

fn partial_load(countries: &geojson::FeatureCollection, settings: &Settings) {
    use geojson::FeatureCollection;

    let bytes = &names_file(countries);
    let json = &serde_json::to_vec(countries).expect("JSON");
    let (hows, loads): (Vec<&str>, Vec<Task<'_, Duration>>) = [
        (
            "tree-buf, names only, borrowed (`Reader::decode::<BorrowedNames>`, freed too)",
            load_task(|| with_borrowed_names(bytes, |names| names.features.len())),
        ),
        (
            "tree-buf, names only (`Reader::decode::<CompactNames>`)",
            load_task(|| load_compact_names(bytes)),
        ),
        (
            "tree-buf, names only (`Reader::decode::<Names>`)",
            load_task(|| load_names(bytes)),
        ),
        (
            "tree-buf, everything (`Reader::decode::<FeatureCollection>`)",
            load_task(|| load_everything(bytes)),
        ),
        (
            "tree-buf, full decode with the data checksum (`tree_buf::decode`)",
            load_task(|| {
                tree_buf::decode_with_options::<FeatureCollection>(bytes, &one_thread())
                    .expect("decodes")
            }),
        ),
        (
            "serde_json, full parse into the typed model",
            load_task(|| serde_json::from_slice::<FeatureCollection>(json).expect("JSON")),
        ),
        (
            "serde_json, parse into `Names`",
            load_task(|| serde_json::from_slice::<Names>(json).expect("JSON")),
        ),
        (
            "serde_json, parse into `CompactNames`",
            load_task(|| serde_json::from_slice::<CompactNames>(json).expect("JSON")),
        ),
    ]
    .into_iter()
    .unzip();
    let times = medians_in_turn(&settings.runs, loads);
    println!("\n### Partial load: the GeoJSON country names and ISO codes, without geometry\n");
    println!(
        "Names and codes are read into `String`s (`Names`), into `CompactString`s \
         (`CompactNames`, the `compact_str` feature), which keep strings of up to 24 bytes \
         inline, so that loading them allocates nothing per string, or into `&str`s \
         (`BorrowedNames`), borrowed from the file where it holds them as they are and from the \
         reader where it compressed them, so that no string is copied; its row also times \
         dropping the reader and the names, which borrow from it. Every row runs on one \
         thread. A `Reader` checks the header and the checksums of the schema and of the branch \
         table, and validates every branch it reads, but does not checksum the branch data (that \
         would read every byte): the loads through it compare with the full load through it \
         (`everything`); `tree_buf::decode` verifies the data checksum as well.\n"
    );
    println!(
        "| how | runs | median ms | time ÷ the `BorrowedNames` load | time ÷ the `CompactNames` \
         load | time ÷ the `Names` load |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let (borrowed_time, compact_time, string_time) = (times[0].0, times[1].0, times[2].0);
    for (how, (time, runs)) in hows.iter().zip(times) {
        println!(
            "| {how} | {runs} | {:.4} | {} | {} | {} |",
            ms(time),
            ratio(time, borrowed_time),
            ratio(time, compact_time),
            ratio(time, string_time)
        );
    }

    println!(
        "\nThe same partial load on files with k times the geometry (each ring repeated k times, \
         shifted a little each time so that the copies differ; names unchanged):\n"
    );
    println!(
        "| k | file bytes | runs | `BorrowedNames` load ms | `CompactNames` load ms | `Names` \
         load ms |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    let ks = [1usize, 4, 16];
    let files: Vec<Vec<u8>> = (ks.iter())
        .map(|&k| names_file(&with_repeated_geometry(countries, k)))
        .collect();
    let loads = (files.iter())
        .flat_map(|file| {
            [
                load_task(|| with_borrowed_names(file, |names| names.features.len())),
                load_task(|| load_compact_names(file)),
                load_task(|| load_names(file)),
            ]
        })
        .collect();
    let times = medians_in_turn(&settings.runs, loads);
    for ((k, file), loads) in ks.iter().zip(&files).zip(times.chunks_exact(3)) {
        let ((borrowed, runs), (compact, _), (string, _)) = (loads[0], loads[1], loads[2]);
        println!(
            "| {k} | {} | {runs} | {:.4} | {:.4} | {:.4} |",
            file.len(),
            ms(borrowed),
            ms(compact),
            ms(string)
        );
    }
}

/// The archives section: the GeoJSON features and the Retrosheet games as archives against their
/// one-value files, and many-chunk archives decoded on one thread and on all.
fn archives(
    countries: &geojson::FeatureCollection,
    games: &[retrosheet::Game],
    batting: &[baseball::Batting],
    runs: &Runs,
) {
    use tree_buf::archive::{Archive, ArchiveOptions};

    println!("\n### Archives\n");
    println!(
        "Rows written a chunk at a time (`ArchiveWriter`, default options: a chunk every 2^20 \
         rows or 64 MiB of columns), against the same rows as one value (`encode(&rows)`); \
         every archive is checked to read back first.\n"
    );
    println!("| rows | count | one-value file bytes | archive bytes | chunks | archive ÷ file |");
    println!("|---|---:|---:|---:|---:|---:|");
    let sized = |name: &str, count: usize, file: Vec<u8>, archive: &[u8]| {
        let chunks = Archive::from_bytes(archive).expect("opens").chunks().len();
        println!(
            "| {name} | {count} | {} | {} | {chunks} | {:.4}x |",
            file.len(),
            archive.len(),
            archive.len() as f64 / file.len() as f64
        );
    };
    let features = &countries.features;
    let features_file = tree_buf::encode(features);
    let features_archive = archive_checked(features, ArchiveOptions::default());
    sized(
        "GeoJSON features",
        features.len(),
        features_file.clone(),
        &features_archive,
    );
    let archive = archive_checked(games, ArchiveOptions::default());
    sized(
        "Retrosheet games",
        games.len(),
        tree_buf::encode(games),
        &archive,
    );

    // The names-only load reads the same few branches from either; the whole archive for scale.
    let archive = Archive::from_bytes_with_options(&features_archive, one_thread()).expect("opens");
    let reader = tree_buf::Reader::with_options(&features_file, one_thread()).expect("opens");
    let times = medians_in_turn(
        runs,
        vec![
            load_task(|| archive.decode_all::<NameFeature>().expect("decodes")),
            load_task(|| reader.decode::<Vec<NameFeature>>().expect("decodes")),
            load_task(|| archive.decode_all::<geojson::Feature>().expect("decodes")),
        ],
    );
    println!(
        "\nThe GeoJSON features' names only (`NameFeature`), on one thread: from the archive \
         (`Archive::decode_all`) {:.3} ms, from the one-value file (`Reader::decode`) {:.3} ms, \
         against {:.1} ms for every field of the archive ({} runs).",
        ms(times[0].0),
        ms(times[1].0),
        ms(times[2].0),
        times[0].1,
    );

    let threads = available_threads();
    println!(
        "\nRows in archives of 16 chunks, all decoded by `Archive::decode_all` in a rayon pool of \
         one thread and in one of {threads} (chunks in parallel, each written straight into its \
         place in the result). Both sides run on pool threads, not on the main thread, whose \
         memory glibc's malloc keeps from one decode to the next while a worker thread's is \
         handed back to the system and faulted in again: on the main thread, the games decoded \
         as `Game` took about 0.8x the time they take on any other. The two take turns in bursts \
         of {BURST} runs whose first is left out as a warm-up: a burst starts after the other's, \
         whose threads went idle (waking an idle core took about 0.4 ms here) or whose large \
         result was just freed.\n",
    );
    println!(
        "| rows | decoded as | archive bytes | runs | one thread ms | all threads ms | speedup |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    // Twice the rounds of the other tables: a burst times only two runs, and the whole games,
    // which take a second or more each, would otherwise get ten, too few for a median on a
    // shared machine.
    let runs = &Runs {
        min: runs.min * 2,
        ..*runs
    };
    let pair = |rows: &str, what: &str, bytes: usize, tasks: Vec<Task<'_, Duration>>| {
        let mut tasks = tasks;
        let times = round_robin_warm(runs, &mut tasks, BURST);
        let count = times[0].len();
        let (one, all) = (median(times[0].clone()), median(times[1].clone()));
        println!(
            "| {rows} | {what} | {bytes} | {count} | {:.1} | {:.1} | {:.2}x |",
            ms(one),
            ms(all),
            one.as_secs_f64() / all.as_secs_f64()
        );
    };
    let games_archive = archive_checked(
        games,
        ArchiveOptions::default().chunk_rows(games.len().div_ceil(16)),
    );
    let batting_archive = archive_checked(
        batting,
        ArchiveOptions::default().chunk_rows(batting.len().div_ceil(16)),
    );
    let (games_bytes, batting_bytes) = (games_archive.len(), batting_archive.len());
    let (games_archive, batting_archive) = (
        Archive::from_bytes(&games_archive).expect("opens"),
        Archive::from_bytes(&batting_archive).expect("opens"),
    );
    let pools = [thread_pool(1), thread_pool(threads)];
    let games_rows = format!("{} Retrosheet games", games.len());
    pair(
        &games_rows,
        "`GameNumbers` (four number fields)",
        games_bytes,
        in_each_pool(&pools, &|| {
            (games_archive.decode_all::<GameNumbers>()).expect("decodes")
        }),
    );
    pair(
        &format!("{} Batting rows", batting.len()),
        "`Batting` (every field: 3 strings, 19 numbers)",
        batting_bytes,
        in_each_pool(&pools, &|| {
            (batting_archive.decode_all::<baseball::Batting>()).expect("decodes")
        }),
    );
    pair(
        &games_rows,
        "`Game` (every field: about 80 strings a row)",
        games_bytes,
        in_each_pool(&pools, &|| {
            (games_archive.decode_all::<retrosheet::Game>()).expect("decodes")
        }),
    );
}

/// Each timing of one thread against all in the archives section is a burst of this many runs.
const BURST: usize = 3;

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

const USAGE: &str = "usage: report [--quick] [--runs N] [--json PATH]";

/// Exits with the usage and what was wrong.
fn usage_error(what: &str) -> ! {
    eprintln!("{USAGE}; {what}");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut quick = false;
    let mut min_runs = None;
    let mut json: Option<PathBuf> = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--runs" => {
                let runs = args.next().and_then(|n| n.parse().ok()).filter(|&n| n > 0);
                min_runs = Some(runs.unwrap_or_else(|| usage_error("--runs takes a count")));
            }
            "--json" => json = args.next().map(PathBuf::from),
            other => usage_error(&format!("unknown argument {other}")),
        }
    }
    let Some(dir) = datasets_dir() else {
        eprintln!(
            "error: ../shared/datasets not found; set TREE_BUF_DATASETS to the datasets folder"
        );
        std::process::exit(1);
    };
    // A quick look takes one run of everything unless told otherwise; the full report at least
    // five, and more where they fit in a second and a half per format.
    let runs = if quick {
        Runs {
            min: min_runs.unwrap_or(1),
            budget_per_task: Duration::from_millis(100),
            max: 100,
        }
    } else {
        Runs {
            min: min_runs.unwrap_or(5),
            budget_per_task: Duration::from_millis(1500),
            max: 1000,
        }
    };
    let mut settings = Settings {
        runs,
        rows: Vec::new(),
        targets: Vec::new(),
    };
    println!("# tree-buf benchmark report");
    println!(
        "\nData from {}; {} cores; release build; {}. Each table's formats run in turn, round \
         after round (one run of each, then a second of each, and so on): at least {} {}, more \
         while the table has taken under {:.1} s per format; `runs` says how many, and times \
         are the medians of those runs. A round trip is an encode and the decode of its output; \
         freeing the decoded value is not timed. tree-buf runs on one thread, as every peer \
         does, except in the rows marked parallel. MB/s is the bitcode encoding's size of the \
         dataset (MB = 10^6 bytes) per second, for every format.",
        dir.display(),
        available_threads(),
        ALLOCATOR_NAME,
        runs.min,
        if runs.min == 1 { "round" } else { "rounds" },
        runs.budget_per_task.as_secs_f64(),
    );

    let graphql = Targets::GRAPHQL;
    measure(
        "GraphQL response (typed)",
        &loaded(graphql::load()),
        false,
        graphql,
        &mut settings,
    );
    measure(
        "GraphQL response (all strings)",
        &loaded(graphql::load_raw()),
        false,
        graphql,
        &mut settings,
    );
    let countries = loaded(geojson::load());
    measure(
        "GeoJSON countries",
        &countries,
        true,
        Targets::GEOJSON,
        &mut settings,
    );
    partial_load(&countries, &settings);
    let databank = loaded(baseball::load());
    measure(
        "Baseball Databank (Batting, Pitching, Fielding, People, Teams)",
        &databank,
        true,
        Targets::DEFAULT,
        &mut settings,
    );
    let games = loaded(retrosheet::load_all());
    measure(
        "Retrosheet game logs, 1871-2018",
        &games,
        false,
        Targets::DEFAULT,
        &mut settings,
    );
    archives(&countries, &games, &databank.batting, &settings.runs);
    drop((countries, games, databank));
    let days = loaded(stocks::load());
    measure(
        "AAPL stock prices 2016",
        &days,
        true,
        Targets::DEFAULT,
        &mut settings,
    );
    fixed_costs::print(&days, &settings.runs);
    measure(
        "Noise floats (generated mesh and sensor readings)",
        &noise::load(),
        true,
        Targets::DEFAULT,
        &mut settings,
    );
    summary::print(&settings.rows, &settings.targets);

    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&settings.rows).expect("JSON");
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
