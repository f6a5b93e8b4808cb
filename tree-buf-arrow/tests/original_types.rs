//! Record batches stored as rows with their Arrow schema kept in the archive's metadata read
//! back with every type they had.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::builder::{ListBuilder, TimestampMicrosecondBuilder};
use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Date64Array, Decimal128Array,
    DictionaryArray, DurationMillisecondArray, FixedSizeBinaryArray, Float16Array, Float32Array,
    Int16Array, Int8Array, LargeBinaryArray, LargeStringArray, RecordBatch, StringArray,
    StructArray, Time32MillisecondArray, Time64MicrosecondArray, TimestampNanosecondArray,
    TimestampSecondArray, UInt16Array, UInt64Array,
};
use arrow_schema::{DataType, Field, Schema};
use half::f16;
use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
use tree_buf::Value;

/// A batch of `rows` rows with a column of each type that the rows keep as a more general one.
fn batch(rows: usize) -> RecordBatch {
    let at = |i: usize| i as i64 * 86_400_000 + 1_600_000_000_000;
    let some = |i: usize| !i.is_multiple_of(3);
    let mut lists = ListBuilder::new(TimestampMicrosecondBuilder::new().with_timezone("+02:00"));
    for i in 0..rows {
        for k in 0..i % 3 {
            lists.values().append_value(at(i) * 1000 + k as i64);
        }
        lists.append(some(i));
    }
    let columns: Vec<(&str, ArrayRef)> = vec![
        (
            "tiny",
            Arc::new(Int8Array::from_iter(
                (0..rows).map(|i| some(i).then_some(i as i8 - 5)),
            )),
        ),
        (
            "small",
            Arc::new(Int16Array::from_iter_values(
                (0..rows).map(|i| i as i16 * -300),
            )),
        ),
        (
            "count",
            Arc::new(UInt16Array::from_iter_values((0..rows).map(|i| i as u16))),
        ),
        (
            "big",
            Arc::new(UInt64Array::from_iter_values(
                (0..rows).map(|i| u64::MAX - i as u64),
            )),
        ),
        (
            "half",
            Arc::new(Float16Array::from_iter_values(
                (0..rows).map(|i| f16::from_f32(i as f32 / 4.0)),
            )),
        ),
        (
            "single",
            Arc::new(Float32Array::from_iter_values(
                (0..rows).map(|i| i as f32 * 0.1),
            )),
        ),
        (
            "flag",
            Arc::new(BooleanArray::from_iter((0..rows).map(|i| Some(i % 2 == 0)))),
        ),
        (
            "stamp_ns",
            Arc::new(
                TimestampNanosecondArray::from_iter(
                    (0..rows).map(|i| some(i).then(|| at(i) * 1_000_000)),
                )
                .with_timezone("UTC"),
            ),
        ),
        (
            "stamp_s",
            Arc::new(TimestampSecondArray::from_iter_values(
                (0..rows).map(|i| at(i) / 1000),
            )),
        ),
        (
            "day",
            Arc::new(Date32Array::from_iter_values(
                (0..rows).map(|i| 18_000 + i as i32),
            )),
        ),
        (
            "day_ms",
            Arc::new(Date64Array::from_iter_values((0..rows).map(at))),
        ),
        (
            "time_ms",
            Arc::new(Time32MillisecondArray::from_iter_values(
                (0..rows).map(|i| i as i32 * 1000),
            )),
        ),
        (
            "time_us",
            Arc::new(Time64MicrosecondArray::from_iter_values(
                (0..rows).map(|i| i as i64 * 7),
            )),
        ),
        (
            "wait",
            Arc::new(DurationMillisecondArray::from_iter_values(
                (0..rows).map(|i| i as i64 * 90),
            )),
        ),
        (
            "price",
            Arc::new(
                Decimal128Array::from_iter(
                    (0..rows).map(|i| some(i).then_some(i as i128 * 125 - 900)),
                )
                .with_precision_and_scale(10, 2)
                .unwrap(),
            ),
        ),
        (
            "whole",
            Arc::new(
                Decimal128Array::from_iter_values((0..rows).map(|i| i as i128 * 1_000_000_007))
                    .with_precision_and_scale(20, 0)
                    .unwrap(),
            ),
        ),
        (
            "team",
            Arc::new(DictionaryArray::<Int32Type>::from_iter(
                (0..rows).map(|i| some(i).then_some(["BOS", "NYA", "CHA"][i % 3])),
            )),
        ),
        (
            "note",
            Arc::new(LargeStringArray::from_iter_values(
                (0..rows).map(|i| format!("note {i}")),
            )),
        ),
        (
            "blob",
            Arc::new(BinaryArray::from_iter_values(
                (0..rows).map(|i| vec![i as u8; i % 4]),
            )),
        ),
        (
            "large_blob",
            Arc::new(LargeBinaryArray::from_iter_values(
                (0..rows).map(|i| vec![7u8; i % 2]),
            )),
        ),
        (
            "key",
            Arc::new(
                FixedSizeBinaryArray::try_from_iter((0..rows).map(|i| (i as u32).to_be_bytes()))
                    .unwrap(),
            ),
        ),
        ("moments", Arc::new(lists.finish())),
        (
            "place",
            Arc::new(StructArray::from(vec![
                (
                    Arc::new(Field::new("founded", DataType::Date32, false)),
                    Arc::new(Date32Array::from_iter_values((0..rows).map(|i| i as i32)))
                        as ArrayRef,
                ),
                (
                    Arc::new(Field::new("city", DataType::Utf8, false)),
                    Arc::new(StringArray::from_iter_values(
                        (0..rows).map(|i| format!("city {i}")),
                    )),
                ),
            ])),
        ),
    ];
    let batch = RecordBatch::try_from_iter(columns).unwrap();
    // Metadata of a field and of the schema come back too.
    let schema = batch.schema();
    let mut fields: Vec<Field> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
    fields[0] = fields[0]
        .clone()
        .with_metadata(HashMap::from([("unit".to_owned(), "runs".to_owned())]));
    let schema = Schema::new_with_metadata(
        fields,
        HashMap::from([("written by".to_owned(), "a test".to_owned())]),
    );
    batch.with_schema(Arc::new(schema)).unwrap()
}

