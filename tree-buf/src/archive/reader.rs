//! Reads archives: the footer locates every chunk, which decodes on its own.

use std::fs::File;
use std::ops::Range;
use std::path::Path as FsPath;

use super::format::{
    read_footer, read_section, read_trailer, section_at, ChunkEntry, Footer, RawStats, Trailer,
    CHUNK_SECTION, FOOTER_SECTION, SCHEMA_SECTION, TRAILER_BYTES,
};
use super::{ArchiveError, BranchInfo, ChunkInfo, Statistics};
use crate::branch::DecodeContext;
use crate::encodings::budget::Budget;
use crate::encodings::bytes::varint_len;
use crate::encodings::bytes::ByteReader;
use crate::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::file::{Chunk, FileView, Head, ARCHIVE};
use crate::options::DecodeOptions;
use crate::reader::Reader;
use crate::reader::{values_at_end, values_below};
use crate::schema::{resolve, AsPath, NodeType, SchemaTree};
use crate::types::{decode_root, Decode, Indirect, ValueDecoder};

/// The bytes of an archive: borrowed, a memory map of its file, or a buffer it owns.
pub(super) enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Mapped(memmap2::Mmap),
    Owned(Box<dyn AsRef<[u8]> + Send + Sync>),
}

impl Bytes<'_> {
    fn get(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(bytes) => bytes,
            Bytes::Mapped(map) => map,
            Bytes::Owned(buffer) => (**buffer).as_ref(),
        }
    }
}

/// A schema of the archive: the header's, or a schema section's.
struct Schema {
    /// The offset of its section; 0 for the header's.
    offset: u64,
    /// Where its node's bytes are.
    node: Range<usize>,
    tree: SchemaTree,
    /// The path and type of the node that owns each branch, for every chunk's [`ChunkInfo`].
    owners: Vec<(String, NodeType)>,
}

/// An opened archive: header, schemas and footer checked, no chunk decoded yet.
///
/// Every chunk decodes on its own, and a type that names only some fields reads only their
/// branches, each checked against its checksum in the footer as it is read: a reader of a few
/// columns of a large archive touches little more than those columns' bytes. A chunk's rows are
/// the items of a sequence, so paths start with `[]` (`[].name`), as for a `Vec` of the rows.
///
/// ```
/// use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
/// use tree_buf::prelude::*;
///
/// #[derive(Encode, Decode)]
/// struct Country { name: String, iso: String, border: Vec<(f64, f64)> }
/// #[derive(Decode, Debug, PartialEq)]
/// struct Name { name: String }
///
/// let mut writer = ArchiveWriter::with_options(Vec::new(), ArchiveOptions::default().chunk_rows(100))?;
/// for i in 0..250 {
///     writer.push(&Country { name: format!("country {i}"), iso: "XYZ".into(), border: vec![(1.0, 2.0); 10] })?;
/// }
/// let bytes = writer.finish()?;
/// let archive = Archive::from_bytes(&bytes)?;
/// assert_eq!(archive.chunks().len(), 3);
/// // Only the chunks holding rows 120 to 130, and only their names.
/// let names: Vec<Name> = archive.decode_rows(120..130)?;
/// assert_eq!(names[0], Name { name: "country 120".into() });
/// let isos: Vec<String> = archive.decode_path("[].iso")?;
/// assert_eq!(isos.len(), 250);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Archive<'a> {
    bytes: Bytes<'a>,
    /// The format version the archive declares.
    pub(crate) version: u8,
    options: DecodeOptions,
    schemas: Vec<Schema>,
    chunks: Vec<ChunkEntry>,
    /// The index in `schemas` of each chunk's schema.
    chunk_schemas: Vec<usize>,
    infos: Vec<ChunkInfo>,
    rows: u64,
    /// The footer's key-value pairs.
    metadata: Vec<(String, String)>,
    /// The bytes up to the end of the footer's trailer; any after it are left by a writer that
    /// stopped.
    committed: usize,
}

impl std::fmt::Debug for Archive<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("bytes", &self.bytes.get().len())
            .field("rows", &self.rows)
            .field("chunks", &self.chunks.len())
            .finish()
    }
}

