//! A zstd frame around any stream, used where general-purpose compression beats the column codecs
//! alone (large string branches, byte-aligned integer cascades with repeated patterns).
//!
//! ```text
//! zstd := 0x08 size:varint frame   the frame (RFC 8878) decompresses to exactly `size` bytes: a
//!                                  stream of the same family (integers, strings, ...) and count
//! ```
//!
//! Without the `zstd` feature, encoders never write this stage and decoding one is an
//! `UnsupportedVersion` error; it is still described, from its header.

use super::budget::Budget;
use super::bytes::{write_varint, ByteReader};
use super::describe::{Codec, Describer, Encoding};
use super::Settings;
use crate::error::{corrupt, DecodeError};

/// The tag of a zstd frame, the same in every stream family.
pub(crate) const TAG: u8 = 0x08;

/// Streams smaller than this are not worth a zstd frame.
const MIN_BYTES: usize = 512;

/// Whether this build writes zstd stages: not without the `zstd` feature, nor under Miri, which
/// cannot run zstd's C code (there compression declines as when zstd fails, so that every other
/// codec is still exercised, and nothing writes a frame to decode).
const COMPRESSES: bool = cfg!(all(feature = "zstd", not(miri)));

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
    let Some(level) = settings.zstd_level.filter(|_| COMPRESSES) else {
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

/// `stream` compressed into a bare zstd frame at `level`, or `None` if zstd fails.
#[cfg(all(feature = "zstd", not(miri)))]
fn compress_frame(stream: &[u8], level: i32) -> Option<Vec<u8>> {
    use std::cell::RefCell;
    thread_local! {
        // A zstd context holds hundreds of kilobytes of tables: creating one per stream costs
        // more than compressing a small stream, so each thread keeps one.
        static COMPRESSOR: RefCell<Option<(i32, ::zstd::bulk::Compressor<'static>)>> =
            const { RefCell::new(None) };
    }
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

/// Declines, as when zstd fails: see [`COMPRESSES`].
#[cfg(not(all(feature = "zstd", not(miri))))]
fn compress_frame(_stream: &[u8], _level: i32) -> Option<Vec<u8>> {
    None
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

/// The `size` bytes that `frame` decompresses to.
#[cfg(feature = "zstd")]
fn decompress_frame(frame: &[u8], size: usize) -> Result<Vec<u8>, DecodeError> {
    use std::cell::RefCell;
    thread_local! {
        // As for compression: one context per thread.
        static DECOMPRESSOR: RefCell<Option<::zstd::bulk::Decompressor<'static>>> =
            const { RefCell::new(None) };
    }
    let inner = DECOMPRESSOR
        .with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = Some(::zstd::bulk::Decompressor::new()?);
            }
            slot.as_mut().map_or_else(
                || Err(std::io::Error::other("no decompression context")),
                |decompressor| decompressor.decompress(frame, size),
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

/// Fails: this build cannot decompress.
#[cfg(not(feature = "zstd"))]
fn decompress_frame(_frame: &[u8], _size: usize) -> Result<Vec<u8>, DecodeError> {
    Err(DecodeError::new(
        crate::error::DecodeErrorKind::UnsupportedVersion,
        "",
        "the branch has a zstd stage, and reading it needs tree-buf's `zstd` feature",
    ))
}

/// A zstd stage's header, parsed once: the size of the stream inside, and the frame.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame<'a> {
    size: u64,
    frame: &'a [u8],
}

impl<'a> Frame<'a> {
    /// Reads the header from `body`, the bytes after the tag.
    pub(crate) fn parse(body: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(body);
        let size = reader.varint()?;
        Ok(Frame {
            size,
            frame: reader.rest(),
        })
    }

    /// The stream inside, which must claim at most `max_size` bytes; they are charged to the
    /// budget before they are allocated.
    pub(crate) fn decompress(
        &self,
        max_size: usize,
        budget: &mut Budget,
    ) -> Result<Vec<u8>, DecodeError> {
        let size = usize::try_from(self.size)
            .ok()
            .filter(|&s| s <= max_size)
            .ok_or_else(|| {
                corrupt(format!(
                    "a zstd frame claims {} bytes, more than its values can take ({max_size})",
                    self.size
                ))
            })?;
        budget.charge(size, 1)?;
        decompress_frame(self.frame, size)
    }

    /// The stage from its header; when `at` decompresses zstd, also the stream inside, described
    /// with `inner`.
    pub(crate) fn describe(
        &self,
        at: Describer,
        inner: fn(&[u8], Describer) -> Encoding,
    ) -> (Codec, Vec<Encoding>) {
        let codec = Codec::Zstd {
            content_bytes: self.size,
        };
        if !at.decompresses_zstd() {
            return (codec, Vec::new());
        }
        // Describing reads no values, so it takes no decoding budget: a frame may claim at most
        // what a very good compression ratio allows, not whatever its header says.
        const MAX_RATIO: usize = 4096;
        let max_size = self.frame.len().saturating_mul(MAX_RATIO).min(1 << 30);
        let child = match self.decompress(max_size, &mut Budget::new(max_size as u64)) {
            Ok(stream) => inner(&stream, at.nested()),
            Err(error) => Encoding::unreadable(usize::try_from(self.size).unwrap_or(0), &error),
        };
        (codec, vec![child])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decompress(
        body: &[u8],
        max_size: usize,
        budget: &mut Budget,
    ) -> Result<Vec<u8>, DecodeError> {
        Frame::parse(body)?.decompress(max_size, budget)
    }

    /// Describes the bytes inside a frame as their length.
    fn length(bytes: &[u8], _: Describer) -> Encoding {
        Encoding {
            codec: Codec::Fixed { width: 0 },
            bytes: bytes.len(),
            children: Vec::new(),
        }
    }

    #[test]
    // zstd is C code, which Miri cannot run.
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
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

    #[test]
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
    fn descriptions_decompress_only_when_asked() {
        let out = compress(&[7u8; 10_000], 3).unwrap();
        let frame = Frame::parse(&out[1..]).unwrap();
        let (codec, children) = frame.describe(Describer::new(false), length);
        assert_eq!(
            codec,
            Codec::Zstd {
                content_bytes: 10_000
            }
        );
        assert!(children.is_empty());
        let (_, children) = frame.describe(Describer::new(true), length);
        assert_eq!(children.len(), 1);
        assert_eq!(children[0].bytes, 10_000);
        // A frame that claims far more than it can hold is not decompressed.
        let mut lying = vec![];
        write_varint(&mut lying, 1 << 40);
        lying.extend_from_slice(&out[3..]);
        let (_, children) = Frame::parse(&lying)
            .unwrap()
            .describe(Describer::new(true), length);
        assert!(
            matches!(children[0].codec, Codec::Unreadable { .. }),
            "{children:?}"
        );
    }

    #[test]
    #[cfg(not(feature = "zstd"))]
    fn without_the_feature_nothing_is_compressed_and_frames_name_it() {
        assert!(compress(&[7u8; 10_000], 3).is_none());
        let mut out = Vec::new();
        best_of(&Settings::small(), &mut out, |_, out| {
            out.extend([0u8; 4096])
        });
        assert_eq!(out.len(), 4096);
        let error = decompress(&[4, 1, 2, 3], 10, &mut Budget::new(u64::MAX)).unwrap_err();
        assert_eq!(
            error.kind(),
            crate::error::DecodeErrorKind::UnsupportedVersion
        );
        assert!(error.message().contains("`zstd` feature"), "{error}");
        // Described from the header all the same.
        let (codec, _) = Frame::parse(&[4, 1, 2, 3])
            .unwrap()
            .describe(Describer::new(false), length);
        assert_eq!(codec, Codec::Zstd { content_bytes: 4 });
    }
}
