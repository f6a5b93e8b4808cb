//! The grammar of an archive after its header and schema: sections, the footer and the trailer.
//!
//! ```text
//! archive        := header schema section* footer trailer
//!                   header: version 4, flag ARCHIVE; schema: as in a file, its root a Seq
//! section        := chunk_section | schema_section | footer trailer
//! chunk_section  := 0x01 size:varint chunk
//!                   chunk as in a file, under the schema last given; rows = 1: its root value is
//!                   the sequence of the chunk's rows
//! schema_section := 0x02 size:varint node crc:u32le
//!                   the schema of the chunks after it; crc covers the tag, size and node
//! footer         := 0x03 size:varint body crc:u32le
//!                   crc covers the tag, size and body
//! trailer        := footer_offset:u64le footer_crc:u32le "TBUF"
//!                   16 bytes; footer_offset is where the footer's tag is, footer_crc its crc
//! body           := rows:varint chunks:varint chunk_entry{chunks} metadata
//! metadata       := (nothing)                              before version 8
//!                 | pairs:varint (key:prefixed value:prefixed){pairs}
//!                                                          version 8 on: UTF-8, keys distinct
//! chunk_entry    := offset:varint size:varint schema:varint rows:varint branches:varint
//!                   branch_entry{branches}
//!                   offset of the chunk section's tag, and its size from there; schema: the
//!                   offset of the schema section the chunk reads under, 0 for the header's;
//!                   rows: the length of the chunk's root sequence
//! branch_entry   := size:varint crc:u32le values:varint statistics
//!                   crc is CRC-32 of the branch's bytes; values the number of values in it
//! statistics     := 0x00                                   none
//!                 | 0x01 nulls:varint                      presence: the absent values
//!                 | 0x02 width:u8 min:word max:word        numbers: words of `width` bytes,
//!                                                          little-endian, read as the node's type
//!                 | 0x03 min:prefixed max:prefixed         strings: bounds of at most 64 bytes
//! ```
//!
//! A footer and its trailer may be followed by more sections: appending to an archive leaves
//! them in place and writes a new footer, which lists every chunk, at the end.

use crate::encodings::bytes::{write_prefixed, write_varint, ByteReader};
use crate::encodings::Version;
use crate::error::{corrupt, truncated, DecodeError};

pub(crate) const CHUNK_SECTION: u8 = 0x01;
pub(crate) const SCHEMA_SECTION: u8 = 0x02;
pub(crate) const FOOTER_SECTION: u8 = 0x03;
/// The trailer: the footer's offset and checksum, and the magic number.
pub(crate) const TRAILER_BYTES: usize = 16;
const TRAILER_MAGIC: [u8; 4] = *b"TBUF";
/// String statistics keep at most this many bytes of each bound.
pub(crate) const MAX_STRING_BOUND: usize = 64;

/// What a footer holds.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Footer {
    pub(crate) rows: u64,
    pub(crate) chunks: Vec<ChunkEntry>,
    /// Key-value pairs about the whole archive (version 8 on), in the order written.
    pub(crate) metadata: Vec<(String, String)>,
}

/// A chunk as the footer lists it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ChunkEntry {
    pub(crate) offset: u64,
    pub(crate) size: u64,
    pub(crate) schema: u64,
    pub(crate) rows: u64,
    pub(crate) branches: Vec<BranchEntry>,
}

/// A branch of a chunk as the footer lists it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BranchEntry {
    pub(crate) size: u64,
    pub(crate) crc: u32,
    pub(crate) values: u64,
    pub(crate) stats: RawStats,
}

/// Statistics as written: words not yet read as the node's type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RawStats {
    None,
    Nulls(u64),
    Words { width: u8, min: u128, max: u128 },
    Bytes { min: Vec<u8>, max: Vec<u8> },
}

/// Writes a section: its tag, the size of `body`, and `body`.
pub(crate) fn write_section_head(out: &mut Vec<u8>, tag: u8, size: usize) {
    out.push(tag);
    write_varint(out, size as u64);
}

