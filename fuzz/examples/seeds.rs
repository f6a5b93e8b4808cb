//! Writes the checked-in seed corpus, `fuzz/seeds/files/`: small encoded files of the fuzzed types
//! and slices of the real datasets (look-alike data where they are absent), with and without zstd
//! stages. Every byte target starts from it:
//!
//! ```text
//! cargo run --release --example seeds
//! cargo fuzz run decode fuzz/corpus/decode fuzz/seeds/files
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use arbitrary::{Arbitrary, Unstructured};
use tree_buf::{encode_with_options, Encode, EncodeOptions, Preference, Value};
use tree_buf_datasets::{baseball, geojson, graphql, stocks};
use tree_buf_fuzz::{Kind, Record};

/// Deterministic filler for `Unstructured`.
fn noise(len: usize, mut state: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        })
        .collect()
}

fn arbitrary<T: for<'a> Arbitrary<'a>>(len: usize, seed: u64) -> T {
    let noise = noise(len, seed);
    T::arbitrary(&mut Unstructured::new(&noise)).expect("filler is long enough")
}

/// `count` values from the filler, each from its own stretch of it.
fn many<T: for<'a> Arbitrary<'a>>(count: u64, len: usize, seed: u64) -> Vec<T> {
    (0..count).map(|i| arbitrary(len, seed << 16 | i)).collect()
}

/// Writes `value` encoded without zstd stages, and with them where that differs.
fn write(dir: &Path, name: &str, value: &(impl Encode + ?Sized)) {
    let mut written = Vec::new();
    for (suffix, preference) in [("fast", Preference::Faster), ("zstd", Preference::Balanced)] {
        let options = EncodeOptions::default().prefer(preference);
        let bytes = encode_with_options(value, &options).expect("seed values are shallow");
        if written.contains(&bytes) {
            continue;
        }
        let path = dir.join(format!("{name}-{suffix}.tb"));
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("{:>7} bytes  {}", bytes.len(), path.display());
        written.push(bytes);
    }
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/files");
    std::fs::create_dir_all(&dir).unwrap();

    write(&dir, "records", &many::<Record>(12, 400, 1));
    write(&dir, "record", &arbitrary::<Record>(600, 2));
    let kinds: BTreeMap<String, Vec<Kind>> = many(8, 64, 3).into_iter().collect();
    write(&dir, "kinds", &kinds);
    write(&dir, "pairs", &many::<Option<(u8, String)>>(40, 16, 4));
    let columns: (Vec<f32>, Vec<char>, [u16; 3]) = (many(50, 4, 5), many(30, 4, 6), [1, 2, 3]);
    write(&dir, "columns", &columns);
    // Long runs and repeats, which the integer and string codecs compress best.
    write(
        &dir,
        "squares",
        &(0..600u32).map(|i| i * i).collect::<Vec<_>>(),
    );
    let lines: Vec<String> = (0..300)
        .map(|i| format!("line {} of a log", i % 23))
        .collect();
    write(&dir, "lines", &lines);
    // Distinct strings with shared substrings, which get a zstd stage.
    let requests: Vec<String> = (0..200)
        .map(|i| format!("GET /items/{}/detail?user={}", i * 37 % 211, i % 13))
        .collect();
    write(&dir, "requests", &requests);
    // Labels that follow names, which the writer keys by them (a keyed string stream).
    let mut people = many::<Record>(200, 64, 9);
    for (i, record) in people.iter_mut().enumerate() {
        record.name = format!("player {}", i * 7 % 23);
        record.label = format!("Player Number {}", i * 7 % 23).into();
    }
    write(&dir, "people", &people);
    // A walk whose steps are mostly a few sizes, with rare escapes: Huffman codes.
    let steps: Vec<i32> = (0..500)
        .map(|i: i32| match i * 7919 % 20 {
            0..=9 => 1,
            10..=14 => -3,
            15..=18 => 250,
            _ => i * 1013,
        })
        .scan(0, |position, step| {
            *position += step;
            Some(*position)
        })
        .collect();
    write(&dir, "walk", &steps);

    let present = tree_buf_datasets::datasets_dir().is_some();
    if !present {
        eprintln!("../shared/datasets not found: look-alike data instead of real slices");
    }
    let mut response = if present {
        graphql::load().unwrap()
    } else {
        graphql::generate(20, 1)
    };
    response.data.orders.truncate(20);
    write(&dir, "graphql", &response);
    let raw = serde_json::to_value(&response).unwrap();
    write(&dir, "graphql-value", &Value::from(raw));

    let mut countries = if present {
        geojson::load().unwrap()
    } else {
        geojson::generate(20, 100, 2)
    };
    // The smallest countries: every geometry kind, a few hundred points.
    countries.features.sort_by_key(|f| match &f.geometry {
        geojson::Geometry::Polygon(rings) => rings.iter().map(Vec::len).sum::<usize>(),
        geojson::Geometry::MultiPolygon(polygons) => polygons.iter().flatten().map(Vec::len).sum(),
    });
    countries.features.truncate(6);
    write(&dir, "geojson", &countries);

    let mut days = if present {
        stocks::load().unwrap()
    } else {
        Vec::new()
    };
    days.truncate(40);
    write(&dir, "stocks", &days);

    let mut databank = baseball::generate(10, 3);
    databank.batting.truncate(30);
    databank.fielding.truncate(30);
    write(&dir, "baseball", &databank);
}
