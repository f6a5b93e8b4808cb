//! Reading and writing the primitive pieces every grammar is built of: bytes, LEB128 varints and
//! length-prefixed sub-streams. Every read is bounds-checked and fails with `Truncated`.

use crate::error::{corrupt, truncated, DecodeError};

/// Appends `value` as an unsigned LEB128 varint: 7 bits a byte, low bits first, high bit set on
/// every byte but the last.
pub(crate) fn write_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// The bytes [`write_varint`] takes for `value`.
pub(crate) fn varint_len(value: u64) -> usize {
    (u64::BITS - value.leading_zeros()).max(1).div_ceil(7) as usize
}

/// Appends a byte string prefixed by its length as a varint.
pub(crate) fn write_prefixed(out: &mut Vec<u8>, bytes: &[u8]) {
    write_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// A cursor over untrusted bytes.
#[derive(Debug, Clone)]
pub(crate) struct ByteReader<'a> {
    bytes: &'a [u8],
}

impl<'a> ByteReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        ByteReader { bytes }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len()
    }

    /// The bytes not read yet, consuming them.
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.bytes)
    }

    // Inlined: varints are read a byte at a time through it.
    #[inline]
    pub(crate) fn u8(&mut self) -> Result<u8, DecodeError> {
        let (&first, rest) = self
            .bytes
            .split_first()
            .ok_or_else(|| truncated("expected another byte"))?;
        self.bytes = rest;
        Ok(first)
    }

    pub(crate) fn take(&mut self, len: usize) -> Result<&'a [u8], DecodeError> {
        if len > self.bytes.len() {
            return Err(truncated(format!(
                "expected {len} bytes, {} remain",
                self.bytes.len()
            )));
        }
        let (head, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(head)
    }

    pub(crate) fn u32_le(&mut self) -> Result<u32, DecodeError> {
        let bytes = self.take(4)?;
        Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }

    pub(crate) fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(corrupt("varint overflows 64 bits"));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(corrupt("varint longer than 10 bytes"))
    }

    /// A varint that counts items each of which takes at least `min_bytes_each` of the remaining
    /// input, checked against what remains so that no caller allocates from an unchecked count.
    pub(crate) fn count(&mut self, min_bytes_each: usize) -> Result<usize, DecodeError> {
        let count = self.varint()?;
        let needed = count.saturating_mul(min_bytes_each as u64);
        if needed > self.remaining() as u64 {
            return Err(truncated(format!(
                "a count of {count} cannot fit in the {} bytes that remain",
                self.remaining()
            )));
        }
        usize::try_from(count).map_err(|_| corrupt("count does not fit in memory"))
    }

    /// A sub-stream written by [`write_prefixed`].
    pub(crate) fn prefixed(&mut self) -> Result<&'a [u8], DecodeError> {
        let len = self.count(1)?;
        self.take(len)
    }

    /// Fails unless every byte has been read.
    pub(crate) fn finish(&self, what: &str) -> Result<(), DecodeError> {
        if self.bytes.is_empty() {
            Ok(())
        } else {
            Err(corrupt(format!(
                "{} unexpected bytes after {what}",
                self.bytes.len()
            )))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_at_every_length() {
        for shift in 0..64 {
            for value in [
                1u64 << shift,
                (1u64 << shift) - 1,
                (1u64 << shift) + 1,
                u64::MAX >> shift,
            ] {
                let mut out = Vec::new();
                write_varint(&mut out, value);
                let mut reader = ByteReader::new(&out);
                assert_eq!(reader.varint().unwrap(), value);
                assert_eq!(reader.remaining(), 0);
            }
        }
    }

    #[test]
    fn overlong_and_overflowing_varints_are_errors() {
        assert!(ByteReader::new(&[0xff; 11]).varint().is_err());
        let mut too_big = vec![0xff; 9];
        too_big.push(0x02);
        assert!(ByteReader::new(&too_big).varint().is_err());
        assert!(ByteReader::new(&[0x80]).varint().is_err());
    }

    #[test]
    fn counts_are_checked_against_the_remaining_bytes() {
        let mut out = Vec::new();
        write_varint(&mut out, 1 << 60);
        assert!(ByteReader::new(&out).count(1).is_err());
        assert_eq!(ByteReader::new(&[0]).count(8).unwrap(), 0);
    }
}