/// Writes a schema section for `schema`.
pub(crate) fn write_schema_section(out: &mut Vec<u8>, schema: &[u8]) {
    let start = out.len();
    write_section_head(out, SCHEMA_SECTION, schema.len());
    out.extend_from_slice(schema);
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

/// Writes `footer` at `offset`, and its trailer, for an archive that declares `version`: the
/// metadata only from version 8 on, where the grammar has it.
pub(crate) fn write_footer(out: &mut Vec<u8>, offset: u64, footer: &Footer, version: Version) {
    let mut body = Vec::new();
    write_varint(&mut body, footer.rows);
    write_varint(&mut body, footer.chunks.len() as u64);
    for chunk in &footer.chunks {
        for field in [chunk.offset, chunk.size, chunk.schema, chunk.rows] {
            write_varint(&mut body, field);
        }
        write_varint(&mut body, chunk.branches.len() as u64);
        for branch in &chunk.branches {
            write_varint(&mut body, branch.size);
            body.extend_from_slice(&branch.crc.to_le_bytes());
            write_varint(&mut body, branch.values);
            write_stats(&mut body, &branch.stats);
        }
    }
    if version >= Version::METADATA {
        write_varint(&mut body, footer.metadata.len() as u64);
        for (key, value) in &footer.metadata {
            write_prefixed(&mut body, key.as_bytes());
            write_prefixed(&mut body, value.as_bytes());
        }
    }
    let start = out.len();
    write_section_head(out, FOOTER_SECTION, body.len());
    out.extend_from_slice(&body);
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&offset.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&TRAILER_MAGIC);
}

fn write_stats(out: &mut Vec<u8>, stats: &RawStats) {
    match stats {
        RawStats::None => out.push(0x00),
        RawStats::Nulls(nulls) => {
            out.push(0x01);
            write_varint(out, *nulls);
        }
        RawStats::Words { width, min, max } => {
            out.push(0x02);
            out.push(*width);
            for word in [min, max] {
                out.extend_from_slice(&word.to_le_bytes()[..usize::from(*width)]);
            }
        }
        RawStats::Bytes { min, max } => {
            out.push(0x03);
            write_prefixed(out, min);
            write_prefixed(out, max);
        }
    }
}

/// The footer a trailer points to: where it starts and its checksum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Trailer {
    pub(crate) footer_offset: u64,
    pub(crate) footer_crc: u32,
}

/// Reads the trailer that `bytes` end with, if they end with one.
pub(crate) fn read_trailer(bytes: &[u8]) -> Option<Trailer> {
    let start = bytes.len().checked_sub(TRAILER_BYTES)?;
    let trailer = &bytes[start..];
    if trailer[12..] != TRAILER_MAGIC {
        return None;
    }
    Some(Trailer {
        footer_offset: u64::from_le_bytes(trailer[..8].try_into().ok()?),
        footer_crc: u32::from_le_bytes(trailer[8..12].try_into().ok()?),
    })
}

/// A section read by [`read_section`].
pub(crate) struct Section<'a> {
    pub(crate) tag: u8,
    /// The bytes after the size: the chunk, the schema node, or the footer body.
    pub(crate) body: &'a [u8],
    /// The section's bytes from its tag on, the trailer of a footer included.
    pub(crate) len: usize,
}

/// The bytes a section tagged `tag` holds after its body: the checksum of a schema node or a
/// footer body, and a footer's trailer. An unknown tag is an error.
pub(crate) fn bytes_after_body(tag: u8) -> Result<u64, DecodeError> {
    match tag {
        CHUNK_SECTION => Ok(0),
        SCHEMA_SECTION => Ok(4),
        FOOTER_SECTION => Ok(4 + TRAILER_BYTES as u64),
        other => Err(corrupt(format!("unknown archive section {other:#04x}"))),
    }
}

/// Reads the section at the start of `bytes`, checking the checksums of schema and footer
/// sections (a chunk's are checked when it is read).
pub(crate) fn read_section(bytes: &[u8], verify: bool) -> Result<Section<'_>, DecodeError> {
    let mut reader = ByteReader::new(bytes);
    let tag = reader.u8()?;
    bytes_after_body(tag)?;
    let body = reader.prefixed()?;
    if tag != CHUNK_SECTION {
        let covered = &bytes[..bytes.len() - reader.remaining()];
        let crc = reader.u32_le()?;
        if verify && crc32fast::hash(covered) != crc {
            return Err(corrupt(format!(
                "the checksum of the archive's {} does not match",
                if tag == FOOTER_SECTION {
                    "footer"
                } else {
                    "schema section"
                }
            )));
        }
        if tag == FOOTER_SECTION {
            reader.take(TRAILER_BYTES)?;
        }
    }
    Ok(Section {
        tag,
        body,
        len: bytes.len() - reader.remaining(),
    })
}

