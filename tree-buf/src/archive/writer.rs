//! Writes archives: rows pushed one at a time, a chunk written whenever enough have come.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;

use super::format::{
    write_footer, write_schema_section, write_section_head, BranchEntry, ChunkEntry, Footer,
    CHUNK_SECTION,
};
use super::{set_pair, stats, Archive, ArchiveError, ArchiveOptions};
use crate::encodings::Version;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind};
use crate::file::{write_head, Parts, WriteScratch, ARCHIVE};
use crate::schema::SchemaTree;
use crate::types::{builds_recursion, Encode, ValueEncoder};
use crate::value::{level_by_level, DynEncoder, Value};

/// Rows between checks of how many bytes the chunk's columns take.
const SIZE_CHECK_ROWS: usize = 64;

/// Writes rows of type `T` to an archive, a chunk at a time: memory stays bounded by the chunk
/// size however many rows are pushed. Call [`ArchiveWriter::finish`] at the end, which writes
/// the footer; an archive whose writer stopped before that opens only through
/// [`Archive::recover`].
///
/// ```
/// use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
/// use tree_buf::prelude::*;
///
/// #[derive(Encode, Decode, Debug, PartialEq)]
/// struct Game { home: String, runs: u8 }
///
/// let options = ArchiveOptions::default().chunk_rows(2);
/// let mut writer = ArchiveWriter::with_options(Vec::new(), options)?;
/// for (home, runs) in [("BOS", 3), ("NYA", 5), ("CHA", 1)] {
///     writer.push(&Game { home: home.into(), runs })?;
/// }
/// let bytes = writer.finish()?;
///
/// let archive = Archive::from_bytes(&bytes)?;
/// assert_eq!(archive.rows(), 3);
/// assert_eq!(archive.chunks().len(), 2);
/// let games: Vec<Game> = archive.decode_all()?;
/// assert_eq!(games[1], Game { home: "NYA".into(), runs: 5 });
/// // A whole archive also decodes as a sequence of its rows.
/// assert_eq!(decode::<Vec<Game>>(&bytes)?, games);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ArchiveWriter<T: Encode + ?Sized, W: Write = BufWriter<File>> {
    sink: W,
    options: ArchiveOptions,
    /// The columns of the chunk being collected.
    encoder: T::Encoder,
    /// Makes the encoder of each chunk.
    new_encoder: Box<dyn Fn() -> T::Encoder + Send + Sync>,
    rows: usize,
    scratch: WriteScratch,
    layout: Layout,
}

/// What has been written so far, for the footer.
#[derive(Debug)]
struct Layout {
    /// Bytes written: the offset of the next section.
    position: u64,
    /// The schema of the last chunk written, none before the header is.
    schema: Option<Vec<u8>>,
    /// The offset of that schema's section, 0 for the header's.
    schema_offset: u64,
    /// What the footer will say: the chunks written, their rows, the metadata.
    footer: Footer,
    /// The version the header declares.
    version: Version,
}

impl<T: Encode + ?Sized> ArchiveWriter<T> {
    /// Creates (or truncates) the archive at `path`.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, ArchiveError> {
        Self::create_with_options(path, ArchiveOptions::default())
    }

    /// Creates (or truncates) the archive at `path`, written with `options`.
    pub fn create_with_options(
        path: impl AsRef<Path>,
        options: ArchiveOptions,
    ) -> Result<Self, ArchiveError> {
        Self::with_options(BufWriter::new(File::create(path)?), options)
    }

    /// Opens the archive at `path` to add rows to it: new chunks go after the existing ones,
    /// and [`Self::finish`] writes a footer that lists them all. The earlier data is never
    /// rewritten, so an append that stops part way leaves the archive as it was (its footer
    /// still opens it); bytes a stopped append left after the last footer are dropped first.
    pub fn append(path: impl AsRef<Path>) -> Result<Self, ArchiveError> {
        Self::append_with_options(path, ArchiveOptions::default())
    }

    /// [`Self::append`] with `options` for the new chunks.
    pub fn append_with_options(
        path: impl AsRef<Path>,
        options: ArchiveOptions,
    ) -> Result<Self, ArchiveError> {
        let file = OpenOptions::new().read(true).write(true).open(path)?;
        let archive = Archive::map(&file, options.decode.clone())?;
        let declared = archive.version;
        let mut metadata = archive.metadata().to_vec();
        for (key, value) in &options.metadata {
            set_pair(&mut metadata, key.clone(), value.clone());
        }
        let layout = Layout {
            position: archive.committed_len() as u64,
            schema: Some(archive.last_schema().to_vec()),
            schema_offset: archive.last_schema_offset(),
            footer: Footer {
                rows: archive.rows(),
                chunks: archive.entries().to_vec(),
                metadata,
            },
            version: Version(declared),
        };
        drop(archive);
        if !options.metadata.is_empty() && layout.version < Version::METADATA {
            return Err(ArchiveError::Decode(DecodeError::new(
                DecodeErrorKind::UnsupportedVersion,
                "",
                format!(
                    "metadata needs format version {}; this archive declares {declared}, whose \
                     footer has no place for it",
                    Version::METADATA.0
                ),
            )));
        }
        // The writer's encoder says which version its rows need; nothing is written yet.
        let mut writer = Self::with_options(BufWriter::new(file), options)?;
        if writer.layout.version > layout.version {
            return Err(ArchiveError::Decode(DecodeError::new(
                DecodeErrorKind::UnsupportedVersion,
                "",
                format!(
                    "rows of a recursive type need format version {}; this archive declares \
                     {declared}",
                    writer.layout.version.0
                ),
            )));
        }
        let file = writer.sink.get_mut();
        file.set_len(layout.position)?;
        file.seek(SeekFrom::Start(layout.position))?;
        // New chunks keep to the version the archive declared, keyed integers included.
        writer.options.encode.settings.newest = layout.version;
        writer.layout = layout;
        Ok(writer)
    }
}

