//! Encode and decode of each dataset in every format, with criterion. The `report` binary
//! measures the same and prints the tables for the README.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tree_buf_benches::{formats, Dataset};
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
    }
    group.finish();
}

fn datasets(c: &mut Criterion) {
    if datasets_dir().is_none() {
        // Without the files, measure the look-alike data.
        bench(c, "generated GraphQL", &graphql::generate(1000, 1), false);
        bench(
            c,
            "generated GeoJSON",
            &geojson::generate(50, 2000, 2),
            true,
        );
        return;
    }
    bench(c, "GraphQL", &graphql::load().expect("GraphQL"), false);
    bench(c, "GeoJSON", &geojson::load().expect("GeoJSON"), true);
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
