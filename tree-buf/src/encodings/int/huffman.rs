//! Huffman coding of whole values: the values that repeat get prefix codes by their frequency,
//! the rest are escaped into a stream of their own. Deltas of coordinates, say, take a few
//! thousand values most of the time: a code per value finds that, where byte-wise compressors
//! (zstd) see only the bytes of fixed-width words.
//!
//! ```text
//! huffman := 0x0d symbols:varint lengths:prefixed values:prefixed escapes:varint escaped:prefixed
//!            codes
//!   symbols: the number of coded values, 1..=min(32767, count)
//!   lengths: an 8-bit int_stream of the code length (1..=15 bits) of each coded value, then, if
//!            escapes > 0, of the escape code
//!   values:  an int_stream of `symbols` words, the coded values in ascending order
//!   escapes: at most count
//!   escaped: an int_stream of `escapes` words, the values that have no code, in order
//!   codes:   the rest: count canonical Huffman codes, one per value: codes are numbered in
//!            order of (length, symbol), symbols in the order of `lengths`; each code is written
//!            from its first bit, bits filling each byte from the least significant; the last
//!            byte is padded with zeros
//!
//! huffman_streams := 0x0e symbols:varint lengths:prefixed values:prefixed escapes:varint
//!                    escaped:prefixed size:varint{3} codes{4}
//!   (version 5) as huffman, but the codes are in four streams, the first three `size` bytes
//!   long and the fourth the rest: with q = ceil(count / 4), stream k holds the codes of values
//!   k*q up to min((k+1)*q, count), each stream padded as `codes` is; escapes take the escaped
//!   values in the order of the values
//! ```
//!
//! The code lengths must satisfy Kraft's inequality; a code that is not complete leaves bit
//! patterns unassigned, and meeting one is an error.

use std::mem::MaybeUninit;

use super::distinct::Distinct;
use super::select::{encode_nested_prefixed, Chain};
use super::transform::Finish;
use super::{bit_width, decode_nested, describe, IntTag, Word};
use crate::encodings::budget::Budget;
use crate::encodings::bytes::{write_varint, ByteReader};
use crate::encodings::describe::{Codec, Describer, Encoding};
use crate::encodings::zstd::Sampled;
use crate::encodings::{Settings, Version};
use crate::error::{corrupt, truncated, DecodeError};

/// The longest code: it bounds a decoding table to 2^15 entries (128 KiB), 2^11 more when the
/// table has two levels.
const MAX_CODE_LEN: u32 = 15;
/// The most values with a code of their own (one code is kept for escapes).
const MAX_SYMBOLS: usize = (1 << MAX_CODE_LEN) - 1;
/// Plans of at most this many codes are first priced by their entropy, to spare building codes
/// for those that cannot win.
const BOUNDED_SYMBOLS: usize = 1024;
/// Columns shorter than this are not worth a code table.
pub(crate) const MIN_VALUES: usize = 64;
/// Columns of at least this many values have their codes in four streams (version 5), read in
/// turn so that four chains of table reads overlap; below it, the three sizes and the padding
/// would cost more than the reading saves.
const STREAMS_MIN_VALUES: usize = 1 << 12;
/// The code streams of a Huffman stream in four.
const STREAMS: usize = 4;
/// A long column's distinct values are first judged on this many windows of this many
/// neighbours.
const SAMPLE_WINDOWS: usize = 64;
const SAMPLE_WINDOW: usize = 128;

/// The codes chosen for a column.
pub(super) struct Plan<W> {
    /// The coded values, ascending.
    values: Vec<W>,
    /// The code length of each coded value, then of the escape code if there are escapes.
    lengths: Vec<u32>,
    /// How many values are escaped.
    escapes: usize,
    /// The escaped values' bytes as varints.
    escaped_bytes: usize,
    /// The bits of all the codes.
    code_bits: u64,
    /// The escape's code, as `codes` holds it ([`NO_ESCAPES`] when no value is escaped).
    escape_code: u64,
    /// The code of every value of the column, as [`writable`] makes it: one table read per value
    /// when writing, where a symbol and then its code took two.
    codes: Distinct<W>,
}

/// A word no code is: the escape code of a plan without escapes.
const NO_ESCAPES: u64 = u64::MAX;

