//! The formats tree-buf is measured against, how their output is checked, and how they are
//! timed. Shared by the criterion benches and the `report` binary.

pub mod timing;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tree_buf::{DecodeOptions, EncodeOptions, Preference, Value};
use tree_buf_datasets::geojson::{self, FeatureCollection};

/// With the `mimalloc` feature, every program that links this crate allocates through mimalloc:
/// decoding rows of many strings is mostly allocation, which glibc's malloc makes slow.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How every timing here allocates, as the report says it.
pub const ALLOCATOR_NAME: &str = match cfg!(feature = "mimalloc") {
    true => "memory from mimalloc (the `mimalloc` feature)",
    false => "memory from the system's allocator",
};

/// What a dataset type must support to be measured in every format.
pub trait Dataset:
    tree_buf::Encode
    + tree_buf::DecodeOwned
    + Serialize
    + DeserializeOwned
    + bitcode::Encode
    + bitcode::DecodeOwned
    + PartialEq
    + Clone
{
}

impl<T> Dataset for T where
    T: tree_buf::Encode
        + tree_buf::DecodeOwned
        + Serialize
        + DeserializeOwned
        + bitcode::Encode
        + bitcode::DecodeOwned
        + PartialEq
        + Clone
{
}

/// One serialization format.
pub struct Format<T> {
    pub name: &'static str,
    pub encode: fn(&T) -> Vec<u8>,
    pub decode: fn(&[u8]) -> T,
    /// Slow, strong compression measured for size only.
    pub size_only: bool,
    /// Lossy: decoded floats are checked against [`lossy_tolerance`] instead of by equality.
    pub lossy: bool,
}

fn zstd(bytes: Vec<u8>, level: i32) -> Vec<u8> {
    zstd::bulk::compress(&bytes, level).expect("zstd compresses")
}

fn unzstd(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::decode_all(bytes).expect("zstd decompresses")
}

/// The name of tree-buf's row with the default options on one thread: the headline, since every
/// peer runs on one.
pub const TREE_BUF: &str = "tree-buf";
/// The name of tree-buf's row with the default options, encoding and decoding in parallel.
pub const TREE_BUF_PARALLEL: &str = "tree-buf (parallel)";
/// The name of tree-buf's row with [`Preference::Faster`] on one thread.
pub const TREE_BUF_FASTER: &str = "tree-buf (faster)";
/// The name of tree-buf's row with [`Preference::Faster`], encoding and decoding in parallel.
pub const TREE_BUF_FASTER_PARALLEL: &str = "tree-buf (faster, parallel)";
/// The name of tree-buf's row through serde's traits (`tree_buf::serde`) with the default
/// options, on one thread.
pub const TREE_BUF_SERDE: &str = "tree-buf (serde)";
/// The name of plain bitcode's row.
pub const BITCODE: &str = "bitcode";
/// The name of the row of bitcode compressed by zstd at level 3.
pub const BITCODE_ZSTD: &str = "bitcode + zstd-3";
/// The name of the row of MessagePack with field names.
pub const RMP_NAMED: &str = "rmp-serde (named)";

/// Decode options on one thread, as every peer decodes.
pub fn one_thread() -> DecodeOptions {
    DecodeOptions::default().parallel(false)
}

/// A rayon pool of `threads` threads, in which an archive's parallel decode runs on that many.
///
/// Timing one thread against several, both sides run in a pool, never on the calling thread:
/// glibc's malloc keeps what the main thread frees for its next allocations but hands the
/// memory a worker thread's arena frees back to the system, so a decode of string-heavy rows
/// repeated on the main thread skips the page faults that the same decode on any other thread
/// pays again each time (about 1.25x faster on the Retrosheet games archive).
pub fn thread_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// How many threads this machine runs at once: the "all threads" of the report's timings.
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// A timing task per pool, each running `decode` in its pool; what `decode` returns is freed
/// after the timing, as [`timing::load_task`]'s are.
pub fn in_each_pool<'a, R: Send>(
    pools: &'a [rayon::ThreadPool],
    decode: &'a (dyn Fn() -> R + Sync),
) -> Vec<timing::Task<'a, std::time::Duration>> {
    (pools.iter())
        .map(|pool| timing::load_task(move || pool.install(decode)))
        .collect()
}

