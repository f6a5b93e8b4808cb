//! The columns encoders collect, one per branch, and how each becomes bytes.

use std::cmp::Ordering;

use crate::encodings::string::{Ranks, StrColumn};
use crate::encodings::{bool as bools, float, int, recursion, string, Settings, Version};

/// Integer words of one width.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Words {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    U128(Vec<u128>),
}

/// The values of one branch, before encoding.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Column {
    Bool(Vec<bool>),
    /// Integers (signed ones as two's-complement words), chars, lengths, discriminants.
    Int(Words),
    /// Floats, as IEEE 754 bit patterns (`U32` or `U64` words).
    Float(Words),
    Str(StrColumn),
    /// The positions among its target's values of a recursion node's values.
    Recursion(Vec<u64>),
}

macro_rules! each_width {
    ($words:expr, $values:ident => $body:expr) => {
        match $words {
            $crate::branch::Words::U8($values) => $body,
            $crate::branch::Words::U16($values) => $body,
            $crate::branch::Words::U32($values) => $body,
            $crate::branch::Words::U64($values) => $body,
            $crate::branch::Words::U128($values) => $body,
        }
    };
}
pub(crate) use each_width;

impl Column {
    pub(crate) fn lengths(lengths: Vec<u64>) -> Column {
        Column::Int(Words::U64(lengths))
    }

    pub(crate) fn discriminants(discriminants: Vec<u32>) -> Column {
        Column::Int(Words::U32(discriminants))
    }

    /// A total order on columns, to sort values by their encoded form: by kind, then value by
    /// value (integers and float bit patterns as unsigned words, strings by their bytes).
    pub(crate) fn total_cmp(&self, other: &Column) -> Ordering {
        let kind = |column: &Column| match column {
            Column::Bool(_) => 0,
            Column::Int(_) => 1,
            Column::Float(_) => 2,
            Column::Str(_) => 3,
            Column::Recursion(_) => 4,
        };
        match (self, other) {
            (Column::Bool(a), Column::Bool(b)) => a.cmp(b),
            (Column::Int(a), Column::Int(b)) | (Column::Float(a), Column::Float(b)) => a.cmp(b),
            (Column::Recursion(a), Column::Recursion(b)) => a.cmp(b),
            (Column::Str(a), Column::Str(b)) => (0..a.len())
                .map(|i| a.get(i))
                .cmp((0..b.len()).map(|i| b.get(i))),
            _ => kind(self).cmp(&kind(other)),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Column::Bool(values) => values.len(),
            Column::Int(words) | Column::Float(words) => each_width!(words, v => v.len()),
            Column::Str(column) => column.len(),
            Column::Recursion(positions) => positions.len(),
        }
    }

    /// About how many bytes the values take in memory, which is what encoding them costs.
    pub(crate) fn bytes(&self) -> usize {
        match self {
            Column::Bool(values) => values.len(),
            Column::Int(words) | Column::Float(words) => {
                each_width!(words, v => size_of_val(v.as_slice()))
            }
            Column::Str(column) => column.bytes(),
            Column::Recursion(positions) => size_of_val(positions.as_slice()),
        }
    }

    /// Writes the branch bytes to `out`, which it empties first (so that a caller can reuse
    /// it): nothing for an empty column, else the chosen cascade. `group` is the length of the
    /// fixed-size arrays whose items this column holds, if any. Gives the version the branch
    /// needs and, for a string column that may key or be keyed, its ranks, for
    /// [`super::key_string_siblings`].
    pub(crate) fn encode(
        &self,
        group: Option<usize>,
        settings: &Settings,
        out: &mut Vec<u8>,
    ) -> (Version, Option<Ranks>) {
        out.clear();
        if self.len() == 0 {
            return (Version::FIRST, None);
        }
        let mut ranks = None;
        let version = match self {
            Column::Bool(values) => bools::encode(values, settings, out),
            Column::Int(words) => match group {
                Some(group) => {
                    each_width!(words, v => int::select::encode_grouped(v, group, settings, out))
                }
                None => each_width!(words, v => int::encode(v, settings, out)),
            },
            Column::Float(Words::U32(bits)) => float::encode(bits, settings, out),
            Column::Float(Words::U64(bits)) => float::encode(bits, settings, out),
            Column::Float(words) => each_width!(words, v => int::encode(v, settings, out)),
            Column::Str(column) => {
                let (version, column_ranks) = string::encode(column, settings, out);
                ranks = column_ranks;
                version
            }
            Column::Recursion(positions) => recursion::encode(positions, settings, out),
        };
        (version, ranks)
    }
}