impl<W: Word> Plan<W> {
    /// The codes for `values`, whose extremes are `min` and `max`: the most frequent of those
    /// that repeat get codes, or `None` if none repeats (or too few do for a table to pay), or
    /// if the plan's [`Self::estimate`] could not come under `to_beat` bytes.
    pub(super) fn of(values: &[W], min: W, max: W, to_beat: usize) -> Option<Plan<W>> {
        if values.len() < MIN_VALUES {
            return None;
        }
        // More distinct values than codes and half the column hardly repeat: spare counting the
        // rest, or the whole column when a sample shows that many.
        let limit = values.len() / 2 + MAX_SYMBOLS;
        if far_more_distinct(values, limit) {
            return None;
        }
        // Every distinct value costs at least its varint in the estimate (as a table entry or an
        // escape) and the stream at least its fixed part: a column with more distinct values
        // than `to_beat` leaves room for is given up as soon as they show.
        let room = to_beat.saturating_sub(Self::table_bytes(std::iter::empty(), 0) + 1);
        let limit = limit.min(room / varint_bytes(min));
        let mut distinct = Distinct::count(values, min, max, limit)?;
        let mut escaped_bytes = 0;
        // (value, count, slot) of each value that repeats.
        let mut table: Vec<(W, u64, usize)> = Vec::new();
        for (slot, value, count) in distinct.entries() {
            if count > 1 {
                table.push((value, count, slot));
            } else {
                escaped_bytes += varint_bytes(value);
            }
        }
        if table.is_empty() {
            return None;
        }
        if table.len() > MAX_SYMBOLS {
            // The most frequent get codes; equal counts in value order, so that plans are
            // repeatable.
            table.select_nth_unstable_by(MAX_SYMBOLS - 1, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for &(value, count, _) in &table[MAX_SYMBOLS..] {
                escaped_bytes += count as usize * varint_bytes(value);
            }
            table.truncate(MAX_SYMBOLS);
        }
        // The table goes in value order (a dense set's entries come so already). Code lengths
        // break ties between equal weights by this order, so they do not depend on how the
        // values were counted.
        table.sort_unstable_by_key(|&(value, ..)| value);
        let coded: u64 = table.iter().map(|&(_, count, _)| count).sum();
        let escapes = values.len() - coded as usize;
        let mut weights: Vec<u64> = table.iter().map(|&(_, count, _)| count).collect();
        if escapes > 0 {
            weights.push(escapes as u64);
        }
        // No prefix code takes fewer bits than the weights' entropy: a plan that would lose even
        // with those is not worth building codes for. Only a short table is checked: a long one
        // mostly wins, and the check would cost a logarithm per symbol on top of its codes.
        if weights.len() <= BOUNDED_SYMBOLS {
            let table_bytes =
                Self::table_bytes(table.iter().map(|&(value, ..)| value), weights.len());
            let least_code_bytes = entropy_bits(&weights).div_ceil(8) as usize;
            if table_bytes + escaped_bytes + least_code_bytes >= to_beat {
                return None;
            }
        }
        let lengths = code_lengths(&weights);
        let code_bits = total_bits(&weights, &lengths);
        // Each value's slot now holds its code, ready to write: the escape code unless it has
        // one of its own.
        let codes: Vec<u64> = (canonical_codes(&lengths).into_iter())
            .map(|(code, length)| writable(code, length))
            .collect();
        let escape_code = codes.get(table.len()).map_or(NO_ESCAPES, |&code| code);
        let slots = distinct.slots_mut();
        slots.fill(escape_code);
        for (&(_, _, slot), &code) in table.iter().zip(&codes) {
            slots[slot] = code;
        }
        Some(Plan {
            values: table.into_iter().map(|(value, ..)| value).collect(),
            lengths,
            escapes,
            escaped_bytes,
            code_bits,
            escape_code,
            codes: distinct,
        })
    }

    /// The encoded size, roughly: the codes exactly, the tables and escaped values as varints
    /// (their cascades do no worse).
    pub(super) fn estimate(&self) -> usize {
        Self::table_bytes(self.values.iter().copied(), self.lengths.len())
            + self.escaped_bytes
            + self.code_bits.div_ceil(8) as usize
    }

    /// About what a table of the coded `values` and `codes` code lengths takes, with the
    /// stream's other fixed parts.
    fn table_bytes(values: impl Iterator<Item = W>, codes: usize) -> usize {
        16 + values.map(varint_bytes).sum::<usize>() + codes / 2
    }

    /// Encodes `values`, the values the plan was made for.
    pub(super) fn encode(
        &self,
        values: &[W],
        settings: &Settings,
        chain: Chain,
        out: &mut Vec<u8>,
    ) -> Version {
        // Like a dictionary's, the table and the escaped values hardly repeat; nothing inside
        // is Huffman-coded again, so that streams nest no deeper than decoders allow.
        let chain = chain.with(Chain::DICTIONARY | Chain::HUFFMAN);
        let in_streams = values.len() >= STREAMS_MIN_VALUES && settings.newest >= Version::STREAMS;
        // Value `i` goes to stream `i / quarter`: one stream unless in four.
        let quarter = match in_streams {
            true => quarter(values.len()),
            false => values.len().max(1),
        };
        // Room for each stream's codes, so that none grows: a quarter each, or all in the first.
        let code_bytes = self.code_bits.div_ceil(8) as usize;
        let mut escaped = Vec::with_capacity(self.escapes);
        // One stream at a time, its writer a local, so that its bits stay in registers.
        let streams: [Vec<u8>; STREAMS] = std::array::from_fn(|k| {
            let start = (k * quarter).min(values.len());
            let end = ((k + 1) * quarter).min(values.len());
            let mut stream = BitWriter::with_capacity(match (in_streams, k) {
                (true, _) => code_bytes / STREAMS + 8,
                (false, 0) => code_bytes,
                (false, _) => 0,
            });
            let escape_code = self.escape_code;
            self.codes.numbers(values, start..end, |value, code| {
                if code == escape_code {
                    escaped.push(value);
                }
                stream.write(code);
            });
            stream.finish()
        });
        let (tag, mut version) = match in_streams {
            true => (IntTag::HuffmanStreams, Version::STREAMS),
            false => (IntTag::Huffman, Version::HUFFMAN),
        };
        out.push(tag as u8);
        write_varint(out, self.values.len() as u64);
        let lengths: Vec<u8> = self.lengths.iter().map(|&l| l as u8).collect();
        version = version.max(encode_nested_prefixed(&lengths, settings, chain, out));
        version = version.max(encode_nested_prefixed(&self.values, settings, chain, out));
        write_varint(out, escaped.len() as u64);
        version = version.max(encode_nested_prefixed(&escaped, settings, chain, out));
        if in_streams {
            for stream in &streams[..STREAMS - 1] {
                write_varint(out, stream.len() as u64);
            }
        }
        for stream in &streams {
            out.extend_from_slice(stream);
        }
        version
    }
}

/// Whether a sample of `values` shows them to have far more than `limit` distinct values: noise
/// (the low bits of measured floats, hashes) shows it in a few thousand values, where counting
/// the column would hash every one. Among `d` distinct values in a random order, a sample of `s`
/// repeats about s² / 2d of them; with `limit` distinct values it would repeat at least 32, and
/// a sample that repeats under half of that (less likely than 1 in 400 then) is taken to show
/// twice as many or more. Values with more order (runs, neighbours alike) repeat more within
/// windows, never less.
fn far_more_distinct<W: Word>(values: &[W], limit: usize) -> bool {
    if values.len() < 2 * SAMPLE_WINDOW * SAMPLE_WINDOWS {
        return false;
    }
    let mut sample = Sampled::windows(values, SAMPLE_WINDOW, SAMPLE_WINDOWS).into_owned();
    let expected_at_limit = sample.len() * sample.len() / (2 * limit);
    if expected_at_limit < 32 {
        return false;
    }
    sample.sort_unstable();
    let repeats = sample.windows(2).filter(|pair| pair[0] == pair[1]).count();
    repeats * 2 < expected_at_limit
}

fn varint_bytes<W: Word>(value: W) -> usize {
    (bit_width(value) as usize).max(1).div_ceil(7)
}

/// The order-0 entropy of symbols of `weights` (all positive), in whole bits, rounded down: no
/// prefix code (no Huffman code) writes them in fewer.
fn entropy_bits(weights: &[u64]) -> u64 {
    let total: u64 = weights.iter().sum();
    let bits: f64 = (weights.iter())
        .map(|&weight| weight as f64 * (total as f64 / weight as f64).log2())
        .sum();
    // Rounded down a little further, so that float error never makes it exceed the truth.
    (bits * (1.0 - 1e-9)).max(0.0) as u64
}

/// The bits of the Huffman codes of symbols of `weights` (all positive), all told: what a
/// stream of them takes besides its table.
pub(crate) fn code_bits(weights: &[u64]) -> u64 {
    total_bits(weights, &code_lengths(weights))
}

/// The bits of symbols of `weights` under codes of `lengths`.
fn total_bits(weights: &[u64], lengths: &[u32]) -> u64 {
    (weights.iter().zip(lengths))
        .map(|(&weight, &length)| weight * u64::from(length))
        .sum()
}

/// Huffman code lengths for `weights` (all positive), none longer than [`MAX_CODE_LEN`].
fn code_lengths(weights: &[u64]) -> Vec<u32> {
    let n = weights.len();
    if n == 1 {
        return vec![1];
    }
    // Build the tree from the lightest up (two queues: leaves sorted, merged nodes in the order
    // made), then read each leaf's depth.
    let mut order: Vec<usize> = (0..n).collect();
    // Equal weights in the order given.
    order.sort_unstable_by_key(|&i| (weights[i], i));
    let mut parent = vec![0usize; 2 * n - 1];
    let mut merged: Vec<(u64, usize)> = Vec::with_capacity(n - 1);
    let (mut leaf, mut next_merged) = (0, 0);
    for node in n..2 * n - 1 {
        let mut pick = || {
            let take_leaf = leaf < n
                && (next_merged >= merged.len() || weights[order[leaf]] <= merged[next_merged].0);
            if take_leaf {
                leaf += 1;
                (weights[order[leaf - 1]], order[leaf - 1])
            } else {
                next_merged += 1;
                merged[next_merged - 1]
            }
        };
        let (a, i) = pick();
        let (b, j) = pick();
        parent[i] = node;
        parent[j] = node;
        merged.push((a + b, node));
    }
    let root = 2 * n - 2;
    let mut depth = vec![0u32; 2 * n - 1];
    for node in (0..root).rev() {
        depth[node] = depth[parent[node]] + 1;
    }
    let mut lengths: Vec<u32> = depth[..n].to_vec();
    limit_lengths(&mut lengths, weights);
    lengths
}

/// Shortens codes longer than [`MAX_CODE_LEN`] and lengthens others until the lengths form a
/// prefix code again (Kraft's sum exactly one), the most frequent values keeping the shortest.
fn limit_lengths(lengths: &mut [u32], weights: &[u64]) {
    let max = MAX_CODE_LEN as usize;
    let mut per_length = [0usize; MAX_CODE_LEN as usize + 1];
    let mut too_long = false;
    for &length in lengths.iter() {
        too_long |= length as usize > max;
        per_length[(length as usize).min(max)] += 1;
    }
    if !too_long {
        return;
    }
    // Kraft's sum in units of 2^-max. Each step takes a code off the longest length and
    // splits a shorter one in two, one level down: the sum drops by one unit, the number of
    // codes stays. At most 2^max codes fit, so while the sum is too large a shorter code exists.
    let mut kraft: usize = (1..=max).map(|l| per_length[l] << (max - l)).sum();
    while kraft > 1 << max {
        let Some(shorter) = (1..max).rev().find(|&l| per_length[l] > 0) else {
            break;
        };
        per_length[max] -= 1;
        per_length[shorter] -= 1;
        per_length[shorter + 1] += 2;
        kraft -= 1;
    }
    // Hand the lengths out again, shortest to the heaviest.
    let mut by_weight: Vec<usize> = (0..lengths.len()).collect();
    by_weight.sort_by(|&a, &b| weights[b].cmp(&weights[a]));
    let mut symbols = by_weight.into_iter();
    for (length, &count) in per_length.iter().enumerate().skip(1) {
        for symbol in symbols.by_ref().take(count) {
            lengths[symbol] = length as u32;
        }
    }
}

/// The canonical code of each symbol, bit-reversed so that it is written and read from the
/// least significant bit, with its length.
fn canonical_codes(lengths: &[u32]) -> Vec<(u64, u32)> {
    let mut per_length = [0u32; MAX_CODE_LEN as usize + 2];
    for &length in lengths {
        per_length[length as usize] += 1;
    }
    let mut next = [0u32; MAX_CODE_LEN as usize + 2];
    let mut code = 0u32;
    for length in 1..=MAX_CODE_LEN as usize {
        code = (code + per_length[length - 1]) << 1;
        next[length] = code;
    }
    lengths
        .iter()
        .map(|&length| {
            let code = next[length as usize];
            next[length as usize] += 1;
            let reversed = u64::from(code.reverse_bits() >> (32 - length));
            (reversed, length)
        })
        .collect()
}

/// A code and its length in one word, as [`BitWriter::write`] takes them: the code's bits in
/// the low 32 bits, its length in the high 32.
fn writable(code: u64, length: u32) -> u64 {
    code | (u64::from(length) << 32)
}

/// Bits written from the least significant end of each byte. After each code the whole bytes
/// of the pending bits are stored, eight bytes at a time past the end of those written, so that
/// writing a code does not branch on how many bits are pending.
struct BitWriter {
    /// The bytes written, then at least eight more that the next store may overwrite.
    bytes: Vec<u8>,
    written: usize,
    /// Fewer than 8 bits between codes, at most 7 + [`MAX_CODE_LEN`] within one.
    pending: u64,
    pending_bits: u32,
}

impl BitWriter {
    fn with_capacity(bytes: usize) -> Self {
        BitWriter {
            bytes: vec![0; bytes + 8],
            written: 0,
            pending: 0,
            pending_bits: 0,
        }
    }

