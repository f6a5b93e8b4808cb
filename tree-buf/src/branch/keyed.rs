//! Keyed branches: a column stored with the help of a sibling column of the same struct.
//!
//! - A string column that is a function of another string column (a player's name given the
//!   player's id) is stored as a table from the other column's distinct strings, plus
//!   exceptions, instead of a second copy of the same information
//!   ([`crate::encodings::string::encode_keyed`]).
//! - An integer column whose values go with the size of another's (a batter's hits with his
//!   at-bats) is split into parts by the other column's values, each part encoded on its own
//!   ([`crate::encodings::int::keyed`]).
//!
//! This chooses which columns use them, among the columns that the schema writer found to be
//! siblings. A keyed column is never a source, so decoding one reads at most one other branch.

use super::column::each_width;
use super::{Column, IntSibling};
use crate::encodings::int::keyed as keyed_ints;
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

/// Integer columns of fewer values are left as they are: choosing and splitting would cost more
/// than parts could save.
const MIN_KEYED_VALUES: usize = 4096;
/// About how many values of each column the choice of sources looks at.
const SAMPLE_VALUES: usize = 8192;
/// The most columns of one length in a group that are weighed against each other; the others
/// are left as they are.
const MAX_WEIGHED: usize = 48;
/// What each part of a keyed stream is taken to cost beyond its values (its length prefix and
/// its own codec's tables), in bytes.
const PART_COST: usize = 24;

/// Replaces the branch of integer columns by keyed streams over a sibling of their group of
/// `int_siblings` ([`super::SchemaWriter::int_siblings`]) where that makes them smaller.
///
/// Siblings are weighed by their rows: a leaf's own values, or, for the present values of an
/// option, the option's. Of each set of siblings of as many rows, the parts of every column's
/// values are counted on a sample, which estimates how many bytes keying one column by another
/// saves (the information their parts share). Sources, which must have a value in every row,
/// are then chosen greedily, each the one that adds most to the savings of the columns keyed by
/// their best source among those chosen; a source is never keyed. Each column so keyed is then
/// encoded keyed, and keeps the keyed stream only if it is smaller than its branch. `versions`
/// holds the version each branch needs, which a keyed branch's replaces.
pub(crate) fn key_int_siblings<'g>(
    int_siblings: impl Iterator<Item = &'g [IntSibling]>,
    columns: &[(Column, Option<usize>)],
    branches: &mut [Vec<u8>],
    versions: &mut [Version],
    settings: &Settings,
    parallel: bool,
) {
    // Only where asked for, and not in the chunks of an archive whose header declared an older
    // version.
    if !settings.key_ints || settings.newest < Version::KEYED_INTS {
        return;
    }
    let mut targets = Vec::new();
    for group in int_siblings {
        // Leaves that are not the items of fixed-size arrays, by rows.
        let mut by_rows: Vec<(usize, Vec<Member<'_>>)> = Vec::new();
        for &sibling in group {
            let Some(member) = Member::of(sibling, columns) else {
                continue;
            };
            match by_rows.iter_mut().find(|(rows, _)| *rows == member.rows) {
                Some((_, members)) => members.push(member),
                None => by_rows.push((member.rows, vec![member])),
            }
        }
        for (_, mut members) in by_rows {
            members.truncate(MAX_WEIGHED);
            if members.len() > 1 {
                targets.extend(choose_sources(&members, columns, branches));
            }
        }
    }
    if targets.is_empty() {
        return;
    }
    let encode = |(target, source, parts): (usize, usize, Vec<u8>)| {
        let mut stream = Vec::new();
        let version = match &columns[target].0 {
            Column::Int(words) => each_width!(words, values => {
                keyed_ints::encode(source, &parts, values, settings, &mut stream)
            }),
            _ => return None,
        };
        (stream.len() < branches[target].len()).then_some((target, stream, version))
    };
    let keyed = crate::parallel::map(targets, parallel, encode);
    for (target, stream, version) in keyed.into_iter().flatten() {
        branches[target] = stream;
        versions[target] = version;
    }
}

/// An integer column weighed for keying: the part of its value in every `sample_step`-th row
/// (`NO_VALUE` where an option holds none).
struct Member<'c> {
    sibling: IntSibling,
    rows: usize,
    sampled: Vec<u16>,
    presence: Option<&'c [bool]>,
}

/// The part of a row whose option holds no value.
const NO_VALUE: u16 = u16::MAX;

/// Every how many rows of `rows` the choice looks at one.
fn sample_step(rows: usize) -> usize {
    (rows / SAMPLE_VALUES).max(1)
}

