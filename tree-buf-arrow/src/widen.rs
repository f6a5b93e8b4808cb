//! One Arrow schema for rows whose chunks were written in different schemas.
//!
//! An archive of schemaless rows (JSON lines, CSV) starts a new schema where its rows gain a
//! field or widen a type: a column of integers that later holds floats, a field that appears in
//! row 2 million. Each chunk's record batch has its own chunk's types, so a consumer that needs
//! one schema for every batch (a Parquet writer, a SQL table) takes the widest of them
//! ([`archive_schema`], [`widest_schema`]) and brings each batch to it ([`conform`]).
//!
//! How two types widen into one:
//!
//! | one | other | widest |
//! |---|---|---|
//! | `Null` (no value written) | any | the other, nullable |
//! | unsigned integers | unsigned integers | the wider |
//! | signed integers | signed or unsigned integers | the narrowest signed type holding both; `Int64` with `UInt64` is `Decimal128(20, 0)`, which holds both exactly |
//! | `Decimal128(38, 0)` (`i128`) | any integer but `u128` | `Decimal128(38, 0)` |
//! | integers | floats | `Float64` (`Float32` with 8- and 16-bit integers) |
//! | numbers or `Boolean` | strings | strings, the numbers written as text |
//! | `List`, `FixedSizeList` | the same | the items widened; lists of two lengths are `List` |
//! | `Struct` | `Struct` | every field of either, by name, each widened; one that only one side has is nullable |
//! | `Map` | `Map` | keys and values widened |
//! | `Dictionary` of strings | the same | the wider key |
//! | `Union` | any | one type if every member and the other widen into one (a union of integers and floats is `Float64`); else a union of the members by name |
//!
//! Anything else (a struct and a string, say) does not widen: an error naming the column and
//! both types.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::UInt8Type;
use arrow_array::{
    new_empty_array, new_null_array, Array, ArrayRef, BinaryArray, FixedSizeListArray,
    GenericListArray, MapArray, OffsetSizeTrait, RecordBatch, RecordBatchOptions, StructArray,
    UnionArray,
};
use arrow_buffer::ScalarBuffer;
use arrow_cast::{cast_with_options, CastOptions};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields, Schema, SchemaRef, UnionFields};
use arrow_select::interleave::interleave;
use tree_buf::archive::Archive;
use tree_buf::AsPath;

use crate::{schema_with, ArrowOptions, Error};

/// The schema of the record batches of every chunk of `archive` ([`record_batches`]'s, with
/// `options`' layouts), widened so that each chunk's batch [`conform`]s to it. Each of the
/// archive's schemas is read once, however many chunks share it.
///
/// [`record_batches`]: crate::record_batches
///
/// ```
/// use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
/// use tree_buf::Value;
///
/// // Scores are integers in the first chunk and floats in the second.
/// let options = ArchiveOptions::default().chunk_rows(2);
/// let mut writer = ArchiveWriter::<Value, _>::with_options(Vec::new(), options)?;
/// for score in [Value::Unsigned(3), Value::Unsigned(4), Value::Float(2.5), Value::Float(1.5)] {
///     writer.push(&Value::Object(vec![("score".into(), score)]))?;
/// }
/// let bytes = writer.finish()?;
/// let archive = Archive::from_bytes(&bytes)?;
/// let options = tree_buf_arrow::ArrowOptions::default();
/// let schema = tree_buf_arrow::archive_schema(&archive, "", &options)?;
/// assert_eq!(schema.field(0).data_type(), &arrow_schema::DataType::Float64);
/// for batch in tree_buf_arrow::record_batches(&archive, None) {
///     let batch = tree_buf_arrow::conform(&batch?, &schema)?;
///     assert_eq!(batch.schema(), schema);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn archive_schema(
    archive: &Archive<'_>,
    rows_path: impl AsPath + Clone,
    options: &ArrowOptions,
) -> Result<SchemaRef, Error> {
    let mut schemas = Vec::new();
    let mut seen = Vec::new();
    for index in 0..archive.chunks().len() {
        let schema = archive.chunk_schema(index);
        if seen.contains(&schema) {
            continue;
        }
        seen.push(schema);
        let reader = archive.chunk_reader(index)?;
        schemas.push(schema_with(&reader, rows_path.clone(), options)?);
    }
    widest_schema(&schemas)
}

