//! String streams: columns of UTF-8 strings.
//!
//! ```text
//! str_stream := 0x00 lengths:prefixed bytes
//!                 Plain: `lengths` an int_stream of count 64-bit byte lengths; `bytes` all the
//!                 strings back to back, exactly the sum of the lengths
//!             | 0x03 lengths:prefixed bytes:int_stream
//!                 Coded text (format version 9): as Plain, but `bytes` is an int_stream of
//!                 the strings' bytes back to back as 8-bit values, as many as the lengths add
//!                 up to, which runs to the end
//!             | 0x01 distinct:varint values:prefixed indices:int_stream
//!                 Dictionary: `values` a str_stream of the `distinct` strings (at most count,
//!                 at least one if count > 0) in any order, `indices` count 32-bit indices
//!                 into them
//!             | 0x02 source:varint distinct:varint table:prefixed exceptions:varint
//!                    [positions:prefixed values]
//!                 Keyed (format version 2), only at the top of a branch: the strings are a
//!                 function of the strings of an earlier branch, `source`, that holds as many (a
//!                 player's name given the id): `table` a str_stream of one string for each of
//!                 the `distinct` strings of the source (at least one if count > 0, at most
//!                 count), in order of first appearance; string i is the table's entry for the
//!                 source's string i, except at the `exceptions` (at most count) positions: an
//!                 int_stream of ascending 64-bit positions, whose strings are `values`, a
//!                 str_stream that runs to the end. Positions and values are there only when
//!                 there are exceptions. The source, `table` and `values` are not keyed.
//!             | zstd
//!                 tag 0x08, see `zstd`: around a str_stream that is not keyed
//! ```
//!
//! Every string must be valid UTF-8 on its own: a string boundary inside a character is corrupt.

use std::borrow::Cow;
use std::convert::Infallible;
use std::ops::Range;

use super::budget::Budget;
use super::bytes::{write_prefixed, write_varint, ByteReader};
use super::describe::{Codec, Describer, Encoding};
use super::int;
use super::int::select::{encode_best_leaf, encode_nested, encode_nested_prefixed, Chain};
use super::numbering::Numbering;
use super::zstd::{self, Frame};
use super::{check_depth, is_empty_form, tags, Settings, Version};
use crate::branch::KeptBranch;
use crate::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::memory::prefetch;

tags! {
    /// The first byte of a string stream: its codec.
    StrTag, "string" {
        Plain = 0x00,
        Dictionary = 0x01,
        Keyed = 0x02,
        Coded = 0x03,
        Zstd = zstd::TAG,
    }
}

/// Strings as one buffer and where each ends (each starts where the one before ends). An
/// encoder's column owns its text (`S = String`); a decoded one holds it as the stream does: lent
/// from the file where the stream keeps it as it is, owned where it had to be made (decompressed).
///
/// The ends ascend and each is a character boundary of the text (so at most its length), which
/// lets [`Self::span`]'s strings be sliced without checks, as bitcode does once a column is
/// validated. Every way of making a column keeps that: `push` and `append` add whole strings,
/// [`Self::of_text`] checks decoded text at its ends, `lend` checks ends against a copy of their
/// text kept before, and the conversions between text types keep the text.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct StrColumn<S = String> {
    bytes: S,
    ends: Vec<usize>,
}

/// Decoded strings, lent from the stream's bytes of lifetime `'t` or owned.
pub type DecodedStrings<'t> = Strings<Cow<'t, str>>;

impl StrColumn {
    pub(crate) fn push(&mut self, value: &str) {
        self.bytes.push_str(value);
        self.ends.push(self.bytes.len());
    }

    /// Makes room for the ends of `additional` more strings (their text is not known yet).
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.ends.reserve(additional);
    }

    /// Appends the strings of `other`.
    fn append<S: AsRef<str>>(&mut self, other: &StrColumn<S>) {
        self.append_range(other, 0..other.len());
    }

    /// Appends strings `range` of `other`, their text copied in one piece.
    fn append_range<S: AsRef<str>>(&mut self, other: &StrColumn<S>, range: Range<usize>) {
        let ends = &other.ends[range.clone()];
        let start = match range.start.checked_sub(1) {
            Some(before) => other.ends[before],
            None => 0,
        };
        let end = ends.last().map_or(start, |&end| end);
        let offset = self.bytes.len();
        self.bytes.push_str(&other.bytes.as_ref()[start..end]);
        self.ends
            .extend(ends.iter().map(|&string_end| string_end - start + offset));
    }

    /// The column as a decoded one, which owns its text (the same text).
    fn into_decoded<'t>(self) -> StrColumn<Cow<'t, str>> {
        StrColumn {
            bytes: Cow::Owned(self.bytes),
            ends: self.ends,
        }
    }
}

impl<S> StrColumn<S> {
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// Where string `index` is in the text, both ends on character boundaries of it (the
    /// column's invariant): empty past the end.
    #[inline]
    fn span(&self, index: usize) -> Range<usize> {
        match self.ends.get(index) {
            Some(&end) => match index.checked_sub(1) {
                Some(before) => self.ends[before]..end,
                None => 0..end,
            },
            None => 0..0,
        }
    }

    /// Where each string ends in the text: ascending, the last at its end, each on a character
    /// boundary.
    pub(crate) fn ends(&self) -> &[usize] {
        &self.ends
    }

    /// The text and where each string ends in it.
    pub(crate) fn into_parts(self) -> (S, Vec<usize>) {
        (self.bytes, self.ends)
    }

    /// The byte length of each string.
    fn lengths(&self) -> impl Iterator<Item = usize> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        self.ends
            .iter()
            .zip(starts)
            .map(|(&end, start)| end - start)
    }
}

impl<S: AsRef<str>> StrColumn<S> {
    /// The bytes of the strings and of where they end.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.as_ref().len() + size_of_val(self.ends.as_slice())
    }

    /// The strings back to back.
    pub(crate) fn text(&self) -> &str {
        self.bytes.as_ref()
    }

    /// String `index`, or "" past the end.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> &str {
        slice(self.bytes.as_ref(), self.span(index))
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl<'t> StrColumn<&'t str> {
    /// String `index`, for as long as the text it is lent from; "" past the end.
    #[inline]
    fn get_lent(&self, index: usize) -> &'t str {
        slice(self.bytes, self.span(index))
    }

    /// The same column, its text held as a `Cow`.
    fn into_cow(self) -> StrColumn<Cow<'t, str>> {
        StrColumn {
            bytes: Cow::Borrowed(self.bytes),
            ends: self.ends,
        }
    }
}

impl<'t> StrColumn<Cow<'t, str>> {
    /// The decoded column of the strings of `text` that end at `ends`, which ascend to the
    /// text's length (as [`plain_ends`] and [`string_ends`] make them), if the text is UTF-8 and
    /// each end a character boundary of it. ASCII text, the common case, takes one pass: every
    /// end in it is a boundary.
    #[allow(unsafe_code)]
    fn of_text(text: Cow<'t, [u8]>, ends: Vec<usize>) -> Result<Self, DecodeError> {
        debug_assert!(ends.is_sorted());
        if ends.last().copied().unwrap_or_default() != text.len() {
            return Err(corrupt("string lengths do not add up to the string bytes"));
        }
        if !text.is_ascii() {
            check_boundaries(&ends, std::str::from_utf8(&text).map_err(not_utf8)?)?;
        }
        let text = match text {
            // SAFETY: the text is ASCII, or `from_utf8` has just found it UTF-8.
            Cow::Borrowed(bytes) => Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) }),
            // SAFETY: as above.
            Cow::Owned(bytes) => Cow::Owned(unsafe { String::from_utf8_unchecked(bytes) }),
        };
        Ok(StrColumn { bytes: text, ends })
    }

    /// String `index` for as long as the text it is lent from, if the text is lent ("" past the
    /// end); `None` if the column owns its text.
    #[inline]
    fn lent(&self, index: usize) -> Option<&'t str> {
        match &self.bytes {
            Cow::Borrowed(text) => Some(slice(text, self.span(index))),
            Cow::Owned(_) => None,
        }
    }

    /// The same column lent for `'t`: from the stream's bytes if they are, else from `kept`.
    fn lend(self, kept: Option<KeptBranch<'t>>) -> Result<StrColumn<&'t str>, DecodeError> {
        match (self.bytes, kept) {
            (Cow::Borrowed(text), _) => Ok(StrColumn {
                bytes: text,
                ends: self.ends,
            }),
            (Cow::Owned(text), Some(kept)) => {
                // The store keeps the text where it is, or gives back the copy it kept when the
                // branch was decoded before: only a copy needs its ends checked.
                let place = (text.as_ptr(), text.len());
                let lent = kept.text(text);
                if (lent.as_ptr(), lent.len()) != place {
                    check_ends(&self.ends, lent)?;
                }
                Ok(StrColumn {
                    bytes: lent,
                    ends: self.ends,
                })
            }
            (Cow::Owned(_), None) => Err(not_lent("strings")),
        }
    }

    /// The same column, owning its text.
    fn into_owned<'u>(self) -> StrColumn<Cow<'u, str>> {
        StrColumn {
            bytes: Cow::Owned(self.bytes.into_owned()),
            ends: self.ends,
        }
    }
}