impl Archive<'static> {
    /// Opens the archive at `path`, memory-mapped, with the default [`DecodeOptions`].
    ///
    /// The map reads the file as it is on disk: another process that truncates or rewrites the
    /// file while it is open makes reads fail or see other bytes (appending, as
    /// [`ArchiveWriter::append`](super::ArchiveWriter::append) does, is safe). Use
    /// [`Archive::from_bytes`] on the file's contents read into memory to avoid that.
    pub fn open(path: impl AsRef<FsPath>) -> Result<Self, ArchiveError> {
        Self::open_with_options(path, DecodeOptions::default())
    }

    /// [`Self::open`] under the given limits.
    pub fn open_with_options(
        path: impl AsRef<FsPath>,
        options: DecodeOptions,
    ) -> Result<Self, ArchiveError> {
        Self::map(&File::open(path)?, options)
    }

    /// Opens an archive held in a buffer it takes: a `Vec<u8>`, a `Box<[u8]>`, an `Arc<[u8]>`
    /// or a `bytes::Bytes` as an object store or a network read hands it over, with the default
    /// [`DecodeOptions`]. The archive owns its bytes, so it can outlive the code that read them
    /// and move between threads.
    ///
    /// ```
    /// use tree_buf::archive::{Archive, ArchiveWriter};
    ///
    /// let mut writer = ArchiveWriter::new(Vec::new())?;
    /// for day in 1..=3u32 {
    ///     writer.push(&day)?;
    /// }
    /// let bytes: Vec<u8> = writer.finish()?;
    /// let archive: Archive<'static> = Archive::from_buffer(bytes)?;
    /// let days = std::thread::spawn(move || archive.decode_all::<u32>()).join().unwrap()?;
    /// assert_eq!(days, [1, 2, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_buffer(
        buffer: impl AsRef<[u8]> + Send + Sync + 'static,
    ) -> Result<Self, DecodeError> {
        Self::from_buffer_with_options(buffer, DecodeOptions::default())
    }

    /// [`Self::from_buffer`] under the given limits.
    pub fn from_buffer_with_options(
        buffer: impl AsRef<[u8]> + Send + Sync + 'static,
        options: DecodeOptions,
    ) -> Result<Self, DecodeError> {
        Archive::new(Bytes::Owned(Box::new(buffer)), options, false)
    }

    /// Maps `file` and opens it.
    pub(crate) fn map(file: &File, options: DecodeOptions) -> Result<Self, ArchiveError> {
        let map = map_file(file)?;
        Ok(Archive::new(Bytes::Mapped(map), options, false)?)
    }

    /// Opens an archive that has no footer, or a damaged one (its writer stopped before
    /// [`finish`](super::ArchiveWriter::finish), say), by scanning it from the start: every
    /// complete chunk whose checksums hold is listed, the rest dropped. Chunks listed have no
    /// statistics.
    pub fn recover(path: impl AsRef<FsPath>) -> Result<Self, ArchiveError> {
        let map = map_file(&File::open(path)?)?;
        Ok(Archive::new(
            Bytes::Mapped(map),
            DecodeOptions::default(),
            true,
        )?)
    }
}

/// The value of `key` among `metadata`'s pairs.
pub(super) fn metadata_value<'m>(metadata: &'m [(String, String)], key: &str) -> Option<&'m str> {
    (metadata.iter())
        .find(|(name, _)| name == key)
        .map(|(_, value)| value.as_str())
}

/// Maps `file` into memory.
#[allow(unsafe_code)]
fn map_file(file: &File) -> Result<memmap2::Mmap, ArchiveError> {
    // SAFETY: the map is only ever read, as a byte slice, and every read is bounds-checked
    // against the length the map had when it was made. What the OS cannot promise is that no
    // other process changes the file meanwhile; `Archive::open` documents that, as every
    // memory-mapping reader must.
    Ok(unsafe { memmap2::Mmap::map(file)? })
}

