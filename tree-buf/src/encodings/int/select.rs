//! Choosing the cascade of an integer column: the fewest bytes wins.
//!
//! One pass over the column (over evenly spaced windows of neighbours when it is large, as
//! BtrBlocks samples) profiles the values and, while the cascade may still take them, their
//! deltas: extremes, runs and the costs of their bit widths; distinct values are counted only as
//! far as a dictionary could still win. A profile prices every leaf codec without encoding
//! anything, so each transform (zigzag, delta, RLE, dictionary) is judged by what its output
//! would cost with its best leaf; [`estimate`] prices a column so for the float transforms. Only
//! the winner is encoded; the streams it nests choose their own cascade the same way, and the
//! leaf that ends a cascade is chosen by exact size (a sample of the whole column is exact, so
//! its profile serves), except that Simple16 is packed on a sample of a long column first and
//! sized exactly only if that comes near the best. A transform whose result comes out larger
//! than the best leaf on the whole column is replaced by that leaf, so an estimate can cost
//! speed but never more bytes than no transform at all.

use std::borrow::Cow;
use std::cell::Cell;

use super::transform::zigzag;
use super::{
    bit_width, bitpack, dictionary, distinct, extremes, fixed, huffman, rle, simple16, transform,
    varint, Word,
};
use crate::encodings::bytes::write_prefixed;
use crate::encodings::scratch::Scratch;
use crate::encodings::{zstd, Settings, Version};

/// The transforms a cascade has applied so far, and how deep it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Chain {
    used: u8,
    depth: u8,
}

impl Chain {
    pub(crate) const ZIGZAG: u8 = 1;
    pub(crate) const DELTA: u8 = 2;
    pub(crate) const RLE: u8 = 4;
    pub(crate) const DICTIONARY: u8 = 8;
    /// Inside a Huffman stream: its tables and escaped values are not Huffman-coded again, which
    /// bounds the nesting.
    pub(crate) const HUFFMAN: u8 = 16;

    pub(crate) fn with(self, step: u8) -> Chain {
        Chain {
            used: self.used | step,
            depth: self.depth + 1,
        }
    }

    fn has(self, step: u8) -> bool {
        self.used & step != 0
    }

    /// Whether the cascade may still take deltas: not twice, nor of runs.
    fn allows_delta(self) -> bool {
        !self.has(Chain::DELTA) && !self.has(Chain::RLE)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Fixed,
    Varint,
    BitPack,
    Simple16,
    Zigzag,
    Delta,
    Rle,
    Dictionary,
    Groups(usize),
}

/// Columns are profiled on this many windows of neighbours, each of this many values, when
/// they are longer.
const WINDOWS: usize = 8;
const WINDOW: usize = 128;
/// The most transforms one cascade stacks.
const MAX_TRANSFORMS: u8 = 3;

/// What a value costs in each leaf codec that a profile prices by sums, by its bit width, as
/// three fields of one word: its bytes as a varint (the low [`COST_FIELD`] bits); the narrowest
/// Simple16 field that holds it, in bits (the next [`COST_FIELD`]), which bounds Simple16's size
/// from below; and in the high bits its Simple16 cost in hundredths of a bit when its neighbours
/// are as wide (32 bits over the values Simple16's densest fitting layout holds), an estimate.
/// One table read and one add price a value for all three, in a loop that does little else.
///
/// Past 28 bits Simple16 cannot code a value at all; a column with one never prices Simple16 (the
/// estimate and the bound are only asked of columns whose widest value fits), so those widths
/// cost as 32 bits, and as a 28-bit field, which keeps the sums small.
const LEAF_COSTS: [u64; 129] = {
    let simple16_centibits = [
        114, 114, 229, 356, 457, 640, 800, 800, 1067, 1067, 1600, 1600, 1600, 1600, 1600, 3200,
        3200, 3200, 3200, 3200, 3200, 3200, 3200, 3200, 3200, 3200, 3200, 3200, 3200,
    ];
    let mut table = [0; 129];
    let mut width = 0;
    while width < table.len() {
        let varint_bytes = if width < 8 {
            1
        } else {
            width.div_ceil(7) as u64
        };
        let (centibits, field_bits) = match width < simple16_centibits.len() {
            true => (
                simple16_centibits[width],
                simple16::FIELD_BITS[width] as u64,
            ),
            false => (3200, simple16::MAX_BITS as u64),
        };
        table[width] = varint_bytes | field_bits << COST_FIELD | centibits << (2 * COST_FIELD);
        width += 1;
    }
    table
};

/// The bits of each of the two low fields of [`LEAF_COSTS`]; the third has the rest.
const COST_FIELD: u32 = 19;

/// The most values whose summed [`LEAF_COSTS`] one word holds: at most 19 varint bytes and a
/// 28-bit field each stay below 2^19, and at most 3200 hundredths of a bit below 2^26.
const SUMMED_VALUES: usize = 1 << 14;

/// What one pass tells about a sequence of words: enough to price every leaf codec. Sums, not
/// histograms, so that adding a value has no memory dependency on the previous one.
#[derive(Clone, Copy)]
struct Profile<W> {
    len: usize,
    min: W,
    max: W,
    /// The bytes of the values as varints.
    varint_bytes: usize,
    /// Their cost in Simple16, in hundredths of a bit.
    simple16_centibits: usize,
    /// The bits of the narrowest Simple16 fields that hold them.
    simple16_field_bits: usize,
}

impl<W: Word> Profile<W> {
    fn new() -> Self {
        Profile {
            len: 0,
            min: W::ZERO.wrapping_sub(W::ONE),
            max: W::ZERO,
            varint_bytes: 0,
            simple16_centibits: 0,
            simple16_field_bits: 0,
        }
    }

