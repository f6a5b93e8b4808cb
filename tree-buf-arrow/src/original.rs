//! The Arrow schema an archive's rows came from, kept in its metadata, so that a
//! `RecordBatch` stored as tree-buf reads back with its own types.
//!
//! [`batch_rows`](crate::batch_rows) stores what a value is, not every Arrow type's name for it: a
//! timestamp is the integer count of its unit, a dictionary the strings its keys point to, a
//! `Float16` a float. A writer that keeps the batches' schema under [`ARROW_SCHEMA_KEY`]
//! ([`arrow_schema_metadata`]) lets a reader bring each decoded batch back to it
//! ([`original_schema`], then [`conform`](crate::conform)): timestamps with their unit and time
//! zone, dates, decimals of their precision and scale, dictionaries, field and schema metadata.
//!
//! The schema is kept as Parquet's Arrow writer keeps it in a Parquet file's key-value metadata:
//! the IPC message of the schema, after the continuation marker and its length, in standard
//! base64.

use std::sync::Arc;

use arrow_ipc::writer::{DictionaryTracker, IpcDataGenerator, IpcWriteOptions};
use arrow_schema::{Schema, SchemaRef};
use base64::prelude::{Engine, BASE64_STANDARD};
use tree_buf::archive::Archive;

use crate::{archive_schema, ArrowOptions, Error};

/// The metadata key of the Arrow schema, the one Parquet uses.
pub const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

/// The metadata pair that keeps `schema` in an archive: give it to
/// [`ArchiveOptions::metadata`](tree_buf::archive::ArchiveOptions::metadata).
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{RecordBatch, TimestampMillisecondArray};
/// use tree_buf::archive::{Archive, ArchiveOptions, ArchiveWriter};
/// use tree_buf::Value;
///
/// let stamps = TimestampMillisecondArray::from(vec![1_700_000_000_000]).with_timezone("UTC");
/// let batch = RecordBatch::try_from_iter([("at", Arc::new(stamps) as _)])?;
/// let (key, value) = tree_buf_arrow::arrow_schema_metadata(&batch.schema());
/// let options = ArchiveOptions::default().metadata(key, value);
/// let mut writer = ArchiveWriter::<Value, _>::with_options(Vec::new(), options)?;
/// for row in tree_buf_arrow::batch_rows(&batch)? {
///     writer.push(&row)?;
/// }
/// let archive = Archive::from_buffer(writer.finish()?)?;
///
/// let original = tree_buf_arrow::original_schema(&archive)?.expect("kept");
/// let decoded = tree_buf_arrow::record_batches(&archive, None).next().unwrap()?;
/// let restored = tree_buf_arrow::conform(&decoded, &original)?;
/// assert_eq!(restored, batch);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn arrow_schema_metadata(schema: &Schema) -> (&'static str, String) {
    let encoded = IpcDataGenerator::default().schema_to_bytes_with_dictionary_tracker(
        schema,
        &mut DictionaryTracker::new(true),
        &IpcWriteOptions::default(),
    );
    let message = encoded.ipc_message;
    let mut framed = Vec::with_capacity(message.len() + 8);
    framed.extend_from_slice(&[0xff; 4]);
    framed.extend_from_slice(&(message.len() as u32).to_le_bytes());
    framed.extend_from_slice(&message);
    (ARROW_SCHEMA_KEY, BASE64_STANDARD.encode(framed))
}

/// The Arrow schema kept in `archive`'s metadata, if it has one.
///
/// Malformed schema bytes are an [`Error::Unsupported`]: the metadata is as untrusted as the
/// rest of the file, and Arrow's reader of schema messages panics on some malformed ones, so
/// that it runs behind a guard that turns a panic into the error.
pub fn original_schema(archive: &Archive<'_>) -> Result<Option<SchemaRef>, Error> {
    let Some(text) = archive.metadata_value(ARROW_SCHEMA_KEY) else {
        return Ok(None);
    };
    let malformed = |why: String| Error::Unsupported {
        path: String::new(),
        message: format!("the archive's {ARROW_SCHEMA_KEY} metadata is not an Arrow schema: {why}"),
    };
    let bytes = BASE64_STANDARD
        .decode(text)
        .map_err(|error| malformed(error.to_string()))?;
    let parsed =
        std::panic::catch_unwind(|| arrow_ipc::convert::try_schema_from_ipc_buffer(&bytes))
            .map_err(|_| malformed("Arrow's reader could not parse it".to_owned()))?;
    Ok(Some(Arc::new(
        parsed.map_err(|error| malformed(error.to_string()))?,
    )))
}

/// One schema for all of `archive`'s rows as a table (a Parquet file, a SQL table): the Arrow
/// schema its rows came from, kept in its metadata ([`original_schema`]), where that names every
/// column its chunks hold; else the widest of its chunks' ([`archive_schema`]). Every chunk's
/// batch [`conform`](crate::conform)s to it.
pub fn table_schema(archive: &Archive<'_>, options: &ArrowOptions) -> Result<SchemaRef, Error> {
    let widest = archive_schema(archive, "", options)?;
    Ok(match original_schema(archive)? {
        Some(original)
            if (widest.fields().iter())
                .all(|field| original.field_with_name(field.name()).is_ok()) =>
        {
            original
        }
        _ => widest,
    })
}
