//! Leaves: booleans, integers, floats, chars and `()`.
//!
//! Integers are written at their declared width and read into any integer type that holds every
//! value (a `u32` file reads as `u64`, or as `u8` when each value fits); floats widen from `f32`
//! to `f64`, and narrow from `f64` to `f32` when every value is exactly an `f32`; all of them
//! are bit-exact.

use std::cmp::Ordering;
use std::marker::PhantomData;
use std::vec::IntoIter;

use super::derive_support::check_unit;
use super::{is_empty_void, Decode, Encode, ValueDecoder, ValueEncoder};
use crate::branch::{Column, DecodeContext, EncodeResult, Leaf, SchemaWriter, Words};
use crate::encodings::budget::Budget;
use crate::encodings::int;
use crate::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::schema::{NodeRef, NodeType};

/// Collects the values of a primitive type as they are.
#[derive(Debug)]
pub struct PrimitiveEncoder<T> {
    values: Vec<T>,
}

/// Hands back a decoded column of a primitive type.
#[derive(Debug)]
pub struct PrimitiveDecoder<T> {
    values: Leaf<IntoIter<T>>,
}

impl<T: Copy + Default> PrimitiveDecoder<T> {
    fn from_leaf(values: Leaf<IntoIter<T>>) -> Self {
        PrimitiveDecoder { values }
    }

    #[inline]
    fn next_value(&mut self) -> T {
        self.values.next_item().unwrap_or_default()
    }

    fn next_values(&mut self, n: usize) -> Vec<T> {
        let column = self.values.column();
        if n >= column.len() {
            // The rest of the column is the result: collecting a vector's own iterator keeps
            // its memory (moving what is left to the front, unless that is under half of it),
            // so a column taken whole is neither copied nor written to fresh pages.
            return std::mem::take(column).collect();
        }
        // Fewer than are left: copied.
        let wanted = &column.as_slice()[..n];
        let mut taken = crate::memory::vec_with_capacity(wanted.len());
        taken.extend_from_slice(wanted);
        self.skip_values(n);
        taken
    }

    fn run(&mut self, n: usize) -> Option<std::iter::Copied<std::slice::Iter<'_, T>>> {
        let run = self.values.column().as_slice().get(..n)?;
        Some(run.iter().copied())
    }

    fn skip_values(&mut self, n: usize) {
        if let Some(last) = n.checked_sub(1) {
            self.values.column().nth(last);
        }
    }
}

/// Implements the encoder, decoder and traits of a primitive whose decoding is `$decode`.
macro_rules! primitive {
    ($t:ty, $node:expr, |$values:ident| $column:expr, $decode:path) => {
        impl ValueEncoder<$t> for PrimitiveEncoder<$t> {
            fn new(_depth: usize) -> Self {
                PrimitiveEncoder { values: Vec::new() }
            }
            #[inline]
            fn push(&mut self, value: &$t) {
                self.values.push(*value);
            }
            fn reserve(&mut self, additional: usize) {
                self.values.reserve(additional);
            }
            fn push_all(&mut self, values: &[$t]) {
                self.values.extend_from_slice(values);
            }
            fn bytes(&self) -> usize {
                size_of_val(self.values.as_slice())
            }
            fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
                let $values = self.values;
                out.leaf($node, $column)
            }
        }

        // SAFETY: the values are plain numbers, booleans and characters.
        #[allow(unsafe_code)]
        unsafe impl<'de> ValueDecoder<'de, $t> for PrimitiveDecoder<$t> {
            fn new(
                node: NodeRef<'_>,
                count: usize,
                ctx: &mut DecodeContext<'de>,
            ) -> Result<Self, DecodeError> {
                if is_empty_void(node, count)? {
                    return Ok(PrimitiveDecoder::from_leaf(Leaf::empty()));
                }
                Ok(PrimitiveDecoder::from_leaf($decode(node, count, ctx)?))
            }
            #[inline]
            fn next(&mut self) -> $t {
                self.next_value()
            }
            fn next_vec(&mut self, n: usize) -> Vec<$t> {
                self.next_values(n)
            }
            fn decoded_run(&mut self, n: usize) -> Option<impl Iterator<Item = $t>> {
                self.run(n)
            }
            fn skip_run(&mut self, n: usize) {
                self.skip_values(n);
            }
        }

        impl Encode for $t {
            type Encoder = PrimitiveEncoder<$t>;
            fn encoded_cmp(&self, other: &Self) -> Ordering {
                KeyOrder::key_cmp(self, other)
            }
        }

        impl<'de> Decode<'de> for $t {
            type Decoder = PrimitiveDecoder<$t>;
        }
    };
}

/// The order of primitive keys in hash maps and sets: natural, total for floats.
trait KeyOrder {
    fn key_cmp(&self, other: &Self) -> Ordering;
}

