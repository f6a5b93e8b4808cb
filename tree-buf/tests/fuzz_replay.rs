//! Replays the fuzz seeds (`fuzz/seeds/files/`) and every input a fuzzer failed on
//! (`fuzz/regressions/<target>/`) through the fuzz targets' checks, so that a plain `cargo test`
//! keeps them passing without cargo-fuzz or a nightly toolchain.

#[path = "../../fuzz/src/lib.rs"]
mod checks;

use std::path::{Path, PathBuf};

/// The files in `fuzz/<dir>`, if it exists, sorted.
fn files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz")
        .join(dir);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.map(|entry| entry.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    };
    files.sort();
    files
}

fn replay(target: &str, check: fn(&[u8])) {
    let seeds = files("seeds/files");
    assert!(!seeds.is_empty(), "the seed corpus is missing");
    for path in seeds.iter().chain(&files(&format!("regressions/{target}"))) {
        eprintln!("{target}: {}", path.display());
        check(&std::fs::read(path).unwrap());
    }
}

#[test]
fn decode() {
    replay("decode", checks::decode);
}

#[test]
fn inspect() {
    replay("inspect", checks::inspect);
}

#[test]
fn partial() {
    replay("partial", checks::partial);
}

#[test]
fn round_trip() {
    replay("round_trip", checks::round_trip);
}
