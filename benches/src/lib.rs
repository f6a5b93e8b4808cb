//! The formats tree-buf is measured against, and how they are timed. Shared by the criterion
//! benches and the `report` binary.

use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tree_buf::{EncodeOptions, Preference};

/// What a dataset type must support to be measured in every format.
pub trait Dataset:
    tree_buf::Encode
    + tree_buf::Decode
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
        + tree_buf::Decode
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
    /// Lossy: decoded values are checked by re-encoding instead of by equality.
    pub lossy: bool,
}

fn zstd(bytes: Vec<u8>, level: i32) -> Vec<u8> {
    zstd::bulk::compress(&bytes, level).expect("zstd compresses")
}

fn unzstd(bytes: &[u8]) -> Vec<u8> {
    zstd::stream::decode_all(bytes).expect("zstd decompresses")
}

/// Every format, peers and tree-buf; `floats` adds tree-buf with a lossy tolerance of 2^-12.
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
            "tree-buf",
            |v: &T| tree_buf::encode(v),
            |b: &[u8]| tree_buf::decode(b).expect("tree-buf decodes"),
        ),
        Format {
            size_only: true,
            ..format(
                "tree-buf (smaller)",
                |v: &T| {
                    tree_buf::encode_with_options(
                        v,
                        &EncodeOptions::default().prefer(Preference::Smaller),
                    )
                    .expect("encodes")
                },
                |b: &[u8]| tree_buf::decode(b).expect("tree-buf decodes"),
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
            "rmp-serde (named)",
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
            "bitcode",
            |v: &T| bitcode::encode(v),
            |b: &[u8]| bitcode::decode(b).expect("bitcode"),
        ),
        format(
            "bitcode + zstd-3",
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
    ];
    if floats {
        formats.insert(
            1,
            Format {
                lossy: true,
                ..format(
                    "tree-buf (lossy 2^-12)",
                    |v: &T| tree_buf::encode_with_options(v, &lossy_options()).expect("encodes"),
                    |b: &[u8]| tree_buf::decode(b).expect("tree-buf decodes"),
                )
            },
        );
    }
    formats
}

/// The lossy tolerance the benchmarks use: 2^-12.
pub fn lossy_options() -> EncodeOptions {
    EncodeOptions::default().lossy_float_tolerance(-12)
}

/// Whether `format` gives back `value`: equal, or for lossy formats the same bytes when encoded
/// again (quantizing twice changes nothing).
pub fn check<T: Dataset>(format: &Format<T>, value: &T, bytes: &[u8]) -> bool {
    let decoded = (format.decode)(bytes);
    if format.lossy {
        (format.encode)(&decoded) == bytes
    } else {
        decoded == *value
    }
}

/// The median time of `run`, repeated until `budget` is spent (at least `min` and at most 50
/// times).
pub fn median(budget: Duration, min: usize, mut run: impl FnMut()) -> Duration {
    let start = Instant::now();
    let mut times = Vec::new();
    while times.len() < min || (start.elapsed() < budget && times.len() < 50) {
        let t = Instant::now();
        run();
        times.push(t.elapsed());
    }
    times.sort();
    times[times.len() / 2]
}

/// The GeoJSON with only the country names and codes: what a partial load reads.
#[derive(tree_buf::Decode, Deserialize)]
pub struct Names {
    pub features: Vec<NameFeature>,
}

/// A feature without its geometry.
#[derive(tree_buf::Decode, Deserialize)]
pub struct NameFeature {
    pub properties: tree_buf_datasets::geojson::Properties,
}

/// Reads the names and codes of a tree-buf GeoJSON file, skipping the geometry.
pub fn load_names(bytes: &[u8]) -> Names {
    tree_buf::Reader::new(bytes)
        .and_then(|reader| reader.decode::<Names>())
        .expect("partial load")
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

/// [`tree_buf_datasets::geojson::Properties`] in small strings.
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
    tree_buf::Reader::new(bytes)
        .and_then(|reader| reader.decode::<CompactNames>())
        .expect("partial load")
}
