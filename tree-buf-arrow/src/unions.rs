//! Record batches for formats that have no unions, such as Parquet.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{
    Array, ArrayRef, FixedSizeListArray, LargeListArray, ListArray, RecordBatch, StructArray,
    UInt32Array,
};
use arrow_schema::{ArrowError, DataType, Field, FieldRef, Fields, Schema};
use arrow_select::take::take;

/// `batch` with every union, at any depth, made a struct of one nullable field per member, set
/// where the row holds that member: the form in which formats without unions (Parquet) can store
/// enums with data. Other columns are kept as they are.
///
/// ```
/// use tree_buf::Reader;
///
/// #[derive(tree_buf::Encode)]
/// enum Shape { Circle(f64), Square { side: f64 } }
/// #[derive(tree_buf::Encode)]
/// struct Row { shape: Shape }
///
/// let bytes = tree_buf::encode(&vec![Row { shape: Shape::Circle(1.5) }]);
/// let batch = tree_buf_arrow::record_batch(&Reader::new(&bytes)?, "", None)?;
/// let flat = tree_buf_arrow::without_unions(&batch)?;
/// assert!(matches!(flat.schema().field(0).data_type(), arrow_schema::DataType::Struct(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn without_unions(batch: &RecordBatch) -> Result<RecordBatch, ArrowError> {
    let schema = batch.schema();
    let mut fields = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (field, column) in schema.fields().iter().zip(batch.columns()) {
        let (field, column) = field_without_unions(field, column)?;
        fields.push(field);
        columns.push(column);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
}

fn field_without_unions(
    field: &FieldRef,
    array: &ArrayRef,
) -> Result<(FieldRef, ArrayRef), ArrowError> {
    let array = array_without_unions(array)?;
    if array.data_type() == field.data_type() {
        return Ok((Arc::clone(field), array));
    }
    let nullable = field.is_nullable() || matches!(field.data_type(), DataType::Union(..));
    let field = Field::new(field.name(), array.data_type().clone(), nullable)
        .with_metadata(field.metadata().clone());
    Ok((Arc::new(field), array))
}

fn array_without_unions(array: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    Ok(match array.data_type() {
        DataType::Union(members, _) => {
            let union = array.as_union();
            let mut fields = Vec::new();
            let mut children = Vec::new();
            for (type_id, member) in members.iter() {
                // The row's place in the member's child where it holds the member, else null.
                let places: UInt32Array = (0..union.len())
                    .map(|row| {
                        let offset = union.value_offset(row) as u32;
                        (union.type_id(row) == type_id).then_some(offset)
                    })
                    .collect();
                let child = array_without_unions(&take(union.child(type_id), &places, None)?)?;
                fields.push(Field::new(member.name(), child.data_type().clone(), true));
                children.push(child);
            }
            Arc::new(StructArray::try_new_with_length(
                Fields::from(fields),
                children,
                None,
                union.len(),
            )?)
        }
        DataType::Struct(_) => {
            let array = array.as_struct();
            let mut fields = Vec::new();
            let mut children = Vec::new();
            for (field, child) in array.fields().iter().zip(array.columns()) {
                let (field, child) = field_without_unions(field, child)?;
                fields.push(field);
                children.push(child);
            }
            let nulls = array.nulls().cloned();
            Arc::new(StructArray::try_new_with_length(
                Fields::from(fields),
                children,
                nulls,
                array.len(),
            )?)
        }
        DataType::List(item) => {
            let list = array.as_list::<i32>();
            let (item, values) = field_without_unions(item, list.values())?;
            let offsets = list.offsets().clone();
            Arc::new(ListArray::try_new(
                item,
                offsets,
                values,
                list.nulls().cloned(),
            )?)
        }
        DataType::LargeList(item) => {
            let list = array.as_list::<i64>();
            let (item, values) = field_without_unions(item, list.values())?;
            let offsets = list.offsets().clone();
            Arc::new(LargeListArray::try_new(
                item,
                offsets,
                values,
                list.nulls().cloned(),
            )?)
        }
        DataType::FixedSizeList(item, size) => {
            let list = array.as_fixed_size_list();
            let (item, values) = field_without_unions(item, list.values())?;
            let nulls = list.nulls().cloned();
            Arc::new(FixedSizeListArray::try_new(item, *size, values, nulls)?)
        }
        _ => Arc::clone(array),
    })
}
