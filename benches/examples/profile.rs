//! Encodes or decodes one dataset repeatedly on one thread, for a profiler to watch.
//!
//! `cargo run --release -p tree-buf-benches --example profile -- DATASET WHAT [N]`, where WHAT is
//! encode or decode (the derive's), buffer-encode (the derive's through one `tree_buf::Buffer`
//! for all N), or serde-encode or serde-decode (`tree_buf::serde`), and
//! DATASET is graphql, graphql-raw, geojson, geojson-lossy (floats within 2^-12), baseball,
//! retrosheet, aapl (or one of its fields as a column of its own, as the report's fixed costs time
//! them: aapl-volume, aapl-open or aapl-date), or the generated noise floats: noise (all),
//! noise-mesh (`f32`) or noise-readings (`f64`); or `geojson borrowed-names`, the report's partial
//! load of the countries' names and codes as `&str`s (`PROFILE_COLD=MIB` writes that many MiB
//! between loads, so that they start with cold caches, as in the report); or
//! `retrosheet archive-decode` (or `baseball`), the report's archive of 16 chunks of games (or
//! Batting rows) decoded whole by `Archive::decode_all` in a pool of one thread and in one of all
//! in turn, as the report times them (bursts of 3, the first left out; `PROFILE_ONLY=one` or
//! `all` runs only that side, and `PROFILE_CHUNKS=1` also times each chunk alone).
//! `PROFILE_PREFER=faster` (or `smaller`) encodes with that preference instead of the balanced
//! default.

use std::hint::black_box;
use std::time::Duration;

use tree_buf::{DecodeOptions, EncodeOptions, Preference};
use tree_buf_benches::timing::{round_robin_warm, timed, Runs};
use tree_buf_benches::{
    available_threads, in_each_pool, lossy_options, names_file, thread_pool, with_borrowed_names,
    Dataset,
};
use tree_buf_datasets::{baseball, geojson, graphql, noise, retrosheet, stocks};

fn run<T: Dataset>(value: T, encode_options: EncodeOptions, what: &str, times: usize) {
    let preference = match std::env::var("PROFILE_PREFER").as_deref() {
        Ok("faster") => Preference::Faster,
        Ok("smaller") => Preference::Smaller,
        _ => Preference::Balanced,
    };
    let encode_options = encode_options.prefer(preference).parallel(false);
    let decode_options = DecodeOptions::default().parallel(false);
    // serde writes values as the dataset's serde impls spell them, which may differ from the
    // derive's: each reads what it wrote.
    let bytes = match what.starts_with("serde") {
        true => tree_buf::serde::to_vec_with_options(&value, &encode_options),
        false => tree_buf::encode_with_options(&value, &encode_options),
    }
    .expect("encodes");
    println!("{} bytes", bytes.len());
    if let Ok(path) = std::env::var("PROFILE_WRITE") {
        std::fs::write(path, &bytes).expect("writes the file");
    }
    let mut buffer = tree_buf::Buffer::new();
    let start = std::time::Instant::now();
    for _ in 0..times {
        match what {
            "encode" => drop(black_box(
                tree_buf::encode_with_options(black_box(&value), &encode_options).expect("encodes"),
            )),
            "buffer-encode" => drop(black_box(
                (buffer.encode_with_options(black_box(&value), &encode_options))
                    .expect("encodes")
                    .len(),
            )),
            "decode" => drop(black_box(
                tree_buf::decode_with_options::<T>(black_box(&bytes), &decode_options)
                    .expect("decodes"),
            )),
            "serde-encode" => drop(black_box(
                tree_buf::serde::to_vec_with_options(black_box(&value), &encode_options)
                    .expect("encodes"),
            )),
            "serde-decode" => drop(black_box(
                tree_buf::serde::from_slice_with_options::<T>(black_box(&bytes), &decode_options)
                    .expect("decodes"),
            )),
            other => {
                panic!("encode, buffer-encode, decode, serde-encode or serde-decode, not {other}")
            }
        }
    }
    println!("{:?} each", start.elapsed() / times.max(1) as u32);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dataset, what) = (args[0].as_str(), args[1].as_str());
    let times = args.get(2).map_or(10, |n| n.parse().expect("a count"));
    let lossless = EncodeOptions::default();
    if what == "archive-decode" {
        archive_decode(dataset, times);
        return;
    }
    if what == "borrowed-names" {
        // The partial load of the report: the GeoJSON countries' names and codes as `&str`s.
        let bytes = names_file(&geojson::load().unwrap());
        // PROFILE_COLD=N sweeps N MiB between loads (as the report's other loads do: 4 flushes
        // the L2 caches here, 64 the L3 as well); unset, the loads run back to back.
        let sweep_mib: usize = std::env::var("PROFILE_COLD").map_or(0, |mib| {
            mib.parse().expect("PROFILE_COLD is a number of MiB")
        });
        let mut sweep = vec![0u8; sweep_mib << 20];
        let mut total = Duration::ZERO;
        for round in 0..times {
            sweep
                .iter_mut()
                .step_by(64)
                .for_each(|b| *b = b.wrapping_add(round as u8));
            let start = std::time::Instant::now();
            black_box(with_borrowed_names(black_box(&bytes), |names| {
                names.features.len()
            }));
            total += start.elapsed();
        }
        println!("{:?} each", total / times.max(1) as u32);
        return;
    }
    match dataset {
        "graphql" => run(graphql::load().unwrap(), lossless, what, times),
        "graphql-raw" => run(graphql::load_raw().unwrap(), lossless, what, times),
        "geojson" => run(geojson::load().unwrap(), lossless, what, times),
        "geojson-lossy" => run(geojson::load().unwrap(), lossy_options(), what, times),
        "baseball" => run(baseball::load().unwrap(), lossless, what, times),
        "retrosheet" => run(retrosheet::load_all().unwrap(), lossless, what, times),
        "aapl" => run(stocks::load().unwrap(), lossless, what, times),
        // The report's fixed costs: one field of the AAPL rows as a column of its own.
        "aapl-volume" => run(aapl_column(|day| day.volume), lossless, what, times),
        "aapl-open" => run(aapl_column(|day| day.open), lossless, what, times),
        "aapl-date" => run(aapl_column(|day| day.date.clone()), lossless, what, times),
        "noise" => run(noise::load(), lossless, what, times),
        "noise-mesh" => run(noise::load().mesh, lossless, what, times),
        "noise-readings" => run(noise::load().readings, lossless, what, times),
        other => panic!("unknown dataset {other}"),
    }
}

