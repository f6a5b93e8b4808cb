//! `schema` and `size-breakdown`.

use std::fmt::Write as _;
use std::path::Path;

use tree_buf::{BreakdownOptions, Reader, SizeBreakdown};

use crate::io::{read_input, write_output};
use crate::CliError;

pub fn schema(file: &Path) -> Result<(), CliError> {
    let name = file.display().to_string();
    let bytes = read_input(file)?;
    let reader = Reader::new(&bytes).map_err(|e| CliError::new(format!("{name}: {e}")))?;
    write_output(Path::new("-"), reader.schema().to_string().as_bytes())
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
        if i > 0 && (digits.len() - i) % 3 == 0 {
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
