//! Writes the checked-in seed corpora:
//!
//! - `fuzz/seeds/files/`: small encoded files of the fuzzed types and slices of the real datasets
//!   (look-alike data where they are absent), with and without zstd stages, from which every byte
//!   target starts;
//! - `fuzz/seeds/round_trip/`: inputs of the `round_trip` target that parse into many records,
//!   picked from steered noise until they cover every shape [`Shapes`] counts twice as often as
//!   the replay test asks ([`Shapes::MINIMUM`]).
//!
//! Both are deterministic. An argument, `files` or `round_trip`, writes only that corpus:
//!
//! ```text
//! cargo run --release --example seeds -- round_trip
//! cargo fuzz run decode fuzz/corpus/decode fuzz/seeds/files
//! cargo fuzz run round_trip fuzz/corpus/round_trip fuzz/seeds/round_trip
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use arbitrary::{Arbitrary, Unstructured};
use tree_buf::archive::{ArchiveOptions, ArchiveWriter};
use tree_buf::{encode_with_options, Encode, EncodeOptions, Preference, Value};
use tree_buf_datasets::{baseball, geojson, graphql, stocks};
use tree_buf_fuzz::{Kind, Record, RoundTrip, Shapes};

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

/// Writes `value` encoded as when smaller files are preferred.
fn write_smaller(dir: &Path, name: &str, value: &(impl Encode + ?Sized)) {
    let options = EncodeOptions::default().prefer(Preference::Smaller);
    let bytes = encode_with_options(value, &options).expect("seed values are shallow");
    let path = dir.join(format!("{name}-smaller.tb"));
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("{:>7} bytes  {}", bytes.len(), path.display());
}

fn main() {
    let corpus = std::env::args().nth(1);
    match corpus.as_deref() {
        None => {
            files();
            archives();
            round_trip();
        }
        Some("files") => files(),
        Some("archives") => archives(),
        Some("round_trip") => round_trip(),
        Some(other) => {
            panic!("no corpus `{other}`: name `files`, `archives` or `round_trip`, or none")
        }
    }
}

/// Writes `fuzz/seeds/files/`.
fn files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/files");
    std::fs::create_dir_all(&dir).unwrap();

    write(&dir, "records", &many::<Record>(12, 400, 1));
    write(&dir, "record", &arbitrary::<Record>(600, 2));
    // Trees that nest: every depth in one set of branches, behind recursion nodes.
    write(&dir, "trees", &(0..12).map(tree).collect::<Vec<_>>());
    let kinds: BTreeMap<String, Vec<Kind>> = many(8, 64, 3).into_iter().collect();
    write(&dir, "kinds", &kinds);
    write(&dir, "pairs", &many::<Option<(u8, String)>>(40, 16, 4));
    let columns: (Vec<f32>, Vec<char>, [u16; 3]) = (many(50, 4, 5), many(30, 4, 6), [1, 2, 3]);
    write(&dir, "columns", &columns);
    write(&dir, "foreign", &foreign(200));
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
    // Line scores, a digit an inning and mostly zeros: text of a few skewed bytes, which the
    // writer codes (coded text, format version 9) when it prefers smaller files, and on longer
    // columns otherwise.
    let scores: Vec<String> = (0..400u32)
        .map(|i| {
            (0..9 + i % 3)
                .map(|k| match (i * 31 + k * 17) % 7 {
                    0 => char::from(b'1' + ((i + k) % 4) as u8),
                    _ => '0',
                })
                .collect()
        })
        .collect();
    write_smaller(&dir, "scores", &scores);
    // Labels that follow names, which the writer keys by them (a keyed string stream).
    let mut people = many::<Record>(200, 64, 9);
    for (i, record) in people.iter_mut().enumerate() {
        record.name = format!("player {}", i * 7 % 23);
        record.label = format!("Player Number {}", i * 7 % 23).into();
    }
    write(&dir, "people", &people);
    // Counts that grow with another column's, enough of them for the writer to key them by it
    // when it prefers smaller files (a keyed integer stream, in parts by the source's values).
    let counts: Vec<(u16, u16, u8, i8)> = (0..4200u32)
        .map(|i| {
            let at_bats = (i.wrapping_mul(0x9e37_79b1) >> 20) % [3, 40, 600][i as usize % 3];
            let share = |per_mille: u32| at_bats * (i * 7919 % per_mille) / 1000;
            (at_bats as u16, share(350) as u16, share(200) as u8, -(share(90) as i8))
        })
        .collect();
    write_smaller(&dir, "counts", &counts);
    // A walk whose steps are mostly a few sizes, with rare escapes: Huffman codes, in four
    // streams when the walk is long.
    // `mix` picks each step: the index itself repeats with a period of 20, which run lengths
    // code; its hash does not, which Huffman codes.
    let walk = |len: i32, mix: fn(i32) -> i32| -> Vec<i32> {
        (0..len)
            .map(|i: i32| match mix(i) * 7919 % 20 {
                0..=9 => 1,
                10..=14 => -3,
                15..=18 => 250,
                _ => i * 1013,
            })
            .scan(0, |position, step| {
                *position += step;
                Some(*position)
            })
            .collect()
    };
    write(&dir, "walk", &walk(500, |i| i));
    let hashed = |i: i32| ((i as u32).wrapping_mul(0x9e37_79b1) >> 8) as i32;
    write(&dir, "long-walk", &walk(4103, hashed));

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