impl<T: Encode + ?Sized, W: Write> ArchiveWriter<T, W> {
    /// An archive written to `sink` with the default options.
    pub fn new(sink: W) -> Result<Self, ArchiveError> {
        Self::with_options(sink, ArchiveOptions::default())
    }

    /// An archive written to `sink` with `options`. Nothing is written until the first chunk
    /// is complete (or [`Self::finish`]).
    pub fn with_options(sink: W, mut options: ArchiveOptions) -> Result<Self, ArchiveError> {
        // The header declares version 4, or 6 for rows of a recursive type, whose chunks hold
        // recursion nodes, or 8 for metadata in the footer; or the version of the newest
        // encoding the first chunk uses (written with the header): recursion nodes for `Value`
        // rows nested deep, Huffman codes in four streams, keyed integer columns, coded text.
        // Later chunks, appended ones included, keep to what the archive declared: no chunk
        // uses an encoding of a later version.
        let (encoder, recursive) = builds_recursion(|| T::Encoder::new(1));
        let version = match recursive {
            true => Version::RECURSION,
            false => Version::ARCHIVE,
        };
        let version = match options.metadata.is_empty() {
            true => version,
            false => version.max(Version::METADATA),
        };
        let metadata = options.metadata.clone();
        // The first chunk may use any encoding (keyed integer columns, Huffman codes in four
        // streams, coded text): the header, written with it, then declares the version it used.
        options.encode.settings.newest = Version::NEWEST;
        Ok(ArchiveWriter {
            sink,
            options,
            encoder,
            new_encoder: Box::new(|| T::Encoder::new(1)),
            rows: 0,
            scratch: WriteScratch::default(),
            layout: Layout::new(version, metadata),
        })
    }

    /// Adds a row; writes a chunk once the rows collected reach the options' chunk size.
    pub fn push(&mut self, row: &T) -> Result<(), ArchiveError> {
        let declared = self.layout.schema.is_some();
        match declared && self.layout.version < Version::RECURSION {
            // `Value`s nested deep would otherwise hold recursion nodes, which this archive's
            // version does not have.
            true => level_by_level(|| self.encoder.push(row)),
            false => self.encoder.push(row),
        }
        self.rows += 1;
        let full = self.rows >= self.options.chunk_rows
            || (self.rows.is_multiple_of(SIZE_CHECK_ROWS)
                && self.encoder.bytes() >= self.options.chunk_bytes);
        if full {
            self.write_chunk()?;
        }
        Ok(())
    }

    /// The rows pushed so far, written or not.
    pub fn rows(&self) -> u64 {
        self.layout.footer.rows + self.rows as u64
    }

    /// Writes the rows collected as a chunk, if there are any.
    pub fn flush_chunk(&mut self) -> Result<(), ArchiveError> {
        if self.rows > 0 {
            self.write_chunk()?;
        }
        Ok(())
    }

    /// Writes the last chunk, the footer and the trailer, and hands back the sink, flushed.
    pub fn finish(mut self) -> Result<W, ArchiveError> {
        self.flush_chunk()?;
        if self.layout.schema.is_none() {
            // No rows at all: the header still gives the rows' schema.
            let encoder = std::mem::replace(&mut self.encoder, (self.new_encoder)());
            let layout = &mut self.layout;
            self.scratch.encode_with(
                &self.options.encode,
                |out| out.seq(vec![0], |out| encoder.finish(out)),
                |parts, out| {
                    out.clear();
                    layout.write_schema(out, parts.schema);
                },
            )?;
            self.sink.write_all(&self.scratch.out)?;
        }
        let layout = &self.layout;
        let out = &mut self.scratch.out;
        out.clear();
        write_footer(out, layout.position, &layout.footer, layout.version);
        self.sink.write_all(out)?;
        self.sink.flush()?;
        Ok(self.sink)
    }