/// The widest of `schemas`: every column of any of them, in the order they first appear, each
/// of the widest type (see the [module docs](self)), nullable where any schema lacks it.
pub fn widest_schema(schemas: &[SchemaRef]) -> Result<SchemaRef, Error> {
    let mut widest: Vec<Field> = Vec::new();
    for schema in schemas {
        for field in schema.fields() {
            match widest.iter_mut().find(|known| known.name() == field.name()) {
                Some(known) => *known = wider_field(known, field, field.name())?,
                None => widest.push(Field::clone(field)),
            }
        }
    }
    let fields = widest.into_iter().map(|field| {
        let everywhere =
            (schemas.iter()).all(|schema| schema.field_with_name(field.name()).is_ok());
        let nullable = field.is_nullable() || !everywhere;
        field.with_nullable(nullable)
    });
    Ok(Arc::new(Schema::new(fields.collect::<Vec<_>>())))
}

/// `batch` as a batch of `schema`: each of its columns of `schema`'s type (numbers widened,
/// unions of numbers merged, structs given the fields they lack), and all nulls where `batch`
/// has no such column. The rows are unchanged; an integer too large for the type it widens to
/// is an error, never a null.
pub fn conform(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, Error> {
    if batch.schema() == *schema {
        return Ok(batch.clone());
    }
    let rows = batch.num_rows();
    let columns = (schema.fields().iter())
        .map(|field| match batch.column_by_name(field.name()) {
            Some(array) => conform_array(array, field.data_type(), field.name()),
            None => Ok(new_null_array(field.data_type(), rows)),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        Arc::clone(schema),
        columns,
        &options,
    )?)
}

/// The error for a column whose types do not widen into one.
fn no_wider(path: &str, one: &DataType, other: &DataType) -> Error {
    Error::Unsupported {
        path: path.to_owned(),
        message: format!(
            "the column is {one} in some rows and {other} in others, which no one Arrow type holds"
        ),
    }
}

fn wider_field(one: &Field, other: &Field, path: &str) -> Result<Field, Error> {
    let data_type = wider(one.data_type(), other.data_type(), path)?;
    let nullable = one.is_nullable()
        || other.is_nullable()
        || one.data_type() == &DataType::Null
        || other.data_type() == &DataType::Null;
    Ok(Field::new(one.name(), data_type, nullable).with_metadata(one.metadata().clone()))
}

/// The bits of an integer type, and whether it is signed.
fn integer(data_type: &DataType) -> Option<(u8, bool)> {
    use DataType::*;
    Some(match data_type {
        UInt8 => (8, false),
        UInt16 => (16, false),
        UInt32 => (32, false),
        UInt64 => (64, false),
        Int8 => (8, true),
        Int16 => (16, true),
        Int32 => (32, true),
        Int64 => (64, true),
        _ => return None,
    })
}

fn is_string(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, values) => is_string(values),
        _ => false,
    }
}

fn is_scalar(data_type: &DataType) -> bool {
    data_type.is_numeric() || data_type == &DataType::Boolean
}

