//! Statistics of a chunk's branches, which let readers and query engines skip chunks: null counts
//! of presence streams, and the least and greatest value of numbers and strings.

use super::format::{RawStats, MAX_STRING_BOUND};
use crate::branch::{Column, Words};
use crate::schema::NodeType;

/// The statistics of `column`, the branch of a node of type `node_type`.
pub(crate) fn of(column: &Column, node_type: NodeType) -> RawStats {
    if column.len() == 0 {
        return RawStats::None;
    }
    match column {
        Column::Bool(values) if node_type == NodeType::Option => {
            RawStats::Nulls(values.iter().filter(|&&present| !present).count() as u64)
        }
        Column::Bool(values) => {
            let any = |wanted: bool| values.contains(&wanted);
            let (min, max) = (u128::from(!any(false)), u128::from(any(true)));
            RawStats::Words { width: 1, min, max }
        }
        Column::Int(words) => {
            let signed = matches!(
                node_type,
                NodeType::I8 | NodeType::I16 | NodeType::I32 | NodeType::I64 | NodeType::I128
            );
            int_stats(words, signed)
        }
        Column::Float(Words::U32(bits)) => float_stats(bits.iter().map(|&b| f32::from_bits(b)), 4),
        Column::Float(Words::U64(bits)) => float_stats(bits.iter().map(|&b| f64::from_bits(b)), 8),
        Column::Float(_) => RawStats::None,
        Column::Str(strings) => {
            let mut values = (0..strings.len()).map(|index| strings.get(index).as_bytes());
            let first = values.next().unwrap_or_default();
            let (min, max) = values.fold((first, first), |(min, max), value| {
                (min.min(value), max.max(value))
            });
            match upper_bound(max) {
                Some(max) => RawStats::Bytes {
                    min: min[..min.len().min(MAX_STRING_BOUND)].to_vec(),
                    max,
                },
                None => RawStats::None,
            }
        }
        // Positions among another node's values bound nothing a reader filters by.
        Column::Recursion(_) => RawStats::None,
    }
}

/// A string of at most [`MAX_STRING_BOUND`] bytes that no string beginning like `max` exceeds:
/// `max` itself if short enough, else its prefix with the last byte that can be raised raised.
fn upper_bound(max: &[u8]) -> Option<Vec<u8>> {
    if max.len() <= MAX_STRING_BOUND {
        return Some(max.to_vec());
    }
    let mut bound = max[..MAX_STRING_BOUND].to_vec();
    while let Some(last) = bound.pop() {
        if last < u8::MAX {
            bound.push(last + 1);
            return Some(bound);
        }
    }
    None
}

fn int_stats(words: &Words, signed: bool) -> RawStats {
    // Signed words order as unsigned ones once their sign bits are flipped: one pass, no
    // branches, for either.
    macro_rules! extremes {
        ($values:expr, $word:ty) => {{
            let flip: $word = if signed { 1 << (<$word>::BITS - 1) } else { 0 };
            let (mut min, mut max) = (<$word>::MAX, <$word>::MIN);
            for &value in $values.iter() {
                min = min.min(value ^ flip);
                max = max.max(value ^ flip);
            }
            RawStats::Words {
                width: size_of::<$word>() as u8,
                min: (min ^ flip) as u128,
                max: (max ^ flip) as u128,
            }
        }};
    }
    match words {
        Words::U8(values) => extremes!(values, u8),
        Words::U16(values) => extremes!(values, u16),
        Words::U32(values) => extremes!(values, u32),
        Words::U64(values) => extremes!(values, u64),
        Words::U128(values) => extremes!(values, u128),
    }
}

/// The least and greatest of floats that are not NaN, as their bit patterns; none if all are.
fn float_stats<F: Into<f64> + Copy>(values: impl Iterator<Item = F>, width: u8) -> RawStats {
    let mut extremes: Option<(F, F)> = None;
    for value in values {
        let wide: f64 = value.into();
        if wide.is_nan() {
            continue;
        }
        extremes = Some(match extremes {
            None => (value, value),
            Some((min, max)) => (
                if wide < min.into() { value } else { min },
                if wide > max.into() { value } else { max },
            ),
        });
    }
    let bits = |value: F| -> u128 {
        let wide: f64 = value.into();
        if width == 4 {
            u128::from((wide as f32).to_bits())
        } else {
            u128::from(wide.to_bits())
        }
    };
    match extremes {
        Some((min, max)) => RawStats::Words {
            width,
            min: bits(min),
            max: bits(max),
        },
        None => RawStats::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encodings::string::StrColumn;

    #[test]
    fn signed_words_are_ordered_as_signed() {
        let column = Column::Int(Words::U8(vec![5, 0xff, 3]));
        assert_eq!(
            of(&column, NodeType::I8),
            RawStats::Words {
                width: 1,
                min: 0xff,
                max: 5
            }
        );
        assert_eq!(
            of(&column, NodeType::U8),
            RawStats::Words {
                width: 1,
                min: 3,
                max: 0xff
            }
        );
    }

    #[test]
    fn floats_skip_nan_and_presence_counts_nulls() {
        let bits = [1.5f64, f64::NAN, -2.0].map(f64::to_bits).to_vec();
        let stats = of(&Column::Float(Words::U64(bits)), NodeType::F64);
        assert_eq!(
            stats,
            RawStats::Words {
                width: 8,
                min: u128::from((-2.0f64).to_bits()),
                max: u128::from(1.5f64.to_bits())
            }
        );
        let nan = of(
            &Column::Float(Words::U32(vec![f32::NAN.to_bits()])),
            NodeType::F32,
        );
        assert_eq!(nan, RawStats::None);
        let presence = Column::Bool(vec![true, false, false]);
        assert_eq!(of(&presence, NodeType::Option), RawStats::Nulls(2));
    }

    #[test]
    fn long_strings_get_bounds_that_still_hold() {
        let mut strings = StrColumn::default();
        let long = "b".repeat(100);
        for value in ["m", &long, "a"] {
            strings.push(value);
        }
        let RawStats::Bytes { min, max } = of(&Column::Str(strings), NodeType::Str) else {
            panic!("string statistics")
        };
        assert_eq!(min, b"a");
        assert_eq!(max, b"m");
        let mut strings = StrColumn::default();
        strings.push(&long);
        let RawStats::Bytes { max, .. } = of(&Column::Str(strings), NodeType::Str) else {
            panic!("string statistics")
        };
        assert_eq!(max.len(), MAX_STRING_BOUND);
        assert!(max.as_slice() > long.as_bytes());
        assert_eq!(upper_bound(&[0xff; 65]), None);
    }
}