fn tree_buf_encode<T: Dataset>(value: &T, preference: Preference, parallel: bool) -> Vec<u8> {
    let options = EncodeOptions::default()
        .prefer(preference)
        .parallel(parallel);
    tree_buf::encode_with_options(value, &options).expect("encodes")
}

fn tree_buf_decode<T: Dataset>(bytes: &[u8], parallel: bool) -> T {
    tree_buf::decode_with_options(bytes, &DecodeOptions::default().parallel(parallel))
        .expect("tree-buf decodes")
}

/// Every format, tree-buf and peers. tree-buf's rows run on one thread unless their name says
/// `parallel`; `floats` adds tree-buf with a lossy tolerance of 2^-12.
pub fn formats<T: Dataset>(floats: bool) -> Vec<Format<T>> {
    let format = |name, encode, decode| Format {
        name,
        encode,
        decode,
        size_only: false,
        lossy: false,
    };
    let mut formats = vec![
        format(
            TREE_BUF,
            |v: &T| tree_buf_encode(v, Preference::Balanced, false),
            |b: &[u8]| tree_buf_decode(b, false),
        ),
        format(
            TREE_BUF_PARALLEL,
            |v: &T| tree_buf_encode(v, Preference::Balanced, true),
            |b: &[u8]| tree_buf_decode(b, true),
        ),
        format(
            TREE_BUF_FASTER,
            |v: &T| tree_buf_encode(v, Preference::Faster, false),
            |b: &[u8]| tree_buf_decode(b, false),
        ),
        format(
            TREE_BUF_FASTER_PARALLEL,
            |v: &T| tree_buf_encode(v, Preference::Faster, true),
            |b: &[u8]| tree_buf_decode(b, true),
        ),
        format(
            TREE_BUF_SERDE,
            |v: &T| {
                let options = EncodeOptions::default().parallel(false);
                tree_buf::serde::to_vec_with_options(v, &options).expect("encodes")
            },
            |b: &[u8]| tree_buf::serde::from_slice_with_options(b, &one_thread()).expect("decodes"),
        ),
    ];
    if floats {
        formats.push(Format {
            lossy: true,
            ..format(
                "tree-buf (lossy 2^-12)",
                |v: &T| tree_buf::encode_with_options(v, &lossy_options()).expect("encodes"),
                |b: &[u8]| tree_buf_decode(b, false),
            )
        });
    }
    formats.extend([
        Format {
            size_only: true,
            ..format(
                "tree-buf (smaller)",
                |v: &T| tree_buf_encode(v, Preference::Smaller, false),
                |b: &[u8]| tree_buf_decode(b, false),
            )
        },
        format(
            "serde_json",
            |v: &T| serde_json::to_vec(v).expect("JSON"),
            |b: &[u8]| serde_json::from_slice(b).expect("JSON"),
        ),
        format(
            "serde_json + zstd-3",
            |v: &T| zstd(serde_json::to_vec(v).expect("JSON"), 3),
            |b: &[u8]| serde_json::from_slice(&unzstd(b)).expect("JSON"),
        ),
        Format {
            size_only: true,
            ..format(
                "serde_json + zstd-19",
                |v: &T| zstd(serde_json::to_vec(v).expect("JSON"), 19),
                |b: &[u8]| serde_json::from_slice(&unzstd(b)).expect("JSON"),
            )
        },
        format(
            RMP_NAMED,
            |v: &T| rmp_serde::to_vec_named(v).expect("MessagePack"),
            |b: &[u8]| rmp_serde::from_slice(b).expect("MessagePack"),
        ),
        format(
            "rmp-serde (compact)",
            |v: &T| rmp_serde::to_vec(v).expect("MessagePack"),
            |b: &[u8]| rmp_serde::from_slice(b).expect("MessagePack"),
        ),
        format(
            "bincode",
            |v: &T| bincode::serialize(v).expect("bincode"),
            |b: &[u8]| bincode::deserialize(b).expect("bincode"),
        ),
        format(
            "postcard",
            |v: &T| postcard::to_allocvec(v).expect("postcard"),
            |b: &[u8]| postcard::from_bytes(b).expect("postcard"),
        ),
        format(
            BITCODE,
            |v: &T| bitcode::encode(v),
            |b: &[u8]| bitcode::decode(b).expect("bitcode"),
        ),
        format(
            BITCODE_ZSTD,
            |v: &T| zstd(bitcode::encode(v), 3),
            |b: &[u8]| bitcode::decode(&unzstd(b)).expect("bitcode"),
        ),
        Format {
            size_only: true,
            ..format(
                "bitcode + zstd-19",
                |v: &T| zstd(bitcode::encode(v), 19),
                |b: &[u8]| bitcode::decode(&unzstd(b)).expect("bitcode"),
            )
        },
    ]);
    formats
}

