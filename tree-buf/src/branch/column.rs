//! The columns encoders collect, one per branch, and how each becomes bytes.

use crate::encodings::string::StrColumn;
use crate::encodings::{bool as bools, float, int, string, Settings};

/// Integer words of one width.
#[derive(Debug, Clone, PartialEq)]
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
}

macro_rules! each_width {
    ($words:expr, $values:ident => $body:expr) => {
        match $words {
            Words::U8($values) => $body,
            Words::U16($values) => $body,
            Words::U32($values) => $body,
            Words::U64($values) => $body,
            Words::U128($values) => $body,
        }
    };
}

impl Column {
    pub(crate) fn lengths(lengths: Vec<u64>) -> Column {
        Column::Int(Words::U64(lengths))
    }

    pub(crate) fn discriminants(discriminants: Vec<u32>) -> Column {
        Column::Int(Words::U32(discriminants))
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Column::Bool(values) => values.len(),
            Column::Int(words) | Column::Float(words) => each_width!(words, v => v.len()),
            Column::Str(column) => column.len(),
        }
    }

    /// The branch bytes: empty for an empty column, else the chosen cascade. `group` is the
    /// length of the fixed-size arrays whose items this column holds, if any.
    pub(crate) fn encode(&self, group: Option<usize>, settings: &Settings) -> Vec<u8> {
        let mut out = Vec::new();
        if self.len() == 0 {
            return out;
        }
        match self {
            Column::Bool(values) => bools::encode(values, settings, &mut out),
            Column::Int(words) => match group {
                Some(group) => {
                    each_width!(words, v => int::select::encode_grouped(v, group, settings, &mut out))
                }
                None => each_width!(words, v => int::encode(v, settings, &mut out)),
            },
            Column::Float(Words::U32(bits)) => float::encode(bits, settings, &mut out),
            Column::Float(Words::U64(bits)) => float::encode(bits, settings, &mut out),
            Column::Float(words) => each_width!(words, v => int::encode(v, settings, &mut out)),
            Column::Str(column) => string::encode(column, settings, &mut out),
        }
        out
    }
}
