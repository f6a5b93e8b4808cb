//! Float streams: integer streams over IEEE 754 bit patterns, plus transforms that only make sense
//! for floats.
//!
//! ```text
//! float_stream := int_stream                    the raw bits, any integer cascade
//!   | 0x09 digits:u8 ints:prefixed residuals:float_stream
//!         Decimal: digits at most 18 (F64) or 10 (F32); `ints` is an int_stream of count 64-bit
//!         two's-complement integers n; value i has the bits of (n[i] as float) / 10^digits (one
//!         correctly rounded IEEE division in the float's own precision, 10^digits exact) plus
//!         residuals[i], wrapping at the word width. Short decimals have residual 0; noisy ones a
//!         small one; any other value (NaN, infinities, huge) has n = 0 and its whole bit
//!         pattern as residual.
//!   | 0x0a float_stream
//!         Xor: the inner stream holds v[0], then v[i] xor v[i-1]
//!   | 0x0b exponent:u8 ints:prefixed exceptions:varint positions:prefixed values:float_stream
//!         Lossy: exponent is a two's-complement i8 e, with 2^(e+1) finite (e <= 126 for f32);
//!         value i is (n[i] as float) * 2^(e+1), so within 2^e of what was written; `ints` an
//!         int_stream of count 64-bit two's-complement integers (0 at exceptions, which readers
//!         check); `positions` an int_stream of `exceptions` (at most count) 64-bit
//!         indices, strictly increasing and below count, of values kept exactly (NaN,
//!         infinities, values too large to quantize), whose bits follow in `values`
//!   | zstd                                      tag 0x08, see `zstd`: around a float_stream
//! ```

use std::borrow::Cow;
use std::cell::Cell;

use super::budget::Budget;
use super::bytes::{write_varint, ByteReader};
use super::describe::{Codec, Describer, Encoding};
use super::int::select::{encode_nested, prefixed, Chain, Estimate};
use super::int::{self, transform, IntStream, Word};
use super::scratch::Scratch;
use super::wide::wide;
use super::zstd::{self, Frame};
use super::{check_depth, is_empty_form, tags, Settings, Version};
use crate::error::{corrupt, DecodeError};

tags! {
    /// The first byte of a float stream that is not an integer stream: a float transform, or a
    /// zstd frame around a float stream.
    FloatTag, "float" {
        Zstd = zstd::TAG,
        Decimal = 0x09,
        Xor = 0x0a,
        Lossy = 0x0b,
    }
}

/// Powers of ten that are exact in `f64` (up to 10^22).
const POW10: [f64; 19] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];

/// The bit pattern of a float type.
pub(crate) trait FloatWord: Word {
    /// The most decimal digits worth trying.
    const MAX_DIGITS: u8;
    /// Integers below this magnitude convert to the float exactly.
    const EXACT_INT: f64;
    /// The largest power of two the float holds: a Lossy stream's step, `2^(e+1)`, must be
    /// finite.
    const MAX_EXPONENT: i32;
    fn to_f64(self) -> f64;
    /// The bits of `(n as float) / power`, computed in this float's precision, where `power` is
    /// `10^digits` from [`POW10`].
    fn decimal(n: i64, power: f64) -> Self;
    /// The bits of `n * 2^exponent` in this float's precision.
    fn scaled(n: i64, exponent: i32) -> Self;
}

impl FloatWord for u64 {
    const MAX_DIGITS: u8 = 18;
    const EXACT_INT: f64 = 9_007_199_254_740_992.0;
    const MAX_EXPONENT: i32 = f64::MAX_EXP - 1;
    fn to_f64(self) -> f64 {
        f64::from_bits(self)
    }
    #[inline(always)]
    fn decimal(n: i64, power: f64) -> Self {
        ((n as f64) / power).to_bits()
    }
    fn scaled(n: i64, exponent: i32) -> Self {
        ((n as f64) * 2f64.powi(exponent)).to_bits()
    }
}

impl FloatWord for u32 {
    const MAX_DIGITS: u8 = 10;
    const EXACT_INT: f64 = 16_777_216.0;
    const MAX_EXPONENT: i32 = f32::MAX_EXP - 1;
    fn to_f64(self) -> f64 {
        f64::from(f32::from_bits(self))
    }
    #[inline(always)]
    fn decimal(n: i64, power: f64) -> Self {
        ((n as f32) / (power as f32)).to_bits()
    }
    fn scaled(n: i64, exponent: i32) -> Self {
        ((n as f32) * 2f32.powi(exponent)).to_bits()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Raw,
    Xor,
    Decimal(u8),
    Lossy(i8),
}

/// Encodes float bit patterns with the cascade that gives the fewest bytes.
/// Gives the version the stream needs.
///
/// The zstd stage is tried with the transform the column's own encoding chose, not with each
/// transform in turn: the one that leaves the fewest bytes keeps the repeats zstd would find
/// (equal values make equal decimal integers and residuals, as equal bits), and ranking every
/// transform by a trial compression cost more than the whole stage otherwise does.
pub(crate) fn encode<W: FloatWord>(
    values: &[W],
    settings: &Settings,
    out: &mut Vec<u8>,
) -> Version {
    let chosen = Cell::new(None);
    zstd::best_of(settings, values, 1, out, |values, settings, out| {
        let start = out.len();
        let transformed = match chosen.get() {
            Some(choice) => Transformed::of(values, choice),
            None => {
                let transformed = choose(values, settings);
                chosen.set(Some(transformed.choice()));
                transformed
            }
        };
        let version = transformed.encode(settings, out);
        // A choice made on a sample can come out larger than the bits themselves (noise in
        // every transform's streams): those, at fixed width, bound every float column.
        if out.len() - start > int::fixed::size(values.len(), W::ZERO.wrapping_sub(W::ONE)) {
            out.truncate(start);
            int::fixed::encode(values, int::extremes(values).1, out);
            return Version::FIRST;
        }
        version
    })
}

/// The transform that should make the column smallest, applied to it. When the sample it is
/// judged on is the whole column, the winner comes priced: its streams' cascades are chosen
/// already, and encoding it chooses nothing again.
fn choose<'a, W: FloatWord>(values: &'a [W], settings: &Settings) -> Transformed<'a, W> {
    let sample = int::select::sample(values, 1);
    let whole = match sample {
        Cow::Borrowed(whole) => Some(whole),
        Cow::Owned(_) => None,
    };
    let sample = &*sample;
    let (digits, exact) = likely_digits(sample);
    let mut candidates = vec![Choice::Raw, Choice::Xor, Choice::Decimal(digits)];
    let likely = candidates.len() - 1;
    if !exact && settings.every_float_digits {
        // No number of digits leaves the sample's residuals 0 (noise in the mantissas): the
        // bits of the few values above price the residuals as if each took only its own width,
        // while their cascades pay for the widest and code the narrow ones by frequency. Every
        // number of digits is priced as the winner is, on the sample.
        candidates.extend(
            (0..=W::MAX_DIGITS)
                .filter(|&d| d != digits)
                .map(Choice::Decimal),
        );
    }
    if let Some(tolerance) = settings.float_tolerance {
        candidates.push(Choice::Lossy(tolerance.clamp(-120, 120) as i8));
    }
    // The likely number of digits is priced first: it mostly wins.
    match whole {
        Some(whole) => {
            let (choice, priced) = cheapest_estimated(whole, &candidates, likely, true, settings);
            priced.unwrap_or_else(|| Transformed::of(values, choice))
        }
        None => {
            let (choice, _) = cheapest_estimated(sample, &candidates, likely, false, settings);
            Transformed::of(values, choice)
        }
    }
}