impl<'a> Archive<'a> {
    /// Opens an archive held in memory, with the default [`DecodeOptions`].
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Self::from_bytes_with_options(bytes, DecodeOptions::default())
    }

    /// Opens an archive held in memory under the given limits.
    pub fn from_bytes_with_options(
        bytes: &'a [u8],
        options: DecodeOptions,
    ) -> Result<Self, DecodeError> {
        Archive::new(Bytes::Borrowed(bytes), options, false)
    }

    /// [`Archive::recover`] for an archive held in memory.
    pub fn recover_bytes(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Archive::new(Bytes::Borrowed(bytes), DecodeOptions::default(), true)
    }

    pub(super) fn new(
        bytes: Bytes<'a>,
        options: DecodeOptions,
        recover: bool,
    ) -> Result<Self, DecodeError> {
        let all = bytes.get();
        let head = Head::parse(all, &options)?;
        if head.flags & ARCHIVE == 0 {
            return Err(DecodeError::new(
                DecodeErrorKind::SchemaMismatch,
                "",
                "the file holds one value, not an archive of rows: decode it with \
                 tree_buf::decode or tree_buf::Reader",
            ));
        }
        let header_schema = Schema::parse(0, head.len - head.schema.len() - 4..head.len - 4, all)?;
        // Scanning reads and checksums every chunk: only recovery, or a footer that cannot be
        // read from the end, needs it. Opening reads the header, the schemas and the footer.
        let scan = || Scan::of(all, head.len, head.version, &options);
        let (footer, committed) = match recover {
            true => {
                let scan = scan();
                // Every complete chunk, and what the last complete footer said of the archive.
                let metadata = (scan.last_footer).map(|(footer, _)| footer.metadata);
                let footer = Footer {
                    chunks: scan.chunks,
                    metadata: metadata.unwrap_or_default(),
                    ..Footer::default()
                };
                (footer, scan.end)
            }
            false => match read_footer_at_end(all, head.len, head.version, &options) {
                Ok(footer) => footer,
                Err(error) => scan().last_footer.ok_or(error)?,
            },
        };
        let mut archive = Archive {
            bytes: Bytes::Borrowed(&[]),
            version: head.version,
            options,
            schemas: vec![header_schema],
            chunk_schemas: Vec::with_capacity(footer.chunks.len()),
            chunks: Vec::new(),
            infos: Vec::new(),
            rows: 0,
            metadata: footer.metadata,
            committed,
        };
        archive.check_chunks(all, head.len, footer.chunks)?;
        archive.bytes = bytes;
        Ok(archive)
    }

    /// Checks that the chunks lie in order inside the archive, each a chunk section under a
    /// schema section before it, and lists them.
    fn check_chunks(
        &mut self,
        all: &[u8],
        start: usize,
        chunks: Vec<ChunkEntry>,
    ) -> Result<(), DecodeError> {
        let mut next = start;
        let mut first_row = 0u64;
        for chunk in &chunks {
            let section = section_at(all, chunk.offset, chunk.size, next, self.committed)?;
            next = chunk.offset as usize + section.len();
            let read = read_section(section, self.options.verify_checksums)?;
            if read.tag != CHUNK_SECTION || read.len != section.len() {
                return Err(corrupt(format!(
                    "the footer lists a chunk at {} that is not one",
                    chunk.offset
                )));
            }
            let schema = match self.schemas.iter().position(|s| s.offset == chunk.schema) {
                Some(index) => index,
                None => {
                    let at = usize::try_from(chunk.schema)
                        .ok()
                        .filter(|&at| at >= start && at < chunk.offset as usize)
                        .ok_or_else(|| corrupt("a chunk's schema section is not before it"))?;
                    let read = read_section(&all[at..], self.options.verify_checksums)?;
                    if read.tag != SCHEMA_SECTION {
                        return Err(corrupt("a chunk's schema offset is not a schema section"));
                    }
                    let node_start = read.body.as_ptr() as usize - all.as_ptr() as usize;
                    let node = node_start..node_start + read.body.len();
                    self.schemas.push(Schema::parse(chunk.schema, node, all)?);
                    self.schemas.len() - 1
                }
            };
            let owners = &self.schemas[schema].owners;
            if chunk.branches.len() != owners.len() {
                return Err(corrupt(format!(
                    "the footer lists {} branches for a chunk whose schema has {}",
                    chunk.branches.len(),
                    owners.len()
                )));
            }
            self.infos.push(chunk_info(chunk, first_row, owners));
            self.chunk_schemas.push(schema);
            first_row = first_row
                .checked_add(chunk.rows)
                .ok_or_else(|| corrupt("the chunks' rows overflow"))?;
        }
        self.rows = first_row;
        self.chunks = chunks;
        Ok(())
    }

    /// The number of rows in all chunks.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The key-value pairs its writer stored about the whole archive
    /// ([`ArchiveOptions::metadata`](super::ArchiveOptions::metadata)), in the order written:
    /// empty for an archive written without any (and for every archive of format version 7 or
    /// earlier, which has no place for them).
    ///
    /// ```
    /// use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
    ///
    /// let options = ArchiveOptions::default().metadata("source", "station 12");
    /// let mut writer = ArchiveWriter::with_options(Vec::new(), options)?;
    /// writer.push(&20.5f32)?;
    /// let bytes = writer.finish()?;
    /// let archive = Archive::from_bytes(&bytes)?;
    /// assert_eq!(archive.metadata_value("source"), Some("station 12"));
    /// assert_eq!(archive.metadata(), [("source".to_owned(), "station 12".to_owned())]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn metadata(&self) -> &[(String, String)] {
        &self.metadata
    }

    /// The value stored for `key` in [`Self::metadata`], if there is one.
    pub fn metadata_value(&self, key: &str) -> Option<&str> {
        metadata_value(&self.metadata, key)
    }

    /// The chunks, in order: where each is, its rows, and its branches with their statistics.
    pub fn chunks(&self) -> &[ChunkInfo] {
        &self.infos
    }

    /// Which of the archive's schemas chunk `index` is written in, counted from 0 in the order
    /// they appear; `None` past the last chunk. Chunks of one schema have the same fields of the
    /// same types; an archive of schemaless rows (JSON lines, CSV) starts a new schema where its
    /// rows gained a field or widened a type.
    pub fn chunk_schema(&self, index: usize) -> Option<usize> {
        self.chunk_schemas.get(index).copied()
    }

    /// The bytes after the last footer that no footer lists: left by a writer or an append
    /// that stopped before finishing (0 for an archive that was finished).
    pub fn unfinished_bytes(&self) -> usize {
        self.bytes.get().len() - self.committed
    }

    pub(crate) fn committed_len(&self) -> usize {
        self.committed
    }

    pub(crate) fn entries(&self) -> &[ChunkEntry] {
        &self.chunks
    }

    /// The schema bytes of the last chunk (the header's if there is none), and their offset.
    pub(crate) fn last_schema(&self) -> &[u8] {
        let schema = &self.schemas[self.chunk_schemas.last().copied().unwrap_or(0)];
        &self.bytes.get()[schema.node.clone()]
    }

    pub(crate) fn last_schema_offset(&self) -> u64 {
        self.schemas[self.chunk_schemas.last().copied().unwrap_or(0)].offset
    }

    /// A [`Reader`] of chunk `index` alone: its schema with the size and encoding of every
    /// branch, and partial reads of its rows as one sequence (paths start with `[]`), each
    /// branch read checked against its checksum in the footer.
    pub fn chunk_reader(&self, index: usize) -> Result<Reader<'_>, DecodeError> {
        self.check_index(index)?;
        let node = self.schemas[self.chunk_schemas[index]].node.clone();
        let schema = &self.bytes.get()[node];
        let (chunk, checksums) = self.chunk(index)?;
        let view = FileView::of_chunk(
            SchemaTree::parse(schema)?,
            self.version,
            schema,
            chunk,
            self.chunks[index].size as usize,
            checksums,
        );
        Ok(Reader::of_view(view, self.options.clone()))
    }

    /// The bytes of the header's schema section and of every schema section.
    pub(crate) fn schema_bytes(&self) -> usize {
        (self.schemas.iter())
            .map(|schema| {
                let node = schema.node.len();
                // The header's section: size and checksum; a schema section's: tag, size and
                // checksum too.
                let framing = usize::from(schema.offset != 0) + varint_len(node as u64) + 4;
                node + framing
            })
            .sum()
    }

    /// Fails unless `index` is a chunk's.
    fn check_index(&self, index: usize) -> Result<(), DecodeError> {
        if index >= self.chunks.len() {
            return Err(DecodeError::new(
                DecodeErrorKind::PathNotFound,
                "",
                format!("chunk {index} of an archive of {}", self.chunks.len()),
            ));
        }
        Ok(())
    }

    /// Checks every chunk's data against its checksums.
    pub fn verify(&self) -> Result<(), DecodeError> {
        for index in 0..self.chunks.len() {
            let (chunk, _) = self.chunk(index)?;
            chunk.verify_data(&self.options)?;
        }
        Ok(())
    }

    /// The rows of chunk `index`, as `T` (a type with fewer fields reads only their branches).
    /// Fails if `index` is not a chunk's.
    pub fn decode_chunk<'r, T: Decode<'r>>(&'r self, index: usize) -> Result<Vec<T>, DecodeError> {
        self.check_index(index)?;
        let budget = Budget::for_version(self.chunk_budget(index), self.version);
        self.checked_rows(index, self.decode_chunk_with(index, budget)?)
    }

    /// Every row, as `T`; chunks are decoded in parallel if the options allow, each straight
    /// into its place in the result.
    pub fn decode_all<'r, T: Decode<'r> + Send>(&'r self) -> Result<Vec<T>, DecodeError> {
        let mut budget = Budget::for_version(self.whole_budget(), self.version);
        // The result is made before any chunk is read, so the rows the footer claims are paid
        // for first; each chunk is checked to hold what the footer says before it is written.
        let rows = usize::try_from(self.rows).unwrap_or(usize::MAX);
        budget.charge(rows, size_of::<T>())?;
        let lens: Vec<usize> = (self.chunks.iter())
            .map(|chunk| chunk.rows as usize)
            .collect();
        let parallel = self.options.parallel && self.chunks.len() > 1;
        crate::parallel::fill_parts(&lens, parallel, |index, slots| {
            let (mut rows, _) = self.rows_decoder_with::<T>(index, budget.clone())?;
            slots.fill_with(|| rows.next());
            Ok(())
        })
    }

    /// `rows`, decoded from chunk `index`, if they are as many as the footer says.
    fn checked_rows<T>(&self, index: usize, rows: Vec<T>) -> Result<Vec<T>, DecodeError> {
        self.check_row_count(index, rows.len())?;
        Ok(rows)
    }

    /// Whether chunk `index` holds `rows` rows, as the footer says.
    fn check_row_count(&self, index: usize, rows: usize) -> Result<(), DecodeError> {
        if rows as u64 != self.chunks[index].rows {
            return Err(corrupt(format!(
                "chunk {index} holds {rows} rows; the footer says {}",
                self.chunks[index].rows
            )));
        }
        Ok(())
    }

    /// The rows in `range`, as `T`: only the chunks that hold them are read.
    pub fn decode_rows<'r, T: Decode<'r>>(
        &'r self,
        range: Range<u64>,
    ) -> Result<Vec<T>, DecodeError> {
        let end = range.end.min(self.rows);
        let mut rows = Vec::new();
        for (index, info) in self.infos.iter().enumerate() {
            let chunk_end = info.first_row + info.rows;
            if chunk_end <= range.start || info.first_row >= end {
                continue;
            }
            let decoded = self.decode_chunk::<T>(index)?;
            let from = range.start.saturating_sub(info.first_row) as usize;
            let to = (end - info.first_row) as usize;
            rows.extend(decoded.into_iter().take(to).skip(from));
        }
        Ok(rows)
    }

    /// The rows a chunk at a time, as `T`: memory holds one chunk's columns, and each row is
    /// made as it is taken.
    pub fn iter<'r, T: Decode<'r>>(&'r self) -> Result<Rows<'r, 'a, T>, DecodeError> {
        Ok(self.iter_rows(0..self.rows))
    }

    /// The rows in `range`, as [`Self::iter`] gives them: only the chunks that hold them are
    /// read.
    pub fn iter_rows<'r, T: Decode<'r>>(&'r self, range: Range<u64>) -> Rows<'r, 'a, T> {
        let end = range.end.min(self.rows);
        let next_chunk = (self.infos.iter())
            .position(|info| info.first_row + info.rows > range.start)
            .unwrap_or(self.infos.len());
        let skip = (self.infos.get(next_chunk))
            .map_or(0, |info| range.start.saturating_sub(info.first_row));
        Rows {
            archive: self,
            next_chunk,
            skip,
            remaining: end.saturating_sub(range.start),
            chunk: None,
        }
    }

    /// A decoder of the rows of chunk `index`, one at a time.
    fn rows_decoder<'r, T: Decode<'r>>(
        &'r self,
        index: usize,
    ) -> Result<(Indirect<'r, T>, u64), DecodeError> {
        let budget = Budget::for_version(self.chunk_budget(index), self.version);
        self.rows_decoder_with::<T>(index, budget)
    }

    /// [`Self::rows_decoder`] drawing on `budget`, which the memory of the rows themselves is
    /// not taken from (the caller holds it).
    fn rows_decoder_with<'r, T: Decode<'r>>(
        &'r self,
        index: usize,
        budget: Budget,
    ) -> Result<(Indirect<'r, T>, u64), DecodeError> {
        let tree = &self.schemas[self.chunk_schemas[index]].tree;
        let (chunk, checksums) = self.chunk(index)?;
        let (decoder, rows) =
            chunk_rows_decoder::<T>(tree, chunk, checksums, budget, &self.options, |rows| {
                self.check_row_count(index, rows)
            })?;
        Ok((decoder, rows as u64))
    }

    /// Every value at `path` (such as `[].name`), in row order, across all chunks, into the
    /// collection `T` (such as `Vec<String>`): see [`Reader::decode_path`](crate::Reader::decode_path).
    /// A chunk whose schema lacks the path (rows of [`Value`](crate::Value)s whose field
    /// first comes in a later chunk, say) has no values there; the path must be in some chunk's.
    pub fn decode_path<'r, T: Decode<'r>>(&'r self, path: impl AsPath) -> Result<T, DecodeError> {
        let path = path.as_path()?;
        let mut parts = Vec::with_capacity(self.chunks.len());
        let mut not_found = None;
        for index in 0..self.chunks.len() {
            let tree = &self.schemas[self.chunk_schemas[index]].tree;
            let route = match resolve(tree.root(), &path) {
                Ok(route) => route,
                Err(error) if error.kind() == DecodeErrorKind::PathNotFound => {
                    not_found.get_or_insert(error);
                    continue;
                }
                Err(error) => return Err(error),
            };
            let (chunk, checksums) = self.chunk(index)?;
            let budget = Budget::for_version(self.chunk_budget(index), self.version);
            let depth_limit = self.options.depth_limit;
            let mut ctx =
                DecodeContext::with_budget(chunk.branches, budget, checksums, depth_limit);
            let count = values_at_end(&route, &mut ctx)?;
            let mut decoder: Indirect<'r, T> =
                decode_root(ctx, route.node.gathered(count), 1, self.options.parallel)?;
            parts.push(decoder.next());
        }
        match not_found {
            Some(error) if parts.is_empty() => Err(error),
            _ => join(parts),
        }
    }

    /// Decodes the whole archive as one value of `T`, as [`crate::decode`] does.
    ///
    /// The archive was opened from `bytes` ([`Archive::from_bytes`]), which what it decodes may
    /// borrow from.
    pub(crate) fn decode_whole_of<'b, T: Decode<'b>>(
        &self,
        bytes: &'b [u8],
    ) -> Result<T, DecodeError> {
        let budget = self.whole_budget_checked()?;
        if self.chunks.len() == 1 {
            return self.decode_chunk_in(bytes, 0, budget);
        }
        let parts = (0..self.chunks.len())
            .map(|index| self.decode_chunk_in(bytes, index, budget.clone()))
            .collect::<Result<Vec<T>, _>>()?;
        join(parts)
    }

    /// The budget that reading every row draws on, chunk after chunk; an error if the archive
    /// has bytes after its last footer, whose rows a read of the whole would miss.
    pub(crate) fn whole_budget_checked(&self) -> Result<Budget, DecodeError> {
        if self.unfinished_bytes() > 0 {
            return Err(DecodeError::new(
                DecodeErrorKind::Truncated,
                "",
                format!(
                    "the archive has {} bytes after its last complete footer (an append that \
                     did not finish, or a cut): Archive::open reads the rows that footer lists",
                    self.unfinished_bytes()
                ),
            ));
        }
        Ok(Budget::for_version(self.whole_budget(), self.version))
    }

    /// How many chunks the archive has.
    #[cfg(feature = "serde")]
    pub(crate) fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// The items node of chunk `index`'s schema (its rows), how many rows the chunk has, and a
    /// context for its branches drawing on `budget`: for readers of rows that are not
    /// [`Decode`] types.
    ///
    /// The context reads the bytes the archive was opened from ([`Archive::from_bytes`]), so that
    /// what it decodes may borrow from them; a mapped archive, or one that owns its buffer, has
    /// none to lend for as long as `'a`.
    #[cfg(feature = "serde")]
    pub(crate) fn chunk_rows(
        &self,
        index: usize,
        budget: Budget,
    ) -> Result<(crate::schema::NodeRef<'_>, usize, DecodeContext<'a>), DecodeError> {
        let Bytes::Borrowed(bytes) = self.bytes else {
            return Err(corrupt(
                "only an archive opened from borrowed bytes lends them",
            ));
        };
        let tree = &self.schemas[self.chunk_schemas[index]].tree;
        let (chunk, checksums) = self.chunk_in(bytes, index)?;
        chunk_items(tree, chunk, checksums, budget, self.options.depth_limit)
    }

    /// Decodes chunk `index` as one value of `T` (a sequence of its rows), drawing on `budget`.
    fn decode_chunk_with<'r, T: Decode<'r>>(
        &'r self,
        index: usize,
        budget: Budget,
    ) -> Result<T, DecodeError> {
        self.decode_chunk_in(self.bytes.get(), index, budget)
    }

    /// [`Self::decode_chunk_with`] from `bytes`, the archive's own, which what it decodes may
    /// borrow from.
    fn decode_chunk_in<'b, T: Decode<'b>>(
        &self,
        bytes: &'b [u8],
        index: usize,
        budget: Budget,
    ) -> Result<T, DecodeError> {
        let tree = &self.schemas[self.chunk_schemas[index]].tree;
        let (chunk, checksums) = self.chunk_in(bytes, index)?;
        decode_chunk_rows(tree, chunk, checksums, budget, &self.options)
    }

    /// The cap on decoded bytes for chunk `index` alone.
    fn chunk_budget(&self, index: usize) -> u64 {
        self.options.budget_for(self.chunks[index].size as usize)
    }

    /// The cap on decoded bytes for the whole archive.
    fn whole_budget(&self) -> u64 {
        self.options.budget_for(self.bytes.get().len())
    }

    /// The schema of chunk `index`, and the chunk with its table checked.
    pub(super) fn chunk_parts(
        &self,
        index: usize,
    ) -> Result<(&SchemaTree, Chunk<'_>), DecodeError> {
        self.check_index(index)?;
        let tree = &self.schemas[self.chunk_schemas[index]].tree;
        Ok((tree, self.chunk(index)?.0))
    }

    /// Chunk `index`, its table checked, and the checksums of its branches.
    fn chunk(&self, index: usize) -> Result<(Chunk<'_>, Vec<u32>), DecodeError> {
        self.chunk_in(self.bytes.get(), index)
    }

    /// [`Self::chunk`] in `bytes`, the archive's own.
    fn chunk_in<'b>(
        &self,
        bytes: &'b [u8],
        index: usize,
    ) -> Result<(Chunk<'b>, Vec<u32>), DecodeError> {
        let entry = &self.chunks[index];
        let tree = &self.schemas[self.chunk_schemas[index]].tree;
        let start = entry.offset as usize;
        let section = &bytes[start..start + entry.size as usize];
        let body = read_section(section, false)?.body;
        let chunk = parse_chunk(body, tree.branch_count(), &self.options)?;
        let sizes_agree = (chunk.branches.iter().zip(&entry.branches))
            .all(|(branch, listed)| branch.len() as u64 == listed.size);
        if !sizes_agree {
            return Err(corrupt(
                "the footer and the chunk disagree on the sizes of its branches",
            ));
        }
        let checksums = if self.options.verify_checksums {
            entry.branches.iter().map(|branch| branch.crc).collect()
        } else {
            Vec::new()
        };
        Ok((chunk, checksums))
    }
}

