//! Archives: files of many rows, written and read a chunk at a time, so that data far larger
//! than memory can be written, read, appended to, and read in part.
//!
//! An archive is a header and schema as in any tree-buf file (format version 4, with the
//! archive flag), then chunks, each holding some of the rows as one sequence (a chunk decodes
//! on its own, as a file of a `Vec` of its rows would), then a footer that lists every chunk with
//! its row count and, per branch, its size, checksum, value count and statistics (least and
//! greatest value, null count), and a fixed-size trailer that points to the footer from the end
//! of the file. `docs/FORMAT.md` gives the grammar.
//!
//! - [`ArchiveWriter`] pushes rows and writes a chunk every [`ArchiveOptions::chunk_rows`] rows
//!   or [`ArchiveOptions::chunk_bytes`] bytes of columns; [`ArchiveWriter::append`] adds
//!   chunks to an existing archive without rewriting it.
//! - [`Archive`] opens one (memory-mapped, or from bytes) and decodes all rows, a range of them,
//!   one path, or a chunk at a time.
//! - [`PartialArchive`] opens one kept where bytes are fetched by ranges (an object store), and
//!   fetches only the parts that opening needs and the branches asked for.
//! - [`StreamReader`] reads one from the start, chunk by chunk, from any `Read` (a pipe, a
//!   socket), without its footer.
//! - [`crate::decode`] reads a whole archive as a sequence of its rows (`Vec<Row>`).
//!
//! Rows of one Rust type share a schema. Rows of [`Value`](crate::Value)s (from JSON lines or
//! CSV) may change shape part way: a chunk whose schema differs from the one before carries its
//! own, so that reading as `Value` returns exactly the rows written, and reading as a type
//! applies the schema evolution rules chunk by chunk.
//!
//! ```
//! use tree_buf::archive::{Archive, ArchiveWriter};
//! use tree_buf::prelude::*;
//!
//! #[derive(Encode, Decode, Debug, PartialEq)]
//! struct Row { id: u32, name: String }
//!
//! let path = std::env::temp_dir().join(format!("tree-buf-doc-{}.tb", std::process::id()));
//! let mut writer = ArchiveWriter::<Row>::create(&path)?;
//! writer.push(&Row { id: 1, name: "one".into() })?;
//! writer.finish()?;
//! let mut writer = ArchiveWriter::<Row>::append(&path)?;
//! writer.push(&Row { id: 2, name: "two".into() })?;
//! writer.finish()?;
//!
//! let archive = Archive::open(&path)?;
//! assert_eq!(archive.rows(), 2);
//! for row in archive.iter::<Row>()? {
//!     assert!(row?.id > 0);
//! }
//! # drop(archive);
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod format;
mod partial;
mod reader;
mod stats;
mod stream;
mod writer;

use std::fmt;

pub use partial::PartialArchive;
pub use reader::{Archive, Rows};
pub use stream::{ChunkRows, StreamReader};
pub use writer::ArchiveWriter;

use crate::error::{DecodeError, EncodeError};
use crate::options::{DecodeOptions, EncodeOptions};
use crate::schema::NodeType;

/// How an [`ArchiveWriter`] writes: the encoding options of every chunk, and when a chunk ends.
#[derive(Debug, Clone)]
pub struct ArchiveOptions {
    encode: EncodeOptions,
    decode: DecodeOptions,
    chunk_rows: usize,
    chunk_bytes: usize,
    statistics: bool,
    metadata: Vec<(String, String)>,
}

impl ArchiveOptions {
    /// The default rows per chunk: about a million.
    pub const DEFAULT_CHUNK_ROWS: usize = 1 << 20;
    /// The default bytes of columns per chunk: 64 MiB of values in memory, which encode to far
    /// fewer.
    pub const DEFAULT_CHUNK_BYTES: usize = 64 << 20;

    /// The options every chunk is encoded with (lossy floats, speed against size, threads).
    pub fn encode_options(mut self, options: EncodeOptions) -> Self {
        self.encode = options;
        self
    }

    /// The limits under which [`ArchiveWriter::append`] reads the archive it appends to.
    pub fn decode_options(mut self, options: DecodeOptions) -> Self {
        self.decode = options;
        self
    }

    /// Ends a chunk after this many rows (at least 1). Larger chunks compress a little better;
    /// smaller ones let readers skip more and bound memory tighter.
    pub fn chunk_rows(mut self, rows: usize) -> Self {
        self.chunk_rows = rows.max(1);
        self
    }

    /// Ends a chunk once its rows' columns take about this many bytes in memory (checked every
    /// 64 rows), which bounds the writer's memory whatever the rows hold.
    pub fn chunk_bytes(mut self, bytes: usize) -> Self {
        self.chunk_bytes = bytes;
        self
    }

    /// Whether the footer holds statistics of each branch (default: yes): least and greatest
    /// values and null counts, so that readers can skip chunks.
    pub fn statistics(mut self, statistics: bool) -> Self {
        self.statistics = statistics;
        self
    }