/// The type that holds every value of `one` and of `other`, as the module docs list.
fn wider(one: &DataType, other: &DataType, path: &str) -> Result<DataType, Error> {
    use DataType::*;
    if one == other {
        return Ok(one.clone());
    }
    let fail = || no_wider(path, one, other);
    Ok(match (one, other) {
        (Null, known) | (known, Null) => known.clone(),
        (Union(members, mode), other) | (other, Union(members, mode)) => {
            wider_union(members, *mode, other, path)?
        }
        (Dictionary(one_key, one_values), Dictionary(other_key, other_values))
            if is_string(one_values) && is_string(other_values) =>
        {
            let key = wider(one_key, other_key, path)?;
            Dictionary(Box::new(key), one_values.clone())
        }
        (text, other) | (other, text)
            if is_string(text) && (is_string(other) || is_scalar(other)) =>
        {
            text.clone()
        }
        (Decimal128(38, 0), number) | (number, Decimal128(38, 0))
            if integer(number).is_some() || number == &Decimal128(20, 0) =>
        {
            Decimal128(38, 0)
        }
        (Decimal128(20, 0), number) | (number, Decimal128(20, 0)) if integer(number).is_some() => {
            Decimal128(20, 0)
        }
        _ if integer(one).is_some() && integer(other).is_some() => {
            let ((one_bits, one_signed), (other_bits, other_signed)) = (
                integer(one).unwrap_or_default(),
                integer(other).unwrap_or_default(),
            );
            // A signed type holds an unsigned one of half its bits.
            let bits = |(bits, signed): (u8, bool), to_signed: bool| {
                if to_signed && !signed {
                    bits * 2
                } else {
                    bits
                }
            };
            let signed = one_signed || other_signed;
            match bits((one_bits, one_signed), signed).max(bits((other_bits, other_signed), signed))
            {
                8 if signed => Int8,
                16 if signed => Int16,
                32 if signed => Int32,
                64 if signed => Int64,
                8 => UInt8,
                16 => UInt16,
                32 => UInt32,
                64 => UInt64,
                _ => Decimal128(20, 0),
            }
        }
        (Float32, Float64) | (Float64, Float32) => Float64,
        (float @ (Float32 | Float64), number) | (number, float @ (Float32 | Float64))
            if integer(number).is_some() =>
        {
            match (float, integer(number)) {
                (Float32, Some((bits, _))) if bits <= 16 => Float32,
                _ => Float64,
            }
        }
        (List(one_item), List(other_item))
        | (List(one_item), FixedSizeList(other_item, _))
        | (FixedSizeList(one_item, _), List(other_item)) => {
            List(Arc::new(wider_field(one_item, other_item, path)?))
        }
        (FixedSizeList(one_item, one_len), FixedSizeList(other_item, other_len)) => {
            let item = Arc::new(wider_field(one_item, other_item, path)?);
            if one_len == other_len {
                FixedSizeList(item, *one_len)
            } else {
                List(item)
            }
        }
        (Struct(one_fields), Struct(other_fields)) => {
            Struct(wider_fields(one_fields, other_fields, path)?)
        }
        (Map(one_entries, sorted), Map(other_entries, _)) => Map(
            Arc::new(wider_field(one_entries, other_entries, path)?),
            *sorted,
        ),
        _ => return Err(fail()),
    })
}

/// Every field of either, by name, in the order they first appear; one that only one side has
/// is nullable.
fn wider_fields(one: &Fields, other: &Fields, path: &str) -> Result<Fields, Error> {
    let mut fields: Vec<Field> = Vec::new();
    for field in one.iter().chain(other.iter()) {
        let inner = format!("{path}['{}']", field.name());
        match fields.iter_mut().find(|known| known.name() == field.name()) {
            Some(known) => *known = wider_field(known, field, &inner)?,
            None => fields.push(Field::clone(field)),
        }
    }
    let in_both = |name: &str| one.find(name).is_some() && other.find(name).is_some();
    Ok(fields
        .into_iter()
        .map(|field| {
            let nullable = field.is_nullable() || !in_both(field.name());
            field.with_nullable(nullable)
        })
        .collect())
}

