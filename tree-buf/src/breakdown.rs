//! Where the bytes of a file go: per branch, per type, and for the header and schema.

use std::fmt;

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;

use crate::archive::Archive;
use crate::branch::branch_encoding;
use crate::encodings::describe::Describer;
pub use crate::encodings::describe::{Codec, Encoding};
use crate::error::DecodeError;
use crate::file::{Head, ARCHIVE};
use crate::options::DecodeOptions;
use crate::reader::Reader;
use crate::schema::NodeType;

/// The size of every part of a file; the parts add up to the file's length exactly.
///
/// ```
/// let bytes = tree_buf::encode(&vec![(1u32, "one".to_string()), (2, "two".to_string())]);
/// let breakdown = tree_buf::size_breakdown(&bytes)?;
/// assert_eq!(breakdown.total_bytes, bytes.len());
/// assert!(breakdown.branches.iter().any(|b| b.path == "[].1"));
/// println!("{breakdown}");
/// # Ok::<(), tree_buf::DecodeError>(())
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SizeBreakdown {
    /// The length of the file.
    pub total_bytes: usize,
    /// Magic number, format version and flags.
    pub header_bytes: usize,
    /// The schema section: its size, the schema tree and its checksum.
    pub schema_bytes: usize,
    /// The chunk's branch table (row count, branch sizes, checksum) and its data checksum.
    pub table_bytes: usize,
    /// Every branch, in file order.
    pub branches: Vec<BranchSize>,
}

/// The size of one branch, and how it is encoded.
///
/// As JSON (through `serde`), `node_type` is the type's name (`u32`, `string`, `option`...),
/// `encoding` the encoding as it prints, and `encoding_tree` the [`Encoding`] itself: each
/// stream's `codec` with its parameters, `bytes` and `children`.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchSize {
    /// The path of the node that owns the branch.
    pub path: String,
    /// The node's type: a leaf type, or `Option` (the branch holds presence bits), `Seq` and
    /// `Map` (lengths), `Enum` and `Union` (discriminants).
    pub node_type: NodeType,
    /// The encoding cascade, which prints as `delta → zigzag → bitpack` and the like.
    pub encoding: Encoding,
    /// Bytes.
    pub bytes: usize,
}

impl Serialize for BranchSize {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut branch = serializer.serialize_struct("BranchSize", 5)?;
        branch.serialize_field("path", &self.path)?;
        branch.serialize_field("node_type", self.node_type.name())?;
        branch.serialize_field("encoding", &self.encoding.to_string())?;
        branch.serialize_field("bytes", &self.bytes)?;
        branch.serialize_field("encoding_tree", &self.encoding)?;
        branch.end()
    }
}

/// How far a size breakdown reads into the branches; [`Default`] reads only their headers.
///
/// ```
/// use tree_buf::{size_breakdown_with_options, BreakdownOptions, Codec, EncodeOptions, Preference};
///
/// let lines: Vec<String> = (0..5000).map(|i| format!("request {i} served in {} ms", i % 97)).collect();
/// let bytes = tree_buf::encode_with_options(&lines, &EncodeOptions::default().prefer(Preference::Smaller))?;
/// let zstd_stage = |options: &BreakdownOptions| {
///     let breakdown = size_breakdown_with_options(&bytes, options).unwrap();
///     let strings = breakdown.branches.iter().find(|b| b.path == "[]").unwrap();
///     assert!(matches!(strings.encoding.codec, Codec::Zstd { .. }));
///     strings.encoding.to_string()
/// };
/// # // Only a build with the `zstd` feature writes zstd stages.
/// # #[cfg(feature = "zstd")] {
/// // By default the frame is described by its header: the size of what it holds.
/// assert!(zstd_stage(&BreakdownOptions::default()).ends_with("bytes inside, not decompressed)"));
/// // Decompressing it describes the stream inside.
/// assert!(zstd_stage(&BreakdownOptions::default().decompress_zstd(true)).starts_with("zstd(plain("));
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BreakdownOptions {
    decompress_zstd: bool,
}

impl BreakdownOptions {
    /// Decompresses every zstd frame to describe the streams inside it. By default a breakdown
    /// decompresses nothing, and describes a zstd stage from its header, by the size of the
    /// stream it holds (`zstd(12345 bytes inside, not decompressed)`).
    pub fn decompress_zstd(mut self, decompress: bool) -> Self {
        self.decompress_zstd = decompress;
        self
    }
}

/// Measures where the bytes of a tree-buf file go, reading only the headers of its branches:
/// it decodes no values and decompresses nothing.
pub fn size_breakdown(bytes: &[u8]) -> Result<SizeBreakdown, DecodeError> {
    size_breakdown_with_options(bytes, &BreakdownOptions::default())
}

