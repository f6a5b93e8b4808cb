//! [`Value`] through serde: written as JSON would hold it, and read from any self-describing
//! format. Objects keep their key order both ways, whatever the format's own map type does.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};

use super::Value;

impl Serialize for Value {
    /// As JSON would hold it (the JSON view of `docs/FORMAT.md`). Lossy where JSON has no
    /// equivalent: integers beyond 64 bits become strings of their digits, non-finite floats
    /// become `null` (in JSON), enum values become `{"variant": content}` (or the bare name for
    /// unit variants, as serde writes them), and maps become objects when every key is a string,
    /// else arrays of `[key, value]` pairs. Bytes become `{"$bytes": "<base64>"}` in
    /// human-readable formats (standard base64 with padding, RFC 4648), so that they stay apart
    /// from arrays of small integers; binary formats get them as bytes.
    ///
    /// ```
    /// use tree_buf::Value;
    ///
    /// let json = serde_json::to_string(&Value::Bytes(vec![0xde, 0xad, 0xbe, 0xef]))?;
    /// assert_eq!(json, r#"{"$bytes":"3q2+7w=="}"#);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // A `Value` may nest deeper than any file, and serializers recurse once per level.
        crate::stack::deeper(|| match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Unsigned(u) => match u64::try_from(*u) {
                Ok(u) => serializer.serialize_u64(u),
                Err(_) => serializer.collect_str(u),
            },
            Value::Signed(i) => match i64::try_from(*i) {
                Ok(i) => serializer.serialize_i64(i),
                Err(_) => serializer.collect_str(i),
            },
            Value::Float(f) => serializer.serialize_f64(*f),
            Value::String(s) => serializer.serialize_str(s),
            Value::Bytes(bytes) if serializer.is_human_readable() => {
                serializer.collect_map([(BYTES_KEY, base64(bytes))])
            }
            Value::Bytes(bytes) => serializer.serialize_bytes(bytes),
            Value::Array(items) => serializer.collect_seq(items),
            Value::Object(fields) => {
                serializer.collect_map(fields.iter().map(|(name, value)| (name, value)))
            }
            Value::Variant(name, content) => match **content {
                Value::Null => serializer.serialize_str(name),
                ref content => serializer.collect_map([(name, content)]),
            },
            Value::Map(entries) => {
                if entries.iter().all(|(k, _)| matches!(k, Value::String(_))) {
                    serializer.collect_map(entries.iter().map(|(k, v)| (k, v)))
                } else {
                    serializer.collect_seq(entries.iter().map(|(k, v)| [k, v]))
                }
            }
        })
    }
}

/// The one key of the object that stands for bytes in human-readable formats.
const BYTES_KEY: &str = "$bytes";

/// `bytes` in standard base64 with padding (RFC 4648, section 4).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let group = chunk.iter().enumerate().fold(0u32, |group, (i, &byte)| {
            group | u32::from(byte) << (16 - 8 * i)
        });
        // A chunk of n bytes gives n + 1 characters; `=` pads the group to four.
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                char::from(ALPHABET[(group >> (18 - 6 * i) & 0x3f) as usize])
            } else {
                '='
            });
        }
    }
    out
}

impl<'de> Deserialize<'de> for Value {
    /// Any value of a self-describing format (one whose deserializer supports
    /// `deserialize_any`), read as [`ValueWriter`](crate::ValueWriter) reads it: integers become
    /// `Unsigned` or `Signed`, other numbers `Float`, maps whose keys are all strings become
    /// objects with their keys in input order (a repeated key included; encoding keeps its first
    /// value), other maps become [`Value::Map`]s.
    ///
    /// ```
    /// use tree_buf::Value;
    ///
    /// let value: Value = serde_json::from_str(r#"{"z": 1, "a": [true, null]}"#)?;
    /// assert_eq!(
    ///     value,
    ///     Value::Object(vec![
    ///         ("z".into(), Value::Unsigned(1)),
    ///         ("a".into(), Value::Array(vec![Value::Bool(true), Value::Null])),
    ///     ])
    /// );
    /// assert_eq!(serde_json::to_string(&value)?, r#"{"z":1,"a":[true,null]}"#);
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        // Deserializers recurse once per level of the input, without a limit of their own.
        crate::stack::deeper(|| deserializer.deserialize_any(ValueVisitor))
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Value::deserialize(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Value, D::Error> {
        Value::deserialize(deserializer)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::integer(v.into()))
    }

    fn visit_i128<E>(self, v: i128) -> Result<Value, E> {
        Ok(Value::integer(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Unsigned(v.into()))
    }

    fn visit_u128<E>(self, v: u128) -> Result<Value, E> {
        Ok(Value::Unsigned(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_bytes<E>(self, v: &[u8]) -> Result<Value, E> {
        Ok(Value::Bytes(v.to_vec()))
    }

    fn visit_byte_buf<E>(self, v: Vec<u8>) -> Result<Value, E> {
        Ok(Value::Bytes(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields: Vec<(String, Value)> = Vec::new();
        while let Some(key) = map.next_key()? {
            let Value::String(name) = key else {
                // A key of another kind: the whole map is a `Value::Map`.
                let mut entries: Vec<(Value, Value)> = (fields.into_iter())
                    .map(|(name, value)| (Value::String(name), value))
                    .collect();
                entries.push((key, map.next_value()?));
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                return Ok(Value::Map(entries));
            };
            fields.push((name, map.next_value()?));
        }
        Ok(Value::Object(fields))
    }
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_matches_the_rfc_4648_test_vectors() {
        for (text, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(text.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }
}