/// Writes `fuzz/seeds/archives/`: archives of several chunks, of records and of values whose
/// schema widens part way, one with metadata in its footer, one appended to twice and one whose
/// writer stopped before its footer.
fn archives() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/archives");
    std::fs::create_dir_all(&dir).unwrap();
    let save = |name: &str, bytes: &[u8]| {
        let path = dir.join(format!("{name}.tb"));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("{:>7} bytes  {}", bytes.len(), path.display());
    };
    let chunks = |rows| ArchiveOptions::default().chunk_rows(rows);

    let mut writer = ArchiveWriter::with_options(Vec::new(), chunks(4)).unwrap();
    for record in many::<Record>(10, 300, 11) {
        writer.push(&record).unwrap();
    }
    save("records", &writer.finish().unwrap());

    let mut writer = ArchiveWriter::with_options(Vec::new(), chunks(3)).unwrap();
    for i in 0..9i64 {
        let row = match i {
            0..=2 => serde_json::json!({"id": i, "name": format!("n{i}")}),
            3..=5 => serde_json::json!({"id": i as f64 + 0.5, "name": null, "late": [i]}),
            _ => serde_json::json!({"id": i, "late": {"deep": i % 2 == 0}}),
        };
        writer.push(&Value::from(row)).unwrap();
    }
    save("values", &writer.finish().unwrap());

    // Metadata in the footer (format version 8).
    let options = chunks(3)
        .metadata("source", "seeds")
        .metadata("ARROW:schema", "");
    let mut writer = ArchiveWriter::with_options(Vec::new(), options).unwrap();
    for record in many::<Record>(7, 200, 15) {
        writer.push(&record).unwrap();
    }
    save("metadata", &writer.finish().unwrap());

    let path = std::env::temp_dir().join(format!("tree-buf-seed-{}.tb", std::process::id()));
    ArchiveWriter::<Record>::create(&path)
        .unwrap()
        .finish()
        .unwrap();
    for round in 0..2 {
        let mut writer = ArchiveWriter::<Record>::append_with_options(&path, chunks(2)).unwrap();
        for record in many::<Record>(3, 200, 12 + round) {
            writer.push(&record).unwrap();
        }
        writer.finish().unwrap();
    }
    save("appended", &std::fs::read(&path).unwrap());
    let mut writer = ArchiveWriter::<Record>::create_with_options(&path, chunks(2)).unwrap();
    for record in many::<Record>(5, 200, 14) {
        writer.push(&record).unwrap();
    }
    drop(writer);
    save("unfinished", &std::fs::read(&path).unwrap());
    std::fs::remove_file(&path).unwrap();
}

/// How many bytes of noise a round-trip candidate starts from: room for a few dozen records.
const CANDIDATE_BYTES: usize = 3000;

/// How many candidates the round-trip corpus is picked from.
const CANDIDATES: u64 = 3000;

/// The most files the round-trip corpus may have.
const MAX_SEEDS: usize = 60;

/// How many times [`Shapes::MINIMUM`] the round-trip corpus covers, so that the replay's minimums
/// keep a margin.
const MARGIN: usize = 2;

/// Floats that noise almost never spells, planted into some records' fields.
const SPECIAL: [f64; 3] = [f64::INFINITY, f64::NEG_INFINITY, -0.0];

