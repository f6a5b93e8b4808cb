//! `info`, `schema` and `size-breakdown`.

use std::fmt::Write as _;
use std::path::Path;

use tree_buf::archive::{Archive, ChunkInfo, Statistics};
use tree_buf::{BreakdownOptions, NodeType, Reader, SizeBreakdown};

use crate::export::{Open, Opened};
use crate::io::{read_input, write_output};
use crate::CliError;

/// Prints the schema tree of a file of one value, or of each run of an archive's chunks that
/// share one (rows of `Value`s may widen part way), with the bytes and encodings of its chunks'
/// branches.
pub fn schema(file: &Path, open: &Open) -> Result<(), CliError> {
    let name = file.display().to_string();
    let text = open.file(file, |opened| match opened {
        Opened::Value(bytes) => {
            let reader = Reader::new(bytes).map_err(|e| open.error(&name, e))?;
            Ok(reader.schema().to_string())
        }
        Opened::Archive(archive) => {
            // Each run of chunks whose schemas have the same nodes is shown once, with the
            // branch sizes of its first chunk: (first chunk, end, its reader, the nodes).
            let nodes = |reader: &Reader<'_>| -> Vec<(String, NodeType)> {
                (reader.schema().iter())
                    .map(|node| (node.path.to_string(), node.node_type))
                    .collect()
            };
            let mut runs: Vec<(usize, usize, Reader<'_>, Vec<_>)> = Vec::new();
            for index in 0..archive.chunks().len() {
                let reader = (archive.chunk_reader(index)).map_err(|e| open.error(&name, e))?;
                let shape = nodes(&reader);
                match runs.last_mut() {
                    Some((_, end, _, last)) if *last == shape => *end = index + 1,
                    _ => runs.push((index, index + 1, reader, shape)),
                }
            }
            let chunks = archive.chunks();
            let mut text = String::new();
            for (first, end, reader, _) in runs {
                let rows =
                    chunks[first].first_row..chunks[end - 1].first_row + chunks[end - 1].rows;
                let _ = match end - first {
                    1 => writeln!(text, "chunk {first} (rows {rows:?}):"),
                    _ => writeln!(
                        text,
                        "chunks {first} to {} (rows {rows:?}), with chunk {first}'s branch sizes:",
                        end - 1
                    ),
                };
                let _ = writeln!(text, "{}", reader.schema());
            }
            Ok(text)
        }
    })?;
    write_output(Path::new("-"), text.as_bytes())
}

pub fn size_breakdown(
    file: &Path,
    json: bool,
    svg: Option<&Path>,
    decompress_zstd: bool,
) -> Result<(), CliError> {
    let name = file.display().to_string();
    let bytes = read_input(file)?;
    let options = BreakdownOptions::default().decompress_zstd(decompress_zstd);
    let breakdown = tree_buf::size_breakdown_with_options(&bytes, &options)
        .map_err(|e| CliError::new(format!("{name}: {e}")))?;
    if let Some(svg) = svg {
        write_output(svg, chart(&breakdown, &name).as_bytes())?;
    }
    let text = if json {
        let mut text =
            serde_json::to_string_pretty(&breakdown).map_err(|e| CliError::new(e.to_string()))?;
        text.push('\n');
        text
    } else {
        breakdown.to_string()
    };
    write_output(Path::new("-"), text.as_bytes())
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The most branches a chart shows; the rest are summed in one bar.
const CHART_BARS: usize = 40;

/// Average glyph widths of the chart's sans-serif fonts, in pixels, to size the layout.
const CHAR_WIDTH: f64 = 7.0;
const SMALL_CHAR_WIDTH: f64 = 6.0;

/// `1234567` as `1,234,567`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `text` cut to `max` characters, with an ellipsis when cut.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut clipped: String = text.chars().take(max.saturating_sub(1)).collect();
    clipped.push('…');
    clipped
}