/// [`size_breakdown`], reading as far as `options` say.
///
/// For an archive, the sizes are the totals over its chunks: each path's branches added up
/// (with the encoding of its largest one), every schema in `schema_bytes`, and the chunks'
/// tables, the sections' framing, the footer and the trailer in `table_bytes`. Per chunk, see
/// [`Archive::chunk_reader`](crate::archive::Archive::chunk_reader).
pub fn size_breakdown_with_options(
    bytes: &[u8],
    options: &BreakdownOptions,
) -> Result<SizeBreakdown, DecodeError> {
    if Head::parse(bytes, &DecodeOptions::default())?.flags & ARCHIVE == 0 {
        return Ok(of_reader(&Reader::new(bytes)?, bytes.len(), options));
    }
    let archive = Archive::from_bytes(bytes)?;
    let mut branches: Vec<BranchSize> = Vec::new();
    for index in 0..archive.chunks().len() {
        let reader = archive.chunk_reader(index)?;
        for branch in of_reader(&reader, 0, options).branches {
            let same =
                |b: &&mut BranchSize| b.path == branch.path && b.node_type == branch.node_type;
            match branches.iter_mut().find(same) {
                Some(total) => {
                    if branch.bytes > total.bytes {
                        total.encoding = branch.encoding.clone();
                    }
                    total.bytes += branch.bytes;
                }
                None => branches.push(branch),
            }
        }
    }
    let header_bytes = crate::file::HEADER_BYTES;
    let schema_bytes = archive.schema_bytes();
    let branch_bytes: usize = branches.iter().map(|branch| branch.bytes).sum();
    Ok(SizeBreakdown {
        total_bytes: bytes.len(),
        header_bytes,
        schema_bytes,
        table_bytes: (bytes.len() - header_bytes).saturating_sub(schema_bytes + branch_bytes),
        branches,
    })
}

/// The breakdown of the file (or archive chunk) `reader` reads, `total_bytes` long.
fn of_reader(reader: &Reader<'_>, total_bytes: usize, options: &BreakdownOptions) -> SizeBreakdown {
    let view = reader.view();
    let schema = reader.schema();
    // Branches are numbered in the pre-order of the nodes that own them.
    let owners: Vec<_> = (schema.iter())
        .filter(|node| node.node_type.has_branch())
        .collect();
    let paths: Vec<String> = owners.iter().map(|node| node.path.to_string()).collect();
    let at = Describer::new(options.decompress_zstd);
    let branches = (owners.iter().zip(&paths).zip(&view.chunk.branches))
        .map(|((node, path), branch)| BranchSize {
            path: if node.path.is_empty() {
                "(root)".into()
            } else {
                path.clone()
            },
            node_type: node.node_type,
            encoding: branch_encoding(node.node_type, branch, &paths, at),
            bytes: branch.len(),
        })
        .collect();
    SizeBreakdown {
        total_bytes,
        header_bytes: view.header_bytes,
        schema_bytes: view.schema_bytes,
        table_bytes: view.table_bytes,
        branches,
    }
}

impl SizeBreakdown {
    /// Bytes by node type, largest first (by name where equal).
    pub fn by_type(&self) -> Vec<(NodeType, usize)> {
        let mut totals: Vec<(NodeType, usize)> = Vec::new();
        for branch in &self.branches {
            match totals.iter_mut().find(|(t, _)| *t == branch.node_type) {
                Some((_, bytes)) => *bytes += branch.bytes,
                None => totals.push((branch.node_type, branch.bytes)),
            }
        }
        totals.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.name().cmp(b.0.name())));
        totals
    }
}