    fn of(values: &[W]) -> Self {
        Self::of_mapped(values, |value| value)
    }

    fn of_zigzag(values: &[W]) -> Self {
        Self::of_mapped(values, zigzag)
    }

    #[inline(always)]
    fn of_mapped(values: &[W], map: impl Fn(W) -> W) -> Self {
        let mut profile = Profile::new();
        for part in values.chunks(SUMMED_VALUES) {
            let mut costs = 0;
            for &value in part {
                costs += profile.take(map(value));
            }
            profile.add_costs(part.len(), costs);
        }
        profile
    }

    /// Takes `value` into the extremes and gives its [`LEAF_COSTS`]: the caller sums those of up
    /// to [`SUMMED_VALUES`] values and adds them with [`Self::add_costs`].
    #[inline]
    fn take(&mut self, value: W) -> u64 {
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        LEAF_COSTS[bit_width(value) as usize]
    }

    /// Adds `count` values whose [`LEAF_COSTS`] sum to `costs`.
    fn add_costs(&mut self, count: usize, costs: u64) {
        self.len += count;
        let field = (1 << COST_FIELD) - 1;
        self.varint_bytes += (costs & field) as usize;
        self.simple16_field_bits += (costs >> COST_FIELD & field) as usize;
        self.simple16_centibits += (costs >> (2 * COST_FIELD)) as usize;
    }

    /// The profile of `count` copies of the values profiled.
    fn times(self, count: usize) -> Self {
        Profile {
            len: self.len * count,
            varint_bytes: self.varint_bytes * count,
            simple16_centibits: self.simple16_centibits * count,
            simple16_field_bits: self.simple16_field_bits * count,
            ..self
        }
    }

    fn fixed_size(&self) -> usize {
        fixed::size(self.len, self.max)
    }

    fn simple16_estimate(&self) -> usize {
        1 + self.simple16_centibits.div_ceil(800)
    }

    /// The fewest bytes Simple16 could take (exact for a profile of every value).
    fn simple16_lower_bound(&self) -> usize {
        simple16::lower_bound(self.simple16_field_bits)
    }

    /// The size of the cheapest leaf codec, estimated (exact for fixed and varint).
    fn leaf_estimate(&self, settings: &Settings) -> usize {
        let fixed = self.fixed_size();
        if settings.byte_aligned {
            return fixed;
        }
        let mut best = fixed.min(1 + self.varint_bytes);
        let range = bit_width(self.max.wrapping_sub(self.min)) as usize;
        if self.len >= 16 && range <= 32 {
            best = best.min(2 + (self.len * range).div_ceil(8) + self.len.div_ceil(32));
        }
        if self.len >= 16 && bit_width(self.max) <= simple16::MAX_BITS {
            best = best.min(self.simple16_estimate());
        }
        best
    }
}

/// The values, their deltas as a nested stream would see them, and the runs of equal values,
/// profiled in one pass.
struct Profiles<W> {
    values: Profile<W>,
    /// The deltas, zigzagged unless the cascade has zigzagged already (a nested stream drops
    /// the zigzag when it does not pay, and cannot zigzag twice); none when the cascade cannot
    /// take deltas.
    deltas: Option<Profile<W>>,
    runs: usize,
}

impl<W: Word> Profiles<W> {
    /// The profiles of `values`, whose cascade so far is `chain`.
    fn of(values: &[W], chain: Chain) -> Self {
        match (chain.allows_delta(), chain.has(Chain::ZIGZAG)) {
            (false, _) => Profiles::profile::<false, false>(values),
            (true, false) => Profiles::profile::<true, true>(values),
            (true, true) => Profiles::profile::<true, false>(values),
        }
    }

