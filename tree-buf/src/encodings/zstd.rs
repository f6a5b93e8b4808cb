//! A zstd frame around any stream, used where general-purpose compression beats the column codecs
//! alone (large string branches, byte-aligned integer cascades with repeated patterns).
//!
//! ```text
//! zstd := 0x08 size:varint frame   exactly one zstd frame (RFC 8878, not a skippable frame)
//!                                  that decompresses to exactly `size` bytes: a stream of the
//!                                  same family (integers, strings, ...) and count
//! ```
//!
//! `size` repeats what the frame's header may also say: it bounds the allocation before any
//! decompression, whatever the header holds (or leaves out). A frame whose header declares
//! another content size, a second frame after the first, and a frame that decompresses to
//! another size are errors.
//!
//! Without the `zstd` feature, encoders never write this stage and decoding one is an
//! `UnsupportedVersion` error; it is still described, from its header.

use std::borrow::Cow;

use super::budget::Budget;
use super::bytes::{write_varint, ByteReader};
use super::describe::{Codec, Describer, Encoding};
use super::{Settings, Version};
use crate::error::{corrupt, DecodeError};

/// The tag of a zstd frame, the same in every stream family.
pub(crate) const TAG: u8 = 0x08;

/// Streams smaller than this are not worth a zstd frame.
const MIN_BYTES: usize = 512;

/// Streams smaller than this are tried byte-aligned only where they show repeats as they are.
const SMALL_BYTES: usize = 4096;

/// Whether this build writes zstd stages: not without the `zstd` feature, nor under Miri, which
/// cannot run zstd's C code (there compression declines as when zstd fails, so that every other
/// codec is still exercised, and nothing writes a frame to decode).
const COMPRESSES: bool = cfg!(all(feature = "zstd", not(miri)));

/// A column the zstd stage can judge on a sample of its values.
pub(crate) trait Sampled: ToOwned {
    fn len(&self) -> usize;

    /// About how many bytes a value takes in the byte-aligned encoding.
    fn aligned_bytes_per_value(&self) -> usize;

    /// `count` evenly spaced windows of `window` neighbouring values, or the whole column when
    /// that is no more.
    fn windows(&self, window: usize, count: usize) -> Cow<'_, Self>;

    /// Whether a small stream of these values is worth a guess at zstd's size before it is
    /// encoded byte-aligned and compressed: not where the values nearly always pass it.
    const GUESS_SMALL: bool = true;
}

impl<T: Copy> Sampled for [T] {
    fn len(&self) -> usize {
        <[T]>::len(self)
    }

    fn aligned_bytes_per_value(&self) -> usize {
        size_of::<T>().max(1)
    }

    fn windows(&self, window: usize, count: usize) -> Cow<'_, Self> {
        match window_starts(self.len(), window, count) {
            None => Cow::Borrowed(self),
            Some(starts) => {
                // Each window copied whole into room made once: collected value by value, the
                // sample grew step by step and cost several times as much.
                let mut sample = Vec::with_capacity(window * count);
                for start in starts {
                    sample.extend_from_slice(&self[start..start + window]);
                }
                Cow::Owned(sample)
            }
        }
    }
}

/// The starts of `count` evenly spaced windows of `window` values among `len` (fewer if they do
/// not fit), or `None` when the windows would cover every value.
pub(crate) fn window_starts(
    len: usize,
    window: usize,
    count: usize,
) -> Option<impl Iterator<Item = usize>> {
    let window = window.max(1);
    if len <= window * count {
        return None;
    }
    let windows = (len / window).min(count);
    let stride = len / window / windows * window;
    Some((0..windows).map(move |w| w * stride))
}

/// The zstd stage is judged on this many windows of the column...
const SAMPLE_WINDOWS: usize = 16;
/// ...of about this many bytes each, once byte-aligned: zstd's gains on a column come mostly
/// from repeats among neighbours, which windows this long keep.
const SAMPLE_WINDOW_BYTES: usize = 4096;