/// The exponent of the lossy row's tolerance: floats are kept within 2^-12.
pub const LOSSY_EXPONENT: i32 = -12;

/// The options of the lossy row: a float tolerance of 2^[`LOSSY_EXPONENT`], on one thread.
pub fn lossy_options() -> EncodeOptions {
    EncodeOptions::default()
        .parallel(false)
        .lossy_float_tolerance(LOSSY_EXPONENT)
}

/// How far [`lossy_options`] may move a finite float: 2^[`LOSSY_EXPONENT`], absolute.
pub fn lossy_tolerance() -> f64 {
    2f64.powi(LOSSY_EXPONENT)
}

/// Checks that `format` gives back `value` from `bytes`, its encoding: an equal value, or for the
/// lossy format one that [`within_lossy_tolerance`] accepts. The error says where they differ.
pub fn check<T: Dataset>(format: &Format<T>, value: &T, bytes: &[u8]) -> Result<(), String> {
    let decoded = (format.decode)(bytes);
    if format.lossy {
        within_lossy_tolerance(value, &decoded)
    } else if decoded == *value {
        Ok(())
    } else {
        // Tolerance 0 finds where they differ; if it finds nothing, a NaN (never `==`) is why.
        differences(&as_value(value), &as_value(&decoded), 0.0).and(Err(
            "differs where `==` and bit equality disagree (NaN?)".to_owned(),
        ))
    }
}

/// `format`'s encoding of `value`, checked with [`check`] before anything is timed.
///
/// # Panics
///
/// When the decoded value is not `value`, naming the format, the dataset and where they differ.
pub fn encode_checked<T: Dataset>(format: &Format<T>, dataset: &str, value: &T) -> Vec<u8> {
    let bytes = (format.encode)(value);
    if let Err(error) = check(format, value, &bytes) {
        panic!("{} does not give back {dataset}: {error}", format.name);
    }
    bytes
}

/// Checks what [`lossy_options`] guarantees, as its documentation states it: every finite float of
/// `decoded` lies within [`lossy_tolerance`] of `value`'s (an absolute bound), NaN and infinities
/// are kept bit for bit, and everything else is equal, with the same shape. Both are compared as
/// [`Value`]s of their lossless tree-buf encodings, in which `f32`s widen exactly to `f64`. The
/// error gives the path of the first difference and both values.
pub fn within_lossy_tolerance<T: tree_buf::Encode>(value: &T, decoded: &T) -> Result<(), String> {
    differences(&as_value(value), &as_value(decoded), lossy_tolerance())
}

/// `value` without its type: decoded as a [`Value`] from its lossless tree-buf encoding.
fn as_value<T: tree_buf::Encode>(value: &T) -> Value {
    tree_buf::decode(&tree_buf::encode(value)).expect("any tree-buf file decodes as a Value")
}

