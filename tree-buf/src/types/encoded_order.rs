//! The order in which hash maps and hash sets write their keys: [`Encode::encoded_cmp`], so that
//! equal contents give equal bytes whatever the iteration order, for any key type that encodes
//! (no `Ord` needed). Integers and strings go in their natural order, which suits the column codecs
//! (delta, runs, dictionaries) best; std containers and derived types compare part by part; any
//! other type by its encoded form.

use std::cmp::Ordering;

use super::{Encode, ValueEncoder};
use crate::branch::{Column, SchemaWriter};

/// A key encoded alone: its columns, then its schema (keys of one type can have different
/// schemas, as a `None` writes no inner node).
struct EncodedKey(Option<(Vec<Column>, Vec<u8>)>);

impl EncodedKey {
    fn new<K: Encode + ?Sized>(key: &K) -> Self {
        let mut encoder = K::Encoder::new(0);
        encoder.push(key);
        let mut writer = SchemaWriter::new();
        // A key too deep to encode alone fails the whole encoding later; its place is moot.
        EncodedKey(encoder.finish(&mut writer).ok().map(|()| {
            let written = writer.into_parts();
            (
                (written.columns.into_iter())
                    .map(|(column, _)| column)
                    .collect(),
                written.schema,
            )
        }))
    }
}

impl Ord for EncodedKey {
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.0, &other.0) {
            (Some((a, a_schema)), Some((b, b_schema))) => a
                .iter()
                .zip(b)
                .map(|(a, b)| a.total_cmp(b))
                .find(|order| order.is_ne())
                .unwrap_or_else(|| a.len().cmp(&b.len()))
                .then_with(|| a_schema.cmp(b_schema)),
            (a, b) => a.is_some().cmp(&b.is_some()),
        }
    }
}

impl PartialOrd for EncodedKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for EncodedKey {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for EncodedKey {}

/// Compares two values by their encoded forms: the order of any type, if a slow one.
pub(crate) fn by_encoding<K: Encode + ?Sized>(a: &K, b: &K) -> Ordering {
    EncodedKey::new(a).cmp(&EncodedKey::new(b))
}

/// Sorts `entries` by their keys, in [`Encode::encoded_cmp`] order.
pub(crate) fn sort_by_encoded_key<K: Encode + ?Sized, T>(entries: &mut [(&K, T)]) {
    entries.sort_unstable_by(|a, b| a.0.encoded_cmp(b.0));
}

/// Compares two sequences item by item in [`Encode::encoded_cmp`] order, then by length.
pub(crate) fn cmp_items<'a, T: Encode + 'a>(
    a: impl IntoIterator<Item = &'a T>,
    b: impl IntoIterator<Item = &'a T>,
) -> Ordering {
    let (mut a, mut b) = (a.into_iter(), b.into_iter());
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) => match x.encoded_cmp(y) {
                Ordering::Equal => {}
                order => return order,
            },
            (x, y) => return x.is_some().cmp(&y.is_some()),
        }
    }
}

/// Compares two maps entry by entry (key, then value) in [`Encode::encoded_cmp`] order.
pub(crate) fn cmp_entries<'a, K: Encode + 'a, V: Encode + 'a>(
    a: impl IntoIterator<Item = (&'a K, &'a V)>,
    b: impl IntoIterator<Item = (&'a K, &'a V)>,
) -> Ordering {
    let (mut a, mut b) = (a.into_iter(), b.into_iter());
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) => match x.0.encoded_cmp(y.0).then_with(|| x.1.encoded_cmp(y.1)) {
                Ordering::Equal => {}
                order => return order,
            },
            (x, y) => return x.is_some().cmp(&y.is_some()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;

    #[test]
    fn the_encoded_form_orders_any_type() {
        // `Value` keeps the default order: by encoded form.
        let (one, two) = (Value::Unsigned(1), Value::Unsigned(2));
        assert_eq!(one.encoded_cmp(&two), Ordering::Less);
        assert_eq!(two.encoded_cmp(&one), Ordering::Greater);
        assert_eq!(one.encoded_cmp(&one.clone()), Ordering::Equal);
        let text = Value::String("a".into());
        assert_ne!(one.encoded_cmp(&text), Ordering::Equal);
        assert_eq!(one.encoded_cmp(&text), text.encoded_cmp(&one).reverse());
        // For integers and strings it agrees with their natural order.
        assert_eq!(by_encoding(&5u32, &7u32), Ordering::Less);
        assert_eq!(by_encoding("b", "a"), Ordering::Greater);
        assert_eq!(by_encoding(&Some(1u8), &None), Ordering::Greater);
    }
}
