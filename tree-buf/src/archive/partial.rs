//! Opening an archive by byte ranges, for stores where every byte fetched costs (object stores,
//! HTTP): only the parts that opening needs and the branches a read asks for are fetched.
//!
//! What opening reads, in the order it can be known (see `docs/FORMAT.md`):
//!
//! 1. the header with its schema, and the end of the file with its trailer;
//! 2. the footer the trailer points to, which lists every chunk and the size of each branch;
//! 3. each chunk's section head (its tag and size) and branch table, and each schema section a
//!    chunk reads under.
//!
//! A read of some branches of a chunk then needs those branches, the
//! branches of the nodes above them (presence, lengths, discriminants, which count their
//! values), every branch of a recursive type they lie in (read whole), and the source branch
//! that a keyed branch names inside its own bytes (so the keyed branch is fetched first).

use std::collections::BTreeSet;
use std::ops::Range;

use memmap2::{MmapMut, MmapOptions};

use super::format::{read_trailer, ChunkEntry, TRAILER_BYTES};
use super::reader::{read_footer_at_end, Archive, Bytes};
use super::ArchiveError;
use crate::encodings::bytes::{varint_len, ByteReader};
use crate::encodings::{int, string};
use crate::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::file::{Head, HEADER_BYTES, MAGIC};
use crate::options::DecodeOptions;
use crate::schema::{NodeRef, NodeType};

/// The bytes fetched first from the start of an archive: its header and schema, unless the
/// schema is larger, when the rest is fetched once its size is known.
const HEAD_GUESS: usize = 4 << 10;

/// The bytes fetched first from the end of an archive: its trailer, and its footer unless the
/// footer is larger, when the rest is fetched once the trailer says where it starts.
const TAIL_GUESS: usize = 4 << 10;

/// The most bytes of a section's tag and size: a tag byte and a varint.
const SECTION_HEAD: usize = 11;

/// An archive fetched in part, by byte ranges: opened from its header, footer and schemas, and
/// holding of its chunks only the branches asked for.
///
/// It works without I/O of its own, so that any store can feed it, synchronously or not:
/// [`wanted`](Self::wanted) says which byte ranges to fetch next, and [`fill`](Self::fill) takes
/// them. Once nothing more is wanted for opening, [`view`](Self::view) shows the archive (its
/// chunks, their branches and statistics), from which a reader picks the branches to read and
/// asks for them with [`read_branches`](Self::read_branches); after another round of fetching,
/// [`finish`](Self::finish) gives an [`Archive`] that reads them as any archive does.
///
/// The bytes are kept in a zero-filled anonymous memory map of the archive's length, which the
/// OS backs with memory only where fetched bytes are written: an archive larger than memory
/// can be read in part. Checksums are always verified, whatever the options say, so that
/// reading a branch that was not fetched is an error rather than a read of zeros.
///
/// ```
/// use tree_buf::archive::{ArchiveOptions, ArchiveWriter, PartialArchive};
/// use tree_buf::prelude::*;
///
/// #[derive(Encode, Decode)]
/// struct Country { name: String, border: Vec<(f64, f64)> }
///
/// let mut writer = ArchiveWriter::with_options(Vec::new(), ArchiveOptions::default().chunk_rows(100))?;
/// for i in 0..250 {
///     let border = (0..200).map(|j| (f64::from(i * 200 + j).sin(), f64::from(i * 200 + j).cos()));
///     writer.push(&Country { name: format!("country {i}"), border: border.collect() })?;
/// }
/// // Stands for a file in an object store, fetched by ranges.
/// let stored = writer.finish()?;
///
/// let mut partial = PartialArchive::new(stored.len() as u64)?;
/// let mut fetch = |partial: &mut PartialArchive| -> Result<(), tree_buf::DecodeError> {
///     for range in partial.wanted()? {
///         let bytes = stored[range.start as usize..range.end as usize].to_vec();
///         partial.fill(range.start, &bytes)?;
///     }
///     Ok(())
/// };
/// while !partial.wanted()?.is_empty() {
///     fetch(&mut partial)?;
/// }
/// // The names of the last chunk only.
/// let reads: Vec<(usize, Vec<usize>)> = {
///     let view = partial.view()?;
///     let last = view.chunks().len() - 1;
///     let names = view.chunks()[last].branches.iter().enumerate()
///         .filter(|(_, branch)| branch.path == "[].name")
///         .map(|(index, _)| index)
///         .collect();
///     vec![(last, names)]
/// };
/// for (chunk, branches) in reads {
///     partial.read_branches(chunk, branches);
/// }
/// while !partial.wanted()?.is_empty() {
///     fetch(&mut partial)?;
/// }
/// assert!(partial.fetched_bytes() < stored.len() as u64 / 10);
/// let archive = partial.finish()?;
/// let names: Vec<String> = archive.chunk_reader(2)?.decode_path("[].name")?;
/// assert_eq!(names[0], "country 200");
/// // The borders were never fetched: reading them fails their checksums.
/// assert!(archive.chunk_reader(2)?.decode_path::<Vec<Vec<(f64, f64)>>>("[].border").is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct PartialArchive {
    /// The archive's bytes where fetched, zeros elsewhere.
    map: MmapMut,
    /// The ranges fetched: sorted, apart and not touching.
    fetched: Vec<Range<usize>>,
    /// The branches asked for, by chunk.
    reads: Vec<(usize, Vec<usize>)>,
    options: DecodeOptions,
}