/// Runs `encode` on `values` (with `settings`), then, when the settings have a zstd level and the
/// result is large, decides whether whole-byte codecs and a zstd frame do better (zstd finds
/// repeats in whole bytes; bit-packed data hides them), and writes that instead if the settings
/// find the saving worth it.
///
/// A column larger than its sample (windows of `values`, each a multiple of `align` values long)
/// is judged on the sample's byte-aligned encoding: first sized by [`likely_size`], an optimistic
/// guess of zstd's output, then compressed for a real measure of zstd's gain. Only a column that
/// is likely to gain is encoded byte-aligned and compressed in full, once. A column that is its
/// own sample is not guessed at: the guess costs about two thirds of what zstd takes for the
/// same bytes, and on the real datasets it ruled out only one such column in five, so it saves
/// nothing there. It is compressed at once, or, when its byte-aligned stream is long, first
/// judged by compressing windows of those bytes ([`frame_may_pay`]). A stream under
/// [`SMALL_BYTES`] whose own bytes the guess finds no repeats in is not encoded byte-aligned at
/// all, unless its values are of a kind that nearly always shows them
/// ([`Sampled::GUESS_SMALL`]: strings), which skips the guess.
pub(crate) fn best_of<V: Sampled + ?Sized>(
    settings: &Settings,
    values: &V,
    align: usize,
    out: &mut Vec<u8>,
    encode: impl Fn(&V, &Settings, &mut Vec<u8>) -> Version,
) -> Version {
    let enough_saving = settings.zstd_enough_saving;
    best_of_saving(settings, enough_saving, values, align, out, encode)
}

/// [`best_of`], keeping a frame that saves `enough_saving` bytes (or halves the stream) rather
/// than what the settings ask of one: for a stream whose plain form costs about what a frame does
/// to decode (coded text), where the smaller of the two should win.
pub(crate) fn best_of_saving<V: Sampled + ?Sized>(
    settings: &Settings,
    enough_saving: usize,
    values: &V,
    align: usize,
    out: &mut Vec<u8>,
    encode: impl Fn(&V, &Settings, &mut Vec<u8>) -> Version,
) -> Version {
    let keeps = |compressed, plain| keeps_frame(compressed, plain, enough_saving);
    let start = out.len();
    let plain_version = encode(values, settings, out);
    let Some(level) = settings.zstd_level.filter(|_| COMPRESSES) else {
        return plain_version;
    };
    let plain = out.len() - start;
    if plain < MIN_BYTES {
        return plain_version;
    }
    // On a small column the byte-aligned encoding costs about as much as the whole column did,
    // for a saving of at most a few kilobytes: it is tried only where the stream already shows
    // repeats or skewed bytes. On the real datasets every small stream that zstd shrank enough
    // to keep showed them (its guess at most 0.6 of the stream); large streams are always
    // tried, since bit-packing can hide repeats that whole bytes bring out, and so are small
    // streams of values that nearly always show them.
    if V::GUESS_SMALL && plain < SMALL_BYTES && likely_size(&out[start..]) * 4 > plain * 3 {
        return plain_version;
    }
    let aligned_settings = settings.byte_aligned();
    let align = align.max(1);
    let window = (SAMPLE_WINDOW_BYTES / values.aligned_bytes_per_value()).div_ceil(align) * align;
    // A sample much smaller than the column, or the column itself.
    let sample = Some(values.windows(window, SAMPLE_WINDOWS))
        .filter(|sample| sample.len() * 4 <= values.len())
        .unwrap_or(Cow::Borrowed(values));
    let whole = sample.len() == values.len();
    let mut aligned = Vec::new();
    let mut aligned_version = encode(&sample, &aligned_settings, &mut aligned);
    if !whole {
        // The sample is judged against its own encoding without zstd, and the column's gain
        // taken to be in proportion: a sample has the column's kind of values, not its
        // proportions of them (a dictionary over a sample has more entries per value than over
        // the column).
        let mut sample_out = Vec::new();
        // Encoded only to be sized.
        let _ = encode(&sample, settings, &mut sample_out);
        let predicted = |bytes: usize| bytes * plain / sample_out.len().max(1);
        let likely = predicted(likely_size(&aligned));
        if !keeps(likely, plain) {
            return plain_version;
        }
        // zstd's frames come out at most about twice the guess: a column that gains enough even
        // then is compressed in full at once; one nearer the line is measured on its sample
        // first.
        if !keeps(likely * 2, plain) {
            let Some(compressed) = compress_frame(&aligned, level) else {
                return plain_version;
            };
            // A sample's frame compresses a little worse than the column's (repeats far apart):
            // keep a column in the running when it comes near.
            if !keeps(predicted(compressed.len()) * 20 / 21, plain) {
                return plain_version;
            }
        }
        aligned.clear();
        aligned_version = encode(values, &aligned_settings, &mut aligned);
    } else if !frame_may_pay(&aligned, plain, level, enough_saving) {
        return plain_version;
    }
    match compress(&aligned, level) {
        Some(compressed) if keeps(compressed.len(), plain) => {
            out.truncate(start);
            out.extend_from_slice(&compressed);
            aligned_version
        }
        _ => plain_version,
    }
}