/// The string at `span` of `text`, whose ends are character boundaries of it.
#[inline]
#[allow(unsafe_code)]
fn slice(text: &str, span: Range<usize>) -> &str {
    debug_assert!(text.get(span.clone()).is_some());
    // SAFETY: `span` comes from `StrColumn::span`, whose ends are character boundaries of the
    // column's text in ascending order (the type's invariant), or 0..0.
    unsafe { text.get_unchecked(span) }
}

/// Checks that `ends` ascend and that each is a character boundary of `text`: then each string
/// is valid UTF-8 and lies within it. Passes without a branch per string, which the compiler
/// can vectorize; in ASCII text every byte starts a character.
fn check_ends(ends: &[usize], text: &str) -> Result<(), DecodeError> {
    let (ascending, _) = (ends.iter()).fold((true, 0), |(ascending, start), &end| {
        (ascending & (start <= end), end)
    });
    if !ascending || ends.last().is_some_and(|&last| last > text.len()) {
        return Err(corrupt("string ends out of order or past the text"));
    }
    match text.is_ascii() {
        true => Ok(()),
        false => check_boundaries(ends, text),
    }
}

/// Checks that each of `ends` is a character boundary of `text`.
fn check_boundaries(ends: &[usize], text: &str) -> Result<(), DecodeError> {
    match ends.iter().all(|&end| text.is_char_boundary(end)) {
        true => Ok(()),
        false => Err(corrupt("a string ends inside a UTF-8 character")),
    }
}

/// Decoded strings: the strings themselves, or, from dictionary and keyed streams, an index for
/// each into a table that holds the strings they stand for once.
#[derive(Debug)]
pub enum Strings<S = String> {
    Plain(StrColumn<S>),
    Indexed {
        table: StrColumn<S>,
        indices: Vec<u32>,
    },
}

impl<S: Default> Default for Strings<S> {
    fn default() -> Self {
        Strings::Plain(StrColumn::default())
    }
}

impl<S> Strings<S> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Strings::Plain(column) => column.len(),
            Strings::Indexed { indices, .. } => indices.len(),
        }
    }

    /// The column and the position in it that hold string `index`: `None` past the end.
    #[inline]
    fn locate(&self, index: usize) -> Option<(&StrColumn<S>, usize)> {
        match self {
            Strings::Plain(column) => Some((column, index)),
            Strings::Indexed { table, indices } => Some((table, *indices.get(index)? as usize)),
        }
    }

    /// The same strings with their column or table made into another form of it.
    fn map_column<U, E>(
        self,
        column: impl FnOnce(StrColumn<S>) -> Result<StrColumn<U>, E>,
    ) -> Result<Strings<U>, E> {
        Ok(match self {
            Strings::Plain(plain) => Strings::Plain(column(plain)?),
            Strings::Indexed { table, indices } => Strings::Indexed {
                table: column(table)?,
                indices,
            },
        })
    }

    /// Asks the processor to start loading where string `index` + [`PREFETCH_AHEAD`] is found
    /// (its end, or its index into the table), for a decoder that takes the strings in order.
    #[inline(always)]
    pub(crate) fn prefetch_ahead_of(&self, index: usize) {
        match self {
            Strings::Plain(column) => prefetch(&column.ends, index + PREFETCH_AHEAD),
            Strings::Indexed { indices, .. } => prefetch(indices, index + PREFETCH_AHEAD),
        }
    }
}

/// How far ahead of the string being taken [`Strings::prefetch_ahead_of`] asks for: two cache
/// lines of ends, one of indices.
const PREFETCH_AHEAD: usize = 16;

impl<S: AsRef<str>> Strings<S> {
    /// String `index`, or "" past the end.
    #[inline]
    pub(crate) fn get(&self, index: usize) -> &str {
        match self.locate(index) {
            Some((column, at)) => column.get(at),
            None => "",
        }
    }

    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i))
    }
}

impl<'t> Strings<&'t str> {
    /// String `index`, for as long as the text it is lent from; "" past the end.
    #[inline]
    pub(crate) fn get_lent(&self, index: usize) -> &'t str {
        match self.locate(index) {
            Some((column, at)) => column.get_lent(at),
            None => "",
        }
    }
}

impl<'t> DecodedStrings<'t> {
    /// String `index` for as long as the text it is lent from, if the text is lent ("" past the
    /// end); `None` if the strings own their text.
    #[inline]
    pub(crate) fn lent(&self, index: usize) -> Option<&'t str> {
        match self.locate(index) {
            Some((column, at)) => column.lent(at),
            None => Some(""),
        }
    }

    /// The strings lent for `'t`: from the stream's bytes if they are, else from `kept`, which
    /// keeps the text. An error if the text is neither lent nor can be kept.
    pub(crate) fn lend(
        self,
        kept: Option<KeptBranch<'t>>,
    ) -> Result<Strings<&'t str>, DecodeError> {
        self.map_column(|column| column.lend(kept))
    }

    /// The strings lent for `'t` as [`Self::lend`] lends them, their text held as a `Cow` again.
    pub(crate) fn lend_as_cow(self, kept: KeptBranch<'t>) -> Result<Self, DecodeError> {
        self.map_column(|column| Ok(column.lend(Some(kept))?.into_cow()))
    }

    /// The strings as a plain column, for a table that nests another stream's strings.
    fn into_plain(self) -> StrColumn<Cow<'t, str>> {
        match self {
            Strings::Plain(column) => column,
            indexed => {
                let mut column = StrColumn::default();
                (0..indexed.len()).for_each(|i| column.push(indexed.get(i)));
                column.into_decoded()
            }
        }
    }
}

/// Encodes `column`; gives the version the stream needs, and the column's ranks when it may key
/// another column or be keyed ([`Ranks::keyable`]): the dictionary is made from them, so they
/// are found once for both.
pub(crate) fn encode(
    column: &StrColumn,
    settings: &Settings,
    out: &mut Vec<u8>,
) -> (Version, Option<Ranks>) {
    let ranks = Ranks::keyable(column);
    let text = TextCost::of(column.text(), settings);
    let dictionary = ranks
        .as_ref()
        .and_then(|ranks| Dictionary::of(column, ranks, settings));
    // Text as it is, which zstd may compress, takes the dictionary as it always did; coded text
    // takes it only where it beats the coded column.
    let as_is = dictionary
        .as_ref()
        .filter(|d| d.smaller(column, TextCost::AS_IS));
    let coded = dictionary.as_ref().filter(|d| d.smaller(column, text));
    // Coded text costs about what a zstd frame does to decode, so a frame that saves less than
    // the settings ask of one over text as it is still beats it: between the two the smaller
    // wins (where the settings keep frames for their savings at all).
    let codes = coded.map_or(text, |d| d.text).coded_per_kib.is_some();
    let frame_saving = match codes && settings.zstd_enough_saving != usize::MAX {
        true => 1,
        false => settings.zstd_enough_saving,
    };
    // The column may be encoded twice (with and without whole-byte codecs) with the dictionary
    // and the text's cost found once; the samples the zstd stage judges it by find their own
    // dictionary, and keep their text as it is: the stage takes zstd's gain on the column to be
    // in proportion to its gain on a sample, and a sample's dictionary, whose text coding would
    // shrink, holds more of it than the column's does.
    let version = zstd::best_of_saving(
        settings,
        frame_saving,
        column,
        1,
        out,
        |part, part_settings, out| {
            if std::ptr::eq(part, column) {
                let (text, dictionary) = match TextCost::allowed(part_settings) {
                    true => (text, coded),
                    false => (TextCost::AS_IS, as_is),
                };
                encode_with(part, dictionary, text, part_settings, out)
            } else {
                let ranks = Ranks::keyable(part);
                // Whole-byte codecs keep text as it is, the dictionary's too.
                let dictionary = (ranks.as_ref())
                    .and_then(|ranks| Dictionary::of(part, ranks, &part_settings.byte_aligned()))
                    .filter(|d| d.smaller(part, TextCost::AS_IS));
                encode_with(
                    part,
                    dictionary.as_ref(),
                    TextCost::AS_IS,
                    part_settings,
                    out,
                )
            }
        },
    );
    (version, ranks)
}

/// `column` through its dictionary, if any, else plainly, its text costing `text`.
fn encode_with(
    column: &StrColumn,
    dictionary: Option<&Dictionary<'_>>,
    text: TextCost,
    settings: &Settings,
    out: &mut Vec<u8>,
) -> Version {
    match dictionary {
        Some(dictionary) => dictionary.encode(settings, out),
        None => encode_plain(column, text, settings, out),
    }
}