impl fmt::Display for SizeBreakdown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let percent = |bytes: usize| 100.0 * bytes as f64 / self.total_bytes.max(1) as f64;
        let mut by_path: Vec<&BranchSize> = self.branches.iter().collect();
        by_path.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.path.cmp(&b.path)));
        writeln!(f, "Largest by path:")?;
        for branch in by_path {
            writeln!(
                f,
                "  {:>10} B {:>5.1}%  {}  ({}, {})",
                branch.bytes,
                percent(branch.bytes),
                branch.path,
                branch.node_type,
                branch.encoding
            )?;
        }
        writeln!(f, "\nLargest by type:")?;
        for (node_type, bytes) in self.by_type() {
            writeln!(f, "  {bytes:>10} B {:>5.1}%  {node_type}", percent(bytes))?;
        }
        let overhead = [
            ("header", self.header_bytes),
            ("schema", self.schema_bytes),
            ("branch table", self.table_bytes),
        ];
        for (what, bytes) in overhead {
            writeln!(f, "  {bytes:>10} B {:>5.1}%  ({what})", percent(bytes))?;
        }
        writeln!(f, "\nTotal: {} B", self.total_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{encode_with_options, EncodeOptions, Preference};

    /// A file of a column of each kind, without zstd stages (which not every build writes): no
    /// stream in it halves under zstd, which `Faster` asks for.
    fn file() -> Vec<u8> {
        let options = EncodeOptions::default().prefer(Preference::Faster);
        encode_with_options(&rows(), &options).unwrap()
    }

    fn rows() -> Vec<(u64, String, Option<bool>, f64)> {
        (0..3000u64)
            .map(|i| {
                (
                    1_700_000_000 + i * 60,
                    // Names in no order, so that zstd finds no repeats in their indices.
                    format!("name {}", scrambled(i) >> 61),
                    (i % 3 != 0).then_some(i % 2 == 0),
                    i as f64 * 0.25,
                )
            })
            .collect()
    }

    /// `i`'s bits mixed (splitmix64's finalizer).
    fn scrambled(i: u64) -> u64 {
        let mut x = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }

    #[test]
    fn branches_carry_typed_encodings_that_print_as_the_schema_does() {
        let bytes = file();
        let breakdown = size_breakdown(&bytes).unwrap();
        let schema = Reader::new(&bytes).unwrap().schema();
        let owners: Vec<_> = (schema.iter())
            .filter(|node| node.node_type.has_branch())
            .collect();
        assert_eq!(owners.len(), breakdown.branches.len());
        for (branch, node) in breakdown.branches.iter().zip(owners) {
            assert_eq!(branch.node_type, node.node_type);
            assert_eq!(Some(branch.encoding.to_string()), node.encoding);
            assert_eq!(branch.encoding.bytes, branch.bytes);
            for encoding in branch.encoding.iter() {
                let nested: usize = encoding.children.iter().map(|c| c.bytes).sum();
                assert!(nested < encoding.bytes, "{encoding:?}");
            }
        }
        let types: Vec<NodeType> = breakdown.by_type().into_iter().map(|(t, _)| t).collect();
        for expected in [
            NodeType::U64,
            NodeType::Str,
            NodeType::Option,
            NodeType::F64,
        ] {
            assert!(types.contains(&expected), "{types:?}");
        }
        let codec = |path: &str| {
            let branch = breakdown.branches.iter().find(|b| b.path == path).unwrap();
            branch.encoding.codec.clone()
        };
        assert_eq!(codec("[].0"), Codec::Delta);
        assert_eq!(codec("[].1"), Codec::StrDictionary { distinct: 8 });
    }

    #[test]
    fn the_json_keeps_its_fields_and_adds_the_tree() {
        let bytes = file();
        let breakdown = size_breakdown(&bytes).unwrap();
        let json = serde_json::to_value(&breakdown).unwrap();
        for (branch, value) in breakdown
            .branches
            .iter()
            .zip(json["branches"].as_array().unwrap())
        {
            assert_eq!(value["path"], branch.path.as_str());
            assert_eq!(value["node_type"], branch.node_type.name());
            assert_eq!(value["encoding"], branch.encoding.to_string());
            assert_eq!(value["bytes"], branch.bytes);
            assert_eq!(value["encoding_tree"]["bytes"], branch.bytes);
        }
        let ids = &json["branches"][1];
        assert_eq!(ids["path"], "[].0");
        assert_eq!(ids["encoding_tree"]["codec"], "delta");
        assert!(ids["encoding_tree"]["children"][0]["codec"].is_string());
    }

    #[test]
    // zstd is C code, which Miri cannot run.
    #[cfg_attr(miri, ignore)]
    #[cfg(feature = "zstd")]
    fn zstd_stages_are_described_without_decompressing_unless_asked() {
        let lines: Vec<String> = (0..5000)
            .map(|i| format!("request {i} served in {} ms", i % 97))
            .collect();
        let options = EncodeOptions::default().prefer(Preference::Smaller);
        let mut bytes = encode_with_options(&lines, &options).unwrap();
        let described = |bytes: &[u8], decompress: bool| {
            let options = BreakdownOptions::default().decompress_zstd(decompress);
            let breakdown = size_breakdown_with_options(bytes, &options).unwrap();
            breakdown.branches[1].encoding.clone()
        };
        let header_only = described(&bytes, false);
        let Codec::Zstd { content_bytes } = header_only.codec else {
            panic!("{header_only}");
        };
        assert!(header_only.children.is_empty());
        assert_eq!(
            header_only.to_string(),
            format!("zstd({content_bytes} bytes inside, not decompressed)")
        );
        let inside = described(&bytes, true);
        assert_eq!(inside.children.len(), 1);
        assert_eq!(inside.children[0].bytes as u64, content_bytes);
        assert!(inside.to_string().starts_with("zstd(plain("), "{inside}");

        // Garbage in the frame (its last bytes, before the data checksum): the header still
        // describes it, so nothing was decompressed; decompressing finds it unreadable.
        let end = bytes.len() - 4;
        bytes[end - 8..end].fill(0xa5);
        assert_eq!(described(&bytes, false), header_only);
        let broken = described(&bytes, true);
        assert!(
            matches!(broken.children[0].codec, Codec::Unreadable { .. }),
            "{broken}"
        );
    }
}
