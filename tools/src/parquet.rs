//! `from-parquet` and `to-parquet` (the `parquet` feature): Parquet files as archives of their
//! rows, and archives as Parquet.

use std::path::Path;

use tree_buf::EncodeOptions;

use crate::convert::Chunking;
use crate::CliError;

#[cfg(not(feature = "parquet"))]
fn missing() -> CliError {
    CliError::new(
        "this tree-buf was built without Parquet; build it with the `parquet` feature: \
         cargo install --path tools --features parquet",
    )
}

#[cfg(not(feature = "parquet"))]
pub fn from_parquet(_: &Path, _: &Path, _: &Chunking, _: EncodeOptions) -> Result<(), CliError> {
    Err(missing())
}

#[cfg(not(feature = "parquet"))]
pub fn to_parquet(_: &Path, _: &Path, _: i32, _: &crate::export::Open) -> Result<(), CliError> {
    Err(missing())
}

/// Writes the rows of the Parquet file `input` to the archive `output`, read a batch at a time
/// and held only until their chunk is written.
#[cfg(feature = "parquet")]
pub fn from_parquet(
    input: &Path,
    output: &Path,
    chunking: &Chunking,
    encode: EncodeOptions,
) -> Result<(), CliError> {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use tree_buf::archive::ArchiveWriter;
    use tree_buf::Value;

    use crate::convert::archive_error;
    use crate::io::Output;

    let input_name = input.display().to_string();
    let parquet_error =
        |error: &dyn std::fmt::Display| CliError::new(format!("{input_name}: {error}"));
    let file = std::fs::File::open(input).map_err(|e| parquet_error(&e))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| parquet_error(&e))?;
    // The rows keep what each value is; the Arrow schema, kept in the archive's metadata, keeps
    // the types (timestamps, decimals, dictionaries) that `to-parquet` brings them back to.
    let (key, schema) = tree_buf_arrow::arrow_schema_metadata(builder.schema());
    let options = chunking.options(encode).metadata(key, schema);
    let batches = (builder.with_batch_size(8192).build()).map_err(|e| parquet_error(&e))?;
    let name = output.display().to_string();
    let mut out = Output::create(output)?;
    let mut writer = ArchiveWriter::<Value, _>::with_options(&mut out, options)
        .map_err(|e| archive_error(&name, &e))?;
    for batch in batches {
        let batch = batch.map_err(|e| parquet_error(&e))?;
        let rows = tree_buf_arrow::batch_rows(&batch).map_err(|e| parquet_error(&e))?;
        for row in &rows {
            writer.push(row).map_err(|e| archive_error(&name, &e))?;
        }
    }
    writer.finish().map_err(|e| archive_error(&name, &e))?;
    out.commit()
}

/// Writes the rows of the archive `file` to `output` as Parquet, a row group per chunk,
/// compressed with zstd at `zstd_level`, each column of the type `from-parquet` kept for it in the
/// archive's metadata, or else of the widest type any chunk holds it as.
#[cfg(feature = "parquet")]
pub fn to_parquet(
    file: &Path,
    output: &Path,
    zstd_level: i32,
    open: &crate::export::Open,
) -> Result<(), CliError> {
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::file::properties::WriterProperties;

    use crate::export::Opened;
    use crate::io::Output;

    let name = output.display().to_string();
    let level = ZstdLevel::try_new(zstd_level).map_err(|e| CliError::new(e.to_string()))?;
    open.file(file, |opened| {
        let Opened::Archive(archive) = opened else {
            return Err(CliError::new(format!(
                "{}: not an archive of rows; to-json reads a file of one value",
                file.display()
            )));
        };
        let file_error =
            |error: &dyn std::fmt::Display| CliError::new(format!("{}: {error}", file.display()));
        let parquet_error =
            |error: parquet::errors::ParquetError| CliError::new(format!("{name}: {error}"));
        // One schema for every row group: the one the rows came from, where `from-parquet`
        // kept it, or else the widest (a chunk whose rows widened a column or gained a field
        // sets the types of the others).
        let options = tree_buf_arrow::ArrowOptions::default();
        let schema = tree_buf_arrow::table_schema(archive, &options).map_err(|e| file_error(&e))?;
        let mut batches = tree_buf_arrow::record_batches(archive, None).map(|batch| {
            let batch = batch.map_err(|e| file_error(&e))?;
            let batch = tree_buf_arrow::conform(&batch, &schema).map_err(|e| file_error(&e))?;
            tree_buf_arrow::without_unions(&batch).map_err(|e| file_error(&e))
        });
        let Some(first) = batches.next().transpose()? else {
            return Err(file_error(
                &"an archive of no chunks has no columns for Parquet",
            ));
        };
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(level))
            .set_max_row_group_row_count(None)
            .build();
        let mut out = Output::create(output)?;
        let mut writer = ArrowWriter::try_new(&mut out, first.schema(), Some(properties))
            .map_err(parquet_error)?;
        for batch in std::iter::once(Ok(first)).chain(batches) {
            writer.write(&batch?).map_err(parquet_error)?;
            // A row group per chunk.
            writer.flush().map_err(parquet_error)?;
        }
        writer.close().map_err(parquet_error)?;
        out.commit()
    })
}
