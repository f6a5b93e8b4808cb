//! A writer's memory for many rows: pushes N small rows into an archive written to nowhere.
//! Run it under `/usr/bin/time -v` for the peak; the report's Archives section has the sizes and
//! the times.
//!
//! ```text
//! cargo run --release -p tree-buf-benches --example archive -- rows N
//! ```

use tree_buf::archive::ArchiveWriter;
use tree_buf::Encode;

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
    match (args.first().map(String::as_str), args.get(1)) {
        (Some("rows"), Some(count)) => push_rows(count.parse().expect("a row count")),
        _ => panic!("usage: archive rows N"),
    }
}
