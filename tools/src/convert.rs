//! `from-json`, `from-csv` and `to-json`.

use std::io::Read;
use std::path::Path;

use tree_buf::{
    ArrayWriter, DecodeErrorKind, DecodeOptions, EncodeOptions, Reader, Value, ValueWriter,
};

use crate::io::{is_stdio, open_input, read_input, write_output, write_stdout};
use crate::CliError;

/// The options of the `from-*` commands.
pub fn encode_options(lossy_float_tolerance: Option<i32>) -> EncodeOptions {
    match lossy_float_tolerance {
        Some(exponent) => EncodeOptions::default().lossy_float_tolerance(exponent),
        None => EncodeOptions::default(),
    }
}

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

/// Converts JSON as it is read, holding only the columns: never the whole document.
pub fn from_json(input: &Path, output: &Path, options: &EncodeOptions) -> Result<(), CliError> {
    let name = input.display().to_string();
    let mut json = serde_json::Deserializer::from_reader(open_input(input, "converting")?);
    let writer = ValueWriter::read(&mut json).map_err(|e| json_error(&name, &e))?;
    json.end().map_err(|e| json_error(&name, &e))?;
    let bytes = writer
        .finish(options)
        .map_err(|e| CliError::new(format!("{name}: {e}")))?;
    write_output(output, &bytes)
}

/// The type a CSV column holds, narrowed cell by cell.
#[derive(Debug, Clone, Copy)]
struct ColumnType {
    /// Whether any cell is not blank.
    seen: bool,
    integer: bool,
    float: bool,
    boolean: bool,
}

impl ColumnType {
    const ANY: ColumnType = ColumnType {
        seen: false,
        integer: true,
        float: true,
        boolean: true,
    };

    fn narrow(&mut self, cell: &str) {
        self.seen = true;
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

/// Converts CSV to an array of row objects: one field per column, typed by inference (integers,
/// floats, booleans, else strings); blank cells are left out of their row. The types need every
/// cell, so the input is read twice: a file from disk, standard input from memory.
pub fn csv_rows(
    input: &Path,
    delimiter: u8,
    header: bool,
    options: &EncodeOptions,
) -> Result<Vec<u8>, CliError> {
    let name = input.display().to_string();
    let stdin = if is_stdio(input) {
        Some(read_input(input)?)
    } else {
        None
    };
    let open = |what: &str| -> Result<csv::Reader<Box<dyn Read + '_>>, CliError> {
        let source: Box<dyn Read + '_> = match &stdin {
            Some(bytes) => Box::new(bytes.as_slice()),
            None => open_input(input, what)?,
        };
        Ok(csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .has_headers(header)
            .from_reader(source))
    };
    let mut reader = open("scanning")?;
    let header = if header {
        Some(reader.headers().map_err(|e| csv_error(&name, &e))?.clone())
    } else {
        None
    };
    let mut types = vec![ColumnType::ANY; header.as_ref().map_or(0, csv::StringRecord::len)];
    let mut record = csv::StringRecord::new();
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(&name, &e))?
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
    let names = column_names(header.as_ref(), types.len());
    let mut reader = open("converting")?;
    let mut rows = ArrayWriter::with_fields(
        names
            .iter()
            .zip(&types)
            .filter(|(_, ty)| ty.seen)
            .map(|(name, _)| name),
    );
    while reader
        .read_record(&mut record)
        .map_err(|e| csv_error(&name, &e))?
    {
        let fields = record
            .iter()
            .zip(&names)
            .zip(&types)
            .filter(|((cell, _), _)| !cell.is_empty())
            .map(|((cell, column), ty)| (column.clone(), ty.value(cell)))
            .collect();
        rows.push(&Value::Object(fields));
    }
    rows.finish(options)
        .map_err(|e| CliError::new(format!("{name}: {e}")))
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
    delimiter: &str,
    header: bool,
    options: &EncodeOptions,
) -> Result<(), CliError> {
    let bytes = csv_rows(input, self::delimiter(delimiter)?, header, options)?;
    write_output(output, &bytes)
}

pub fn to_json(
    file: &Path,
    paths: &[String],
    pretty: bool,
    options: DecodeOptions,
) -> Result<(), CliError> {
    // Bad paths fail before the file is read.
    let paths = paths
        .iter()
        .map(|text| Ok((text, tree_buf::Path::parse(text)?)))
        .collect::<Result<Vec<_>, tree_buf::PathError>>()
        .map_err(|e| CliError::new(e.to_string()))?;
    let name = file.display().to_string();
    let bytes = read_input(file)?;
    let error = |e: tree_buf::DecodeError| match e.kind() {
        DecodeErrorKind::LimitExceeded => {
            CliError::new(format!("{name}: {e} (here: --max-decoded-bytes)"))
        }
        _ => CliError::new(format!("{name}: {e}")),
    };
    let value = if paths.is_empty() {
        tree_buf::decode_with_options::<Value>(&bytes, &options).map_err(error)?
    } else {
        let reader = Reader::with_options(&bytes, options).map_err(error)?;
        let columns = paths
            .into_iter()
            .map(|(text, path)| Ok((text.clone(), Value::Array(reader.decode_path(path)?))))
            .collect::<Result<_, _>>()
            .map_err(error)?;
        Value::Object(columns)
    };
    write_stdout(|out| {
        if pretty {
            serde_json::to_writer_pretty(&mut *out, &value)?;
        } else {
            serde_json::to_writer(&mut *out, &value)?;
        }
        out.write_all(b"\n")
    })
}