/// Parses the chunk of a chunk section's `body`: its table checked, and one root value, the
/// sequence of its rows.
pub(crate) fn parse_chunk<'b>(
    body: &'b [u8],
    branch_count: usize,
    options: &DecodeOptions,
) -> Result<Chunk<'b>, DecodeError> {
    let mut reader = ByteReader::new(body);
    let chunk = Chunk::parse(&mut reader, branch_count, options)?;
    reader.finish("a chunk")?;
    if chunk.rows != 1 {
        return Err(corrupt("an archive's chunk holds one sequence of rows"));
    }
    Ok(chunk)
}

/// Decodes `chunk`, whose schema is `tree`, as one value of `T` (a sequence of its rows),
/// drawing on `budget` and checking every branch read against `checksums` (unless empty).
pub(crate) fn decode_chunk_rows<'b, T: Decode<'b>>(
    tree: &SchemaTree,
    chunk: Chunk<'b>,
    checksums: Vec<u32>,
    budget: Budget,
    options: &DecodeOptions,
) -> Result<T, DecodeError> {
    let ctx = DecodeContext::with_budget(chunk.branches, budget, checksums, options.depth_limit);
    let mut decoder: Indirect<'b, T> = decode_root(ctx, tree.root(), 1, options.parallel)?;
    Ok(decoder.next())
}

