//! String streams: columns of UTF-8 strings.
//!
//! ```text
//! str_stream := 0x00 lengths_size:varint lengths:int_stream(count, u64) bytes
//!               Plain: the byte length of every string, then all their bytes back to back
//!               (exactly the sum of the lengths). Every string must be valid UTF-8.
//! ```

use super::bytes::{write_varint, ByteReader};
use super::int;
use crate::error::{corrupt, DecodeError};

const PLAIN: u8 = 0x00;

/// Strings as the encoder collects them: all bytes back to back and where each one ends.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct StrColumn {
    pub(crate) bytes: String,
    pub(crate) ends: Vec<usize>,
}

impl StrColumn {
    pub(crate) fn push(&mut self, value: &str) {
        self.bytes.push_str(value);
        self.ends.push(self.bytes.len());
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn get(&self, index: usize) -> &str {
        let start = if index == 0 { 0 } else { self.ends[index - 1] };
        &self.bytes[start..self.ends[index]]
    }

    fn lengths(&self) -> Vec<u64> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let len = end - start;
                start = end;
                len as u64
            })
            .collect()
    }
}

pub(crate) fn encode(column: &StrColumn, out: &mut Vec<u8>) {
    out.push(PLAIN);
    let mut lengths = Vec::new();
    int::encode_unsigned(&column.lengths(), &mut lengths);
    write_varint(out, lengths.len() as u64);
    out.extend_from_slice(&lengths);
    out.extend_from_slice(column.bytes.as_bytes());
}

/// Decodes `count` strings, validating all of them. The caller has charged the decoding budget for
/// the count; the bytes are already in memory.
pub(crate) fn decode(bytes: &[u8], count: usize) -> Result<StrColumn, DecodeError> {
    let mut reader = ByteReader::new(bytes);
    match reader.u8()? {
        PLAIN => {
            let lengths = reader.prefixed()?;
            let data = reader.rest();
            let lengths = int::decode::<u64>(lengths, count)?;
            let text = std::str::from_utf8(data).map_err(|e| corrupt(format!("string bytes are not UTF-8: {e}")))?;
            let mut ends = Vec::with_capacity(count);
            let mut end = 0usize;
            for length in lengths {
                end = usize::try_from(length)
                    .ok()
                    .and_then(|length| end.checked_add(length))
                    .filter(|&end| end <= text.len())
                    .ok_or_else(|| corrupt("string lengths exceed the string bytes"))?;
                if !text.is_char_boundary(end) {
                    return Err(corrupt("a string ends inside a UTF-8 character"));
                }
                ends.push(end);
            }
            if end != text.len() {
                return Err(corrupt(format!("{} string bytes left over", text.len() - end)));
            }
            Ok(StrColumn { bytes: text.to_owned(), ends })
        }
        tag => Err(corrupt(format!("unknown string encoding tag {tag:#04x}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_unicode_and_empty_strings() {
        let mut column = StrColumn::default();
        for s in ["", "a", "héllo", "🦀🦀", "", "plain ascii"] {
            column.push(s);
        }
        let mut out = Vec::new();
        encode(&column, &mut out);
        assert_eq!(decode(&out, column.len()).unwrap(), column);
    }

    #[test]
    fn a_split_character_is_an_error() {
        let mut column = StrColumn::default();
        column.push("é");
        let mut out = Vec::new();
        encode(&column, &mut out);
        // Claim two strings of one byte each over the same two bytes.
        let mut forged = vec![PLAIN];
        let mut lengths = Vec::new();
        int::encode_unsigned(&[1u64, 1], &mut lengths);
        write_varint(&mut forged, lengths.len() as u64);
        forged.extend_from_slice(&lengths);
        forged.extend_from_slice("é".as_bytes());
        assert!(decode(&forged, 2).is_err());
        assert!(decode(&out, 2).is_err());
    }
}
