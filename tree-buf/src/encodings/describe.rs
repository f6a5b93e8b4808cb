//! What a size breakdown says about a stream: [`Encoding`], the tree of codecs a stream is made
//! of, built from the same typed headers that decoding reads.

use std::fmt;

use serde::Serialize;

use super::check_depth;
use crate::error::DecodeError;

/// How one stream of a branch is encoded: the codec at its top, the stream's size, and the
/// streams nested in it. It prints as the cascade, such as `delta → zigzag → bitpack` or
/// `dictionary(values: delta → varint, indices: bitpack)`.
///
/// ```
/// use tree_buf::{size_breakdown, Codec};
///
/// let bytes = tree_buf::encode(&(0..1000u64).map(|i| 1_700_000_000 + i * 60).collect::<Vec<_>>());
/// let breakdown = size_breakdown(&bytes)?;
/// let items = breakdown.branches.iter().find(|b| b.path == "[]").unwrap();
/// assert_eq!(items.encoding.codec, Codec::Delta);
/// assert_eq!(items.encoding.bytes, items.bytes);
/// assert!(items.encoding.to_string().starts_with("delta → "));
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Encoding {
    /// The codec at the top of the stream, with its parameters.
    #[serde(flatten)]
    pub codec: Codec,
    /// The stream's bytes, its tag and the streams nested in it included.
    pub bytes: usize,
    /// The streams nested in this one, in the order each [`Codec`] variant lists them.
    pub children: Vec<Encoding>,
}

/// A codec at the top of a stream, with the parameters its header holds. The streams it nests
/// are an [`Encoding`]'s children, in the order listed here; `docs/FORMAT.md` specifies each
/// codec to the byte.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "codec", rename_all = "snake_case")]
pub enum Codec {
    /// A branch of no bytes: its node holds no values.
    Empty,
    /// Integers in `width` little-endian bytes each (0: every value is 0).
    Fixed {
        /// Bytes per value.
        width: u8,
    },
    /// Integers as LEB128 varints.
    Varint,
    /// Integers mapped so that small magnitudes of either sign become small. Child: the mapped
    /// integers.
    Zigzag,
    /// Each integer less the one before. Child: the differences.
    Delta,
    /// Integers less their minimum, bit-packed in blocks.
    #[serde(rename = "bitpack")]
    BitPack,
    /// Integers below 2^28 packed into 32-bit words.
    Simple16,
    /// Runs of equal integers. Children: the runs' lengths less one, their values.
    Rle {
        /// The number of runs.
        runs: u64,
    },
    /// The distinct integers and an index per value. Children: the distinct integers, the
    /// indices.
    Dictionary {
        /// The number of distinct integers.
        distinct: u64,
    },
    /// The distinct groups of `group` consecutive integers and an index per group. Children: the
    /// groups' integers, the indices.
    GroupDictionary {
        /// Integers per group.
        group: u64,
        /// The number of distinct groups.
        distinct: u64,
    },
    /// A prefix code per repeated integer, the others escaped. Children: the code lengths, the
    /// coded integers, the escaped integers.
    Huffman {
        /// The number of coded integers.
        symbols: u64,
        /// The number of escaped integers.
        escapes: u64,
        /// The streams the codes are in: 1, or 4 read in turn (format version 5).
        streams: u64,
    },
    /// A zstd frame around a stream of the same family. Child: the stream inside (whose `bytes`
    /// are `content_bytes`), when the description decompressed it
    /// ([`BreakdownOptions::decompress_zstd`](crate::BreakdownOptions::decompress_zstd)); none
    /// otherwise.
    Zstd {
        /// The size of the stream inside the frame, from the stage's header.
        content_bytes: u64,
    },
    /// Floats as decimal integers over `10^digits`, plus residuals. Children: the integers, the
    /// residuals.
    Decimal {
        /// The number of decimal digits.
        digits: u8,
    },
    /// Each float's bits xor the previous float's. Child: the xors.
    Xor,
    /// Floats rounded to multiples of `2^(exponent + 1)`, some kept exactly. Children: the
    /// multiples, the positions of the exact values, the exact values.
    Lossy {
        /// Every float is within `2^exponent` of the value written.
        exponent: i8,
        /// The number of floats kept exactly.
        exceptions: u64,
    },
    /// Booleans a bit each.
    Packed,
    /// Runs of booleans, alternating from `first`. Child: the runs' lengths less one.
    BoolRle {
        /// The value of the first run.
        first: bool,
        /// The number of runs.
        runs: u64,
    },
    /// Strings back to back. Child: their byte lengths.
    Plain,
    /// Strings back to back, their bytes an integer stream. Children: their byte lengths, the
    /// bytes.
    CodedText,
    /// The distinct strings and an index per string. Children: the distinct strings, the
    /// indices.
    StrDictionary {
        /// The number of distinct strings.
        distinct: u64,
    },
    /// Strings as a function of the strings of another branch. Children: the table of a string
    /// per distinct source string; when there are exceptions, their positions and their
    /// strings.
    Keyed {
        /// The index of the source branch.
        source_branch: usize,
        /// The path of the source branch's node (empty for the root), where known.
        source_path: Option<String>,
        /// The number of distinct source strings (and table entries).
        distinct: u64,
        /// The number of strings that differ from their table entry.
        exceptions: u64,
    },
    /// A keyed integer stream: the values split into `parts` by the values of another branch.
    KeyedInts {
        /// The index of the source branch.
        source_branch: usize,
        /// The path of the source branch's node (empty for the root), where known.
        source_path: Option<String>,
        /// The number of parts.
        parts: usize,
    },
    /// A stream that cannot be read as its family's grammar says.
    Unreadable {
        /// Why.
        reason: String,
    },
}