/// A decoder of the rows of `chunk`, whose schema is `tree`, one at a time, and how many there
/// are; `check` sees the count before any row's columns are decoded.
pub(crate) fn chunk_rows_decoder<'b, T: Decode<'b>>(
    tree: &SchemaTree,
    chunk: Chunk<'b>,
    checksums: Vec<u32>,
    budget: Budget,
    options: &DecodeOptions,
    check: impl FnOnce(usize) -> Result<(), DecodeError>,
) -> Result<(Indirect<'b, T>, usize), DecodeError> {
    let (items, rows, ctx) = chunk_items(tree, chunk, checksums, budget, options.depth_limit)?;
    check(rows)?;
    Ok((decode_root(ctx, items, rows, options.parallel)?, rows))
}

/// The items node of a chunk's schema `tree` (its rows), how many rows the chunk has, and a
/// context for its branches that has read that count.
fn chunk_items<'t, 'b>(
    tree: &'t SchemaTree,
    chunk: Chunk<'b>,
    checksums: Vec<u32>,
    budget: Budget,
    depth_limit: usize,
) -> Result<(crate::schema::NodeRef<'t>, usize, DecodeContext<'b>), DecodeError> {
    let mut ctx = DecodeContext::with_budget(chunk.branches, budget, checksums, depth_limit);
    let root = tree.root();
    let rows = values_below(root, 0, 1, &mut ctx)?;
    let items = root
        .child(0)
        .ok_or_else(|| corrupt("a sequence without items"))?;
    Ok((items, rows, ctx))
}

