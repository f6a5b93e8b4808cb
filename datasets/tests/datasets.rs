//! Every dataset loads, has the documented record count, round-trips through tree-buf, through
//! JSON and through a `Value` (read as one, written again, read as its type), and has a size breakdown that adds up to its file; so does the
//! look-alike data of every generator.
//!
//! The tests on the real files are named `real_*`; without the datasets they are listed as
//! ignored, with the reason (see `build.rs`), and CI, which has them, counts that they ran.

use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::Serialize;
use tree_buf::{DecodeOwned, Encode};
use tree_buf_datasets::{baseball, geojson, graphql, retrosheet, stocks};

/// Round-trips through tree-buf and serde_json, and reports the tree-buf size.
#[track_caller]
fn round_trips<T: Encode + DecodeOwned + Serialize + DeserializeOwned + PartialEq + Debug>(
    name: &str,
    value: &T,
) {
    let bytes = tree_buf::encode(value);
    let back: T = tree_buf::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(back == *value, "{name} differs after tree-buf");
    let breakdown = tree_buf::size_breakdown(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let parts = breakdown.header_bytes
        + breakdown.schema_bytes
        + breakdown.table_bytes
        + breakdown.branches.iter().map(|b| b.bytes).sum::<usize>();
    assert_eq!(parts, bytes.len(), "{name}: the breakdown does not add up");
    assert_eq!(breakdown.total_bytes, bytes.len(), "{name}");
    // Any file reads without its type.
    let schemaless: tree_buf::Value =
        tree_buf::decode(&bytes).unwrap_or_else(|e| panic!("{name} as a Value: {e}"));
    assert_ne!(schemaless, tree_buf::Value::Null, "{name}");
    // ...and written again from its `Value`, reads as its type.
    let rewritten = tree_buf::encode(&schemaless);
    let back: T = tree_buf::decode(&rewritten)
        .unwrap_or_else(|e| panic!("{name} written from its Value: {e}"));
    assert!(back == *value, "{name} differs after its Value");
    let json = serde_json::to_vec(value).unwrap();
    let back: T = serde_json::from_slice(&json).unwrap();
    assert!(back == *value, "{name} differs after JSON");
    eprintln!(
        "{name}: {} bytes of tree-buf, {} of JSON",
        bytes.len(),
        json.len()
    );
}

#[test]
fn generated_graphql_response() {
    round_trips("generated GraphQL", &graphql::generate(500, 1));
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_graphql_response() {
    let response = graphql::load().unwrap();
    assert_eq!(response.data.orders.len(), 1000);
    round_trips("GraphQL", &response);
    round_trips("GraphQL (strings)", &graphql::load_raw().unwrap());
    // The typed model keeps every value of the response: its JSON is the original.
    let original: serde_json::Value = serde_json::from_slice(
        &tree_buf_datasets::read("graphql/decentraland_response.json.zst").unwrap(),
    )
    .unwrap();
    assert_eq!(serde_json::to_value(&response).unwrap(), original);
}

#[test]
fn generated_geojson_countries() {
    round_trips("generated GeoJSON", &geojson::generate(20, 100, 2));
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_geojson_countries() {
    let countries = geojson::load().unwrap();
    assert_eq!(countries.features.len(), 250);
    let points: usize = countries
        .features
        .iter()
        .map(|f| match &f.geometry {
            geojson::Geometry::Polygon(rings) => rings.iter().map(Vec::len).sum::<usize>(),
            geojson::Geometry::MultiPolygon(polygons) => {
                polygons.iter().flatten().map(Vec::len).sum()
            }
        })
        .sum();
    assert_eq!(points, 547_488);
    round_trips("GeoJSON", &countries);
}

#[test]
fn generated_baseball_databank() {
    round_trips("generated Baseball Databank", &baseball::generate(300, 3));
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_baseball_databank() {
    let databank = baseball::load().unwrap();
    assert_eq!(databank.batting.len(), 108_789);
    assert_eq!(databank.pitching.len(), 48_399);
    assert_eq!(databank.fielding.len(), 144_768);
    assert_eq!(databank.people.len(), 20_093);
    assert_eq!(databank.teams.len(), 2_955);
    round_trips("Baseball Databank", &databank);
}

#[test]
fn generated_retrosheet_game_logs() {
    round_trips("generated Retrosheet", &retrosheet::generate(500, 4));
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_retrosheet_game_logs() {
    // Every field survives the nested model, for the oldest, a middle and the newest season.
    for season in [1871, 1950, 2018] {
        let bytes = tree_buf_datasets::read(&format!("retrosheet/GL{season}.TXT.zst")).unwrap();
        for record in retrosheet::records(&bytes) {
            let record = record.unwrap();
            let game = retrosheet::Game::from_record(&record).unwrap();
            assert_eq!(
                game.to_fields(),
                record.iter().collect::<Vec<_>>(),
                "{season}"
            );
        }
    }
    let games = retrosheet::load_all().unwrap();
    assert_eq!(games.len(), 218_167);
    // Round-trip a decade here; the benchmark report encodes all seasons.
    let decade: Vec<_> = retrosheet::SEASONS
        .rev()
        .take(10)
        .flat_map(|s| retrosheet::load_season(s).unwrap())
        .collect();
    round_trips("Retrosheet 2009-2018", &decade);
}

#[test]
fn generated_stock_prices() {
    round_trips("generated stocks", &stocks::generate(252, 5));
}

#[test]
#[cfg_attr(
    datasets_missing,
    ignore = "needs ../shared/datasets or $TREE_BUF_DATASETS"
)]
fn real_stock_prices() {
    let days = stocks::load().unwrap();
    assert_eq!(days.len(), 252);
    assert_eq!(days[0].open, 102.610001);
    round_trips("AAPL 2016", &days);
}