/// Parses the body of a footer of an archive that declares `version`. Offsets and sizes are
/// checked against the archive by the caller.
pub(crate) fn read_footer(body: &[u8], version: u8) -> Result<Footer, DecodeError> {
    let mut reader = ByteReader::new(body);
    let rows = reader.varint()?;
    // A chunk entry takes at least 5 bytes; a branch entry at least 7.
    let count = reader.count(5)?;
    let mut chunks = Vec::with_capacity(count);
    for _ in 0..count {
        let offset = reader.varint()?;
        let size = reader.varint()?;
        let schema = reader.varint()?;
        let chunk_rows = reader.varint()?;
        let branch_count = reader.count(7)?;
        let mut branches = Vec::with_capacity(branch_count);
        for _ in 0..branch_count {
            let size = reader.varint()?;
            let crc = reader.u32_le()?;
            let values = reader.varint()?;
            let stats = read_stats(&mut reader)?;
            branches.push(BranchEntry {
                size,
                crc,
                values,
                stats,
            });
        }
        chunks.push(ChunkEntry {
            offset,
            size,
            schema,
            rows: chunk_rows,
            branches,
        });
    }
    let metadata = match version >= Version::METADATA.0 {
        true => read_metadata(&mut reader)?,
        false => Vec::new(),
    };
    reader.finish("the archive's footer")?;
    Ok(Footer {
        rows,
        chunks,
        metadata,
    })
}

/// The metadata pairs of a footer: UTF-8 keys and values, no key twice.
fn read_metadata(reader: &mut ByteReader<'_>) -> Result<Vec<(String, String)>, DecodeError> {
    // A pair takes at least 2 bytes (two empty prefixed strings).
    let pairs = reader.count(2)?;
    let mut metadata = Vec::with_capacity(pairs);
    let mut keys = std::collections::HashSet::with_capacity(pairs);
    for _ in 0..pairs {
        let (key, value) = (reader.prefixed()?, reader.prefixed()?);
        if !keys.insert(key) {
            return Err(corrupt(format!(
                "the footer's metadata has the key {:?} twice",
                String::from_utf8_lossy(key)
            )));
        }
        let text = |bytes: &[u8], what: &str| {
            String::from_utf8(bytes.to_vec())
                .map_err(|_| corrupt(format!("a metadata {what} in the footer is not UTF-8")))
        };
        metadata.push((text(key, "key")?, text(value, "value")?));
    }
    Ok(metadata)
}

fn read_stats(reader: &mut ByteReader<'_>) -> Result<RawStats, DecodeError> {
    Ok(match reader.u8()? {
        0x00 => RawStats::None,
        0x01 => RawStats::Nulls(reader.varint()?),
        0x02 => {
            let width = reader.u8()?;
            if !matches!(width, 1 | 2 | 4 | 8 | 16) {
                return Err(corrupt(format!("statistics of {width}-byte words")));
            }
            let mut word = || -> Result<u128, DecodeError> {
                let mut bytes = [0u8; 16];
                bytes[..usize::from(width)].copy_from_slice(reader.take(usize::from(width))?);
                Ok(u128::from_le_bytes(bytes))
            };
            let (min, max) = (word()?, word()?);
            RawStats::Words { width, min, max }
        }
        0x03 => {
            let min = reader.prefixed()?.to_vec();
            let max = reader.prefixed()?.to_vec();
            if min.len() > MAX_STRING_BOUND || max.len() > MAX_STRING_BOUND {
                return Err(corrupt("string statistics longer than 64 bytes"));
            }
            RawStats::Bytes { min, max }
        }
        tag => return Err(corrupt(format!("unknown statistics tag {tag:#04x}"))),
    })
}

/// The bytes of section `offset..offset + size` of `bytes`, checked to lie between `start` and
/// `end`.
pub(crate) fn section_at(
    bytes: &[u8],
    offset: u64,
    size: u64,
    start: usize,
    end: usize,
) -> Result<&[u8], DecodeError> {
    let range = usize::try_from(offset)
        .ok()
        .zip(usize::try_from(size).ok())
        .and_then(|(offset, size)| Some(offset..offset.checked_add(size)?));
    match range {
        Some(range) if range.start >= start && range.end <= end && range.end <= bytes.len() => {
            Ok(&bytes[range])
        }
        _ => Err(truncated(format!(
            "a section of {size} bytes at {offset} lies outside the archive's chunks"
        ))),
    }
}