    /// Writes `code`, made by [`writable`].
    #[inline(always)]
    fn write(&mut self, code: u64) {
        self.pending |= (code & u64::from(u32::MAX)) << self.pending_bits;
        self.pending_bits += (code >> 32) as u32;
        if self.written + 8 > self.bytes.len() {
            self.grow();
        }
        (self.bytes[self.written..self.written + 8]).copy_from_slice(&self.pending.to_le_bytes());
        let whole = self.pending_bits / 8;
        self.written += whole as usize;
        self.pending >>= 8 * whole;
        self.pending_bits -= 8 * whole;
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.bytes.resize(2 * self.bytes.len(), 0);
    }

    fn finish(mut self) -> Vec<u8> {
        // The pending bits were stored with the last code; the zeros above them pad its byte.
        self.bytes
            .truncate(self.written + self.pending_bits.div_ceil(8) as usize);
        self.bytes
    }
}

/// The symbol of the table entries for bit patterns that no code starts with: above every symbol,
/// escape included. Their length is 0.
const UNASSIGNED: u32 = MAX_SYMBOLS as u32 + 1;

/// The bits that index the first level of a decoding table with two: 2^11 entries stay in the
/// first-level cache, where a table of every 15-bit pattern would not.
const PRIMARY_BITS: u32 = 11;

/// The flag, in the length byte of a first-level entry, of an entry that holds where the
/// second-level table of its longer codes starts instead of a symbol.
const LONG: u32 = 0x80;

/// A decoding table. An entry holds a symbol in its high bits and its code length in the low
/// byte. The first level is indexed by the next `primary_bits` bits; codes longer than that,
/// when they are rare, are looked up again in a second-level table for their first bits, indexed
/// by the bits after those. When longer codes are frequent, the first level takes every bit of
/// the longest code, which costs less than a second lookup each time.
struct DecodingTable {
    entries: Vec<u32>,
    primary_bits: u32,
    secondary_bits: u32,
}

impl DecodingTable {
    /// The layout for codes of `lengths`, the longest `longest` bits: the table with its entries
    /// not yet filled in (so that their number can be charged first), and the code of each
    /// symbol.
    fn layout(lengths: &[u32], longest: u32) -> (DecodingTable, Vec<(u64, u32)>) {
        let codes = canonical_codes(lengths);
        // How often codes longer than the first level come, as their lengths imply, in units
        // of 2^-MAX_CODE_LEN.
        let long: u64 = (lengths.iter())
            .filter(|&&length| length > PRIMARY_BITS)
            .map(|&length| 1u64 << (MAX_CODE_LEN - length))
            .sum();
        let primary_bits = if long * 8 > 1 << MAX_CODE_LEN {
            longest
        } else {
            longest.min(PRIMARY_BITS)
        };
        let primary_mask = (1u64 << primary_bits) - 1;
        let mut has_secondary = vec![false; 1 << primary_bits];
        for &(code, _) in codes.iter().filter(|&&(_, length)| length > primary_bits) {
            has_secondary[(code & primary_mask) as usize] = true;
        }
        let secondaries = has_secondary.iter().filter(|&&has| has).count();
        let secondary_bits = longest - primary_bits;
        let size = (1 << primary_bits) + (secondaries << secondary_bits);
        let table = DecodingTable {
            entries: Vec::with_capacity(size),
            primary_bits,
            secondary_bits,
        };
        (table, codes)
    }

    /// The number of entries it takes.
    fn size(&self) -> usize {
        self.entries.capacity()
    }

    /// Fills in the entries for `codes`, the code and length of each symbol.
    fn fill(&mut self, codes: &[(u64, u32)]) {
        let (primary_bits, secondary_bits) = (self.primary_bits, self.secondary_bits);
        self.entries.resize(self.size(), UNASSIGNED << 8);
        let (primary, secondary) = self.entries.split_at_mut(1 << primary_bits);
        let mut next_start = primary.len();
        for (symbol, &(code, length)) in codes.iter().enumerate() {
            let entry = (symbol as u32) << 8 | length;
            if length <= primary_bits {
                replicate(primary, code as usize, length, entry);
                continue;
            }
            let first = &mut primary[(code as usize) & (primary.len() - 1)];
            if *first & LONG == 0 {
                *first = (next_start as u32) << 8 | LONG;
                next_start += 1 << secondary_bits;
            }
            let start = (*first >> 8) as usize - primary.len();
            let table = secondary.get_mut(start..start + (1 << secondary_bits));
            if let Some(table) = table {
                replicate(
                    table,
                    (code >> primary_bits) as usize,
                    length - primary_bits,
                    entry,
                );
            }
        }
    }
}

/// Writes `entry` wherever the next bits begin with the `length` bits of `code`.
fn replicate(table: &mut [u32], code: usize, length: u32, entry: u32) {
    let mut index = code;
    while index < table.len() {
        table[index] = entry;
        index += 1 << length;
    }
}

/// The 64 bits of `bytes` from byte `at`, zeros past the end.
#[inline(always)]
fn bits_at(bytes: &[u8], at: usize) -> u64 {
    match bytes.get(at..at + 8) {
        Some(eight) => u64::from_le_bytes(eight.try_into().unwrap_or_default()),
        None => bits_near_end(bytes, at),
    }
}

/// [`bits_at`] for the last seven bytes and past them.
#[cold]
fn bits_near_end(bytes: &[u8], at: usize) -> u64 {
    let mut padded = [0u8; 8];
    let rest = bytes.get(at..).unwrap_or_default();
    padded[..rest.len()].copy_from_slice(rest);
    u64::from_le_bytes(padded)
}

/// Codes decoded at a time, into a buffer on the stack. A place in it fits a byte.
const CHUNK: usize = 256;
const _: () = assert!(CHUNK <= 1 << u8::BITS);

/// The bits one read of [`bits_at`] brings at least, whatever the bit position.
const BITS_PER_READ: u32 = 64 - 7;

/// Below one escape in this many values, escapes are told apart by a branch, which is then
/// almost never taken; above, by selecting, which costs a few instructions a value but no
/// mispredicted branches.
const RARE_ESCAPES: usize = 16;

/// Below one escape in this many values, codes in four streams are made values as they are read,
/// and escapes told apart by a branch; above, the symbols are read first and made values after,
/// by selecting.
const RARE_ESCAPES_IN_STREAMS: usize = 32;

/// Reads codes through a decoding table: a chain of table reads, several codes to each read of
/// the bits.
struct CodeReader<'a> {
    codes: &'a [u8],
    table: &'a [u32],
    primary_bits: u32,
    primary_mask: u64,
    secondary_mask: u64,
    codes_per_read: usize,
    /// The bits read so far.
    position: usize,
}

impl<'a> CodeReader<'a> {
    fn new(codes: &'a [u8], table: &'a DecodingTable) -> Self {
        let longest = table.primary_bits + table.secondary_bits;
        CodeReader {
            codes,
            table: &table.entries,
            primary_bits: table.primary_bits,
            primary_mask: (1 << table.primary_bits) - 1,
            secondary_mask: (1 << table.secondary_bits) - 1,
            codes_per_read: (BITS_PER_READ / longest) as usize,
            position: 0,
        }
    }

    /// The next bits, from the position on: enough for `codes_per_read` codes.
    #[inline(always)]
    fn window(&self) -> u64 {
        bits_at(self.codes, self.position >> 3) >> (self.position & 7)
    }

    /// Reads the code at the start of `window`, the bits from the position on, and moves past
    /// it; gives its symbol. A bit pattern that begins no code reads as [`UNASSIGNED`] and
    /// consumes nothing.
    #[inline(always)]
    fn step(&mut self, window: &mut u64) -> usize {
        let mut entry = self.table[(*window & self.primary_mask) as usize];
        if entry & LONG != 0 {
            let index = ((*window >> self.primary_bits) & self.secondary_mask) as usize;
            entry = self.table[(entry >> 8) as usize + index];
        }
        let length = entry & 0xff;
        *window >>= length;
        self.position += length as usize;
        (entry >> 8) as usize
    }