    fn profile<const DELTAS: bool, const ZIGZAG: bool>(values: &[W]) -> Self {
        let mut profiles = Profiles {
            values: Profile::new(),
            deltas: None,
            runs: 0,
        };
        let mut deltas = Profile::new();
        let mut previous = values.first().map_or(W::ZERO, |&v| v.wrapping_sub(W::ONE));
        for part in values.chunks(SUMMED_VALUES) {
            let (mut value_costs, mut delta_costs) = (0, 0);
            for &value in part {
                let delta = value.wrapping_sub(previous);
                profiles.runs += usize::from(delta != W::ZERO);
                value_costs += profiles.values.take(value);
                if DELTAS {
                    delta_costs += deltas.take(if ZIGZAG { zigzag(delta) } else { delta });
                }
                previous = value;
            }
            profiles.values.add_costs(part.len(), value_costs);
            deltas.add_costs(part.len(), delta_costs);
        }
        if DELTAS {
            profiles.deltas = Some(deltas);
        }
        profiles
    }
}

/// Encodes a column with the cascade that gives the fewest bytes; gives the version it needs.
pub(crate) fn encode<W: Word>(values: &[W], settings: &Settings, out: &mut Vec<u8>) -> Version {
    encode_top(values, None, settings, out)
}

/// [`encode`] for a column whose values come in groups of `group` words (the items of fixed-size
/// arrays), which may then share a dictionary of whole groups.
pub(crate) fn encode_grouped<W: Word>(
    values: &[W],
    group: usize,
    settings: &Settings,
    out: &mut Vec<u8>,
) -> Version {
    encode_top(values, Some(group), settings, out)
}

fn encode_top<W: Word>(
    values: &[W],
    group: Option<usize>,
    settings: &Settings,
    out: &mut Vec<u8>,
) -> Version {
    zstd::best_of(
        settings,
        values,
        group.unwrap_or(1),
        out,
        |values, settings, out| encode_choice(values, group, settings, Chain::default(), out),
    )
}

/// Encodes a stream nested in another encoding, behind its byte length (`prefixed` in the
/// grammars).
pub(crate) fn encode_nested_prefixed<W: Word>(
    values: &[W],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    prefixed(out, |nested| encode_nested(values, settings, chain, nested))
}

/// Writes what `encode` writes behind its byte length.
pub(crate) fn prefixed(out: &mut Vec<u8>, encode: impl FnOnce(&mut Vec<u8>) -> Version) -> Version {
    let mut nested = Scratch::growable();
    let version = encode(&mut nested);
    write_prefixed(out, &nested);
    version
}

/// Encodes a stream nested in another encoding.
pub(crate) fn encode_nested<W: Word>(
    values: &[W],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    encode_choice(values, None, settings, chain, out)
}

#[cfg(test)]
thread_local! {
    /// How many streams have had their cascade chosen on this thread: tests bound the work of
    /// choosing by it.
    pub(crate) static CHOICES: Cell<usize> = const { Cell::new(0) };
}

fn encode_choice<W: Word>(
    values: &[W],
    group: Option<usize>,
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    #[cfg(test)]
    CHOICES.with(|choices| choices.set(choices.get() + 1));
    if encode_if_zeros(values, out) {
        return Version::FIRST;
    }
    let sample = sample(values, group.unwrap_or(1));
    let profiles = Profiles::of(&sample, chain);
    // A sample that is the whole column profiles it exactly.
    let exact = matches!(sample, Cow::Borrowed(_)).then_some(profiles.values);
    let transform = choose_transform(values, &sample, &profiles, group, settings, chain);
    encode_chosen(values, transform, exact, settings, chain, out)
}

/// Encodes a column of zeros as fixed width 0, which nothing beats (but a varint stream of no
/// values), and says whether it did. Such columns are common (the residuals of exact decimals,
/// the indices of a dictionary of one value) and are told before anything is profiled: any
/// other column is told by its first value that is not 0, mostly its first.
fn encode_if_zeros<W: Word>(values: &[W], out: &mut Vec<u8>) -> bool {
    if !all_zeros(values) {
        return false;
    }
    fixed::encode(values, W::ZERO, out);
    true
}

/// Whether `values` are some zeros and nothing else.
fn all_zeros<W: Word>(values: &[W]) -> bool {
    values.first() == Some(&W::ZERO) && values.iter().all(|&v| v == W::ZERO)
}

/// Encodes `values` with `transform`, or with the best leaf codec when there is none; `exact`
/// is their profile, when a sample already took it.
fn encode_chosen<W: Word>(
    values: &[W],
    transform: Option<Choice>,
    exact: Option<Profile<W>>,
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    let profile = || exact.unwrap_or_else(|| Profile::of(values));
    let Some(transform) = transform else {
        return encode_leaf(values, &profile(), settings, chain, out);
    };
    let start = out.len();
    let version = encode_as(values, transform, settings, chain, out);
    // Fixed width and varints are sized exactly in one pass: a transform that loses to them
    // was misjudged, and the exact best leaf replaces it. Neither takes less than a byte a value
    // unless every value is 0, so a result within that needs no pass.
    let size = out.len() - start;
    if size <= values.len() + 1 && values.iter().any(|&v| v != W::ZERO) {
        return version;
    }
    let profile = profile();
    if size > profile.fixed_size().min(1 + profile.varint_bytes) {
        out.truncate(start);
        return encode_leaf(values, &profile, settings, chain, out);
    }
    version
}

/// Evenly spaced windows of neighbours, each a multiple of `align` values long.
pub(crate) fn sample<W: Word>(values: &[W], align: usize) -> Cow<'_, [W]> {
    sample_windows(values, WINDOW.div_ceil(align) * align)
}