/// A whole column's byte-aligned stream is judged on a sample of its bytes first from this long
/// (four samples) on...
const ALIGNED_SAMPLED_FROM: usize = 4 * ALIGNED_SAMPLE_WINDOWS * ALIGNED_SAMPLE_WINDOW_BYTES;
/// ...the sample being this many windows of its bytes...
const ALIGNED_SAMPLE_WINDOWS: usize = 16;
/// ...of this many bytes each.
const ALIGNED_SAMPLE_WINDOW_BYTES: usize = 1024;

/// Whether a frame of `aligned`, a whole column's byte-aligned stream, may save `enough_saving`
/// bytes of its `plain` stream (or halve it), as [`keeps_frame`] judges: a long stream is judged
/// by a frame of evenly spaced windows of its bytes, scaled to the stream, and only one that may
/// pay is compressed whole. On baseball, three quarters of the bytes compressed whole were
/// thrown away, and a sample costs a quarter of the stream at most. Scaled, the sample's frame
/// came within 0.91 to 1.14 times the stream's on every column that kept its frame, so no
/// margin is given: one would rescue only columns within those few percent of the line, and
/// would let through noise that byte-aligns as compactly as it packs, whose frame is its bytes
/// and a little more. Where any saving counts (`Preference::Smaller`; coded text, whose frame
/// costs no more to read), every column is compressed whole: a sample cannot tell a saving of
/// a few bytes.
fn frame_may_pay(aligned: &[u8], plain: usize, level: i32, enough_saving: usize) -> bool {
    if aligned.len() < ALIGNED_SAMPLED_FROM || enough_saving <= 1 {
        return true;
    }
    let sample = Sampled::windows(aligned, ALIGNED_SAMPLE_WINDOW_BYTES, ALIGNED_SAMPLE_WINDOWS);
    let Some(frame) = compress_frame(&sample, level) else {
        return false;
    };
    // In 64 bits, so that no stream a 32-bit target holds overflows it.
    let scaled = frame.len() as u64 * aligned.len() as u64 / sample.len() as u64;
    keeps_frame(
        usize::try_from(scaled).unwrap_or(usize::MAX),
        plain,
        enough_saving,
    )
}

/// Whether a zstd frame of `compressed` bytes is worth keeping over a stream of `plain`: it must
/// save `enough_saving` bytes or halve the stream.
pub(crate) fn keeps_frame(compressed: usize, plain: usize, enough_saving: usize) -> bool {
    let saving = plain.saturating_sub(compressed);
    compressed < plain && (saving >= enough_saving || compressed <= plain / 2)
}

/// An optimistic guess of the size zstd compresses `bytes` to, at a small fraction of its cost:
/// a greedy parse that finds repeats of 4 bytes or more through a table of the last position of
/// each hashed 4-byte sequence, each repeat costing a byte, and the bytes between repeats costing
/// their order-0 entropy (zstd's literals are Huffman coded, which comes no closer). zstd finds
/// more repeats, and codes one in one to three bytes: on the byte-aligned columns of the real
/// datasets (300 of them) the guess came out below zstd's frame on all but three, and at most
/// 1.9 times it, so a column the guess rules out is not worth compressing.
/// Where no repeat turns up for a while the parse takes longer steps, as LZ4 does: what it
/// skips is noise, which zstd cannot shrink either.
pub(crate) fn likely_size(bytes: &[u8]) -> usize {
    /// A repeat's cost, in eighths of a byte.
    const MATCH_EIGHTHS: usize = 8;
    let (literal_bytes, matches) = greedy_parse(bytes);
    literal_bytes + (matches * MATCH_EIGHTHS).div_ceil(8)
}

