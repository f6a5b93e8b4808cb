//! Replays the fuzz seeds and every input a fuzzer failed on (`fuzz/regressions/<target>/`)
//! through the fuzz targets' checks, so that a plain `cargo test` keeps them passing without
//! cargo-fuzz or a nightly toolchain. The byte targets start from `fuzz/seeds/files/`, valid files
//! that must read in full; `round_trip` from `fuzz/seeds/round_trip/`, inputs that must cover every
//! shape of record. Regression inputs need only not panic.

#[path = "../../fuzz/src/lib.rs"]
mod checks;

use std::path::{Path, PathBuf};

use checks::{As, Inspected, Shapes};

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

/// The files of a seed corpus, which must exist.
fn seeds(dir: &str) -> Vec<PathBuf> {
    let seeds = files(dir);
    assert!(!seeds.is_empty(), "the seed corpus fuzz/{dir} is missing");
    seeds
}

/// Runs `check` on every seed of the byte targets, handing what it read and the seed's file name
/// to `expect`, and on every regression input of `target`, which need only not panic.
fn replay<T>(target: &str, check: fn(&[u8]) -> T, expect: fn(&str, T)) {
    for path in seeds("seeds/files") {
        eprintln!("{target}: {}", path.display());
        let name = path.file_name().unwrap().to_str().unwrap();
        expect(name, check(&std::fs::read(&path).unwrap()));
    }
    for path in files(&format!("regressions/{target}")) {
        eprintln!("{target}: {}", path.display());
        check(&std::fs::read(&path).unwrap());
    }
}

/// The type a seed was written as, by `fuzz/examples/seeds.rs`, if [`checks::decode`] tries it.
fn written_as(seed: &str) -> Option<As> {
    match seed.split('-').next() {
        Some("records" | "people") => Some(As::Records),
        Some("record") => Some(As::Record),
        Some("kinds") => Some(As::KindMap),
        Some("pairs") => Some(As::Pairs),
        Some("columns") => Some(As::Columns),
        #[cfg(all(
            feature = "chrono",
            feature = "ordered-float",
            feature = "rust_decimal",
            feature = "time",
            feature = "uuid"
        ))]
        Some("foreign") => Some(As::Foreign),
        _ => None,
    }
}

#[test]
fn decode() {
    replay("decode", checks::decode, |seed, decoded| {
        // Exactly: the type it was written as and `Value`, and no other type of the check.
        let expected: Vec<As> = written_as(seed).into_iter().chain([As::Value]).collect();
        assert_eq!(decoded.checked, expected, "{seed}, checksums verified");
        assert_eq!(decoded.unchecked, expected, "{seed}, checksums off");
    });
}

#[test]
fn serde() {
    replay("serde", checks::serde, |seed, [checked, unchecked]| {
        // Every valid file reads as `serde_json::Value`, but for those holding integers past 64
        // bits, which JSON's numbers do not; records read as records and as some of their fields.
        let wide = ["records-", "record-", "people-", "foreign-", "graphql-fast"];
        let records = written_as(seed) == Some(As::Records);
        let expected = checks::ThroughSerde {
            json: !wide.iter().any(|prefix| seed.starts_with(prefix)),
            records,
            subset: records,
        };
        assert_eq!(checked, expected, "{seed}");
        assert_eq!(unchecked, expected, "{seed}");
    });
}

#[test]
fn inspect() {
    replay("inspect", checks::inspect, |seed, inspected| {
        let all = Inspected {
            breakdown: true,
            opened: true,
            verified: true,
        };
        assert_eq!(inspected, all, "{seed}");
    });
}

#[test]
fn partial() {
    replay("partial", checks::partial, |seed, partial| {
        let written_as = written_as(seed);
        assert_eq!(partial.subset, written_as == Some(As::Record), "{seed}");
        assert_eq!(partial.subsets, written_as == Some(As::Records), "{seed}");
        // Every schema path the check tries (the first 64 in pre-order), leaf or not, reads as
        // values.
        assert!(!partial.paths.is_empty(), "{seed}: no schema");
        assert_eq!(partial.values, partial.paths, "{seed}");
    });
}

#[test]
fn round_trip() {
    let mut shapes = Shapes::default();
    let regressions = files("regressions/round_trip");
    for path in seeds("seeds/round_trip").iter().chain(&regressions) {
        eprintln!("round_trip: {}", path.display());
        if let Some(input) = checks::round_trip(&std::fs::read(path).unwrap()) {
            shapes.add(&input);
        }
    }
    println!("round_trip replay covered:\n{shapes}");
    // The minimums, and why they are what they are, are at `Shapes::MINIMUM`.
    let below = shapes.below(&Shapes::MINIMUM);
    assert!(
        below.is_empty(),
        "the round_trip seeds cover too little (rerun fuzz/examples/seeds.rs): {}",
        below.join(", ")
    );
}

#[test]
fn archive() {
    let expected = |seed: &str| match seed {
        "records.tb" => (Some(10), true, Some(10)),
        "values.tb" => (Some(9), false, Some(9)),
        "metadata.tb" => (Some(7), true, Some(7)),
        "appended.tb" => (Some(6), true, Some(6)),
        // Its writer stopped after two chunks of two rows: only recovery reads it.
        "unfinished.tb" => (None, false, Some(4)),
        other => panic!("an archive seed this test does not know: {other}"),
    };
    for path in seeds("seeds/archives") {
        let seed = path.file_name().unwrap().to_str().unwrap();
        let archived = checks::archive(&std::fs::read(&path).unwrap());
        let read = (archived.rows, archived.records, archived.recovered);
        assert_eq!(read, expected(seed), "{seed}");
    }
    for path in files("regressions/archive") {
        checks::archive(&std::fs::read(&path).unwrap());
    }
}