/// Joins the values decoded from each chunk into one.
fn join<'de, T: Decode<'de>>(parts: Vec<T>) -> Result<T, DecodeError> {
    let chunks = parts.len();
    T::join_chunks(parts).ok_or_else(|| {
        DecodeError::new(
            DecodeErrorKind::SchemaMismatch,
            "",
            format!(
                "an archive of {chunks} chunks decodes as a sequence of its rows (a Vec, say), \
                 not as one {}",
                std::any::type_name::<T>()
            ),
        )
    })
}

/// The rows of an archive, decoded a chunk at a time: see [`Archive::iter`].
pub struct Rows<'r, 'a, T: Decode<'r>> {
    archive: &'r Archive<'a>,
    next_chunk: usize,
    /// Rows to pass over at the start of the next chunk.
    skip: u64,
    /// Rows still to give.
    remaining: u64,
    /// The chunk being read, and its rows not yet taken.
    chunk: Option<(Indirect<'r, T>, u64)>,
}

impl<'r, T: Decode<'r>> Iterator for Rows<'r, '_, T> {
    type Item = Result<T, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        while self.remaining > 0 {
            if let Some((decoder, left)) = &mut self.chunk {
                if *left > 0 {
                    *left -= 1;
                    self.remaining -= 1;
                    return Some(Ok(decoder.next()));
                }
            }
            if self.next_chunk >= self.archive.chunks.len() {
                return None;
            }
            // The chunk read is let go before the next is decoded.
            self.chunk = None;
            self.next_chunk += 1;
            match self.archive.rows_decoder::<T>(self.next_chunk - 1) {
                Ok((mut decoder, rows)) => {
                    let skip = std::mem::take(&mut self.skip).min(rows);
                    (0..skip).for_each(|_| drop(decoder.next()));
                    self.chunk = Some((decoder, rows - skip));
                }
                Err(error) => {
                    // Nothing after a chunk that fails.
                    self.remaining = 0;
                    return Some(Err(error));
                }
            }
        }
        None
    }
}

