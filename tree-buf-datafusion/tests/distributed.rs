//! Plans over tree-buf tables sent between processes: through DataFusion's protobuf codecs, and
//! through Ballista's scheduler and executor (standalone, in this process).
#![cfg(feature = "proto")]

use std::sync::Arc;

use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::physical_plan::collect;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use tree_buf::archive::{ArchiveOptions, ArchiveWriter};
use tree_buf::Encode;
use tree_buf_datafusion::{TreeBufLogicalCodec, TreeBufPhysicalCodec, TreeBufTable};

#[derive(Encode)]
struct Game {
    date: u32,
    home: Side,
}

#[derive(Encode)]
struct Side {
    team: String,
    runs: u8,
    park: String,
}

/// An archive of 1,000 games in chunks of 100, in a directory that lives as long as the result.
fn games() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("games.tb");
    write_games(&path, 0..1000);
    (dir, path)
}

/// The same 1,000 games in two Hive-style directories, `half=1/` and `half=2/`, 500 in each.
fn games_in_halves() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (half, games) in [("1", 0..500), ("2", 500..1000)] {
        let folder = dir.path().join(format!("half={half}"));
        std::fs::create_dir(&folder).unwrap();
        write_games(&folder.join("games.tb"), games);
    }
    dir
}

/// Writes games `numbers` to an archive at `path`, in chunks of 100.
fn write_games(path: &std::path::Path, numbers: std::ops::Range<u32>) {
    let options = ArchiveOptions::default().chunk_rows(100);
    let mut writer = ArchiveWriter::create_with_options(path, options).unwrap();
    for i in numbers {
        let team = ["BOS", "NYA", "TOR", "BAL"][i as usize % 4].to_owned();
        let home = Side {
            team,
            runs: (i % 11) as u8,
            park: format!("park{}", i % 3),
        };
        writer
            .push(&Game {
                date: 20_180_000 + i,
                home,
            })
            .unwrap();
    }
    writer.finish().unwrap();
}

const SQL: &str = "SELECT home['team'] AS home, count(*) AS games, sum(home['runs']) AS runs \
                   FROM games WHERE date >= 20180500 GROUP BY home['team'] ORDER BY home";

const ANSWER: &str = "\
+------+-------+------+
| home | games | runs |
+------+-------+------+
| BAL  | 125   | 628  |
| BOS  | 125   | 627  |
| NYA  | 125   | 631  |
| TOR  | 125   | 624  |
+------+-------+------+";

#[tokio::test]
async fn plans_over_archives_survive_the_protobuf_codecs() {
    let (_dir, path) = games();
    // Two partitions, whatever the machine's cores.
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
    ctx.register_table("games", Arc::new(TreeBufTable::open(&path).unwrap()))
        .unwrap();
    let frame = ctx.sql(SQL).await.unwrap();

    // The logical plan, table and all, as a client sends it to a scheduler.
    let logical = TreeBufLogicalCodec::default();
    let bytes = logical_plan_to_bytes_with_extension_codec(frame.logical_plan(), &logical).unwrap();
    let plan =
        logical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &logical).unwrap();
    let batches = ctx
        .execute_logical_plan(plan)
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(pretty_format_batches(&batches).unwrap().to_string(), ANSWER);

    // The physical plan, scan and all, as a scheduler sends it to an executor.
    let physical = TreeBufPhysicalCodec::default();
    let plan = frame.create_physical_plan().await.unwrap();
    let bytes = physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &physical).unwrap();
    let back =
        physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &physical).unwrap();
    let shown = |plan| {
        datafusion::physical_plan::displayable(plan)
            .indent(true)
            .to_string()
    };
    assert_eq!(shown(back.as_ref()), shown(plan.as_ref()));
    // Five chunks hold the dates asked for, and of `home` two fields are read.
    let scan = "games.tb], chunks=5, partitions=2, columns=[date, home{team, runs}]";
    assert!(
        shown(back.as_ref()).contains(scan),
        "{}",
        shown(back.as_ref())
    );
    let batches = collect(back, ctx.task_ctx()).await.unwrap();
    assert_eq!(pretty_format_batches(&batches).unwrap().to_string(), ANSWER);
}

/// `CREATE EXTERNAL TABLE` of the halves, partitioned by `half`, in `ctx`.
async fn create_halves(ctx: &SessionContext, dir: &std::path::Path) {
    tree_buf_datafusion::register(ctx);
    let create = format!(
        "CREATE EXTERNAL TABLE games STORED AS TREEBUF PARTITIONED BY (half) LOCATION '{}/'",
        dir.display()
    );
    ctx.sql(&create).await.unwrap();
}

const HALVES_SQL: &str = "SELECT half, count(*) AS games, max(date) AS last FROM games \
                          WHERE home['runs'] > 8 GROUP BY half ORDER BY half";