    /// Fills `out` with the next codes, each made a value by `value` from its symbol.
    #[inline(always)]
    fn read<T>(&mut self, out: &mut [T], mut value: impl FnMut(usize) -> T) {
        for group in out.chunks_mut(self.codes_per_read) {
            let mut window = self.window();
            for slot in group {
                *slot = value(self.step(&mut window));
            }
        }
    }
}

/// Fills each of `out` with what its reader's codes become through its `mapper`, one code of
/// each reader in turn, so that their chains of table reads overlap. The slices are longest
/// first.
fn read_in_turn<T, M: MapSymbol<T>>(
    readers: &mut [CodeReader<'_>; STREAMS],
    mappers: &mut [M; STREAMS],
    out: [&mut [T]; STREAMS],
) {
    let per_read = readers[0].codes_per_read;
    // As many codes of each as all four have, in whole reads.
    let common = out[STREAMS - 1].len() / per_read * per_read;
    let [a, b, c, d] = out;
    let [ra, rb, rc, rd] = readers;
    let [ma, mb, mc, md] = mappers;
    let groups = (a[..common].chunks_exact_mut(per_read))
        .zip(b[..common].chunks_exact_mut(per_read))
        .zip(c[..common].chunks_exact_mut(per_read))
        .zip(d[..common].chunks_exact_mut(per_read));
    let mut at = 0;
    for (((a, b), c), d) in groups {
        let mut windows = [ra.window(), rb.window(), rc.window(), rd.window()];
        for (((a, b), c), d) in a.iter_mut().zip(b).zip(c).zip(d) {
            *a = ma.map(ra.step(&mut windows[0]), at);
            *b = mb.map(rb.step(&mut windows[1]), at);
            *c = mc.map(rc.step(&mut windows[2]), at);
            *d = md.map(rd.step(&mut windows[3]), at);
            at += 1;
        }
    }
    let rest = [ra, rb, rc, rd].into_iter().zip([ma, mb, mc, md]);
    for ((reader, mapper), out) in rest.zip([a, b, c, d]) {
        let mut at = common;
        reader.read(&mut out[common..], |symbol| {
            at += 1;
            mapper.map(symbol, at - 1)
        });
    }
}

/// How many of `count` values each of four streams codes, but the last, which codes what is
/// left: value `i` is in stream `i / quarter(count)`. Writers and readers split by it alone.
fn quarter(count: usize) -> usize {
    count.div_ceil(STREAMS)
}

/// `slots` in four parts for four streams of codes, longest first: a quarter (rounded up) each,
/// the last taking what is left.
fn quarters<T>(slots: &mut [T]) -> [&mut [T]; STREAMS] {
    let quarter = quarter(slots.len());
    let (first, rest) = slots.split_at_mut(quarter);
    let (second, rest) = rest.split_at_mut(quarter.min(rest.len()));
    let (third, fourth) = rest.split_at_mut(quarter.min(rest.len()));
    [first, second, third, fourth]
}

/// What a stream's symbols become as its codes are read: `at` is the code's place in the stream.
trait MapSymbol<T> {
    fn map(&mut self, symbol: usize, at: usize) -> T;
}

/// Keeps the symbols, to be made values afterwards.
struct KeepSymbols;

impl MapSymbol<u16> for KeepSymbols {
    #[inline(always)]
    fn map(&mut self, symbol: usize, _: usize) -> u16 {
        symbol as u16
    }
}

/// Makes one stream's symbols values as they are read: coded ones from `values`; an escape
/// reads as zero and its place is noted, to be filled from the escaped values once every stream
/// is read (they are in the order of the streams). Where escapes are rare, this spares writing
/// and reading the symbols; where they are frequent, its branch on them costs more.
struct MapValues<'v, W> {
    values: &'v [W],
    /// Where the stream's escapes are: no more than `limit`, the number of escaped values, are
    /// noted; `excess` counts the rest.
    escapes: Vec<usize>,
    limit: usize,
    excess: usize,
    /// Whether a symbol was above the escape's.
    unassigned: bool,
}

impl<'v, W: Word> MapValues<'v, W> {
    fn new(values: &'v [W], limit: usize) -> Self {
        MapValues {
            values,
            escapes: Vec::new(),
            limit,
            excess: 0,
            unassigned: false,
        }
    }

    /// Notes an escape at `at`, or a symbol that no code stands for.
    #[cold]
    #[inline(never)]
    fn escape(&mut self, symbol: usize, at: usize) {
        if symbol != self.values.len() {
            self.unassigned = true;
        } else if self.escapes.len() < self.limit {
            self.escapes.push(at);
        } else {
            self.excess += 1;
        }
    }
}

impl<W: Word> MapSymbol<MaybeUninit<W>> for MapValues<'_, W> {
    #[inline(always)]
    fn map(&mut self, symbol: usize, at: usize) -> MaybeUninit<W> {
        MaybeUninit::new(match self.values.get(symbol) {
            Some(&value) => value,
            None => {
                self.escape(symbol, at);
                W::ZERO
            }
        })
    }
}

/// Checks that codes read up to bit `position` end in the last byte of `codes`, and that the
/// rest of that byte is zeros, so that one set of values has one encoding.
fn check_end(codes: &[u8], position: usize) -> Result<(), DecodeError> {
    if position.div_ceil(8) != codes.len() {
        return Err(if position.div_ceil(8) > codes.len() {
            truncated("the Huffman codes run past their bytes")
        } else {
            corrupt("bytes left over after the Huffman codes")
        });
    }
    let padding = codes.last().map_or(0, |&last| last >> (position % 8));
    if !position.is_multiple_of(8) && padding != 0 {
        return Err(corrupt("the padding after the Huffman codes is not zero"));
    }
    Ok(())
}

/// Where a Huffman stream's codes are: in one stream, or in four of about a quarter each.
#[derive(Clone, Copy)]
enum Codes<'a> {
    One(&'a [u8]),
    Four([&'a [u8]; STREAMS]),
}

/// The values of decoded symbols: coded ones from `values`, escapes from `escaped` in order.
/// Escape codes are counted in `next_escape` and symbols above the escape's noted in
/// `unassigned`, so that the loop has no error exit; the caller checks both.
struct Symbols<'v, W> {
    values: &'v [W],
    escaped: &'v [W],
    next_escape: usize,
    unassigned: bool,
}

impl<W: Word> Symbols<'_, W> {
    /// Fails if a code was unassigned or escapes outnumbered the `escapes` escaped values.
    fn check(&self, escapes: usize) -> Result<(), DecodeError> {
        if self.unassigned {
            return Err(corrupt("a Huffman code that the lengths do not assign"));
        }
        if self.next_escape > escapes {
            return Err(corrupt("more escape codes than escaped values"));
        }
        Ok(())
    }

    /// Appends the values of `symbols`, each made what `finish` makes it, to `out`, without a
    /// branch on escapes. A chunk at a time: each symbol takes its coded value (an escape, the
    /// last coded one) while the places of the escapes are noted, then the escaped values go
    /// to those places, then `finish` makes them all. Short loops keep their state in
    /// registers, where one loop doing all of it kept half of it on the stack.
    fn extend(&mut self, symbols: &[u16], finish: &mut impl Finish<W>, out: &mut Vec<W>) {
        let (values, escaped) = (self.values, self.escaped);
        let escape = values.len();
        // Stated so, the bound is seen to hold for every clamped symbol. (A stream has at
        // least one coded value.)
        let Some(last) = escape.checked_sub(1) else {
            self.unassigned = true;
            return;
        };
        let (mut next_escape, mut highest, mut made) = (self.next_escape, 0, *finish);
        let mut chunk = [W::ZERO; CHUNK];
        // The places of the chunk's escapes, in order: a place fits a byte, which also
        // indexes `chunk` without a bounds check.
        let mut places = [0u8; CHUNK];
        out.reserve(symbols.len());
        for symbols in symbols.chunks(CHUNK) {
            let mut escapes = 0;
            for (place, (slot, &symbol)) in chunk.iter_mut().zip(symbols).enumerate() {
                let symbol = usize::from(symbol);
                *slot = values[symbol.min(last)];
                // Written whatever the symbol, kept only if it is the escape.
                places[escapes % CHUNK] = place as u8;
                escapes += usize::from(symbol == escape);
            }
            // Apart, so that it is taken eight or sixteen symbols at a time.
            highest = highest.max(symbols.iter().copied().max().unwrap_or(0));
            let escaped = escaped.get(next_escape..).unwrap_or_default();
            for (&place, &value) in places[..escapes].iter().zip(escaped) {
                chunk[usize::from(place)] = value;
            }
            next_escape += escapes;
            out.extend(chunk[..symbols.len()].iter().map(|&word| made.apply(word)));
        }
        *finish = made;
        self.next_escape = next_escape;
        self.unassigned |= usize::from(highest) > escape;
    }
}