/// What the text of a plain stream should cost: its bytes as they are, or coded as an integer
/// stream of 8-bit values (format version 9). Text of few distinct bytes, or of skewed byte
/// frequencies (digits, codes, flags), takes fewer bits a byte so, Huffman coded or packed.
/// Coded text costs about what a zstd frame does to decode, and zstd, which also finds repeats,
/// competes with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TextCost {
    /// The estimated bytes of 1024 bytes of text coded, if coding saves enough.
    coded_per_kib: Option<usize>,
}

impl TextCost {
    /// Below this many bytes, text stays as it is where smaller files are not asked for: coding
    /// it costs a pass, a code table and its streams on top of the zstd frame tried in full on
    /// such a column, which mostly beats it there (on the GraphQL response all text this short
    /// that coding halves, digits, zstd shrank further), for at most a few kilobytes.
    const MIN_CODED: usize = 64 << 10;

    /// Text kept as it is.
    const AS_IS: TextCost = TextCost {
        coded_per_kib: None,
    };

    /// The cost of `text` in a stream encoded with `settings`, judged by the Huffman codes of
    /// its bytes' frequencies (one pass over them) and their table.
    fn of(text: &str, settings: &Settings) -> TextCost {
        // Where any saving counts, text is coded from the length a Huffman table may pay at.
        let smaller = settings.zstd_enough_saving <= 1;
        let least = if smaller {
            int::HUFFMAN_MIN_VALUES
        } else {
            Self::MIN_CODED
        };
        if !Self::allowed(settings) || text.len() < least {
            return Self::AS_IS;
        }
        let mut counts = zstd::ByteCounts::default();
        counts.add(text.as_bytes());
        let coded = coded_estimate(&counts.occurring().collect::<Vec<_>>());
        // Coding is tried on every column it may win, at a cost in encoding time: it must
        // halve the text, or, where the settings keep any saving (smaller files), save at all.
        let pays = coded <= text.len() / 2 || (smaller && coded < text.len());
        if !pays {
            return Self::AS_IS;
        }
        TextCost {
            coded_per_kib: Some((coded * 1024).div_ceil(text.len())),
        }
    }

    /// Whether `settings` may code text: a stream for zstd keeps its bytes, whose repeats zstd
    /// finds.
    fn allowed(settings: &Settings) -> bool {
        !settings.byte_aligned && settings.newest >= Version::CODED_TEXT
    }

    /// The cost for a stream encoded with `settings`, which may not allow coding.
    fn under(self, settings: &Settings) -> TextCost {
        match Self::allowed(settings) {
            true => self,
            false => Self::AS_IS,
        }
    }

    /// The estimated bytes of `len` bytes of such text.
    fn bytes(self, len: usize) -> usize {
        self.coded_per_kib
            .map_or(len, |per_kib| (len * per_kib).div_ceil(1024))
    }
}

impl zstd::Sampled for StrColumn {
    // Text shows repeats and skewed bytes: on the real datasets 20 of 24 small string streams
    // passed the guess, whose cost is about two thirds of compressing them.
    const GUESS_SMALL: bool = false;

    fn len(&self) -> usize {
        StrColumn::len(self)
    }

    fn aligned_bytes_per_value(&self) -> usize {
        // The bytes, and a length of a byte or two.
        self.bytes.len() / self.ends.len().max(1) + 2
    }

    fn windows(&self, window: usize, count: usize) -> Cow<'_, Self> {
        let Some(starts) = zstd::window_starts(self.len(), window, count) else {
            return Cow::Borrowed(self);
        };
        // Room made once, as for a slice's sample: the text taken at the column's average length.
        let strings = window * count;
        let mut sample = StrColumn {
            bytes: String::with_capacity(self.bytes.len() / self.len().max(1) * strings),
            ends: Vec::with_capacity(strings),
        };
        for start in starts {
            sample.append_range(self, start..start + window);
        }
        Cow::Owned(sample)
    }
}

/// Writes `column` as a plain stream, or as coded text where `text` says coding its text pays
/// and it does.
fn encode_plain(
    column: &StrColumn,
    text: TextCost,
    settings: &Settings,
    out: &mut Vec<u8>,
) -> Version {
    let tag = out.len();
    out.push(StrTag::Plain as u8);
    let lengths: Vec<u64> = column.lengths().map(|length| length as u64).collect();
    let version = encode_nested_prefixed(&lengths, settings, Chain::default(), out);
    let bytes = column.text().as_bytes();
    if text.coded_per_kib.is_some() {
        let start = out.len();
        // Transforms are not tried: text's bytes come in words and numbers, not in runs or
        // steps, and a transform's price, which leaves Huffman codes out, would mislead.
        let coded = encode_best_leaf(bytes, settings, Chain::default(), out);
        // The estimate is of the Huffman codes, which a leaf codec may beat (few distinct
        // bytes, packed) and whose table may take more than the bytes save.
        if settings.keeps_zstd(out.len() - start, bytes.len()) {
            out[tag] = StrTag::Coded as u8;
            return version.max(coded).max(Version::CODED_TEXT);
        }
        out.truncate(start);
    }
    out.extend_from_slice(bytes);
    version
}

/// The plain form's size, roughly: the text at its cost, and the lengths: a byte each beside
/// text as it is, which zstd may then compress (the dictionary's fewer strings compress better,
/// which a byte a length allows for), and coded by their frequencies beside coded text.
fn plain_estimate(column: &StrColumn, text: TextCost) -> usize {
    let lengths = match text.coded_per_kib {
        Some(_) => lengths_estimate(column),
        None => column.len(),
    };
    text.bytes(column.text().len()) + lengths
}

/// The bytes the lengths of `column`'s strings should take: a byte each when they are few, else
/// Huffman coded by their frequencies, a length of 255 or more as if two bytes more.
fn lengths_estimate(column: &StrColumn) -> usize {
    if column.len() < int::HUFFMAN_MIN_VALUES {
        return column.len();
    }
    let mut counts = [0u64; 256];
    for length in column.lengths() {
        counts[length.min(255)] += 1;
    }
    let weights: Vec<u64> = counts.iter().copied().filter(|&count| count > 0).collect();
    coded_estimate(&weights) + 2 * counts[255] as usize
}

/// The bytes of symbols of `weights` (all positive) Huffman coded, with a table of about two
/// bytes a symbol.
fn coded_estimate(weights: &[u64]) -> usize {
    int::huffman_code_bits(weights).div_ceil(8) as usize + 2 * weights.len()
}

/// The distinct strings of a column and an index into them for each string.
struct Dictionary<'a> {
    distinct: StrColumn,
    /// What the distinct strings' text costs.
    text: TextCost,
    indices: Cow<'a, [u32]>,
}

impl<'a> Dictionary<'a> {
    /// The dictionary of `column`, whose ranks are `ranks`, when at most half its strings are
    /// distinct, for a stream encoded with `settings`: its strings in order of first appearance,
    /// or sorted where the indices then step less from one string to the next
    /// ([`sorted_dictionary`]).
    fn of(column: &StrColumn, ranks: &'a Ranks, settings: &Settings) -> Option<Dictionary<'a>> {
        if ranks.firsts.len() > column.len() / 2 {
            return None;
        }
        Some(match sorted_dictionary(column, ranks) {
            Some((distinct, indices)) => Dictionary::new(distinct, Cow::Owned(indices), settings),
            None => Dictionary::in_order_of_appearance(column, ranks, settings),
        })
    }

    /// The dictionary of `column`, whose ranks are `ranks`, with its strings in order of first
    /// appearance: the ranks are its indices.
    fn in_order_of_appearance(
        column: &StrColumn,
        ranks: &'a Ranks,
        settings: &Settings,
    ) -> Dictionary<'a> {
        let mut distinct = StrColumn::default();
        for &at in &ranks.firsts {
            distinct.push(column.get(at));
        }
        Dictionary::new(distinct, Cow::Borrowed(&ranks.ranks), settings)
    }