/// The wider of a union and another type: the one type that every member and `other` widen
/// into, if there is one; else a union of the union's members with `other`'s merged in: another
/// union's members by name, a type of its own into the first member it fits (a new member,
/// named after the type, if none).
fn wider_union(
    members: &UnionFields,
    mode: arrow_schema::UnionMode,
    other: &DataType,
    path: &str,
) -> Result<DataType, Error> {
    let others: Vec<FieldRef> = match other {
        DataType::Union(other_members, _) => other_members
            .iter()
            .map(|(_, field)| Arc::clone(field))
            .collect(),
        other => vec![Arc::new(Field::new(other.to_string(), other.clone(), true))],
    };
    let mut types = (members.iter().map(|(_, field)| field.data_type()))
        .chain(others.iter().map(|field| field.data_type()));
    let first = types.next().cloned().unwrap_or(DataType::Null);
    let folded = types.try_fold(first, |widest, next| {
        (wider(&widest, next, path).ok()).filter(|widest| !matches!(widest, DataType::Union(..)))
    });
    if let Some(one) = folded {
        return Ok(one);
    }
    let mut fields: Vec<Field> = members
        .iter()
        .map(|(_, field)| Field::clone(field))
        .collect();
    let single = !matches!(other, DataType::Union(..));
    for field in &others {
        let inner = format!("{path}.{}", field.name());
        // Another union's member goes by its name; a type of its own, into a member it fits.
        let at = if single {
            (fields.iter()).position(|known| {
                wider(known.data_type(), field.data_type(), &inner)
                    .is_ok_and(|widest| &widest == known.data_type())
            })
        } else {
            fields.iter().position(|known| known.name() == field.name())
        };
        match at {
            Some(at) => fields[at] = wider_field(&fields[at], field, &inner)?,
            None => fields.push(Field::clone(field)),
        }
    }
    let ids = (0..fields.len())
        .map(|id| {
            i8::try_from(id)
                .map_err(|_| no_wider(path, &DataType::Union(members.clone(), mode), other))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DataType::Union(UnionFields::try_new(ids, fields)?, mode))
}

/// `array` as an array of `to`, a type it widens into.
fn conform_array(array: &ArrayRef, to: &DataType, path: &str) -> Result<ArrayRef, Error> {
    let from = array.data_type();
    if from == to {
        return Ok(Arc::clone(array));
    }
    let mismatch = || no_wider(path, from, to);
    Ok(match (from, to) {
        (DataType::Null, _) => new_null_array(to, array.len()),
        (DataType::Union(..), DataType::Union(members, _)) => {
            union_to_union(array.as_union(), members, path)?
        }
        (DataType::Union(..), _) => {
            // Each row from its member's values, every member brought to `to`.
            let union = array.as_union();
            let (ids, children): (Vec<i8>, Vec<ArrayRef>) = match union.data_type() {
                DataType::Union(members, _) => members
                    .iter()
                    .map(|(id, field)| {
                        Ok((
                            id,
                            conform_array(
                                union.child(id),
                                to,
                                &format!("{path}.{}", field.name()),
                            )?,
                        ))
                    })
                    .collect::<Result<Vec<_>, Error>>()?
                    .into_iter()
                    .unzip(),
                _ => return Err(mismatch()),
            };
            let sources: Vec<&dyn Array> = children.iter().map(|child| child.as_ref()).collect();
            let picks: Vec<(usize, usize)> = (0..union.len())
                .map(|row| {
                    let member = ids
                        .iter()
                        .position(|&id| id == union.type_id(row))
                        .unwrap_or_default();
                    (member, union.value_offset(row))
                })
                .collect();
            interleave(&sources, &picks)?
        }
        (_, DataType::Union(members, _)) => {
            // Every row in the member that the array's type fits, as `wider_union` merged it.
            let (id, member) = (members.iter())
                .find(|(_, member)| {
                    wider(from, member.data_type(), path)
                        .is_ok_and(|widest| &widest == member.data_type())
                })
                .ok_or_else(mismatch)?;
            let value = conform_array(array, member.data_type(), path)?;
            let children = (members.iter())
                .map(|(other, field)| {
                    if other == id {
                        Arc::clone(&value)
                    } else {
                        new_empty_array(field.data_type())
                    }
                })
                .collect();
            let type_ids = ScalarBuffer::from(vec![id; array.len()]);
            let offsets = ScalarBuffer::from((0..array.len() as i32).collect::<Vec<_>>());
            Arc::new(UnionArray::try_new(
                members.clone(),
                type_ids,
                Some(offsets),
                children,
            )?)
        }
        (DataType::Struct(_), DataType::Struct(fields)) => {
            let array = array.as_struct();
            let children = (fields.iter())
                .map(|field| match array.column_by_name(field.name()) {
                    Some(child) => conform_array(
                        child,
                        field.data_type(),
                        &format!("{path}['{}']", field.name()),
                    ),
                    None => Ok(new_null_array(field.data_type(), array.len())),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Arc::new(StructArray::try_new_with_length(
                fields.clone(),
                children,
                array.nulls().cloned(),
                array.len(),
            )?)
        }
        (DataType::List(item), binary) if is_bytes_item(item) && is_binary(binary) => {
            // A sequence of bytes (the only form tree-buf stores bytes in) as a binary layout.
            let list = array.as_list::<i32>();
            let bytes = list.values().as_primitive::<UInt8Type>();
            let binary_array: ArrayRef = Arc::new(BinaryArray::try_new(
                list.offsets().clone(),
                bytes.values().inner().clone(),
                list.nulls().cloned(),
            )?);
            cast(&binary_array, binary)?
        }
        (DataType::List(_), DataType::List(item)) => conform_list::<i32>(array, item, path)?,
        (DataType::LargeList(_), DataType::LargeList(item)) => {
            conform_list::<i64>(array, item, path)?
        }
        (DataType::FixedSizeList(_, len), DataType::FixedSizeList(item, to_len))
            if len == to_len =>
        {
            let list = array.as_fixed_size_list();
            let values = conform_array(list.values(), item.data_type(), path)?;
            Arc::new(FixedSizeListArray::try_new(
                Arc::clone(item),
                *len,
                values,
                list.nulls().cloned(),
            )?)
        }
        (DataType::FixedSizeList(item, len), DataType::List(to_item)) => {
            // The items first, then the fixed lengths as offsets.
            let list = array.as_fixed_size_list();
            let values = conform_array(list.values(), to_item.data_type(), path)?;
            let item = Arc::new(Field::new(
                item.name(),
                to_item.data_type().clone(),
                to_item.is_nullable(),
            ));
            let fixed: ArrayRef = Arc::new(FixedSizeListArray::try_new(
                item,
                *len,
                values,
                list.nulls().cloned(),
            )?);
            cast(&fixed, to)?
        }
        (DataType::Map(..), DataType::Map(entries, sorted)) => {
            let map = array.as_map();
            let entries_array: ArrayRef = Arc::new(map.entries().clone());
            let conformed = conform_array(&entries_array, entries.data_type(), path)?;
            Arc::new(MapArray::try_new(
                Arc::clone(entries),
                map.offsets().clone(),
                conformed.as_struct().clone(),
                map.nulls().cloned(),
                *sorted,
            )?)
        }
        _ if is_string(to) && !is_string(from) => {
            // Numbers become text by way of `Utf8`, which every string layout casts from.
            let text = cast(array, &DataType::Utf8)?;
            cast(&text, to)?
        }
        _ => match (cast(array, to), unit_count(to)) {
            (Ok(cast), _) => cast,
            // Dates, times and durations stored as counts of their unit (an original schema's
            // types, say) cast from the integer type of that count.
            (Err(_), Some(count)) if from.is_integer() && *from != count => {
                cast(&cast(array, &count)?, to)?
            }
            (Err(error), _) => return Err(error.into()),
        },
    })
}

/// Whether a list of `item`s holds bytes.
fn is_bytes_item(item: &Field) -> bool {
    item.data_type() == &DataType::UInt8
}

fn is_binary(data_type: &DataType) -> bool {
    use DataType::*;
    matches!(
        data_type,
        Binary | LargeBinary | BinaryView | FixedSizeBinary(_)
    )
}

/// The integer type that counts a temporal type's unit: what Arrow keeps its values as.
fn unit_count(data_type: &DataType) -> Option<DataType> {
    use DataType::*;
    match data_type {
        Date32 | Time32(_) => Some(Int32),
        Date64 | Time64(_) | Timestamp(..) | Duration(_) => Some(Int64),
        _ => None,
    }
}

/// A list array with `O` offsets as one whose items are of `item`'s type.
fn conform_list<O: OffsetSizeTrait>(
    array: &ArrayRef,
    item: &FieldRef,
    path: &str,
) -> Result<ArrayRef, Error> {
    let list = array.as_list::<O>();
    let values = conform_array(list.values(), item.data_type(), path)?;
    Ok(Arc::new(GenericListArray::<O>::try_new(
        Arc::clone(item),
        list.offsets().clone(),
        values,
        list.nulls().cloned(),
    )?))
}

/// A union as a union of more members: each row's member found by name in `members`.
fn union_to_union(
    union: &UnionArray,
    members: &UnionFields,
    path: &str,
) -> Result<ArrayRef, Error> {
    let DataType::Union(from_members, _) = union.data_type() else {
        unreachable!("a union array has a union type")
    };
    let mut id_map = [0i8; 256];
    let mut children: Vec<ArrayRef> = members
        .iter()
        .map(|(_, field)| new_empty_array(field.data_type()))
        .collect();
    for (from_id, from_field) in from_members.iter() {
        let (position, (to_id, to_field)) = (members.iter().enumerate())
            .find(|(_, (_, field))| field.name() == from_field.name())
            .ok_or_else(|| {
                no_wider(
                    path,
                    union.data_type(),
                    &DataType::Union(members.clone(), arrow_schema::UnionMode::Dense),
                )
            })?;
        id_map[from_id as u8 as usize] = to_id;
        children[position] = conform_array(
            union.child(from_id),
            to_field.data_type(),
            &format!("{path}.{}", to_field.name()),
        )?;
    }
    let type_ids: ScalarBuffer<i8> = union
        .type_ids()
        .iter()
        .map(|&id| id_map[id as u8 as usize])
        .collect();
    let offsets = union.offsets().cloned();
    Ok(Arc::new(UnionArray::try_new(
        members.clone(),
        type_ids,
        offsets,
        children,
    )?))
}

/// Arrow's cast, refusing values that do not fit rather than making them null.
fn cast(array: &ArrayRef, to: &DataType) -> Result<ArrayRef, ArrowError> {
    let options = CastOptions {
        safe: false,
        ..CastOptions::default()
    };
    cast_with_options(array, to, &options)
}

#[cfg(test)]
mod tests {
    use arrow_array::{
        Float64Array, Int32Array, Int64Array, ListArray, StringArray, UInt64Array, UInt8Array,
    };
    use arrow_schema::UnionMode;

    use super::*;

    fn union_of(members: Vec<(&str, ArrayRef)>, picks: &[(i8, i32)]) -> ArrayRef {
        let fields = UnionFields::try_new(
            0..members.len() as i8,
            (members.iter())
                .map(|(name, array)| Field::new(*name, array.data_type().clone(), true)),
        )
        .unwrap();
        let children = members.into_iter().map(|(_, array)| array).collect();
        let type_ids = picks.iter().map(|(id, _)| *id).collect();
        let offsets = picks.iter().map(|(_, offset)| *offset).collect();
        Arc::new(UnionArray::try_new(fields, type_ids, Some(offsets), children).unwrap())
    }

    #[test]
    fn numbers_widen_to_the_narrowest_type_holding_both() {
        use DataType::*;
        let cases = [
            (UInt8, UInt32, UInt32),
            (UInt8, Int8, Int16),
            (UInt32, Int16, Int64),
            (UInt64, Int64, Decimal128(20, 0)),
            (Int64, Decimal128(38, 0), Decimal128(38, 0)),
            (UInt16, Float32, Float32),
            (UInt32, Float32, Float64),
            (Int64, Float64, Float64),
            (Boolean, Utf8View, Utf8View),
            (Float64, Utf8, Utf8),
        ];
        for (one, other, widest) in cases {
            assert_eq!(
                wider(&one, &other, "x").unwrap(),
                widest,
                "{one} and {other}"
            );
            assert_eq!(
                wider(&other, &one, "x").unwrap(),
                widest,
                "{other} and {one}"
            );
        }
        let error = wider(&Struct(Fields::empty()), &Utf8, "x").unwrap_err();
        assert!(error.to_string().contains("at `x`"), "{error}");
    }

    #[test]
    fn a_union_of_numbers_widens_to_one_number_and_conforms_row_by_row() {
        let integers: ArrayRef = Arc::new(UInt64Array::from(vec![1, 2]));
        let floats: ArrayRef = Arc::new(Float64Array::from(vec![0.5]));
        let union = union_of(
            vec![("integer", integers), ("float", floats)],
            &[(0, 0), (1, 0), (0, 1)],
        );
        let widest = wider(union.data_type(), &DataType::UInt64, "score").unwrap();
        assert_eq!(widest, DataType::Float64);
        let conformed = conform_array(&union, &widest, "score").unwrap();
        let expected: ArrayRef = Arc::new(Float64Array::from(vec![1.0, 0.5, 2.0]));
        assert_eq!(&conformed, &expected);
    }

    #[test]
    fn unions_that_do_not_fold_merge_their_members_by_name() {
        let words: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        let bytes: ArrayRef = Arc::new(UInt8Array::from(vec![7]));
        let one = union_of(
            vec![("text", Arc::clone(&words)), ("small", bytes)],
            &[(1, 0), (0, 0)],
        );
        let listed: ArrayRef = Arc::new(ListArray::from_iter_primitive::<
            arrow_array::types::Int32Type,
            _,
            _,
        >(vec![Some(vec![Some(1)])]));
        let other = union_of(vec![("text", words), ("list", listed)], &[(0, 0), (1, 0)]);
        let widest = wider(one.data_type(), other.data_type(), "u").unwrap();
        let DataType::Union(members, UnionMode::Dense) = &widest else {
            panic!("{widest}")
        };
        let names: Vec<&str> = members
            .iter()
            .map(|(_, field)| field.name().as_str())
            .collect();
        assert_eq!(names, ["text", "small", "list"]);
        for array in [&one, &other] {
            let conformed = conform_array(array, &widest, "u").unwrap();
            assert_eq!(conformed.data_type(), &widest);
            conformed.to_data().validate_full().unwrap();
            let conformed = conformed.as_union();
            for row in 0..array.len() {
                let before = array.as_union().value(row);
                assert_eq!(conformed.value(row).as_ref(), before.as_ref(), "row {row}");
            }
        }
    }

    #[test]
    fn batches_conform_to_the_widest_schema_of_their_chunks() {
        let first = RecordBatch::try_from_iter([
            ("id", Arc::new(Int32Array::from(vec![1, 2])) as ArrayRef),
            (
                "tags",
                Arc::new(FixedSizeListArray::from_iter_primitive::<
                    arrow_array::types::Int32Type,
                    _,
                    _,
                >(
                    vec![Some(vec![Some(1), Some(2)]), Some(vec![Some(3), Some(4)])],
                    2,
                )) as ArrayRef,
            ),
        ])
        .unwrap();
        let second = RecordBatch::try_from_iter([
            ("id", Arc::new(Int64Array::from(vec![-3])) as ArrayRef),
            (
                "tags",
                Arc::new(ListArray::from_iter_primitive::<
                    arrow_array::types::Int64Type,
                    _,
                    _,
                >(vec![Some(vec![Some(5)])])) as ArrayRef,
            ),
            (
                "name",
                Arc::new(StringArray::from(vec!["late"])) as ArrayRef,
            ),
        ])
        .unwrap();
        let schema = widest_schema(&[first.schema(), second.schema()]).unwrap();
        let names: Vec<&str> = schema
            .fields()
            .iter()
            .map(|field| field.name().as_str())
            .collect();
        assert_eq!(names, ["id", "tags", "name"]);
        assert_eq!(schema.field(0).data_type(), &DataType::Int64);
        assert!(
            matches!(schema.field(1).data_type(), DataType::List(item) if item.data_type() == &DataType::Int64)
        );
        assert!(schema.field(2).is_nullable());
        let first = conform(&first, &schema).unwrap();
        assert_eq!(first.schema(), schema);
        assert_eq!(
            first
                .column(0)
                .as_primitive::<arrow_array::types::Int64Type>()
                .values(),
            &[1, 2]
        );
        let tags = first.column(1).as_list::<i32>();
        assert_eq!(tags.value_offsets(), &[0, 2, 4]);
        assert_eq!(first.column(2).null_count(), 2);
        assert_eq!(conform(&second, &schema).unwrap().schema(), schema);
    }

    #[test]
    fn values_that_do_not_fit_the_wider_type_are_errors_not_nulls() {
        let big: ArrayRef = Arc::new(UInt64Array::from(vec![u64::MAX]));
        let error = conform_array(&big, &DataType::Int64, "n").unwrap_err();
        assert!(
            error.to_string().contains("18446744073709551615"),
            "{error}"
        );
        let exact = conform_array(&big, &DataType::Decimal128(20, 0), "n").unwrap();
        assert_eq!(
            exact
                .as_primitive::<arrow_array::types::Decimal128Type>()
                .value(0),
            u64::MAX as i128
        );
    }
}
