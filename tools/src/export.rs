//! `to-json` and `to-csv`: archives read a chunk at a time, files of one value as a whole.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Read, Write};
use std::ops::Range;
use std::path::Path;
use std::rc::Rc;

use tree_buf::archive::{Archive, ArchiveError, StreamReader};
use tree_buf::{DecodeError, DecodeErrorKind, DecodeOptions, Reader, Segment, Value};

use crate::io::{is_stdio, open_input, read_input, write_stdout, Stop};
use crate::CliError;

/// A tree-buf file, opened.
pub enum Opened<'a> {
    /// An archive of rows.
    Archive(&'a Archive<'a>),
    /// The bytes of a file of one value.
    Value(&'a [u8]),
}

/// Where rows come from: a file opened as [`Open::file`] opens it, or an archive read from the
/// start a chunk at a time (standard input, a `.zst` file), whose rows can be read once, in order.
pub enum RowSource<'a> {
    Opened(Opened<'a>),
    Stream(RefCell<StreamReader<Keeping>>),
}

/// How to open a file: the limits to decode it under, and whether to recover the complete
/// chunks of an archive whose writer stopped.
pub struct Open {
    pub options: DecodeOptions,
    pub recover: bool,
}

impl Open {
    /// Opens `file` (`-` for standard input; `.zst` is decompressed) and hands it to `read`. An
    /// archive on disk is memory-mapped, not read.
    pub fn file<R>(
        &self,
        file: &Path,
        read: impl FnOnce(Opened<'_>) -> Result<R, CliError>,
    ) -> Result<R, CliError> {
        let name = file.display().to_string();
        let error = |e: DecodeError| self.error(&name, e);
        if !is_stdio(file) && !name.ends_with(".zst") {
            let archive = if self.recover {
                Archive::recover(file)
            } else {
                Archive::open_with_options(file, self.options.clone())
            };
            match archive {
                Ok(archive) => return read(Opened::Archive(&archive)),
                Err(ArchiveError::Decode(e)) if !one_value(&e, self.recover) => {
                    return Err(error(e))
                }
                Err(ArchiveError::Decode(_)) => {}
                Err(e) => return Err(CliError::new(format!("{name}: {e}"))),
            }
            return read(Opened::Value(&read_input(file)?));
        }
        let bytes = read_input(file)?;
        let archive = if self.recover {
            Archive::recover_bytes(&bytes)
        } else {
            Archive::from_bytes_with_options(&bytes, self.options.clone())
        };
        match archive {
            Ok(archive) => read(Opened::Archive(&archive)),
            Err(e) if !one_value(&e, self.recover) => Err(error(e)),
            Err(_) => read(Opened::Value(&bytes)),
        }
    }

    /// Opens `file` as [`Self::file`] does, except that an archive on standard input or in a
    /// `.zst` file is read as a stream, a chunk at a time, rather than whole: for reading its
    /// rows once, in order, in memory bounded by a chunk.
    pub fn rows<R>(
        &self,
        file: &Path,
        read: impl FnOnce(RowSource<'_>) -> Result<R, CliError>,
    ) -> Result<R, CliError> {
        let name = file.display().to_string();
        if !is_stdio(file) && !name.ends_with(".zst") {
            return self.file(file, |opened| read(RowSource::Opened(opened)));
        }
        // What the stream reader reads is kept until it has found an archive: a file of one
        // value is then read whole, the bytes the reader took included.
        let input = Rc::new(RefCell::new(open_input(file, "reading")?));
        let kept = Rc::new(RefCell::new(Some(Vec::new())));
        let keeping = Keeping {
            read: Rc::clone(&input),
            kept: Rc::clone(&kept),
        };
        match StreamReader::with_options(keeping, self.options.clone()) {
            Ok(stream) => {
                kept.replace(None);
                read(RowSource::Stream(RefCell::new(stream)))
            }
            Err(ArchiveError::Decode(e)) if one_value(&e, self.recover) => {
                let mut bytes = kept.replace(None).unwrap_or_default();
                (input.borrow_mut())
                    .read_to_end(&mut bytes)
                    .map_err(|e| CliError::new(format!("{name}: {e}")))?;
                read(RowSource::Opened(Opened::Value(&bytes)))
            }
            Err(ArchiveError::Decode(e)) => Err(self.error(&name, e)),
            Err(e) => Err(CliError::new(format!("{name}: {e}"))),
        }
    }

    /// The error of decoding `name`, with what to do about it where there is something.
    pub fn error(&self, name: &str, e: DecodeError) -> CliError {
        match e.kind() {
            DecodeErrorKind::LimitExceeded => CliError::new(format!(
                "{name}: {e} (here: --max-decoded-bytes, --max-depth)"
            )),
            DecodeErrorKind::Truncated | DecodeErrorKind::Corrupt if !self.recover => {
                CliError::new(format!(
                    "{name}: {e} (if it is an archive whose writer stopped, --recover reads \
                     its complete chunks)"
                ))
            }
            _ => CliError::new(format!("{name}: {e}")),
        }
    }
}

/// An input shared with a stream reader, which keeps a copy of what the reader reads while
/// `kept` holds a vector.
pub struct Keeping {
    read: Rc<RefCell<Box<dyn BufRead>>>,
    kept: Rc<RefCell<Option<Vec<u8>>>>,
}

impl Read for Keeping {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.read.borrow_mut().read(buf)?;
        if let Some(kept) = self.kept.borrow_mut().as_mut() {
            kept.extend_from_slice(&buf[..n]);
        }
        Ok(n)
    }
}

/// Whether opening a file as an archive failed because it holds one value.
fn one_value(error: &DecodeError, recover: bool) -> bool {
    !recover && error.kind() == DecodeErrorKind::SchemaMismatch
}

/// Which rows to read: `A..B`, `A..` or `..B` (from 0).
pub fn parse_rows(text: &str) -> Result<Range<u64>, String> {
    let (start, end) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}` is not a range of rows such as 10..20"))?;
    let number = |part: &str, default: u64| {
        if part.is_empty() {
            Ok(default)
        } else {
            part.parse::<u64>()
                .map_err(|_| format!("`{part}` in `{text}` is not a row number"))
        }
    };
    Ok(number(start, 0)?..number(end, u64::MAX)?)
}

/// Calls `each` on every row in `range` of an opened file: an archive's a chunk at a time
/// (only the chunks that hold rows of the range are read, each row made as it is taken), the
/// items of a file of one array.
fn for_each_row(
    source: &RowSource<'_>,
    open: &Open,
    name: &str,
    range: &Range<u64>,
    mut each: impl FnMut(Value) -> Result<(), Stop>,
) -> Result<(), Stop> {
    let error = |e| Stop::Fail(open.error(name, e));
    match source {
        RowSource::Opened(Opened::Archive(archive)) => archive
            .iter_rows::<Value>(range.clone())
            .try_for_each(|row| each(row.map_err(error)?)),
        RowSource::Stream(stream) => {
            let mut stream = stream.borrow_mut();
            let mut number = 0u64;
            while number < range.end {
                let rows = match stream.next_rows::<Value>() {
                    Ok(Some(rows)) => rows,
                    Ok(None) => break,
                    // A writer that stopped: the complete chunks were read.
                    Err(ArchiveError::Decode(e))
                        if open.recover && e.kind() == DecodeErrorKind::Truncated =>
                    {
                        break
                    }
                    Err(ArchiveError::Decode(e)) => return Err(error(e)),
                    Err(e) => return Err(Stop::Fail(CliError::new(format!("{name}: {e}")))),
                };
                for row in rows {
                    if number >= range.end {
                        break;
                    }
                    if number >= range.start {
                        each(row)?;
                    }
                    number += 1;
                }
            }
            Ok(())
        }
        RowSource::Opened(Opened::Value(bytes)) => {
            match tree_buf::decode_with_options::<Value>(bytes, &open.options).map_err(error)? {
                Value::Array(items) => items
                    .into_iter()
                    .skip(usize::try_from(range.start).unwrap_or(usize::MAX))
                    .take(usize::try_from(range.end - range.start).unwrap_or(usize::MAX))
                    .try_for_each(each),
                _ => Err(Stop::Fail(CliError::new(format!(
                    "{name}: holds one value that is not an array, so it has no rows"
                )))),
            }
        }
    }
}

/// How `to-json` writes.
pub struct JsonOut {
    pub pretty: bool,
    /// One row per line, rather than one array.
    pub lines: bool,
}

pub fn to_json(
    file: &Path,
    paths: &[String],
    rows: Option<Range<u64>>,
    out: &JsonOut,
    open: &Open,
) -> Result<(), CliError> {
    // Bad paths fail before the file is read.
    let paths = paths
        .iter()
        .map(|text| Ok((text, tree_buf::Path::parse(text)?)))
        .collect::<Result<Vec<_>, tree_buf::PathError>>()
        .map_err(|e| CliError::new(e.to_string()))?;
    let name = file.display().to_string();
    if !paths.is_empty() {
        // A path is read through an archive's footer, so a stream is read whole for it.
        return open.file(file, |opened| {
            let error = |e| open.error(&name, e);
            let columns = paths
                .into_iter()
                .map(|(text, path)| {
                    let values = match &opened {
                        Opened::Archive(archive) => archive.decode_path::<Vec<Value>>(path),
                        Opened::Value(bytes) => Reader::with_options(bytes, open.options.clone())
                            .and_then(|reader| reader.decode_path::<Vec<Value>>(path)),
                    };
                    Ok((text.clone(), Value::Array(values.map_err(error)?)))
                })
                .collect::<Result<_, CliError>>()?;
            write_stdout(|w| Ok(write_value(w, &Value::Object(columns), out.pretty)?))
        });
    }
    open.rows(file, |source| {
        if let (RowSource::Opened(Opened::Value(bytes)), None, false) = (&source, &rows, out.lines)
        {
            // One value, written whole as it is.
            let value = tree_buf::decode_with_options::<Value>(bytes, &open.options)
                .map_err(|e| open.error(&name, e))?;
            write_stdout(|w| Ok(write_value(w, &value, out.pretty)?))?;
            value.drop_deep();
            return Ok(());
        }
        let range = rows.clone().unwrap_or(0..u64::MAX);
        write_stdout(|w| {
            let mut count = 0u64;
            for_each_row(&source, open, &name, &range, |row| {
                write_row(w, &row, count, out)?;
                row.drop_deep();
                count += 1;
                Ok(())
            })?;
            if !out.lines {
                let end: &[u8] = match (count, out.pretty) {
                    (0, _) => b"[]\n",
                    (_, true) => b"\n]\n",
                    (_, false) => b"]\n",
                };
                w.write_all(end)?;
            }
            Ok(())
        })
    })
}

fn write_value(w: &mut dyn Write, value: &Value, pretty: bool) -> std::io::Result<()> {
    if pretty {
        serde_json::to_writer_pretty(&mut *w, value)?;
    } else {
        serde_json::to_writer(&mut *w, value)?;
    }
    w.write_all(b"\n")
}

/// Writes row number `index` of the output: a line, or an item of the array, indented as
/// serde_json indents a whole array.
fn write_row(w: &mut dyn Write, row: &Value, index: u64, out: &JsonOut) -> std::io::Result<()> {
    if out.lines {
        serde_json::to_writer(&mut *w, row)?;
        return w.write_all(b"\n");
    }
    w.write_all(if index == 0 { b"[" } else { b"," })?;
    if out.pretty {
        // JSON text holds no newline but between tokens, so lines indent safely.
        let text = serde_json::to_string_pretty(row)?;
        w.write_all(b"\n  ")?;
        w.write_all(text.replace('\n', "\n  ").as_bytes())
    } else {
        Ok(serde_json::to_writer(&mut *w, row)?)
    }
}

/// Writes rows of objects as CSV: a column per field (in schema order), a cell per field of
/// each row: strings as they are, nested values as JSON text, absent fields and nulls blank.
pub fn to_csv(file: &Path, rows: Option<Range<u64>>, open: &Open) -> Result<(), CliError> {
    let name = file.display().to_string();
    let range = rows.unwrap_or(0..u64::MAX);
    open.file(file, |opened| {
        let header = fields(&opened, open, &name)?;
        let source = RowSource::Opened(opened);
        let columns: HashMap<&str, usize> = (header.iter().enumerate())
            .map(|(i, h)| (h.as_str(), i))
            .collect();
        write_stdout(|w| {
            let mut csv = csv::Writer::from_writer(w);
            csv.write_record(&header).map_err(std::io::Error::from)?;
            let mut cells = vec![String::new(); header.len()];
            let mut number = range.start;
            for_each_row(&source, open, &name, &range, |row| {
                cells.iter_mut().for_each(String::clear);
                for (field, value) in object(&row, number, &name)? {
                    let column = columns.get(field.as_str()).ok_or_else(|| {
                        CliError::new(format!(
                            "{name}: row {number} has a field `{field}` its schema lacks"
                        ))
                    })?;
                    cells[*column] = cell(value);
                }
                number += 1;
                Ok(csv.write_record(&cells).map_err(std::io::Error::from)?)
            })?;
            Ok(csv.flush()?)
        })
    })
}

/// The fields of the rows, from the schemas (no row is decoded): each chunk's in its schema's
/// order, and fields that a chunk has and the chunks before it lack placed before the next
/// field they precede there, so that a column blank in the first chunks keeps its place.
fn fields(opened: &Opened<'_>, open: &Open, name: &str) -> Result<Vec<String>, CliError> {
    let lists: Vec<Vec<String>> = match opened {
        Opened::Archive(archive) => (archive.chunks().iter())
            .map(|chunk| row_fields(chunk.branches.iter().map(|b| b.path.clone())))
            .collect(),
        Opened::Value(bytes) => {
            let reader = Reader::with_options(bytes, open.options.clone())
                .map_err(|e| open.error(name, e))?;
            vec![row_fields(
                reader.schema().iter().map(|n| n.path.to_string()),
            )]
        }
    };
    let mut header: Vec<String> = Vec::new();
    let mut known = HashSet::new();
    for list in lists {
        let mut new = Vec::new();
        for field in list {
            if known.insert(field.clone()) {
                new.push(field);
            } else if !new.is_empty() {
                let at = header
                    .iter()
                    .position(|h| *h == field)
                    .unwrap_or(header.len());
                header.splice(at..at, new.drain(..));
            }
        }
        header.append(&mut new);
    }
    Ok(header)
}

/// The names of the fields of rows (`name` of paths `[].name…`), in the order of `paths`.
fn row_fields(paths: impl Iterator<Item = String>) -> Vec<String> {
    let mut fields: Vec<String> = Vec::new();
    for path in paths {
        let Ok(path) = tree_buf::Path::parse(&path) else {
            continue;
        };
        if let [Segment::Items, Segment::Name(field), ..] = path.segments() {
            if !fields.contains(field) {
                fields.push(field.clone());
            }
        }
    }
    fields
}

/// The fields of row `number`, which must be an object.
fn object<'v>(row: &'v Value, number: u64, name: &str) -> Result<&'v [(String, Value)], Stop> {
    match row {
        Value::Object(fields) => Ok(fields),
        _ => Err(Stop::Fail(CliError::new(format!(
            "{name}: row {number} is not an object: CSV needs rows of objects"
        )))),
    }
}

/// The CSV text of a value.
fn cell(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(text) => text.clone(),
        // Numbers and booleans as JSON writes them; nested values as JSON text.
        _ => serde_json::to_string(value).unwrap_or_default(),
    }
}
