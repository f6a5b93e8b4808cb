//! The timed comparisons of the `report` binary, under criterion: encode, decode and round trip of
//! each dataset in every format the report times (its size-only rows are left out), and the
//! partial loads of the GeoJSON names, also on files with 1, 4 and 16 times the geometry; on the
//! AAPL prices, the free functions against a `tree_buf::Buffer` kept between calls. As in the
//! report, tree-buf runs on one thread except in the rows named parallel.
//!
//! The datasets are the report's (the GraphQL response typed and all strings, the GeoJSON
//! countries with the lossy row, the Baseball Databank, Retrosheet and the AAPL prices), except
//! that Retrosheet is the 2018 season only, where the report reads every season (minutes per
//! sample).
//! Without the datasets folder, generated look-alikes are measured instead (there is none of the
//! all-strings GraphQL response). Each format's output and each partial load is checked as the
//! report checks it before it is timed.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tree_buf::EncodeOptions;
use tree_buf_benches::{
    encode_checked, formats, load_compact_names, load_everything, load_names, names_file,
    one_thread, with_borrowed_names, with_repeated_geometry, CompactNames, Dataset, Names,
};
use tree_buf_datasets::{baseball, datasets_dir, geojson, graphql, retrosheet, stocks};

fn bench<T: Dataset>(c: &mut Criterion, name: &str, value: &T, floats: bool) {
    let mut group = c.benchmark_group(name);
    group.sample_size(10);
    for format in formats::<T>(floats).into_iter().filter(|f| !f.size_only) {
        let bytes = encode_checked(&format, name, value);
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

/// Repeated encodes and decodes of one value through the free functions and through a
/// [`tree_buf::Buffer`] kept between them (tree-buf on one thread), with bitcode's own buffer for
/// reference: what a program that sends many small values saves, or one that encodes large
/// values again and again (whose temporary columns the buffer keeps).
fn buffer<T: Dataset>(c: &mut Criterion, name: &str, value: &T) {
    let mut group = c.benchmark_group(format!("{name}, buffer kept between calls"));
    group.sample_size(10);
    let options = EncodeOptions::default().parallel(false);
    let bytes = tree_buf::encode_with_options(value, &options).expect("encodes");
    let mut buffer = tree_buf::Buffer::new();
    let buffered = buffer
        .encode_with_options(value, &options)
        .expect("encodes");
    assert_eq!(buffered, bytes, "{name}: the buffer writes other bytes");
    group.bench_function("tree-buf encode", |b| {
        b.iter(|| tree_buf::encode_with_options(black_box(value), &options).expect("encodes"))
    });
    group.bench_function("tree-buf (buffer) encode", |b| {
        b.iter(|| {
            let bytes = buffer.encode_with_options(black_box(value), &options);
            bytes.expect("encodes").len()
        })
    });
    group.bench_function("tree-buf decode", |b| {
        b.iter(|| tree_buf::decode_with_options::<T>(black_box(&bytes), &one_thread()).unwrap())
    });
    group.bench_function("tree-buf (buffer) decode", |b| {
        b.iter(|| {
            buffer
                .decode_with_options::<T>(black_box(&bytes), &one_thread())
                .unwrap()
        })
    });
    let mut bitcode_buffer = bitcode::Buffer::new();
    let bitcode_bytes = bitcode::encode(value);
    group.bench_function("bitcode (buffer) encode", |b| {
        b.iter(|| bitcode_buffer.encode(black_box(value)).len())
    });
    group.bench_function("bitcode (buffer) decode", |b| {
        b.iter(|| {
            bitcode_buffer
                .decode::<T>(black_box(&bitcode_bytes))
                .unwrap()
        })
    });
    group.finish();
}

/// The GeoJSON names and codes without the geometry, against a full decode and serde_json; then
/// on files with k times the geometry.
fn partial_load(c: &mut Criterion, countries: &geojson::FeatureCollection) {
    let bytes = names_file(countries);
    let json = serde_json::to_vec(countries).expect("JSON");
    let mut group = c.benchmark_group("GeoJSON names only");
    group.sample_size(10);
    group.bench_function(
        "tree-buf partial load (&str, with dropping the reader)",
        |b| b.iter(|| with_borrowed_names(black_box(&bytes), |names| names.features.len())),
    );
    group.bench_function("tree-buf partial load (CompactString)", |b| {
        b.iter(|| load_compact_names(black_box(&bytes)))
    });
    group.bench_function("tree-buf partial load (String)", |b| {
        b.iter(|| load_names(black_box(&bytes)))
    });
    group.bench_function("tree-buf full load (Reader, no data checksum)", |b| {
        b.iter(|| load_everything(black_box(&bytes)))
    });
    group.bench_function("tree-buf full decode (data checksum verified)", |b| {
        b.iter(|| {
            tree_buf::decode_with_options::<geojson::FeatureCollection>(
                black_box(&bytes),
                &one_thread(),
            )
            .unwrap()
        })
    });
    group.bench_function("serde_json full parse", |b| {
        b.iter(|| serde_json::from_slice::<geojson::FeatureCollection>(black_box(&json)).unwrap())
    });
    group.bench_function("serde_json names-only parse (String)", |b| {
        b.iter(|| serde_json::from_slice::<Names>(black_box(&json)).unwrap())
    });
    group.bench_function("serde_json names-only parse (CompactString)", |b| {
        b.iter(|| serde_json::from_slice::<CompactNames>(black_box(&json)).unwrap())
    });
    group.finish();

    let mut group = c.benchmark_group("GeoJSON names only, k times the geometry");
    group.sample_size(10);
    for k in [1usize, 4, 16] {
        let bytes = names_file(&with_repeated_geometry(countries, k));
        group.bench_function(format!("k={k} partial load (&str)"), |b| {
            b.iter(|| with_borrowed_names(black_box(&bytes), |names| names.features.len()))
        });
        group.bench_function(format!("k={k} partial load (CompactString)"), |b| {
            b.iter(|| load_compact_names(black_box(&bytes)))
        });
        group.bench_function(format!("k={k} partial load (String)"), |b| {
            b.iter(|| load_names(black_box(&bytes)))
        });
    }
    group.finish();
}

fn datasets(c: &mut Criterion) {
    if datasets_dir().is_none() {
        bench(c, "generated GraphQL", &graphql::generate(1000, 1), false);
        let countries = geojson::generate(50, 2000, 2);
        bench(c, "generated GeoJSON", &countries, true);
        buffer(c, "generated GeoJSON", &countries);
        partial_load(c, &countries);
        bench(c, "generated Baseball", &baseball::generate(1000, 3), true);
        bench(
            c,
            "generated Retrosheet",
            &retrosheet::generate(2500, 4),
            false,
        );
        let days = stocks::generate(252, 5);
        bench(c, "generated stocks", &days, true);
        buffer(c, "generated stocks", &days);
        return;
    }
    bench(c, "GraphQL", &graphql::load().expect("GraphQL"), false);
    bench(
        c,
        "GraphQL all strings",
        &graphql::load_raw().expect("GraphQL"),
        false,
    );
    let countries = geojson::load().expect("GeoJSON");
    bench(c, "GeoJSON", &countries, true);
    buffer(c, "GeoJSON", &countries);
    partial_load(c, &countries);
    bench(c, "Baseball", &baseball::load().expect("baseball"), true);
    bench(
        c,
        "Retrosheet 2018",
        &retrosheet::load_season(2018).expect("Retrosheet"),
        false,
    );
    let days = stocks::load().expect("stocks");
    bench(c, "stocks", &days, true);
    buffer(c, "stocks", &days);
}

criterion_group!(benches, datasets);
criterion_main!(benches);
