//! Conversions between [`Value`] and `serde_json::Value`.

use serde_json::{Map, Number};

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
    /// Lossy where JSON has no equivalent: integers beyond 64 bits become strings of their digits,
    /// non-finite floats become `null`, bytes become arrays of numbers, enum values become
    /// `{"variant": content}` (or the bare name for unit variants, as serde writes them), and maps
    /// become objects when every key is a string, else arrays of `[key, value]` pairs.
    fn from(value: Value) -> serde_json::Value {
        match value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Unsigned(u) => match u64::try_from(u) {
                Ok(u) => serde_json::Value::Number(u.into()),
                Err(_) => serde_json::Value::String(u.to_string()),
            },
            Value::Signed(i) => match i64::try_from(i) {
                Ok(i) => serde_json::Value::Number(i.into()),
                Err(_) => serde_json::Value::String(i.to_string()),
            },
            Value::Float(f) => {
                Number::from_f64(f).map_or(serde_json::Value::Null, serde_json::Value::Number)
            }
            Value::String(s) => serde_json::Value::String(s),
            Value::Bytes(bytes) => serde_json::Value::Array(
                bytes
                    .into_iter()
                    .map(|b| serde_json::Value::Number(b.into()))
                    .collect(),
            ),
            Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(serde_json::Value::from).collect())
            }
            Value::Object(fields) => {
                serde_json::Value::Object(fields.into_iter().map(|(k, v)| (k, v.into())).collect())
            }
            Value::Variant(name, content) => match *content {
                Value::Null => serde_json::Value::String(name),
                content => serde_json::Value::Object(Map::from_iter([(name, content.into())])),
            },
            Value::Map(entries) => {
                if entries.iter().all(|(k, _)| matches!(k, Value::String(_))) {
                    serde_json::Value::Object(
                        entries
                            .into_iter()
                            .map(|(k, v)| {
                                (
                                    if let Value::String(k) = k {
                                        k
                                    } else {
                                        String::new()
                                    },
                                    v.into(),
                                )
                            })
                            .collect(),
                    )
                } else {
                    serde_json::Value::Array(
                        entries
                            .into_iter()
                            .map(|(k, v)| serde_json::Value::Array(vec![k.into(), v.into()]))
                            .collect(),
                    )
                }
            }
        }
    }
}
