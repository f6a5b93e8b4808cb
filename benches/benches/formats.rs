//! Encode and decode of each dataset in every format, with criterion. The `report` binary
//! measures the same and prints the tables for the README.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tree_buf_benches::{formats, load_compact_names, load_names, Dataset, Names};
use tree_buf_datasets::{baseball, datasets_dir, geojson, graphql, retrosheet, stocks};

fn bench<T: Dataset>(c: &mut Criterion, name: &str, value: &T, floats: bool) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for format in formats::<T>(floats).into_iter().filter(|f| !f.size_only) {
        let bytes = (format.encode)(value);
        group.bench_function(format!("{} encode", format.name), |b| {
            b.iter(|| (format.encode)(black_box(value)))
        });
        group.bench_function(format!("{} decode", format.name), |b| {
            b.iter(|| (format.decode)(black_box(&bytes)))
        });
        group.bench_function(format!("{} round trip", format.name), |b| {
            b.iter(|| (format.decode)(&(format.encode)(black_box(value))))
        });
    }
    group.finish();
}

/// The GeoJSON names and codes without the geometry, against a full decode and serde_json.
fn partial_load(c: &mut Criterion, countries: &geojson::FeatureCollection) {
    let bytes = tree_buf::encode(countries);
    let json = serde_json::to_vec(countries).expect("JSON");
    let mut group = c.benchmark_group("GeoJSON names only");
    group.sample_size(10);
    group.bench_function("tree-buf partial load (CompactString)", |b| {
        b.iter(|| load_compact_names(black_box(&bytes)))
    });
    group.bench_function("tree-buf partial load (String)", |b| {
        b.iter(|| load_names(black_box(&bytes)))
    });
    group.bench_function("tree-buf full decode", |b| {
        b.iter(|| tree_buf::decode::<geojson::FeatureCollection>(black_box(&bytes)).unwrap())
    });
    group.bench_function("serde_json full parse", |b| {
        b.iter(|| serde_json::from_slice::<geojson::FeatureCollection>(black_box(&json)).unwrap())
    });
    group.bench_function("serde_json names-only parse", |b| {
        b.iter(|| serde_json::from_slice::<Names>(black_box(&json)).unwrap())
    });
    group.finish();
}

fn datasets(c: &mut Criterion) {
    if datasets_dir().is_none() {
        // Without the files, measure the look-alike data.
        bench(c, "generated GraphQL", &graphql::generate(1000, 1), false);
        let countries = geojson::generate(50, 2000, 2);
        bench(c, "generated GeoJSON", &countries, true);
        partial_load(c, &countries);
        return;
    }
    bench(c, "GraphQL", &graphql::load().expect("GraphQL"), false);
    let countries = geojson::load().expect("GeoJSON");
    bench(c, "GeoJSON", &countries, true);
    partial_load(c, &countries);
    bench(c, "Baseball", &baseball::load().expect("baseball"), true);
    bench(
        c,
        "Retrosheet 2018",
        &retrosheet::load_season(2018).expect("Retrosheet"),
        false,
    );
    bench(c, "stocks", &stocks::load().expect("stocks"), true);
}

criterion_group!(benches, datasets);
criterion_main!(benches);
