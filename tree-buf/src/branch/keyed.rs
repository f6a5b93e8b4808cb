//! Keyed string branches: a string column that is a function of another string column of the
//! same struct (a player's name given the player's id) is stored as a table from the other
//! column's distinct strings, plus exceptions, instead of a second copy of the same information.
//!
//! The codec is [`crate::encodings::string::encode_keyed`]; this chooses which columns use it,
//! among the string columns that the schema writer found to be siblings.

use super::Column;
use crate::encodings::string::{self, Ranks, StrColumn};
use crate::encodings::{Settings, Version};

/// Branches smaller than this are left as they are: a table and a source index would not pay.
const MIN_BRANCH_BYTES: usize = 64;

/// Replaces the branch of each string column by a keyed stream over an earlier column of its
/// group of `string_siblings` (see [`super::SchemaWriter::string_siblings`]), where one of the same length makes it smaller. A keyed column is
/// never a source, so decoding one reads at most one other branch. `ranks` holds each branch's
/// ranks, where its column has them (see [`Column::encode`]), and `versions` the version each
/// branch needs, which a keyed branch's replaces.
pub(crate) fn key_string_siblings<'g>(
    string_siblings: impl Iterator<Item = &'g [usize]>,
    columns: &[(Column, Option<usize>)],
    ranks: &[Option<Ranks>],
    branches: &mut [Vec<u8>],
    versions: &mut [Version],
    settings: &Settings,
    parallel: bool,
) {
    let strings = (columns.iter())
        .filter(|(column, _)| matches!(column, Column::Str(_)))
        .count();
    if strings < 2 {
        return;
    }
    let key_group = |group: &[usize]| -> Vec<(usize, (Vec<u8>, Version))> {
        let strings: Vec<(usize, &StrColumn)> = (group.iter())
            .filter_map(|&index| match &columns[index].0 {
                Column::Str(column) => Some((index, column)),
                _ => None,
            })
            .collect();
        // Only a column with a sibling of its length can key another or be keyed.
        let ranks: Vec<Option<&Ranks>> = (strings.iter())
            .map(|&(index, column)| {
                let peers = strings
                    .iter()
                    .filter(|(_, other)| other.len() == column.len());
                ranks[index].as_ref().filter(|_| peers.count() > 1)
            })
            .collect();
        let mut sources: Vec<usize> = Vec::new();
        let mut keyed = Vec::new();
        for (at, &(target, column)) in strings.iter().enumerate() {
            let own_size = branches[target].len();
            let best = match ranks[at] {
                Some(own) if own_size >= MIN_BRANCH_BYTES => (sources.iter())
                    .filter(|&&source| strings[source].1.len() == column.len())
                    .filter_map(|&source| {
                        let source_ranks = ranks[source]?;
                        let source_branch = strings[source].0;
                        string::encode_keyed(
                            source_branch,
                            source_ranks,
                            column,
                            own,
                            own_size,
                            settings,
                        )
                    })
                    .min_by_key(|(stream, _)| stream.len()),
                _ => None,
            };
            match best {
                Some(stream) => keyed.push((target, stream)),
                None => sources.push(at),
            }
        }
        keyed
    };
    let keyed = crate::parallel::map(string_siblings.collect(), parallel, key_group);
    for (index, (stream, version)) in keyed.into_iter().flatten() {
        branches[index] = stream;
        versions[index] = version;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branch::Words;
    use crate::branch::{EncodeResult, SchemaWriter};
    use crate::schema::NodeType;

    fn string(out: &mut SchemaWriter) -> EncodeResult {
        out.leaf(NodeType::Str, Column::Str(StrColumn::default()))
    }

    #[test]
    fn siblings_are_the_strings_under_one_struct_or_tuple() {
        let mut out = SchemaWriter::new();
        // { a: str, b: Option<str>, c: Vec<{ d: str, e: str }>, f: (str, u8, str), g: { h: str } }
        out.structure(5, |out| {
            out.field("a", string)?; // branch 0
            out.field("b", |out| out.option(vec![], string))?; // 1, 2
            out.field("c", |out| {
                out.seq(vec![], |out| {
                    out.structure(2, |out| {
                        out.field("d", string)?; // 4
                        out.field("e", string) // 5
                    })
                })
            })?; // 3
            out.field("f", |out| {
                out.tuple(3, |out| {
                    out.element(0, string)?; // 6
                    out.element(1, |out| {
                        out.leaf(NodeType::U8, Column::Int(Words::U8(vec![]))) // 7
                    })?;
                    out.element(2, string) // 8
                })
            })?;
            out.field("g", |out| out.structure(1, |out| out.field("h", string)))
            // 9
        })
        .unwrap();
        let groups: Vec<&[usize]> = out.string_siblings().collect();
        assert_eq!(groups, [&[0, 2][..], &[4, 5], &[6, 8]]);
    }
}