/// [`WINDOWS`] evenly spaced windows of `window` neighbours (all values if that is no fewer).
pub(crate) fn sample_windows<W: Word>(values: &[W], window: usize) -> Cow<'_, [W]> {
    zstd::Sampled::windows(values, window, WINDOWS)
}

/// The transform that should make the column smallest, or `None` when a leaf codec alone wins,
/// judged on `sample` (of `values`), whose profiles are `profiles`.
fn choose_transform<W: Word>(
    values: &[W],
    sample: &[W],
    profiles: &Profiles<W>,
    group: Option<usize>,
    settings: &Settings,
    chain: Chain,
) -> Option<Choice> {
    match settings.ranks_by_compression(values.len() * W::BYTES) {
        Some(level) => {
            // Only the zstd ranking needs the candidates themselves.
            let mut candidates = Vec::new();
            let len = values.len();
            price_transforms(
                len,
                sample,
                profiles,
                group,
                settings,
                chain,
                usize::MAX,
                |choice, _| {
                    candidates.push(choice);
                },
            );
            rank_by_compression(sample, candidates, settings, chain, level)
        }
        None => {
            let len = values.len();
            cheapest(len, sample, profiles, group, settings, chain, usize::MAX).0
        }
    }
}

/// The transform (or leaf, `None`) that should make a column of `len` values smallest, priced on
/// `sample`, whose profiles are `profiles`, and the size it should give; on a tie the first
/// priced wins, and a leaf over any transform. A size at or above `bound` only says so: what
/// gives it may not be the cheapest (see [`price_transforms`]).
fn cheapest<W: Word>(
    len: usize,
    sample: &[W],
    profiles: &Profiles<W>,
    group: Option<usize>,
    settings: &Settings,
    chain: Chain,
    bound: usize,
) -> (Option<Choice>, usize) {
    let mut best: (Option<Choice>, usize) = (None, usize::MAX);
    let leaf = price_transforms(
        len,
        sample,
        profiles,
        group,
        settings,
        chain,
        bound,
        |choice, size| {
            if size < best.1 {
                best = (Some(choice), size);
            }
        },
    );
    match best.1 < leaf {
        true => best,
        false => (None, leaf),
    }
}

/// The cascade that [`encode_nested`] chooses for a column, chosen on its sample without encoding
/// anything, and the size it should give the column: a transform prices its streams so, and
/// [`Estimate::encode`] then writes the winner's without choosing again.
pub(crate) struct Estimate<W> {
    pub(crate) size: usize,
    transform: Option<Choice>,
    /// The sample's profile: the column's own when the sample is the whole column.
    profile: Profile<W>,
    whole: bool,
}

/// Estimates `values` as [`encode_nested`] (with no transforms before) would encode them. An
/// estimate at or above `bound` only says so, and its cascade may not be the cheapest: the caller
/// has a cheaper way already, and counting the values' distinct ones stops sooner.
pub(crate) fn estimate<W: Word>(values: &[W], settings: &Settings, bound: usize) -> Estimate<W> {
    if all_zeros(values) {
        // What `encode_if_zeros` writes; the profile is what a pass would find.
        return Estimate {
            size: fixed::size(values.len(), W::ZERO),
            transform: None,
            profile: Profile::of(&[W::ZERO]).times(values.len()),
            whole: true,
        };
    }
    let sample = sample(values, 1);
    let profiles = Profiles::of(&sample, Chain::default());
    let (transform, size) = cheapest(
        values.len(),
        &sample,
        &profiles,
        None,
        settings,
        Chain::default(),
        bound,
    );
    Estimate {
        size,
        transform,
        profile: profiles.values,
        whole: matches!(sample, Cow::Borrowed(_)),
    }
}