    fn new(distinct: StrColumn, indices: Cow<'a, [u32]>, settings: &Settings) -> Dictionary<'a> {
        Dictionary {
            text: TextCost::of(distinct.text(), settings),
            distinct,
            indices,
        }
    }

    /// Its size, roughly: the distinct strings plainly (coded where the column's text is, and
    /// theirs pays), and bit-packed indices.
    fn estimate(&self, text: TextCost) -> usize {
        let text = match text.coded_per_kib {
            Some(_) => self.text,
            None => TextCost::AS_IS,
        };
        let index_bits = int::bit_width(self.distinct.len().saturating_sub(1) as u64) as usize;
        plain_estimate(&self.distinct, text) + (self.indices.len() * index_bits).div_ceil(8)
    }

    /// Whether it is smaller than the plain form of `column` (its strings), whose text costs
    /// `text`.
    fn smaller(&self, column: &StrColumn, text: TextCost) -> bool {
        self.estimate(text) < plain_estimate(column, text)
    }

    fn encode(&self, settings: &Settings, out: &mut Vec<u8>) -> Version {
        out.push(StrTag::Dictionary as u8);
        write_varint(out, self.distinct.len() as u64);
        let mut nested = Vec::new();
        let text = self.text.under(settings);
        let distinct = encode_plain(&self.distinct, text, settings, &mut nested);
        write_prefixed(out, &nested);
        distinct.max(encode_nested(
            &self.indices,
            settings,
            Chain::default(),
            out,
        ))
    }
}

/// Neighbours looked at to tell whether a column's strings mostly ascend.
const ORDER_SAMPLE: usize = 128;

/// The distinct strings of `column` (whose ranks are `ranks`) sorted, and the index of each of
/// its strings among them, when the indices then differ less from their neighbours than in
/// order of first appearance (their zigzagged differences take fewer bits in all). A column
/// sorted within runs of rows (the players of each season, sorted by name) steps through a
/// sorted dictionary in short strides, where the order of first appearance scatters them; one
/// whose new strings come in over time (teams, parks) keeps that order. The strings are sorted
/// only when a sample of neighbours mostly ascends, which columns sorted so do.
fn sorted_dictionary(column: &StrColumn, ranks: &Ranks) -> Option<(StrColumn, Vec<u32>)> {
    let len = column.len();
    let step = (len / ORDER_SAMPLE).max(1);
    let (mut differ, mut ascend) = (0, 0);
    for at in (1..len).step_by(step) {
        if ranks.ranks[at] != ranks.ranks[at - 1] {
            differ += 1;
            ascend += usize::from(column.get(at) > column.get(at - 1));
        }
    }
    // At least three in four neighbours that differ ascend.
    if differ == 0 || ascend * 4 < differ * 3 {
        return None;
    }
    // Each distinct string with its rank: distinct, so the order is total.
    let mut sorted: Vec<(&str, u32)> = (ranks.firsts.iter().zip(0..))
        .map(|(&at, rank)| (column.get(at), rank))
        .collect();
    sorted.sort_unstable();
    let mut place = vec![0u32; sorted.len()];
    for (&(_, rank), index) in sorted.iter().zip(0..) {
        place[rank as usize] = index;
    }
    let indices: Vec<u32> = ranks
        .ranks
        .iter()
        .map(|&rank| place[rank as usize])
        .collect();
    if delta_bits(&indices) >= delta_bits(&ranks.ranks) {
        return None;
    }
    let mut distinct = StrColumn::default();
    distinct.reserve(sorted.len());
    for &(text, _) in &sorted {
        distinct.push(text);
    }
    Some((distinct, indices))
}

/// The bits of the zigzagged differences between neighbouring `indices`, added up.
fn delta_bits(indices: &[u32]) -> u64 {
    let mut previous = 0;
    (indices.iter())
        .map(|&index| {
            let delta = i64::from(index) - i64::from(previous);
            previous = index;
            u64::from(int::bit_width(int::transform::zigzag(delta as u64)))
        })
        .sum()
}

/// A column's strings as ranks in order of first appearance, which a keyed stream's table is
/// indexed by. Computed once per column, so that checking a pair of columns hashes nothing.
pub(crate) struct Ranks {
    ranks: Vec<u32>,
    /// The position where each rank first appears.
    firsts: Vec<usize>,
}

impl Ranks {
    /// The ranks of `column`, or `None` as soon as more than `max_distinct` of its strings are
    /// distinct.
    pub(crate) fn at_most<S: AsRef<str>>(
        column: &StrColumn<S>,
        max_distinct: usize,
    ) -> Option<Ranks> {
        /// Room for distinct strings reserved up front, so that small columns never grow it.
        const RESERVED: usize = 1 << 12;
        let capacity = column.len().min(max_distinct + 1).min(RESERVED);
        let mut numbering = Numbering::with_capacity(capacity);
        let mut firsts = Vec::new();
        let mut ranks: Vec<u32> = Vec::with_capacity(column.len());
        let mut previous = None;
        for (position, value) in column.iter().enumerate() {
            // Columns often repeat a string in runs: those need no hashing.
            if previous == Some(value) {
                ranks.extend(ranks.last().copied());
                continue;
            }
            previous = Some(value);
            let rank = numbering.number(value.as_bytes());
            if rank as usize == firsts.len() {
                firsts.push(position);
                if firsts.len() > max_distinct {
                    return None;
                }
            }
            ranks.push(rank);
        }
        Some(Ranks { ranks, firsts })
    }

    /// The ranks of a column that may key another or be keyed: one with at most the distinct
    /// strings a source may have (half the column) plus the exceptions (an eighth), as
    /// [`encode_keyed`] allows.
    pub(crate) fn keyable(column: &StrColumn) -> Option<Ranks> {
        Ranks::at_most(column, column.len() / 2 + column.len() / 8)
    }
}

/// `column` (whose ranks are `ranks`) as a keyed stream over the column of branch
/// `source_branch`, whose ranks are `source`, if that is smaller than `own_size`, the size of
/// the column's own stream. `None` also when the source has too many distinct strings, or too
/// many of the column's strings disagree with the first one seen for their key, for keying to pay.
pub(crate) fn encode_keyed(
    source_branch: usize,
    source: &Ranks,
    column: &StrColumn,
    ranks: &Ranks,
    own_size: usize,
    settings: &Settings,
) -> Option<(Vec<u8>, Version)> {
    debug_assert_eq!(source.ranks.len(), column.len());
    // Past these, the table or the exceptions would hold most of the column again.
    if source.firsts.len() > column.len() / 2 {
        return None;
    }
    let max_exceptions = column.len() / 8;
    // The column's rank where each key first appears: its table entry.
    let expected: Vec<u32> = source.firsts.iter().map(|&at| ranks.ranks[at]).collect();
    let mut positions: Vec<u64> = Vec::new();
    for (position, (&key, &rank)) in source.ranks.iter().zip(&ranks.ranks).enumerate() {
        if expected[key as usize] != rank {
            positions.push(position as u64);
            if positions.len() > max_exceptions {
                return None;
            }
        }
    }
    let mut table = StrColumn::default();
    for &at in &source.firsts {
        table.push(column.get(at));
    }
    // A table several times the size of the column's own stream will not compress below it.
    if plain_estimate(&table, TextCost::AS_IS) > own_size.saturating_mul(4) {
        return None;
    }
    let mut out = vec![StrTag::Keyed as u8];
    write_varint(&mut out, source_branch as u64);
    write_varint(&mut out, table.len() as u64);
    // The table and the exceptions key nothing: their ranks are not needed.
    let mut nested = Vec::new();
    let mut version = Version::KEYED.max(encode(&table, settings, &mut nested).0);
    write_prefixed(&mut out, &nested);
    write_varint(&mut out, positions.len() as u64);
    if !positions.is_empty() {
        let mut exceptions = StrColumn::default();
        for &at in &positions {
            exceptions.push(column.get(at as usize));
        }
        version = version.max(encode_nested_prefixed(
            &positions,
            settings,
            Chain::default(),
            &mut out,
        ));
        version = version.max(encode(&exceptions, settings, &mut out).0);
    }
    (out.len() < own_size).then_some((out, version))
}

/// A keyed stream's header.
struct Keyed<'a> {
    source: usize,
    distinct: usize,
    table: &'a [u8],
    exceptions: usize,
    /// Both empty when there are no exceptions.
    positions: &'a [u8],
    values: &'a [u8],
}

impl<'a> Keyed<'a> {
    /// Reads the header from `body`, the bytes after the tag.
    fn parse(body: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(body);
        let source = reader.varint()?;
        let source = usize::try_from(source).map_err(|_| corrupt(format!("no branch {source}")))?;
        let distinct = reader.count(0)?;
        let table = reader.prefixed()?;
        let exceptions = reader.count(0)?;
        let (positions, values) = if exceptions == 0 {
            reader.finish("a keyed string stream")?;
            (&[][..], &[][..])
        } else {
            (reader.prefixed()?, reader.rest())
        };
        Ok(Keyed {
            source,
            distinct,
            table,
            exceptions,
            positions,
            values,
        })
    }
}

