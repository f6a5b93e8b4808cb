//! `query`: SQL over archives, answered by DataFusion (the `query` feature).

use std::path::PathBuf;
use std::str::FromStr;

use clap::ValueEnum;

use crate::CliError;

/// An archive named as a table: `name=path`.
#[derive(Debug, Clone)]
#[cfg_attr(
    not(feature = "query"),
    expect(dead_code, reason = "parsed, then refused without the query engine")
)]
pub struct TableArg {
    pub name: String,
    pub path: PathBuf,
}

impl FromStr for TableArg {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.split_once('=') {
            Some((name, path)) if !name.is_empty() && !path.is_empty() => Ok(TableArg {
                name: name.to_owned(),
                path: PathBuf::from(path),
            }),
            _ => Err(format!("`{text}` is not NAME=PATH")),
        }
    }
}

/// How answers are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum QueryFormat {
    /// An aligned text table.
    Table,
    /// CSV with a header row.
    Csv,
    /// A JSON array of objects.
    Json,
    /// One JSON object per line.
    Jsonl,
}

#[cfg(not(feature = "query"))]
pub fn query(_sql: &str, _tables: &[TableArg], _format: QueryFormat) -> Result<(), CliError> {
    Err(CliError::new(
        "this tree-buf was built without SQL; build it with the `query` feature: \
         cargo install --path tools --features query",
    ))
}

#[cfg(feature = "query")]
pub fn query(sql: &str, tables: &[TableArg], format: QueryFormat) -> Result<(), CliError> {
    use std::sync::Arc;

    use datafusion::prelude::SessionContext;
    use tree_buf_datafusion::TreeBufTable;

    use crate::io::write_stdout;

    let fail = |error: datafusion::error::DataFusionError| CliError::new(error.to_string());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .build()
        .map_err(|e| CliError::new(format!("starting the query engine: {e}")))?;
    let answers = runtime.block_on(async {
        let ctx = SessionContext::new();
        tree_buf_datafusion::register(&ctx);
        for table in tables {
            let provider = TreeBufTable::open(&table.path).map_err(fail)?;
            ctx.register_table(table.name.as_str(), Arc::new(provider))
                .map_err(fail)?;
        }
        // Several statements run in order (`CREATE EXTERNAL TABLE ...; SELECT ...`); each
        // answer with columns is printed.
        let statements = datafusion::sql::parser::DFParser::parse_sql(sql)
            .map_err(|e| CliError::new(e.to_string()))?;
        let mut answers = Vec::new();
        for statement in statements {
            let state = ctx.state();
            let plan = state.statement_to_plan(statement).await.map_err(fail)?;
            let batches = ctx.execute_logical_plan(plan).await.map_err(fail)?;
            let schema = Arc::clone(batches.schema().inner());
            let batches = batches.collect().await.map_err(fail)?;
            if !schema.fields().is_empty() {
                answers.push((schema, batches));
            }
        }
        Ok::<_, CliError>(answers)
    })?;
    write_stdout(|out| {
        for (schema, batches) in &answers {
            write_answer(out, schema, batches, format)?;
        }
        Ok(())
    })
}

#[cfg(feature = "query")]
fn write_answer(
    out: &mut dyn std::io::Write,
    schema: &datafusion::arrow::datatypes::Schema,
    batches: &[datafusion::arrow::array::RecordBatch],
    format: QueryFormat,
) -> Result<(), crate::io::Stop> {
    use datafusion::arrow::{csv, json};

    let arrow = |error: datafusion::arrow::error::ArrowError| {
        crate::io::Stop::Fail(CliError::new(error.to_string()))
    };
    match format {
        QueryFormat::Table => {
            let text = if batches.is_empty() {
                // No batch: the column names alone.
                let names: Vec<&str> = (schema.fields().iter())
                    .map(|field| field.name().as_str())
                    .collect();
                names.join(" | ")
            } else {
                datafusion::arrow::util::pretty::pretty_format_batches(batches)
                    .map_err(arrow)?
                    .to_string()
            };
            writeln!(out, "{text}")?;
        }
        QueryFormat::Csv => {
            let mut writer = csv::WriterBuilder::new().with_header(true).build(out);
            for batch in batches {
                writer.write(batch).map_err(arrow)?;
            }
        }
        QueryFormat::Json => {
            let mut writer = json::ArrayWriter::new(&mut *out);
            for batch in batches {
                writer.write(batch).map_err(arrow)?;
            }
            writer.finish().map_err(arrow)?;
            writeln!(out)?;
        }
        QueryFormat::Jsonl => {
            let mut writer = json::LineDelimitedWriter::new(&mut *out);
            for batch in batches {
                writer.write(batch).map_err(arrow)?;
            }
            writer.finish().map_err(arrow)?;
        }
    }
    Ok(())
}
