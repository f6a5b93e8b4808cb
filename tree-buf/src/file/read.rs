//! Opens a file: checks the header, parses the schema, and locates every branch.

use super::{ARCHIVE, MAGIC};
use crate::branch::DecodeContext;
use crate::encodings::budget::Budget;
use crate::encodings::bytes::ByteReader;
use crate::encodings::Version;
use crate::error::{corrupt, DecodeError, DecodeErrorKind};
use crate::options::DecodeOptions;
use crate::schema::SchemaTree;
use crate::types::{decode_root, Decode, Indirect, ValueDecoder};

/// A file whose header, schema and branch table have been checked.
#[derive(Debug)]
pub(crate) struct FileView<'a> {
    pub(crate) tree: SchemaTree,
    /// The format version the file declares.
    version: u8,
    pub(crate) chunk: Chunk<'a>,
    /// The schema's bytes, which `tree` was parsed from.
    schema: &'a [u8],
    /// Bytes of the header (magic, version, flags) and the schema section (size, schema,
    /// checksum): none for a chunk of an archive, whose schema is shared.
    pub(crate) header_bytes: usize,
    pub(crate) schema_bytes: usize,
    /// Bytes of the chunk's table (rows, branch sizes, checksum) and data checksum, and for a
    /// chunk of an archive, of its section's tag and size.
    pub(crate) table_bytes: usize,
    /// The length of the file (or archive chunk), which the default decoding budget grows with.
    file_len: usize,
    /// For a chunk of an archive, the checksum of each branch (from the footer), each checked
    /// as its branch is read; none for a file, whose data has one checksum.
    branch_checksums: Vec<u32>,
}

fn check_crc(
    covered: &[u8],
    stored: u32,
    what: &str,
    options: &DecodeOptions,
) -> Result<(), DecodeError> {
    if options.verify_checksums && crc32fast::hash(covered) != stored {
        return Err(corrupt(format!(
            "the checksum of the {what} does not match"
        )));
    }
    Ok(())
}

impl<'a> FileView<'a> {
    /// Checks everything but the branch data, which is checked by [`Self::verify_data`].
    pub(crate) fn open(bytes: &'a [u8], options: &DecodeOptions) -> Result<Self, DecodeError> {
        let head = Head::parse(bytes, options)?;
        Self::open_with(bytes, head, options, SchemaTree::parse)
    }

    /// As [`Self::open`] for a file whose `head` is read, with the checked schema bytes made a
    /// tree by `parse`.
    pub(crate) fn open_with(
        bytes: &'a [u8],
        head: Head<'a>,
        options: &DecodeOptions,
        parse: impl FnOnce(&[u8]) -> Result<SchemaTree, DecodeError>,
    ) -> Result<Self, DecodeError> {
        if head.flags & ARCHIVE != 0 {
            return Err(DecodeError::new(
                DecodeErrorKind::SchemaMismatch,
                "",
                "the file is an archive of chunks: open it with tree_buf::archive::Archive",
            ));
        }
        let tree = parse(head.schema)?;
        let mut reader = ByteReader::new(&bytes[head.len..]);
        let chunk = Chunk::parse(&mut reader, tree.branch_count(), options)?;
        reader.finish("the last chunk")?;
        Ok(FileView {
            tree,
            version: head.version,
            table_bytes: chunk.table_bytes,
            chunk,
            schema: head.schema,
            header_bytes: HEADER_BYTES,
            schema_bytes: head.len - HEADER_BYTES,
            file_len: bytes.len(),
            branch_checksums: Vec::new(),
        })
    }

    /// A view of one chunk of an archive, whose section takes `section_bytes` in all and whose
    /// schema is `tree`, parsed from `schema`; each branch read is checked against its
    /// `branch_checksums` (none if empty).
    pub(crate) fn of_chunk(
        tree: SchemaTree,
        version: u8,
        schema: &'a [u8],
        chunk: Chunk<'a>,
        section_bytes: usize,
        branch_checksums: Vec<u32>,
    ) -> Self {
        let branch_bytes: usize = chunk.data.len();
        FileView {
            tree,
            version,
            table_bytes: section_bytes - branch_bytes,
            chunk,
            schema,
            header_bytes: 0,
            schema_bytes: 0,
            file_len: section_bytes,
            branch_checksums,
        }
    }

