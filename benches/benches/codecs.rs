//! Column codecs: how many values a second tree-buf encodes and decodes with each codec it
//! chooses from, family by family (integers, floats, booleans, strings, and the zstd stage); and
//! Simple16 decoding against the `simple-16` crate.
//!
//! The library exposes only Simple16 on its own, so every codec is driven through the public API:
//! a `Vec` whose values are shaped so that the encoder chooses that codec for them, encoded and
//! decoded on one thread. Before anything is timed, the codec at the top of the values' stream is
//! checked to be the named one, through the file's size breakdown (the typed form of the
//! encodings that `tree-buf schema` prints), and the file is checked to decode to the column.
//! The times include what any file costs besides its values (header, schema, the `Vec`'s length,
//! checksums), which is small next to a column this long.

use std::fmt::Debug;
use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use tree_buf::codec::simple16;
use tree_buf::{Codec, DecodeOwned, Encode, EncodeOptions, Encoding, Preference};
use tree_buf_benches::{lossy_options, one_thread, within_lossy_tolerance};

/// The length of the numeric and boolean columns.
const VALUES: usize = 1_000_000;
/// The length of the string columns.
const STRINGS: usize = 200_000;

/// A xorshift generator: the columns are the same on every run.
fn random(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// A number in [0, 1) from 53 random bits.
fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

/// Column codecs only, without a zstd stage, on one thread.
fn column_codecs() -> EncodeOptions {
    EncodeOptions::default()
        .parallel(false)
        .prefer(Preference::Faster)
}

/// The encoding of the items of the `Vec` that `bytes` holds.
fn items_encoding(bytes: &[u8]) -> Encoding {
    let breakdown = tree_buf::size_breakdown(bytes).expect("a tree-buf file");
    // The innermost items: `[]`, or `[].[]` for a vector of arrays.
    (breakdown.branches.into_iter())
        .filter(|branch| branch.path.split('.').all(|part| part == "[]"))
        .max_by_key(|branch| branch.path.len())
        .expect("a branch for the items of a Vec")
        .encoding
}

/// Checks that `options` encode the items of `column` with the codec that `chosen` accepts and
/// that the file decodes to `column` (within the tolerance, for a lossy codec); then times its
/// encode and decode on one thread as `name`, in values a second.
fn bench_codec<T>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    column: &Vec<T>,
    options: &EncodeOptions,
    chosen: fn(&Codec) -> bool,
) where
    T: Encode + DecodeOwned + PartialEq + Debug,
{
    let bytes = tree_buf::encode_with_options(column, options).expect("encodes");
    let encoding = items_encoding(&bytes);
    assert!(
        chosen(&encoding.codec),
        "{name}: the column was encoded as {encoding}; reshape it so that the encoder chooses {name}"
    );
    let decode = || -> Vec<T> { tree_buf::decode_with_options(&bytes, &one_thread()).unwrap() };
    let decoded = decode();
    if matches!(encoding.codec, Codec::Lossy { .. }) {
        within_lossy_tolerance(column, &decoded).unwrap_or_else(|e| panic!("{name}: {e}"));
    } else {
        assert!(
            decoded == *column,
            "{name}: the column does not decode back"
        );
    }

    group.throughput(Throughput::Elements(column.len() as u64));
    group.bench_function(format!("{name} encode"), |b| {
        b.iter(|| tree_buf::encode_with_options(black_box(column), options).unwrap())
    });
    group.bench_function(format!("{name} decode"), |b| b.iter(decode));
}