/// A horizontal bar chart of bytes by path, largest first: each bar labelled with its path, its
/// size and share, and under it the branch's type and encoding (cut to fit; the whole of it
/// shows on hover).
fn chart(breakdown: &SizeBreakdown, title: &str) -> String {
    let mut bars: Vec<(String, usize, String)> = breakdown
        .branches
        .iter()
        .map(|b| {
            (
                b.path.clone(),
                b.bytes,
                format!("{}: {}", b.node_type, b.encoding),
            )
        })
        .collect();
    bars.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    if bars.len() > CHART_BARS {
        let rest: usize = bars[CHART_BARS - 1..].iter().map(|b| b.1).sum();
        let count = bars.len() - CHART_BARS + 1;
        bars.truncate(CHART_BARS - 1);
        bars.push((format!("{count} other branches"), rest, String::new()));
    }
    let overhead = breakdown.header_bytes + breakdown.schema_bytes + breakdown.table_bytes;
    bars.push((
        "header, schema and branch table".into(),
        overhead,
        String::new(),
    ));
    let largest = bars.iter().map(|b| b.1).max().unwrap_or(1).max(1);
    let longest_path = bars.iter().map(|b| b.0.chars().count()).max().unwrap_or(0);
    let label_width = (longest_path as f64 * CHAR_WIDTH + 20.0).max(120.0);
    let bar_width = 480.0;
    let width = (label_width + bar_width + 180.0).max(900.0);
    let detail_chars = ((width - label_width - 10.0) / SMALL_CHAR_WIDTH) as usize;
    let row = 36;
    let height = 56 + row * bars.len();
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="10" y="24" font-size="16" font-weight="bold">{} — {} bytes, by path</text>
"##,
        escape(title),
        thousands(breakdown.total_bytes)
    );
    for (i, (path, bytes, detail)) in bars.iter().enumerate() {
        let y = 40 + i * row;
        let length = (*bytes as f64 / largest as f64 * bar_width).max(1.0);
        let share = 100.0 * *bytes as f64 / breakdown.total_bytes.max(1) as f64;
        let _ = writeln!(
            svg,
            r##"<g><title>{path}: {bytes} bytes ({share:.1}%){full}</title><text x="{x}" y="{ty}" text-anchor="end">{path}</text><rect x="{bx}" y="{y}" width="{length:.1}" height="16" fill="#4a7bb7"/><text x="{sx:.1}" y="{ty}">{size} B ({share:.1}%)</text><text x="{bx}" y="{dy}" font-size="10" fill="#555555">{detail}</text></g>"##,
            path = escape(path),
            full = escape(&if detail.is_empty() {
                String::new()
            } else {
                format!("\n{detail}")
            }),
            x = label_width - 8.0,
            ty = y + 12,
            bx = label_width,
            sx = label_width + length + 6.0,
            size = thousands(*bytes),
            dy = y + 28,
            detail = escape(&clip(detail, detail_chars)),
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// Describes a file: an archive's chunks and its branches' statistics, or a file of one value
/// in short.
pub fn info(file: &Path, json: bool, open: &Open) -> Result<(), CliError> {
    let name = file.display().to_string();
    open.file(file, |opened| {
        let text = match opened {
            Opened::Archive(archive) => {
                if archive.unfinished_bytes() > 0 {
                    eprintln!(
                        "warning: {name}: the last {} bytes belong to no chunk the footer lists \
                         (a writer that stopped?); --recover reads the complete chunks in them",
                        archive.unfinished_bytes()
                    );
                }
                if json {
                    archive_json(archive, &name)
                } else {
                    archive_text(archive, &name)
                }
            }
            Opened::Value(bytes) => {
                let reader = Reader::new(bytes).map_err(|e| open.error(&name, e))?;
                let schema = reader.schema();
                let nodes = schema.iter().count();
                let branches = schema.iter().filter(|n| n.node_type.has_branch()).count();
                if json {
                    pretty(&serde_json::json!({
                        "file": name,
                        "archive": false,
                        "bytes": bytes.len(),
                        "root": schema.node_type.to_string(),
                        "schema_nodes": nodes,
                        "branches": branches,
                    }))
                } else {
                    format!(
                        "{name}: one value (not an archive), {} bytes\nroot: {}, {nodes} schema \
                         nodes, {branches} branches (see `schema` and `size-breakdown`)\n",
                        thousands(bytes.len()),
                        schema.node_type
                    )
                }
            }
        };
        write_output(Path::new("-"), text.as_bytes())
    })
}

fn pretty(json: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(json).unwrap_or_default();
    text.push('\n');
    text
}

/// Statistics as JSON: integers that JSON numbers may not hold exactly as text.
fn statistics_json(statistics: &Statistics) -> serde_json::Value {
    fn integer(n: impl TryInto<i64> + ToString + Copy) -> serde_json::Value {
        match n.try_into() {
            Ok(n) => n.into(),
            Err(_) => n.to_string().into(),
        }
    }
    match statistics {
        Statistics::Nulls(nulls) => serde_json::json!({ "nulls": nulls }),
        Statistics::Unsigned { min, max } => {
            serde_json::json!({ "min": integer(*min), "max": integer(*max) })
        }
        Statistics::Signed { min, max } => {
            serde_json::json!({ "min": integer(*min), "max": integer(*max) })
        }
        Statistics::Float { min, max } => serde_json::json!({ "min": min, "max": max }),
        Statistics::Str { min, max } => serde_json::json!({
            "min": String::from_utf8_lossy(min),
            "max": String::from_utf8_lossy(max),
        }),
        _ => serde_json::Value::Null,
    }
}

fn archive_json(archive: &Archive<'_>, name: &str) -> String {
    let chunks: Vec<_> = (archive.chunks().iter())
        .map(|chunk| {
            let branches: Vec<_> = (chunk.branches.iter())
                .map(|branch| {
                    serde_json::json!({
                        "path": branch.path,
                        "type": branch.node_type.to_string(),
                        "bytes": branch.bytes,
                        "crc": branch.crc,
                        "values": branch.values,
                        "statistics": branch.statistics.as_ref().map(statistics_json),
                    })
                })
                .collect();
            serde_json::json!({
                "first_row": chunk.first_row,
                "rows": chunk.rows,
                "offset": chunk.offset,
                "bytes": chunk.bytes,
                "branches": branches,
            })
        })
        .collect();
    pretty(&serde_json::json!({
        "file": name,
        "archive": true,
        "rows": archive.rows(),
        "unfinished_bytes": archive.unfinished_bytes(),
        "metadata": (archive.metadata().iter())
            .map(|(key, value)| (key.clone(), serde_json::Value::from(value.as_str())))
            .collect::<serde_json::Map<_, _>>(),
        "chunks": chunks,
    }))
}

/// A branch summed over the chunks that have it (with the same type).
struct BranchTotal {
    path: String,
    node_type: NodeType,
    bytes: u64,
    values: u64,
    chunks: usize,
    /// The bounds of every chunk's values, while all chunks have bounds of one kind.
    statistics: Option<Statistics>,
}

/// The bounds of `a` and `b` together, if they are of one kind.
fn merge(a: &Statistics, b: &Statistics) -> Option<Statistics> {
    Some(match (a, b) {
        (Statistics::Nulls(a), Statistics::Nulls(b)) => Statistics::Nulls(a + b),
        (Statistics::Unsigned { min, max }, Statistics::Unsigned { min: n, max: x }) => {
            Statistics::Unsigned {
                min: *min.min(n),
                max: *max.max(x),
            }
        }
        (Statistics::Signed { min, max }, Statistics::Signed { min: n, max: x }) => {
            Statistics::Signed {
                min: *min.min(n),
                max: *max.max(x),
            }
        }
        (Statistics::Float { min, max }, Statistics::Float { min: n, max: x }) => {
            Statistics::Float {
                min: min.min(*n),
                max: max.max(*x),
            }
        }
        (Statistics::Str { min, max }, Statistics::Str { min: n, max: x }) => Statistics::Str {
            min: min.min(n).clone(),
            max: max.max(x).clone(),
        },
        _ => return None,
    })
}

fn totals(chunks: &[ChunkInfo]) -> Vec<BranchTotal> {
    let mut totals: Vec<BranchTotal> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for chunk in chunks {
        for branch in &chunk.branches {
            let key = (branch.path.clone(), branch.node_type);
            match index.get(&key) {
                Some(&at) => {
                    let total: &mut BranchTotal = &mut totals[at];
                    total.bytes += branch.bytes;
                    total.values += branch.values;
                    total.chunks += 1;
                    total.statistics = match (&total.statistics, &branch.statistics) {
                        (Some(a), Some(b)) => merge(a, b),
                        _ => None,
                    };
                }
                None => {
                    index.insert(key, totals.len());
                    totals.push(BranchTotal {
                        path: branch.path.clone(),
                        node_type: branch.node_type,
                        bytes: branch.bytes,
                        values: branch.values,
                        chunks: 1,
                        statistics: branch.statistics.clone(),
                    });
                }
            }
        }
    }
    totals
}

/// Bounds as table cells: least, greatest, nulls.
fn bounds(statistics: Option<&Statistics>) -> [String; 3] {
    let text = |bytes: &[u8]| format!("{:?}", clip(&String::from_utf8_lossy(bytes), 24));
    match statistics {
        Some(Statistics::Nulls(nulls)) => {
            [String::new(), String::new(), thousands(*nulls as usize)]
        }
        Some(Statistics::Unsigned { min, max }) => {
            [min.to_string(), max.to_string(), String::new()]
        }
        Some(Statistics::Signed { min, max }) => [min.to_string(), max.to_string(), String::new()],
        Some(Statistics::Float { min, max }) => [min.to_string(), max.to_string(), String::new()],
        Some(Statistics::Str { min, max }) => [text(min), text(max), String::new()],
        _ => Default::default(),
    }
}

/// Lines of cells, each column as wide as its widest cell; columns after the first
/// right-aligned when `numbers` says so.
fn table(rows: &[Vec<String>], numbers: &[bool]) -> String {
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let width = widths[c];
            if numbers.get(c).copied().unwrap_or(false) {
                let _ = write!(line, "{cell:>width$}  ");
            } else {
                let _ = write!(line, "{cell:<width$}  ");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn archive_text(archive: &Archive<'_>, name: &str) -> String {
    let chunks = archive.chunks();
    let mut out = format!(
        "{name}: archive, {} rows in {} chunks\n\n",
        thousands(archive.rows() as usize),
        chunks.len()
    );
    if !archive.metadata().is_empty() {
        out.push_str("Metadata:\n");
        for (key, value) in archive.metadata() {
            // A long value (an encoded schema, say) is shown by its length; `--json` has it whole.
            match value.chars().count() {
                0..=80 => out.push_str(&format!("  {key}: {value}\n")),
                long => out.push_str(&format!("  {key}: ({} characters)\n", thousands(long))),
            }
        }
        out.push('\n');
    }
    let mut rows = vec![
        ["chunk", "first row", "rows", "offset", "bytes", "branches"]
            .map(str::to_owned)
            .to_vec(),
    ];
    for (index, chunk) in chunks.iter().enumerate() {
        rows.push(vec![
            index.to_string(),
            thousands(chunk.first_row as usize),
            thousands(chunk.rows as usize),
            thousands(chunk.offset as usize),
            thousands(chunk.bytes as usize),
            chunk.branches.len().to_string(),
        ]);
    }
    out.push_str(&table(&rows, &[true; 6]));
    out.push_str("\nBranches, over the chunks that have them:\n");
    let mut rows = vec![[
        "path", "type", "bytes", "values", "chunks", "min", "max", "nulls",
    ]
    .map(str::to_owned)
    .to_vec()];
    for total in totals(chunks) {
        let [min, max, nulls] = bounds(total.statistics.as_ref());
        rows.push(vec![
            if total.path.is_empty() {
                "(root)".to_owned()
            } else {
                total.path
            },
            total.node_type.to_string(),
            thousands(total.bytes as usize),
            thousands(total.values as usize),
            total.chunks.to_string(),
            min,
            max,
            nulls,
        ]);
    }
    out.push_str(&table(
        &rows,
        &[false, false, true, true, true, true, true, true],
    ));
    out
}