/// The first place where `actual` is not `expected`: a finite float more than `tolerance` away, a
/// NaN or infinity not bit-identical, or anything else unequal. The error is a path (`.field`,
/// `[index]`, `::Variant`) followed by both values.
fn differences(expected: &Value, actual: &Value, tolerance: f64) -> Result<(), String> {
    let lengths = |expected: usize, actual: usize| {
        if expected == actual {
            Ok(())
        } else {
            Err(format!(": {expected} items became {actual}"))
        }
    };
    match (expected, actual) {
        (Value::Float(e), Value::Float(a)) => {
            let kept = if e.is_finite() {
                (e - a).abs() <= tolerance
            } else {
                e.to_bits() == a.to_bits()
            };
            if kept {
                Ok(())
            } else {
                Err(format!(": {e:?} became {a:?}, not within {tolerance:e}"))
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            lengths(e.len(), a.len())?;
            e.iter().zip(a).enumerate().try_for_each(|(i, (e, a))| {
                differences(e, a, tolerance).map_err(|error| format!("[{i}]{error}"))
            })
        }
        (Value::Object(e), Value::Object(a)) => {
            lengths(e.len(), a.len())?;
            e.iter().zip(a).try_for_each(|((name, e), (other, a))| {
                if name != other {
                    return Err(format!(".{name}: became field {other}"));
                }
                differences(e, a, tolerance).map_err(|error| format!(".{name}{error}"))
            })
        }
        (Value::Variant(name, e), Value::Variant(other, a)) if name == other => {
            differences(e, a, tolerance).map_err(|error| format!("::{name}{error}"))
        }
        (Value::Map(e), Value::Map(a)) => {
            lengths(e.len(), a.len())?;
            e.iter()
                .zip(a)
                .enumerate()
                .try_for_each(|(i, ((ek, ev), (ak, av)))| {
                    differences(ek, ak, tolerance).map_err(|error| format!("[key {i}]{error}"))?;
                    differences(ev, av, tolerance).map_err(|error| format!("[value {i}]{error}"))
                })
        }
        // Scalars, and values of different kinds (where a float is a mismatch).
        _ if expected == actual => Ok(()),
        _ => Err(format!(": {} became {}", brief(expected), brief(actual))),
    }
}

/// `value` for an error message: scalars in full, containers by their size.
fn brief(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("an array of {}", items.len()),
        Value::Object(fields) => format!("an object of {} fields", fields.len()),
        Value::Map(entries) => format!("a map of {}", entries.len()),
        Value::Variant(name, _) => format!("variant {name}"),
        scalar => format!("{scalar:?}"),
    }
}

/// The GeoJSON with only the country names and codes: what a partial load reads.
#[derive(tree_buf::Decode, Deserialize)]
pub struct Names {
    pub features: Vec<NameFeature>,
}

/// A feature without its geometry.
#[derive(tree_buf::Decode, Deserialize)]
pub struct NameFeature {
    pub properties: geojson::Properties,
}

/// Decodes `T` from `bytes` through a [`tree_buf::Reader`] on one thread. A reader checks the
/// header and the checksums of the schema and of the branch table, and validates every branch it
/// reads, but does not checksum the branch data: that would read every byte.
fn read<T: tree_buf::DecodeOwned>(bytes: &[u8]) -> T {
    tree_buf::Reader::with_options(bytes, one_thread())
        .and_then(|reader| reader.decode::<T>())
        .expect("tree-buf reads")
}

/// Reads the names and codes of a tree-buf GeoJSON file, skipping the geometry.
pub fn load_names(bytes: &[u8]) -> Names {
    read(bytes)
}

/// Reads a whole tree-buf GeoJSON file as the partial loads read it: through a
/// [`tree_buf::Reader`], so without the data checksum that [`tree_buf::decode`] verifies.
pub fn load_everything(bytes: &[u8]) -> FeatureCollection {
    read(bytes)
}

