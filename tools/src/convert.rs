//! `from-json`, `from-csv` and `to-json`.

use std::io::{BufRead, Write};
use std::path::Path;

use serde::de::{Deserializer as _, SeqAccess, Visitor};
use tree_buf::archive::{ArchiveError, ArchiveOptions, ArchiveWriter};
use tree_buf::{EncodeOptions, Value, ValueWriter};

use crate::io::{open_input, Output};
use crate::CliError;

fn json_error(name: &str, error: &serde_json::Error) -> CliError {
    if error.is_io() {
        CliError::new(format!("{name}: {error}"))
    } else {
        CliError::new(format!("{name}: not valid JSON: {error}"))
    }
}

/// Parses JSON text into a [`Value`], keeping key order.
pub fn parse_json(input: &Path) -> Result<Value, CliError> {
    let name = input.display().to_string();
    let json: serde_json::Value = serde_json::from_reader(open_input(input, "reading")?)
        .map_err(|e| json_error(&name, &e))?;
    Ok(Value::from(json))
}

/// When the commands that write archives end a chunk.
#[derive(Debug, Clone, Copy)]
pub struct Chunking {
    /// Rows per chunk, at most.
    pub rows: usize,
    /// Bytes of columns in memory per chunk, about.
    pub bytes: usize,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            rows: ArchiveOptions::DEFAULT_CHUNK_ROWS,
            bytes: ArchiveOptions::DEFAULT_CHUNK_BYTES,
        }
    }
}

impl Chunking {
    /// The archive options for these chunks, encoded with `encode`.
    pub fn options(&self, encode: EncodeOptions) -> ArchiveOptions {
        ArchiveOptions::default()
            .encode_options(encode)
            .chunk_rows(self.rows)
            .chunk_bytes(self.bytes)
    }
}

/// An archive error on `name`.
pub fn archive_error(name: &str, error: &ArchiveError) -> CliError {
    match error {
        // Only a pipe's reader breaks a write (files and terminals do not): standard output's.
        ArchiveError::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            CliError::output_closed()
        }
        _ => CliError::new(format!("{name}: {error}")),
    }
}

/// Skips the whitespace at the start of `input` and gives the first byte after it, if any.
fn first_byte(input: &mut dyn BufRead) -> std::io::Result<Option<u8>> {
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            return Ok(None);
        }
        match buffer.iter().position(|b| !b.is_ascii_whitespace()) {
            Some(at) => {
                let byte = buffer[at];
                input.consume(at);
                return Ok(Some(byte));
            }
            None => {
                let len = buffer.len();
                input.consume(len);
            }
        }
    }
}

/// Pushes each row of JSON `input` to `writer` as it is parsed, never holding more than one
/// row: the items of a root array, or the values of JSON lines (text of more than one value,
/// one per line; `lines` says so even of one value, or of rows that are arrays). Input of one
/// value that is not an array pushes nothing and is handed back, read into columns.
pub fn push_json_rows<W: Write>(
    input: &Path,
    lines: bool,
    writer: &mut ArchiveWriter<Value, W>,
) -> Result<Option<ValueWriter>, CliError> {
    let name = input.display().to_string();
    let error = |e: serde_json::Error| json_error(&name, &e);
    let mut source = open_input(input, "converting")?;
    let first = first_byte(&mut source).map_err(|e| CliError::new(format!("{name}: {e}")))?;
    let mut json = serde_json::Deserializer::from_reader(source);
    // Depth is the data's: `Value` and `ValueWriter` grow the stack as they go down, and an
    // archive takes rows of any depth.
    json.disable_recursion_limit();
    if lines {
        return push_values(json.into_iter(), writer, &name).map(|()| None);
    }
    if first == Some(b'[') {
        let mut failed = None;
        let rows = json.deserialize_seq(RowSink {
            writer,
            failed: &mut failed,
        });
        if let Some(failed) = failed {
            return Err(archive_error(&name, &failed));
        }
        rows.map_err(error)?;
        return match json.end() {
            Err(e) if e.is_syntax() => Err(CliError::new(format!(
                "{name}: more JSON follows the root array (JSON lines whose rows are arrays \
                 need --lines)"
            ))),
            other => other.map(|()| None).map_err(error),
        };
    }
    let value = ValueWriter::read(&mut json).map_err(error)?;
    match json.end() {
        Ok(()) => Ok(Some(value)),
        // More values follow: JSON lines, whose first row was read into columns.
        Err(e) if e.is_syntax() => {
            let first = one_value(value, &name)?;
            writer.push(&first).map_err(|e| archive_error(&name, &e))?;
            first.drop_deep();
            push_values(json.into_iter(), writer, &name).map(|()| None)
        }
        Err(e) => Err(error(e)),
    }
}

