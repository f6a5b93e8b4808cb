//! Codecs over plain columns of values. They know nothing of Rust types or schemas: each turns a
//! slice of integers, floats, booleans or strings into bytes and back, chooses its own cascade
//! of encodings, and documents its wire grammar. The number of values is always supplied by the
//! caller, never trusted from the stream alone.
//!
//! Every stream starts with a tag byte. Each family (integers, floats, booleans, strings) has a
//! `#[repr(u8)]` enum of its tags and a typed header, such as [`int::IntStream`], which one parser
//! reads from the bytes once: the codec, its parameters, and the streams it nests (still
//! encoded). Decoding consumes that header and describing prints it, so each codec's grammar is
//! read in one place and stated once, in its module's documentation.

pub(crate) mod bool;
pub(crate) mod budget;
pub(crate) mod bytes;
pub(crate) mod describe;
pub(crate) mod float;
pub(crate) mod int;
pub(crate) mod numbering;
pub(crate) mod recursion;
pub(crate) mod scratch;
pub(crate) mod string;
pub(crate) mod wide;
pub(crate) mod zstd;

use crate::error::{corrupt, DecodeError};

/// A format version, as a file's header declares it. Encoding a stream gives the version that
/// added the newest encoding in it, so that a writer declares the lowest version that reads its
/// file; the tag table of `docs/FORMAT.md` gives each encoding's version.
#[must_use = "the version a stream needs goes into the file's header"]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version(pub(crate) u8);

impl Version {
    /// Every encoding but those below.
    pub(crate) const FIRST: Version = Version(1);
    /// Keyed string streams.
    pub(crate) const KEYED: Version = Version(2);
    /// Huffman-coded integers.
    pub(crate) const HUFFMAN: Version = Version(3);
    /// Archives: files of many chunks, with a footer.
    pub(crate) const ARCHIVE: Version = Version(4);
    /// Huffman codes in four streams, read in turn.
    pub(crate) const STREAMS: Version = Version(5);
    /// Recursion nodes: a recursive type's values of every depth in one set of branches.
    pub(crate) const RECURSION: Version = Version(6);
    /// Keyed integer streams: a column split into parts by another column's values.
    pub(crate) const KEYED_INTS: Version = Version(7);
    /// Key-value metadata in an archive's footer.
    pub(crate) const METADATA: Version = Version(8);
    /// Coded text: a plain string stream whose bytes are an integer stream.
    pub(crate) const CODED_TEXT: Version = Version(9);
    /// The newest version, which this library reads with every earlier one: a file of an
    /// earlier version is a file of a later one that uses none of what came after.
    pub(crate) const NEWEST: Version = Version::CODED_TEXT;
}

/// The deepest level of nesting a stream may have: a branch's own stream is at level 0, and every
/// stream nested in another (a zstd frame's content included) one level below its parent.
pub(crate) const MAX_CASCADE: usize = 8;

/// Whether `bytes` is the empty form of a stream of `count` values: a stream of no values may be
/// written as no bytes at all, wherever it is (a branch or a nested stream), as well as tagged.
pub(crate) fn is_empty_form(bytes: &[u8], count: usize) -> bool {
    count == 0 && bytes.is_empty()
}

/// Fails for a stream nested more than [`MAX_CASCADE`] levels deep, so that hostile nesting is an
/// error rather than a stack overflow.
pub(crate) fn check_depth(depth: usize) -> Result<(), DecodeError> {
    if depth > MAX_CASCADE {
        return Err(corrupt(format!(
            "encodings nest deeper than {MAX_CASCADE} levels"
        )));
    }
    Ok(())
}