/// The order-0 entropy of the bytes a greedy parse leaves as literals, in bytes, and the number
/// of repeats it found.
fn greedy_parse(bytes: &[u8]) -> (usize, usize) {
    const MIN_MATCH: usize = 4;
    /// After this many positions without a repeat, the step grows by one.
    const MISSES_PER_STEP: usize = 32;
    let mut literals = ByteCounts::default();
    let table_bits = (usize::BITS - bytes.len().leading_zeros()).clamp(6, 16) - 2;
    let mut last_seen = vec![u32::MAX; 1 << table_bits];
    let mut matches = 0usize;
    let mut misses = 0;
    let mut at = 0;
    // Where the bytes that no repeat has covered yet begin.
    let mut literal_start = 0;
    while let Some(&[a, b, c, d]) = bytes.get(at..at + MIN_MATCH) {
        let key = u32::from_le_bytes([a, b, c, d]);
        let slot = (key.wrapping_mul(0x9e37_79b1) >> (32 - table_bits)) as usize;
        let candidate = last_seen[slot] as usize;
        last_seen[slot] = at as u32;
        if candidate < at && bytes[candidate..candidate + MIN_MATCH] == [a, b, c, d] {
            let length = MIN_MATCH
                + common_prefix(&bytes[at + MIN_MATCH..], &bytes[candidate + MIN_MATCH..]);
            literals.add(&bytes[literal_start..at]);
            matches += 1;
            misses = 0;
            at += length;
            literal_start = at;
        } else {
            misses += 1;
            at += 1 + misses / MISSES_PER_STEP;
        }
    }
    literals.add(&bytes[literal_start..]);
    (literals.entropy_bytes(), matches)
}

/// How often each byte value occurs.
pub(crate) struct ByteCounts([u64; 256]);

impl Default for ByteCounts {
    fn default() -> Self {
        ByteCounts([0; 256])
    }
}

impl ByteCounts {
    pub(crate) fn add(&mut self, bytes: &[u8]) {
        /// Below this many bytes, one table: four cost more to clear and add up than they save.
        const LANES_FROM: usize = 4096;
        if bytes.len() < LANES_FROM {
            for &byte in bytes {
                self.0[usize::from(byte)] += 1;
            }
            return;
        }
        // Four tables taking turns, so that a run of one byte value (text repeats a few) does
        // not wait on its own counter; blocks short enough that none of them overflows.
        for block in bytes.chunks(u32::MAX as usize) {
            let mut lanes = [[0u32; 256]; 4];
            let mut quads = block.chunks_exact(4);
            for quad in &mut quads {
                for (lane, &byte) in lanes.iter_mut().zip(quad) {
                    lane[usize::from(byte)] += 1;
                }
            }
            for &byte in quads.remainder() {
                self.0[usize::from(byte)] += 1;
            }
            for lane in &lanes {
                for (count, &more) in self.0.iter_mut().zip(lane) {
                    *count += u64::from(more);
                }
            }
        }
    }

    /// The counts of the byte values that occur, in byte order.
    pub(crate) fn occurring(&self) -> impl Iterator<Item = u64> + '_ {
        self.0.iter().copied().filter(|&count| count > 0)
    }

    /// The order-0 entropy of the bytes counted, in whole bytes.
    fn entropy_bytes(&self) -> usize {
        let total = self.0.iter().sum::<u64>() as f64;
        let term = |count: u64| count as f64 * (total / count as f64).log2();
        // Small counts recur (in a short stream most bytes occur a few times): each one's term
        // is taken once.
        let mut small = [None; 64];
        let bits: f64 = self
            .occurring()
            .map(|count| match small.get_mut(count as usize) {
                Some(known) => *known.get_or_insert_with(|| term(count)),
                None => term(count),
            })
            .sum();
        (bits / 8.0) as usize
    }
}

/// How many bytes `a` and `b` have in common from their start, compared eight at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut length = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let differ = u64::from_le_bytes(x.try_into().unwrap_or_default())
            ^ u64::from_le_bytes(y.try_into().unwrap_or_default());
        if differ != 0 {
            return length + (differ.trailing_zeros() / 8) as usize;
        }
        length += 8;
    }
    length
        + (a[length..].iter())
            .zip(&b[length..])
            .take_while(|(x, y)| x == y)
            .count()
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
        #[cfg(test)]
        tests::BYTES_COMPRESSED.with(|bytes| bytes.set(bytes.get() + stream.len()));
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

/// The first bytes of a zstd frame that holds data (RFC 8878 3.1.1), little-endian 0xFD2FB528.
#[cfg(feature = "zstd")]
const FRAME_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Checks that `frame` is one zstd data frame and nothing more, and that its header, if it
/// declares a content size, declares `size`: before anything is allocated for it.
#[cfg(feature = "zstd")]
fn check_one_frame(frame: &[u8], size: usize) -> Result<(), DecodeError> {
    use ::zstd::zstd_safe;
    if !frame.starts_with(&FRAME_MAGIC) {
        return Err(corrupt(
            "a zstd stage that does not start with a zstd data frame",
        ));
    }
    match zstd_safe::find_frame_compressed_size(frame) {
        Ok(len) if len == frame.len() => {}
        Ok(len) => {
            return Err(corrupt(format!(
                "{} bytes after the zstd frame of a zstd stage",
                frame.len().saturating_sub(len)
            )))
        }
        Err(code) => {
            return Err(corrupt(format!(
                "zstd: {}",
                zstd_safe::get_error_name(code)
            )))
        }
    }
    match zstd_safe::get_frame_content_size(frame) {
        Ok(Some(declared)) if declared != size as u64 => Err(corrupt(format!(
            "a zstd frame declares {declared} bytes, its stage {size}"
        ))),
        Ok(_) => Ok(()),
        Err(_) => Err(corrupt("a zstd frame header that does not parse")),
    }
}

