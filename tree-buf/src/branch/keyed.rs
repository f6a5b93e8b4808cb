//! Keyed string branches: a string column that is a function of another string column of the
//! same struct (a player's name given the player's id) is stored as a table from the other
//! column's distinct strings, plus exceptions, instead of a second copy of the same information.
//!
//! The codec is [`crate::encodings::string::encode_keyed`]; this chooses which columns use it.

use rayon::prelude::*;

use super::Column;
use crate::encodings::string::{self, StrColumn};
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
    let strings = |index: usize| match &columns[index].0 {
        Column::Str(column) => Some(column),
        _ => None,
    };
    let key_group = |group: &Vec<usize>| -> Vec<(usize, Vec<u8>)> {
        let mut sources: Vec<(usize, &StrColumn)> = Vec::new();
        let mut keyed = Vec::new();
        for &target in group {
            let Some(column) = strings(target) else {
                continue;
            };
            let own_size = branches[target].len();
            let candidates = sources
                .iter()
                .filter(|(_, source)| own_size >= MIN_BRANCH_BYTES && source.len() == column.len());
            let best = candidates
                .filter_map(|&(index, source)| {
                    string::encode_keyed(index, source, column, settings)
                })
                .filter(|stream| stream.len() < own_size)
                .min_by_key(Vec::len);
            match best {
                Some(stream) => keyed.push((target, stream)),
                None => sources.push((target, column)),
            }
        }
        keyed
    };
    let keyed: Vec<(usize, Vec<u8>)> = if parallel {
        string_siblings.par_iter().flat_map(key_group).collect()
    } else {
        string_siblings.iter().flat_map(key_group).collect()
    };
    for (index, stream) in keyed {
        branches[index] = stream;
    }
}
