//! A Ballista executor that knows tree-buf scans.
//!
//! `cargo run --release -p tree-buf-datafusion --features ballista --example ballista_executor
//! -- [SCHEDULER_HOST:PORT] [PORT] [GRPC_PORT]` (defaults `localhost:50050`, `50051`, `50052`; a
//! second executor on the same machine needs other ports). The archives a query reads must be
//! at the same path here as where the query was planned.

use std::sync::Arc;

use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let scheduler = args.next().unwrap_or_else(|| "localhost:50050".into());
    let (host, port) = scheduler.rsplit_once(':').ok_or("SCHEDULER_HOST:PORT")?;
    let (logical, physical) = tree_buf_datafusion::ballista_codecs();
    let mut config = ExecutorProcessConfig {
        scheduler_host: host.to_owned(),
        scheduler_port: port.parse()?,
        override_logical_codec: Some(logical),
        override_physical_codec: Some(physical),
        ..ExecutorProcessConfig::default()
    };
    if let Some(port) = args.next() {
        config.port = port.parse()?;
    }
    if let Some(port) = args.next() {
        config.grpc_port = port.parse()?;
    }
    println!("executor on port {} for scheduler {scheduler}", config.port);
    start_executor_process(Arc::new(config)).await?;
    Ok(())
}
