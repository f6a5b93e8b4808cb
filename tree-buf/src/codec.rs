//! Column codecs on their own, outside the file format: for benchmarks against other
//! implementations, and for programs that want one codec on a slice. Enabled by the `codec-api`
//! feature.
//!
//! These functions write and read a codec's packed data alone, without the tag byte that a
//! branch of a file starts with; what files hold is described in `docs/FORMAT.md`.

/// Simple16 (Zhang, Long and Suel, WWW 2008): values below 2^28 packed into little-endian 32-bit
/// words, as many to a word as their widths allow.
pub mod simple16 {
    use crate::encodings::int::simple16 as codec;
    use crate::DecodeError;

    /// The largest value Simple16 can hold: 2^28 - 1.
    pub const MAX_VALUE: u32 = (1 << 28) - 1;

    /// Packs `values`; `None` when one of them is above [`MAX_VALUE`].
    ///
    /// ```
    /// use tree_buf::codec::simple16;
    ///
    /// let values = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];
    /// let packed = simple16::encode(&values).unwrap();
    /// assert_eq!(simple16::decode(&packed, values.len())?, values);
    /// assert_eq!(simple16::encode(&[simple16::MAX_VALUE + 1]), None);
    /// # Ok::<(), tree_buf::DecodeError>(())
    /// ```
    pub fn encode(values: &[u32]) -> Option<Vec<u8>> {
        if values.iter().any(|&value| value > MAX_VALUE) {
            return None;
        }
        let mut out = Vec::new();
        codec::encode_words(values, &mut out);
        Some(out)
    }

    /// Unpacks `count` values packed by [`encode`]. Bytes that do not hold exactly `count` values
    /// (with zero padding after the last) are a [`Corrupt`](crate::DecodeErrorKind::Corrupt)
    /// error; memory is allocated only for as many values as the bytes can hold.
    pub fn decode(bytes: &[u8], count: usize) -> Result<Vec<u32>, DecodeError> {
        codec::decode_u32(bytes, count)
    }
}
