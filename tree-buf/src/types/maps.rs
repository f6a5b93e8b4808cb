//! Maps: a length stream, all keys in one child and all values in the other. `HashMap` entries
//! are sorted by the encoded form of their keys so that equal maps encode to equal bytes.

use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hash};

use super::encoded_order::{by_encoding, cmp_entries, sort_by_encoded_key};
use super::{is_empty_void, Decode, Encode, Indirect, Lazy, ValueDecoder, ValueEncoder};
use crate::branch::{DecodeContext, EncodeResult, SchemaWriter};
use crate::error::DecodeError;
use crate::schema::{NodeRef, NodeType};

/// Collects map sizes, keys and values.
#[derive(Debug)]
pub struct MapEncoder<K: Encode, V: Encode> {
    lengths: Vec<u64>,
    keys: Lazy<K::Encoder>,
    values: Lazy<V::Encoder>,
}

impl<K: Encode, V: Encode> MapEncoder<K, V> {
    #[inline]
    fn push_entries<'a>(&mut self, entries: impl ExactSizeIterator<Item = (&'a K, &'a V)>)
    where
        K: 'a,
        V: 'a,
    {
        self.lengths.push(entries.len() as u64);
        for (key, value) in entries {
            self.keys.push(key);
            self.values.push(value);
        }
    }
}

macro_rules! map {
    ($([$($generics:tt)*] $t:ty, |$encoder:ident, $map:ident| $push:expr, $cmp:path, [$($decode_generics:tt)*]);* $(;)?) => {$(
        impl<$($generics)*> ValueEncoder<$t> for MapEncoder<K, V> {
            fn new(depth: usize) -> Self {
                MapEncoder { lengths: Vec::new(), keys: Lazy::new::<K>(depth + 1), values: Lazy::new::<V>(depth + 1) }
            }
            #[inline]
            fn push(&mut self, $map: &$t) {
                let $encoder = self;
                $push
            }
            fn reserve(&mut self, additional: usize) {
                self.lengths.reserve(additional);
            }
            fn bytes(&self) -> usize {
                size_of_val(self.lengths.as_slice()) + self.keys.bytes::<K>() + self.values.bytes::<V>()
            }
            fn finish(self, out: &mut SchemaWriter) -> EncodeResult {
                let (keys, values) = (self.keys, self.values);
                out.map(self.lengths, |out| keys.finish::<K>(out), |out| values.finish::<V>(out))
            }
        }

        impl<$($generics)*> Encode for $t {
            type Encoder = MapEncoder<K, V>;
            fn encoded_cmp(&self, other: &Self) -> std::cmp::Ordering {
                $cmp(self, other)
            }
        }

        // SAFETY: each map is built anew from the key and value decoders' values, which uphold the
        // contract.
        #[allow(unsafe_code)]
        unsafe impl<'de, $($decode_generics)*> ValueDecoder<'de, $t> for MapDecoder<'de, K, V> {
            fn new(node: NodeRef<'_>, count: usize, ctx: &mut DecodeContext<'de>) -> Result<Self, DecodeError> {
                MapDecoder::build(node, count, ctx)
            }
            #[inline]
            fn next(&mut self) -> $t {
                let len = self.lengths.next().unwrap_or(0) as usize;
                match self.entries.as_deref_mut() {
                    Some((keys, values)) if len > 0 => (0..len).map(|_| (keys.next(), values.next())).collect(),
                    _ => Default::default(),
                }
            }
        }

        impl<'de, $($decode_generics)*> Decode<'de> for $t {
            type Decoder = MapDecoder<'de, K, V>;
        }
    )*};
}

map! {
    [K: Encode, V: Encode] BTreeMap<K, V>, |e, map| e.push_entries(map.iter()), cmp_entries, [K: Decode<'de> + Ord, V: Decode<'de>];
    [K: Encode, V: Encode, S] HashMap<K, V, S>, |e, map| {
        let mut entries: Vec<(&K, &V)> = map.iter().collect();
        sort_by_encoded_key(&mut entries);
        e.push_entries(entries.into_iter());
    }, by_encoding, [K: Decode<'de> + Eq + Hash, V: Decode<'de>, S: BuildHasher + Default];
}

// In insertion order, which is part of what an `IndexMap` holds.
#[cfg(feature = "indexmap")]
map! {
    [K: Encode, V: Encode, S] indexmap::IndexMap<K, V, S>, |e, map| e.push_entries(map.iter()), cmp_entries,
        [K: Decode<'de> + Eq + Hash, V: Decode<'de>, S: BuildHasher + Default];
}

/// Hands back maps of any map type.
#[derive(Debug)]
pub struct MapDecoder<'de, K: Decode<'de>, V: Decode<'de>> {
    lengths: std::vec::IntoIter<u64>,
    entries: Option<Box<(Indirect<'de, K>, Indirect<'de, V>)>>,
}

impl<'de, K: Decode<'de>, V: Decode<'de>> MapDecoder<'de, K, V> {
    fn build(
        node: NodeRef<'_>,
        count: usize,
        ctx: &mut DecodeContext<'de>,
    ) -> Result<Self, DecodeError> {
        if is_empty_void(node, count)? {
            return Ok(MapDecoder {
                lengths: Vec::new().into_iter(),
                entries: None,
            });
        }
        if node.node_type() != NodeType::Map {
            return Err(node.mismatch("a map"));
        }
        let (lengths, total) = ctx.lengths(node, count)?;
        if total == 0 {
            return Ok(MapDecoder {
                lengths: lengths.into_iter(),
                entries: None,
            });
        }
        ctx.charge(node, total, size_of::<(K, V)>())?;
        let (keys, values) = crate::stack::deeper(|| {
            let keys = Indirect::new(node.child(0).unwrap_or_else(|| node.void()), total, ctx)?;
            let values = Indirect::new(node.child(1).unwrap_or_else(|| node.void()), total, ctx)?;
            Ok::<_, DecodeError>((keys, values))
        })?;
        Ok(MapDecoder {
            lengths: lengths.into_iter(),
            entries: Some(Box::new((keys, values))),
        })
    }
}
