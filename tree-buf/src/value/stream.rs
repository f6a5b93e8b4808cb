//! Writing a value that a serde `Deserializer` reads (JSON text, say) straight into columns,
//! without building a [`Value`](super::Value) first.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::encode::{ArrayOf, Kind, KindName, Object, Slot};
use super::Value;
use crate::error::EncodeError;
use crate::options::EncodeOptions;

/// Encodes one value read by a self-describing serde `Deserializer`, such as
/// `serde_json::Deserializer::from_reader`, holding only its columns: never the whole value, so
/// input far larger than memory converts. The schema is inferred as for [`Value`](super::Value),
/// and the bytes are those `encode(&value)` gives for the same data as a `Value`. Values nested
/// more than 48 levels deep are the exception: each is read whole from there down (as a
/// [`Value`](super::Value)), since the columns that hold every depth below take each value after
/// those it holds.
///
/// ```
/// use tree_buf::{decode, EncodeOptions, Value, ValueWriter};
///
/// let text = r#"{"points": [[1.5, 2.0], [3.0, 4.25]], "name": "path"}"#;
/// let writer = ValueWriter::read(&mut serde_json::Deserializer::from_str(text))?;
/// let bytes = writer.finish(&EncodeOptions::default())?;
/// let value: Value = serde_json::from_str(text)?;
/// assert_eq!(bytes, tree_buf::encode(&value));
/// assert_eq!(decode::<Value>(&bytes)?, value);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct ValueWriter(Slot);

impl ValueWriter {
    /// Reads one value from `deserializer`, which must support `deserialize_any`.
    pub fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<ValueWriter, D::Error> {
        let mut root = Slot::new(0);
        Push::Into(&mut root).deserialize(deserializer)?;
        Ok(ValueWriter(root))
    }

    /// Encodes the value as a file.
    pub fn finish(self, options: &EncodeOptions) -> Result<Vec<u8>, EncodeError> {
        crate::file::write_with(options, |out| self.0.finish(out))
    }
}

/// Where a value goes, known only once the value's kind is.
enum Push<'a> {
    /// Into this slot.
    Into(&'a mut Slot),
    /// It is the first item of an array at this slot: its kind decides the array's kind, so
    /// the array begins when the item does.
    FirstItem(&'a mut Slot),
}

impl<'a> Push<'a> {
    /// The slot to push a value of kind `kind` into; `None` when the value is to be skipped,
    /// nested too deep.
    fn slot(self, kind: KindName) -> Option<&'a mut Slot> {
        match self {
            Push::Into(slot) => slot.within_depth(),
            Push::FirstItem(array) => match array.begin(KindName::array_of(Some(kind))) {
                Kind::Array { items, .. } => items.within_depth(),
                _ => None,
            },
        }
    }
}

impl<'de> DeserializeSeed<'de> for Push<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        // Deserializers recurse once per level of the input, without a limit of their own.
        crate::stack::deeper(|| match self {
            // The slot that places the values of every depth below it, each after those it
            // holds: the value is read whole, and goes in as a `Value` given whole does.
            Push::Into(slot) if slot.takes_whole() => {
                slot.push(&Value::deserialize(deserializer)?);
                Ok(())
            }
            Push::FirstItem(array) if array.items_take_whole() => {
                let item = Value::deserialize(deserializer)?;
                if let Kind::Array { items, .. } =
                    array.begin(KindName::array_of(Some(KindName::of(&item))))
                {
                    items.push(&item);
                }
                Ok(())
            }
            push => deserializer.deserialize_any(push),
        })
    }
}

impl<'de> Visitor<'de> for Push<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        if let Some(slot) = self.slot(KindName::Null) {
            slot.push_null();
        }
        Ok(())
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        if let Some(slot) = self.slot(KindName::Bool) {
            slot.push_bool(v);
        }
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.visit_i128(v.into())
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<(), E> {
        if let Some(slot) = self.slot(KindName::Integer) {
            slot.push_integer(v);
        }
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.visit_u128(v.into())
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<(), E> {
        let kind = if i128::try_from(v).is_ok() {
            KindName::Integer
        } else {
            KindName::Huge
        };
        if let Some(slot) = self.slot(kind) {
            slot.push_unsigned(v);
        }
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        if let Some(slot) = self.slot(KindName::Float) {
            slot.push_float(v);
        }
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        if let Some(slot) = self.slot(KindName::String) {
            slot.push_str(v);
        }
        Ok(())
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        if let Some(slot) = self.slot(KindName::Bytes) {
            slot.push_bytes(v);
        }
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let Some(slot) = self.slot(KindName::Array(ArrayOf::Nothing)) else {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        };
        if seq.next_element_seed(Push::FirstItem(slot))?.is_none() {
            if let Kind::Array { lengths, .. } = slot.begin(KindName::array_of(None)) {
                lengths.push(0);
            }
            return Ok(());
        }
        if let Some(Kind::Array { lengths, items, .. }) = slot.current() {
            let mut len = 1;
            while seq.next_element_seed(Push::Into(items))?.is_some() {
                len += 1;
            }
            lengths.push(len);
        }
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some(Kind::Object(object)) = self
            .slot(KindName::Object)
            .map(|slot| slot.begin(KindName::Object))
        else {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(());
        };
        while let Some(field) = map.next_key_seed(FieldName(object))? {
            match field {
                Some(field) => map.next_value_seed(Push::Into(object.slot(field)))?,
                None => map.next_value::<IgnoredAny>().map(drop)?,
            }
        }
        object.end();
        Ok(())
    }
}

/// Reads an object's key: the field it names, or `None` when the object repeats it.
struct FieldName<'a>(&'a mut Object);

impl<'de> DeserializeSeed<'de> for FieldName<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for FieldName<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        Ok(self.0.field(name))
    }
}