impl<W: Word> Estimate<W> {
    /// Encodes `values`, the column estimated, in the same bytes as [`encode_nested`] would (with
    /// no transforms before), without choosing again.
    pub(crate) fn encode(&self, values: &[W], settings: &Settings, out: &mut Vec<u8>) -> Version {
        let chain = Chain::default();
        // A column ranked by compression is not chosen by estimates.
        if settings
            .ranks_by_compression(values.len() * W::BYTES)
            .is_some()
        {
            return encode_choice(values, None, settings, chain, out);
        }
        #[cfg(test)]
        CHOICES.with(|choices| choices.set(choices.get() + 1));
        if encode_if_zeros(values, out) {
            return Version::FIRST;
        }
        let exact = self.whole.then_some(self.profile);
        encode_chosen(values, self.transform, exact, settings, chain, out)
    }
}

/// Prices every transform that `chain` allows on `sample` (of a column of `len` values), whose
/// profiles are `profiles`: `consider` gets each with the size it should give the whole column,
/// in turn. Unless a zstd ranking is to compare them all, one that could not beat those before
/// it, a leaf codec and `bound` (a size the caller has already) may be left out. Returns the
/// size a leaf codec alone should give the column.
#[allow(clippy::too_many_arguments)]
fn price_transforms<W: Word>(
    len: usize,
    sample: &[W],
    profiles: &Profiles<W>,
    group: Option<usize>,
    settings: &Settings,
    chain: Chain,
    bound: usize,
    mut consider: impl FnMut(Choice, usize),
) -> usize {
    let sample_len = profiles.values.len;
    // Sizes are for the whole column: what grows with the values is scaled up from the sample,
    // while dictionary entries are taken to be those the sample shows.
    let scale = |sample_bytes: usize| sample_bytes * len / sample_len.max(1);
    let sample_leaf = profiles.values.leaf_estimate(settings);
    let leaf = scale(sample_leaf);
    if sample_len < 8 || chain.depth >= MAX_TRANSFORMS {
        return leaf;
    }
    // A dictionary's entries and a run's values cost about what a value costs now.
    let per_value = |count: usize| (sample_leaf * count).div_ceil(sample_len);
    let index_bytes = |distinct: usize, count: usize| {
        (count * bit_width((distinct as u64).saturating_sub(1)) as usize).div_ceil(8)
    };
    // The size to beat: the smallest so far.
    let to_beat = Cell::new(leaf.min(bound));
    let mut consider = |choice: Choice, size: usize| {
        to_beat.set(to_beat.get().min(size));
        consider(choice, size);
    };

    if let Some(group) = group.filter(|_| chain.depth == 0) {
        if let Some(distinct) = dictionary::count_groups(sample, group) {
            let groups = sample_len / group;
            if distinct * 2 <= groups {
                consider(
                    Choice::Groups(group),
                    4 + per_value(distinct * group) + scale(index_bytes(distinct, groups)),
                );
            }
        }
    }
    if let Some(deltas) = &profiles.deltas {
        consider(Choice::Delta, 2 + scale(deltas.leaf_estimate(settings)));
    }
    if !chain.has(Chain::ZIGZAG) && bit_width(profiles.values.max) == W::BITS {
        let zigzag = Profile::of_zigzag(sample).leaf_estimate(settings);
        consider(Choice::Zigzag, 1 + scale(zigzag));
    }
    if !chain.has(Chain::RLE) && profiles.runs * 2 <= sample_len {
        let runs = profiles.runs;
        let length_bits = bit_width((sample_len / runs) as u64) as usize + 1;
        consider(
            Choice::Rle,
            4 + scale((runs * length_bits).div_ceil(8) + per_value(runs)),
        );
    }
    if !chain.has(Chain::DICTIONARY) && !chain.has(Chain::RLE) {
        // Indices of `distinct` entries take bit_width(distinct - 1) bits: a dictionary can only
        // win with fewer entries than the values' bits now allow.
        let size =
            |distinct: usize| 4 + per_value(distinct) + scale(index_bytes(distinct, sample_len));
        let mut limit = (sample_len / 2).min(1 << (8 * sample_leaf / sample_len).min(30));
        if settings.ranks_by_compression(len * W::BYTES).is_none() {
            // Nor with more entries than keep it below the size to beat: it grows with them.
            let (mut fewer, mut more) = (0, limit);
            while fewer < more {
                let middle = (fewer + more).div_ceil(2);
                match size(middle) < to_beat.get() {
                    true => fewer = middle,
                    false => more = middle - 1,
                }
            }
            limit = fewer;
        }
        let (min, max) = (profiles.values.min, profiles.values.max);
        if let Some(distinct) = count_distinct(sample, min, max, limit).filter(|_| limit > 0) {
            consider(Choice::Dictionary, size(distinct));
        }
    }
    leaf
}