impl Schema {
    fn parse(offset: u64, node: Range<usize>, all: &[u8]) -> Result<Schema, DecodeError> {
        let tree = SchemaTree::parse(&all[node.clone()])?;
        if tree.root().node_type() != NodeType::Seq {
            return Err(corrupt(format!(
                "an archive's schema is a sequence of rows, not a {}",
                tree.root().node_type()
            )));
        }
        let owners = (tree.branch_owners().iter())
            .map(|owner| (owner.path(), owner.node_type()))
            .collect();
        Ok(Schema {
            offset,
            node,
            tree,
            owners,
        })
    }
}

/// The chunks of the footer that the trailer at the end of `all` points to, and where that
/// trailer ends.
pub(super) fn read_footer_at_end(
    all: &[u8],
    start: usize,
    version: u8,
    options: &DecodeOptions,
) -> Result<(Footer, usize), DecodeError> {
    let missing = |what: &str| {
        DecodeError::new(
            DecodeErrorKind::Truncated,
            "",
            format!(
                "the archive {what}: its writer did not finish, or the file was cut short \
                 (Archive::recover reads every complete chunk)"
            ),
        )
    };
    let Trailer {
        footer_offset,
        footer_crc,
    } = read_trailer(&all[start.min(all.len())..]).ok_or_else(|| missing("has no trailer"))?;
    let footer = usize::try_from(footer_offset)
        .ok()
        .filter(|&at| at >= start && at < all.len() - TRAILER_BYTES)
        .ok_or_else(|| missing("has a trailer that points outside it"))?;
    let section = read_section(&all[footer..], options.verify_checksums)?;
    let stored_crc = all[footer + section.len - TRAILER_BYTES - 4..][..4]
        .try_into()
        .map(u32::from_le_bytes)
        .unwrap_or_default();
    if section.tag != FOOTER_SECTION
        || footer + section.len != all.len()
        || stored_crc != footer_crc
    {
        return Err(missing("has a trailer that does not match its footer"));
    }
    let footer = read_footer(section.body, version)?;
    let listed = (footer.chunks.iter()).try_fold(0u64, |sum, chunk| sum.checked_add(chunk.rows));
    if listed != Some(footer.rows) {
        return Err(corrupt(
            "the footer's rows are not the sum of its chunks' rows",
        ));
    }
    Ok((footer, all.len()))
}