/// The GeoJSON with only the country names and codes, held in small strings that keep up to 24
/// bytes inline: loading them allocates once per feature list, not once per string.
#[derive(tree_buf::Decode, Deserialize)]
pub struct CompactNames {
    pub features: Vec<CompactNameFeature>,
}

/// A feature without its geometry, its names in small strings.
#[derive(tree_buf::Decode, Deserialize)]
pub struct CompactNameFeature {
    pub properties: CompactProperties,
}

/// [`geojson::Properties`] in small strings.
#[derive(tree_buf::Decode, Deserialize)]
pub struct CompactProperties {
    #[serde(rename = "ADMIN")]
    pub admin: compact_str::CompactString,
    #[serde(rename = "ISO_A3")]
    pub iso_a3: compact_str::CompactString,
    #[serde(rename = "ISO_A2")]
    pub iso_a2: compact_str::CompactString,
}

/// [`load_names`] into small strings.
pub fn load_compact_names(bytes: &[u8]) -> CompactNames {
    read(bytes)
}

/// The GeoJSON with only the country names and codes, borrowed: from the file where it holds them
/// as they are, from the reader where it compressed them. Loading them allocates no string.
#[derive(tree_buf::Decode)]
pub struct BorrowedNames<'a> {
    pub features: Vec<BorrowedNameFeature<'a>>,
}

/// A feature without its geometry, its names borrowed.
#[derive(tree_buf::Decode)]
pub struct BorrowedNameFeature<'a> {
    pub properties: BorrowedProperties<'a>,
}

/// [`geojson::Properties`] borrowed.
#[derive(tree_buf::Decode)]
pub struct BorrowedProperties<'a> {
    pub admin: &'a str,
    pub iso_a3: &'a str,
    pub iso_a2: &'a str,
}

/// Reads the names and codes of a tree-buf GeoJSON file into [`BorrowedNames`], through a
/// [`tree_buf::Reader`] on one thread as [`load_names`] does, and gives what `with` makes of them:
/// the names borrow from the reader, which is dropped, with them, before this returns.
pub fn with_borrowed_names<R>(bytes: &[u8], with: impl FnOnce(&BorrowedNames<'_>) -> R) -> R {
    let reader = tree_buf::Reader::with_options(bytes, one_thread()).expect("tree-buf opens");
    let names = reader.decode().expect("tree-buf reads");
    with(&names)
}

/// A feature's name and codes, whichever type they were loaded into.
trait Codes {
    fn codes(&self) -> [&str; 3];
}

impl Codes for geojson::Properties {
    fn codes(&self) -> [&str; 3] {
        [&self.admin, &self.iso_a3, &self.iso_a2]
    }
}

impl Codes for BorrowedProperties<'_> {
    fn codes(&self) -> [&str; 3] {
        [self.admin, self.iso_a3, self.iso_a2]
    }
}

impl Codes for CompactProperties {
    fn codes(&self) -> [&str; 3] {
        [&self.admin, &self.iso_a3, &self.iso_a2]
    }
}

/// Checks the loads of the partial-load table on `bytes`, the tree-buf encoding of `countries`:
/// `bytes` decodes in full to `countries`, through [`tree_buf::decode`] and [`load_everything`],
/// and [`load_names`], [`load_compact_names`] and [`with_borrowed_names`] read the same names and
/// codes as that full decode, feature by feature.
pub fn check_partial_load(countries: &FeatureCollection, bytes: &[u8]) -> Result<(), String> {
    let full: FeatureCollection = tree_buf::decode(bytes).map_err(|e| e.to_string())?;
    if full != *countries {
        return Err("the full decode differs from the encoded value".to_owned());
    }
    if load_everything(bytes) != full {
        return Err("the full decode through a Reader differs from the encoded value".to_owned());
    }
    let expected: Vec<_> = full.features.iter().map(|f| f.properties.codes()).collect();
    let names = load_names(bytes);
    same_codes(
        "Names",
        &expected,
        names.features.iter().map(|f| f.properties.codes()),
    )?;
    let compact = load_compact_names(bytes);
    same_codes(
        "CompactNames",
        &expected,
        compact.features.iter().map(|f| f.properties.codes()),
    )?;
    with_borrowed_names(bytes, |borrowed| {
        same_codes(
            "BorrowedNames",
            &expected,
            borrowed.features.iter().map(|f| f.properties.codes()),
        )
    })
}