/// One field of every AAPL row, as a column of its own.
fn aapl_column<T>(field: impl Fn(&stocks::Day) -> T) -> Vec<T> {
    stocks::load().unwrap().iter().map(field).collect()
}

/// The report's 16-chunk archive of `dataset`'s rows, decoded whole `times` times on each side:
/// the time of each decode, without freeing its rows.
fn archive_decode(dataset: &str, times: usize) {
    match dataset {
        "retrosheet" => decode_archive_rows(&retrosheet::load_all().unwrap(), times),
        "baseball" => decode_archive_rows(&baseball::load().unwrap().batting, times),
        other => panic!("archive-decode reads retrosheet or baseball, not {other}"),
    }
}

fn decode_archive_rows<T>(rows: &[T], times: usize)
where
    T: tree_buf::Encode + tree_buf::DecodeOwned + PartialEq + Send + std::fmt::Debug,
{
    use tree_buf::archive::{Archive, ArchiveOptions};
    let options = ArchiveOptions::default().chunk_rows(rows.len().div_ceil(16));
    let bytes = tree_buf_benches::archive_checked(rows, options);
    let archive = Archive::from_bytes(&bytes).expect("opens");
    let only = std::env::var("PROFILE_ONLY").ok();
    let sides = [
        ("one", "one thread", 1),
        ("all", "all threads", available_threads()),
    ];
    // As the report times them: both sides in a pool, off the main thread.
    let (labels, pools): (Vec<&str>, Vec<_>) = (sides.into_iter())
        .filter(|(side, ..)| only.as_deref().is_none_or(|only| only == *side))
        .map(|(_, label, threads)| (label, thread_pool(threads)))
        .unzip();
    let decode = || archive.decode_all::<T>().expect("decodes");
    let mut tasks = in_each_pool(&pools, &decode);
    let runs = Runs {
        min: times,
        budget_per_task: Duration::ZERO,
        max: times,
    };
    let results = round_robin_warm(&runs, &mut tasks, 3);
    if std::env::var("PROFILE_CHUNKS").is_ok() {
        // Each chunk alone on this thread, its fastest of three runs (the first is cold).
        for index in 0..archive.chunks().len() {
            let time = (0..3)
                .map(|_| timed(|| archive.decode_chunk::<T>(index).expect("decodes")).1)
                .min()
                .unwrap_or_default();
            print!("{time:?} ");
        }
        println!();
    }
    for (label, times) in labels.iter().zip(results) {
        let each = times.iter().sum::<Duration>() / times.len().max(1) as u32;
        println!("{label}: {each:?} each");
    }
}