impl std::fmt::Debug for PartialArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PartialArchive")
            .field("len", &self.map.len())
            .field("fetched_bytes", &self.fetched_bytes())
            .field("reads", &self.reads)
            .finish()
    }
}

impl PartialArchive {
    /// An archive of `len` bytes, nothing of it fetched yet, read with the default
    /// [`DecodeOptions`].
    pub fn new(len: u64) -> Result<Self, ArchiveError> {
        Self::with_options(len, DecodeOptions::default())
    }

    /// An archive of `len` bytes, nothing of it fetched yet, read under the given limits (its
    /// checksums verified whatever they say).
    pub fn with_options(len: u64, options: DecodeOptions) -> Result<Self, ArchiveError> {
        let len = usize::try_from(len)
            .ok()
            .filter(|&len| len >= HEADER_BYTES + TRAILER_BYTES)
            .ok_or_else(|| {
                DecodeError::new(
                    DecodeErrorKind::Truncated,
                    "",
                    format!("{len} bytes cannot hold an archive"),
                )
            })?;
        // Reserving no swap: the map is the archive's size, but only what is fetched is
        // ever written.
        let map = MmapOptions::new().len(len).no_reserve_swap().map_anon()?;
        Ok(PartialArchive {
            map,
            fetched: Vec::new(),
            reads: Vec::new(),
            options: options.verify_checksums(true),
        })
    }

    /// The archive's length.
    pub fn len(&self) -> u64 {
        self.map.len() as u64
    }

    /// Whether the archive is empty: never, as [`Self::new`] refuses one too short to be an
    /// archive.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The bytes fetched so far.
    pub fn fetched_bytes(&self) -> u64 {
        self.fetched.iter().map(|range| range.len() as u64).sum()
    }

    /// Takes the archive's bytes from `start` on, fetched from its store.
    pub fn fill(&mut self, start: u64, bytes: &[u8]) -> Result<(), DecodeError> {
        let range = usize::try_from(start)
            .ok()
            .and_then(|start| Some(start..start.checked_add(bytes.len())?))
            .filter(|range| range.end <= self.map.len())
            .ok_or_else(|| {
                corrupt(format!(
                    "{} bytes at {start} lie outside an archive of {}",
                    bytes.len(),
                    self.map.len()
                ))
            })?;
        self.map[range.clone()].copy_from_slice(bytes);
        let at = self.fetched.partition_point(|have| have.end < range.start);
        let mut merged = range;
        let mut end = at;
        while end < self.fetched.len() && self.fetched[end].start <= merged.end {
            merged.start = merged.start.min(self.fetched[end].start);
            merged.end = merged.end.max(self.fetched[end].end);
            end += 1;
        }
        self.fetched.splice(at..end, [merged]);
        Ok(())
    }

    /// Asks for `branches` of chunk `chunk` (indices into its [`ChunkInfo::branches`]), to be
    /// read from the [`Archive`] that [`finish`](Self::finish) gives. The branches they need
    /// besides (of the nodes above them, and keyed branches' sources) are wanted with them.
    ///
    /// [`ChunkInfo::branches`]: super::ChunkInfo::branches
    pub fn read_branches(&mut self, chunk: usize, branches: impl IntoIterator<Item = usize>) {
        self.reads.push((chunk, branches.into_iter().collect()));
    }

    /// The byte ranges to fetch next, sorted: what opening needs, then the branches asked for.
    /// Empty once everything is fetched. Each round may want more than the last: a footer is
    /// found from the trailer, and a keyed branch names its source in its own bytes.
    pub fn wanted(&self) -> Result<Vec<Range<u64>>, DecodeError> {
        let mut wanted = self.wanted_to_open()?;
        if wanted.is_empty() {
            let archive = self.open()?;
            for (chunk, branches) in &self.reads {
                wanted.extend(self.wanted_to_read(&archive, *chunk, branches)?);
            }
        }
        Ok(self.missing(wanted))
    }

