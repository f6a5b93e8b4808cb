//! The other way: Arrow record batches as schemaless rows, which an
//! [`ArchiveWriter<Value>`](tree_buf::archive::ArchiveWriter) stores as tree-buf, inferring a
//! columnar schema as it does for JSON and CSV.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    ArrowDictionaryKeyType, Date32Type, Date64Type, Decimal128Type, DurationMicrosecondType,
    DurationMillisecondType, DurationNanosecondType, DurationSecondType, Float16Type, Float32Type,
    Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, Time32MillisecondType,
    Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType, UInt16Type, UInt32Type,
    UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, DictionaryArray, RecordBatch};
use arrow_schema::DataType;
use tree_buf::Value;

use crate::Error;

/// The rows of `batch` as values: an object per row, a field per column by name, with the
/// fields of null cells left out (tree-buf's presence streams hold them).
///
/// How Arrow's types become values:
///
/// | Arrow type | [`Value`] |
/// |---|---|
/// | `Boolean` | `Bool` |
/// | signed and unsigned integers | `Signed`, `Unsigned` |
/// | `Float16`, `Float32`, `Float64` | `Float` |
/// | `Utf8`, `LargeUtf8`, `Utf8View` | `String` |
/// | `Binary`, `LargeBinary`, `BinaryView`, `FixedSizeBinary` | `Bytes` |
/// | `Decimal128` of scale 0 | `Signed` |
/// | other `Decimal128` | `String`, the exact decimal (`"12.50"`) |
/// | dates, times, timestamps, durations | `Signed`: the count of the type's unit (days for `Date32`, milliseconds for `Date64`) since the epoch or midnight |
/// | `List`, `LargeList`, `FixedSizeList` | `Array` |
/// | `Struct` | `Object` (null fields left out) |
/// | `Map` | `Map` |
/// | `Dictionary` | the value its key points to |
/// | `Union` | `Variant` of the member's name and its value |
/// | `Null` | left out |
///
/// Other types (intervals, `Decimal256`, views of lists) are an [`Error::Unsupported`] naming
/// the column.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{Int32Array, RecordBatch, StringArray};
/// use tree_buf::Value;
///
/// let batch = RecordBatch::try_from_iter([
///     ("team", Arc::new(StringArray::from(vec![Some("BOS"), None])) as _),
///     ("runs", Arc::new(Int32Array::from(vec![3, 7])) as _),
/// ])?;
/// let rows = tree_buf_arrow::batch_rows(&batch)?;
/// assert_eq!(rows[0], Value::Object(vec![
///     ("team".into(), Value::String("BOS".into())),
///     ("runs".into(), Value::Signed(3)),
/// ]));
/// assert_eq!(rows[1], Value::Object(vec![("runs".into(), Value::Signed(7))]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn batch_rows(batch: &RecordBatch) -> Result<Vec<Value>, Error> {
    let schema = batch.schema();
    let columns: Vec<(&str, &ArrayRef)> = (schema.fields().iter())
        .map(|field| field.name().as_str())
        .zip(batch.columns())
        .collect();
    for (name, column) in &columns {
        check(name, column.data_type())?;
    }
    Ok((0..batch.num_rows())
        .map(|row| {
            let fields = (columns.iter())
                .filter_map(|(name, column)| Some(((*name).to_owned(), cell(column, row)?)))
                .collect();
            Value::Object(fields)
        })
        .collect())
}

/// Fails unless every value of type `data_type` has a [`Value`], so that [`cell`] needs no
/// errors.
fn check(path: &str, data_type: &DataType) -> Result<(), Error> {
    let unsupported = || Error::Unsupported {
        path: path.to_owned(),
        message: format!("Arrow's {data_type} has no tree-buf value"),
    };
    match data_type {
        DataType::Null
        | DataType::Boolean
        | DataType::Int8
        | DataType::Int16
        | DataType::Int32
        | DataType::Int64
        | DataType::UInt8
        | DataType::UInt16
        | DataType::UInt32
        | DataType::UInt64
        | DataType::Float16
        | DataType::Float32
        | DataType::Float64
        | DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_)
        | DataType::Decimal128(..)
        | DataType::Date32
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Timestamp(..)
        | DataType::Duration(_) => Ok(()),
        DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
            check(&format!("{path}.[]"), item.data_type())
        }
        DataType::Struct(fields) => (fields.iter())
            .try_for_each(|field| check(&format!("{path}.{}", field.name()), field.data_type())),
        DataType::Map(entries, _) => check(path, entries.data_type()),
        DataType::Union(members, _) => (members.iter()).try_for_each(|(_, field)| {
            check(&format!("{path}.{}", field.name()), field.data_type())
        }),
        DataType::Dictionary(key, values) if key.is_dictionary_key_type() => check(path, values),
        _ => Err(unsupported()),
    }
}