fn push_values<W: Write>(
    values: impl Iterator<Item = serde_json::Result<Value>>,
    writer: &mut ArchiveWriter<Value, W>,
    name: &str,
) -> Result<(), CliError> {
    for value in values {
        let value = value.map_err(|e| json_error(name, &e))?;
        writer.push(&value).map_err(|e| archive_error(name, &e))?;
        value.drop_deep();
    }
    Ok(())
}

/// Pushes the items of a JSON array to an archive as they are parsed; a failure to write is
/// kept in `failed`, to be reported as itself rather than as bad JSON.
struct RowSink<'w, W: Write> {
    writer: &'w mut ArchiveWriter<Value, W>,
    failed: &'w mut Option<ArchiveError>,
}

impl<'de, W: Write> Visitor<'de> for RowSink<'_, W> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of rows")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        while let Some(row) = items.next_element::<Value>()? {
            if let Err(error) = self.writer.push(&row) {
                let message = error.to_string();
                *self.failed = Some(error);
                return Err(serde::de::Error::custom(message));
            }
            row.drop_deep();
        }
        Ok(())
    }
}

/// Converts JSON as it is read: a root array or JSON lines to an archive of rows, a chunk at a
/// time; any other value to a file of that value, holding only its columns.
pub fn from_json(
    input: &Path,
    output: &Path,
    lines: bool,
    chunking: &Chunking,
    encode: EncodeOptions,
) -> Result<(), CliError> {
    let name = input.display().to_string();
    let mut out = Output::create(output)?;
    let mut writer = ArchiveWriter::with_options(&mut out, chunking.options(encode.clone()))
        .map_err(|e| archive_error(&name, &e))?;
    match push_json_rows(input, lines, &mut writer)? {
        Some(value) => {
            // Nothing was pushed, so nothing was written.
            drop(writer);
            let bytes = value
                .finish(&encode)
                .map_err(|e| CliError::new(format!("{name}: {e}")))?;
            out.write_all(&bytes).map_err(|e| out.error(&e))?;
        }
        None => {
            writer.finish().map_err(|e| archive_error(&name, &e))?;
        }
    }
    out.commit()
}

/// The type a CSV column holds, narrowed cell by cell.
#[derive(Debug, Clone, Copy)]
struct ColumnType {
    integer: bool,
    float: bool,
    boolean: bool,
}

impl ColumnType {
    const ANY: ColumnType = ColumnType {
        integer: true,
        float: true,
        boolean: true,
    };

    fn narrow(&mut self, cell: &str) {
        self.integer &= parse_integer(cell).is_some();
        self.float &= parse_float(cell).is_some();
        self.boolean &= parse_bool(cell).is_some();
    }

    /// The value of a non-blank cell.
    fn value(self, cell: &str) -> Value {
        if self.integer {
            parse_integer(cell).map_or(Value::Null, Value::integer)
        } else if self.float {
            parse_float(cell).map_or(Value::Null, Value::Float)
        } else if self.boolean {
            parse_bool(cell).map_or(Value::Null, Value::Bool)
        } else {
            Value::String(cell.to_owned())
        }
    }
}

/// Integers without signs or leading zeros that would be lost (`007` stays text).
fn parse_integer(cell: &str) -> Option<i128> {
    let digits = cell.strip_prefix('-').unwrap_or(cell);
    if digits.is_empty()
        || (digits.len() > 1 && digits.starts_with('0'))
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    cell.parse().ok()
}

