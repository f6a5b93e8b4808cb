//! The columns encoders collect, one per branch.

use crate::encodings::string::StrColumn;
use crate::encodings::{bool as bools, int, string};

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
    /// Unsigned integers (and chars, lengths, discriminants).
    Unsigned(Words),
    /// Signed integers, as two's-complement words.
    Signed(Words),
    /// Floats, as IEEE 754 bit patterns.
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
        Column::Unsigned(Words::U64(lengths))
    }

    pub(crate) fn discriminants(discriminants: Vec<u32>) -> Column {
        Column::Unsigned(Words::U32(discriminants))
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Column::Bool(values) => values.len(),
            Column::Unsigned(words) | Column::Signed(words) | Column::Float(words) => each_width!(words, v => v.len()),
            Column::Str(column) => column.len(),
        }
    }

    /// The branch bytes: empty for an empty column, else the codec's output.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if self.len() == 0 {
            return out;
        }
        match self {
            Column::Bool(values) => bools::encode(values, &mut out),
            Column::Unsigned(words) | Column::Float(words) => each_width!(words, v => int::encode_unsigned(v, &mut out)),
            Column::Signed(words) => each_width!(words, v => int::encode_signed(v, &mut out)),
            Column::Str(column) => string::encode(column, &mut out),
        }
        out
    }
}
