//! A Ballista scheduler that knows tree-buf tables and scans.
//!
//! `cargo run --release -p tree-buf-datafusion --features ballista --example ballista_scheduler
//! -- [HOST:PORT]` (default `127.0.0.1:50050`). Start executors with the `ballista_executor`
//! example, and query with `ballista_query`.

use std::sync::Arc;

use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:50050".into());
    let address: std::net::SocketAddr = address.parse()?;
    let (logical, physical) = tree_buf_datafusion::ballista_codecs();
    let config = SchedulerConfig {
        bind_host: address.ip().to_string(),
        bind_port: address.port(),
        override_logical_codec: Some(logical),
        override_physical_codec: Some(physical),
        ..SchedulerConfig::default()
    };
    let cluster = BallistaCluster::new_from_config(&config).await?;
    println!("scheduler listening on {address}");
    start_server(cluster, address, Arc::new(config)).await?;
    Ok(())
}
