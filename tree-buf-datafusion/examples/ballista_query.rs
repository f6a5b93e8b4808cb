//! Runs SQL over tree-buf archives (a file, or a directory of them ending in `/`) on a Ballista
//! cluster (see `ballista_scheduler` and `ballista_executor`), and prints the answer.
//!
//! `cargo run --release -p tree-buf-datafusion --features ballista --example ballista_query --
//! df://localhost:50050 games=/data/games.tb "SELECT count(*) FROM games"`

use std::sync::Arc;

use ballista::prelude::SessionContextExt;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::SessionContext;
use tree_buf_datafusion::TreeBufListingTable;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "SCHEDULER_URL NAME=ARCHIVE SQL";
    let url = args.next().ok_or(usage)?;
    let table = args.next().ok_or(usage)?;
    let sql = args.next().ok_or(usage)?;
    let (name, path) = table.split_once('=').ok_or(usage)?;
    let state = tree_buf_datafusion::ballista_state();
    let ctx = SessionContext::remote_with_state(&url, state).await?;
    // A listing table's scan is one Ballista splits over its tasks, by files and chunk ranges.
    let table = TreeBufListingTable::open(&ctx.state(), path).await?;
    ctx.register_table(name, Arc::new(table))?;
    let batches = ctx.sql(&sql).await?.collect().await?;
    println!("{}", pretty_format_batches(&batches)?);
    Ok(())
}