/// A string stream's header, parsed once by [`StrStream::parse`]: the codec, its parameters, and
/// the streams it nests (still encoded).
enum StrStream<'a> {
    Plain {
        lengths: &'a [u8],
        text: &'a [u8],
    },
    Coded {
        lengths: &'a [u8],
        bytes: &'a [u8],
    },
    Dictionary {
        distinct: usize,
        values: &'a [u8],
        indices: &'a [u8],
    },
    Keyed(Keyed<'a>),
    Zstd(Frame<'a>),
}

impl<'a> StrStream<'a> {
    /// Reads the header of the stream `bytes`.
    fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(bytes);
        Ok(match StrTag::try_from(reader.u8()?)? {
            StrTag::Plain => StrStream::Plain {
                lengths: reader.prefixed()?,
                text: reader.rest(),
            },
            StrTag::Coded => StrStream::Coded {
                lengths: reader.prefixed()?,
                bytes: reader.rest(),
            },
            StrTag::Dictionary => StrStream::Dictionary {
                distinct: reader.count(0)?,
                values: reader.prefixed()?,
                indices: reader.rest(),
            },
            StrTag::Keyed => StrStream::Keyed(Keyed::parse(reader.rest())?),
            StrTag::Zstd => StrStream::Zstd(Frame::parse(reader.rest())?),
        })
    }

    /// The stream's `count` strings; it is nested `depth` levels deep. A keyed stream is
    /// decoded by [`decode_keyed`], which has its source.
    fn decode(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
    ) -> Result<DecodedStrings<'a>, DecodeError> {
        match self {
            StrStream::Plain { lengths, text } => {
                let ends = plain_ends(lengths, text.len(), count, budget, depth)?;
                StrColumn::of_text(Cow::Borrowed(text), ends).map(Strings::Plain)
            }
            StrStream::Coded { lengths, bytes } => {
                budget.require(Version::CODED_TEXT, "coded text")?;
                let ends = string_ends(lengths, count, budget, depth)?;
                let text_len = ends.last().copied().unwrap_or_default();
                budget.charge(text_len, 1)?;
                let bytes = int::decode_nested::<u8>(bytes, text_len, budget, depth + 1)?;
                StrColumn::of_text(Cow::Owned(bytes), ends).map(Strings::Plain)
            }
            StrStream::Dictionary {
                distinct,
                values,
                indices,
            } => {
                if distinct > count || (distinct == 0 && count > 0) {
                    return Err(corrupt(format!(
                        "{distinct} dictionary strings for {count} values"
                    )));
                }
                budget.charge(distinct, size_of::<Range<usize>>())?;
                let table = decode_nested(values, distinct, budget, depth + 1)?.into_plain();
                budget.charge(count, 4)?;
                let indices = int::decode_nested::<u32>(indices, count, budget, depth + 1)?;
                // Every value becomes a string of its own: charge the text the indices stand
                // for, which can be far more than the dictionary holds.
                let text = indexed_text(&table, &indices).ok_or_else(|| {
                    let past = indices.iter().find(|&&i| i as usize >= table.len());
                    corrupt(format!(
                        "string index {} past the {distinct} entries",
                        past.copied().unwrap_or_default()
                    ))
                })?;
                budget.charge(text, 1)?;
                Ok(Strings::Indexed { table, indices })
            }
            StrStream::Keyed(_) => Err(corrupt(
                "a keyed string stream where only the top of a branch may have one",
            )),
            StrStream::Zstd(frame) => {
                let inner = frame.decompress(usize::MAX, budget)?;
                decode_owned(inner, count, budget, depth + 1)
            }
        }
    }

    fn describe(self, at: Describer) -> (Codec, Vec<Encoding>) {
        let strings = |bytes| describe(bytes, at.nested());
        match self {
            StrStream::Plain { lengths, .. } => (
                Codec::Plain,
                vec![int::describe::<u64>(lengths, at.nested())],
            ),
            StrStream::Coded { lengths, bytes } => (
                Codec::CodedText,
                vec![
                    int::describe::<u64>(lengths, at.nested()),
                    int::describe::<u8>(bytes, at.nested()),
                ],
            ),
            StrStream::Dictionary {
                distinct,
                values,
                indices,
            } => (
                Codec::StrDictionary {
                    distinct: distinct as u64,
                },
                vec![strings(values), int::describe::<u32>(indices, at.nested())],
            ),
            StrStream::Keyed(keyed) => {
                let mut children = vec![strings(keyed.table)];
                if keyed.exceptions > 0 {
                    children.push(int::describe::<u64>(keyed.positions, at.nested()));
                    children.push(strings(keyed.values));
                }
                let codec = Codec::Keyed {
                    source_branch: keyed.source,
                    source_path: None,
                    distinct: keyed.distinct as u64,
                    exceptions: keyed.exceptions as u64,
                };
                (codec, children)
            }
            StrStream::Zstd(frame) => frame.describe(at, describe),
        }
    }
}

/// The source branch of a keyed stream; `None` for a stream of any other kind.
pub(crate) fn keyed_source(bytes: &[u8]) -> Option<Result<usize, DecodeError>> {
    let body = bytes.strip_prefix(&[StrTag::Keyed as u8])?;
    Some(Keyed::parse(body).map(|keyed| keyed.source))
}

/// Decodes a keyed stream of `count` strings over `source`, the decoded strings of its source
/// branch. The caller has charged the budget for the spans; string bytes are charged here.
pub(crate) fn decode_keyed<'t, S: AsRef<str>>(
    bytes: &'t [u8],
    source: &Strings<S>,
    count: usize,
    budget: &mut Budget,
) -> Result<DecodedStrings<'t>, DecodeError> {
    let StrStream::Keyed(keyed) = StrStream::parse(bytes)? else {
        return Err(corrupt("not a keyed string stream"));
    };
    if source.len() != count {
        return Err(corrupt(format!(
            "{count} strings keyed by {} source strings",
            source.len()
        )));
    }
    let Keyed {
        distinct,
        exceptions: exception_count,
        ..
    } = keyed;
    if distinct > count || (distinct == 0 && count > 0) {
        return Err(corrupt(format!(
            "{distinct} keyed table strings for {count} values"
        )));
    }
    // The table's spans, and the keys' ranks worked out below.
    budget.charge(distinct, size_of::<Range<usize>>() + 3 * size_of::<usize>())?;
    budget.charge(count, size_of::<u32>())?;
    let table = decode_nested(keyed.table, distinct, budget, 1)?.into_plain();
    if exception_count > count {
        return Err(corrupt(format!(
            "{exception_count} exceptions among {count} keyed strings"
        )));
    }
    let (positions, exceptions) = if exception_count == 0 {
        (Vec::new(), StrColumn::default())
    } else {
        budget.charge(exception_count, 8 + size_of::<Range<usize>>())?;
        let positions = int::decode_nested::<u64>(keyed.positions, exception_count, budget, 1)?;
        let exceptions = decode_nested(keyed.values, exception_count, budget, 1)?.into_plain();
        (positions, exceptions)
    };

    let (mut indices, keys) = key_ranks(source, distinct).ok_or_else(|| {
        corrupt(format!(
            "more distinct keys than the {distinct} keyed table strings"
        ))
    })?;
    if keys != distinct || table.len() != distinct {
        return Err(corrupt(format!(
            "{keys} distinct keys for {distinct} keyed table strings"
        )));
    }
    // Each string is the table's entry for its key's rank, the exceptions' strings following
    // the table's.
    let (Ok(first_exception), Ok(_)) = (
        u32::try_from(distinct),
        u32::try_from(distinct + exception_count),
    ) else {
        return Err(corrupt(format!(
            "{distinct} keyed table strings and {exception_count} exceptions are more than \
             32-bit indices reach"
        )));
    };
    let mut next_free = 0;
    for (exception, &position) in (first_exception..).zip(&positions) {
        let slot = usize::try_from(position)
            .ok()
            .filter(|&position| position >= next_free)
            .and_then(|position| Some((position, indices.get_mut(position)?)));
        let Some((position, slot)) = slot else {
            return Err(corrupt(
                "keyed exception positions are not ascending positions of the column",
            ));
        };
        *slot = exception;
        next_free = position + 1;
    }
    // The exceptions' strings follow the table's: the table is copied only if there are any.
    let table = if exceptions.len() == 0 {
        table
    } else {
        let mut joined = StrColumn::default();
        joined.append(&table);
        joined.append(&exceptions);
        joined.into_decoded()
    };
    // As for a dictionary: charge the text the strings stand for (every index is in the table,
    // a key's rank or an exception's place after it).
    budget.charge(indexed_text(&table, &indices).unwrap_or(usize::MAX), 1)?;
    Ok(Strings::Indexed { table, indices })
}