/// Decimal numbers, written the way a float prints them back (no `inf`, `NaN` or exponent
/// spellings that would change).
fn parse_float(cell: &str) -> Option<f64> {
    let plain = cell.strip_prefix('-').unwrap_or(cell);
    let (whole, fraction) = plain.split_once('.').unwrap_or((plain, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !digits(whole)
        || !digits(fraction)
        || (whole.len() > 1 && whole.starts_with('0'))
    {
        return None;
    }
    cell.parse().ok()
}

fn parse_bool(cell: &str) -> Option<bool> {
    match cell {
        "true" | "TRUE" | "True" => Some(true),
        "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

fn csv_error(name: &str, error: &csv::Error) -> CliError {
    let at = error
        .position()
        .map_or(String::new(), |p| format!(" at line {}", p.line()));
    let what = match error.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => {
            format!("a row has {len} fields where the rows before it have {expected_len}")
        }
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".to_owned(),
        _ => error.to_string(),
    };
    CliError::new(format!("{name}{at}: {what}"))
}

/// Column names: the header's, made unique (`a`, `a_2`), and `column_N` past its end.
fn column_names(header: Option<&csv::StringRecord>, columns: usize) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(columns);
    for i in 0..columns {
        let base = header
            .and_then(|h| h.get(i))
            .map_or_else(|| format!("column_{}", i + 1), str::to_owned);
        let mut name = base.clone();
        let mut n = 1;
        while names.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        names.push(name);
    }
    names
}

/// How `from-csv` and `append` read CSV.
pub struct CsvOptions {
    pub delimiter: u8,
    pub header: bool,
}

/// Pushes the records of CSV `input` to `writer` as row objects: one field per column, typed
/// by inference (integers, floats, booleans, else strings), blank cells left out of their row,
/// fields in the header's order.
///
/// Records are held a chunk at a time (until `chunking`'s rows, or a quarter of its chunk
/// bytes of text) and each chunk's column types are inferred from the cells of that chunk and
/// of every chunk before it: a column's type only widens as the file goes on (integers to floats
/// to strings), never narrows back, and a chunk whose types widened carries its own schema.
pub fn push_csv_rows<W: Write>(
    input: &Path,
    csv_options: &CsvOptions,
    chunking: &Chunking,
    writer: &mut ArchiveWriter<Value, W>,
) -> Result<(), CliError> {
    let name = input.display().to_string();
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(csv_options.delimiter)
        .has_headers(csv_options.header)
        .from_reader(open_input(input, "converting")?);
    let header = if csv_options.header {
        Some(reader.headers().map_err(|e| csv_error(&name, &e))?.clone())
    } else {
        None
    };
    let mut names = Vec::new();
    let mut types = Vec::new();
    let mut batch = Vec::new();
    let mut batch_bytes = 0;
    let mut record = csv::StringRecord::new();
    loop {
        let more = reader
            .read_record(&mut record)
            .map_err(|e| csv_error(&name, &e))?;
        if more {
            if names.is_empty() {
                // Every record has as many fields as the first (or the header).
                names = column_names(header.as_ref(), record.len());
                types = vec![ColumnType::ANY; names.len()];
            }
            batch_bytes += record.as_slice().len();
            batch.push(record.clone());
        }
        let full = batch.len() >= chunking.rows || batch_bytes >= chunking.bytes / 4;
        if !batch.is_empty() && (full || !more) {
            push_batch(&batch, &names, &mut types, writer).map_err(|e| archive_error(&name, &e))?;
            batch.clear();
            batch_bytes = 0;
        }
        if !more {
            return Ok(());
        }
    }
}

/// Pushes `records` as one chunk, typed by `types` narrowed by their cells.
fn push_batch<W: Write>(
    records: &[csv::StringRecord],
    names: &[String],
    types: &mut [ColumnType],
    writer: &mut ArchiveWriter<Value, W>,
) -> Result<(), ArchiveError> {
    let mut seen = vec![false; names.len()];
    for record in records {
        for ((column, seen), cell) in types.iter_mut().zip(&mut seen).zip(record.iter()) {
            if !cell.is_empty() {
                column.narrow(cell);
                *seen = true;
            }
        }
    }
    // Columns blank throughout the chunk are left out of its schema.
    writer.set_field_order(
        names
            .iter()
            .zip(&seen)
            .filter(|(_, seen)| **seen)
            .map(|(n, _)| n),
    );
    for record in records {
        let fields = record
            .iter()
            .zip(names)
            .zip(types.iter())
            .filter(|((cell, _), _)| !cell.is_empty())
            .map(|((cell, column), ty)| (column.clone(), ty.value(cell)))
            .collect();
        writer.push(&Value::Object(fields))?;
    }
    writer.flush_chunk()
}

/// A field separator given as one ASCII character, or `\t` (or `tab`) for tabs.
pub fn delimiter(text: &str) -> Result<u8, CliError> {
    match text {
        "\\t" | "tab" => Ok(b'\t'),
        _ => match text.as_bytes() {
            [byte] if byte.is_ascii() => Ok(*byte),
            _ => Err(CliError::new(format!(
                "the delimiter must be one ASCII character or \\t, not {text:?}"
            ))),
        },
    }
}

pub fn from_csv(
    input: &Path,
    output: &Path,
    csv_options: &CsvOptions,
    chunking: &Chunking,
    encode: EncodeOptions,
) -> Result<(), CliError> {
    let name = output.display().to_string();
    let mut out = Output::create(output)?;
    let mut writer = ArchiveWriter::with_options(&mut out, chunking.options(encode))
        .map_err(|e| archive_error(&name, &e))?;
    push_csv_rows(input, csv_options, chunking, &mut writer)?;
    writer.finish().map_err(|e| archive_error(&name, &e))?;
    out.commit()
}

/// The format of the rows `append` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RowFormat {
    /// A JSON array of rows, or JSON lines.
    Json,
    /// CSV, one row per record.
    Csv,
}

impl RowFormat {
    /// The format a file's name says (`.csv`, `.tsv`, `.json`, `.jsonl`, `.ndjson`, each maybe
    /// with `.zst`).
    fn of(path: &Path) -> Option<RowFormat> {
        let name = path.to_string_lossy().to_lowercase();
        let name = name.strip_suffix(".zst").unwrap_or(&name);
        let extension = name.rsplit_once('.')?.1;
        match extension {
            "csv" | "tsv" => Some(RowFormat::Csv),
            "json" | "jsonl" | "ndjson" => Some(RowFormat::Json),
            _ => None,
        }
    }
}

/// Appends the rows of `input` to the archive `archive`: JSON (a root array, JSON lines, or
/// one value as one row) or CSV.
pub fn append(
    archive: &Path,
    input: &Path,
    format: Option<RowFormat>,
    lines: bool,
    csv_options: &CsvOptions,
    chunking: &Chunking,
    encode: EncodeOptions,
) -> Result<(), CliError> {
    let format = format.or_else(|| RowFormat::of(input)).ok_or_else(|| {
        CliError::new(format!(
            "{}: say whether it is JSON or CSV with --format",
            input.display()
        ))
    })?;
    let name = archive.display().to_string();
    let mut writer = ArchiveWriter::<Value>::append_with_options(archive, chunking.options(encode))
        .map_err(|e| archive_error(&name, &e))?;
    match format {
        RowFormat::Json => {
            if let Some(value) = push_json_rows(input, lines, &mut writer)? {
                let row = one_value(value, &input.display().to_string())?;
                writer.push(&row).map_err(|e| archive_error(&name, &e))?;
            }
        }
        RowFormat::Csv => push_csv_rows(input, csv_options, chunking, &mut writer)?,
    }
    writer.finish().map_err(|e| archive_error(&name, &e))?;
    Ok(())
}

/// The value read into `columns`.
fn one_value(columns: ValueWriter, name: &str) -> Result<Value, CliError> {
    let bytes = columns
        .finish(&EncodeOptions::default())
        .map_err(|e| CliError::new(format!("{name}: {e}")))?;
    tree_buf::decode(&bytes).map_err(|e| CliError::new(format!("{name}: {e}")))
}

/// The rows of CSV `input` converted as `from-csv` converts them, as one array.
pub fn csv_value(input: &Path, csv_options: &CsvOptions) -> Result<Value, CliError> {
    let name = input.display().to_string();
    let chunking = Chunking::default();
    let mut writer =
        ArchiveWriter::with_options(Vec::new(), chunking.options(EncodeOptions::default()))
            .map_err(|e| archive_error(&name, &e))?;
    push_csv_rows(input, csv_options, &chunking, &mut writer)?;
    let bytes = writer.finish().map_err(|e| archive_error(&name, &e))?;
    tree_buf::decode(&bytes).map_err(|e| CliError::new(format!("{name}: {e}")))
}
