//! Boolean streams.
//!
//! ```text
//! bool_stream := 0x00 byte{ceil(count / 8)}   Packed: value i is bit (i % 8) of byte (i / 8),
//!                                             least significant bit first; unused bits are 0
//! ```

use super::bytes::ByteReader;
use crate::error::{corrupt, DecodeError};

const PACKED: u8 = 0x00;

pub(crate) fn encode(values: &[bool], out: &mut Vec<u8>) {
    out.push(PACKED);
    out.extend(values.chunks(8).map(|chunk| chunk.iter().rev().fold(0u8, |byte, &bit| (byte << 1) | u8::from(bit))));
}

/// Decodes `count` booleans. The caller has charged the decoding budget for them.
pub(crate) fn decode(bytes: &[u8], count: usize) -> Result<Vec<bool>, DecodeError> {
    let mut reader = ByteReader::new(bytes);
    match reader.u8()? {
        PACKED => {
            let data = reader.rest();
            if data.len() != count.div_ceil(8) {
                return Err(corrupt(format!("{} bytes of packed bits for {count} booleans", data.len())));
            }
            if count % 8 != 0 && data.last().is_some_and(|&last| last >> (count % 8) != 0) {
                return Err(corrupt("packed booleans have bits set past the last value"));
            }
            Ok((0..count).map(|i| data[i / 8] >> (i % 8) & 1 == 1).collect())
        }
        tag => Err(corrupt(format!("unknown boolean encoding tag {tag:#04x}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_length_up_to_two_bytes_and_more() {
        for len in 0..20usize {
            let values: Vec<bool> = (0..len).map(|i| i % 3 == 0).collect();
            let mut out = Vec::new();
            encode(&values, &mut out);
            assert_eq!(out.len(), 1 + len.div_ceil(8));
            assert_eq!(decode(&out, len).unwrap(), values);
        }
    }

    #[test]
    fn hostile_streams_are_errors() {
        assert!(decode(&[PACKED, 0b1111], 3).is_err(), "stray bits");
        assert!(decode(&[PACKED], 1).is_err(), "too short");
        assert!(decode(&[PACKED, 0], usize::MAX).is_err(), "count past the bytes");
        assert!(decode(&[9], 0).is_err(), "unknown tag");
    }
}