    /// Decodes the root value once the branch data is checked.
    fn read<T: Decode<'a>>(&self, options: &DecodeOptions) -> Result<T, DecodeError> {
        self.verify_data(options)?;
        self.decode(options)
    }

    /// Checks the branch data against its checksum.
    pub(crate) fn verify_data(&self, options: &DecodeOptions) -> Result<(), DecodeError> {
        self.chunk.verify_data(options)
    }

    /// The cap on decoded bytes for this file.
    pub(crate) fn budget(&self, options: &DecodeOptions) -> u64 {
        options.budget_for(self.file_len)
    }

    /// A context for decoding this file's branches.
    pub(crate) fn context(&self, options: &DecodeOptions) -> DecodeContext<'a> {
        let budget = Budget::for_version(self.budget(options), self.version);
        let branches = self.chunk.branches.clone();
        let checksums = self.branch_checksums.clone();
        DecodeContext::with_budget(branches, budget, checksums, options.depth_limit)
    }

    /// Decodes the root value, reading only the branches `T` needs; the data checksum is the
    /// caller's to verify.
    pub(crate) fn decode<T: Decode<'a>>(&self, options: &DecodeOptions) -> Result<T, DecodeError> {
        self.decode_in(self.context(options), options)
    }

    /// [`Self::decode`] in `ctx`, a context for this file's branches.
    pub(crate) fn decode_in<'c, T: Decode<'c>>(
        &self,
        ctx: DecodeContext<'c>,
        options: &DecodeOptions,
    ) -> Result<T, DecodeError> {
        self.check_one_root()?;
        let mut decoder: Indirect<'c, T> =
            decode_root(ctx, self.tree.root(), 1, self.parallel(options))?;
        Ok(decoder.next())
    }

    /// Checks that the file holds one root value, as every file but an archive's chunk does.
    pub(crate) fn check_one_root(&self) -> Result<(), DecodeError> {
        if self.chunk.rows != 1 {
            return Err(corrupt(format!(
                "the file holds {} root values; expected one",
                self.chunk.rows
            )));
        }
        Ok(())
    }

    /// Whether to decode leaves in parallel: only for files whose data is large enough that the
    /// branches a type reads may be.
    pub(crate) fn parallel(&self, options: &DecodeOptions) -> bool {
        /// Smaller files are decoded on one thread.
        const PARALLEL_MIN_DATA_BYTES: usize = 1 << 20;
        options.parallel && self.chunk.data.len() >= PARALLEL_MIN_DATA_BYTES
    }
}

/// The bytes of the header: magic, version and flags.
pub(crate) const HEADER_BYTES: usize = MAGIC.len() + 2;

/// A file's header and schema section, checked.
pub(crate) struct Head<'a> {
    pub(crate) version: u8,
    pub(crate) flags: u8,
    /// The schema's bytes, not parsed yet.
    pub(crate) schema: &'a [u8],
    /// The bytes of the header and schema section together.
    pub(crate) len: usize,
}

impl<'a> Head<'a> {
    /// Checks the magic number, version, flags and the schema's checksum.
    pub(crate) fn parse(bytes: &'a [u8], options: &DecodeOptions) -> Result<Self, DecodeError> {
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            let kind = if MAGIC.starts_with(bytes) {
                DecodeErrorKind::Truncated
            } else {
                DecodeErrorKind::NotTreeBuf
            };
            return Err(DecodeError::new(
                kind,
                "",
                "the bytes do not start with the tree-buf magic number \"TBUF\"",
            ));
        }
        let mut reader = ByteReader::new(&bytes[MAGIC.len()..]);
        let version = reader.u8()?;
        if !(Version::FIRST.0..=Version::NEWEST.0).contains(&version) {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedVersion,
                "",
                format!(
                    "format version {version}; this library reads versions 1 to {}",
                    Version::NEWEST.0
                ),
            ));
        }
        let flags = reader.u8()?;
        let known = if version >= Version::ARCHIVE.0 {
            ARCHIVE
        } else {
            0
        };
        if flags & !known != 0 {
            return Err(DecodeError::new(
                DecodeErrorKind::UnsupportedVersion,
                "",
                format!("unknown header flags {flags:#04x} in a version {version} file"),
            ));
        }
        let schema = reader.prefixed()?;
        let covered = &bytes[..bytes.len() - reader.remaining()];
        check_crc(covered, reader.u32_le()?, "schema", options)?;
        Ok(Head {
            version,
            flags,
            schema,
            len: bytes.len() - reader.remaining(),
        })
    }
}

