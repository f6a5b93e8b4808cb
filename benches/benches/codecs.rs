//! Column codecs against other implementations: Simple16 decoding against the `simple-16` crate.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use tree_buf::codec::simple16;

/// Small integers shaped like real columns: mostly tiny, some larger.
fn values() -> Vec<u32> {
    let mut state = 0x9e37_79b9u32;
    (0..1_000_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            if state % 10 == 0 {
                state % 5000
            } else {
                state % 16
            }
        })
        .collect()
}

fn simple16_decoding(c: &mut Criterion) {
    let values = values();
    let ours = simple16::encode(&values).expect("every value is below 2^28");
    assert_eq!(simple16::decode(&ours, values.len()).unwrap(), values);
    let mut theirs = Vec::new();
    simple_16::compress(&values, &mut theirs).unwrap();
    let mut check = Vec::new();
    simple_16::decompress(&theirs, &mut check).unwrap();
    assert_eq!(&check[..values.len()], &values[..]);

    let mut group = c.benchmark_group("simple16 decode, 1M values");
    group.throughput(Throughput::Elements(values.len() as u64));
    group.bench_function("tree-buf", |b| {
        b.iter(|| simple16::decode(black_box(&ours), values.len()).unwrap())
    });
    group.bench_function("simple-16 crate", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(values.len());
            simple_16::decompress(black_box(&theirs), &mut out).unwrap();
            out
        })
    });
    group.finish();
}

criterion_group!(benches, simple16_decoding);
criterion_main!(benches);