/// The value at `row` of `array`, `None` if null; `array`'s type passed [`check`].
fn cell(array: &ArrayRef, row: usize) -> Option<Value> {
    if array.is_null(row) || *array.data_type() == DataType::Null {
        return None;
    }
    Some(match array.data_type() {
        DataType::Boolean => Value::Bool(array.as_boolean().value(row)),
        DataType::Int8 => Value::Signed(array.as_primitive::<Int8Type>().value(row).into()),
        DataType::Int16 => Value::Signed(array.as_primitive::<Int16Type>().value(row).into()),
        DataType::Int32 => Value::Signed(array.as_primitive::<Int32Type>().value(row).into()),
        DataType::Int64 => Value::Signed(array.as_primitive::<Int64Type>().value(row).into()),
        DataType::UInt8 => Value::Unsigned(array.as_primitive::<UInt8Type>().value(row).into()),
        DataType::UInt16 => Value::Unsigned(array.as_primitive::<UInt16Type>().value(row).into()),
        DataType::UInt32 => Value::Unsigned(array.as_primitive::<UInt32Type>().value(row).into()),
        DataType::UInt64 => Value::Unsigned(array.as_primitive::<UInt64Type>().value(row).into()),
        DataType::Float16 => Value::Float(array.as_primitive::<Float16Type>().value(row).into()),
        DataType::Float32 => Value::Float(array.as_primitive::<Float32Type>().value(row).into()),
        DataType::Float64 => Value::Float(array.as_primitive::<Float64Type>().value(row)),
        DataType::Utf8 => Value::String(array.as_string::<i32>().value(row).to_owned()),
        DataType::LargeUtf8 => Value::String(array.as_string::<i64>().value(row).to_owned()),
        DataType::Utf8View => Value::String(array.as_string_view().value(row).to_owned()),
        DataType::Binary => Value::Bytes(array.as_binary::<i32>().value(row).to_vec()),
        DataType::LargeBinary => Value::Bytes(array.as_binary::<i64>().value(row).to_vec()),
        DataType::BinaryView => Value::Bytes(array.as_binary_view().value(row).to_vec()),
        DataType::FixedSizeBinary(_) => {
            Value::Bytes(array.as_fixed_size_binary().value(row).to_vec())
        }
        DataType::Decimal128(_, 0) => {
            Value::Signed(array.as_primitive::<Decimal128Type>().value(row))
        }
        DataType::Decimal128(..) => {
            Value::String(array.as_primitive::<Decimal128Type>().value_as_string(row))
        }
        DataType::Date32
        | DataType::Date64
        | DataType::Time32(_)
        | DataType::Time64(_)
        | DataType::Timestamp(..)
        | DataType::Duration(_) => Value::Signed(temporal_count(array, row)),
        DataType::List(_) => items(array.as_list::<i32>().value(row)),
        DataType::LargeList(_) => items(array.as_list::<i64>().value(row)),
        DataType::FixedSizeList(..) => items(array.as_fixed_size_list().value(row)),
        DataType::Struct(fields) => {
            let array = array.as_struct();
            let fields = (fields.iter())
                .zip(array.columns())
                .filter_map(|(field, column)| Some((field.name().clone(), cell(column, row)?)))
                .collect();
            Value::Object(fields)
        }
        DataType::Map(..) => {
            let entries = array.as_map().value(row);
            let pairs = (0..entries.len())
                .filter_map(|entry| {
                    let key = cell(entries.column(0), entry)?;
                    Some((key, cell(entries.column(1), entry).unwrap_or(Value::Null)))
                })
                .collect();
            Value::Map(pairs)
        }
        DataType::Union(members, _) => {
            let union = array.as_union();
            let type_id = union.type_id(row);
            let name = (members.iter())
                .find(|(id, _)| *id == type_id)
                .map(|(_, field)| field.name().clone())
                .unwrap_or_default();
            let value = cell(union.child(type_id), union.value_offset(row));
            Value::Variant(name, Box::new(value.unwrap_or(Value::Null)))
        }
        DataType::Dictionary(key, _) => dictionary_cell(array.as_ref(), key, row)?,
        other => unreachable!("{other} passed the check"),
    })
}

/// A date, time, timestamp or duration as the count of its unit.
fn temporal_count(array: &ArrayRef, row: usize) -> i128 {
    macro_rules! count {
        ($($arrow_type:ident),*) => {
            $(
                if let Some(values) = array.as_primitive_opt::<$arrow_type>() {
                    return values.value(row).into();
                }
            )*
        };
    }
    count!(
        Date32Type,
        Date64Type,
        Time32SecondType,
        Time32MillisecondType,
        Time64MicrosecondType,
        Time64NanosecondType,
        TimestampSecondType,
        TimestampMillisecondType,
        TimestampMicrosecondType,
        TimestampNanosecondType,
        DurationSecondType,
        DurationMillisecondType,
        DurationMicrosecondType,
        DurationNanosecondType
    );
    unreachable!("{} is not a date, time or duration", array.data_type())
}

/// The value a dictionary array's key at `row` points to.
fn dictionary_cell(array: &dyn Array, key: &DataType, row: usize) -> Option<Value> {
    fn lookup<K: ArrowDictionaryKeyType>(array: &dyn Array, row: usize) -> Option<Value> {
        let dictionary: &DictionaryArray<K> = array.as_dictionary();
        let index = dictionary.key(row)?;
        cell(dictionary.values(), index)
    }
    match key {
        DataType::Int8 => lookup::<Int8Type>(array, row),
        DataType::Int16 => lookup::<Int16Type>(array, row),
        DataType::Int32 => lookup::<Int32Type>(array, row),
        DataType::Int64 => lookup::<Int64Type>(array, row),
        DataType::UInt8 => lookup::<UInt8Type>(array, row),
        DataType::UInt16 => lookup::<UInt16Type>(array, row),
        DataType::UInt32 => lookup::<UInt32Type>(array, row),
        _ => lookup::<UInt64Type>(array, row),
    }
}

/// The items of a list cell.
fn items(list: ArrayRef) -> Value {
    Value::Array(
        (0..list.len())
            .map(|index| cell(&list, index).unwrap_or(Value::Null))
            .collect(),
    )
}