    /// Stores a key-value pair about the whole archive in its footer, such as where the rows
    /// came from or the schema another system gave them ([`Archive::metadata`] reads them
    /// back), as Parquet's key-value metadata does; a key given twice keeps the later value.
    ///
    /// An archive with metadata declares format version 8, which added it. Appending with
    /// metadata adds the pairs to the archive's own (a key it has takes the new value), and
    /// fails on an archive of an earlier version, whose footer has no place for them; appending
    /// without keeps the archive's metadata as it is.
    ///
    /// ```
    /// use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
    ///
    /// let options = ArchiveOptions::default()
    ///     .metadata("source", "sensor 12")
    ///     .metadata("unit", "°C");
    /// let mut writer = ArchiveWriter::with_options(Vec::new(), options)?;
    /// writer.push(&21.5f64)?;
    /// let archive = Archive::from_buffer(writer.finish()?)?;
    /// assert_eq!(archive.metadata_value("unit"), Some("°C"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        set_pair(&mut self.metadata, key.into(), value.into());
        self
    }
}

/// Sets `key` to `value` among `pairs`, in place if it is there, else at the end.
fn set_pair(pairs: &mut Vec<(String, String)>, key: String, value: String) {
    match pairs.iter_mut().find(|(name, _)| *name == key) {
        Some((_, old)) => *old = value,
        None => pairs.push((key, value)),
    }
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        ArchiveOptions {
            encode: EncodeOptions::default(),
            decode: DecodeOptions::default(),
            chunk_rows: Self::DEFAULT_CHUNK_ROWS,
            chunk_bytes: Self::DEFAULT_CHUNK_BYTES,
            statistics: true,
            metadata: Vec::new(),
        }
    }
}

/// A chunk of an archive, as its footer lists it.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkInfo {
    /// The index of its first row in the archive.
    pub first_row: u64,
    /// Its number of rows.
    pub rows: u64,
    /// Where its section starts in the file.
    pub offset: u64,
    /// The bytes of its section.
    pub bytes: u64,
    /// Its branches, in the order of its schema.
    pub branches: Vec<BranchInfo>,
}

/// A branch of a chunk: where its values sit in the schema, and what the footer says of them.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub struct BranchInfo {
    /// The path of the node that owns the branch, such as `[].name` (rows are the items of the
    /// root sequence).
    pub path: String,
    /// That node's type: a presence stream for `Option`, lengths for `Seq` and `Map`,
    /// discriminants for `Enum` and `Union`, values for leaves.
    pub node_type: NodeType,
    /// The branch's encoded bytes.
    pub bytes: u64,
    /// CRC-32 of those bytes.
    pub crc: u32,
    /// The number of values in the branch (0 for chunks found by [`Archive::recover`]).
    pub values: u64,
    /// What the footer says of the values, if anything.
    pub statistics: Option<Statistics>,
}

/// What a footer says of the values of a branch: every value lies within the bounds.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq)]
pub enum Statistics {
    /// A presence stream: how many values are absent (`None`).
    Nulls(u64),
    /// Unsigned integers, and chars, bools, lengths and discriminants as numbers.
    Unsigned {
        /// The least value.
        min: u128,
        /// The greatest value.
        max: u128,
    },
    /// Signed integers.
    Signed {
        /// The least value.
        min: i128,
        /// The greatest value.
        max: i128,
    },
    /// Floats, NaN left out.
    Float {
        /// The least value.
        min: f64,
        /// The greatest value.
        max: f64,
    },
    /// Strings, compared byte by byte: bounds of at most 64 bytes, so that a long value is
    /// bounded by a shorter string (a prefix of it, or above it).
    Str {
        /// No value is less than this.
        min: Vec<u8>,
        /// No value is greater than this.
        max: Vec<u8>,
    },
}

/// Why writing or opening an archive failed.
#[non_exhaustive]
#[derive(Debug)]
pub enum ArchiveError {
    /// Reading or writing the file failed.
    Io(std::io::Error),
    /// A row could not be encoded.
    Encode(EncodeError),
    /// The archive is malformed, or does not hold what was asked for.
    Decode(DecodeError),
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveError::Io(error) => write!(f, "archive I/O failed: {error}"),
            ArchiveError::Encode(error) => error.fmt(f),
            ArchiveError::Decode(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for ArchiveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ArchiveError::Io(error) => Some(error),
            ArchiveError::Encode(error) => Some(error),
            ArchiveError::Decode(error) => Some(error),
        }
    }
}

impl From<std::io::Error> for ArchiveError {
    fn from(error: std::io::Error) -> Self {
        ArchiveError::Io(error)
    }
}

impl From<EncodeError> for ArchiveError {
    fn from(error: EncodeError) -> Self {
        ArchiveError::Encode(error)
    }
}

impl From<DecodeError> for ArchiveError {
    fn from(error: DecodeError) -> Self {
        ArchiveError::Decode(error)
    }
}

/// Decodes a whole archive as one value of `T` (a sequence of its rows), for [`crate::decode`].
pub(crate) fn decode_whole<'de, T: crate::Decode<'de>>(
    bytes: &'de [u8],
    options: &DecodeOptions,
) -> Result<T, DecodeError> {
    Archive::from_bytes_with_options(bytes, options.clone())?.decode_whole_of(bytes)
}
