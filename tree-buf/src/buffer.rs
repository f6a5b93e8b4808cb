//! A buffer that keeps the memory of encoding and decoding from one call to the next.

use crate::encodings::scratch::{holding, Kept};
use crate::error::{DecodeError, EncodeError};
use crate::file::{ReadScratch, WriteScratch};
use crate::options::{DecodeOptions, EncodeOptions};
use crate::types::{Decode, Encode};

/// Encodes and decodes like [`encode`](crate::encode) and [`decode`](crate::decode), keeping
/// the memory it used for the next call: a program that encodes many small values (messages,
/// records) spares most of the allocations of each.
///
/// Encoding, it keeps the file's bytes, one output vector per branch, the schema being written
/// and the large temporary columns that encoding makes on the calling thread (transformed values
/// and candidate streams; with parallel encoding, those of the other threads are theirs), so its
/// memory grows to what the largest value encoded needed, and stays until it is dropped. Plain
/// [`encode`](crate::encode) frees them after each column instead, and a large value's next
/// encoding then touches fresh pages again wherever the allocator gave them back to the system. The bytes it writes are exactly those
/// [`encode_with_options`](crate::encode_with_options) writes. Decoding, it keeps the parsed
/// schema of the last file, which the next file of the same type reuses.
///
/// ```
/// use tree_buf::prelude::*;
/// use tree_buf::Buffer;
///
/// #[derive(Encode, Decode, Debug, PartialEq)]
/// struct Tick {
///     symbol: String,
///     price: f64,
/// }
///
/// let mut buffer = Buffer::new();
/// for price in [189.5, 190.25] {
///     let value = vec![Tick { symbol: "AAPL".into(), price }];
///     let bytes: &[u8] = buffer.encode(&value);
///     assert_eq!(bytes, encode(&value));
///     let bytes = bytes.to_vec();
///     let back: Vec<Tick> = buffer.decode(&bytes)?;
///     assert_eq!(back, value);
/// }
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
#[derive(Debug, Default)]
pub struct Buffer {
    write: WriteScratch,
    /// The temporaries of encoding, between calls.
    kept: Kept,
    read: ReadScratch,
}

impl Buffer {
    /// An empty buffer; it allocates nothing until it is used.
    pub fn new() -> Self {
        Buffer::default()
    }

    /// Encodes `value` with the default [`EncodeOptions`]; the bytes are valid until the buffer
    /// is used again.
    ///
    /// # Panics
    ///
    /// When [`encode`](crate::encode) does: only for a value nested deeper than
    /// [`MAX_DEPTH`](crate::MAX_DEPTH) schema levels.
    pub fn encode<T: Encode + ?Sized>(&mut self, value: &T) -> &[u8] {
        match self.encode_with_options(value, &EncodeOptions::default()) {
            Ok(bytes) => bytes,
            Err(error) => panic!("tree_buf::Buffer::encode failed: {error}"),
        }
    }

    /// Encodes `value` with the given options, as
    /// [`encode_with_options`](crate::encode_with_options) does.
    pub fn encode_with_options<T: Encode + ?Sized>(
        &mut self,
        value: &T,
        options: &EncodeOptions,
    ) -> Result<&[u8], EncodeError> {
        let write = &mut self.write;
        holding(&mut self.kept, || write.write(value, options))?;
        Ok(&self.write.out)
    }

    /// Decodes a file written by [`encode`](crate::encode) with the default [`DecodeOptions`].
    pub fn decode<'de, T: Decode<'de>>(&mut self, bytes: &'de [u8]) -> Result<T, DecodeError> {
        self.decode_with_options(bytes, &DecodeOptions::default())
    }

    /// Decodes a file under the given limits, as
    /// [`decode_with_options`](crate::decode_with_options) does.
    pub fn decode_with_options<'de, T: Decode<'de>>(
        &mut self,
        bytes: &'de [u8],
        options: &DecodeOptions,
    ) -> Result<T, DecodeError> {
        self.read.read(bytes, options)
    }
}