/// The candidate (or leaf, `None`) whose encoding of `sample` compresses smallest.
fn rank_by_compression<W: Word>(
    sample: &[W],
    candidates: Vec<Choice>,
    settings: &Settings,
    chain: Chain,
    level: i32,
) -> Option<Choice> {
    let trial_size = |choice: Option<Choice>| {
        let mut trial = Vec::new();
        // Encoded only to be sized.
        let _ = match choice {
            Some(choice) => encode_as(sample, choice, settings, chain, &mut trial),
            None => encode_best_leaf(sample, settings, chain, &mut trial),
        };
        zstd::compressed_size(&trial, level)
    };
    let mut best = (None, trial_size(None));
    for candidate in candidates {
        let size = trial_size(Some(candidate));
        if size < best.1 {
            best = (Some(candidate), size);
        }
    }
    best.0
}

/// The number of distinct values among `values` (all within `min..=max`), if it is at most
/// `limit`.
fn count_distinct<W: Word>(values: &[W], min: W, max: W, limit: usize) -> Option<usize> {
    // Values that hardly repeat show it early: a long column whose prefix is mostly distinct is
    // given up there, sparing hashing the rest.
    const PREFIX: usize = 128;
    let prefix_limit = match values.len() > 2 * PREFIX {
        true => limit.min(PREFIX * 3 / 4),
        false => limit,
    };
    let (prefix, rest) = values.split_at(values.len().min(PREFIX));
    match distinct::dense_slots(values.len(), min, max) {
        // Values within a small range are marked in an array indexed by value, several times
        // faster than hashing them.
        Some(slots) => {
            let (mut seen, mut count) = (vec![false; slots], 0);
            count_within(prefix, rest, prefix_limit, limit, |value| {
                let seen = &mut seen[value.wrapping_sub(min).low_u64() as usize];
                count += usize::from(!*seen);
                *seen = true;
                count
            })
        }
        None => {
            let mut seen = distinct::DistinctCounter::new(limit.min(values.len()));
            (seen.add_all(prefix, prefix_limit) && seen.add_all(rest, limit)).then(|| seen.count())
        }
    }
}

/// How many distinct values `prefix` then `rest` hold, counted by `count` (which takes a value
/// and gives how many are distinct so far), if it stays within `prefix_limit` over the prefix
/// and within `limit` over both.
#[inline(always)]
fn count_within<W: Word>(
    prefix: &[W],
    rest: &[W],
    prefix_limit: usize,
    limit: usize,
    mut count: impl FnMut(W) -> usize,
) -> Option<usize> {
    let mut distinct = 0;
    let mut within = |values: &[W], limit: usize| {
        values.iter().all(|&value| {
            distinct = count(value);
            distinct <= limit
        })
    };
    (within(prefix, prefix_limit) && within(rest, limit)).then_some(distinct)
}

/// A leaf codec: one that sizes itself from a profile, or Huffman codes already planned.
enum Leaf<W> {
    Codec(Choice),
    Huffman(huffman::Plan<W>),
}

/// Encodes `values` with the leaf codec that takes the fewest bytes.
pub(crate) fn encode_best_leaf<W: Word>(
    values: &[W],
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    encode_leaf(values, &Profile::of(values), settings, chain, out)
}

/// [`encode_best_leaf`] for values whose profile is known.
fn encode_leaf<W: Word>(
    values: &[W],
    profile: &Profile<W>,
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    match best_leaf(values, profile, settings, chain) {
        Leaf::Codec(choice) => encode_as(values, choice, settings, chain, out),
        Leaf::Huffman(plan) => plan.encode(values, settings, chain, out),
    }
}

/// The leaf codec with the fewest bytes for `values`, whose profile is `profile`, sized exactly
/// (Huffman's tables and escapes as varints; Simple16 where a sample does not rule it out).
fn best_leaf<W: Word>(
    values: &[W],
    profile: &Profile<W>,
    settings: &Settings,
    chain: Chain,
) -> Leaf<W> {
    let mut best = (Choice::Fixed, profile.fixed_size());
    if settings.byte_aligned {
        // For a zstd stage: it finds repeats in aligned fixed-width values far better than in
        // varints, so the size before it is no guide.
        return Leaf::Codec(best.0);
    }
    let keep_smaller = |best: &mut (Choice, usize), choice, size: usize| {
        if size < best.1 {
            *best = (choice, size);
        }
    };
    keep_smaller(&mut best, Choice::Varint, 1 + profile.varint_bytes);
    if values.len() < 16 {
        return Leaf::Codec(best.0);
    }
    if bitpack::fits(profile.min, profile.max) {
        keep_smaller(
            &mut best,
            Choice::BitPack,
            bitpack::size(values, profile.min),
        );
    }
    // Huffman codes are planned before Simple16 is sized, so that a plan that wins spares
    // sizing Simple16 exactly; on a tie Simple16 wins, as the simpler codec.
    let plan = (!chain.has(Chain::HUFFMAN))
        .then(|| huffman::Plan::of(values, profile.min, profile.max, best.1))
        .flatten()
        .filter(|plan| plan.estimate() < best.1);
    let to_beat = plan.as_ref().map_or(best.1, |plan| plan.estimate() + 1);
    // Simple16 is sized exactly unless its lower bound, or a sample of a long column, shows
    // that it does not win.
    if bit_width(profile.max) <= simple16::MAX_BITS
        && profile.simple16_lower_bound() < to_beat
        && simple16::may_be_smaller_than(values, to_beat)
        && simple16::smaller_than(values, to_beat)
    {
        return Leaf::Codec(Choice::Simple16);
    }
    match plan {
        Some(plan) => Leaf::Huffman(plan),
        None => Leaf::Codec(best.0),
    }
}

