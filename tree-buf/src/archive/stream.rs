//! Reads an archive from its start as a stream, without its footer: every section starts with its
//! tag and size, so a reader of a pipe or a socket takes the chunks as they come.

use std::io::{ErrorKind, Read};

use super::format::{bytes_after_body, read_footer, read_section, CHUNK_SECTION, SCHEMA_SECTION};
use super::reader::{chunk_rows_decoder, decode_chunk_rows, metadata_value, parse_chunk};
use super::ArchiveError;
use crate::encodings::budget::Budget;
use crate::encodings::bytes::ByteReader;
use crate::encodings::Version;
use crate::error::{truncated, DecodeError, DecodeErrorKind};
use crate::file::{Chunk, Head, ARCHIVE};
use crate::options::DecodeOptions;
use crate::schema::SchemaTree;
use crate::types::{Decode, DecodeOwned, Indirect, ValueDecoder};

/// Reads an archive from the start, a chunk at a time, from any [`Read`] (standard input, a
/// socket, a decompressor), as an Arrow IPC stream is read: it needs neither the footer nor a
/// seekable file, and holds one chunk's bytes and rows at a time. Each chunk's checksums are
/// checked before it is decoded.
///
/// ```
/// use tree_buf::archive::{ArchiveOptions, ArchiveWriter, StreamReader};
///
/// let mut writer = ArchiveWriter::with_options(Vec::new(), ArchiveOptions::default().chunk_rows(2))?;
/// for n in 0..5u32 {
///     writer.push(&n)?;
/// }
/// let bytes = writer.finish()?;
/// let mut stream = StreamReader::new(bytes.as_slice())?;
/// let mut rows = Vec::new();
/// while let Some(chunk) = stream.next_chunk::<u32>()? {
///     rows.extend(chunk);
/// }
/// assert_eq!(rows, [0, 1, 2, 3, 4]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct StreamReader<R: Read> {
    source: R,
    options: DecodeOptions,
    version: u8,
    /// The schema of the chunks that come next.
    tree: SchemaTree,
    /// Whether a footer was read: the archive may end after it.
    footer_seen: bool,
    /// The metadata of the last footer read.
    metadata: Vec<(String, String)>,
    /// The section being read, from its tag.
    section: Vec<u8>,
}

impl<R: Read> StreamReader<R> {
    /// Reads the header and schema of the archive `source` holds, with the default
    /// [`DecodeOptions`].
    pub fn new(source: R) -> Result<Self, ArchiveError> {
        Self::with_options(source, DecodeOptions::default())
    }

    /// Reads the header and schema of the archive `source` holds, under the given limits.
    pub fn with_options(mut source: R, options: DecodeOptions) -> Result<Self, ArchiveError> {
        // The header and the schema section, assembled to be checked as a file's are.
        let mut head = vec![0u8; 6];
        source.read_exact(&mut head).map_err(cut_short)?;
        let size = read_varint(&mut source, &mut head)?;
        read_more(&mut source, &mut head, size.saturating_add(4))?;
        let parsed = Head::parse(&head, &options)?;
        if parsed.flags & ARCHIVE == 0 {
            return Err(DecodeError::new(
                DecodeErrorKind::SchemaMismatch,
                "",
                "the stream holds one value, not an archive of rows: decode it with \
                 tree_buf::decode",
            )
            .into());
        }
        let tree = SchemaTree::parse(parsed.schema)?;
        Ok(StreamReader {
            version: parsed.version,
            tree,
            source,
            options,
            footer_seen: false,
            metadata: Vec::new(),
            section: Vec::new(),
        })
    }

    /// The key-value pairs of the archive's metadata, as [`Archive::metadata`] gives them: they
    /// are in the footer, at the end, so this is empty until the chunks have been read (until
    /// [`Self::next_chunk`] gives `None`).
    ///
    /// [`Archive::metadata`]: super::Archive::metadata
    pub fn metadata(&self) -> &[(String, String)] {
        &self.metadata
    }

    /// The value stored for `key` in [`Self::metadata`], if there is one.
    pub fn metadata_value(&self, key: &str) -> Option<&str> {
        metadata_value(&self.metadata, key)
    }

    /// The rows of the next chunk, as `T`; `None` once the archive has ended after a footer. A
    /// stream that ends before any footer (its writer did not finish) is an error, after every
    /// complete chunk has been given.
    pub fn next_chunk<T: DecodeOwned>(&mut self) -> Result<Option<Vec<T>>, ArchiveError> {
        if !self.next_section()? {
            return Ok(None);
        }
        let (chunk, budget) = self.chunk_in_section()?;
        Ok(Some(decode_chunk_rows(
            &self.tree,
            chunk,
            Vec::new(),
            budget,
            &self.options,
        )?))
    }

