//! Bit-packing with a frame of reference, through the SIMD kernels of the `bitpacking` crate.
//!
//! ```text
//! bitpack := 0x04 min:varint block*
//!   the words minus `min` (wrapping) fit 32 bits; floor(count / 128) blocks of 128 values
//!   (BitPacker4x layout) come first, then ceil((count mod 128) / 32) blocks of 32 (BitPacker1x
//!   layout), the last padded with zeros
//! block := bits:u8 packed       bits <= min(32, word width); packed is bits * 16 bytes
//!                               (128 values) or bits * 4 bytes (32 values)
//! ```
//!
//! Readers reject a block wider than the word (its offsets could not come from words of that
//! width) and padding offsets that are not zero.

use bitpacking::{BitPacker, BitPacker1x, BitPacker4x};

use super::transform::Finish;
use super::{bit_width, varint, IntTag, Word};
use crate::encodings::bytes::ByteReader;
use crate::error::{corrupt, DecodeError};

const LARGE: usize = BitPacker4x::BLOCK_LEN;
const SMALL: usize = BitPacker1x::BLOCK_LEN;

/// Whether every word minus `min` fits 32 bits.
pub(super) fn fits<W: Word>(min: W, max: W) -> bool {
    bit_width(max.wrapping_sub(min)) <= 32
}

fn offsets<W: Word>(values: &[W], min: W) -> Vec<u32> {
    values
        .iter()
        .map(|&v| v.wrapping_sub(min).low_u64() as u32)
        .collect()
}

/// The exact encoded size.
pub(super) fn size<W: Word>(values: &[W], min: W) -> usize {
    let large_end = values.len() / LARGE * LARGE;
    let bits = |block: &[W]| {
        let or = block
            .iter()
            .fold(0u32, |acc, &v| acc | v.wrapping_sub(min).low_u64() as u32);
        32 - or.leading_zeros() as usize
    };
    let large: usize = values[..large_end]
        .chunks(LARGE)
        .map(|b| 1 + 16 * bits(b))
        .sum();
    let small: usize = values[large_end..]
        .chunks(SMALL)
        .map(|b| 1 + 4 * bits(b))
        .sum();
    1 + varint::len(min) + large + small
}

pub(super) fn encode<W: Word>(values: &[W], min: W, out: &mut Vec<u8>) {
    out.push(IntTag::BitPack as u8);
    varint::write(out, min);
    let offsets = offsets(values, min);
    let large_end = offsets.len() / LARGE * LARGE;
    let packer = BitPacker4x::new();
    for block in offsets[..large_end].chunks_exact(LARGE) {
        let bits = packer.num_bits(block);
        out.push(bits);
        let start = out.len();
        out.resize(start + BitPacker4x::compressed_block_size(bits), 0);
        packer.compress(block, &mut out[start..], bits);
    }
    let packer = BitPacker1x::new();
    for chunk in offsets[large_end..].chunks(SMALL) {
        let mut block = [0u32; SMALL];
        block[..chunk.len()].copy_from_slice(chunk);
        let bits = packer.num_bits(&block);
        out.push(bits);
        let start = out.len();
        out.resize(start + BitPacker1x::compressed_block_size(bits), 0);
        packer.compress(&block, &mut out[start..], bits);
    }
}

/// Reads one block's bit width and packed bytes, checked before the packer sees them: at most 32
/// bits, and no wider than the words `W`.
fn block<'a, W: Word>(
    reader: &mut ByteReader<'a>,
    bytes_per_bit: usize,
) -> Result<(u8, &'a [u8]), DecodeError> {
    let bits = reader.u8()?;
    if u32::from(bits) > W::BITS.min(32) {
        return Err(corrupt(format!(
            "a bit-packed block of {bits} bits for {}-bit words",
            W::BITS
        )));
    }
    Ok((bits, reader.take(usize::from(bits) * bytes_per_bit)?))
}

