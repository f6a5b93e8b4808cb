//! Assembles a file from an encoded value.

use super::MAGIC;
use crate::branch::{key_int_siblings, key_string_siblings, Column, SchemaWriter};
use crate::encodings::bytes::{varint_len, write_varint};
use crate::encodings::scratch::reusing;
use crate::encodings::Version;
use crate::error::EncodeError;
use crate::options::EncodeOptions;
use crate::types::{Encode, Lazy};

/// Below this many bytes of values in all, branches are encoded on one thread: at the speed of
/// encoding (a hundred megabytes a second or so) that is ten milliseconds or less, and waking
/// other threads and sharing the columns with them would cost more than it saves (a 100 kB
/// GraphQL response took four times as long to encode with threads as without).
const PARALLEL_MIN_BYTES: usize = 1 << 20;

/// Encodes `value` as a one-chunk file.
pub(crate) fn write<T: Encode + ?Sized>(
    value: &T,
    options: &EncodeOptions,
) -> Result<Vec<u8>, EncodeError> {
    let mut scratch = WriteScratch::default();
    scratch.write(value, options)?;
    Ok(scratch.out)
}

/// Writes a one-chunk file whose schema and columns `write_root` produces.
pub(crate) fn write_with(
    options: &EncodeOptions,
    write_root: impl FnOnce(&mut SchemaWriter) -> Result<(), EncodeError>,
) -> Result<Vec<u8>, EncodeError> {
    let mut scratch = WriteScratch::default();
    scratch.write_with(options, write_root)?;
    Ok(scratch.out)
}

/// The memory writing a file uses besides the value's own columns, which a
/// [`Buffer`](crate::Buffer) keeps from one file to the next: the schema writer, one output
/// vector per branch, and the file's bytes.
#[derive(Debug, Default)]
pub(crate) struct WriteScratch {
    writer: SchemaWriter,
    /// At least as many as the file has branches; those beyond are left from larger values.
    branches: Vec<Vec<u8>>,
    /// The file last written.
    pub(crate) out: Vec<u8>,
}

impl WriteScratch {
    /// Writes `value` as a one-chunk file to [`Self::out`].
    pub(crate) fn write<T: Encode + ?Sized>(
        &mut self,
        value: &T,
        options: &EncodeOptions,
    ) -> Result<(), EncodeError> {
        // Through a `Lazy`, so that a recursive type is anchored at the root.
        let mut encoder = Lazy::<T::Encoder>::new::<T>(0);
        encoder.push(value);
        self.write_with(options, |out| encoder.finish::<T>(out))
    }

    /// Writes a one-chunk file whose schema and columns `write_root` produces to [`Self::out`].
    pub(crate) fn write_with(
        &mut self,
        options: &EncodeOptions,
        write_root: impl FnOnce(&mut SchemaWriter) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        self.encode_with(options, write_root, |parts, out| {
            out.clear();
            out.reserve(16 + parts.schema.len() + parts.table_and_data_bytes());
            write_head(out, parts.version, 0, parts.schema);
            parts.write_chunk(out);
        })
    }

    /// Encodes the columns `write_root` produces into branches and hands them to `assemble`,
    /// with [`Self::out`] to write to.
    pub(crate) fn encode_with(
        &mut self,
        options: &EncodeOptions,
        write_root: impl FnOnce(&mut SchemaWriter) -> Result<(), EncodeError>,
        assemble: impl FnOnce(Parts<'_>, &mut Vec<u8>),
    ) -> Result<(), EncodeError> {
        self.writer.clear();
        let result = write_root(&mut self.writer);
        if result.is_ok() {
            let parts = encode_branches(&self.writer, &mut self.branches, options);
            assemble(parts, &mut self.out);
        }
        // The columns are not needed any more; their memory is the encoders' to reuse.
        self.writer.clear();
        result
    }
}

/// Encodes the columns `writer` holds into `branches`, which keeps vectors beyond those it
/// needs for larger values.
fn encode_branches<'a>(
    writer: &'a SchemaWriter,
    branches: &'a mut Vec<Vec<u8>>,
    options: &EncodeOptions,
) -> Parts<'a> {
    let (schema, columns) = writer.parts();
    if branches.len() < columns.len() {
        branches.resize_with(columns.len(), Vec::new);
    }
    let branches = &mut branches[..columns.len()];
    // Each column's temporaries are kept for the next pass over it, and freed after it: kept
    // for the columns after it too, they raised the peak memory more than they saved time.
    let encode = |((column, group), out): (&(Column, Option<usize>), &mut Vec<u8>)| {
        reusing(|| column.encode(*group, &options.settings, out))
    };
    let bytes: usize = columns.iter().map(|(column, _)| column.bytes()).sum();
    let parallel = options.parallel && bytes >= PARALLEL_MIN_BYTES;
    let (mut versions, ranks): (Vec<Version>, Vec<_>) = crate::parallel::map(
        columns.iter().zip(branches.iter_mut()).collect(),
        parallel,
        encode,
    )
    .into_iter()
    .unzip();
    key_string_siblings(
        writer.string_siblings(),
        columns,
        &ranks,
        branches,
        &mut versions,
        &options.settings,
        parallel,
    );
    key_int_siblings(
        writer.int_siblings(),
        columns,
        branches,
        &mut versions,
        &options.settings,
        parallel,
    );
    Parts {
        schema,
        columns,
        branches,
        version: versions.into_iter().fold(Version::FIRST, Version::max),
    }
}

/// A value encoded: its schema, the columns it was taken apart into, and their branches.
pub(crate) struct Parts<'a> {
    pub(crate) schema: &'a [u8],
    pub(crate) columns: &'a [(Column, Option<usize>)],
    pub(crate) branches: &'a [Vec<u8>],
    /// The version that added the newest encoding among the branches.
    pub(crate) version: Version,
}

impl Parts<'_> {
    /// About how many bytes [`Self::write_chunk`] writes.
    pub(crate) fn table_and_data_bytes(&self) -> usize {
        let data_size: usize = self.branches.iter().map(Vec::len).sum();
        16 + 2 * self.branches.len() + data_size
    }

    /// The bytes [`Self::write_chunk`] writes.
    pub(crate) fn chunk_len(&self) -> usize {
        let sizes: usize = (self.branches.iter())
            .map(|branch| varint_len(branch.len() as u64) + branch.len())
            .sum();
        varint_len(1) + sizes + 8
    }

    /// Writes the chunk of one root value: its branch table and branches.
    pub(crate) fn write_chunk(&self, out: &mut Vec<u8>) {
        let table_start = out.len();
        write_varint(out, 1);
        for branch in self.branches {
            write_varint(out, branch.len() as u64);
        }
        let crc = crc32fast::hash(&out[table_start..]);
        out.extend_from_slice(&crc.to_le_bytes());

        let mut data_crc = crc32fast::Hasher::new();
        for branch in self.branches {
            out.extend_from_slice(branch);
            data_crc.update(branch);
        }
        out.extend_from_slice(&data_crc.finalize().to_le_bytes());
    }
}

/// Writes the header and the schema section, whose checksum covers both.
pub(crate) fn write_head(out: &mut Vec<u8>, version: Version, flags: u8, schema: &[u8]) {
    let start = out.len();
    out.extend_from_slice(&MAGIC);
    out.push(version.0);
    out.push(flags);
    write_varint(out, schema.len() as u64);
    out.extend_from_slice(schema);
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}