macro_rules! key_order {
    ($($t:ty),*; $($float:ty),*) => {
        $(impl KeyOrder for $t {
            fn key_cmp(&self, other: &Self) -> Ordering {
                self.cmp(other)
            }
        })*
        $(impl KeyOrder for $float {
            fn key_cmp(&self, other: &Self) -> Ordering {
                self.total_cmp(other)
            }
        })*
    };
}
key_order!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, bool, char; f32, f64);

/// An integer type as stored: its node type and the word holding its bit pattern.
trait StoredInt: Copy {
    type Word: int::Word;
    fn from_word(word: Self::Word) -> Self;
}

macro_rules! stored_int {
    ($($t:ty => $word:ty),*) => {$(
        impl StoredInt for $t {
            type Word = $word;
            #[inline]
            fn from_word(word: $word) -> Self {
                word as $t
            }
        }
    )*};
}
stored_int!(u8 => u8, u16 => u16, u32 => u32, u64 => u64, u128 => u128, i8 => u8, i16 => u16, i32 => u32, i64 => u64, i128 => u128);

/// Registers the stored integers of `node` as `S`, converted to `T` in the batch, which fails if
/// `T` cannot hold one of them.
fn convert_ints<S, T>(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'_>,
) -> Result<Leaf<IntoIter<T>>, DecodeError>
where
    S: StoredInt + std::fmt::Display,
    T: TryFrom<S> + Default + Send + Sync + 'static,
{
    // Both columns are alive while a wider one is made.
    let extra = if size_of::<T>() > size_of::<S::Word>() {
        size_of::<T>()
    } else {
        0
    };
    let node_type = node.node_type();
    ctx.words::<S::Word, _>(node, count, extra, move |words| {
        Ok(narrowed::<S, T>(words, node_type)?.into_iter())
    })
}

/// The stored integers `words` of a node of `node_type` as `T`; an error if `T` cannot hold one
/// of them.
fn narrowed<S, T>(words: Vec<S::Word>, node_type: NodeType) -> Result<Vec<T>, DecodeError>
where
    S: StoredInt + std::fmt::Display,
    T: TryFrom<S> + Default,
{
    let convert = |word| T::try_from(S::from_word(word));
    // One pass checks every value, without an exit the compiler would have to keep (none at all
    // where every value fits), so that the conversion needs no checks.
    let fit = words
        .iter()
        .fold(true, |fit, &word| fit & convert(word).is_ok());
    if let (false, Some(&word)) = (fit, words.iter().find(|&&word| convert(word).is_err())) {
        return Err(DecodeError::new(
            DecodeErrorKind::SchemaMismatch,
            "",
            format!(
                "the file has {node_type} here, and its value {} does not fit in the type's {}",
                S::from_word(word),
                std::any::type_name::<T>()
            ),
        ));
    }
    Ok((words.into_iter())
        .map(|word| convert(word).unwrap_or_default())
        .collect())
}

/// The bytes of the words of an integer node type (the budget [`int_bytes`] charges for each);
/// `None` for other types.
pub(crate) fn int_width(node_type: NodeType) -> Option<usize> {
    use NodeType::*;
    Some(match node_type {
        U8 | I8 => 1,
        U16 | I16 => 2,
        U32 | I32 => 4,
        U64 | I64 => 8,
        U128 | I128 => 16,
        _ => return None,
    })
}

/// The `count` integers of a branch of a node of integer type `node_type` as bytes, as a `u8`
/// field reads them (an error if one does not fit), for byte slices lent from what a reader
/// keeps.
pub(crate) fn int_bytes(
    node_type: NodeType,
    branch: &[u8],
    count: usize,
    budget: &mut Budget,
) -> Result<Vec<u8>, DecodeError> {
    fn read<S>(
        node_type: NodeType,
        branch: &[u8],
        count: usize,
        budget: &mut Budget,
    ) -> Result<Vec<u8>, DecodeError>
    where
        S: StoredInt + std::fmt::Display,
        u8: TryFrom<S>,
    {
        narrowed::<S, u8>(int::decode::<S::Word>(branch, count, budget)?, node_type)
    }
    match node_type {
        NodeType::U8 => int::decode::<u8>(branch, count, budget),
        NodeType::U16 => read::<u16>(node_type, branch, count, budget),
        NodeType::U32 => read::<u32>(node_type, branch, count, budget),
        NodeType::U64 => read::<u64>(node_type, branch, count, budget),
        NodeType::U128 => read::<u128>(node_type, branch, count, budget),
        NodeType::I8 => read::<i8>(node_type, branch, count, budget),
        NodeType::I16 => read::<i16>(node_type, branch, count, budget),
        NodeType::I32 => read::<i32>(node_type, branch, count, budget),
        NodeType::I64 => read::<i64>(node_type, branch, count, budget),
        NodeType::I128 => read::<i128>(node_type, branch, count, budget),
        other => Err(DecodeError::new(
            DecodeErrorKind::SchemaMismatch,
            "",
            format!("the file has {other} here, the type expects u8"),
        )),
    }
}