/// A bit-packed stream's header: the frame of reference, and the blocks.
pub(crate) struct BitPacked<'a, W> {
    min: W,
    blocks: &'a [u8],
}

impl<'a, W: Word> BitPacked<'a, W> {
    /// Reads the header from `body`, the bytes after the tag.
    pub(super) fn parse(body: &'a [u8]) -> Result<Self, DecodeError> {
        let mut reader = ByteReader::new(body);
        let min = varint::read(&mut reader)?;
        Ok(BitPacked {
            min,
            blocks: reader.rest(),
        })
    }

    /// The `count` values, each made what `finish` makes it as its block is unpacked.
    pub(super) fn decode(
        self,
        count: usize,
        mut finish: impl Finish<W>,
    ) -> Result<Vec<W>, DecodeError> {
        let BitPacked { min, blocks } = self;
        let mut reader = ByteReader::new(blocks);
        let large_blocks = count / LARGE;
        let small_blocks = (count % LARGE).div_ceil(SMALL);
        if large_blocks + small_blocks > reader.remaining() {
            return Err(corrupt(format!(
                "{} bytes cannot hold {count} bit-packed values",
                reader.remaining()
            )));
        }
        let mut values = Vec::with_capacity(count);
        let mut buffer = [0u32; LARGE];
        let packer = BitPacker4x::new();
        for _ in 0..large_blocks {
            let (bits, packed) = block::<W>(&mut reader, 16)?;
            packer.decompress(packed, &mut buffer, bits);
            values.extend(
                (buffer.iter()).map(|&v| finish.apply(W::from_u64(u64::from(v)).wrapping_add(min))),
            );
        }
        let packer = BitPacker1x::new();
        for _ in 0..small_blocks {
            let (bits, packed) = block::<W>(&mut reader, 4)?;
            packer.decompress(packed, &mut buffer[..SMALL], bits);
            let take = (count - values.len()).min(SMALL);
            // Only the last block has padding: checked once a stream.
            if buffer[take..SMALL].iter().any(|&padding| padding != 0) {
                return Err(corrupt(
                    "bit-packed padding past the last value is not zero",
                ));
            }
            values.extend(
                (buffer[..take].iter())
                    .map(|&v| finish.apply(W::from_u64(u64::from(v)).wrapping_add(min))),
            );
        }
        reader.finish("bit-packed blocks")?;
        Ok(values)
    }
}

#[cfg(test)]
mod tests {
    use super::super::transform::{AsDecoded, RunningSums};
    use super::*;

    fn decode<W: Word>(body: &[u8], count: usize) -> Result<Vec<W>, DecodeError> {
        BitPacked::<W>::parse(body)?.decode(count, AsDecoded)
    }

    #[test]
    fn a_transform_over_the_values_is_applied_across_blocks() {
        // Large blocks, then small ones, then a short last one.
        let values: Vec<u64> = (0..1000u64).map(|i| (i * 37) % 101).collect();
        let mut out = Vec::new();
        encode(&values, 0, &mut out);
        let packed = BitPacked::<u64>::parse(&out[1..]).unwrap();
        let summed = packed.decode(values.len(), RunningSums::<u64, true>::new());
        let mut expected = values.clone();
        RunningSums::<u64, true>::new().apply_all(&mut expected);
        assert_eq!(summed.unwrap(), expected);
    }

    /// The plain reference: every value minus `min` in `bits` bits, one by one.
    fn reference_bits<W: Word>(values: &[W], min: W) -> Vec<u32> {
        values
            .iter()
            .map(|&v| bit_width(v.wrapping_sub(min)))
            .collect()
    }