/// The ends of the `count` strings of a plain stream in its text of `text_len` bytes, from the
/// int stream of their lengths, `lengths`; the text is charged to the budget.
fn plain_ends(
    lengths: &[u8],
    text_len: usize,
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<usize>, DecodeError> {
    let ends = string_ends(lengths, count, budget, depth)?;
    budget.charge(text_len, 1)?;
    let end = ends.last().copied().unwrap_or_default();
    match end.cmp(&text_len) {
        std::cmp::Ordering::Greater => Err(corrupt("string lengths exceed the string bytes")),
        std::cmp::Ordering::Less => Err(corrupt(format!(
            "{} string bytes left over",
            text_len - end
        ))),
        std::cmp::Ordering::Equal => Ok(ends),
    }
}

/// Where each of `count` strings ends in their text, from the int stream of their byte lengths,
/// `lengths`. Once a sum overflows it stays at `usize::MAX`, which no text is long.
fn string_ends(
    lengths: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<usize>, DecodeError> {
    let lengths = int::decode_nested::<u64>(lengths, count, budget, depth + 1)?;
    let mut end = 0usize;
    Ok((lengths.into_iter())
        .map(|length| {
            end = usize::try_from(length).map_or(usize::MAX, |length| end.saturating_add(length));
            end
        })
        .collect())
}

fn not_utf8(error: std::str::Utf8Error) -> DecodeError {
    corrupt(format!("string bytes are not UTF-8: {error}"))
}

/// The bytes of all the strings that `indices` pick from `table`; `None` if an index is past
/// its end. One pass checks the indices and counts the text.
fn indexed_text<S>(table: &StrColumn<S>, indices: &[u32]) -> Option<usize> {
    let lengths: Vec<usize> = table.lengths().collect();
    (indices.iter()).try_fold(0usize, |sum, &index| {
        Some(sum.saturating_add(*lengths.get(index as usize)?))
    })
}

/// The rank of each of `source`'s strings in order of first appearance, and how many distinct
/// strings there are; `None` as soon as there are more than `max_distinct`.
fn key_ranks<S: AsRef<str>>(source: &Strings<S>, max_distinct: usize) -> Option<(Vec<u32>, usize)> {
    match source {
        Strings::Plain(column) => {
            let ranks = Ranks::at_most(column, max_distinct)?;
            let distinct = ranks.firsts.len();
            Some((ranks.ranks, distinct))
        }
        Strings::Indexed { table, indices } => {
            // The table's entries ranked by their strings (equal ones alike), then the strings
            // by the first appearance of those ranks: no string is hashed twice.
            let entries = Ranks::at_most(table, table.len())?;
            let mut rank_of_entry = vec![u32::MAX; entries.firsts.len()];
            let mut distinct = 0u32;
            let mut ranks = Vec::with_capacity(indices.len());
            for &index in indices {
                let entry = entries
                    .ranks
                    .get(index as usize)
                    .copied()
                    .unwrap_or_default();
                let rank = rank_of_entry.get_mut(entry as usize)?;
                if *rank == u32::MAX {
                    *rank = distinct;
                    distinct += 1;
                    if distinct as usize > max_distinct {
                        return None;
                    }
                }
                ranks.push(*rank);
            }
            Some((ranks, distinct as usize))
        }
    }
}

/// Decodes `count` strings, validating all of them. The caller has charged the budget for the
/// spans; string bytes are charged here.
pub(crate) fn decode<'t>(
    bytes: &'t [u8],
    count: usize,
    budget: &mut Budget,
) -> Result<DecodedStrings<'t>, DecodeError> {
    decode_nested(bytes, count, budget, 0)
}

fn decode_nested<'t>(
    bytes: &'t [u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<DecodedStrings<'t>, DecodeError> {
    check_depth(depth)?;
    if is_empty_form(bytes, count) {
        return Ok(Strings::default());
    }
    StrStream::parse(bytes)?.decode(count, budget, depth)
}

/// [`decode_nested`] for a stream the decoder owns (decompressed): a plain stream's text stays
/// where it is and becomes the column's, instead of being copied.
fn decode_owned<'t>(
    mut bytes: Vec<u8>,
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<DecodedStrings<'t>, DecodeError> {
    check_depth(depth)?;
    if is_empty_form(&bytes, count) {
        return Ok(Strings::default());
    }
    let (ends, text_start) = match StrStream::parse(&bytes)? {
        StrStream::Plain { lengths, text } => (
            plain_ends(lengths, text.len(), count, budget, depth)?,
            bytes.len() - text.len(),
        ),
        // What the stream holds besides its text is made anew, so its lifetime does not matter.
        other => return other.decode(count, budget, depth).map(owned_strings),
    };
    bytes.drain(..text_start);
    StrColumn::of_text(Cow::Owned(bytes), ends).map(Strings::Plain)
}

/// The error for a borrowed type whose `what` are not stored as they are.
pub(crate) fn not_lent(what: &str) -> DecodeError {
    DecodeError::new(
        DecodeErrorKind::SchemaMismatch,
        "",
        format!(
            "the type borrows these {what}, but the file does not hold them as they are (it \
             compressed or packed them): decode through a Reader, which keeps them, or own them \
             (String, Cow<str>, Vec<u8>)"
        ),
    )
}

/// Strings decoded from a stream the decoder owns, made to own their text.
fn owned_strings<'t>(strings: DecodedStrings<'_>) -> DecodedStrings<'t> {
    let owned = |column: StrColumn<Cow<'_, str>>| Ok::<_, Infallible>(column.into_owned());
    match strings.map_column(owned) {
        Ok(strings) => strings,
        Err(never) => match never {},
    }
}