/// A Huffman stream's header: the tables, still encoded, and the codes.
pub(crate) struct Header<'a> {
    symbols: usize,
    lengths: &'a [u8],
    values: &'a [u8],
    escapes: usize,
    escaped: &'a [u8],
    codes: Codes<'a>,
}

impl<'a> Header<'a> {
    /// Reads the header from `body`, the bytes after the tag: of a stream with its codes in
    /// four streams (`HuffmanStreams`) or in one.
    pub(super) fn parse(body: &'a [u8], in_streams: bool) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(body);
        let (symbols, lengths, values) = (reader.count(0)?, reader.prefixed()?, reader.prefixed()?);
        let (escapes, escaped) = (reader.count(0)?, reader.prefixed()?);
        let codes = match in_streams {
            false => Codes::One(reader.rest()),
            true => {
                let mut sizes = [0; STREAMS - 1];
                for size in &mut sizes {
                    *size = reader.count(1)?;
                }
                let mut streams = [&[][..]; STREAMS];
                for (stream, &size) in streams.iter_mut().zip(&sizes) {
                    *stream = reader.take(size)?;
                }
                streams[STREAMS - 1] = reader.rest();
                Codes::Four(streams)
            }
        };
        Ok(Header {
            symbols,
            lengths,
            values,
            escapes,
            escaped,
            codes,
        })
    }

    /// The format version that added this stream's layout.
    pub(super) fn version(&self) -> Version {
        match self.codes {
            Codes::One(_) => Version::HUFFMAN,
            Codes::Four(_) => Version::STREAMS,
        }
    }

    /// The stream's `count` words, each made what `finish` makes it as it is made.
    pub(super) fn decode<W: Word>(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
        mut finish: impl Finish<W>,
    ) -> Result<Vec<W>, DecodeError> {
        let Header {
            symbols,
            escapes,
            codes,
            ..
        } = self;
        if symbols == 0 || symbols > MAX_SYMBOLS.min(count) {
            return Err(corrupt(format!(
                "{symbols} Huffman codes for {count} values"
            )));
        }
        if escapes > count {
            return Err(corrupt(format!("{escapes} escapes among {count} values")));
        }
        let code_count = symbols + usize::from(escapes > 0);
        budget.charge(code_count, 1)?;
        let lengths: Vec<u32> = decode_nested::<u8>(self.lengths, code_count, budget, depth + 1)?
            .into_iter()
            .map(u32::from)
            .collect();
        let kraft: u64 = lengths
            .iter()
            .map(|&length| match length {
                1..=MAX_CODE_LEN => 1u64 << (MAX_CODE_LEN - length),
                _ => u64::MAX >> 1,
            })
            .fold(0, u64::saturating_add);
        if kraft > 1 << MAX_CODE_LEN {
            return Err(corrupt(
                "Huffman code lengths are not 1 to 15 bits or do not form a prefix code",
            ));
        }
        budget.charge(symbols, W::BYTES)?;
        let values = decode_nested::<W>(self.values, symbols, budget, depth + 1)?;
        budget.charge(escapes, W::BYTES)?;
        let escaped = decode_nested::<W>(self.escaped, escapes, budget, depth + 1)?;
        // Every code takes at least a bit.
        let code_bytes = match codes {
            Codes::One(codes) => codes.len(),
            Codes::Four(streams) => streams.iter().map(|stream| stream.len()).sum(),
        };
        if count > code_bytes.saturating_mul(8) {
            return Err(truncated(format!(
                "{code_bytes} bytes of Huffman codes cannot hold {count} values"
            )));
        }
        // The table is charged like decoded values, so that many small streams with long codes
        // cannot make decoding allocate far more than the file's size.
        let longest = lengths.iter().copied().max().unwrap_or(1);
        let (mut table, symbol_codes) = DecodingTable::layout(&lengths, longest);
        budget.charge(table.size(), 4)?;
        table.fill(&symbol_codes);

        // Every symbol indexes `values` but the escape's, whose values come from `escaped` in
        // order.
        let escape = symbols;
        let mut mapping = Symbols {
            values: &values,
            escaped: &escaped,
            next_escape: 0,
            unassigned: false,
        };
        let mut out = Vec::with_capacity(count);
        match codes {
            Codes::One(codes) => {
                let mut reader = CodeReader::new(codes, &table);
                if escapes.saturating_mul(RARE_ESCAPES) <= count {
                    let mut decoded = [W::ZERO; CHUNK];
                    for start in (0..count).step_by(CHUNK) {
                        let decoded = &mut decoded[..CHUNK.min(count - start)];
                        reader.read(decoded, |symbol| match values.get(symbol) {
                            Some(&value) => value,
                            None => {
                                mapping.unassigned |= symbol != escape;
                                mapping.next_escape += 1;
                                (escaped.get(mapping.next_escape - 1).copied()).unwrap_or_default()
                            }
                        });
                        finish.apply_all(decoded);
                        out.extend_from_slice(decoded);
                    }
                } else {
                    let mut chunk = [0u16; CHUNK];
                    for start in (0..count).step_by(CHUNK) {
                        let chunk = &mut chunk[..CHUNK.min(count - start)];
                        reader.read(chunk, |symbol| symbol as u16);
                        mapping.extend(chunk, &mut finish, &mut out);
                    }
                }
                mapping.check(escapes)?;
                check_end(codes, reader.position)?;
            }
            Codes::Four(streams) if escapes.saturating_mul(RARE_ESCAPES_IN_STREAMS) <= count => {
                // The values are read stream by stream in turn, each into its quarter; the
                // escapes, whose values are in the streams' order, are filled in after. Each
                // stream notes the places of at most as many escapes as there are escaped values.
                budget.charge(escapes, size_of::<usize>())?;
                let mut readers = streams.map(|stream| CodeReader::new(stream, &table));
                let mut mappers = [(); STREAMS].map(|()| MapValues::new(&values, escapes));
                let slots = quarters(&mut out.spare_capacity_mut()[..count]);
                read_in_turn(&mut readers, &mut mappers, slots);
                // SAFETY: `out` was empty with room for `count` values; the quarters of its
                // first `count` spare slots cover them exactly, and `read_in_turn` writes every
                // slot of each (whole reads, then each reader's rest).
                #[allow(unsafe_code)]
                unsafe {
                    out.set_len(count)
                };
                for mapper in &mappers {
                    mapping.unassigned |= mapper.unassigned;
                    mapping.next_escape += mapper.escapes.len() + mapper.excess;
                }
                mapping.check(escapes)?;
                for (stream, reader) in streams.iter().zip(&readers) {
                    check_end(stream, reader.position)?;
                }
                let quarter = quarter(count);
                let mut escaped = escaped.iter();
                for (index, mapper) in mappers.iter().enumerate() {
                    for (&at, &value) in mapper.escapes.iter().zip(&mut escaped) {
                        out[index * quarter + at] = value;
                    }
                }
                // The values come in four streams: they are in order only now.
                finish.apply_all(&mut out);
            }
            Codes::Four(streams) => {
                // The symbols are read first, stream by stream in turn, then made values in
                // order, which is the escaped values' order.
                budget.charge(count, 2)?;
                let mut decoded = vec![0u16; count];
                let mut readers = streams.map(|stream| CodeReader::new(stream, &table));
                read_in_turn(
                    &mut readers,
                    &mut [(); STREAMS].map(|()| KeepSymbols),
                    quarters(&mut decoded),
                );
                mapping.extend(&decoded, &mut finish, &mut out);
                mapping.check(escapes)?;
                for (stream, reader) in streams.iter().zip(&readers) {
                    check_end(stream, reader.position)?;
                }
            }
        }
        if mapping.next_escape < escapes {
            return Err(corrupt("escaped values left over after the Huffman codes"));
        }
        Ok(out)
    }