    #[test]
    fn matches_a_plain_reference_at_every_length_and_width() {
        for len in [0usize, 1, 31, 32, 33, 127, 128, 129, 300, 1000] {
            for bits in [0u32, 1, 7, 17, 31, 32] {
                let values: Vec<u64> = (0..len as u64)
                    .map(|i| {
                        if bits == 0 {
                            5
                        } else {
                            5 + (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits))
                        }
                    })
                    .collect();
                let min = values.iter().copied().min().unwrap_or(0);
                assert!(reference_bits(&values, min).iter().all(|&b| b <= bits));
                let mut out = Vec::new();
                encode(&values, min, &mut out);
                assert_eq!(out.len(), size(&values, min), "len {len} bits {bits}");
                assert_eq!(
                    decode::<u64>(&out[1..], len).unwrap(),
                    values,
                    "len {len} bits {bits}"
                );
            }
        }
    }

    /// The layout as FORMAT.md specifies it, bit by bit: `lanes` interleaved streams of 32-bit
    /// little-endian words; value i goes to lane i mod lanes, packed lowest bit first.
    fn reference_pack(values: &[u32], bits: u32, lanes: usize) -> Vec<u8> {
        let words_per_lane = bits as usize;
        let mut words = vec![0u32; lanes * words_per_lane];
        for lane in 0..lanes {
            for (k, &value) in values.iter().skip(lane).step_by(lanes).enumerate() {
                for bit in 0..bits as usize {
                    let position = k * bits as usize + bit;
                    if value >> bit & 1 == 1 {
                        words[(position / 32) * lanes + lane] |= 1 << (position % 32);
                    }
                }
            }
        }
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn the_simd_layout_matches_the_documented_reference() {
        for bits in [1u8, 3, 8, 13, 31, 32] {
            let mask = if bits == 32 {
                u32::MAX
            } else {
                (1u32 << bits) - 1
            };
            let values: Vec<u32> = (0..128u32)
                .map(|i| i.wrapping_mul(0x9e37_79b9) & mask)
                .collect();
            let mut packed = vec![0u8; BitPacker4x::compressed_block_size(bits)];
            BitPacker4x::new().compress(&values, &mut packed, bits);
            assert_eq!(
                packed,
                reference_pack(&values, u32::from(bits), 4),
                "4x, {bits} bits"
            );
            let mut packed = vec![0u8; BitPacker1x::compressed_block_size(bits)];
            BitPacker1x::new().compress(&values[..32], &mut packed, bits);
            assert_eq!(
                packed,
                reference_pack(&values[..32], u32::from(bits), 1),
                "1x, {bits} bits"
            );
        }
    }

    #[test]
    fn wide_words_with_a_narrow_range_pack() {
        let values: Vec<u128> = (0..200u128).map(|i| (1 << 100) + i * 3).collect();
        let mut out = Vec::new();
        encode(&values, 1 << 100, &mut out);
        assert_eq!(decode::<u128>(&out[1..], values.len()).unwrap(), values);
    }

    #[test]
    fn hostile_streams_are_errors() {
        assert!(decode::<u32>(&[0, 33, 0], 32).is_err(), "more than 32 bits");
        assert!(decode::<u32>(&[0, 8, 1, 2], 32).is_err(), "short block");
        assert!(
            decode::<u32>(&[0, 0], usize::MAX).is_err(),
            "count past the bytes"
        );
        assert!(decode::<u32>(&[0, 0, 0], 32).is_err(), "trailing bytes");
        let mut nine_bits = vec![0, 9];
        nine_bits.extend([0; 36]);
        assert!(decode::<u8>(&nine_bits, 32).is_err(), "wider than the word");
        assert!(
            decode::<u16>(&nine_bits, 32).is_ok(),
            "as wide as the word allows"
        );
        // One value of 1 bit in a block of 32: the 31 offsets after it are padding.
        assert_eq!(decode::<u32>(&[0, 1, 1, 0, 0, 0], 1).unwrap(), [1]);
        assert!(
            decode::<u32>(&[0, 1, 3, 0, 0, 0], 1).is_err(),
            "non-zero padding"
        );
        assert!(
            decode::<u32>(&[0, 1, 0, 0, 0, 0x80], 31).is_err(),
            "non-zero padding in the last place"
        );
    }
}