/// Writes `fuzz/seeds/round_trip/`: from many steered candidates, greedily the one that fills
/// most of what the corpus still lacks, until it covers every shape `MARGIN` times the minimum.
fn round_trip() {
    // Seeds from 1: the noise of seed 0 is all zeros.
    let mut candidates: Vec<(Vec<u8>, RoundTrip, Shapes)> = (1..=CANDIDATES)
        .filter_map(|seed| {
            let data = candidate(seed);
            // The target's own check, which drops inputs that nest too deep to encode.
            let input = tree_buf_fuzz::round_trip(&data)?;
            let mut shapes = Shapes::default();
            shapes.add(&input);
            Some((data, input, shapes))
        })
        .collect();

    let mut total = Shapes::default();
    let mut picked = Vec::new();
    while picked.len() < MAX_SEEDS {
        // The first of the best, so that reruns pick the same.
        let (best, gain) = candidates
            .iter()
            .map(|(_, _, shapes)| gain(&total, shapes))
            .enumerate()
            .fold(
                (0, 0.0),
                |best, (i, gain)| if gain > best.1 { (i, gain) } else { best },
            );
        if gain == 0.0 {
            break;
        }
        let (data, input, _) = candidates.swap_remove(best);
        total.add(&input);
        picked.push(data);
    }

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/round_trip");
    // A rerun replaces the corpus rather than adding to it.
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (i, data) in picked.iter().enumerate() {
        let path = dir.join(format!("seed-{i:02}"));
        std::fs::write(&path, data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    println!(
        "{} round-trip seeds in {}, covering:\n{total}",
        picked.len(),
        dir.display()
    );
    let short = total.below(&Shapes::MINIMUM);
    assert!(
        short.is_empty(),
        "the candidates fall short: {}",
        short.join(", ")
    );
}

/// How much of what `total` lacks `shapes` would fill: for every counter, the share of its
/// shortfall from `MARGIN` times its minimum, summed.
fn gain(total: &Shapes, shapes: &Shapes) -> f64 {
    let counters = total.counters().into_iter().zip(shapes.counters());
    counters
        .zip(Shapes::MINIMUM.counters())
        .map(|(((_, have), (_, more)), (_, least))| {
            let want = MARGIN * least;
            (want.min(have + more) - want.min(have)) as f64 / want.max(1) as f64
        })
        .sum()
}

/// A round-trip input from the noise of `seed`: steered to hold as many records as fit, with
/// special floats planted.
fn candidate(seed: u64) -> Vec<u8> {
    let mut data = noise(CANDIDATE_BYTES, seed);
    // Each time the records stop with bytes to spare, the byte that stopped them (its low bit says
    // whether another follows) is set to go on, until they would leave too few bytes for the
    // options after them (which come from the noise only if two bytes remain).
    let mut steered = data.clone();
    loop {
        let mut input = Unstructured::new(&data);
        // The input starts with the records (see `RoundTrip::parse`).
        let records = Vec::<Record>::arbitrary(&mut input);
        let unread = input.peek_bytes(input.len()).unwrap_or_default();
        if records.is_err() || unread.len() < 2 {
            break;
        }
        steered.clone_from(&data);
        // The unread bytes are the middle of `data`: the records read the stop byte just before.
        let stop = unread.as_ptr() as usize - data.as_ptr() as usize - 1;
        data[stop] |= 1;
    }

    // The bytes of a float field, where they occur once, are its own.
    let records = RoundTrip::parse(&steered).map_or_else(Vec::new, |input| input.records);
    let mut plant = |old: &[u8], new: &[u8]| {
        let mut at = (0..steered.len()).filter(|&i| steered[i..].starts_with(old));
        if let (Some(i), None) = (at.next(), at.next()) {
            steered[i..i + old.len()].copy_from_slice(new);
        }
    };
    for (i, record) in records
        .iter()
        .enumerate()
        .skip(seed as usize % 8)
        .step_by(8)
    {
        let special = SPECIAL[i / 8 % SPECIAL.len()];
        plant(&record.ratio.to_le_bytes(), &(special as f32).to_le_bytes());
        if let Some(score) = record.score {
            plant(&score.to_le_bytes(), &special.to_le_bytes());
        }
    }
    steered
}

/// `count` values of other crates' types, a minute apart, at the edges of their ranges now and
/// then.
/// A tree of `depth` levels whose nodes have from none to three children.
fn tree(depth: u32) -> tree_buf_fuzz::Tree {
    tree_buf_fuzz::Tree {
        value: (depth * 37 % 101) as i16 - 50,
        children: (0..depth.min(3)).map(|k| tree(depth.saturating_sub(k + 1))).collect(),
    }
}

fn foreign(count: i64) -> Vec<tree_buf_fuzz::Foreign> {
    use chrono::{DateTime, FixedOffset, NaiveDate, NaiveTime, TimeDelta};
    use rust_decimal::Decimal;
    (0..count)
        .map(|i| {
            let seconds = 1_600_000_000 + i * 60;
            let offset = FixedOffset::east_opt((i % 5 - 2) as i32 * 3600).unwrap();
            tree_buf_fuzz::Foreign {
                at: DateTime::from_timestamp(seconds, (i % 2) as u32 * 500_000_000)
                    .unwrap()
                    .with_timezone(&offset),
                day: match i % 50 {
                    0 => NaiveDate::MIN,
                    1 => NaiveDate::MAX,
                    _ => NaiveDate::from_num_days_from_ce_opt(737_000 + i as i32).unwrap(),
                },
                // A leap second now and then.
                time_of_day: match i % 40 {
                    7 => NaiveTime::from_hms_nano_opt(23, 59, 59, 1_500_000_000),
                    _ => NaiveTime::from_num_seconds_from_midnight_opt((i * 61) as u32, 0),
                }
                .unwrap(),
                span: TimeDelta::milliseconds(i * 1_250 - 100_000),
                local: time::OffsetDateTime::from_unix_timestamp(seconds)
                    .unwrap()
                    .to_offset(time::UtcOffset::from_whole_seconds((i % 7) as i32 * 900).unwrap()),
                when: time::Time::from_hms_nano((i % 24) as u8, (i % 60) as u8, 0, (i % 9) as u32)
                    .unwrap(),
                wait: time::Duration::new(i - 100, if i < 100 { -5 } else { 5 }),
                price: Decimal::new(10_000 + i * 37 % 500, 2),
                ratio: ordered_float::NotNan::new(i as f64 / 7.0).unwrap(),
                id: uuid::Uuid::from_u128(0x0191_f2a3_7b4c_7000_8000_0000_0000_0000 + (i as u128) * 997),
            }
        })
        .collect()
}
