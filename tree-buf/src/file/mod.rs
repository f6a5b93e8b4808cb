//! The file: header, schema, and one chunk of branches. Archives (many chunks, a footer) build on
//! these pieces: see [`crate::archive`].
//!
//! ```text
//! file   := header schema chunk
//! header := "TBUF" version:u8 flags:u8          version 1 to ARCHIVE_VERSION; flags: ARCHIVE
//!                                               (version 4 on), no others
//! schema := size:varint node crc:u32le          node as in `schema::tree`; crc is CRC-32
//!                                               (IEEE) of every byte from the header's first on
//! chunk  := rows:varint branch_size:varint{B} table_crc:u32le branch{B} data_crc:u32le
//!           rows is the number of root values (1 for a file written by `encode`, and for every
//!           chunk of an archive); B is the number of schema nodes that own a stream, in
//!           pre-order; table_crc covers rows and sizes, data_crc every branch byte
//! ```
//!
//! A reader reads every version from 1 to [`Version::NEWEST`](crate::encodings::Version::NEWEST). Every branch is skippable by its
//! size without being parsed, and a chunk carries everything needed to decode it given the
//! schema.

mod read;
mod write;

pub(crate) use read::{read, Chunk, FileView, Head, ReadScratch, HEADER_BYTES};
pub(crate) use write::{write, write_head, write_with, Parts, WriteScratch};

pub(crate) const MAGIC: [u8; 4] = *b"TBUF";
/// The header flag of an archive (version 4 on).
pub(crate) const ARCHIVE: u8 = 0x01;