/// Declares the tag bytes of one family of streams as a `#[repr(u8)]` enum, whose `TryFrom<u8>`
/// rejects an unknown tag as corrupt, naming the family.
macro_rules! tags {
    ($(#[$meta:meta])* $name:ident, $family:literal { $($variant:ident = $value:expr,)* }) => {
        $(#[$meta])*
        #[repr(u8)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum $name {
            $($variant = $value,)*
        }

        impl $name {
            /// The tag that `byte` stands for, if any.
            pub(crate) fn from_byte(byte: u8) -> Option<Self> {
                $(if byte == $name::$variant as u8 {
                    return Some($name::$variant);
                })*
                None
            }
        }

        impl TryFrom<u8> for $name {
            type Error = crate::error::DecodeError;

            fn try_from(byte: u8) -> Result<Self, Self::Error> {
                $name::from_byte(byte).ok_or_else(|| {
                    crate::error::corrupt(format!(
                        concat!("unknown ", $family, " encoding tag {:#04x}"),
                        byte
                    ))
                })
            }
        }
    };
}
pub(crate) use tags;

/// How many values a codec test uses: `n`, or a fiftieth of it (at least 250, enough for the
/// tests' size bounds to hold) under Miri, whose interpreter is thousands of times slower, so
/// that the same shapes are checked in minutes.
#[cfg(test)]
pub(crate) fn test_len(n: usize) -> usize {
    if cfg!(miri) {
        (n / 50).max(250)
    } else {
        n
    }
}

/// A xorshift generator of pseudo-random words, the same on every run: the noise codec tests draw.
#[cfg(test)]
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// How hard and how lossily the encoders work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Settings {
    /// The zstd level tried on large streams, or none.
    pub(crate) zstd_level: Option<i32>,
    /// A zstd frame is kept if it saves this many bytes, or halves the stream: decoding a frame
    /// costs about 3 microseconds before its first byte (its entropy tables) and half a
    /// nanosecond to a nanosecond a byte after, where a plain stream is read at memory speed, so
    /// a small saving on a small stream is not worth it.
    pub(crate) zstd_enough_saving: usize,
    /// Restricts integer leaves to whole-byte codecs (so zstd can see the patterns).
    pub(crate) byte_aligned: bool,
    /// Floats may be stored within `2^tolerance` of their value.
    pub(crate) float_tolerance: Option<i32>,
    /// Float columns whose mantissas are noise price every number of decimal digits, not just
    /// the likeliest: several times the encoding work on them, for a few percent fewer bytes.
    pub(crate) every_float_digits: bool,
    /// Integer columns may be keyed by a sibling column (version 7), which costs a choice
    /// among the siblings and a second encoding of the columns it picks.
    pub(crate) key_ints: bool,
    /// The newest format version whose encodings may be written: an archive's chunks keep to
    /// the version its header declared before they were encoded.
    pub(crate) newest: Version,
}

impl Settings {
    /// The fastest to encode and decode: zstd's fastest level, only on streams it halves
    /// (text, mostly), where reading half the bytes pays for decompressing them.
    pub(crate) fn fast() -> Self {
        Settings {
            zstd_level: Some(1),
            zstd_enough_saving: usize::MAX,
            every_float_digits: false,
            ..Settings::default()
        }
    }

    /// Column codecs alone, for tests that count what the codecs encode (a zstd stage encodes
    /// a column a second time, with whole-byte codecs).
    #[cfg(test)]
    pub(crate) fn without_zstd() -> Self {
        Settings {
            zstd_level: None,
            ..Settings::default()
        }
    }

    /// A slow, strong zstd stage, kept wherever it saves a byte.
    pub(crate) fn small() -> Self {
        Settings {
            zstd_level: Some(19),
            zstd_enough_saving: 1,
            key_ints: true,
            ..Settings::default()
        }
    }

    /// Whether candidates for a column of `bytes` bytes are ranked by their compressed size: in
    /// the byte-aligned pass that feeds a zstd stage, where the size before zstd is a poor guide,
    /// and only for columns large enough to pay for a trial compression per candidate.
    pub(crate) fn ranks_by_compression(&self, bytes: usize) -> Option<i32> {
        const MIN_BYTES: usize = 1 << 16;
        self.zstd_level
            .filter(|_| self.byte_aligned && bytes >= MIN_BYTES)
    }

    /// Whether a zstd frame of `compressed` bytes is worth keeping over a stream of `plain`;
    /// and coded text over text as it is, which costs about as much to decode (its code table).
    pub(crate) fn keeps_zstd(&self, compressed: usize, plain: usize) -> bool {
        zstd::keeps_frame(compressed, plain, self.zstd_enough_saving)
    }

    pub(crate) fn byte_aligned(&self) -> Self {
        Settings {
            byte_aligned: true,
            ..self.clone()
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            zstd_level: Some(3),
            // Size first: a kilobyte is what a microsecond of reading brings at 1 GB/s, less than
            // the frame's start costs, but many columns save a few kilobytes, which small files
            // (responses, messages) would lose.
            zstd_enough_saving: 1024,
            byte_aligned: false,
            float_tolerance: None,
            every_float_digits: true,
            key_ints: false,
            newest: Version::NEWEST,
        }
    }
}