/// An archive of `batches`' rows in chunks of `chunk_rows`, with their schema kept or not.
fn archive_of(batches: &[RecordBatch], chunk_rows: usize, keep: bool) -> Vec<u8> {
    let mut options = ArchiveOptions::default().chunk_rows(chunk_rows);
    if keep {
        let (key, value) = tree_buf_arrow::arrow_schema_metadata(&batches[0].schema());
        options = options.metadata(key, value);
    }
    let mut writer = ArchiveWriter::<Value, _>::with_options(Vec::new(), options).unwrap();
    for batch in batches {
        for row in tree_buf_arrow::batch_rows(batch).unwrap() {
            writer.push(&row).unwrap();
        }
    }
    writer.finish().unwrap()
}

#[test]
fn batches_read_back_with_the_types_kept_in_the_metadata() {
    let original = batch(40);
    let bytes = archive_of(std::slice::from_ref(&original), 16, true);
    let archive = Archive::from_bytes(&bytes).unwrap();
    let schema = tree_buf_arrow::original_schema(&archive).unwrap().unwrap();
    assert_eq!(schema, original.schema());
    let restored: Vec<RecordBatch> = tree_buf_arrow::record_batches(&archive, None)
        .map(|batch| tree_buf_arrow::conform(&batch.unwrap(), &schema).unwrap())
        .collect();
    assert_eq!(restored.len(), 3);
    let all = arrow_select::concat::concat_batches(&schema, &restored).unwrap();
    for (index, field) in schema.fields().iter().enumerate() {
        assert_eq!(
            all.column(index).as_ref(),
            original.column(index).as_ref(),
            "{}",
            field.name()
        );
    }
    assert_eq!(all, original);

    // Without the schema kept, the rows read back as the general types.
    let plain = archive_of(std::slice::from_ref(&original), 16, false);
    let archive = Archive::from_bytes(&plain).unwrap();
    assert!(tree_buf_arrow::original_schema(&archive).unwrap().is_none());
    let decoded = tree_buf_arrow::record_batches(&archive, None)
        .next()
        .unwrap()
        .unwrap();
    assert_ne!(decoded.schema(), original.schema());
}

#[test]
fn a_malformed_kept_schema_is_an_error() {
    for value in ["not base64!", "AAAA", "/////wgAAAAAAAAAAAAAAA==", ""] {
        let options = ArchiveOptions::default().metadata(tree_buf_arrow::ARROW_SCHEMA_KEY, value);
        let mut writer = ArchiveWriter::<u8, _>::with_options(Vec::new(), options).unwrap();
        writer.push(&1).unwrap();
        let archive = Archive::from_buffer(writer.finish().unwrap()).unwrap();
        let error = tree_buf_arrow::original_schema(&archive).unwrap_err();
        assert!(
            error.to_string().contains("ARROW:schema"),
            "{value:?}: {error}"
        );
    }
}
