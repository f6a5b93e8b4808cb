//! Keyed string branches: a string column that is a function of another string column of the
//! same struct (a player's name given the player's id) is stored as a table from the other
//! column's distinct strings, plus exceptions, instead of a second copy of the same information.
//!
//! The codec is [`crate::encodings::string::encode_keyed`]; this chooses which columns use it.

use super::Column;
use crate::encodings::string::{self, Ranks, StrColumn};
use crate::encodings::Settings;

/// Branches smaller than this are left as they are: a table and a source index would not pay.
const MIN_BRANCH_BYTES: usize = 64;

/// Replaces the branch of each string column in `string_siblings` by a keyed stream over an
/// earlier column of its group, where one of the same length makes it smaller. A keyed column is
/// never a source, so decoding one reads at most one other branch.
pub(crate) fn key_string_siblings(
    columns: &[(Column, Option<usize>)],
    string_siblings: &[Vec<usize>],
    branches: &mut [Vec<u8>],
    settings: &Settings,
    parallel: bool,
) {
    let key_group = |group: &Vec<usize>| -> Vec<(usize, Vec<u8>)> {
        let strings: Vec<(usize, &StrColumn)> = (group.iter())
            .filter_map(|&index| match &columns[index].0 {
                Column::Str(column) => Some((index, column)),
                _ => None,
            })
            .collect();
        // Only a column with a sibling of its length can key another or be keyed.
        let ranks: Vec<Option<Ranks>> = (strings.iter())
            .map(|(_, column)| {
                let peers = strings
                    .iter()
                    .filter(|(_, other)| other.len() == column.len());
                if peers.count() > 1 {
                    Ranks::keyable(column)
                } else {
                    None
                }
            })
            .collect();
        let mut sources: Vec<usize> = Vec::new();
        let mut keyed = Vec::new();
        for (at, &(target, column)) in strings.iter().enumerate() {
            let own_size = branches[target].len();
            let best = match &ranks[at] {
                Some(own) if own_size >= MIN_BRANCH_BYTES => (sources.iter())
                    .filter(|&&source| strings[source].1.len() == column.len())
                    .filter_map(|&source| {
                        let source_ranks = ranks[source].as_ref()?;
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
                    .min_by_key(Vec::len),
                _ => None,
            };
            match best {
                Some(stream) => keyed.push((target, stream)),
                None => sources.push(at),
            }
        }
        keyed
    };
    let keyed = crate::parallel::map(string_siblings.iter().collect(), parallel, key_group);
    for (index, stream) in keyed.into_iter().flatten() {
        branches[index] = stream;
    }
}