impl<'c> Member<'c> {
    /// The column of `sibling`, unless it is the items of fixed-size arrays or has too few
    /// rows to be weighed.
    fn of(sibling: IntSibling, columns: &'c [(Column, Option<usize>)]) -> Option<Self> {
        let (column @ Column::Int(words), None) = &columns[sibling.branch] else {
            return None;
        };
        let presence = match sibling.presence.map(|branch| &columns[branch].0) {
            None => None,
            Some(Column::Bool(presence)) => Some(presence.as_slice()),
            Some(_) => return None,
        };
        let rows = presence.map_or(column.len(), <[bool]>::len);
        if rows < MIN_KEYED_VALUES {
            return None;
        }
        let signed = sibling.signed;
        let sampled = each_width!(words, values => match presence {
            None => (values.iter().step_by(sample_step(values.len())))
                .map(|&value| u16::from(keyed_ints::part_of_word(value, signed)))
                .collect(),
            Some(presence) => {
                // The value of row `r` is the one after the values of the rows before it.
                let step = sample_step(presence.len());
                let mut next = 0;
                let mut sampled = Vec::with_capacity(presence.len().div_ceil(step));
                for (row, &present) in presence.iter().enumerate() {
                    if row % step == 0 {
                        sampled.push(match (present, values.get(next)) {
                            (true, Some(&value)) => {
                                u16::from(keyed_ints::part_of_word(value, signed))
                            }
                            _ => NO_VALUE,
                        });
                    }
                    next += usize::from(present);
                }
                sampled
            }
        });
        Some(Member {
            sibling,
            rows,
            sampled,
            presence,
        })
    }

    /// The parts of `source`'s values at this column's values: in every row, or in the rows
    /// where its option holds a value.
    fn source_parts(&self, source: &Member<'_>, columns: &[(Column, Option<usize>)]) -> Vec<u8> {
        let Column::Int(words) = &columns[source.sibling.branch].0 else {
            return Vec::new();
        };
        let signed = source.sibling.signed;
        each_width!(words, values => match self.presence {
            None => keyed_ints::parts_of(values, signed),
            Some(presence) => (values.iter().zip(presence))
                .filter(|(_, &present)| present)
                .map(|(&value, _)| keyed_ints::part_of_word(value, signed))
                .collect(),
        })
    }
}

/// Of `members`, integer columns of as many rows, the ones worth keying: each with its source's
/// branch and the parts of the source's values at its values.
fn choose_sources(
    members: &[Member<'_>],
    columns: &[(Column, Option<usize>)],
    branches: &[Vec<u8>],
) -> Vec<(usize, usize, Vec<u8>)> {
    let rows = members[0].rows;
    let sampled = members[0].sampled.len();
    let widths: Vec<usize> = (members.iter())
        .map(|member| {
            let parts = member.sampled.iter().filter(|&&p| p != NO_VALUE);
            parts.max().map_or(1, |&p| usize::from(p) + 1)
        })
        .collect();
    let entropy = |counts: &[u32]| -> f64 {
        let total: u32 = counts.iter().sum();
        let total = f64::from(total.max(1));
        (counts.iter().filter(|&&c| c > 0))
            .map(|&c| -f64::from(c) * (f64::from(c) / total).log2())
            .sum()
    };
    // The bits of each column's parts alone, over the sample.
    let own: Vec<f64> = (members.iter().zip(&widths))
        .map(|(member, &width)| {
            let mut counts = vec![0u32; width];
            for &part in &member.sampled {
                if part != NO_VALUE {
                    counts[usize::from(part)] += 1;
                }
            }
            entropy(&counts)
        })
        .collect();
    // saving[t][s]: the bytes keying column t by column s is estimated to save. Only a column
    // with a value in every row can be a source.
    let n = members.len();
    let mut saving = vec![vec![i64::MIN; n]; n];
    let mut joint = Vec::new();
    for s in (0..n).filter(|&s| members[s].presence.is_none()) {
        for t in (0..n).filter(|&t| t != s) {
            joint.clear();
            joint.resize(widths[s] * widths[t], 0u32);
            let pairs = members[s].sampled.iter().zip(&members[t].sampled);
            for (&ps, &pt) in pairs.filter(|(_, &pt)| pt != NO_VALUE) {
                joint[usize::from(ps) * widths[t] + usize::from(pt)] += 1;
            }
            // The bits of t's parts given s's: the entropy of each row of the joint counts.
            let given: f64 = joint.chunks(widths[t]).map(entropy).sum();
            let bits = (own[t] - given) * (rows as f64 / sampled as f64);
            saving[t][s] = (bits / 8.0) as i64 - (widths[s] * PART_COST) as i64;
        }
    }
    // Greedily add the source that most raises the total saving.
    let total = |sources: &[usize]| -> i64 {
        (0..n)
            .filter(|t| !sources.contains(t))
            .map(|t| {
                sources
                    .iter()
                    .map(|&s| saving[t][s])
                    .max()
                    .unwrap_or(0)
                    .max(0)
            })
            .sum()
    };
    let mut sources: Vec<usize> = Vec::new();
    let mut best_total = 0;
    loop {
        let best = (0..n)
            .filter(|&s| !sources.contains(&s) && members[s].presence.is_none())
            .map(|s| {
                let mut with = sources.clone();
                with.push(s);
                (total(&with), s)
            })
            .max();
        match best {
            Some((with, s)) if with > best_total => {
                best_total = with;
                sources.push(s);
            }
            _ => break,
        }
    }
    (0..n)
        .filter(|t| !sources.contains(t))
        .filter_map(|t| {
            let (gain, s) = (sources.iter()).map(|&s| (saving[t][s], s)).max()?;
            let target = &members[t];
            // Worth encoding only for a saving of a few percent of the branch.
            let branch = branches[target.sibling.branch].len() as i64;
            (gain > 0 && gain * 32 > branch).then(|| {
                let source = &members[s];
                let parts = target.source_parts(source, columns);
                (target.sibling.branch, source.sibling.branch, parts)
            })
        })
        .collect()
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