/// The `size` bytes that `frame` decompresses to.
#[cfg(feature = "zstd")]
fn decompress_frame(frame: &[u8], size: usize) -> Result<Vec<u8>, DecodeError> {
    use std::cell::RefCell;
    check_one_frame(frame, size)?;
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
    use crate::encodings::int;
    use std::cell::Cell;

    thread_local! {
        /// How many bytes this thread handed to zstd, to check what the stage compresses.
        pub(super) static BYTES_COMPRESSED: Cell<usize> = const { Cell::new(0) };
    }

    /// `values` encoded as an integer column with `settings`, and the bytes zstd was given.
    fn encoded_with_compressed_bytes(values: &[u64], settings: &Settings) -> (Vec<u8>, usize) {
        BYTES_COMPRESSED.with(|bytes| bytes.set(0));
        let mut out = Vec::new();
        let _ = int::encode(values, settings, &mut out);
        (out, BYTES_COMPRESSED.with(Cell::get))
    }

    /// Pseudo-random words of `bits` bits.
    fn noise(len: usize, bits: u32) -> Vec<u64> {
        let mut next = crate::encodings::xorshift(0x2545_f491_4f6c_dd1d);
        (0..len).map(|_| next() >> (64 - bits)).collect()
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
    fn the_guess_rules_out_noise_and_stays_below_zstd() {
        let noise: Vec<u8> = noise(20_000, 8).into_iter().map(|v| v as u8).collect();
        let guess = likely_size(&noise);
        assert!(guess > noise.len() * 95 / 100, "{guess} for noise");
        let text: Vec<u8> = (0..2_000)
            .flat_map(|i| format!("2016-{:02}-{:02},", i % 12 + 1, i % 28 + 1).into_bytes())
            .collect();
        let words: Vec<u8> = (0..20_000u64)
            .flat_map(|i| [1_000_003u64, 77_777_777, 5][(i * i % 3) as usize].to_le_bytes())
            .collect();
        for shape in [&noise, &text, &words] {
            let compressed = compress_frame(shape, 3).unwrap().len();
            let guess = likely_size(shape);
            // Optimistic: never far above what zstd reaches.
            assert!(
                guess <= compressed + compressed / 10 + 16,
                "{guess} > {compressed}"
            );
        }
        assert!(likely_size(&text) < text.len() / 4);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
    fn columns_are_compressed_once_and_only_when_it_pays() {
        // Noise: a sample is measured, the column never compressed.
        let values = noise(200_000, 40);
        let (out, compressed) = encoded_with_compressed_bytes(&values, &Settings::default());
        assert_ne!(out[0], TAG);
        // Less than an eighth of its aligned bytes.
        assert!(compressed < values.len(), "{compressed} bytes compressed");
        // Repeated patterns: compressed in full once, besides a sample.
        let values: Vec<u64> = (0..200_000u64)
            .map(|i| [1_000_003, 77_777_777, 5, 123_456_789_012][(i * i % 4) as usize])
            .collect();
        let (out, compressed) = encoded_with_compressed_bytes(&values, &Settings::default());
        assert_eq!(out[0], TAG);
        assert!(
            compressed <= values.len() * 8 * 5 / 4,
            "{compressed} bytes compressed"
        );
        // Small columns are compressed whole, when the guess allows it.
        let (out, compressed) =
            encoded_with_compressed_bytes(&noise(500, 64), &Settings::default());
        assert_ne!(out[0], TAG);
        assert_eq!(compressed, 0);
    }

    /// A column that is its own sample but long byte-aligned is judged by a frame of windows of
    /// those bytes: noise is then never compressed whole.
    #[test]
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
    fn long_whole_columns_of_noise_are_judged_by_windows_of_their_bytes() {
        // 40-bit noise is 5 bytes a value byte-aligned: 100 kB. Its values' sample would be
        // more than a quarter of it: it is its own.
        let values = noise(20_000, 40);
        let window = SAMPLE_WINDOW_BYTES / size_of::<u64>();
        assert!(Sampled::windows(&values[..], window, SAMPLE_WINDOWS).len() * 4 > values.len());
        let (out, compressed) = encoded_with_compressed_bytes(&values, &Settings::default());
        assert_ne!(out[0], TAG);
        // The sample, and the trials that rank the cascades, never the whole.
        let aligned = 5 * values.len();
        assert!(compressed < aligned / 2, "{compressed} bytes compressed");
    }

    /// What judging a long stream by its windows compresses, and what it concludes.
    #[test]
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
    fn a_frame_of_windows_rules_out_noise_and_keeps_repeats() {
        let sample = ALIGNED_SAMPLE_WINDOWS * ALIGNED_SAMPLE_WINDOW_BYTES;
        let compressed_by = |stream: &[u8], enough_saving: usize| {
            BYTES_COMPRESSED.with(|bytes| bytes.set(0));
            let pays = frame_may_pay(stream, stream.len(), 3, enough_saving);
            (pays, BYTES_COMPRESSED.with(Cell::get))
        };
        let noise: Vec<u8> = noise(ALIGNED_SAMPLED_FROM, 8)
            .into_iter()
            .map(|v| v as u8)
            .collect();
        assert_eq!(compressed_by(&noise, 1024), (false, sample));
        let repeats: Vec<u8> = (0..ALIGNED_SAMPLED_FROM as u64)
            .flat_map(|i| [1_000_003u64, 77_777_777, 5][(i % 3) as usize].to_le_bytes())
            .collect();
        assert_eq!(compressed_by(&repeats, 1024), (true, sample));
        // Where any saving counts, or the stream is short, nothing is compressed to judge it.
        assert_eq!(compressed_by(&noise, 1), (true, 0));
        let short = &noise[..ALIGNED_SAMPLED_FROM - 1];
        assert_eq!(compressed_by(short, 1024), (true, 0));
    }

    /// A small stream that shows no repeats as it is costs nothing more than its own encoding:
    /// no byte-aligned cascade is chosen for it, and nothing is compressed.
    #[test]
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
    fn small_streams_without_repeats_are_not_tried_byte_aligned() {
        let values = noise(400, 64);
        let chosen = |settings: &Settings| {
            let before = int::select::CHOICES.with(Cell::get);
            let (out, compressed) = encoded_with_compressed_bytes(&values, settings);
            (
                int::select::CHOICES.with(Cell::get) - before,
                out,
                compressed,
            )
        };
        let (plain_choices, plain, _) = chosen(&Settings::without_zstd());
        assert!(plain.len() >= MIN_BYTES && plain.len() < SMALL_BYTES);
        let (choices, out, compressed) = chosen(&Settings::default());
        assert_eq!((choices, compressed), (plain_choices, 0));
        assert_eq!(out, plain);
    }

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

    /// A stage holds one data frame: not two frames that add up to its size, nor a skippable
    /// frame, nor a frame whose header declares another size than the stage's.
    #[test]
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
    fn a_stage_holds_exactly_one_frame_of_its_size() {
        let half = compress_frame(&[7u8; 5_000], 3).unwrap();
        let mut two = Vec::new();
        write_varint(&mut two, 10_000);
        two.extend_from_slice(&half);
        two.extend_from_slice(&half);
        let error = decompress(&two, 10_000, &mut Budget::new(u64::MAX)).unwrap_err();
        assert!(error.message().contains("after the zstd frame"), "{error}");

        let mut skippable = Vec::new();
        write_varint(&mut skippable, 5_000);
        skippable.extend([0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
        skippable.extend_from_slice(&half);
        assert!(decompress(&skippable, 5_000, &mut Budget::new(u64::MAX)).is_err());

        // The header declares 5000 bytes: a stage that claims fewer fails before decompressing,
        // one that claims more too (the frame would come out short).
        for claimed in [4_000, 6_000] {
            let mut lying = Vec::new();
            write_varint(&mut lying, claimed);
            lying.extend_from_slice(&half);
            let error = decompress(&lying, 10_000, &mut Budget::new(u64::MAX)).unwrap_err();
            assert!(error.message().contains("declares 5000 bytes"), "{error}");
        }
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
        best_of(
            &Settings::small(),
            &[0u8; 4096][..],
            1,
            &mut out,
            |values, _, out| out.extend_from_slice(values),
        );
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
