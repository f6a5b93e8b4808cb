//! `from-json`, `from-csv` and `to-json`.

use std::path::Path;

use tree_buf::{ArrayWriter, EncodeOptions, Reader, Value};

use crate::io::{progress, read_input, write_output};
use crate::CliError;

/// The options of the `from-*` commands.
pub fn encode_options(lossy_float_tolerance: Option<i32>) -> EncodeOptions {
    match lossy_float_tolerance {
        Some(exponent) => EncodeOptions::default().lossy_float_tolerance(exponent),
        None => EncodeOptions::default(),
    }
}

/// Parses JSON text into a [`Value`], keeping key order.
pub fn parse_json(bytes: &[u8], name: &str) -> Result<Value, CliError> {
    let json: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| CliError::new(format!("{name}: not valid JSON: {e}")))?;
    Ok(Value::from(json))
}

pub fn from_json(input: &Path, output: &Path, options: &EncodeOptions) -> Result<(), CliError> {
    let name = input.display().to_string();
    let value = parse_json(&read_input(input)?, &name)?;
    let bytes = tree_buf::encode_with_options(&value, options)
        .map_err(|e| CliError::new(format!("{name}: {e}")))?;
    write_output(output, &bytes)
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

fn csv_reader(bytes: &[u8], delimiter: u8, header: bool) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(header)
        .from_reader(bytes)
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

/// Reads CSV text as an array of row objects: one field per column, typed by inference
/// (integers, floats, booleans, else strings); blank cells are left out of their row.
pub fn csv_rows(
    bytes: &[u8],
    name: &str,
    delimiter: u8,
    header: bool,
    options: &EncodeOptions,
) -> Result<Vec<u8>, CliError> {
    let mut reader = csv_reader(bytes, delimiter, header);
    let names: Vec<String> = if header {
        reader
            .headers()
            .map_err(|e| csv_error(name, &e))?
            .iter()
            .map(str::to_owned)
            .collect()
    } else {
        Vec::new()
    };
    // First pass: the type of every column.
    let mut types: Vec<ColumnType> = vec![ColumnType::ANY; names.len()];
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(name, &e))?
    {
        if types.len() < record.len() {
            types.resize(record.len(), ColumnType::ANY);
        }
        for (column, cell) in types.iter_mut().zip(record.iter()) {
            if !cell.is_empty() {
                column.narrow(cell);
            }
        }
    }
    let names: Vec<String> = (0..types.len())
        .map(|i| {
            names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("column_{}", i + 1))
        })
        .collect();
    // Second pass: the rows, straight into columns.
    let bar = progress(bytes.len() as u64, "converting");
    let mut reader = csv_reader(bytes, delimiter, header);
    let mut rows = ArrayWriter::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(name, &e))?
    {
        let fields = record
            .iter()
            .zip(&names)
            .zip(&types)
            .filter(|((cell, _), _)| !cell.is_empty())
            .map(|((cell, column), ty)| (column.clone(), ty.value(cell)))
            .collect();
        rows.push(&Value::Object(fields));
        if rows.len() % 4096 == 0 {
            bar.set_position(record.position().map_or(0, |p| p.byte()));
        }
    }
    bar.finish_and_clear();
    rows.finish(options)
        .map_err(|e| CliError::new(format!("{name}: {e}")))
}

pub fn from_csv(
    input: &Path,
    output: &Path,
    delimiter: char,
    header: bool,
    options: &EncodeOptions,
) -> Result<(), CliError> {
    let name = input.display().to_string();
    let delimiter = u8::try_from(delimiter)
        .ok()
        .filter(u8::is_ascii)
        .ok_or_else(|| {
            CliError::new(format!(
                "the delimiter must be one ASCII character, not {delimiter:?}"
            ))
        })?;
    let bytes = csv_rows(&read_input(input)?, &name, delimiter, header, options)?;
    write_output(output, &bytes)
}

pub fn to_json(file: &Path, paths: &[String], pretty: bool) -> Result<(), CliError> {
    let name = file.display().to_string();
    let bytes = read_input(file)?;
    let error = |e: tree_buf::DecodeError| CliError::new(format!("{name}: {e}"));
    let json: serde_json::Value = if paths.is_empty() {
        tree_buf::decode::<Value>(&bytes).map_err(error)?.into()
    } else {
        let reader = Reader::new(&bytes).map_err(error)?;
        let mut object = serde_json::Map::new();
        for path in paths {
            let values: Vec<Value> = reader.decode_path(path).map_err(error)?;
            object.insert(path.clone(), Value::Array(values).into());
        }
        serde_json::Value::Object(object)
    };
    let mut text = if pretty {
        serde_json::to_vec_pretty(&json)
    } else {
        serde_json::to_vec(&json)
    }
    .map_err(|e| CliError::new(format!("{name}: {e}")))?;
    text.push(b'\n');
    write_output(Path::new("-"), &text)
}
