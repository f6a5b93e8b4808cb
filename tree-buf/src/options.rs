//! Options that change how values are decoded.

/// The deepest nesting of schema levels that tree-buf encodes or decodes.
///
/// Every struct, sequence, option, map, tuple and enum level counts one; `Box`, `Rc`, `Arc` and
/// newtype structs are transparent. A value nested deeper fails to encode with
/// [`EncodeErrorKind::DepthLimit`](crate::EncodeErrorKind::DepthLimit), and a file whose schema
/// nests deeper fails to decode with [`DecodeErrorKind::LimitExceeded`](crate::DecodeErrorKind),
/// so neither ever overflows the stack.
pub const MAX_DEPTH: usize = 256;

/// Limits and checks applied while decoding; [`Default`] suits untrusted input.
///
/// ```
/// use tree_buf::{decode_with_options, encode, DecodeErrorKind, DecodeOptions};
///
/// let bytes = encode(&vec![0u64; 1_000]);
/// let small = DecodeOptions::default().max_decoded_bytes(1_000);
/// let err = decode_with_options::<Vec<u64>>(&bytes, &small).unwrap_err();
/// assert_eq!(err.kind(), DecodeErrorKind::LimitExceeded);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeOptions {
    pub(crate) max_decoded_bytes: u64,
    pub(crate) verify_checksums: bool,
}

impl DecodeOptions {
    /// The default cap on decoded size: 1 GiB.
    pub const DEFAULT_MAX_DECODED_BYTES: u64 = 1 << 30;

    /// Caps the memory decoding may use, counted as the in-memory size of every decoded value and
    /// intermediate column (at least one byte for each value, even a zero-sized one). Exceeding it
    /// is a [`LimitExceeded`](crate::DecodeErrorKind::LimitExceeded) error, which turns
    /// decompression bombs into errors. Default: [`Self::DEFAULT_MAX_DECODED_BYTES`].
    pub fn max_decoded_bytes(mut self, bytes: u64) -> Self {
        self.max_decoded_bytes = bytes;
        self
    }

    /// Whether to verify the checksums of the schema and the data (default: yes). Turning it off
    /// only makes sense to study how the format behaves on corrupted input.
    pub fn verify_checksums(mut self, verify: bool) -> Self {
        self.verify_checksums = verify;
        self
    }
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions { max_decoded_bytes: Self::DEFAULT_MAX_DECODED_BYTES, verify_checksums: true }
    }
}