    /// The archive as opened from what is fetched: its chunks, their branches and statistics.
    /// Reading a branch through it fails (as not fetched) unless it was asked for and fetched.
    pub fn view(&self) -> Result<Archive<'_>, DecodeError> {
        self.open()
    }

    /// The archive, holding what was fetched, once nothing more is [`wanted`](Self::wanted).
    pub fn finish(self) -> Result<Archive<'static>, ArchiveError> {
        if !self.wanted()?.is_empty() {
            return Err(ArchiveError::Decode(DecodeError::new(
                DecodeErrorKind::Truncated,
                "",
                "the archive is finished before every part it needs is fetched",
            )));
        }
        let bytes = Bytes::Mapped(self.map.make_read_only()?);
        Ok(Archive::new(bytes, self.options, false)?)
    }

    fn open(&self) -> Result<Archive<'_>, DecodeError> {
        if !self.wanted_to_open()?.is_empty() {
            return Err(DecodeError::new(
                DecodeErrorKind::Truncated,
                "",
                "the archive is opened before the parts that opening reads are fetched",
            ));
        }
        Archive::new(Bytes::Borrowed(&self.map), self.options.clone(), false)
    }

    /// Whether every byte of `range` is fetched.
    fn has(&self, range: &Range<usize>) -> bool {
        let at = self.fetched.partition_point(|have| have.end <= range.start);
        range.is_empty()
            || (self.fetched.get(at))
                .is_some_and(|have| have.start <= range.start && have.end >= range.end)
    }

    /// What of `wanted` is not fetched, merged and sorted.
    fn missing(&self, mut wanted: Vec<Range<usize>>) -> Vec<Range<u64>> {
        wanted.sort_by_key(|range| range.start);
        let mut missing: Vec<Range<u64>> = Vec::new();
        for range in wanted {
            // The parts of `range` between the fetched ranges it overlaps.
            let mut start = range.start;
            let first = self.fetched.partition_point(|have| have.end <= start);
            for have in &self.fetched[first..] {
                if have.start >= range.end {
                    break;
                }
                if have.start > start {
                    push_merged(&mut missing, start..have.start);
                }
                start = start.max(have.end);
            }
            if start < range.end {
                push_merged(&mut missing, start..range.end);
            }
        }
        missing
    }

    /// The parts that opening needs and are not all fetched yet, as far as what is fetched
    /// tells: empty once the archive can be opened.
    fn wanted_to_open(&self) -> Result<Vec<Range<usize>>, DecodeError> {
        let all = &self.map[..];
        let len = all.len();
        let start = 0..len.min(HEAD_GUESS);
        let trailer = len - TRAILER_BYTES..len;
        if !self.has(&start) || !self.has(&trailer) {
            return Ok(vec![start, len.saturating_sub(TAIL_GUESS)..len]);
        }
        // The rest of the header and of the footer, where they are longer than guessed.
        let head_len = declared_head_len(all)?;
        let footer = read_trailer(&all[head_len..])
            .and_then(|trailer| usize::try_from(trailer.footer_offset).ok())
            .filter(|&at| at >= head_len && at < len - TRAILER_BYTES)
            .ok_or_else(|| {
                DecodeError::new(
                    DecodeErrorKind::Truncated,
                    "",
                    "the archive has no trailer that points to its footer: its writer did not \
                     finish, or it was cut short (fetch it whole and read it with \
                     Archive::recover_bytes)",
                )
            })?;
        let rest: Vec<Range<usize>> = [0..head_len, footer..len]
            .into_iter()
            .filter(|range| !self.has(range))
            .collect();
        if !rest.is_empty() {
            return Ok(rest);
        }
        let head = Head::parse(all, &self.options)?;
        let (footer, _) = read_footer_at_end(all, head.len, head.version, &self.options)?;
        let chunks = footer.chunks;
        let mut wanted = Vec::new();
        let mut schemas = BTreeSet::new();
        for chunk in &chunks {
            wanted.push(table_range(chunk, len)?);
            if chunk.schema != 0 {
                schemas.insert(to_usize(chunk.schema)?);
            }
        }
        for at in schemas {
            if at >= len {
                return Err(corrupt(
                    "the footer lists a schema section outside the archive",
                ));
            }
            let head = at..len.min(at.saturating_add(SECTION_HEAD));
            if !self.has(&head) {
                wanted.push(head);
                continue;
            }
            // A schema section: its tag, its size, the schema, a checksum.
            let mut reader = ByteReader::new(&all[at + 1..]);
            let node = to_usize(reader.varint()?)?;
            let end = (at + 1 + varint_len(node as u64))
                .checked_add(node)
                .and_then(|end| end.checked_add(4))
                .filter(|&end| end <= len)
                .ok_or_else(|| corrupt("a schema section runs past the archive's end"))?;
            wanted.push(at..end);
        }
        wanted.retain(|range| !self.has(range));
        Ok(wanted)
    }

    /// The ranges of the branches that reading `branches` of chunk `index` reads.
    fn wanted_to_read(
        &self,
        archive: &Archive<'_>,
        index: usize,
        branches: &[usize],
    ) -> Result<Vec<Range<usize>>, DecodeError> {
        // Opening fetched the chunk's table.
        let (tree, chunk) = archive.chunk_parts(index)?;
        let owners = tree.branch_owners();
        let base = self.map.as_ptr() as usize;
        let range_of = |branch: &[u8]| {
            let start = branch.as_ptr() as usize - base;
            start..start + branch.len()
        };
        let mut needed = BTreeSet::new();
        // Every read of rows counts them by the root sequence's lengths.
        needed.extend(tree.root().branch());
        for &branch in branches {
            let owner = owners.get(branch).ok_or_else(|| {
                corrupt(format!(
                    "branch {branch} of a chunk of {} branches",
                    owners.len()
                ))
            })?;
            needed_for(*owner, &mut needed);
        }
        // A keyed branch's source, once the keyed branch is fetched; sources are never keyed.
        let sources: Vec<usize> = (needed.iter())
            .filter(|&&branch| self.has(&range_of(chunk.branches[branch])))
            .filter_map(|&branch| {
                let bytes = chunk.branches[branch];
                let node_type = owners[branch].node_type();
                let source = match node_type.integer_signedness() {
                    Some(_) => int::keyed::source(bytes),
                    None if node_type == NodeType::Str => string::keyed_source(bytes),
                    None => None,
                };
                source.and_then(Result::ok)
            })
            .collect();
        // A source that is no branch is left for the decoding to report.
        for owner in sources.into_iter().filter_map(|source| owners.get(source)) {
            needed_for(*owner, &mut needed);
        }
        Ok((needed.into_iter())
            .map(|branch| range_of(chunk.branches[branch]))
            .collect())
    }
}