fn integers(c: &mut Criterion) {
    let mut group = c.benchmark_group("integers");
    let options = column_codecs();
    let mut next = random(1);
    let full_width: Vec<u64> = (0..VALUES).map(|_| next()).collect();
    bench_codec(&mut group, "fixed width", &full_width, &options, |codec| {
        matches!(codec, Codec::Fixed { width: 8 })
    });
    // Widths from 1 to 63 bits, so that no common width suits them.
    let any_width: Vec<u64> = (0..VALUES).map(|_| next() >> (next() % 63 + 1)).collect();
    bench_codec(&mut group, "varint", &any_width, &options, |codec| {
        matches!(codec, Codec::Varint)
    });
    let twenty_bits: Vec<u64> = (0..VALUES).map(|_| 1000 + (next() >> 44)).collect();
    bench_codec(&mut group, "bit-packing", &twenty_bits, &options, |codec| {
        matches!(codec, Codec::BitPack)
    });
    // Runs of 32 values of one width, from 1 to 13 bits, the width changing from run to run.
    let varying_widths: Vec<u32> = (0..VALUES as u64)
        .map(|i| {
            let width = (i / 32).wrapping_mul(0x9e37_79b9) % 13 + 1;
            (next() >> (64 - width)) as u32
        })
        .collect();
    bench_codec(&mut group, "Simple16", &varying_widths, &options, |codec| {
        matches!(codec, Codec::Simple16)
    });
    let mut time = 1_700_000_000;
    let sorted: Vec<u64> = (0..VALUES)
        .map(|_| {
            time += next() % 1000;
            time
        })
        .collect();
    bench_codec(&mut group, "delta", &sorted, &options, |codec| {
        matches!(codec, Codec::Delta)
    });
    let (mut value, mut left) = (0, 0);
    let runs: Vec<u64> = (0..VALUES)
        .map(|_| {
            if left == 0 {
                (value, left) = (next(), 1 + next() % 200);
            }
            left -= 1;
            value
        })
        .collect();
    bench_codec(&mut group, "RLE", &runs, &options, |codec| {
        matches!(codec, Codec::Rle { .. })
    });
    let distinct: Vec<u64> = (0..50).map(|_| next()).collect();
    let repeated: Vec<u64> = (0..VALUES)
        .map(|_| distinct[(next() % 50) as usize])
        .collect();
    bench_codec(&mut group, "dictionary", &repeated, &options, |codec| {
        matches!(codec, Codec::Dictionary { .. })
    });
    // Small values, each half as frequent as the one before: all 16 appear, so a dictionary's
    // indices would be no narrower, while a prefix code takes about two bits a value.
    let skewed: Vec<u64> = (0..VALUES)
        .map(|_| u64::from(next().trailing_zeros().min(15)))
        .collect();
    bench_codec(&mut group, "Huffman", &skewed, &options, |codec| {
        matches!(codec, Codec::Huffman { .. })
    });
    // Thousands of values of widely varying frequency, as the deltas of coordinates give: a
    // code table too large for the first-level cache, and escapes.
    let wide: Vec<u64> = (0..VALUES)
        .map(|_| {
            let magnitude = next().trailing_zeros().min(12);
            (1 << magnitude) + next() % (1 << magnitude)
        })
        .collect();
    bench_codec(
        &mut group,
        "Huffman, thousands of codes",
        &wide,
        &options,
        |codec| matches!(codec, Codec::Huffman { .. }),
    );
    group.finish();
}

fn floats(c: &mut Criterion) {
    let mut group = c.benchmark_group("floats");
    let options = column_codecs();
    let mut next = random(2);
    // Random bit patterns of finite floats of every magnitude: nothing but their bits to store.
    let bits: Vec<f64> = (0..VALUES).map(|_| f64::from_bits(next() >> 2)).collect();
    bench_codec(&mut group, "raw bits", &bits, &options, |codec| {
        matches!(codec, Codec::Fixed { width: 8 })
    });
    // Floats near 2^70, too large for decimals, whose low 21 bits are noise and whose higher
    // bits move up every thousand values: xors of neighbours keep the noise alone, narrower than
    // their differences, and the column spans too wide a range to bit-pack.
    let drifting: Vec<f64> = (0..VALUES as u64)
        .map(|i| f64::from_bits(0x4450_0000_0000_0000 | (i / 1000) << 21 | next() >> 43))
        .collect();
    bench_codec(&mut group, "XOR", &drifting, &options, |codec| {
        matches!(codec, Codec::Xor)
    });
    let prices: Vec<f64> = (0..VALUES)
        .map(|_| (next() % 100_000) as f64 / 100.0)
        .collect();
    bench_codec(&mut group, "decimal", &prices, &options, |codec| {
        matches!(codec, Codec::Decimal { digits: 2 })
    });
    let noisy: Vec<f64> = (0..VALUES)
        .map(|i| (i as f64 * 0.001).sin() * 50.0 + unit(next()) * 1e-3)
        .collect();
    let lossy = lossy_options().prefer(Preference::Faster);
    bench_codec(&mut group, "lossy 2^-12", &noisy, &lossy, |codec| {
        matches!(codec, Codec::Lossy { .. })
    });
    group.finish();
}

fn booleans(c: &mut Criterion) {
    let mut group = c.benchmark_group("booleans");
    let options = column_codecs();
    let mut next = random(3);
    let coin_flips: Vec<bool> = (0..VALUES).map(|_| next() & 1 == 1).collect();
    bench_codec(&mut group, "packed", &coin_flips, &options, |codec| {
        matches!(codec, Codec::Packed)
    });
    let (mut value, mut left) = (false, 0);
    let runs: Vec<bool> = (0..VALUES)
        .map(|_| {
            if left == 0 {
                (value, left) = (!value, 1 + next() % 500);
            }
            left -= 1;
            value
        })
        .collect();
    bench_codec(&mut group, "RLE", &runs, &options, |codec| {
        matches!(codec, Codec::BoolRle { .. })
    });
    group.finish();
}

