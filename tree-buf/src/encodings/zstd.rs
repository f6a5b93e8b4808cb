//! A zstd frame around any stream, used where general-purpose compression beats the column codecs
//! alone (large string branches, byte-aligned integer cascades with repeated patterns).
//!
//! ```text
//! zstd := 0x08 size:varint frame   the frame decompresses to exactly `size` bytes: a stream of
//!                                  the same family (integers, strings, ...) and count
//! ```

use std::cell::RefCell;

use super::budget::Budget;
use super::bytes::{write_varint, ByteReader};
use super::Settings;
use crate::error::{corrupt, DecodeError};

/// The tag of a zstd frame, the same in every stream family.
pub(crate) const TAG: u8 = 0x08;

/// Streams smaller than this are not worth a zstd frame.
const MIN_BYTES: usize = 512;

/// Runs `encode` (with `settings`), then, for a large result and a zstd level in the settings,
/// also encodes with whole-byte codecs only (zstd finds repeats in whole bytes; bit-packed data
/// hides them), compresses that, and keeps it if the settings find the saving worth it.
pub(crate) fn best_of(
    settings: &Settings,
    out: &mut Vec<u8>,
    encode: impl Fn(&Settings, &mut Vec<u8>),
) {
    let start = out.len();
    encode(settings, out);
    let Some(level) = settings.zstd_level else {
        return;
    };
    if out.len() - start < MIN_BYTES {
        return;
    }
    let mut aligned = Vec::new();
    encode(&settings.byte_aligned(), &mut aligned);
    if let Some(compressed) = compress(&aligned, level) {
        if settings.keeps_zstd(compressed.len(), out.len() - start) {
            out.truncate(start);
            out.extend_from_slice(&compressed);
        }
    }
}

thread_local! {
    // A zstd context holds hundreds of kilobytes of tables: creating one per stream costs more
    // than compressing a small stream, so each thread keeps one of each.
    static COMPRESSOR: RefCell<Option<(i32, ::zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
    static DECOMPRESSOR: RefCell<Option<::zstd::bulk::Decompressor<'static>>> =
        const { RefCell::new(None) };
}

/// Miri cannot run zstd's C code: under Miri, compression declines as when zstd fails, so that
/// every other codec is still exercised (decompression still fails, so nothing decodes a frame).
#[cfg(miri)]
fn compress_frame(_stream: &[u8], _level: i32) -> Option<Vec<u8>> {
    None
}

/// `stream` compressed into a bare zstd frame at `level`, or `None` if zstd fails.
#[cfg(not(miri))]
fn compress_frame(stream: &[u8], level: i32) -> Option<Vec<u8>> {
    COMPRESSOR.with(|cell| {
        let mut slot = cell.borrow_mut();
        match &mut *slot {
            Some((current, _)) if *current == level => {}
            Some((current, compressor)) => {
                compressor.set_compression_level(level).ok()?;
                *current = level;
            }
            None => *slot = Some((level, ::zstd::bulk::Compressor::new(level).ok()?)),
        }
        let (_, compressor) = slot.as_mut()?;
        compressor.compress(stream).ok()
    })
}

/// The whole tagged stream: `stream` compressed at `level`, or `None` if zstd fails.
pub(crate) fn compress(stream: &[u8], level: i32) -> Option<Vec<u8>> {
    let frame = compress_frame(stream, level)?;
    let mut out = Vec::with_capacity(frame.len() + 6);
    out.push(TAG);
    write_varint(&mut out, stream.len() as u64);
    out.extend_from_slice(&frame);
    Some(out)
}

/// The size of `stream` once compressed at `level` (its own size if zstd fails).
pub(crate) fn compressed_size(stream: &[u8], level: i32) -> usize {
    compress_frame(stream, level).map_or(stream.len(), |frame| frame.len())
}

/// The stream inside a frame (`body` follows the tag), at most `max_size` bytes, charged to the
/// budget before it is allocated.
pub(crate) fn decompress(
    body: &[u8],
    max_size: usize,
    budget: &mut Budget,
) -> Result<Vec<u8>, DecodeError> {
    let mut reader = ByteReader::new(body);
    let size = reader.varint()?;
    let size = usize::try_from(size)
        .ok()
        .filter(|&s| s <= max_size)
        .ok_or_else(|| {
            corrupt(format!(
                "a zstd frame claims {size} bytes, more than its values can take ({max_size})"
            ))
        })?;
    budget.charge(size, 1)?;
    let inner = DECOMPRESSOR
        .with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = Some(::zstd::bulk::Decompressor::new()?);
            }
            slot.as_mut().map_or_else(
                || Err(std::io::Error::other("no decompression context")),
                |decompressor| decompressor.decompress(reader.rest(), size),
            )
        })
        .map_err(|e| corrupt(format!("zstd: {e}")))?;
    if inner.len() != size {
        return Err(corrupt(format!(
            "a zstd frame holds {} bytes, not {size}",
            inner.len()
        )));
    }
    Ok(inner)
}

/// Describes the stream inside a frame with `describe`.
pub(crate) fn describe_inner(body: &[u8], describe: fn(&[u8]) -> String) -> String {
    // Describing reads no values, so it takes no decoding budget: a frame may claim at most
    // what a very good compression ratio allows, not whatever its header says.
    const MAX_RATIO: usize = 4096;
    let max_size = body.len().saturating_mul(MAX_RATIO).min(1 << 30);
    match decompress(body, max_size, &mut Budget::new(max_size as u64)) {
        Ok(inner) => describe(&inner),
        Err(_) => "undescribed".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // zstd is C code, which Miri cannot run.
    #[cfg_attr(miri, ignore)]
    fn round_trips_and_checks_the_claimed_size() {
        let stream = vec![7u8; 10_000];
        let out = compress(&stream, 3).unwrap();
        assert!(out.len() < 100);
        assert_eq!(
            decompress(&out[1..], 10_000, &mut Budget::new(u64::MAX)).unwrap(),
            stream
        );
        assert!(
            decompress(&out[1..], 9_999, &mut Budget::new(u64::MAX)).is_err(),
            "over the maximum"
        );
        assert!(
            decompress(&out[1..], 10_000, &mut Budget::new(100)).is_err(),
            "over the budget"
        );
        let mut lying = vec![];
        write_varint(&mut lying, 5);
        lying.extend_from_slice(&out[3..]);
        assert!(
            decompress(&lying, 10_000, &mut Budget::new(u64::MAX)).is_err(),
            "wrong size"
        );
        assert!(
            decompress(&[3, 1, 2, 3], 10, &mut Budget::new(u64::MAX)).is_err(),
            "not a frame"
        );
    }
}