impl Encoding {
    /// A branch of no bytes.
    pub(crate) fn empty() -> Self {
        Encoding {
            codec: Codec::Empty,
            bytes: 0,
            children: Vec::new(),
        }
    }

    /// A stream of `bytes` bytes that `error` prevents reading.
    pub(crate) fn unreadable(bytes: usize, error: &DecodeError) -> Self {
        Encoding {
            codec: Codec::Unreadable {
                reason: error.to_string(),
            },
            bytes,
            children: Vec::new(),
        }
    }

    /// This encoding and all nested in it, in pre-order.
    pub fn iter(&self) -> impl Iterator<Item = &Encoding> {
        let mut stack = vec![self];
        std::iter::from_fn(move || {
            let encoding = stack.pop()?;
            stack.extend(encoding.children.iter().rev());
            Some(encoding)
        })
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Children are where the codec's documentation lists them; a missing one (which the
        // describers never produce) prints as `?` rather than failing.
        let child = |index: usize| -> &dyn fmt::Display {
            match self.children.get(index) {
                Some(child) => child,
                None => &"?",
            }
        };
        match &self.codec {
            Codec::Empty => f.write_str("empty"),
            Codec::Fixed { width } => write!(f, "fixed({width} bytes)"),
            Codec::Varint => f.write_str("varint"),
            Codec::Zigzag => write!(f, "zigzag → {}", child(0)),
            Codec::Delta => write!(f, "delta → {}", child(0)),
            Codec::BitPack => f.write_str("bitpack"),
            Codec::Simple16 => f.write_str("simple16"),
            Codec::Rle { .. } => write!(f, "rle(lengths: {}, values: {})", child(0), child(1)),
            Codec::Dictionary { .. } => {
                write!(f, "dictionary(values: {}, indices: {})", child(0), child(1))
            }
            Codec::GroupDictionary { group, .. } => write!(
                f,
                "dictionary of {group}-word groups(values: {}, indices: {})",
                child(0),
                child(1)
            ),
            Codec::Huffman {
                symbols,
                escapes,
                streams,
            } => {
                write!(f, "huffman({symbols} codes")?;
                if *streams > 1 {
                    write!(f, " in {streams} streams")?;
                }
                write!(f, ", values: {}", child(1))?;
                if *escapes > 0 {
                    write!(f, ", {escapes} escaped: {}", child(2))?;
                }
                f.write_str(")")
            }
            Codec::Zstd { content_bytes } if self.children.is_empty() => {
                write!(f, "zstd({content_bytes} bytes inside, not decompressed)")
            }
            Codec::Zstd { .. } => write!(f, "zstd({})", child(0)),
            Codec::Decimal { digits } => write!(
                f,
                "decimal({digits} digits, integers: {}, residuals: {})",
                child(0),
                child(1)
            ),
            Codec::Xor => write!(f, "xor → {}", child(0)),
            Codec::Lossy { exponent, .. } => {
                write!(f, "lossy(within 2^{exponent}, integers: {})", child(0))
            }
            Codec::Packed => f.write_str("packed"),
            Codec::BoolRle { .. } => write!(f, "rle(lengths: {})", child(0)),
            Codec::Plain => write!(f, "plain(lengths: {})", child(0)),
            Codec::CodedText => write!(f, "coded text(lengths: {}, bytes: {})", child(0), child(1)),
            Codec::StrDictionary { distinct } => write!(
                f,
                "dictionary({distinct} strings: {}, indices: {})",
                child(0),
                child(1)
            ),
            Codec::Keyed {
                source_branch,
                source_path,
                distinct,
                exceptions,
            } => {
                write_keyed_by(f, *source_branch, source_path.as_deref())?;
                write!(
                    f,
                    ", {distinct} strings: {}, {exceptions} exceptions)",
                    child(0)
                )
            }
            Codec::KeyedInts {
                source_branch,
                source_path,
                parts,
            } => {
                write_keyed_by(f, *source_branch, source_path.as_deref())?;
                write!(f, ", {parts} parts, the largest: {})", child(0))
            }
            Codec::Unreadable { reason } => write!(f, "unreadable ({reason})"),
        }
    }
}