fn strings(c: &mut Criterion) {
    let mut group = c.benchmark_group("strings");
    let options = column_codecs();
    let mut next = random(4);
    let unique: Vec<String> = (0..STRINGS).map(|_| format!("{:x}", next())).collect();
    bench_codec(&mut group, "plain", &unique, &options, |codec| {
        matches!(codec, Codec::Plain)
    });
    let words = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
    ];
    let repeated: Vec<String> = (0..STRINGS)
        .map(|_| words[(next() % 8) as usize].to_owned())
        .collect();
    bench_codec(&mut group, "dictionary", &repeated, &options, |codec| {
        matches!(codec, Codec::StrDictionary { .. })
    });
    // Line scores of games, a digit an inning and mostly zeros: text of a few skewed bytes.
    let scores: Vec<String> = (0..STRINGS)
        .map(|_| {
            (0..9)
                .map(|_| match next() % 16 {
                    0..=9 => '0',
                    10..=12 => '1',
                    13 | 14 => '2',
                    _ => '3',
                })
                .collect()
        })
        .collect();
    bench_codec(&mut group, "coded text", &scores, &options, |codec| {
        matches!(codec, Codec::CodedText)
    });
    group.finish();
}

/// Floats whose mantissas are noise, with the default options (zstd stage included) on one
/// thread: whatever the encoder chooses, it should not cost it long to find that nothing beats
/// their bits by much.
fn noise_floats(c: &mut Criterion) {
    let mut group = c.benchmark_group("noise floats");
    let options = EncodeOptions::default().parallel(false);
    let mut next = random(6);
    let f64s: Vec<f64> = (0..VALUES)
        .map(|i| 20.0 + (i as f64 * 1e-3).sin() * 5.0 + unit(next()) * 0.2)
        .collect();
    bench_codec(&mut group, "f64", &f64s, &options, |_| true);
    let f32s: Vec<f32> = (0..VALUES)
        .map(|_| (unit(next()) * 20.0 - 10.0) as f32)
        .collect();
    bench_codec(&mut group, "f32", &f32s, &options, |_| true);
    // The same values as the points of a mesh: one column of all their coordinates, which the
    // vector of arrays takes as it is.
    let points: Vec<[f32; 3]> = f32s.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
    bench_codec(&mut group, "f32 points", &points, &options, |_| true);
    group.finish();
}

/// The zstd stage that the default options add where it saves enough, around log lines.
fn zstd_stage(c: &mut Criterion) {
    let mut group = c.benchmark_group("zstd stage");
    let mut next = random(5);
    let lines: Vec<String> = (0..STRINGS as u64)
        .map(|i| {
            let item = next() % 5000;
            format!("GET /api/v1/items/{item} 200 served in {} ms", i % 97)
        })
        .collect();
    let options = EncodeOptions::default().parallel(false);
    bench_codec(&mut group, "strings", &lines, &options, |codec| {
        matches!(codec, Codec::Zstd { .. })
    });
    group.finish();
}

/// Small integers shaped like real columns: mostly tiny, some larger.
fn values() -> Vec<u32> {
    let mut state = 0x9e37_79b9u32;
    (0..1_000_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            if state.is_multiple_of(10) {
                state % 5000
            } else {
                state % 16
            }
        })
        .collect()
}

fn simple16_decoding(c: &mut Criterion) {
    let values = values();
    let ours = simple16::encode(&values).expect("every value is below 2^28");
    assert_eq!(simple16::decode(&ours, values.len()).unwrap(), values);
    let mut theirs = Vec::new();
    simple_16::compress(&values, &mut theirs).unwrap();
    let mut check = Vec::new();
    simple_16::decompress(&theirs, &mut check).unwrap();
    assert_eq!(&check[..values.len()], &values[..]);

    let mut group = c.benchmark_group("simple16 decode, 1M values");
    group.throughput(Throughput::Elements(values.len() as u64));
    group.bench_function("tree-buf", |b| {
        b.iter(|| simple16::decode(black_box(&ours), values.len()).unwrap())
    });
    group.bench_function("simple-16 crate", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(values.len());
            simple_16::decompress(black_box(&theirs), &mut out).unwrap();
            out
        })
    });
    group.finish();
}

/// Few, short samples: every codec in a few minutes, which is precise enough to compare them.
fn quick() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = quick();
    targets = integers, floats, noise_floats, booleans, strings, zstd_stage, simple16_decoding
}
criterion_main!(benches);