    pub(super) fn describe<W: Word>(self, at: Describer) -> (Codec, Vec<Encoding>) {
        (
            Codec::Huffman {
                symbols: self.symbols as u64,
                escapes: self.escapes as u64,
                streams: match self.codes {
                    Codes::One(_) => 1,
                    Codes::Four(_) => STREAMS as u64,
                },
            },
            vec![
                describe::<u8>(self.lengths, at.nested()),
                describe::<W>(self.values, at.nested()),
                describe::<W>(self.escaped, at.nested()),
            ],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::shapes;
    use super::super::transform::{AsDecoded, RunningSums};
    use super::*;
    use crate::encodings::bytes::varint_len;
    use crate::encodings::{test_len, xorshift};

    #[test]
    fn the_bit_writer_writes_what_a_bit_at_a_time_writer_does() {
        let mut next = xorshift(0x5eed_b175);
        // Codes of every length, in runs of short and of long ones, past a first guess of the
        // size that is too small.
        let codes: Vec<(u64, u32)> = (0..5000)
            .map(|i| {
                let length = match i / 500 % 3 {
                    0 => 1 + next() % 3,
                    1 => 13 + next() % 3,
                    _ => 1 + next() % u64::from(MAX_CODE_LEN),
                };
                (next() % (1 << length), length as u32)
            })
            .collect();
        for count in [0, 1, 2, 7, 8, 9, 100, codes.len()] {
            let mut writer = BitWriter::with_capacity(3);
            let mut bits = Vec::new();
            for &(code, length) in &codes[..count] {
                writer.write(writable(code, length));
                bits.extend((0..length).map(|bit| code >> bit & 1 == 1));
            }
            let mut reference = vec![0u8; bits.len().div_ceil(8)];
            for (at, _) in bits.iter().enumerate().filter(|&(_, &bit)| bit) {
                reference[at / 8] |= 1 << (at % 8);
            }
            assert_eq!(writer.finish(), reference, "{count} codes");
        }
    }

    /// The plan for `values`, their extremes found here.
    fn plan<W: Word>(values: &[W]) -> Option<Plan<W>> {
        let min = values.iter().copied().min()?;
        let max = values.iter().copied().max()?;
        Plan::of(values, min, max, usize::MAX)
    }

    /// A plan is refused for a size to beat exactly when its estimate would not come under it
    /// (the entropy bound only spares building codes that would lose).
    #[test]
    fn plans_are_refused_only_where_they_would_lose() {
        for values in shapes() {
            let (Some(&min), Some(&max)) = (values.iter().min(), values.iter().max()) else {
                continue;
            };
            let Some(estimate) = plan(&values).map(|plan| plan.estimate()) else {
                continue;
            };
            for to_beat in [
                estimate.saturating_sub(1),
                estimate,
                estimate + 1,
                estimate * 2,
            ] {
                let planned = Plan::of(&values, min, max, to_beat);
                if to_beat > estimate {
                    assert!(
                        planned.is_some(),
                        "{} values, {to_beat} to beat",
                        values.len()
                    );
                }
                if let Some(planned) = planned {
                    assert_eq!(planned.estimate(), estimate);
                }
            }
        }
    }

    #[test]
    fn entropy_bounds_the_bits_of_huffman_codes() {
        for weights in [
            vec![1u64, 1],
            vec![5, 1, 1, 1],
            vec![1000, 1],
            vec![3; 17],
            vec![7],
        ] {
            let bits: u64 = (weights.iter().zip(code_lengths(&weights)))
                .map(|(&weight, length)| weight * u64::from(length))
                .sum();
            assert!(entropy_bits(&weights) <= bits, "{weights:?}");
        }
        assert_eq!(entropy_bits(&[4, 4]), 7, "8 bits, rounded down a little");
    }

    /// `values` Huffman-coded by a writer of version `newest`, if they have a plan.
    fn encoded_for<W: Word>(values: &[W], newest: Version) -> Option<Vec<u8>> {
        let plan = plan(values)?;
        let mut out = Vec::new();
        let settings = Settings {
            newest,
            ..Settings::default()
        };
        let version = plan.encode(values, &settings, Chain::default(), &mut out);
        let in_streams = values.len() >= STREAMS_MIN_VALUES && newest >= Version::STREAMS;
        let (tag, expected) = match in_streams {
            true => (IntTag::HuffmanStreams, Version::STREAMS),
            false => (IntTag::Huffman, Version::HUFFMAN),
        };
        assert_eq!((out[0], version), (tag as u8, expected));
        Some(out)
    }

    fn encoded<W: Word>(values: &[W]) -> Option<Vec<u8>> {
        encoded_for(values, Version::NEWEST)
    }

    fn decoded<W: Word>(stream: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
        decoded_then(stream, count, AsDecoded)
    }

    /// [`decoded`], each value made what `finish` makes it.
    fn decoded_then<W: Word>(
        stream: &[u8],
        count: usize,
        finish: impl Finish<W>,
    ) -> Result<Vec<W>, DecodeError> {
        let in_streams = match stream.first().and_then(|&tag| IntTag::from_byte(tag)) {
            Some(IntTag::Huffman) => false,
            Some(IntTag::HuffmanStreams) => true,
            other => panic!("not a Huffman stream: {other:?}"),
        };
        let header = Header::parse(&stream[1..], in_streams)?;
        header.decode(count, &mut Budget::new(u64::MAX), 0, finish)
    }

    #[test]
    fn a_transform_over_the_codes_is_applied_on_every_path_that_makes_values() {
        // One value in `every` is unique, so escaped, and the rest repeat: 20,000 values are
        // coded in four streams, 3,000 in one; escapes are rare at one in 100, not at one in 3.
        for (len, every) in [(3000, 100), (3000, 3), (20_000, 100), (20_000, 3)] {
            let values: Vec<u64> = (0..len)
                .map(|i| match i % every {
                    0 => 1000 + i * 7,
                    _ => (i * 31) % 13,
                })
                .collect();
            let stream = encoded(&values).expect("values that repeat have a plan");
            let as_decoded = decoded::<u64>(&stream, values.len()).unwrap();
            assert_eq!(as_decoded, values);
            let mut expected = values.clone();
            RunningSums::<u64, true>::new().apply_all(&mut expected);
            let summed = decoded_then(&stream, values.len(), RunningSums::<u64, true>::new());
            assert_eq!(
                summed.unwrap(),
                expected,
                "{len} values, one in {every} escaped"
            );
        }
    }

    #[test]
    // Columns long enough to be sampled.
    #[cfg_attr(miri, ignore)]
    fn a_sample_rules_out_noise_but_not_values_that_repeat_far_apart() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let noise: Vec<u64> = (0..100_000).map(|_| next() >> 8).collect();
        let limit = noise.len() / 2 + MAX_SYMBOLS;
        assert!(far_more_distinct(&noise, limit));
        assert!(plan(&noise).is_none());
        // 20,000 wide values, each five times, in random order: few repeat within a sample, yet
        // codes for them beat their 56 bits.
        let distinct: Vec<u64> = (0..20_000).map(|_| next() >> 8).collect();
        let repeated: Vec<u64> = (0..100_000)
            .map(|_| distinct[(next() % 20_000) as usize])
            .collect();
        assert!(!far_more_distinct(&repeated, limit));
        assert!(plan(&repeated).is_some_and(|plan| plan.estimate() < repeated.len() * 7));
    }

    /// Skewed values with a long tail of values seen once (escaped) and more distinct repeated
    /// values than there are codes.
    fn skewed(len: usize) -> Vec<u64> {
        let mut next = xorshift(0x1234_5678_9abc_def1);
        (0..len as u64)
            .map(|i| {
                let state = next();
                match state % 16 {
                    0..=7 => state % 4,
                    8..=13 => state % 9000,
                    _ => 1_000_000 + i,
                }
            })
            .collect()
    }

    #[test]
    fn round_trips_every_shape_with_repeats() {
        let mut coded = 0;
        for shape in shapes().into_iter().chain([skewed(test_len(20_000))]) {
            let Some(out) = encoded(&shape) else {
                continue;
            };
            coded += 1;
            assert_eq!(decoded::<u64>(&out, shape.len()).unwrap(), shape);
            let narrow: Vec<u16> = shape.iter().map(|&v| v as u16).collect();
            let out = encoded(&narrow).unwrap();
            assert_eq!(decoded::<u16>(&out, narrow.len()).unwrap(), narrow);
        }
        assert!(coded >= 5, "only {coded} shapes had repeats");
    }

    /// More repeated values than codes: the rarest repeated values are escaped too. As 33,334 is
    /// 1 modulo 3, each residue below it falls on three positions of which exactly one is a
    /// multiple of three, so 33,334 values occur twice: more than the 32,767 codes.
    #[test]
    fn more_repeated_values_than_codes_round_trip() {
        // (The escaped values repeat too, yet are not Huffman-coded again: see below.)
        let len = test_len(100_000);
        let values: Vec<u64> = (0..len as u64)
            .map(|i| if i % 3 == 0 { i % 7 } else { 1000 + i % 33_334 })
            .collect();
        let plan = plan(&values).unwrap();
        if len == 100_000 {
            assert!(plan.values.len() == MAX_SYMBOLS && plan.escapes > 0);
        }
        let out = encoded(&values).unwrap();
        assert_eq!(decoded::<u64>(&out, values.len()).unwrap(), values);
        let description = describe::<u64>(&out, Describer::new(false)).to_string();
        assert_eq!(description.matches("huffman").count(), 1, "{description}");
    }

    #[test]
    fn values_that_never_repeat_get_no_codes() {
        let distinct: Vec<u64> = (0..1000).collect();
        assert!(plan(&distinct).is_none());
        assert!(plan(&[7u64; MIN_VALUES - 1]).is_none());
    }

    #[test]
    fn skewed_values_take_fewer_bits_than_their_width() {
        let values: Vec<u32> = (0..test_len(10_000))
            .map(|i| {
                [
                    3, 3, 3, 3, 3, 3, 3, 3, 200, 200, 200, 200, 70_000, 70_000, 5, 9,
                ][i % 16]
            })
            .collect();
        let out = encoded(&values).unwrap();
        // About 2.1 bits a value, plus the tables; bit-packing needs 17.
        const TABLES: usize = 64;
        assert!(
            out.len() < values.len() * 5 / 16 + TABLES,
            "{} bytes",
            out.len()
        );
        assert_eq!(decoded::<u32>(&out, values.len()).unwrap(), values);
    }

    /// Weights that grow like Fibonacci numbers give an unlimited Huffman code one more bit per
    /// symbol; the limit still yields a complete prefix code with the heaviest symbols shortest.
    #[test]
    fn code_lengths_are_limited_and_complete() {
        let mut fibonacci = vec![1u64, 1];
        while fibonacci.len() < 40 {
            let next = fibonacci[fibonacci.len() - 1] + fibonacci[fibonacci.len() - 2];
            fibonacci.push(next);
        }
        // As many symbols as there are codes, escape included (fewer under Miri).
        let uniform = vec![5u64; test_len(MAX_SYMBOLS + 1)];
        let mixed: Vec<u64> = (0..test_len(3000) as u64)
            .map(|i| 1 + (i * i) % 977)
            .collect();
        for weights in [vec![9], vec![1, 1], fibonacci, uniform, mixed] {
            let lengths = code_lengths(&weights);
            assert!(lengths.iter().all(|&l| (1..=MAX_CODE_LEN).contains(&l)));
            let kraft: u64 = lengths.iter().map(|&l| 1u64 << (MAX_CODE_LEN - l)).sum();
            let complete = if weights.len() == 1 {
                1 << (MAX_CODE_LEN - 1)
            } else {
                1 << MAX_CODE_LEN
            };
            assert_eq!(kraft, complete, "{weights:?}");
            for (a, b) in weights
                .iter()
                .zip(&lengths)
                .zip(weights.iter().zip(&lengths).skip(1))
            {
                if a.0 > b.0 {
                    assert!(a.1 <= b.1, "a heavier symbol got a longer code");
                }
            }
        }
    }

    /// Reads codes a bit at a time against the canonical code: the table is checked against it.
    fn reference_decode(lengths: &[u32], codes: &[u8], count: usize) -> Vec<usize> {
        let mut by_code = Vec::new();
        let mut code = 0u32;
        for length in 1..=MAX_CODE_LEN {
            for (symbol, _) in lengths.iter().enumerate().filter(|&(_, &l)| l == length) {
                by_code.push((length, code, symbol));
                code += 1;
            }
            code <<= 1;
        }
        let mut bit = 0;
        let mut next_bit = || {
            let value = (codes[bit / 8] >> (bit % 8)) & 1;
            bit += 1;
            u32::from(value)
        };
        (0..count)
            .map(|_| {
                let (mut value, mut length) = (0u32, 0u32);
                loop {
                    value = value << 1 | next_bit();
                    length += 1;
                    if let Some(&(_, _, symbol)) =
                        by_code.iter().find(|&&(l, c, _)| l == length && c == value)
                    {
                        return symbol;
                    }
                }
            })
            .collect()
    }

    /// Values whose long codes are rare: a few frequent values, a tail of 600 that come 5 times.
    fn long_tail(len: usize) -> Vec<u64> {
        (0..len as u64)
            .map(|i| {
                if i % 10 == 0 {
                    100 + i / 10 % 600
                } else {
                    i % 7
                }
            })
            .collect()
    }

    /// Checks the table decoder against the bit-by-bit reference on `values`; returns the
    /// bits of each level of the table the stream decodes with.
    fn agrees_with_the_reference(values: &[u64]) -> (u32, u32) {
        let plan = plan(values).unwrap();
        // In one stream, whose codes are the tail.
        let out = encoded_for(values, Version::HUFFMAN).unwrap();
        // The codes are the stream's tail: their length follows from the plan's bit count.
        let codes = &out[out.len() - plan.code_bits.div_ceil(8) as usize..];
        // A value's symbol is its place in the table, or the escape past the table's end.
        let expected: Vec<usize> = values
            .iter()
            .map(|v| plan.values.binary_search(v).unwrap_or(plan.values.len()))
            .collect();
        assert_eq!(
            reference_decode(&plan.lengths, codes, values.len()),
            expected
        );
        assert_eq!(decoded::<u64>(&out, values.len()).unwrap(), values);
        let in_streams = encoded(values).unwrap();
        assert_eq!(decoded::<u64>(&in_streams, values.len()).unwrap(), values);
        let longest = plan.lengths.iter().copied().max().unwrap();
        let (table, _) = DecodingTable::layout(&plan.lengths, longest);
        (table.primary_bits, table.secondary_bits)
    }

    #[test]
    fn the_table_decoder_agrees_with_a_bit_by_bit_reference() {
        agrees_with_the_reference(&skewed(test_len(5000)));
        // Under Miri the tail is too short for codes past the first level.
        let (primary_bits, secondary_bits) =
            agrees_with_the_reference(&long_tail(test_len(60_000)));
        if test_len(60_000) == 60_000 {
            assert_eq!(
                primary_bits, PRIMARY_BITS,
                "rare long codes get a second level"
            );
            assert!(secondary_bits > 0);
        }
    }

    /// Symbols made values a chunk at a time, without branches, come out as made one by one:
    /// across chunks and calls, with escapes that outnumber the escaped values, and with
    /// symbols above the escape's.
    #[test]
    fn symbols_become_values_as_one_at_a_time() {
        let values = [3u64, 10, 20];
        let escape = values.len() as u16;
        let escaped: Vec<u64> = (100..400).collect();
        // Escapes about one in four, and past the escaped values by the end.
        let mut next = xorshift(7);
        let symbols: Vec<u16> = (0..1500)
            .map(|_| (next() % u64::from(escape + 1)) as u16)
            .collect();
        let reference = |symbols: &[u16]| {
            let mut next_escape = 0;
            let mut sums = RunningSums::<u64, true>::new();
            let words = symbols
                .iter()
                .map(|&symbol| match values.get(usize::from(symbol)) {
                    Some(&value) => value,
                    None => {
                        next_escape += 1;
                        escaped.get(next_escape - 1).copied().unwrap_or_default()
                    }
                });
            let made: Vec<u64> = words.map(|word| sums.apply(word)).collect();
            (made, next_escape)
        };
        for len in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 700, 1200, 1500] {
            let symbols = &symbols[..len];
            let mut mapping = Symbols {
                values: &values,
                escaped: &escaped,
                next_escape: 0,
                unassigned: false,
            };
            let mut finish = RunningSums::<u64, true>::new();
            let mut out = Vec::new();
            // In two calls, as the one-stream reader makes them.
            let (first, second) = symbols.split_at(len / 3);
            mapping.extend(first, &mut finish, &mut out);
            mapping.extend(second, &mut finish, &mut out);
            let (made, next_escape) = reference(symbols);
            assert_eq!(mapping.next_escape, next_escape, "{len} symbols");
            assert!(!mapping.unassigned);
            assert_eq!(
                mapping.check(escaped.len()).is_err(),
                next_escape > escaped.len()
            );
            if next_escape <= escaped.len() {
                assert_eq!(out, made, "{len} symbols");
            }
        }
        let mut mapping = Symbols {
            values: &values,
            escaped: &escaped,
            next_escape: 0,
            unassigned: false,
        };
        let mut out = Vec::new();
        mapping.extend(&[0, escape, escape + 1, 2], &mut AsDecoded, &mut out);
        assert!(mapping.unassigned && mapping.check(escaped.len()).is_err());
    }

