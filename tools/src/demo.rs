//! `demo`: encodes the real datasets (or generated data when they are absent), decodes every file
//! to check that it gives back what was encoded, and compares tree-buf with JSON and MessagePack.

use std::env;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use tree_buf::{EncodeOptions, Value};

use crate::convert::{csv_value, parse_json, CsvOptions};
use crate::CliError;

/// The shared datasets folder: `$TREE_BUF_DATASETS` (an error if it is not a folder), else
/// `../shared/datasets` from the current folder if it is there.
fn datasets_dir() -> Result<Option<PathBuf>, CliError> {
    match env::var_os("TREE_BUF_DATASETS").map(PathBuf::from) {
        Some(dir) if dir.is_dir() => Ok(Some(dir)),
        Some(dir) => Err(CliError::new(format!(
            "TREE_BUF_DATASETS is {}, which is not a folder",
            dir.display()
        ))),
        None => Ok(Some(PathBuf::from("../shared/datasets")).filter(|d| d.is_dir())),
    }
}

struct Measured {
    name: String,
    json_bytes: usize,
    msgpack_bytes: usize,
    tree_buf: Vec<u8>,
    encode_seconds: f64,
    decode_seconds: f64,
}

/// Counts the bytes written to it.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Encodes `value`, and decodes the file to check that it gives `value` back.
fn measure(name: &str, value: Value) -> Result<Measured, CliError> {
    let start = Instant::now();
    let tree_buf = tree_buf::encode_with_options(&value, &EncodeOptions::default())
        .map_err(|e| CliError::new(format!("{name}: {e}")))?;
    let encode_seconds = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let back: Value =
        tree_buf::decode(&tree_buf).map_err(|e| CliError::new(format!("{name}: {e}")))?;
    let decode_seconds = start.elapsed().as_secs_f64();
    if back != value {
        return Err(CliError::new(format!(
            "{name}: the file does not decode to the value encoded"
        )));
    }
    let mut json = Count(0);
    serde_json::to_writer(&mut json, &value).map_err(|e| CliError::new(e.to_string()))?;
    let mut msgpack = Count(0);
    rmp_serde::encode::write(&mut msgpack, &value).map_err(|e| CliError::new(e.to_string()))?;
    Ok(Measured {
        name: name.to_owned(),
        json_bytes: json.0,
        msgpack_bytes: msgpack.0,
        tree_buf,
        encode_seconds,
        decode_seconds,
    })
}

/// CSV files converted like `from-csv` does, then read back as values for the other formats.
fn measure_csv(name: &str, files: &[PathBuf], header: bool) -> Result<Measured, CliError> {
    let mut tables = Vec::new();
    for file in files {
        let stem = file.file_name().map_or_else(String::new, |f| {
            f.to_string_lossy()
                .split('.')
                .next()
                .unwrap_or_default()
                .to_owned()
        });
        let options = CsvOptions {
            delimiter: b',',
            header,
        };
        tables.push((stem, csv_value(file, &options)?));
    }
    let value = Value::Object(tables);
    measure(name, value)
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with(suffix))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn real(dir: &Path) -> Result<Vec<Measured>, CliError> {
    let json = |file: &str| parse_json(&dir.join(file));
    let seasons: Vec<PathBuf> = files(&dir.join("retrosheet"), ".TXT.zst")
        .into_iter()
        .rev()
        .take(10)
        .rev()
        .collect();
    Ok(vec![
        measure(
            "GraphQL response",
            json("graphql/decentraland_response.json.zst")?,
        )?,
        measure("GeoJSON countries", json("geojson/countries.geojson.zst")?)?,
        measure_csv(
            "Baseball Databank (27 tables)",
            &files(&dir.join("baseball"), ".csv.zst"),
            true,
        )?,
        measure_csv("Retrosheet 2009-2018", &seasons, false)?,
        measure_csv("AAPL 2016", &[dir.join("stocks/AAPL_2016.csv")], true)?,
    ])
}

/// Readings of a few weather stations, shaped like the logs people keep.
fn generated() -> Result<Vec<Measured>, CliError> {
    let mut state = 2018u64;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let stations = ["Reykjavik", "Lisbon", "Nairobi", "Osaka", "Quito"];
    let readings = (0..20_000u64)
        .map(|i| {
            Value::Object(vec![
                (
                    "station".into(),
                    Value::String(stations[(i % 5) as usize].into()),
                ),
                (
                    "time".into(),
                    Value::Unsigned(u128::from(1_600_000_000 + i / 5 * 600)),
                ),
                (
                    "celsius".into(),
                    Value::Float((next(600) as f64 - 100.0) / 10.0),
                ),
                (
                    "humidity".into(),
                    Value::Unsigned(u128::from(20 + next(80))),
                ),
                ("raining".into(), Value::Bool(next(5) == 0)),
            ])
        })
        .collect();
    Ok(vec![measure(
        "Generated weather readings",
        Value::Array(readings),
    )?])
}

/// Runs the demo on the datasets, or on generated data if `generated` or if they are not found.
pub fn demo(generated: bool) -> Result<(), CliError> {
    let dir = if generated { None } else { datasets_dir()? };
    let datasets = match dir {
        Some(dir) => {
            println!("Encoding the datasets in {}", dir.display());
            real(&dir)?
        }
        None if generated => {
            println!("Encoding generated data");
            self::generated()?
        }
        None => {
            println!("../shared/datasets not found (set TREE_BUF_DATASETS to use it); encoding generated data");
            self::generated()?
        }
    };
    println!();
    println!("| dataset | JSON | MessagePack | tree-buf | tree-buf vs JSON | encode | decode |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for set in &datasets {
        println!(
            "| {} | {} | {} | {} | {:.1}% | {:.3} s | {:.3} s |",
            set.name,
            set.json_bytes,
            set.msgpack_bytes,
            set.tree_buf.len(),
            100.0 * set.tree_buf.len() as f64 / set.json_bytes as f64,
            set.encode_seconds,
            set.decode_seconds
        );
    }
    println!(
        "\nEvery file decoded to the value it was encoded from ({} checked).",
        datasets.len()
    );
    if let Some(largest) = datasets.iter().max_by_key(|s| s.tree_buf.len()) {
        let breakdown = tree_buf::size_breakdown(&largest.tree_buf)
            .map_err(|e| CliError::new(e.to_string()))?;
        println!(
            "\nWhere the bytes of \"{}\" go (the largest 15 paths):",
            largest.name
        );
        for line in breakdown.to_string().lines().take(16) {
            println!("{line}");
        }
        println!("  ...\nTotal: {} B", breakdown.total_bytes);
    }
    Ok(())
}