/// Registers any integer node as integers of type `T`.
fn decode_int<T>(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'_>,
) -> Result<Leaf<IntoIter<T>>, DecodeError>
where
    T: Default + Send + Sync + 'static,
    T: TryFrom<u8> + TryFrom<u16> + TryFrom<u32> + TryFrom<u64> + TryFrom<u128>,
    T: TryFrom<i8> + TryFrom<i16> + TryFrom<i32> + TryFrom<i64> + TryFrom<i128>,
{
    match node.node_type() {
        NodeType::U8 => convert_ints::<u8, T>(node, count, ctx),
        NodeType::U16 => convert_ints::<u16, T>(node, count, ctx),
        NodeType::U32 => convert_ints::<u32, T>(node, count, ctx),
        NodeType::U64 => convert_ints::<u64, T>(node, count, ctx),
        NodeType::U128 => convert_ints::<u128, T>(node, count, ctx),
        NodeType::I8 => convert_ints::<i8, T>(node, count, ctx),
        NodeType::I16 => convert_ints::<i16, T>(node, count, ctx),
        NodeType::I32 => convert_ints::<i32, T>(node, count, ctx),
        NodeType::I64 => convert_ints::<i64, T>(node, count, ctx),
        NodeType::I128 => convert_ints::<i128, T>(node, count, ctx),
        _ => Err(node.mismatch(std::any::type_name::<T>())),
    }
}

primitive!(u8, NodeType::U8, |v| Column::Int(Words::U8(v)), decode_int);
primitive!(
    u16,
    NodeType::U16,
    |v| Column::Int(Words::U16(v)),
    decode_int
);
primitive!(
    u32,
    NodeType::U32,
    |v| Column::Int(Words::U32(v)),
    decode_int
);
primitive!(
    u64,
    NodeType::U64,
    |v| Column::Int(Words::U64(v)),
    decode_int
);
primitive!(
    u128,
    NodeType::U128,
    |v| Column::Int(Words::U128(v)),
    decode_int
);
primitive!(
    usize,
    NodeType::U64,
    |v| Column::Int(Words::U64(v.into_iter().map(|x| x as u64).collect())),
    decode_int
);
primitive!(
    i8,
    NodeType::I8,
    |v| Column::Int(Words::U8(v.into_iter().map(|x| x as u8).collect())),
    decode_int
);
primitive!(
    i16,
    NodeType::I16,
    |v| Column::Int(Words::U16(v.into_iter().map(|x| x as u16).collect())),
    decode_int
);
primitive!(
    i32,
    NodeType::I32,
    |v| Column::Int(Words::U32(v.into_iter().map(|x| x as u32).collect())),
    decode_int
);
primitive!(
    i64,
    NodeType::I64,
    |v| Column::Int(Words::U64(v.into_iter().map(|x| x as u64).collect())),
    decode_int
);
primitive!(
    i128,
    NodeType::I128,
    |v| Column::Int(Words::U128(v.into_iter().map(|x| x as u128).collect())),
    decode_int
);
primitive!(
    isize,
    NodeType::I64,
    |v| Column::Int(Words::U64(v.into_iter().map(|x| x as i64 as u64).collect())),
    decode_int
);

fn decode_f32(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'_>,
) -> Result<Leaf<IntoIter<f32>>, DecodeError> {
    match node.node_type() {
        NodeType::F32 => ctx.floats::<u32, _>(node, count, 0, |bits| {
            let values: Vec<f32> = bits.into_iter().map(f32::from_bits).collect();
            Ok(values.into_iter())
        }),
        // Narrowing is exact when every value converts back to the same bits (NaN payloads
        // included): the values an `f32` widened to, as a `Value` keeps them.
        NodeType::F64 => ctx.floats::<u64, _>(node, count, 0, |bits| {
            let narrow = |bits: u64| f64::from_bits(bits) as f32;
            let exact = |bits: u64| f64::from(narrow(bits)).to_bits() == bits;
            // One pass checks every value without an early exit, as for integers.
            let all_exact = bits.iter().fold(true, |all, &b| all & exact(b));
            if let (false, Some(&inexact)) = (all_exact, bits.iter().find(|&&b| !exact(b))) {
                return Err(DecodeError::new(
                    DecodeErrorKind::SchemaMismatch,
                    "",
                    format!(
                        "the file has f64 here, and its value {} is not exactly an f32",
                        f64::from_bits(inexact)
                    ),
                ));
            }
            let values: Vec<f32> = bits.into_iter().map(narrow).collect();
            Ok(values.into_iter())
        }),
        _ => Err(node.mismatch("f32")),
    }
}