/// The encoding of a string stream. A keyed stream names its source by branch index only.
pub(crate) fn describe(bytes: &[u8], at: Describer) -> Encoding {
    at.stream(bytes, StrStream::parse, StrStream::describe)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(bytes: &[u8]) -> String {
        describe(bytes, Describer::new(true)).to_string()
    }

    fn column(values: &[&str]) -> StrColumn {
        let mut column = StrColumn::default();
        for value in values {
            column.push(value);
        }
        column
    }

    #[test]
    fn a_sample_holds_the_strings_of_its_windows() {
        use crate::encodings::zstd::Sampled;
        let strings: Vec<String> = (0..1000)
            .map(|i| match i % 4 {
                0 => String::new(),
                1 => format!("é{i}"),
                _ => "ab".repeat(i % 7),
            })
            .collect();
        let values: Vec<&str> = strings.iter().map(String::as_str).collect();
        let whole = column(&values);
        for (window, count) in [(10, 8), (1, 3), (100, 9), (999, 1)] {
            let starts: Vec<usize> = zstd::window_starts(values.len(), window, count)
                .unwrap()
                .collect();
            let picked: Vec<&str> = (starts.iter())
                .flat_map(|&start| values[start..start + window].iter().copied())
                .collect();
            assert_eq!(*whole.windows(window, count), column(&picked));
        }
        assert!(matches!(whole.windows(100, 10), Cow::Borrowed(_)));
    }

    fn round_trip(column: &StrColumn, settings: &Settings) -> usize {
        let mut out = Vec::new();
        let _ = encode(column, settings, &mut out);
        let back = decode(&out, column.len(), &mut Budget::new(u64::MAX)).unwrap();
        assert!(
            back.iter().eq(column.iter()),
            "encoded as {}",
            described(&out)
        );
        out.len()
    }

    #[test]
    fn round_trips_unicode_and_empty_strings() {
        for settings in [Settings::fast(), Settings::default()] {
            round_trip(
                &column(&["", "a", "héllo", "🦀🦀", "", "plain ascii"]),
                &settings,
            );
            round_trip(&column(&[]), &settings);
        }
    }

    #[test]
    // zstd is C code, which Miri cannot run.
    #[cfg_attr(miri, ignore)]
    fn repeated_strings_use_a_dictionary_and_large_ones_zstd() {
        let names = ["Boston Red Sox", "New York Yankees", "Chicago Cubs"];
        let many: Vec<&str> = (0..3000).map(|i| names[i % 3]).collect();
        let size = round_trip(&column(&many), &Settings::fast());
        assert!(size < 3000, "{size} bytes");
        let text: Vec<String> = (0..3000)
            .map(|i| format!("player number {} of team {}", i % 97, names[i % 3]))
            .collect();
        let refs: Vec<&str> = text.iter().map(String::as_str).collect();
        let plain: usize = refs.iter().map(|s| s.len()).sum();
        let size = round_trip(&column(&refs), &Settings::default());
        assert!(size * 5 < plain, "{size} bytes for {plain}");
    }

    /// The dictionary `Dictionary::of` makes of `column`, and the bytes its stream takes then
    /// and with the strings in order of first appearance; checked to give back the column.
    fn dictionary_sizes(column: &StrColumn) -> (Vec<String>, usize, usize) {
        let settings = Settings::without_zstd();
        let ranks = Ranks::keyable(column).unwrap();
        let chosen = Dictionary::of(column, &ranks, &settings).unwrap();
        for (at, &index) in chosen.indices.iter().enumerate() {
            assert_eq!(chosen.distinct.get(index as usize), column.get(at));
        }
        let in_order = Dictionary::in_order_of_appearance(column, &ranks, &settings);
        let size = |dictionary: &Dictionary<'_>| {
            let mut out = Vec::new();
            let _ = dictionary.encode(&settings, &mut out);
            let back = decode(&out, column.len(), &mut Budget::new(u64::MAX)).unwrap();
            assert!(back.iter().eq(column.iter()), "{}", described(&out));
            out.len()
        };
        let distinct = chosen.distinct.iter().map(str::to_owned).collect();
        (distinct, size(&chosen), size(&in_order))
    }

    /// A column sorted within runs of rows (each season's players, by id) takes its dictionary
    /// sorted, whose indices then step in short strides; one in no order keeps the order of
    /// first appearance.
    #[test]
    fn dictionaries_are_sorted_where_their_indices_step_less() {
        let mut next = crate::encodings::xorshift(3);
        let mut seasons: Vec<String> = Vec::new();
        for _ in 0..40 {
            let mut season: Vec<String> = (0..100)
                .map(|_| format!("player{:04}", next() % 1000))
                .collect();
            season.sort_unstable();
            season.dedup();
            seasons.extend(season);
        }
        let sorted_within_seasons = column(&seasons.iter().map(String::as_str).collect::<Vec<_>>());
        let (distinct, sorted, in_order) = dictionary_sizes(&sorted_within_seasons);
        assert!(distinct.is_sorted(), "sorted");
        assert!(
            sorted * 10 < in_order * 9,
            "{sorted} bytes, {in_order} in order"
        );

        let shuffled: Vec<String> = (0..4000)
            .map(|_| format!("player{:04}", next() % 1000))
            .collect();
        let shuffled = column(&shuffled.iter().map(String::as_str).collect::<Vec<_>>());
        let (distinct, chosen, in_order) = dictionary_sizes(&shuffled);
        assert!(!distinct.is_sorted());
        assert_eq!(chosen, in_order);
    }

    fn keyed(source_branch: usize, source: &StrColumn, column: &StrColumn) -> Option<Vec<u8>> {
        let (source, ranks) = (Ranks::keyable(source)?, Ranks::keyable(column)?);
        let (stream, version) = encode_keyed(
            source_branch,
            &source,
            column,
            &ranks,
            usize::MAX,
            &Settings::fast(),
        )?;
        assert!(version >= Version::KEYED);
        Some(stream)
    }

    /// `column` as decoded strings both ways: plain, and indexed into a table that holds each
    /// string twice, used in turn (keys are ranked by string, not by table entry).
    fn decoded_forms(column: &StrColumn) -> [Strings; 2] {
        let ranks = Ranks::at_most(column, column.len()).unwrap();
        let mut table = StrColumn::default();
        for &at in &ranks.firsts {
            table.push(column.get(at));
            table.push(column.get(at));
        }
        let indices = (ranks.ranks.iter().enumerate())
            .map(|(position, &rank)| 2 * rank + (position % 2) as u32)
            .collect();
        [
            Strings::Plain(column.clone()),
            Strings::Indexed { table, indices },
        ]
    }

    /// Keys `column` by `source`, checks the round trip, and returns the stream.
    fn keyed_round_trip(source: &StrColumn, column: &StrColumn) -> Vec<u8> {
        let stream = keyed(3, source, column).expect("keyed");
        assert_eq!(keyed_source(&stream).unwrap().unwrap(), 3);
        for source in decoded_forms(source) {
            let back = decode_keyed(&stream, &source, column.len(), &mut Budget::new(u64::MAX))
                .unwrap_or_else(|e| panic!("{e}: {}", described(&stream)));
            assert!(back.iter().eq(column.iter()), "{}", described(&stream));
        }
        stream
    }

    #[test]
    fn keyed_streams_round_trip_with_and_without_exceptions() {
        let ids: Vec<String> = (0..400).map(|i| format!("id{:03}", i % 40)).collect();
        let ids = column(&ids.iter().map(String::as_str).collect::<Vec<_>>());
        let names: Vec<String> = (0..400).map(|i| format!("Name {}", i % 40)).collect();
        let mut names_refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let exact = keyed_round_trip(&ids, &column(&names_refs));
        assert!(
            described(&exact).contains("0 exceptions"),
            "{}",
            described(&exact)
        );
        // A player renamed in a few rows (none a key's first), the last one among them.
        names_refs[45] = "Renamed";
        names_refs[200] = "";
        names_refs[399] = "héllo 🦀";
        let with_exceptions = keyed_round_trip(&ids, &column(&names_refs));
        assert!(described(&with_exceptions).contains("3 exceptions"));
        keyed_round_trip(&column(&[]), &column(&[]));
        keyed_round_trip(&column(&["a", "a"]), &column(&["b", "b"]));
        // Unrelated columns are not worth keying.
        let unrelated: Vec<String> = (0..400).map(|i| format!("{}", i * 7 % 13)).collect();
        let unrelated = column(&unrelated.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(keyed(0, &ids, &unrelated).is_none());
        assert!(keyed(0, &unrelated, &ids).is_none());
    }

    #[test]
    fn descriptions_list_every_nested_stream() {
        let source = column(&["a", "b", "a", "c", "a", "b", "a", "c"]);
        let values = column(&["x", "y", "x", "z", "x", "q", "x", "z"]);
        let stream = keyed_round_trip(&source, &values);
        let encoding = describe(&stream, Describer::new(false));
        let Codec::Keyed {
            source_branch: 3,
            source_path: None,
            distinct: 3,
            exceptions: 1,
        } = encoding.codec
        else {
            panic!("{encoding:?}");
        };
        // The table, then the exceptions' positions and strings.
        assert_eq!(encoding.children.len(), 3);
        assert!(encoding
            .to_string()
            .starts_with("keyed(by branch 3, 3 strings: "));
        let mut dictionary = Vec::new();
        let _ = encode(&column(&["ab"; 40]), &Settings::fast(), &mut dictionary);
        assert_eq!(
            described(&dictionary),
            "dictionary(1 strings: plain(lengths: varint), indices: fixed(0 bytes))"
        );
    }

    #[test]
    fn hostile_keyed_streams_are_errors() {
        let source = column(&["a", "b", "a", "c", "a", "b", "a", "c"]);
        let values = column(&["x", "y", "x", "z", "x", "y", "x", "z"]);
        let good = keyed_round_trip(&source, &values);
        fn decode<'t>(
            bytes: &'t [u8],
            source: &StrColumn,
            count: usize,
        ) -> Result<DecodedStrings<'t>, DecodeError> {
            let [plain, indexed] = decoded_forms(source);
            let result = decode_keyed(bytes, &plain, count, &mut Budget::new(u64::MAX));
            let again = decode_keyed(bytes, &indexed, count, &mut Budget::new(u64::MAX));
            assert_eq!(result.is_ok(), again.is_ok());
            result
        }
        let short = column(&["a", "b", "a", "c", "a", "b", "a"]);
        assert!(decode(&good, &short, 8).is_err(), "a short source");
        let more_keys = column(&["a", "b", "a", "c", "a", "b", "a", "d"]);
        assert!(
            decode(&good, &more_keys, 8).is_err(),
            "more keys than entries"
        );
        let fewer_keys = column(&["a", "b", "a", "b", "a", "b", "a", "b"]);
        assert!(
            decode(&good, &fewer_keys, 8).is_err(),
            "fewer keys than entries"
        );
        assert!(
            decode(&good, &column(&[]), 0).is_err(),
            "a table for no values"
        );
        assert!(
            decode(&good[..good.len() - 1], &source, 8).is_err(),
            "truncated"
        );
        // Exceptions: hand-built, with positions out of order, repeated or past the end.
        for positions in [[2u64, 1], [1, 1], [1, 8]] {
            let mut stream = vec![StrTag::Keyed as u8, 3, 3];
            let mut table = Vec::new();
            let _ = encode(&column(&["x", "y", "z"]), &Settings::fast(), &mut table);
            write_prefixed(&mut stream, &table);
            stream.push(2);
            let mut nested = Vec::new();
            let _ = encode_nested(&positions, &Settings::fast(), Chain::default(), &mut nested);
            write_prefixed(&mut stream, &nested);
            let _ = encode(&column(&["p", "q"]), &Settings::fast(), &mut stream);
            assert!(
                decode(&stream, &source, 8).is_err(),
                "positions {positions:?}"
            );
        }
        let mut over_budget = Budget::new(40);
        assert!(
            decode_keyed(&good, &Strings::Plain(source.clone()), 8, &mut over_budget).is_err(),
            "budget"
        );
        // Keyed streams stand only at the top of a branch, never where another stream nests.
        assert!(decode(&good, &source, 8).is_ok());
        assert!(super::decode(&good, 8, &mut Budget::new(u64::MAX)).is_err());
    }

    /// Line scores of games, a digit (or `x`) an inning, mostly zeros: text of a few skewed
    /// byte values whose strings hardly repeat.
    fn line_scores(count: usize) -> Vec<String> {
        let mut next = crate::encodings::xorshift(0x2545_f491_4f6c_dd1d);
        (0..count)
            .map(|_| {
                let innings = 9 + usize::from(next().is_multiple_of(8)) * (next() % 6) as usize;
                (0..innings)
                    .map(|inning| match next() % 16 {
                        _ if inning == innings - 1 && next().is_multiple_of(2) => 'x',
                        0..=9 => '0',
                        10..=12 => '1',
                        13 | 14 => '2',
                        _ => char::from(b'3' + (next() % 5) as u8),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn text_of_few_skewed_bytes_is_coded() {
        let scores = line_scores(8000);
        let refs: Vec<&str> = scores.iter().map(String::as_str).collect();
        let text: usize = refs.iter().map(|s| s.len()).sum();
        for settings in [Settings::default(), Settings::fast()] {
            let mut out = Vec::new();
            let (version, _) = encode(&column(&refs), &settings, &mut out);
            let description = described(&out);
            assert!(description.starts_with("coded text("), "{description}");
            assert_eq!(version, Version::CODED_TEXT);
            // About two bits a digit, where zstd takes nearly three.
            assert!(out.len() * 3 < text, "{} bytes for {text}", out.len());
            assert_eq!(round_trip(&column(&refs), &settings), out.len());
        }
        // Shorter text is coded only where smaller files are preferred.
        let short = &refs[..refs.len() / 4];
        let mut out = Vec::new();
        let _ = encode(&column(short), &Settings::default(), &mut out);
        assert!(!described(&out).contains("coded"), "{}", described(&out));
        let _ = round_trip(&column(short), &Settings::small());
        out.clear();
        let _ = encode(&column(short), &Settings::small(), &mut out);
        assert!(
            described(&out).contains("coded text("),
            "{}",
            described(&out)
        );
        // Multi-byte characters among them: the decoded text is checked as UTF-8.
        let accented: Vec<String> = (scores.iter().enumerate())
            .map(|(i, score)| match i % 7 {
                0 => format!("{score}é"),
                _ => score.clone(),
            })
            .collect();
        let refs: Vec<&str> = accented.iter().map(String::as_str).collect();
        round_trip(&column(&refs), &Settings::default());
    }

    #[test]
    fn text_is_kept_as_it_is_for_zstd_and_older_versions() {
        let scores = line_scores(3000);
        let refs: Vec<&str> = scores.iter().map(String::as_str).collect();
        let older = Settings {
            newest: Version::METADATA,
            ..Settings::fast()
        };
        for settings in [older, Settings::fast().byte_aligned()] {
            let mut out = Vec::new();
            let (version, _) = encode(&column(&refs), &settings, &mut out);
            assert!(version < Version::CODED_TEXT, "{}", described(&out));
            assert!(!described(&out).contains("coded"), "{}", described(&out));
        }
        // Two-byte characters of many values: coding them would not halve them, which the
        // faster settings ask of it.
        let even: Vec<String> = (0..40_000u32)
            .map(|i| {
                char::from_u32(0x100 + (i * 7919) % 0x700)
                    .unwrap()
                    .to_string()
            })
            .collect();
        let refs: Vec<&str> = even.iter().map(String::as_str).collect();
        let mut out = Vec::new();
        let _ = encode(&column(&refs), &Settings::fast(), &mut out);
        assert!(!described(&out).contains("coded"), "{}", described(&out));
    }

    /// A coded text stream of `lengths` and the 8-bit values `bytes`, both as varint streams
    /// (tag 0x01).
    fn coded_stream(lengths: &[u64], bytes: &[u8]) -> Vec<u8> {
        let varints = |values: &mut dyn Iterator<Item = u64>| {
            let mut stream = vec![0x01];
            values.for_each(|value| write_varint(&mut stream, value));
            stream
        };
        let mut stream = vec![StrTag::Coded as u8];
        write_prefixed(&mut stream, &varints(&mut lengths.iter().copied()));
        stream.extend(varints(&mut bytes.iter().map(|&byte| u64::from(byte))));
        stream
    }

    #[test]
    fn hostile_coded_text_is_an_error() {
        fn decode_as(
            stream: &[u8],
            count: usize,
            version: Version,
        ) -> Result<DecodedStrings<'_>, DecodeError> {
            decode(stream, count, &mut Budget::for_version(1 << 20, version.0))
        }
        let good = coded_stream(&[2, 0, 1], b"abc");
        let strings = decode_as(&good, 3, Version::CODED_TEXT).unwrap();
        assert!(strings.iter().eq(["ab", "", "c"]));
        let error = decode_as(&good, 3, Version::METADATA).unwrap_err();
        assert!(error.message().contains("format version 9"), "{error}");
        let cases: [(&str, Vec<u8>); 4] = [
            ("too few bytes", coded_stream(&[2, 2], b"abc")),
            ("too many bytes", coded_stream(&[1, 1], b"abc")),
            ("not UTF-8", coded_stream(&[1, 1], &[b'a', 0xff])),
            ("a split character", coded_stream(&[1, 1], "é".as_bytes())),
        ];
        for (what, stream) in cases {
            assert!(
                decode_as(&stream, 2, Version::CODED_TEXT).is_err(),
                "{what}"
            );
        }
        // Lengths that claim far more text than the budget allows fail before it is decoded.
        let huge = coded_stream(&[1 << 40], b"a");
        let error = decode_as(&huge, 1, Version::CODED_TEXT).unwrap_err();
        assert_eq!(error.kind(), DecodeErrorKind::LimitExceeded, "{error}");
    }

    #[test]
    fn hostile_streams_are_errors() {
        let mut budget = Budget::new(u64::MAX);
        let mut split = vec![StrTag::Plain as u8];
        write_prefixed(&mut split, &[0x00, 1, 1, 1]);
        split.extend_from_slice("é".as_bytes());
        assert!(decode(&split, 2, &mut budget).is_err(), "a split character");
        let mut bad = vec![StrTag::Plain as u8];
        write_prefixed(&mut bad, &[0x00, 1, 1]);
        bad.push(0xff);
        assert!(decode(&bad, 1, &mut budget).is_err(), "not UTF-8");
        let mut dictionary = vec![StrTag::Dictionary as u8, 1];
        let mut values = vec![StrTag::Plain as u8];
        write_prefixed(&mut values, &[0x00, 1, 1]);
        values.push(b'a');
        write_prefixed(&mut dictionary, &values);
        dictionary.extend([0x00, 1, 0, 1]);
        assert!(
            decode(&dictionary, 2, &mut budget).is_err(),
            "an index past the end"
        );
        assert!(
            decode(
                &[StrTag::Dictionary as u8, 5, 2, 0x00, 0, 0x00, 0],
                2,
                &mut budget
            )
            .is_err(),
            "more strings than values"
        );
        assert!(decode(&[0x7f], 1, &mut budget).is_err(), "unknown tag");
    }

    /// A column is sliced without checks once made, so every way of making one from decoded
    /// parts checks them whole first: text split at the ends its lengths add up to, and ends
    /// that come with a copy of the text kept before (see `lend`).
    #[test]
    fn decoded_ends_are_checked_before_slicing() {
        let split = |text: &'static [u8], ends: Vec<usize>| {
            StrColumn::of_text(Cow::Borrowed(text), ends).map(|column| {
                (0..column.len() + 1)
                    .map(|i| column.get(i).to_owned())
                    .collect::<Vec<_>>()
            })
        };
        let accented = "aéb".as_bytes();
        assert_eq!(split(accented, vec![1, 3, 4]).unwrap(), ["a", "é", "b", ""]);
        assert_eq!(split(b"", vec![0, 0]).unwrap(), ["", "", ""]);
        assert!(
            split(accented, vec![1, 2, 4]).is_err(),
            "inside a character"
        );
        assert!(split(b"abc", vec![1, 2]).is_err(), "short of the text");
        assert!(split(b"abc", vec![1, 4]).is_err(), "past the text");
        assert!(split(&[b'a', 0xff], vec![1, 2]).is_err(), "not UTF-8");
        let owned = |text: &[u8], ends| StrColumn::of_text(Cow::Owned(text.to_vec()), ends);
        assert!(owned(accented, vec![1, 3, 4]).is_ok());
        assert!(
            owned(accented, vec![2, 4]).is_err(),
            "owned, inside a character"
        );
        assert!(owned(&[0xff], vec![1]).is_err(), "owned, not UTF-8");
        assert!(check_ends(&[1, 3, 4], "aéb").is_ok());
        assert!(check_ends(&[1, 2, 4], "aéb").is_err(), "inside a character");
        assert!(check_ends(&[2, 1, 3], "abc").is_err(), "out of order");
        assert!(check_ends(&[1, 4], "abc").is_err(), "past the text");
        assert!(
            check_ends(&[usize::MAX], "abc").is_err(),
            "far past the text"
        );
        // Past the last string of a valid column, and past its table's end, is "".
        let mut table = StrColumn::default();
        table.push("x");
        let indexed = Strings::Indexed {
            table: table.into_decoded(),
            indices: vec![0, 7],
        };
        assert_eq!(
            [indexed.get(0), indexed.get(1), indexed.get(2)],
            ["x", "", ""]
        );
    }

    /// Lent strings come from the file where it holds them as they are, and from the store
    /// where the decoder made them; a copy the store kept before is checked like new text.
    #[test]
    fn strings_are_lent_from_the_file_or_the_store() {
        let kept = crate::branch::Kept::default();
        let owned = StrColumn::of_text(Cow::Owned("abcdé".into()), vec![2, 6]).unwrap();
        let lent = owned.clone().lend(Some(kept.branch(0))).unwrap();
        assert_eq!([lent.get_lent(0), lent.get_lent(1)], ["ab", "cdé"]);
        // The branch again: the store gives back its first copy, which fits the same ends.
        let again = owned.clone().lend(Some(kept.branch(0))).unwrap();
        assert_eq!(again.get_lent(1), "cdé");
        // Another text under the same branch no longer fits these ends.
        let other = StrColumn::of_text(Cow::Owned("abcdéf".into()), vec![2, 7]).unwrap();
        assert!(other.lend(Some(kept.branch(0))).is_err());
        assert!(
            owned.lend(None).is_err(),
            "owned text with nowhere to keep it"
        );
        let borrowed = StrColumn::of_text(Cow::Borrowed(b"xyz"), vec![1, 3]).unwrap();
        assert_eq!(borrowed.lend(None).unwrap().get_lent(1), "yz");
    }
}