/// A chunk whose branch table has been checked: its branches, and the checksum of their data.
#[derive(Debug)]
pub(crate) struct Chunk<'a> {
    pub(crate) rows: usize,
    pub(crate) branches: Vec<&'a [u8]>,
    pub(crate) data: &'a [u8],
    pub(crate) data_crc: u32,
    /// The bytes of the table (rows, sizes and checksum) and of the data checksum.
    pub(crate) table_bytes: usize,
}

impl<'a> Chunk<'a> {
    /// Reads a chunk of `branch_count` branches from `reader`, checking its table's checksum
    /// (the data's is [`Self::verify_data`]'s to check).
    pub(crate) fn parse(
        reader: &mut ByteReader<'a>,
        branch_count: usize,
        options: &DecodeOptions,
    ) -> Result<Self, DecodeError> {
        let table = reader.clone().rest();
        let start = reader.remaining();
        let rows = reader.count(0)?;
        let mut sizes = Vec::with_capacity(branch_count.min(reader.remaining()));
        for _ in 0..branch_count {
            sizes.push(reader.count(1)?);
        }
        let covered = &table[..start - reader.remaining()];
        check_crc(covered, reader.u32_le()?, "branch table", options)?;
        let table_bytes = start - reader.remaining() + 4;

        let data_size = sizes
            .iter()
            .try_fold(0usize, |sum, &size| sum.checked_add(size));
        let data = match data_size {
            Some(size) if size <= reader.remaining() => reader.take(size)?,
            _ => {
                return Err(DecodeError::new(
                    DecodeErrorKind::Truncated,
                    "",
                    "the branches are larger than the file",
                ))
            }
        };
        let data_crc = reader.u32_le()?;
        let mut branches = Vec::with_capacity(sizes.len());
        let mut rest = data;
        for size in sizes {
            let (branch, tail) = rest.split_at(size);
            branches.push(branch);
            rest = tail;
        }
        Ok(Chunk {
            rows,
            branches,
            data,
            data_crc,
            table_bytes,
        })
    }

    /// Checks the branch data against its checksum.
    pub(crate) fn verify_data(&self, options: &DecodeOptions) -> Result<(), DecodeError> {
        check_crc(self.data, self.data_crc, "branch data", options)
    }
}

/// Decodes a file, all checksums verified first; an archive as a sequence of its rows.
pub(crate) fn read<'de, T: Decode<'de>>(
    bytes: &'de [u8],
    options: &DecodeOptions,
) -> Result<T, DecodeError> {
    let head = Head::parse(bytes, options)?;
    if head.flags & ARCHIVE != 0 {
        return crate::archive::decode_whole(bytes, options);
    }
    FileView::open_with(bytes, head, options, SchemaTree::parse)?.read(options)
}

/// The parsed schema of the file last decoded, which a [`Buffer`](crate::Buffer) keeps: files
/// of one type share their schema, which then needs no parsing (and no allocation) again.
#[derive(Debug, Default)]
pub(crate) struct ReadScratch {
    schema: Vec<u8>,
    tree: Option<SchemaTree>,
}

impl ReadScratch {
    /// Decodes a file as [`read`] does, with the last schema's tree if the file's is the same.
    pub(crate) fn read<'de, T: Decode<'de>>(
        &mut self,
        bytes: &'de [u8],
        options: &DecodeOptions,
    ) -> Result<T, DecodeError> {
        let head = Head::parse(bytes, options)?;
        if head.flags & ARCHIVE != 0 {
            return crate::archive::decode_whole(bytes, options);
        }
        let view = FileView::open_with(bytes, head, options, |schema| match self.tree.take() {
            Some(tree) if self.schema == schema => Ok(tree),
            _ => SchemaTree::parse(schema),
        })?;
        let value = view.read(options);
        self.schema.clear();
        self.schema.extend_from_slice(view.schema);
        self.tree = Some(view.tree);
        value
    }
}