    /// The rows of the next chunk, as [`Self::next_chunk`] gives them, but made one at a time as
    /// they are taken: memory holds the chunk's columns, not all its rows at once (rows of
    /// [`Value`](crate::Value)s take far more room than the columns they come from).
    ///
    /// ```
    /// use tree_buf::archive::{ArchiveWriter, StreamReader};
    ///
    /// let mut writer = ArchiveWriter::new(Vec::new())?;
    /// for n in 0..5u32 {
    ///     writer.push(&n)?;
    /// }
    /// let bytes = writer.finish()?;
    /// let mut stream = StreamReader::new(bytes.as_slice())?;
    /// let mut sum = 0;
    /// while let Some(rows) = stream.next_rows::<u32>()? {
    ///     sum += rows.sum::<u32>();
    /// }
    /// assert_eq!(sum, 10);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_rows<'s, T: Decode<'s>>(
        &'s mut self,
    ) -> Result<Option<ChunkRows<'s, T>>, ArchiveError> {
        if !self.next_section()? {
            return Ok(None);
        }
        let (chunk, budget) = self.chunk_in_section()?;
        let (decoder, remaining) =
            chunk_rows_decoder::<T>(&self.tree, chunk, Vec::new(), budget, &self.options, |_| {
                Ok(())
            })?;
        Ok(Some(ChunkRows { decoder, remaining }))
    }

    /// Reads sections up to the next chunk's, which [`Self::section`] then holds: `false` once
    /// the archive has ended after a footer.
    fn next_section(&mut self) -> Result<bool, ArchiveError> {
        loop {
            let mut tag = [0u8; 1];
            match self.source.read(&mut tag) {
                Ok(0) if self.footer_seen => return Ok(false),
                Ok(0) => {
                    return Err(truncated(
                        "the stream ends without a footer: its writer did not finish",
                    )
                    .into())
                }
                Ok(_) => {}
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                Err(error) => return Err(error.into()),
            }
            // The section is read whole, from its tag, and then parsed and checked as a file's.
            self.section.clear();
            self.section.push(tag[0]);
            let size = read_varint(&mut self.source, &mut self.section)?;
            let rest = size.saturating_add(bytes_after_body(tag[0])?);
            read_more(&mut self.source, &mut self.section, rest)?;
            let section = read_section(&self.section, self.options.verify_checksums)?;
            match section.tag {
                CHUNK_SECTION => {
                    // A footer read before belonged to an archive appended to since.
                    self.footer_seen = false;
                    return Ok(true);
                }
                SCHEMA_SECTION => self.tree = SchemaTree::parse(section.body)?,
                _ => {
                    // The footer lists what was read already, and the metadata.
                    if self.version >= Version::METADATA.0 {
                        self.metadata = read_footer(section.body, self.version)?.metadata;
                    }
                    self.footer_seen = true;
                }
            }
        }
    }

    /// The chunk in [`Self::section`], its checksums checked, and the budget to decode it under.
    fn chunk_in_section(&self) -> Result<(Chunk<'_>, Budget), DecodeError> {
        let body = read_section(&self.section, false)?.body;
        let chunk = parse_chunk(body, self.tree.branch_count(), &self.options)?;
        chunk.verify_data(&self.options)?;
        let budget = Budget::for_version(self.options.budget_for(body.len()), self.version);
        Ok((chunk, budget))
    }
}

/// The rows of one chunk of a stream, made one at a time as they are taken: see
/// [`StreamReader::next_rows`].
pub struct ChunkRows<'s, T: Decode<'s>> {
    decoder: Indirect<'s, T>,
    remaining: usize,
}

impl<'s, T: Decode<'s>> Iterator for ChunkRows<'s, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.remaining = self.remaining.checked_sub(1)?;
        Some(self.decoder.next())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<'s, T: Decode<'s>> ExactSizeIterator for ChunkRows<'s, T> {}

/// Reads a varint a byte at a time, and appends its bytes to `out`.
fn read_varint(source: &mut impl Read, out: &mut Vec<u8>) -> Result<u64, ArchiveError> {
    let start = out.len();
    loop {
        let mut byte = [0u8; 1];
        source.read_exact(&mut byte).map_err(cut_short)?;
        out.push(byte[0]);
        if byte[0] & 0x80 == 0 || out.len() - start == 10 {
            return Ok(ByteReader::new(&out[start..]).varint()?);
        }
    }
}

/// Appends the next `len` bytes of `source` to `out`, which grows only as bytes arrive, so that
/// a size that lies cannot make it allocate more than the stream holds.
fn read_more(source: &mut impl Read, out: &mut Vec<u8>, len: u64) -> Result<(), ArchiveError> {
    let start = out.len() as u64;
    source.take(len).read_to_end(out)?;
    if out.len() as u64 - start < len {
        return Err(truncated("the stream ends inside a section").into());
    }
    Ok(())
}

/// An end of input inside the header or a size, as a decoding error.
fn cut_short(error: std::io::Error) -> ArchiveError {
    if error.kind() == ErrorKind::UnexpectedEof {
        truncated("the stream ends inside the archive's header or a section's size").into()
    } else {
        error.into()
    }
}
