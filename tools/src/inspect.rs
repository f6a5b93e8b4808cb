//! `schema` and `size-breakdown`.

use std::fmt::Write as _;
use std::path::Path;

use tree_buf::{Reader, SizeBreakdown};

use crate::io::{read_input, write_output};
use crate::CliError;

pub fn schema(file: &Path) -> Result<(), CliError> {
    let name = file.display().to_string();
    let bytes = read_input(file)?;
    let reader = Reader::new(&bytes).map_err(|e| CliError::new(format!("{name}: {e}")))?;
    write_output(Path::new("-"), reader.schema().to_string().as_bytes())
}

pub fn size_breakdown(file: &Path, json: bool, svg: Option<&Path>) -> Result<(), CliError> {
    let name = file.display().to_string();
    let bytes = read_input(file)?;
    let breakdown =
        tree_buf::size_breakdown(&bytes).map_err(|e| CliError::new(format!("{name}: {e}")))?;
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

/// A horizontal bar chart of bytes by path, largest first, each bar labelled with its path,
/// size, share and encoding.
fn chart(breakdown: &SizeBreakdown, title: &str) -> String {
    let mut bars: Vec<(String, usize, String)> = breakdown
        .branches
        .iter()
        .map(|b| {
            (
                b.path.clone(),
                b.bytes,
                format!("{}, {}", b.node_type, b.encoding),
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
    let (row, label_width, bar_width) = (22, 360.0, 420.0);
    let height = 60 + row * bars.len();
    let mut svg = String::new();
    let _ = write!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="{height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="10" y="24" font-size="16" font-weight="bold">{} — {} bytes</text>
"##,
        escape(title),
        breakdown.total_bytes
    );
    for (i, (path, bytes, detail)) in bars.iter().enumerate() {
        let y = 44 + i * row;
        let width = (*bytes as f64 / largest as f64 * bar_width).max(1.0);
        let share = 100.0 * *bytes as f64 / breakdown.total_bytes.max(1) as f64;
        let _ = writeln!(
            svg,
            r##"<text x="{x}" y="{ty}" text-anchor="end">{path}</text><rect x="{bx}" y="{y}" width="{width:.1}" height="16" fill="#4a7bb7"/><text x="{dx:.1}" y="{ty}">{bytes} B ({share:.1}%) {detail}</text>"##,
            x = label_width - 8.0,
            ty = y + 12,
            path = escape(path),
            bx = label_width,
            dx = label_width + width + 6.0,
            detail = escape(detail),
        );
    }
    svg.push_str("</svg>\n");
    svg
}