/// Checks that a partial load (`how`) read the `expected` names and codes.
fn same_codes<'a>(
    how: &str,
    expected: &[[&str; 3]],
    loaded: impl ExactSizeIterator<Item = [&'a str; 3]>,
) -> Result<(), String> {
    if loaded.len() != expected.len() {
        return Err(format!(
            "the {how} load read {} features, not {}",
            loaded.len(),
            expected.len()
        ));
    }
    for (i, (expected, loaded)) in expected.iter().zip(loaded).enumerate() {
        if *expected != loaded {
            return Err(format!(
                "the {how} load read {loaded:?} for feature {i}, not {expected:?}"
            ));
        }
    }
    Ok(())
}

/// The tree-buf file the partial loads read: `countries` encoded, checked with
/// [`check_partial_load`] before anything is timed.
///
/// # Panics
///
/// When the full decode or a partial load does not give back what was encoded.
pub fn names_file(countries: &FeatureCollection) -> Vec<u8> {
    let bytes = tree_buf::encode(countries);
    if let Err(error) = check_partial_load(countries, &bytes) {
        panic!(
            "partial load of {} features: {error}",
            countries.features.len()
        );
    }
    bytes
}

/// `countries` with k times the geometry, for the partial load on growing files: each ring
/// followed by k - 1 copies, each shifted east by a thousandth of a degree more, so that the copies
/// differ. Only geometry changes; the names and codes are those of `countries`.
pub fn with_repeated_geometry(countries: &FeatureCollection, k: usize) -> FeatureCollection {
    let repeated = |rings: &[Vec<geojson::Point>]| -> Vec<Vec<geojson::Point>> {
        (0..k)
            .flat_map(|copy| {
                let shift = copy as f64 * 1e-3;
                rings
                    .iter()
                    .map(move |ring| ring.iter().map(|&(x, y)| (x + shift, y)).collect())
            })
            .collect()
    };
    let mut bigger = countries.clone();
    for feature in &mut bigger.features {
        feature.geometry = match &feature.geometry {
            geojson::Geometry::Polygon(rings) => geojson::Geometry::Polygon(repeated(rings)),
            geojson::Geometry::MultiPolygon(polygons) => geojson::Geometry::MultiPolygon(
                polygons.iter().map(|rings| repeated(rings)).collect(),
            ),
        };
    }
    bigger
}

/// Writes `rows` as an archive with `options`, checked to read back as `rows`.
pub fn archive_checked<
    T: tree_buf::Encode + tree_buf::DecodeOwned + PartialEq + std::fmt::Debug + Send,
>(
    rows: &[T],
    options: tree_buf::archive::ArchiveOptions,
) -> Vec<u8> {
    let mut writer =
        tree_buf::archive::ArchiveWriter::with_options(Vec::new(), options).expect("a writer");
    for row in rows {
        writer.push(row).expect("rows encode");
    }
    let bytes = writer.finish().expect("the archive is written");
    let archive = tree_buf::archive::Archive::from_bytes(&bytes).expect("the archive opens");
    assert!(
        archive.decode_all::<T>().expect("the archive decodes") == rows,
        "the archive reads back other rows"
    );
    bytes
}

/// The numbers of a game, without its strings: a projection of the Retrosheet rows that
/// allocates little, to time reading apart from building strings.
#[derive(tree_buf::Decode)]
pub struct GameNumbers {
    pub date: u32,
    pub length_outs: Option<u16>,
    pub attendance: Option<u32>,
    pub duration_minutes: Option<u16>,
}