/// What a walk over an archive's sections from the start finds.
struct Scan {
    /// Every complete chunk whose checksums hold, as a footer would list it (no statistics).
    chunks: Vec<ChunkEntry>,
    /// The end of the last of those chunks (or of the header).
    end: usize,
    /// The last complete footer, and where its trailer ends.
    last_footer: Option<(Footer, usize)>,
}

impl Scan {
    /// Walks the sections after the header (`start`), stopping at the first that is incomplete
    /// or damaged.
    fn of(all: &[u8], start: usize, version: u8, options: &DecodeOptions) -> Scan {
        let mut scan = Scan {
            chunks: Vec::new(),
            end: start,
            last_footer: None,
        };
        let mut at = start;
        let mut schema = (0u64, None::<SchemaTree>);
        while at < all.len() {
            let Ok(section) = read_section(&all[at..], options.verify_checksums) else {
                break;
            };
            let end = at + section.len;
            match section.tag {
                SCHEMA_SECTION => match SchemaTree::parse(section.body) {
                    Ok(tree) => schema = (at as u64, Some(tree)),
                    Err(_) => break,
                },
                FOOTER_SECTION => {
                    let footer = read_footer(section.body, version).ok();
                    scan.last_footer = footer.map(|footer| (footer, end));
                }
                _ => {
                    let branches = match &schema.1 {
                        Some(tree) => tree.branch_count(),
                        None => match Head::parse(all, options)
                            .and_then(|head| SchemaTree::parse(head.schema))
                        {
                            Ok(tree) => {
                                let count = tree.branch_count();
                                schema.1 = Some(tree);
                                count
                            }
                            Err(_) => break,
                        },
                    };
                    match recovered_entry(section.body, branches, at, section.len, options) {
                        Some(mut entry) => {
                            entry.schema = schema.0;
                            scan.chunks.push(entry);
                            scan.end = end;
                        }
                        None => break,
                    }
                }
            }
            at = end;
        }
        scan
    }
}

/// The footer entry of a complete chunk found by scanning, if its checksums hold; its rows are
/// read from its root sequence's length.
fn recovered_entry(
    body: &[u8],
    branch_count: usize,
    offset: usize,
    size: usize,
    options: &DecodeOptions,
) -> Option<ChunkEntry> {
    let chunk = parse_chunk(body, branch_count, options).ok()?;
    chunk.verify_data(options).ok()?;
    let lengths = chunk.branches.first().copied().unwrap_or_default();
    let mut budget = Budget::new(64);
    let rows = crate::encodings::int::decode::<u64>(lengths, 1, &mut budget)
        .ok()?
        .first()
        .copied()?;
    Some(ChunkEntry {
        offset: offset as u64,
        size: size as u64,
        schema: 0,
        rows,
        branches: (chunk.branches.iter())
            .map(|branch| super::format::BranchEntry {
                size: branch.len() as u64,
                crc: crc32fast::hash(branch),
                values: 0,
                stats: RawStats::None,
            })
            .collect(),
    })
}

/// The public description of a chunk whose branches' owners are `owners`.
fn chunk_info(chunk: &ChunkEntry, first_row: u64, owners: &[(String, NodeType)]) -> ChunkInfo {
    ChunkInfo {
        first_row,
        rows: chunk.rows,
        offset: chunk.offset,
        bytes: chunk.size,
        branches: (owners.iter().zip(&chunk.branches))
            .map(|((path, node_type), branch)| BranchInfo {
                path: path.clone(),
                node_type: *node_type,
                bytes: branch.size,
                crc: branch.crc,
                values: branch.values,
                statistics: Statistics::read(&branch.stats, *node_type),
            })
            .collect(),
    }
}

impl Statistics {
    /// Reads statistics as written for a branch of a node of `node_type`.
    fn read(stats: &RawStats, node_type: NodeType) -> Option<Statistics> {
        Some(match stats {
            RawStats::None => return None,
            RawStats::Nulls(nulls) => Statistics::Nulls(*nulls),
            RawStats::Bytes { min, max } => Statistics::Str {
                min: min.clone(),
                max: max.clone(),
            },
            &RawStats::Words { width, min, max } => {
                let bits = u32::from(width) * 8;
                let signed = |word: u128| ((word << (128 - bits)) as i128) >> (128 - bits);
                match node_type {
                    NodeType::F32 if width == 4 => Statistics::Float {
                        min: f64::from(f32::from_bits(min as u32)),
                        max: f64::from(f32::from_bits(max as u32)),
                    },
                    NodeType::F64 if width == 8 => Statistics::Float {
                        min: f64::from_bits(min as u64),
                        max: f64::from_bits(max as u64),
                    },
                    NodeType::I8
                    | NodeType::I16
                    | NodeType::I32
                    | NodeType::I64
                    | NodeType::I128 => Statistics::Signed {
                        min: signed(min),
                        max: signed(max),
                    },
                    _ => Statistics::Unsigned { min, max },
                }
            }
        })
    }
}