fn decode_f64(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'_>,
) -> Result<Leaf<IntoIter<f64>>, DecodeError> {
    match node.node_type() {
        NodeType::F64 => ctx.floats::<u64, _>(node, count, 0, |bits| {
            let values: Vec<f64> = bits.into_iter().map(f64::from_bits).collect();
            Ok(values.into_iter())
        }),
        // Widening is exact, and keeps NaN payloads as far as IEEE 754 conversion does.
        NodeType::F32 => ctx.floats::<u32, _>(node, count, size_of::<f64>(), |bits| {
            let values: Vec<f64> = (bits.into_iter())
                .map(|bits| f64::from(f32::from_bits(bits)))
                .collect();
            Ok(values.into_iter())
        }),
        _ => Err(node.mismatch("f64")),
    }
}

primitive!(
    f32,
    NodeType::F32,
    |v| Column::Float(Words::U32(v.into_iter().map(f32::to_bits).collect())),
    decode_f32
);
primitive!(
    f64,
    NodeType::F64,
    |v| Column::Float(Words::U64(v.into_iter().map(f64::to_bits).collect())),
    decode_f64
);

fn decode_bool(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'_>,
) -> Result<Leaf<IntoIter<bool>>, DecodeError> {
    match node.node_type() {
        NodeType::Bool => ctx.bools(node, count, |bools| Ok(bools.into_iter())),
        _ => Err(node.mismatch("bool")),
    }
}

primitive!(bool, NodeType::Bool, |v| Column::Bool(v), decode_bool);

fn decode_char(
    node: NodeRef<'_>,
    count: usize,
    ctx: &mut DecodeContext<'_>,
) -> Result<Leaf<IntoIter<char>>, DecodeError> {
    match node.node_type() {
        NodeType::Char => ctx.words::<u32, _>(node, count, 0, |codes| {
            let chars: Vec<char> = codes
                .into_iter()
                .map(char_from_code)
                .collect::<Result<_, _>>()?;
            Ok(chars.into_iter())
        }),
        // A `Value` keeps a char as a string: a file of chars read as `Value` and written again
        // holds one-char strings.
        NodeType::Str => ctx.strings(node, count, 0, |strings| {
            let chars: Vec<char> = (0..strings.len())
                .map(|index| {
                    let text = strings.get(index);
                    let mut chars = text.chars();
                    match (chars.next(), chars.next()) {
                        (Some(only), None) => Ok(only),
                        _ => Err(DecodeError::new(
                            DecodeErrorKind::SchemaMismatch,
                            String::new(),
                            format!(
                                "the file has the string {text:?} here, the type expects a char"
                            ),
                        )),
                    }
                })
                .collect::<Result<_, _>>()?;
            Ok(chars.into_iter())
        }),
        _ => Err(node.mismatch("char")),
    }
}

/// The char of a stored code, which must be a Unicode scalar value.
pub(crate) fn char_from_code(code: u32) -> Result<char, DecodeError> {
    char::from_u32(code).ok_or_else(|| corrupt(format!("{code:#x} is not a Unicode scalar value")))
}

primitive!(
    char,
    NodeType::Char,
    |v| Column::Int(Words::U32(v.into_iter().map(u32::from).collect())),
    decode_char
);

/// Decodes values without data: `()`, `PhantomData`.
#[derive(Debug)]
pub struct UnitDecoder<T: ?Sized>(PhantomData<fn() -> PhantomData<T>>);

macro_rules! unit {
    ($([$($generics:tt)*] $t:ty => $value:expr, $name:expr);*) => {$(
        impl<$($generics)*> Encode for $t {
            type Encoder = super::UnitEncoder;
            fn encoded_cmp(&self, _other: &Self) -> Ordering {
                Ordering::Equal
            }
        }

        impl<'de, $($generics)*> Decode<'de> for $t {
            type Decoder = UnitDecoder<$t>;
        }

        // SAFETY: a unit value holds nothing.
        #[allow(unsafe_code)]
        unsafe impl<'de, $($generics)*> ValueDecoder<'de, $t> for UnitDecoder<$t> {
            fn new(node: NodeRef<'_>, count: usize, ctx: &mut DecodeContext<'de>) -> Result<Self, DecodeError> {
                check_unit(node, count, $name, ctx)?;
                // Zero-sized values still cost time to hand out; bound them like any other.
                ctx.charge(node, count, 1)?;
                Ok(UnitDecoder(PhantomData))
            }
            #[inline]
            fn next(&mut self) -> $t {
                $value
            }
        }
    )*};
}

unit!([] () => (), "()"; [T: ?Sized] PhantomData<T> => PhantomData, "PhantomData");