    fn write_chunk(&mut self) -> Result<(), ArchiveError> {
        let encoder = std::mem::replace(&mut self.encoder, (self.new_encoder)());
        let rows = std::mem::take(&mut self.rows);
        let layout = &mut self.layout;
        let statistics = self.options.statistics;
        self.scratch
            .encode_with(
                &self.options.encode,
                |out| out.seq(vec![rows as u64], |out| encoder.finish(out)),
                |parts, out| {
                    out.clear();
                    if layout.schema.is_none() {
                        // The first chunk's rows were free to nest as deep as they do.
                        layout.version = layout.version.max(parts.version);
                    }
                    layout.write_schema(out, parts.schema);
                    layout.write_chunk(out, &parts, rows as u64, statistics);
                },
            )
            .map_err(|error| explain_depth(error, layout.version))?;
        self.options.encode.settings.newest = self.layout.version;
        self.sink.write_all(&self.scratch.out)?;
        Ok(())
    }
}

/// `error`, saying why when it is a row nested deeper than an archive of `version` takes.
fn explain_depth(error: EncodeError, version: Version) -> EncodeError {
    if error.kind() != EncodeErrorKind::DepthLimit || version >= Version::RECURSION {
        return error;
    }
    let message = format!(
        "{}: this archive declares format version {}, whose rows keep a schema level per level \
         (an archive whose first chunk nests that deep declares version {}, whose rows nest as \
         deep as they like)",
        error.message(),
        version.0,
        Version::RECURSION.0
    );
    EncodeError::new(error.kind(), error.path(), message)
}

impl Layout {
    /// Nothing written yet, for an archive that declares `version` and has `metadata`.
    fn new(version: Version, metadata: Vec<(String, String)>) -> Self {
        Layout {
            position: 0,
            schema: None,
            schema_offset: 0,
            footer: Footer {
                metadata,
                ..Footer::default()
            },
            version,
        }
    }

    /// Writes the header with `schema`, or a schema section if `schema` is not the last one.
    fn write_schema(&mut self, out: &mut Vec<u8>, schema: &[u8]) {
        let start = out.len();
        match &self.schema {
            None => write_head(out, self.version, ARCHIVE, schema),
            Some(last) if last.as_slice() == schema => return,
            Some(_) => {
                self.schema_offset = self.position;
                write_schema_section(out, schema);
            }
        }
        self.schema = Some(schema.to_vec());
        self.position += (out.len() - start) as u64;
    }

    /// Writes the chunk section of `parts`, which hold `rows` rows, and lists it for the footer.
    fn write_chunk(&mut self, out: &mut Vec<u8>, parts: &Parts<'_>, rows: u64, statistics: bool) {
        let start = out.len();
        write_section_head(out, CHUNK_SECTION, parts.chunk_len());
        parts.write_chunk(out);
        let size = (out.len() - start) as u64;
        let owners_tree = statistics.then(|| SchemaTree::parse(parts.schema));
        let owners = match &owners_tree {
            Some(Ok(tree)) => tree.branch_owners(),
            _ => Vec::new(),
        };
        let branches = (parts.branches.iter().zip(parts.columns).enumerate())
            .map(|(index, (branch, (column, _)))| BranchEntry {
                size: branch.len() as u64,
                crc: crc32fast::hash(branch),
                values: column.len() as u64,
                stats: match owners.get(index) {
                    Some(owner) => stats::of(column, owner.node_type()),
                    None => super::format::RawStats::None,
                },
            })
            .collect();
        self.footer.chunks.push(ChunkEntry {
            offset: self.position,
            size,
            schema: self.schema_offset,
            rows,
            branches,
        });
        self.position += size;
        self.footer.rows += rows;
    }
}

impl<W: Write> ArchiveWriter<Value, W> {
    /// Lists the fields of object rows in the order of `fields` (a CSV file's header, say)
    /// rather than in the order the rows give them, in every chunk from the one being
    /// collected on (which must have no rows yet, or it keeps the order it has), until changed.
    /// Fields no row of a chunk gives are in its schema still, always absent.
    ///
    /// ```
    /// use tree_buf::archive::{Archive, ArchiveWriter};
    /// use tree_buf::Value;
    ///
    /// let mut writer = ArchiveWriter::<Value, _>::new(Vec::new())?;
    /// writer.set_field_order(["year", "team"]);
    /// writer.push(&Value::Object(vec![("team".into(), Value::String("BOS".into()))]))?;
    /// writer.push(&Value::Object(vec![("year".into(), Value::Unsigned(1901))]))?;
    /// let bytes = writer.finish()?;
    /// let paths: Vec<_> = Archive::from_bytes(&bytes)?.chunks()[0].branches.iter()
    ///     .map(|branch| branch.path.clone())
    ///     .collect();
    /// assert_eq!(paths[..2], ["", "[].year"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_field_order<S: AsRef<str>>(&mut self, fields: impl IntoIterator<Item = S>) {
        let fields: Vec<String> = fields.into_iter().map(|f| f.as_ref().to_owned()).collect();
        self.new_encoder = Box::new(move || DynEncoder::with_fields(1, &fields));
        if self.rows == 0 {
            self.encoder = (self.new_encoder)();
        }
    }
}