const HALVES_ANSWER: &str = "\
+------+-------+----------+
| half | games | last     |
+------+-------+----------+
| 1    | 90    | 20180494 |
| 2    | 91    | 20180999 |
+------+-------+----------+";

#[tokio::test]
async fn listing_tables_and_their_scans_survive_the_protobuf_codecs() {
    let dir = games_in_halves();
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
    create_halves(&ctx, dir.path()).await;
    let logical = TreeBufLogicalCodec::default();
    let physical = TreeBufPhysicalCodec::default();
    for (sql, answer) in [(SQL, ANSWER), (HALVES_SQL, HALVES_ANSWER)] {
        let frame = ctx.sql(sql).await.unwrap();
        let bytes =
            logical_plan_to_bytes_with_extension_codec(frame.logical_plan(), &logical).unwrap();
        let plan = logical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &logical)
            .unwrap();
        let batches = ctx.execute_logical_plan(plan).await.unwrap();
        let batches = batches.collect().await.unwrap();
        assert_eq!(pretty_format_batches(&batches).unwrap().to_string(), answer);

        let plan = frame.create_physical_plan().await.unwrap();
        let bytes =
            physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &physical).unwrap();
        let back =
            physical_plan_from_bytes_with_extension_codec(&bytes, &ctx.task_ctx(), &physical)
                .unwrap();
        let shown = |plan: &dyn datafusion::physical_plan::ExecutionPlan| {
            datafusion::physical_plan::displayable(plan)
                .indent(true)
                .to_string()
        };
        assert_eq!(shown(back.as_ref()), shown(plan.as_ref()));
        // A file group for each half, and the filters that skip chunks.
        let scan = shown(back.as_ref());
        assert!(scan.contains("file_groups={2 groups"), "{scan}");
        assert!(scan.contains("chunk_filters=["), "{scan}");
        let batches = collect(back, ctx.task_ctx()).await.unwrap();
        assert_eq!(pretty_format_batches(&batches).unwrap().to_string(), answer);
    }
}

#[tokio::test]
async fn malformed_scans_are_errors() {
    let (_dir, path) = games();
    let halves = games_in_halves();
    let table_ctx = SessionContext::new();
    table_ctx
        .register_table("games", Arc::new(TreeBufTable::open(&path).unwrap()))
        .unwrap();
    let listing_ctx = SessionContext::new();
    create_halves(&listing_ctx, halves.path()).await;
    for ctx in [table_ctx, listing_ctx] {
        let mut plan = ctx
            .sql("SELECT home['runs'] FROM games WHERE date > 20180100")
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        // The scan alone: DataFusion's decoders of its own nodes are not what is tested here.
        while let Some(child) = plan.children().first() {
            plan = Arc::clone(child);
        }
        let physical = TreeBufPhysicalCodec::default();
        let bytes = physical_plan_to_bytes_with_extension_codec(plan, &physical).unwrap();
        // Every shorter prefix, and every byte changed in turn: an error or a plan, never a
        // panic.
        for end in 0..bytes.len() {
            let _ = physical_plan_from_bytes_with_extension_codec(
                &bytes[..end],
                &ctx.task_ctx(),
                &physical,
            );
        }
        for at in 0..bytes.len() {
            let mut changed = bytes.to_vec();
            changed[at] ^= 0x5a;
            let _ =
                physical_plan_from_bytes_with_extension_codec(&changed, &ctx.task_ctx(), &physical);
        }
    }
}

#[cfg(feature = "ballista")]
#[tokio::test]
async fn ballista_runs_queries_over_archives() {
    use ballista::prelude::SessionContextExt;

    let (_dir, path) = games();
    let state = tree_buf_datafusion::ballista_state();
    let ctx = SessionContext::standalone_with_state(state).await.unwrap();
    // Ballista would run every partition of the scan in each of its tasks.
    let table = TreeBufTable::open(&path).unwrap().with_scan_partitions(1);
    ctx.register_table("games", Arc::new(table)).unwrap();
    let batches = ctx.sql(SQL).await.unwrap().collect().await.unwrap();
    assert_eq!(pretty_format_batches(&batches).unwrap().to_string(), ANSWER);
}

#[cfg(feature = "ballista")]
#[tokio::test]
async fn ballista_runs_queries_over_listing_tables_of_archives() {
    use ballista::prelude::SessionContextExt;

    let dir = games_in_halves();
    let state = tree_buf_datafusion::ballista_state();
    let ctx = SessionContext::standalone_with_state(state).await.unwrap();
    // A file group for each half, each a task of its own.
    create_halves(&ctx, dir.path()).await;
    for (sql, answer) in [(SQL, ANSWER), (HALVES_SQL, HALVES_ANSWER)] {
        let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
        assert_eq!(pretty_format_batches(&batches).unwrap().to_string(), answer);
    }
}
