//! Archive figures: sizes against one-value files, a names-only load, decoding a many-chunk
//! archive on one thread and on all, and a writer's memory for many rows.
//!
//! ```text
//! cargo run --release -p tree-buf-benches --example archive            # sizes and times
//! cargo run --release -p tree-buf-benches --example archive -- rows N  # push N small rows
//! ```
//!
//! Times are medians of interleaved runs; for peak memory, run `rows` under `/usr/bin/time -v`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
use tree_buf::{DecodeOptions, Encode};
use tree_buf_benches::{archive_checked as archive, GameNumbers, NameFeature};
use tree_buf_datasets::{geojson, retrosheet};

/// What a timed task made, dropped once the clock has stopped: freeing a large result is not
/// decoding it, and happens on one thread whatever decoded it.
type Made = Box<dyn std::any::Any>;

/// The median times of `runs` interleaved runs of each of `tasks`.
fn medians(runs: usize, tasks: &mut [&mut dyn FnMut() -> Made]) -> Vec<Duration> {
    let mut times = vec![Vec::new(); tasks.len()];
    for _ in 0..runs {
        for (task, times) in tasks.iter_mut().zip(&mut times) {
            let start = Instant::now();
            let made = task();
            times.push(start.elapsed());
            drop(made);
        }
    }
    times
        .into_iter()
        .map(|mut times| {
            times.sort();
            times[times.len() / 2]
        })
        .collect()
}

fn sizes_and_times() {
    let one_thread = DecodeOptions::default().parallel(false);
    let countries = geojson::load().expect("the GeoJSON dataset");
    let file = tree_buf::encode(&countries.features);
    let features = archive(&countries.features, ArchiveOptions::default());
    let opened = Archive::from_bytes_with_options(&features, one_thread.clone()).expect("opens");
    println!(
        "GeoJSON features: one-value file {} B, archive {} B ({} chunk): {:.4}x",
        file.len(),
        features.len(),
        opened.chunks().len(),
        features.len() as f64 / file.len() as f64
    );
    let reader = tree_buf::Reader::with_options(&file, one_thread.clone()).expect("opens");
    let mut times = medians(
        21,
        &mut [
            &mut || Box::new(black_box(opened.decode_all::<NameFeature>().unwrap())),
            &mut || Box::new(black_box(reader.decode::<Vec<NameFeature>>().unwrap())),
        ],
    );
    times.extend(medians(
        21,
        &mut [&mut || Box::new(black_box(opened.decode_all::<geojson::Feature>().unwrap()))],
    ));
    println!(
        "  names only: archive {:?}, one-value file {:?}; whole archive {:?} ({:.0}x the names)",
        times[0],
        times[1],
        times[2],
        times[2].as_secs_f64() / times[0].as_secs_f64()
    );

    let games = retrosheet::load_all().expect("the Retrosheet dataset");
    let file = tree_buf::encode(&games);
    let default = archive(&games, ArchiveOptions::default());
    let chunks = Archive::from_bytes(&default).expect("opens").chunks().len();
    println!(
        "Retrosheet games ({} rows): one-value file {} B, archive {} B ({chunks} chunks): {:.4}x",
        games.len(),
        file.len(),
        default.len(),
        default.len() as f64 / file.len() as f64
    );
    let rows = games.len().div_ceil(16);
    let many = archive(&games, ArchiveOptions::default().chunk_rows(rows));
    let serial = Archive::from_bytes_with_options(&many, one_thread).expect("opens");
    let parallel = Archive::from_bytes(&many).expect("opens");
    // The projection first: freeing a large result leaves the allocator work (merging freed
    // blocks) that the next large allocation pays, whatever it is.
    let mut times = medians(
        31,
        &mut [
            &mut || Box::new(black_box(serial.decode_all::<GameNumbers>().unwrap())),
            &mut || Box::new(black_box(parallel.decode_all::<GameNumbers>().unwrap())),
        ],
    );
    times.extend(medians(
        9,
        &mut [
            &mut || Box::new(black_box(serial.decode_all::<retrosheet::Game>().unwrap())),
            &mut || {
                Box::new(black_box(
                    parallel.decode_all::<retrosheet::Game>().unwrap(),
                ))
            },
        ],
    ));
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "  {} chunks of {rows} rows ({} B), decode_all on one thread and on {threads}:",
        serial.chunks().len(),
        many.len(),
    );
    for (what, pair) in [("numbers only", &times[..2]), ("whole games", &times[2..])] {
        println!(
            "    {what}: {:?}, {:?}: {:.2}x",
            pair[0],
            pair[1],
            pair[0].as_secs_f64() / pair[1].as_secs_f64()
        );
    }
}

/// A small row: what a log or a sensor writes millions of.
#[derive(Encode)]
struct Reading {
    id: u64,
    sensor: u16,
    value: f32,
    ok: bool,
}

fn push_rows(count: u64) {
    let mut writer = ArchiveWriter::new(std::io::sink()).expect("a writer");
    for id in 0..count {
        let reading = Reading {
            id,
            sensor: (id % 97) as u16,
            value: (id % 1000) as f32 * 0.25,
            ok: id % 13 != 0,
        };
        writer.push(&reading).expect("rows encode");
    }
    writer.finish().expect("the archive is written");
    println!("{count} rows pushed");
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => sizes_and_times(),
        Some("rows") => push_rows(args[1].parse().expect("a row count")),
        Some(other) => panic!("no `{other}`: no argument, or `rows N`"),
    }
}
