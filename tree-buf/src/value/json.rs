//! Conversions between [`Value`] and `serde_json::Value`.

use serde::{Serialize, Serializer};

use super::Value;

impl From<serde_json::Value> for Value {
    /// Lossless: JSON integers become `Unsigned` or `Signed`, other numbers `Float`, and objects
    /// keep their key order.
    fn from(json: serde_json::Value) -> Value {
        match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    Value::Unsigned(u.into())
                } else if let Some(i) = n.as_i64() {
                    Value::integer(i.into())
                } else {
                    Value::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(items) => {
                Value::Array(items.into_iter().map(Value::from).collect())
            }
            serde_json::Value::Object(fields) => Value::Object(
                fields
                    .into_iter()
                    .map(|(k, v)| (k, Value::from(v)))
                    .collect(),
            ),
        }
    }
}

impl From<Value> for serde_json::Value {
    /// Lossy where JSON has no equivalent, as [`Value`]'s `Serialize` implementation describes.
    fn from(value: Value) -> serde_json::Value {
        // Cannot fail: every map this writes has string keys.
        serde_json::to_value(value).unwrap_or_default()
    }
}

impl Serialize for Value {
    /// As JSON would hold it. Lossy where JSON has no equivalent: integers beyond 64 bits become
    /// strings of their digits, non-finite floats become `null` (in JSON), bytes become arrays of
    /// numbers (in JSON), enum values become `{"variant": content}` (or the bare name for unit
    /// variants, as serde writes them), and maps become objects when every key is a string, else
    /// arrays of `[key, value]` pairs.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
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
        }
    }
}