/// The first of the candidates whose streams' cascades, chosen by their estimates on `sample`,
/// give the fewest bytes, transformed and priced when `whole` (the sample is the column):
/// nothing is encoded until the winner is. `candidates[first]` is priced first, and each
/// candidate's price is bounded by the sizes of those priced before it, so that counting the
/// distinct values of one that cannot win stops where it shows.
fn cheapest_estimated<'a, W: FloatWord>(
    sample: &'a [W],
    candidates: &[Choice],
    first: usize,
    whole: bool,
    settings: &Settings,
) -> (Choice, Option<Transformed<'a, W>>) {
    // (index, size, the transformed sample) of each candidate priced below its bound.
    let mut priced: Vec<(usize, usize, Option<Transformed<'a, W>>)> = Vec::new();
    let order = std::iter::once(first).chain((0..candidates.len()).filter(|&i| i != first));
    for index in order {
        // It wins only with fewer bytes than each candidate before it and no more than each after.
        let bound = (priced.iter())
            .map(|&(other, size, _)| if other < index { size } else { size + 1 })
            .min()
            .unwrap_or(usize::MAX);
        let mut transformed = Transformed::of(sample, candidates[index]);
        let size = transformed.price(settings, bound);
        if size < bound {
            priced.push((index, size, whole.then_some(transformed)));
        }
    }
    let (index, _, transformed) = (priced.into_iter())
        .min_by_key(|&(index, size, _)| (size, index))
        .expect("the first candidate is priced without a bound");
    (candidates[index], transformed)
}

/// The number of decimal digits that makes the decimal transform cheapest on a few values: the
/// bits of their zigzagged integer deltas and residuals, added up (the first of the cheapest
/// wins); and whether some number of digits leaves every residual 0, in which case no more
/// digits are considered (each further one only widens the integers).
///
/// The fewest digits that leave every residual 0 are found first (a value or two rules out most
/// numbers of digits), and their bits then bound the rest: a smaller number of digits is given
/// up as soon as its bits reach them, or the cheapest so far.
fn likely_digits<W: FloatWord>(sample: &[W]) -> (u8, bool) {
    let few = &sample[..sample.len().min(64)];
    let exact = (0..=W::MAX_DIGITS)
        .find_map(|digits| Some((digits, decimal_bits(few, digits, u32::MAX, true)?)));
    // Fewer digits win only with no more bits than the exact ones; without those, every number
    // of digits is in the running.
    let candidates = exact.map_or(W::MAX_DIGITS + 1, |(digits, _)| digits);
    let mut best = (u32::MAX, 0);
    for digits in 0..candidates {
        let bound = best.0.min(exact.map_or(u32::MAX, |(_, bits)| bits + 1));
        if let Some(bits) = decimal_bits(few, digits, bound, false) {
            best = (bits, digits);
        }
    }
    match exact {
        Some((digits, bits)) if bits < best.0 => (digits, true),
        Some(_) => (best.1, true),
        None => (best.1, false),
    }
}

/// The bits of `values`' zigzagged integer deltas and residuals under `digits` decimal digits,
/// added up, if they come to less than `bound` (and, if `exact`, every residual is 0).
fn decimal_bits<W: FloatWord>(values: &[W], digits: u8, bound: u32, exact: bool) -> Option<u32> {
    let scale = POW10[usize::from(digits)];
    let (mut previous, mut bits) = (0i64, 0u32);
    for &value in values {
        let n = decimal_int::<W>(value, scale);
        let residual = decimal_residual(value, n, scale);
        if exact && residual != W::ZERO {
            return None;
        }
        bits += int::bit_width(transform::zigzag(n.wrapping_sub(previous) as u64))
            + int::bit_width(transform::zigzag(residual));
        if bits >= bound {
            return None;
        }
        previous = n;
    }
    Some(bits)
}

/// What the decimal transform leaves of `value` beside its integer `n` at the digits whose power
/// of ten is `scale`.
#[inline(always)]
fn decimal_residual<W: FloatWord>(value: W, n: i64, scale: f64) -> W {
    value.wrapping_sub(W::decimal(n, scale))
}

/// The integer that `value` scaled by `scale` rounds to, or 0 when it has none that converts
/// exactly (NaN, infinities, huge values).
#[inline(always)]
fn decimal_int<W: FloatWord>(value: W, scale: f64) -> i64 {
    round_within(value.to_f64() * scale, W::EXACT_INT).unwrap_or(0)
}

/// `x` rounded half away from zero, as `x.round()` rounds but without a call into libm, if its
/// magnitude is below `limit` (at most 2^53, below which the fraction is exact).
#[inline]
fn round_within(x: f64, limit: f64) -> Option<i64> {
    debug_assert!(limit <= <u64 as FloatWord>::EXACT_INT);
    (x.abs() < limit).then(|| {
        // SAFETY: `limit` is at most 2^53 (every caller's is `EXACT_INT` or half of it), so `x`
        // is finite and truncates to an `i64` without the checks `as` adds for NaN and overflow.
        #[allow(unsafe_code)]
        let truncated: i64 = unsafe { x.to_int_unchecked() };
        let fraction = x - truncated as f64;
        truncated + i64::from(fraction >= 0.5) - i64::from(fraction <= -0.5)
    })
}

/// Adds to each of `residuals` the float bits of its integer among `ints` at `digits` decimal
/// digits: what a decimal stream decodes to. A conversion and a division a value, which wide
/// vectors do eight at a time.
fn add_decimals<W: FloatWord>(residuals: &mut [W], ints: &[u64], digits: u8) {
    let power = POW10[usize::from(digits)];
    wide(move || {
        for (value, &n) in residuals.iter_mut().zip(ints) {
            *value = W::decimal(n as i64, power).wrapping_add(*value);
        }
    });
}

/// A column under one float transform: the streams it nests, before they are encoded.
enum Transformed<'a, W: Word> {
    Raw(Nested<'a, W>),
    Xor(Nested<'a, W>),
    Decimal {
        digits: u8,
        ints: Nested<'a, u64>,
        residuals: Nested<'a, W>,
    },
    Lossy {
        exponent: i8,
        ints: Nested<'a, u64>,
        positions: Nested<'a, u64>,
        exact: Nested<'a, W>,
    },
}

/// A stream a float transform nests: its values and, once priced, the cascade chosen for them.
struct Nested<'a, X: Word> {
    values: Values<'a, X>,
    estimate: Option<Estimate<X>>,
}

/// A nested stream's values: the column's own, or made from them.
enum Values<'a, X: Word> {
    Column(&'a [X]),
    Made(Scratch<X>),
}

impl<'a, X: Word> Nested<'a, X> {
    fn new(values: Values<'a, X>) -> Self {
        Nested {
            values,
            estimate: None,
        }
    }

    /// A stream of values made from the column's, `len` of them.
    fn made(len: usize, values: impl Iterator<Item = X>) -> Self {
        Nested::new(Values::Made(Scratch::collect(len, values)))
    }

    fn values(&self) -> &[X] {
        match &self.values {
            Values::Column(values) => values,
            Values::Made(values) => values,
        }
    }

    /// Chooses the stream's cascade without encoding it; gives the size it should take, which at
    /// or above `bound` only says so.
    fn price(&mut self, settings: &Settings, bound: usize) -> usize {
        let estimate = int::select::estimate(self.values(), settings, bound);
        let size = estimate.size;
        self.estimate = Some(estimate);
        size
    }

    fn encode(&self, settings: &Settings, out: &mut Vec<u8>) -> Version {
        match &self.estimate {
            Some(estimate) => estimate.encode(self.values(), settings, out),
            None => encode_nested(self.values(), settings, Chain::default(), out),
        }
    }

    fn encode_prefixed(&self, settings: &Settings, out: &mut Vec<u8>) -> Version {
        prefixed(out, |out| self.encode(settings, out))
    }
}

impl<'a, W: FloatWord> Transformed<'a, W> {
    /// The transform it is under.
    fn choice(&self) -> Choice {
        match self {
            Transformed::Raw(_) => Choice::Raw,
            Transformed::Xor(_) => Choice::Xor,
            Transformed::Decimal { digits, .. } => Choice::Decimal(*digits),
            Transformed::Lossy { exponent, .. } => Choice::Lossy(*exponent),
        }
    }

    fn of(values: &'a [W], choice: Choice) -> Self {
        match choice {
            Choice::Raw => Transformed::Raw(Nested::new(Values::Column(values))),
            Choice::Xor => {
                let mut previous = W::ZERO;
                let xors = values.iter().map(|&v| {
                    let x = v ^ previous;
                    previous = v;
                    x
                });
                Transformed::Xor(Nested::made(values.len(), xors))
            }
            Choice::Decimal(digits) => {
                let scale = POW10[usize::from(digits)];
                // Two passes that each fill the slots of a vector, rather than one that pushes
                // to both: each converts between integers and floats a value, which a loop over
                // slots does as wide vectors, eight values at a time.
                let (mut ints, mut residuals) =
                    (Scratch::filled(values.len()), Scratch::filled(values.len()));
                let (int_slots, residual_slots) = (&mut ints[..], &mut residuals[..]);
                wide(move || {
                    for (n, &value) in int_slots.iter_mut().zip(values) {
                        *n = decimal_int(value, scale) as u64;
                    }
                    for ((residual, &value), &n) in
                        residual_slots.iter_mut().zip(values).zip(&*int_slots)
                    {
                        *residual = decimal_residual(value, n as i64, scale);
                    }
                });
                let (ints, residuals) = (
                    Nested::new(Values::Made(ints)),
                    Nested::new(Values::Made(residuals)),
                );
                Transformed::Decimal {
                    digits,
                    ints,
                    residuals,
                }
            }
            Choice::Lossy(exponent) => {
                let step = 2f64.powi(i32::from(exponent) + 1);
                let tolerance = 2f64.powi(i32::from(exponent));
                let mut ints = Scratch::with_capacity(values.len());
                let mut positions = Scratch::with_capacity(0);
                let mut exact = Scratch::with_capacity(0);
                let limit = W::EXACT_INT / 2.0;
                for (index, &value) in values.iter().enumerate() {
                    let v = value.to_f64();
                    let n = round_within(v / step, limit).filter(|&n| (n as f64).abs() < limit);
                    let within = |n: i64| {
                        (W::scaled(n, i32::from(exponent) + 1).to_f64() - v).abs() <= tolerance
                    };
                    if let Some(n) = n.filter(|&n| within(n)) {
                        ints.push(n as u64);
                    } else {
                        ints.push(0);
                        positions.push(index as u64);
                        exact.push(value);
                    }
                }
                Transformed::Lossy {
                    exponent,
                    ints: Nested::new(Values::Made(ints)),
                    positions: Nested::new(Values::Made(positions)),
                    exact: Nested::new(Values::Made(exact)),
                }
            }
        }
    }

    /// Chooses the cascades of its streams, as they will be encoded, without encoding anything;
    /// gives the size they should take. A size at or above `bound` only says so: the streams'
    /// cascades are then not all chosen, and the transform must not be encoded.
    fn price(&mut self, settings: &Settings, bound: usize) -> usize {
        // Each stream is bounded by what the fixed part and the streams before it leave.
        let streams = |fixed: usize, streams: &mut [&mut dyn FnMut(usize) -> usize]| {
            let mut size = fixed;
            for price in streams {
                size += price(bound.saturating_sub(size));
            }
            size
        };
        match self {
            Transformed::Raw(values) => values.price(settings, bound),
            Transformed::Xor(xors) => streams(1, &mut [&mut |b| xors.price(settings, b)]),
            Transformed::Decimal {
                ints, residuals, ..
            } => streams(
                4,
                &mut [&mut |b| ints.price(settings, b), &mut |b| {
                    residuals.price(settings, b)
                }],
            ),
            Transformed::Lossy {
                ints,
                positions,
                exact,
                ..
            } => streams(
                4,
                &mut [
                    &mut |b| ints.price(settings, b),
                    &mut |b| positions.price(settings, b),
                    &mut |b| exact.price(settings, b),
                ],
            ),
        }
    }

    fn encode(&self, settings: &Settings, out: &mut Vec<u8>) -> Version {
        match self {
            Transformed::Raw(values) => values.encode(settings, out),
            Transformed::Xor(xors) => {
                out.push(FloatTag::Xor as u8);
                xors.encode(settings, out)
            }
            Transformed::Decimal {
                digits,
                ints,
                residuals,
            } => {
                out.push(FloatTag::Decimal as u8);
                out.push(*digits);
                let ints = ints.encode_prefixed(settings, out);
                ints.max(residuals.encode(settings, out))
            }
            Transformed::Lossy {
                exponent,
                ints,
                positions,
                exact,
            } => {
                out.push(FloatTag::Lossy as u8);
                out.push(*exponent as u8);
                let ints = ints.encode_prefixed(settings, out);
                write_varint(out, positions.values().len() as u64);
                let positions = positions.encode_prefixed(settings, out);
                (ints.max(positions)).max(exact.encode(settings, out))
            }
        }
    }
}

/// A float stream's header, parsed once by [`FloatStream::parse`]: an integer stream of the
/// bits, or a float transform with its parameters and nested streams (still encoded).
enum FloatStream<'a, W> {
    Bits(IntStream<'a, W>),
    Decimal {
        digits: u8,
        ints: &'a [u8],
        residuals: &'a [u8],
    },
    Xor(&'a [u8]),
    Lossy {
        exponent: i8,
        ints: &'a [u8],
        exceptions: usize,
        positions: &'a [u8],
        values: &'a [u8],
    },
    Zstd(Frame<'a>),
}

impl<'a, W: FloatWord> FloatStream<'a, W> {
    /// Reads the header of the stream `bytes`.
    fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let Some(tag) = bytes.first().and_then(|&byte| FloatTag::from_byte(byte)) else {
            return Ok(FloatStream::Bits(IntStream::parse(bytes)?));
        };
        let mut reader = ByteReader::new(&bytes[1..]);
        Ok(match tag {
            FloatTag::Decimal => {
                let digits = reader.u8()?;
                if digits > W::MAX_DIGITS {
                    return Err(corrupt(format!("{digits} decimal digits")));
                }
                FloatStream::Decimal {
                    digits,
                    ints: reader.prefixed()?,
                    residuals: reader.rest(),
                }
            }
            FloatTag::Xor => FloatStream::Xor(reader.rest()),
            FloatTag::Lossy => FloatStream::Lossy {
                exponent: match reader.u8()? as i8 {
                    // The step 2^(e+1) would be infinite (0 times it NaN).
                    e if i32::from(e) + 1 > W::MAX_EXPONENT => {
                        return Err(corrupt(format!(
                            "a lossy exponent of {e} for {}-bit floats",
                            W::BITS
                        )))
                    }
                    e => e,
                },
                ints: reader.prefixed()?,
                exceptions: reader.count(0)?,
                positions: reader.prefixed()?,
                values: reader.rest(),
            },
            FloatTag::Zstd => FloatStream::Zstd(Frame::parse(reader.rest())?),
        })
    }

    fn decode(
        self,
        count: usize,
        budget: &mut Budget,
        depth: usize,
    ) -> Result<Vec<W>, DecodeError> {
        match self {
            FloatStream::Bits(bits) => bits.decode(count, budget, depth),
            FloatStream::Decimal {
                digits,
                ints,
                residuals,
            } => {
                budget.charge(count, 8)?;
                let ints = int::decode_nested::<u64>(ints, count, budget, depth + 1)?;
                let mut values = decode_nested::<W>(residuals, count, budget, depth + 1)?;
                add_decimals(&mut values, &ints, digits);
                Ok(values)
            }
            FloatStream::Xor(inner) => {
                let mut values = decode_nested::<W>(inner, count, budget, depth + 1)?;
                let mut previous = W::ZERO;
                for value in &mut values {
                    previous = previous ^ *value;
                    *value = previous;
                }
                Ok(values)
            }
            FloatStream::Lossy {
                exponent,
                ints,
                exceptions,
                positions,
                values: exact,
            } => {
                let exponent = i32::from(exponent) + 1;
                budget.charge(count, 8)?;
                let ints = int::decode_nested::<u64>(ints, count, budget, depth + 1)?;
                let mut values: Vec<W> = ints
                    .iter()
                    .map(|&n| W::scaled(n as i64, exponent))
                    .collect();
                if exceptions > count {
                    return Err(corrupt(format!(
                        "{exceptions} exceptions among {count} values"
                    )));
                }
                budget.charge(exceptions, 8 + W::BYTES)?;
                let positions =
                    int::decode_nested::<u64>(positions, exceptions, budget, depth + 1)?;
                let exact = decode_nested::<W>(exact, exceptions, budget, depth + 1)?;
                let mut next_allowed = 0u64;
                for (position, value) in positions.into_iter().zip(exact) {
                    if position < next_allowed || position >= count as u64 {
                        return Err(corrupt(format!(
                            "exception position {position} out of order or range"
                        )));
                    }
                    if ints[position as usize] != 0 {
                        return Err(corrupt(format!(
                            "the exception at {position} has an integer other than 0"
                        )));
                    }
                    next_allowed = position + 1;
                    values[position as usize] = value;
                }
                Ok(values)
            }
            FloatStream::Zstd(frame) => {
                let max_size = int::max_stream_size::<W>(count).saturating_mul(3);
                let inner = frame.decompress(max_size, budget)?;
                decode_nested(&inner, count, budget, depth + 1)
            }
        }
    }

    fn describe(self, at: Describer) -> (Codec, Vec<Encoding>) {
        let floats = |bytes| describe::<W>(bytes, at.nested());
        let ints = |bytes| int::describe::<u64>(bytes, at.nested());
        match self {
            FloatStream::Bits(bits) => bits.describe(at),
            FloatStream::Decimal {
                digits,
                ints: integers,
                residuals,
            } => (
                Codec::Decimal { digits },
                vec![ints(integers), floats(residuals)],
            ),
            FloatStream::Xor(inner) => (Codec::Xor, vec![floats(inner)]),
            FloatStream::Lossy {
                exponent,
                ints: integers,
                exceptions,
                positions,
                values,
            } => (
                Codec::Lossy {
                    exponent,
                    exceptions: exceptions as u64,
                },
                vec![ints(integers), ints(positions), floats(values)],
            ),
            FloatStream::Zstd(frame) => frame.describe(at, describe::<W>),
        }
    }
}

/// Decodes `count` float bit patterns. The caller has charged the budget for them.
pub(crate) fn decode<W: FloatWord>(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
) -> Result<Vec<W>, DecodeError> {
    decode_nested(bytes, count, budget, 0)
}

fn decode_nested<W: FloatWord>(
    bytes: &[u8],
    count: usize,
    budget: &mut Budget,
    depth: usize,
) -> Result<Vec<W>, DecodeError> {
    check_depth(depth)?;
    if is_empty_form(bytes, count) {
        return Ok(Vec::new());
    }
    FloatStream::<W>::parse(bytes)?.decode(count, budget, depth)
}

/// The encoding of a stream of float bit patterns `W`.
pub(crate) fn describe<W: FloatWord>(bytes: &[u8], at: Describer) -> Encoding {
    at.stream(bytes, FloatStream::<W>::parse, FloatStream::describe)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::bytes::write_prefixed;
    use crate::encodings::{test_len, xorshift};

    fn described(bytes: &[u8]) -> String {
        describe::<u64>(bytes, Describer::new(true)).to_string()
    }

    fn round_trip_f64(values: &[f64], settings: &Settings) -> usize {
        let bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
        let mut out = Vec::new();
        let _ = encode(&bits, settings, &mut out);
        let back = decode::<u64>(&out, bits.len(), &mut Budget::new(u64::MAX)).unwrap();
        assert_eq!(back, bits, "encoded as {}", described(&out));
        out.len()
    }

    /// What `likely_digits` gives, the plain way: every number of digits priced on every value
    /// until one leaves every residual 0.
    fn likely_digits_reference<W: FloatWord>(sample: &[W]) -> (u8, bool) {
        let few = &sample[..sample.len().min(64)];
        let mut best = (u32::MAX, 0);
        for digits in 0..=W::MAX_DIGITS {
            let scale = POW10[usize::from(digits)];
            let (mut previous, mut bits, mut inexact) = (0i64, 0, false);
            for &value in few {
                let n = decimal_int::<W>(value, scale);
                let residual = value.wrapping_sub(W::decimal(n, scale));
                inexact |= residual != W::ZERO;
                bits += int::bit_width(transform::zigzag(n.wrapping_sub(previous) as u64))
                    + int::bit_width(transform::zigzag(residual));
                previous = n;
            }
            if bits < best.0 {
                best = (bits, digits);
            }
            if !inexact {
                return (best.1, true);
            }
        }
        (best.1, false)
    }

    #[test]
    fn likely_digits_agrees_with_pricing_every_digit() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut columns: Vec<Vec<f64>> = vec![
            vec![],
            vec![0.0; 10],
            vec![f64::NAN, f64::INFINITY, 1e300, -0.0, 5e-324],
        ];
        for round in 0..400 {
            let digits = round % 12;
            let len = 1 + (next() % 80) as usize;
            let base = (next() % 100_000) as f64;
            let column = (0..len)
                .map(|i| {
                    let steps = (next() % 2000) as f64 - 1000.0;
                    let decimal = (base + steps) / 10f64.powi(digits);
                    match round % 5 {
                        // Noise in the last bits of some values, or of all.
                        1 if i % 7 == 3 => f64::from_bits(decimal.to_bits() ^ (next() % 4)),
                        2 => f64::from_bits(decimal.to_bits() ^ (next() % 1024)),
                        3 if i == len / 2 => f64::NAN,
                        _ => decimal,
                    }
                })
                .collect();
            columns.push(column);
        }
        for column in &columns {
            let bits: Vec<u64> = column.iter().map(|v| v.to_bits()).collect();
            assert_eq!(
                likely_digits(&bits),
                likely_digits_reference(&bits),
                "{column:?}"
            );
            let narrow: Vec<u32> = column.iter().map(|&v| (v as f32).to_bits()).collect();
            assert_eq!(likely_digits(&narrow), likely_digits_reference(&narrow));
        }
    }

    #[test]
    fn bounded_pricing_chooses_as_pricing_every_candidate_in_full() {
        let settings = Settings::default();
        let columns: Vec<Vec<f64>> = vec![
            (0..300).map(|i| 100.0 + f64::from(i % 37) * 0.01).collect(),
            (0..300).map(|i| f64::from(i).sin() * 1e3).collect(),
            (0..300).map(|i| f64::from(i / 50)).collect(),
            (0..300).map(|i| 1.0 + f64::from(i) * 1e-9).collect(),
        ];
        let candidates = [
            Choice::Raw,
            Choice::Xor,
            Choice::Decimal(2),
            Choice::Decimal(0),
            Choice::Decimal(9),
        ];
        for column in &columns {
            let bits: Vec<u64> = column.iter().map(|v| v.to_bits()).collect();
            // The first of the smallest, each priced without a bound.
            let sizes = candidates
                .map(|choice| Transformed::of(&bits[..], choice).price(&settings, usize::MAX));
            let smallest = (0..candidates.len())
                .min_by_key(|&i| (sizes[i], i))
                .unwrap();
            for first in 0..candidates.len() {
                let (chosen, _) = cheapest_estimated(&bits, &candidates, first, true, &settings);
                assert_eq!(chosen, candidates[smallest], "{sizes:?}, {first} first");
            }
        }
    }

    #[test]
    fn short_decimals_become_small_integers() {
        let n = test_len(2000);
        let prices: Vec<f64> = (0..n as u32)
            .map(|i| 100.0 + f64::from(i % 300) * 0.01)
            .collect();
        let size = round_trip_f64(&prices, &Settings::fast());
        assert!(size < n * 2, "{size} bytes");
    }

    #[test]
    fn noisy_decimals_keep_every_bit() {
        let values: Vec<f64> = (0..test_len(3000) as u32)
            .map(|i| {
                f64::from_bits((12.345_678_912 + f64::from(i) * 1e-6).to_bits() + (i % 5) as u64)
            })
            .collect();
        round_trip_f64(&values, &Settings::default());
    }

    #[test]
    fn special_values_round_trip_bit_exactly() {
        let specials = [
            0.0,
            -0.0,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            1e300,
        ];
        for settings in [
            Settings::fast(),
            Settings::default(),
            Settings {
                float_tolerance: Some(-12),
                ..Settings::default()
            },
        ] {
            let values: Vec<f64> = specials.iter().copied().cycle().take(500).collect();
            let bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
            let mut out = Vec::new();
            let _ = encode(&bits, &settings, &mut out);
            let back = decode::<u64>(&out, bits.len(), &mut Budget::new(u64::MAX)).unwrap();
            for (a, b) in back.iter().zip(&values) {
                let a = f64::from_bits(*a);
                if b.is_nan() || b.is_infinite() {
                    assert_eq!(a.to_bits(), b.to_bits());
                } else if settings.float_tolerance.is_some() {
                    assert!((a - b).abs() <= 2f64.powi(-12), "{a} vs {b}");
                } else {
                    assert_eq!(a.to_bits(), b.to_bits());
                }
            }
        }
    }

    #[test]
    fn lossy_stays_within_the_tolerance_and_shrinks() {
        let values: Vec<f64> = (0..test_len(5000) as u32)
            .map(|i| (f64::from(i) * 0.001).sin() * 90.0)
            .collect();
        let bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
        let settings = Settings {
            float_tolerance: Some(-12),
            ..Settings::fast()
        };
        let mut out = Vec::new();
        let _ = encode(&bits, &settings, &mut out);
        let back = decode::<u64>(&out, bits.len(), &mut Budget::new(u64::MAX)).unwrap();
        for (a, b) in back.iter().zip(&values) {
            assert!((f64::from_bits(*a) - b).abs() <= 2f64.powi(-12));
        }
        let lossless = round_trip_f64(&values, &Settings::fast());
        assert!(
            out.len() * 2 < lossless,
            "{} lossy vs {lossless} lossless",
            out.len()
        );
    }

    /// A float column's candidates are priced, not encoded: the integer streams chosen for are
    /// those of the result, whatever the column's size (here up to more than a sample).
    #[test]
    fn only_the_chosen_cascade_is_encoded() {
        use crate::encodings::int::select::tests::chosen_and_written;
        for n in [300, test_len(20_000)] {
            let columns: [Vec<f64>; 4] = [
                (0..n).map(|i| 100.0 + (i % 300) as f64 * 0.01).collect(),
                (0..n).map(|i| (i as f64 * 0.001).sin() * 90.0).collect(),
                (0..n).map(|i| [0.5, 1.5, 2.25][i % 3]).collect(),
                (0..n).map(|i| i as f64 * 1e-300).collect(),
            ];
            for values in columns {
                let bits: Vec<u64> = values.iter().map(|v| v.to_bits()).collect();
                let mut out = Vec::new();
                let (chosen, written) = chosen_and_written(|| {
                    let _ = encode(&bits, &Settings::without_zstd(), &mut out);
                    describe::<u64>(&out, Describer::new(false))
                });
                let float_transforms = match FloatTag::from_byte(out[0]) {
                    Some(FloatTag::Decimal | FloatTag::Xor | FloatTag::Lossy) => 1,
                    _ => 0,
                };
                assert_eq!(chosen, written - float_transforms, "{}", described(&out));
            }
        }
    }

    /// `bits` encoded with `settings`, checked to decode back.
    fn round_trip<W: FloatWord>(bits: &[W], settings: &Settings) -> usize {
        let mut out = Vec::new();
        let _ = encode(bits, settings, &mut out);
        let back = decode::<W>(&out, bits.len(), &mut Budget::new(u64::MAX)).unwrap();
        assert!(
            back == bits,
            "{}",
            describe::<W>(&out, Describer::new(true))
        );
        out.len()
    }

    /// Floats whose mantissas are noise: whatever the encoder tries, they take no more than their
    /// bits at fixed width and its two header bytes.
    #[test]
    fn noise_takes_no_more_than_its_bits() {
        let n = test_len(40_000);
        let mut next = xorshift(11);
        let unit = |bits: u64| (bits >> 11) as f64 / (1u64 << 53) as f64;
        let f64_columns: [Vec<u64>; 3] = [
            (0..n)
                .map(|i| (20.0 + (i as f64 * 1e-3).sin() * 5.0 + unit(next()) * 0.2).to_bits())
                .collect(),
            (0..n)
                .map(|_| (unit(next()) * 2e6 - 1e6).to_bits())
                .collect(),
            (0..n).map(|_| next() >> 2).collect(),
        ];
        let f32_columns: [Vec<u32>; 3] = [
            (0..n)
                .map(|_| ((unit(next()) * 20.0 - 10.0) as f32).to_bits())
                .collect(),
            (0..n)
                .map(|i| ((i as f32 * 1e-3).cos() + unit(next()) as f32 * 1e-3).to_bits())
                .collect(),
            (0..n).map(|_| (next() >> 34) as u32).collect(),
        ];
        for settings in [
            Settings::default(),
            Settings::fast(),
            Settings::small(),
            Settings::without_zstd(),
        ] {
            for bits in &f64_columns {
                let size = round_trip(bits, &settings);
                assert!(size <= 2 + n * 8, "{size} bytes for {n} f64");
            }
            for bits in &f32_columns {
                let size = round_trip(bits, &settings);
                assert!(size <= 2 + n * 4, "{size} bytes for {n} f32");
            }
        }
    }

    /// Runs of values that come back (a path walked again, a cycle of readings) are what the
    /// zstd stage is for: tried with the transform the column chose, it keeps a frame around it,
    /// though each value alone is noise.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn runs_that_come_back_are_compressed() {
        let mut next = xorshift(5);
        let unit = |bits: u64| (bits >> 11) as f64 / (1u64 << 53) as f64;
        let cycle: Vec<u64> = (0..4000)
            .map(|i| (10.0 + (i as f64 * 1e-2).sin() + unit(next()) * 1e-3).to_bits())
            .collect();
        let bits: Vec<u64> = cycle.iter().copied().cycle().take(60_000).collect();
        let plain = round_trip(&bits, &Settings::without_zstd());
        let mut out = Vec::new();
        let _ = encode(&bits, &Settings::default(), &mut out);
        assert_eq!(FloatTag::from_byte(out[0]), Some(FloatTag::Zstd));
        let compressed = round_trip(&bits, &Settings::default());
        assert!(
            compressed * 4 < plain,
            "{compressed} bytes, {plain} without zstd"
        );
    }

    #[test]
    fn f32_round_trips() {
        let values: Vec<u32> = (0..test_len(1000))
            .map(|i| (i as f32 * 0.25 - 7.5).to_bits())
            .chain([f32::NAN.to_bits(), (-0.0f32).to_bits()])
            .collect();
        let mut out = Vec::new();
        let _ = encode(&values, &Settings::default(), &mut out);
        assert_eq!(
            decode::<u32>(&out, values.len(), &mut Budget::new(u64::MAX)).unwrap(),
            values
        );
    }

    #[test]
    fn descriptions_read_float_transforms_and_integer_cascades() {
        let fixed = [int::IntTag::Fixed as u8, 0];
        let mut decimal = vec![FloatTag::Decimal as u8, 2];
        write_prefixed(&mut decimal, &fixed);
        decimal.extend([FloatTag::Xor as u8, int::IntTag::Varint as u8]);
        assert_eq!(
            described(&decimal),
            "decimal(2 digits, integers: fixed(0 bytes), residuals: xor → varint)"
        );
        let mut lossy = vec![FloatTag::Lossy as u8, (-12i8) as u8];
        write_prefixed(&mut lossy, &fixed);
        lossy.push(0);
        write_prefixed(&mut lossy, &fixed);
        lossy.extend(fixed);
        let encoding = describe::<u64>(&lossy, Describer::new(false));
        assert_eq!(
            encoding.codec,
            Codec::Lossy {
                exponent: -12,
                exceptions: 0
            }
        );
        assert_eq!(encoding.children.len(), 3);
        assert_eq!(
            encoding.to_string(),
            "lossy(within 2^-12, integers: fixed(0 bytes))"
        );
        assert_eq!(
            described(&[FloatTag::Decimal as u8, 19]),
            "unreadable (corrupt: 19 decimal digits)"
        );
        // An F32 stream takes fewer digits than an F64 one.
        let mut digits = vec![FloatTag::Decimal as u8, 11];
        write_prefixed(&mut digits, &fixed);
        digits.extend(fixed);
        assert!(described(&digits).starts_with("decimal(11 digits"));
        assert!(describe::<u32>(&digits, Describer::new(false))
            .to_string()
            .starts_with("unreadable"));
    }

    /// The decimal transform's loops, which run as wide vectors where the CPU has them, give
    /// every bit that the same arithmetic one value at a time gives: the integers and residuals
    /// of encoding and the values of decoding, at every number of digits, for decimals, noise,
    /// halves (where rounding turns), huge values, infinities and NaNs, and for integers beyond
    /// what a float holds exactly. The lengths leave a part of a vector over.
    #[test]
    fn wide_decimal_loops_agree_with_one_value_at_a_time() {
        fn check<W: FloatWord>(values: &[W], ints: &[u64]) {
            for digits in 0..=W::MAX_DIGITS {
                let scale = POW10[usize::from(digits)];
                let Transformed::Decimal {
                    ints: made_ints,
                    residuals,
                    ..
                } = Transformed::of(values, Choice::Decimal(digits))
                else {
                    panic!("not a decimal transform");
                };
                let expected_ints: Vec<u64> = (values.iter())
                    .map(|&value| decimal_int(value, scale) as u64)
                    .collect();
                assert_eq!(made_ints.values(), expected_ints, "{digits} digits");
                let expected_residuals: Vec<W> = (values.iter().zip(&expected_ints))
                    .map(|(&value, &n)| decimal_residual(value, n as i64, scale))
                    .collect();
                assert_eq!(residuals.values(), expected_residuals, "{digits} digits");
                let mut decoded = expected_residuals.clone();
                add_decimals(&mut decoded, &expected_ints, digits);
                assert_eq!(decoded, values, "{digits} digits");
                // Integers a decoder may be handed, of any size, and residuals of any bits.
                let residuals: Vec<W> = (values.iter())
                    .map(|&v| v ^ W::from_u64(0x9e37_79b9_7f4a_7c15))
                    .collect();
                let mut added = residuals.clone();
                add_decimals(&mut added, ints, digits);
                let expected: Vec<W> = (residuals.iter().zip(ints))
                    .map(|(&residual, &n)| W::decimal(n as i64, scale).wrapping_add(residual))
                    .collect();
                assert_eq!(added, expected, "{digits} digits");
            }
        }
        let mut next = xorshift(0x5eed);
        let len = test_len(1003);
        let f64s: Vec<u64> = (0..len)
            .map(|i| match i % 8 {
                0 => ((next() % 2_000_000) as f64 / 1000.0 - 1000.0).to_bits(),
                1 => next(),
                2 => ((next() % 1000) as f64 + 0.5).to_bits(),
                3 => (-((next() % 1000) as f64) - 0.5).to_bits(),
                4 => [
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    -0.0,
                    1e300,
                    -9.1e15,
                ][(next() % 6) as usize]
                    .to_bits(),
                5 => ((next() % 100_000_000) as f64 * 1e-7).to_bits(),
                _ => (f64::from_bits(next() >> 2) * 1e-3).to_bits(),
            })
            .collect();
        let ints: Vec<u64> = (0..len)
            .map(|i| match i % 3 {
                0 => next(),
                1 => next() % 1_000_000,
                _ => (next() % 1000).wrapping_neg(),
            })
            .collect();
        check::<u64>(&f64s, &ints);
        let f32s: Vec<u32> = (f64s.iter())
            .map(|&bits| (f64::from_bits(bits) as f32).to_bits())
            .collect();
        check::<u32>(&f32s, &ints);
    }

    /// `n as float` rounds before the division does: an f32 Decimal stream with n = 2^24 + 1
    /// and one digit holds 16777216 / 10, correctly rounded to 1677721.625, where the exact
    /// quotient 1677721.7 would round to 1677721.75.
    #[test]
    fn decimal_integers_round_to_the_float_before_the_division() {
        let n = (1u64 << 24) + 1;
        let mut ints = vec![0x01];
        write_varint(&mut ints, n);
        let mut stream = vec![FloatTag::Decimal as u8, 1];
        write_prefixed(&mut stream, &ints);
        stream.extend([0x00, 0]);
        let bits = decode::<u32>(&stream, 1, &mut Budget::new(u64::MAX)).unwrap();
        let value = f64::from(f32::from_bits(bits[0]));
        assert_eq!(value, 1_677_721.625);
        assert_eq!(f32::from_bits(bits[0]), 16_777_216f32 / 10.0);
        assert_ne!(value, 1_677_721.75);
    }

    #[test]
    fn hostile_streams_are_errors() {
        let mut budget = Budget::new(u64::MAX);
        assert!(
            decode::<u64>(&[FloatTag::Decimal as u8, 99], 1, &mut budget).is_err(),
            "too many digits"
        );
        let mut lossy = vec![FloatTag::Lossy as u8, 0xf4];
        write_prefixed(&mut lossy, &[0x00, 0]);
        lossy.push(1);
        write_prefixed(&mut lossy, &[0x00, 1, 9]);
        lossy.extend([0x00, 0]);
        assert!(
            decode::<u64>(&lossy, 2, &mut budget).is_err(),
            "exception past the end"
        );
        let mut lossy = vec![FloatTag::Lossy as u8, 0];
        write_prefixed(&mut lossy, &[0x01, 2]);
        lossy.push(1);
        write_prefixed(&mut lossy, &[0x00, 0]);
        lossy.extend([0x00, 0]);
        assert!(
            decode::<u64>(&lossy, 1, &mut budget).is_err(),
            "an exception whose integer is not 0"
        );
        lossy[4] = 0;
        assert_eq!(decode::<u64>(&lossy, 1, &mut budget), Ok(vec![0]));
        let mut step = vec![FloatTag::Lossy as u8, 127];
        write_prefixed(&mut step, &[0x00, 0]);
        step.push(0);
        write_prefixed(&mut step, &[0x01]);
        assert!(
            decode::<u32>(&step, 1, &mut budget).is_err(),
            "an infinite step for f32"
        );
        assert_eq!(decode::<u64>(&step, 1, &mut budget), Ok(vec![0]));
        let nested = [FloatTag::Xor as u8; 100];
        assert!(
            decode::<u64>(&nested, 1, &mut budget).is_err(),
            "cascade too deep"
        );
    }
}
