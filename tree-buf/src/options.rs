//! Options that change how values are encoded and decoded.

use crate::encodings::Settings;

/// The deepest nesting of schema levels that tree-buf encodes or decodes.
///
/// Every struct, sequence, option, map, tuple and enum level counts one; `Box`, `Rc`, `Arc` and
/// newtype structs are transparent. A recursive type counts its levels once: every depth of its
/// values shares the schema of the type (see [`DecodeOptions::depth_limit`] for the data's
/// depth). A [`Value`](crate::Value) counts one per level of arrays, objects, variants and
/// maps, and one more where a place is optional (it holds nulls, or a field some objects lack)
/// or holds values of several kinds (a union); a `Value` given whole keeps its levels below the
/// 48th in one recursive place, so only values given piece by piece reach the limit. A value
/// nested deeper fails to encode with
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
    /// The cap set by [`Self::max_decoded_bytes`], or `None` for the default rule.
    max_decoded_bytes: Option<u64>,
    pub(crate) verify_checksums: bool,
    pub(crate) parallel: bool,
    pub(crate) depth_limit: usize,
}

impl DecodeOptions {
    /// The least default cap on decoded size: 1 GiB.
    pub const DEFAULT_MAX_DECODED_BYTES: u64 = 1 << 30;

    /// The default cap grows with the input past [`Self::DEFAULT_MAX_DECODED_BYTES`]: this many
    /// bytes for each byte of input. Honest columnar data rarely expands more (a 17 MB file of
    /// game logs decodes to about 1.5 GB of Rust values); a bomb expands far more.
    pub const DEFAULT_EXPANSION: u64 = 128;

    /// The default of [`Self::depth_limit`].
    pub const DEFAULT_DEPTH_LIMIT: usize = 100_000;

    /// Caps the memory decoding may use, counted as the in-memory size of every decoded value and
    /// intermediate column (at least one byte for each value, even a zero-sized one). Exceeding it
    /// is a [`LimitExceeded`](crate::DecodeErrorKind::LimitExceeded) error, which turns
    /// decompression bombs into errors. Default: [`Self::DEFAULT_EXPANSION`] times the input's
    /// length, and at least [`Self::DEFAULT_MAX_DECODED_BYTES`].
    pub fn max_decoded_bytes(mut self, bytes: u64) -> Self {
        self.max_decoded_bytes = Some(bytes);
        self
    }

    /// Whether to verify the checksums of the schema and the data (default: yes). Turning it off
    /// only makes sense to study how the format behaves on corrupted input.
    pub fn verify_checksums(mut self, verify: bool) -> Self {
        self.verify_checksums = verify;
        self
    }

    /// Decodes the branches a type reads on several threads (through rayon) when there are
    /// enough of their bytes for that to pay; the type's decoders are then built in two passes,
    /// the first of which reads only lengths, presence and discriminants. Default: on.
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }

    /// How deep a value of a recursive type may nest: a linked list of `n` elements nests `n`
    /// levels. Decoding never recurses on the data, so this limit guards the code that uses the
    /// values (a derived `Drop`, `Debug` or `PartialEq` recurses once per level) rather than
    /// the decoder. Deeper values are a [`LimitExceeded`](crate::DecodeErrorKind::LimitExceeded)
    /// error. Default: [`Self::DEFAULT_DEPTH_LIMIT`].
    ///
    /// ```
    /// use tree_buf::{decode_with_options, encode, DecodeErrorKind, DecodeOptions, Decode, Encode};
    ///
    /// #[derive(Encode, Decode, Debug)]
    /// enum List { Nil, Cons(u32, Box<List>) }
    ///
    /// let list = (0..200).fold(List::Nil, |tail, i| List::Cons(i, Box::new(tail)));
    /// let bytes = encode(&list);
    /// let shallow = DecodeOptions::default().depth_limit(100);
    /// let err = decode_with_options::<List>(&bytes, &shallow).unwrap_err();
    /// assert_eq!(err.kind(), DecodeErrorKind::LimitExceeded);
    /// assert!(decode_with_options::<List>(&bytes, &DecodeOptions::default()).is_ok());
    /// ```
    pub fn depth_limit(mut self, levels: usize) -> Self {
        self.depth_limit = levels;
        self
    }

    /// The cap on decoded bytes for an input of `input_len` bytes.
    pub(crate) fn budget_for(&self, input_len: usize) -> u64 {
        self.max_decoded_bytes.unwrap_or_else(|| {
            (input_len as u64)
                .saturating_mul(Self::DEFAULT_EXPANSION)
                .max(Self::DEFAULT_MAX_DECODED_BYTES)
        })
    }
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            max_decoded_bytes: None,
            parallel: true,
            verify_checksums: true,
            depth_limit: Self::DEFAULT_DEPTH_LIMIT,
        }
    }
}

/// Whether the encoder favours speed or size.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Preference {
    /// Column codecs, and zstd's fastest level only on branches it shrinks to half or less
    /// (text, mostly): the fastest to write and read. Floats whose mantissas are noise are
    /// judged by a quick guess of their decimal digits, which may leave them a few percent
    /// larger.
    Faster,
    /// Column codecs, and a fast zstd stage (level 3) on branches where it saves at least a
    /// kilobyte or half the branch. A zstd frame takes about 3 microseconds to start decoding,
    /// which a load of a few small branches notices (the GeoJSON countries' names load in about
    /// 0.6 of the time when their branch has no zstd stage).
    #[default]
    Balanced,
    /// A slow, strong zstd stage (level 19) wherever it saves a byte, and integer columns
    /// keyed by a sibling whose values they grow with (a batter's hits by his at-bats), stored
    /// in parts by the sibling's values: the smallest files. Reading a keyed column alone then
    /// reads its sibling's branch too.
    Smaller,
}

/// How to encode; [`Default`] is lossless, balanced between speed and size, and parallel.
///
/// ```
/// use tree_buf::{decode, encode_with_options, EncodeOptions, Preference};
///
/// let heights: Vec<f64> = (0..1000).map(|i| (i as f64 * 0.01).sin() * 100.0).collect();
/// let options = EncodeOptions::default().lossy_float_tolerance(-12).prefer(Preference::Smaller);
/// let bytes = encode_with_options(&heights, &options)?;
/// let back: Vec<f64> = decode(&bytes)?;
/// for (a, b) in back.iter().zip(&heights) {
///     assert!((a - b).abs() <= 2f64.powi(-12));
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeOptions {
    pub(crate) settings: Settings,
    pub(crate) parallel: bool,
}

impl EncodeOptions {
    /// Lets every float be stored within `2^exponent` of its value (`-12`: within 1/4096), which
    /// shrinks noisy measurements a lot. NaN and infinities are kept exactly. Default: lossless.
    pub fn lossy_float_tolerance(mut self, exponent: i32) -> Self {
        self.settings.float_tolerance = Some(exponent.clamp(-120, 120));
        self
    }

    /// Trades encoding and decoding speed against size.
    pub fn prefer(mut self, preference: Preference) -> Self {
        let preferred = match preference {
            Preference::Faster => Settings::fast(),
            Preference::Balanced => Settings::default(),
            Preference::Smaller => Settings::small(),
        };
        self.settings = Settings {
            float_tolerance: self.settings.float_tolerance,
            ..preferred
        };
        self
    }

    /// Encodes independent branches on several threads (through rayon) when the value is large
    /// enough for that to pay. Default: on.
    pub fn parallel(mut self, parallel: bool) -> Self {
        self.parallel = parallel;
        self
    }
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            settings: Settings::default(),
            parallel: true,
        }
    }
}
