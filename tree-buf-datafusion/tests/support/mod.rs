//! Parquet twins of tree-buf tables: the same rows, for the tests that compare answers and the
//! report that compares speed, bytes read and size.

use datafusion::arrow::array::RecordBatch;
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::SessionContext;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::path::Path;
use std::sync::Arc;

/// Plans `sql` and runs the plan to the end: its batches, and the plan with its metrics.
pub async fn run(ctx: &SessionContext, sql: &str) -> (Vec<RecordBatch>, Arc<dyn ExecutionPlan>) {
    let frame = ctx.sql(sql).await.unwrap();
    let plan = frame.create_physical_plan().await.unwrap();
    let batches = collect(Arc::clone(&plan), ctx.task_ctx()).await.unwrap();
    (batches, plan)
}

/// The bytes every tree-buf or Parquet scan in `plan` read, by their `bytes_scanned` metrics.
pub fn scanned_bytes(plan: &dyn ExecutionPlan) -> usize {
    metric(plan, "bytes_scanned")
}

/// The sum of the counter `name` over `plan` and every plan below it.
pub fn metric(plan: &dyn ExecutionPlan, name: &str) -> usize {
    let own = (plan.metrics())
        .and_then(|metrics| metrics.sum_by_name(name))
        .map_or(0, |value| value.as_usize());
    own + (plan.children().iter())
        .map(|child| metric(child.as_ref(), name))
        .sum::<usize>()
}

/// Writes `batches` to `path` as Parquet, compressed with zstd at level 3, with row groups of
/// `row_group_rows` rows. Parquet has no unions: a union column is written as a struct with a
/// nullable field per variant ([`tree_buf_arrow::without_unions`]).
pub fn write_parquet(batches: &[RecordBatch], path: &Path, row_group_rows: usize) {
    let batches: Vec<RecordBatch> = (batches.iter())
        .map(|batch| tree_buf_arrow::without_unions(batch).unwrap())
        .collect();
    let properties = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(3).unwrap()))
        .set_max_row_group_row_count(Some(row_group_rows))
        .build();
    let file = std::fs::File::create(path).unwrap();
    let mut writer = ArrowWriter::try_new(file, batches[0].schema(), Some(properties)).unwrap();
    for batch in &batches {
        writer.write(batch).unwrap();
    }
    writer.close().unwrap();
}

/// Queries over the baseball databank's `batting` and `people` tables, each named, with `{t}`
/// after every table name for the tests and the report to fill in.
pub const BASEBALL: &[(&str, &str)] = &[
    (
        "batting: home runs by year (group by)",
        "SELECT year_id, count(*) AS players, sum(hr) AS hr FROM batting{t} \
         GROUP BY year_id ORDER BY year_id",
    ),
    (
        "batting: most hits by a team since 2000 (filter, top 10)",
        "SELECT team_id, year_id, sum(h) AS h FROM batting{t} WHERE year_id >= 2000 \
         GROUP BY team_id, year_id ORDER BY h DESC, team_id, year_id LIMIT 10",
    ),
    (
        "batting: best team batting average (top 10)",
        "SELECT team_id, year_id, round(CAST(sum(h) AS DOUBLE) / sum(ab), 4) AS average \
         FROM batting{t} WHERE ab > 0 GROUP BY team_id, year_id \
         ORDER BY average DESC, team_id, year_id LIMIT 10",
    ),
    (
        "batting JOIN people: career home runs with names",
        "SELECT p.name_first, p.name_last, sum(b.hr) AS hr FROM batting{t} b \
         JOIN people{t} p ON b.player_id = p.player_id \
         GROUP BY p.player_id, p.name_first, p.name_last ORDER BY hr DESC, p.player_id LIMIT 10",
    ),
    (
        "batting: one player's seasons (string filter)",
        "SELECT year_id, team_id, hr FROM batting{t} WHERE player_id = 'ruthba01' \
         ORDER BY year_id, team_id",
    ),
];

/// Queries over every Retrosheet game log, `games`.
pub const RETROSHEET: &[(&str, &str)] = &[
    (
        "games: attendance by park (group by)",
        "SELECT park, count(*) AS games, round(avg(attendance), 1) AS attendance FROM games{t} \
         GROUP BY park ORDER BY park",
    ),
    (
        "games: one week's attendance (2 columns, filter)",
        "SELECT date, attendance FROM games{t} WHERE date BETWEEN 20180601 AND 20180607 \
         ORDER BY date, attendance",
    ),
    (
        "games: runs by home team (nested field, group by)",
        "SELECT home['team'] AS team, sum(home['score']) AS runs FROM games{t} \
         GROUP BY home['team'] ORDER BY team",
    ),
    (
        "games: games by weekday (dictionary column)",
        "SELECT day_of_week, count(*) AS games FROM games{t} \
         GROUP BY day_of_week ORDER BY day_of_week",
    ),
    (
        "games: longest games (nested fields, top 5)",
        "SELECT date, visitor['team'] AS visitor, home['team'] AS home, duration_minutes \
         FROM games{t} ORDER BY duration_minutes DESC, date, home LIMIT 5",
    ),
];

/// Queries over the world countries' GeoJSON features, `countries`.
pub const GEOJSON: &[(&str, &str)] = &[
    (
        "countries: names starting with S (nested fields, no borders)",
        "SELECT properties['admin'] AS name, properties['iso_a3'] AS iso FROM countries{t} \
         WHERE properties['admin'] LIKE 'S%' ORDER BY name",
    ),
    (
        "countries: by initial of the ISO code",
        "SELECT substr(properties['iso_a3'], 1, 1) AS initial, count(*) AS n FROM countries{t} \
         GROUP BY initial ORDER BY initial",
    ),
];