/// The start of a keyed stream's description: its source, by path where known.
fn write_keyed_by(
    f: &mut fmt::Formatter<'_>,
    source_branch: usize,
    source_path: Option<&str>,
) -> fmt::Result {
    f.write_str("keyed(by ")?;
    match source_path {
        Some("") => f.write_str("(root)"),
        Some(path) => f.write_str(path),
        None => write!(f, "branch {source_branch}"),
    }
}

/// Where a description stands: how deep among nested streams, and whether it decompresses zstd
/// frames to describe what they hold.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Describer {
    decompress_zstd: bool,
    depth: usize,
}

impl Describer {
    /// At the top of a branch.
    pub(crate) fn new(decompress_zstd: bool) -> Self {
        Describer {
            decompress_zstd,
            depth: 0,
        }
    }

    /// One level further in.
    pub(crate) fn nested(self) -> Self {
        Describer {
            depth: self.depth + 1,
            ..self
        }
    }

    pub(crate) fn decompresses_zstd(self) -> bool {
        self.decompress_zstd
    }

    /// Describes the stream `bytes` by its header, as `parse` reads it and `describe` tells its
    /// codec and nested streams; a stream nested too deep, or that does not parse, is described
    /// as unreadable.
    pub(crate) fn stream<'a, H>(
        self,
        bytes: &'a [u8],
        parse: impl FnOnce(&'a [u8]) -> Result<H, DecodeError>,
        describe: impl FnOnce(H, Describer) -> (Codec, Vec<Encoding>),
    ) -> Encoding {
        match check_depth(self.depth).and_then(|()| parse(bytes)) {
            Ok(header) => {
                let (codec, children) = describe(header, self);
                Encoding {
                    codec,
                    bytes: bytes.len(),
                    children,
                }
            }
            Err(error) => Encoding::unreadable(bytes.len(), &error),
        }
    }
}
