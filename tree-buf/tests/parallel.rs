//! Parallel decoding: in a file large enough, the leaf branches a type's decoders register are
//! decoded on several threads before the values are handed out. It must give what decoding on one thread
//! gives, for whole and partial types, charge the same budget, and survive corrupted input.

use std::collections::BTreeMap;

use tree_buf::{
    decode_with_options, encode, Decode, DecodeErrorKind, DecodeOptions, Encode, Reader,
};

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
struct Row {
    id: u64,
    player_id: String,
    player_name: String,
    score: Option<i16>,
    ratio: f64,
    small: f32,
    flag: bool,
    letter: char,
    tags: Vec<String>,
    shape: Shape,
    history: Vec<Option<(u8, i128)>>,
    counts: BTreeMap<String, u32>,
    fixed: [u8; 4],
}

#[derive(Encode, Decode, Debug, Clone, PartialEq)]
enum Shape {
    Point,
    Circle { radius: f64 },
    Path(Vec<(f64, f64)>),
}

/// Only some of the fields, and a field the file lacks, read as its default.
#[derive(Decode, Debug, PartialEq)]
struct RowSubset {
    player_name: String,
    shape: Shape,
    #[tree_buf(default)]
    added_later: Vec<u8>,
}

/// Rows of noisy values, so that the file stays large.
fn rows(count: u64) -> Vec<Row> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|i| {
            let player = random() % 1013;
            let noise = random();
            Row {
                id: noise >> 20,
                player_id: format!("p{player:05}"),
                player_name: format!("Player {player}"),
                score: (i % 4 != 0).then_some(noise as i16),
                ratio: f64::from_bits(0x3ff0_0000_0000_0000 | random() >> 12),
                small: (noise % 100_000) as f32 * 0.5,
                flag: noise % 3 == 0,
                letter: char::from_u32(0x61 + (noise % 26) as u32).unwrap_or('a'),
                tags: (0..i % 3)
                    .map(|_| format!("{:x}", random() % 65_536))
                    .collect(),
                shape: match i % 3 {
                    0 => Shape::Point,
                    1 => Shape::Circle {
                        radius: (random() % 10_000) as f64 * 0.25,
                    },
                    _ => Shape::Path(vec![((noise % 977) as f64, -(i as f64)); (i % 4) as usize]),
                },
                history: vec![Some(((noise % 256) as u8, i as i128 * -99)), None],
                counts: [(format!("k{}", i % 7), (noise >> 40) as u32)]
                    .into_iter()
                    .collect(),
                fixed: (random() as u32).to_le_bytes(),
            }
        })
        .collect()
}

fn sequential() -> DecodeOptions {
    DecodeOptions::default().parallel(false)
}

/// Over a megabyte of data, so that decoding plans and runs tasks.
fn large() -> (Vec<Row>, Vec<u8>) {
    let rows = rows(40_000);
    let bytes = encode(&rows);
    assert!(bytes.len() > 1 << 20, "{} bytes", bytes.len());
    (rows, bytes)
}

#[test]
fn parallel_decoding_gives_what_one_thread_gives() {
    let (rows, bytes) = large();
    let parallel = DecodeOptions::default();
    assert_eq!(
        decode_with_options::<Vec<Row>>(&bytes, &parallel).unwrap(),
        rows
    );
    assert_eq!(
        decode_with_options::<Vec<Row>>(&bytes, &sequential()).unwrap(),
        rows
    );

    let subset = decode_with_options::<Vec<RowSubset>>(&bytes, &parallel).unwrap();
    assert_eq!(
        subset,
        decode_with_options::<Vec<RowSubset>>(&bytes, &sequential()).unwrap()
    );
    assert_eq!(subset[2].player_name, rows[2].player_name);
    assert_eq!(subset[2].shape, rows[2].shape);

    let reader = Reader::with_options(&bytes, parallel).unwrap();
    let names: Vec<String> = reader.decode_path("[].player_name").unwrap();
    assert!(names.iter().eq(rows.iter().map(|row| &row.player_name)));
    let radii: Vec<f64> = reader.decode_path("[].shape.circle.radius").unwrap();
    assert_eq!(radii.len(), rows.len() / 3);
}

/// The smallest decoding budget under which `bytes` decode as `Vec<Row>` with `options`.
fn smallest_budget(bytes: &[u8], options: DecodeOptions) -> u64 {
    let decodes = |cap: u64| match decode_with_options::<Vec<Row>>(
        bytes,
        &options.clone().max_decoded_bytes(cap),
    ) {
        Ok(_) => true,
        Err(e) if e.kind() == DecodeErrorKind::LimitExceeded => false,
        Err(e) => panic!("{e}"),
    };
    let (mut low, mut high) = (0u64, 1u64 << 34);
    while low + 1 < high {
        let middle = low + (high - low) / 2;
        if decodes(middle) {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

#[test]
fn parallel_decoding_charges_the_same_budget() {
    let (_, bytes) = large();
    let one_thread = smallest_budget(&bytes, sequential());
    assert_eq!(
        smallest_budget(&bytes, DecodeOptions::default()),
        one_thread
    );
}

#[test]
fn corrupted_large_files_give_errors_or_values_in_parallel() {
    let (_, bytes) = large();
    let unchecked = DecodeOptions::default().verify_checksums(false);
    let mut state = 0x1234_5678u64;
    for _ in 0..60 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut corrupted = bytes.clone();
        let at = (state % bytes.len() as u64) as usize;
        corrupted[at] ^= 1 << (state >> 61);
        let _ = decode_with_options::<Vec<Row>>(&corrupted, &unchecked);
        let _ = decode_with_options::<Vec<RowSubset>>(&corrupted, &unchecked);
    }
    for len in [bytes.len() / 2, bytes.len() - 5] {
        assert!(decode_with_options::<Vec<Row>>(&bytes[..len], &unchecked).is_err());
    }
}