    /// Codes in four streams decode as in one, whatever the count modulo four, with escapes
    /// rare or frequent, and cost only the sizes of three streams and their padding.
    #[test]
    // Columns of thousands of values.
    #[cfg_attr(miri, ignore)]
    fn codes_in_four_streams_decode_as_in_one() {
        for len in [STREAMS_MIN_VALUES, 4097, 4098, 4099, 10_001] {
            let rare = skewed(len);
            let frequent: Vec<u64> = (0..len as u64)
                .map(|i| if i % 3 == 0 { 7 } else { i * 7919 })
                .collect();
            let constant_run: Vec<u64> = (0..len as u64).map(|i| u64::from(i < 5)).collect();
            for values in [rare, frequent, constant_run] {
                let one = encoded_for(&values, Version::HUFFMAN).unwrap();
                let four = encoded(&values).unwrap();
                assert_eq!(decoded::<u64>(&four, len).unwrap(), values, "{len} values");
                assert!(four.len() <= one.len() + 3 * 3 + 3, "{len} values");
                let description = describe::<u64>(&four, Describer::new(false)).to_string();
                assert!(description.contains("in 4 streams"), "{description}");
            }
        }
        // Below the threshold, one stream.
        let short = skewed(STREAMS_MIN_VALUES - 1);
        assert_eq!(encoded(&short).unwrap()[0], IntTag::Huffman as u8);
    }