/// Adds to `needed` the branches that reading `node`'s values reads: those of the node and all
/// below it, of the nodes above it (which count its values), and, where it lies in a recursive
/// type, every branch of that type (whose values are read whole).
fn needed_for(node: NodeRef<'_>, needed: &mut BTreeSet<usize>) {
    let mut read_whole = node;
    let mut above = Some(node);
    while let Some(at) = above {
        needed.extend(at.branch());
        if at.recursions().next().is_some() {
            read_whole = at;
        }
        above = at.parent().map(|(parent, _)| parent);
    }
    needed.extend(read_whole.subtree_branches());
}

/// Where the section of `chunk` starts, to the end of its branch table: its tag and size (at
/// most [`SECTION_HEAD`] bytes), the rows (1), each branch's size and a checksum.
fn table_range(chunk: &ChunkEntry, len: usize) -> Result<Range<usize>, DecodeError> {
    let offset = to_usize(chunk.offset)?;
    let sizes: usize = (chunk.branches.iter())
        .map(|branch| varint_len(branch.size))
        .sum();
    let end = offset.saturating_add(to_usize(chunk.size)?).min(len);
    Ok(offset.min(end)..end.min(offset.saturating_add(SECTION_HEAD + 1 + sizes + 4)))
}

/// Appends `range` to the sorted `ranges`, joined to the last one if they touch.
fn push_merged(ranges: &mut Vec<Range<u64>>, range: Range<usize>) {
    let range = range.start as u64..range.end as u64;
    match ranges.last_mut() {
        Some(last) if last.end >= range.start => last.end = last.end.max(range.end),
        _ => ranges.push(range),
    }
}

/// The length of the header and schema section that `bytes` start with, from the schema's
/// size, before the schema itself is fetched.
fn declared_head_len(bytes: &[u8]) -> Result<usize, DecodeError> {
    if bytes[..MAGIC.len()] != MAGIC {
        // Says what the bytes are not.
        Head::parse(bytes, &DecodeOptions::default())?;
    }
    let mut reader = ByteReader::new(&bytes[HEADER_BYTES..]);
    let schema = reader.varint()?;
    (HEADER_BYTES + varint_len(schema))
        .checked_add(to_usize(schema)?)
        .and_then(|len| len.checked_add(4))
        .filter(|&len| len <= bytes.len())
        .ok_or_else(|| corrupt("the archive's schema runs past its end"))
}

fn to_usize(value: u64) -> Result<usize, DecodeError> {
    usize::try_from(value).map_err(|_| corrupt(format!("an offset of {value} bytes")))
}