fn encode_as<W: Word>(
    values: &[W],
    choice: Choice,
    settings: &Settings,
    chain: Chain,
    out: &mut Vec<u8>,
) -> Version {
    let extremes = || extremes(values);
    match choice {
        Choice::Fixed => fixed::encode(values, extremes().1, out),
        Choice::Varint => varint::encode(values, out),
        Choice::BitPack => {
            let (min, max) = extremes();
            if bitpack::fits(min, max) {
                bitpack::encode(values, min, out);
            } else {
                fixed::encode(values, max, out);
            }
        }
        Choice::Simple16 => {
            if bit_width(extremes().1) <= simple16::MAX_BITS {
                simple16::encode(values, out);
            } else {
                varint::encode(values, out);
            }
        }
        Choice::Zigzag => return transform::encode_zigzag(values, settings, chain, out),
        Choice::Delta => return transform::encode_delta(values, settings, chain, out),
        Choice::Rle => return rle::encode(values, settings, chain, out),
        Choice::Dictionary => return dictionary::encode(values, settings, chain, out),
        Choice::Groups(group) => {
            return match dictionary::count_groups(values, group) {
                Some(_) => dictionary::encode_groups(values, group, settings, chain, out),
                None => encode_nested(values, settings, chain, out),
            };
        }
    }
    // The leaf codecs are all in the first version.
    Version::FIRST
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::tests::described;
    use super::super::{decode, describe, IntTag};
    use super::*;
    use crate::encodings::budget::Budget;
    use crate::encodings::describe::{Describer, Encoding};
    use crate::encodings::test_len;

    fn encoded(values: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = encode(values, &Settings::fast(), &mut out);
        assert_eq!(
            decode::<u64>(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values
        );
        out
    }

    #[test]
    fn profiles_size_fixed_and_varint_exactly() {
        for shape in super::super::tests::shapes() {
            let profile = Profile::of(&shape);
            let mut out = Vec::new();
            varint::encode(&shape, &mut out);
            assert_eq!(1 + profile.varint_bytes, out.len());
            out.clear();
            fixed::encode(&shape, profile.max, &mut out);
            assert_eq!(profile.fixed_size(), out.len());
        }
    }

    #[test]
    fn profile_sums_keep_their_fields_apart() {
        // The widest costs in every field, over more values than one sum takes.
        let values = vec![u128::MAX; 3 * SUMMED_VALUES + 5];
        let profile = Profile::of(&values);
        assert_eq!(profile.varint_bytes, values.len() * 19);
        assert_eq!(profile.simple16_field_bits, values.len() * 28);
        assert_eq!(profile.simple16_centibits, values.len() * 3200);
        let narrow = Profile::of(&vec![1u32 << 8; 1000]);
        assert_eq!(
            (narrow.varint_bytes, narrow.simple16_field_bits),
            (2000, 9000)
        );
    }

    /// The streams chosen for while `encode` runs, and those its result holds.
    pub(crate) fn chosen_and_written(encode: impl FnOnce() -> Encoding) -> (usize, usize) {
        let before = CHOICES.with(Cell::get);
        let encoding = encode();
        (CHOICES.with(Cell::get) - before, encoding.iter().count())
    }

    /// Choosing a cascade encodes nothing but the winner: no candidate is trial-encoded, and
    /// every stream chosen for is in the result.
    #[test]
    fn only_the_chosen_cascade_is_encoded() {
        let mut grouped: Vec<u8> = Vec::new();
        for i in 0..test_len(2000) as u32 {
            grouped.extend([(i % 5) as u8 * 40; 4]);
        }
        let cases = (super::super::tests::shapes().into_iter())
            .map(|shape| (shape, None))
            .chain([(grouped.iter().map(|&v| u64::from(v)).collect(), Some(4))]);
        for (values, group) in cases {
            let (chosen, written) = chosen_and_written(|| {
                let mut out = Vec::new();
                let _ = encode_top(&values, group, &Settings::without_zstd(), &mut out);
                describe::<u64>(&out, Describer::new(false))
            });
            assert_eq!(chosen, written, "{} values", values.len());
        }
    }

    #[test]
    fn an_estimate_below_its_bound_is_the_unbounded_one() {
        let len = 300u64;
        let columns: Vec<Vec<u64>> = vec![
            (0..len).map(|i| i * 7 % 13).collect(),
            (0..len).map(|i| i * 0x9e37_79b9 % 1_000_003).collect(),
            (0..len).map(|i| 1000 + i * 3).collect(),
            (0..len)
                .map(|i| [5, 900, 70_000][(i % 3) as usize])
                .collect(),
            (0..len).map(|i| (i / 40) * 1_000_000).collect(),
        ];
        let settings = Settings::default();
        for values in &columns {
            let unbounded = estimate(values, &settings, usize::MAX);
            for bound in [0, 1, unbounded.size / 2, unbounded.size, unbounded.size + 1] {
                let bounded = estimate(values, &settings, bound);
                match bounded.size < bound {
                    true => {
                        assert_eq!(bounded.size, unbounded.size);
                        assert_eq!(bounded.transform, unbounded.transform);
                    }
                    false => assert!(unbounded.size >= bound, "{values:?} under {bound}"),
                }
            }
        }
    }

    #[test]
    fn constant_columns_cost_almost_nothing() {
        let n = test_len(10_000);
        assert_eq!(encoded(&vec![0; n]), [IntTag::Fixed as u8, 0]);
        assert!(encoded(&vec![7; n]).len() < 16);
    }

    #[test]
    fn sorted_columns_use_delta() {
        let n = test_len(10_000) as u64;
        let values: Vec<u64> = (0..n).map(|i| 1_600_000_000 + i * 60).collect();
        let out = encoded(&values);
        assert_eq!(out[0], IntTag::Delta as u8, "{}", described::<u64>(&out));
        assert!(
            out.len() < 100,
            "{} bytes as {}",
            out.len(),
            described::<u64>(&out)
        );
    }

    #[test]
    fn long_runs_use_rle() {
        let n = test_len(10_000) as u64;
        let values: Vec<u64> = (0..n).map(|i| (i / (n / 10)) * 12_345_678).collect();
        let out = encoded(&values);
        assert!(
            out[0] == IntTag::Rle as u8 || out[0] == IntTag::Delta as u8,
            "{}",
            described::<u64>(&out)
        );
        assert!(
            out.len() < 100,
            "{} bytes as {}",
            out.len(),
            described::<u64>(&out)
        );
    }

    #[test]
    fn small_random_values_pack_into_their_bits() {
        let n = test_len(10_000);
        let values: Vec<u64> = (0..n as u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 59)
            .collect();
        let out = encoded(&values);
        assert!(
            out.len() <= n * 5 / 8 + 200,
            "{} bytes as {}",
            out.len(),
            described::<u64>(&out)
        );
    }

    #[test]
    fn signed_values_near_zero_use_zigzag() {
        let n = test_len(5000);
        let values: Vec<u64> = (0..n as i64).map(|i| ((i % 7) - 3) as u64).collect();
        let out = encoded(&values);
        assert!(
            out.len() < n / 2,
            "{} bytes as {}",
            out.len(),
            described::<u64>(&out)
        );
    }

    #[test]
    fn repeated_groups_use_a_group_dictionary() {
        let n = test_len(5000);
        let ids: Vec<u8> = (0..n as u32)
            .flat_map(|i| [(i % 7) as u8 * 31; 20])
            .collect();
        let mut out = Vec::new();
        let _ = encode_grouped(&ids, 20, &Settings::fast(), &mut out);
        assert!(
            out.len() < n,
            "{} bytes as {}",
            out.len(),
            described::<u8>(&out)
        );
        assert_eq!(
            decode::<u8>(&out, ids.len(), &mut Budget::new(u64::MAX)).unwrap(),
            ids
        );
    }

    #[test]
    // zstd is C code, which Miri cannot run.
    #[cfg_attr(miri, ignore)]
    fn zstd_wins_on_repetitive_byte_patterns() {
        let values: Vec<u64> = (0..20_000u64)
            .map(|i| [1_000_003, 77_777_777, 5, 123_456_789_012][(i * i % 4) as usize])
            .collect();
        let mut out = Vec::new();
        let _ = encode(&values, &Settings::default(), &mut out);
        assert_eq!(
            decode::<u64>(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values
        );
        assert!(
            out.len() < 20_000 / 3,
            "{} bytes as {}",
            out.len(),
            described::<u64>(&out)
        );
    }
}
