//! Assembles a file from an encoded value.

use super::{MAGIC, VERSION};
use crate::branch::{key_string_siblings, Column, SchemaWriter, WrittenSchema};
use crate::encodings::bytes::write_varint;
use crate::error::EncodeError;
use crate::options::EncodeOptions;
use crate::types::{Encode, ValueEncoder};

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
    let mut encoder = T::Encoder::new(0);
    encoder.push(value);
    write_with(options, |out| encoder.finish(out))
}

/// Writes a one-chunk file whose schema and columns `write_root` produces.
pub(crate) fn write_with(
    options: &EncodeOptions,
    write_root: impl FnOnce(&mut SchemaWriter) -> Result<(), EncodeError>,
) -> Result<Vec<u8>, EncodeError> {
    let mut writer = SchemaWriter::new();
    write_root(&mut writer)?;
    let WrittenSchema { schema, columns } = writer.into_parts();
    let encode =
        |(column, group): &(Column, Option<usize>)| column.encode(*group, &options.settings);
    let bytes: usize = columns.iter().map(|(column, _)| column.bytes()).sum();
    let parallel = options.parallel && bytes >= PARALLEL_MIN_BYTES;
    let (mut branches, ranks): (Vec<Vec<u8>>, Vec<_>) =
        crate::parallel::map(columns.iter().collect(), parallel, encode)
            .into_iter()
            .unzip();
    key_string_siblings(
        &schema,
        &columns,
        &ranks,
        &mut branches,
        &options.settings,
        parallel,
    );

    let data_size: usize = branches.iter().map(Vec::len).sum();
    let mut out = Vec::with_capacity(16 + schema.len() + 2 * branches.len() + data_size);
    out.extend_from_slice(&MAGIC);
    out.push(VERSION);
    out.push(0);
    write_varint(&mut out, schema.len() as u64);
    out.extend_from_slice(&schema);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());

    let table_start = out.len();
    write_varint(&mut out, 1);
    for branch in &branches {
        write_varint(&mut out, branch.len() as u64);
    }
    let crc = crc32fast::hash(&out[table_start..]);
    out.extend_from_slice(&crc.to_le_bytes());

    let mut data_crc = crc32fast::Hasher::new();
    for branch in &branches {
        out.extend_from_slice(branch);
        data_crc.update(branch);
    }
    out.extend_from_slice(&data_crc.finalize().to_le_bytes());
    Ok(out)
}