    #[test]
    // Columns of thousands of values.
    #[cfg_attr(miri, ignore)]
    fn hostile_four_stream_codes_are_errors() {
        let values = skewed(STREAMS_MIN_VALUES + 3);
        let good = encoded(&values).unwrap();
        let fails = |stream: &[u8]| decoded::<u64>(stream, values.len()).is_err();
        assert!(!fails(&good));
        for end in 1..good.len() {
            assert!(fails(&good[..end]), "truncated to {end}");
        }
        // The sizes of the first three streams come just before the streams.
        let header = Header::parse(&good[1..], true).unwrap();
        let Codes::Four(streams) = header.codes else {
            panic!("not in four streams");
        };
        let sizes_at = good.len() - streams.iter().map(|s| s.len()).sum::<usize>();
        let sizes_len: usize = (streams[..STREAMS - 1].iter())
            .map(|stream| varint_len(stream.len() as u64))
            .sum();
        let sizes_start = sizes_at - sizes_len;
        // A byte moved from the second stream to the first, both sizes and lengths kept valid.
        let mut shifted = good[..sizes_start].to_vec();
        write_varint(&mut shifted, streams[0].len() as u64 + 1);
        write_varint(&mut shifted, streams[1].len() as u64 - 1);
        write_varint(&mut shifted, streams[2].len() as u64);
        shifted.extend_from_slice(&good[sizes_at..]);
        assert!(fails(&shifted), "streams of other lengths");
        // A size past the end.
        let mut past = good[..sizes_start].to_vec();
        write_varint(&mut past, good.len() as u64);
        write_varint(&mut past, 0);
        write_varint(&mut past, 0);
        past.extend_from_slice(&good[sizes_at..]);
        assert!(fails(&past), "a stream past the end");
        // Non-zero padding at the end of the first stream.
        let first_end = sizes_at + streams[0].len() - 1;
        let mut padded = good.clone();
        padded[first_end] |= 0x80;
        assert!(
            fails(&padded) || padded == good,
            "non-zero padding in a stream"
        );
    }

    #[test]
    fn hostile_streams_are_errors() {
        let values: Vec<u64> = (0..200)
            .map(|i| [1, 2, 3, 1000 + i][i as usize % 4])
            .collect();
        let good = encoded(&values).unwrap();
        assert!(decoded::<u64>(&good, values.len()).is_ok());
        let fails = |stream: &[u8], count: usize| decoded::<u64>(stream, count).is_err();
        // Every truncation, and a byte too many.
        for end in 1..good.len() {
            assert!(fails(&good[..end], values.len()), "truncated to {end}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(fails(&longer, values.len()));
        // Another count than the codes hold.
        assert!(fails(&good, values.len() + 1));
        assert!(fails(&good, values.len() - 8));
        // Hand-made streams: symbols, lengths (fixed width 1 byte), values, escapes, codes.
        let stream = |symbols: u8, lengths: &[u8], escapes: u8, codes: &[u8]| {
            let mut out = vec![
                IntTag::Huffman as u8,
                symbols,
                2 + lengths.len() as u8,
                0x00,
                1,
            ];
            out.extend_from_slice(lengths);
            out.extend([2 + symbols, 0x00, 1]);
            out.extend(0..symbols);
            out.push(escapes);
            out.extend([2 + escapes, 0x00, 1]);
            out.extend(0..escapes);
            out.extend_from_slice(codes);
            out
        };
        // Two 1-bit codes: "0" is value 0, "1" value 1.
        assert_eq!(
            decoded::<u64>(&stream(2, &[1, 1], 0, &[0b10]), 2).unwrap(),
            [0, 1]
        );
        assert!(fails(&stream(0, &[], 0, &[]), 0), "no codes");
        assert!(
            fails(&stream(3, &[1, 1, 1], 0, &[0]), 3),
            "Kraft sum above one"
        );
        assert!(
            fails(&stream(2, &[1, 16], 0, &[0]), 2),
            "a code longer than 15 bits"
        );
        assert!(fails(&stream(2, &[1, 0], 0, &[0]), 2), "a code of no bits");
        assert!(
            fails(&stream(2, &[2, 2], 0, &[0b11]), 1),
            "bits that begin no code"
        );
        assert!(
            fails(&stream(1, &[2, 2], 1, &[0b1111]), 2),
            "bits that begin no code, among frequent escapes"
        );
        assert!(
            fails(&stream(2, &[1, 1], 0, &[0b10]), 20),
            "codes past the last byte"
        );
        assert!(
            fails(&stream(4, &[2; 4], 0, &[0]), 5),
            "a code that runs past the last byte"
        );
        assert!(
            fails(&stream(2, &[1, 1], 0, &[0b10, 0]), 2),
            "a byte left over"
        );
        assert!(
            fails(&stream(2, &[1, 1], 0, &[0b110]), 2),
            "padding that is not zero"
        );
        assert!(
            fails(&stream(1, &[1, 1], 1, &[0b110]), 3),
            "more escape codes than escapes"
        );
        assert_eq!(
            decoded::<u64>(&stream(1, &[1, 1], 1, &[0b010]), 3).unwrap(),
            [0, 0, 0]
        );
        assert!(
            fails(&stream(1, &[1, 1], 2, &[0b10]), 2),
            "escaped values left over"
        );
        assert!(
            fails(&stream(5, &[3; 5], 0, &[0]), 2),
            "more codes than values"
        );
    }

    /// Hand-made streams of codes in four streams, whose escapes take the escaped values in the
    /// streams' order: each stream's escapes are counted against the escaped values, whether
    /// they are rare (values made as the codes are read) or frequent (symbols first).
    #[test]
    fn escapes_in_four_streams_take_the_escaped_values_in_stream_order() {
        // One symbol (value 7) and the escape, coded by `lengths` (1 and 1: "0" and "1").
        let four = |lengths: [u8; 2], escaped: &[u8], streams: &[Vec<u8>; STREAMS]| {
            let mut out = vec![IntTag::HuffmanStreams as u8, 1, 4, 0x00, 1];
            out.extend(lengths);
            out.extend([3, 0x00, 1, 7]);
            out.extend([escaped.len() as u8, 2 + escaped.len() as u8, 0x00, 1]);
            out.extend_from_slice(escaped);
            for stream in &streams[..STREAMS - 1] {
                write_varint(&mut out, stream.len() as u64);
            }
            streams
                .iter()
                .for_each(|stream| out.extend_from_slice(stream));
            out
        };
        // Streams of `bytes` bytes of 1-bit codes, read from the low bit up: zeros but the
        // first byte of each (0b10: the symbol, then the escape; 0b01; none; 0b11).
        for bytes in [1, 16] {
            let count = bytes * 8 * STREAMS;
            let firsts = [0b10, 0b01, 0b00, 0b11];
            let codes = firsts.map(|first| {
                let mut stream = vec![0; bytes];
                stream[0] = first;
                stream
            });
            let mut expected = vec![7; count];
            let stride = count / STREAMS;
            for (at, value) in [
                (1, 20),
                (stride, 30),
                (3 * stride, 40),
                (3 * stride + 1, 50),
            ] {
                expected[at] = value;
            }
            let error = |stream: &[u8]| decoded::<u64>(stream, count).unwrap_err().to_string();
            assert_eq!(
                decoded::<u64>(&four([1, 1], &[20, 30, 40, 50], &codes), count).unwrap(),
                expected
            );
            let more = error(&four([1, 1], &[20, 30, 40], &codes));
            assert!(more.contains("more escape codes"), "{more}");
            let more = error(&four([1, 1], &[20], &codes));
            assert!(more.contains("more escape codes"), "{more}");
            let left = error(&four([1, 1], &[20, 30, 40, 50, 60], &codes));
            assert!(left.contains("left over"), "{left}");
            // With lengths 1 and 2, "0" is the symbol, "10" the escape and "11" begins no code.
            let mut unassigned = codes.clone();
            unassigned[2][0] = 0b0011;
            let unassigned = error(&four([1, 2], &[20], &unassigned));
            assert!(unassigned.contains("do not assign"), "{unassigned}");
        }
    }
}
