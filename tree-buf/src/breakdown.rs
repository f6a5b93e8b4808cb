//! Where the bytes of a file go: per branch, per type, and for the header and schema.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::error::DecodeError;
use crate::reader::Reader;

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

/// The size of one branch.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BranchSize {
    /// The path of the node that owns the branch.
    pub path: String,
    /// The node's type: `u32`, `string`, `option` (the branch holds presence bits), `sequence`
    /// (lengths), `enum` (discriminants) and so on.
    pub node_type: String,
    /// The encoding cascade, such as `delta → zigzag → bitpack`.
    pub encoding: String,
    /// Bytes.
    pub bytes: usize,
}

/// Measures where the bytes of a tree-buf file go, without decoding any branch.
pub fn size_breakdown(bytes: &[u8]) -> Result<SizeBreakdown, DecodeError> {
    let reader = Reader::new(bytes)?;
    let view = reader.view();
    let mut branches = Vec::new();
    for node in reader.schema().iter() {
        if node.node_type.has_branch() {
            branches.push(BranchSize {
                path: if node.path.is_empty() {
                    "(root)".into()
                } else {
                    node.path.to_string()
                },
                node_type: node.node_type.name().to_owned(),
                encoding: node.encoding.clone().unwrap_or_default(),
                bytes: node.bytes,
            });
        }
    }
    Ok(SizeBreakdown {
        total_bytes: bytes.len(),
        header_bytes: view.header_bytes,
        schema_bytes: view.schema_bytes,
        table_bytes: view.table_bytes,
        branches,
    })
}

impl SizeBreakdown {
    /// Bytes by node type, largest first.
    pub fn by_type(&self) -> Vec<(String, usize)> {
        let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
        for branch in &self.branches {
            *totals.entry(&branch.node_type).or_default() += branch.bytes;
        }
        let mut totals: Vec<(String, usize)> =
            totals.into_iter().map(|(t, b)| (t.to_owned(), b)).collect();
        totals.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
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
