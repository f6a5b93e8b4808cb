//! The checks the report and the benches run before timing: they accept what each format must
//! give back and reject anything else, on small generated data.

use tree_buf_benches::{
    check, check_partial_load, formats, lossy_options, lossy_tolerance, with_repeated_geometry,
    within_lossy_tolerance,
};
use tree_buf_datasets::{geojson, noise};

/// Every kind of value the lossy check walks: floats of both widths, in options, tuples and
/// enums, and the values the tolerance does not apply to.
#[derive(tree_buf::Encode, tree_buf::Decode, Debug, Clone, PartialEq)]
struct Sample {
    label: String,
    count: u32,
    reading: f64,
    pair: (f32, f64),
    optional: Option<f64>,
    shape: Shape,
    specials: Vec<f64>,
}

#[derive(tree_buf::Encode, tree_buf::Decode, Debug, Clone, PartialEq)]
enum Shape {
    Point(f64),
    Line(Vec<f64>),
}

fn samples() -> Vec<Sample> {
    (0..200u32)
        .map(|i| Sample {
            label: format!("sample {}", i % 7),
            count: i,
            reading: (f64::from(i) * 0.37).sin() * 50.0,
            pair: ((f64::from(i) * 0.11).cos() as f32 * 3.0, f64::from(i) / 3.0),
            optional: (i % 3 == 0).then(|| f64::from(i) * 1.0001),
            shape: if i % 2 == 0 {
                Shape::Point(f64::from(i) * 0.7)
            } else {
                Shape::Line(vec![0.5, f64::from(i) / 7.0])
            },
            specials: vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.25],
        })
        .collect()
}

/// A copy of `samples` with `edit` applied to the one at `index`.
fn edited(samples: &[Sample], index: usize, edit: impl FnOnce(&mut Sample)) -> Vec<Sample> {
    let mut copy = samples.to_vec();
    edit(&mut copy[index]);
    copy
}

#[test]
fn the_lossy_encoding_is_within_the_tolerance_but_not_exact() {
    let values = samples();
    let bytes = tree_buf::encode_with_options(&values, &lossy_options()).unwrap();
    let decoded: Vec<Sample> = tree_buf::decode(&bytes).unwrap();
    assert_ne!(decoded, values, "the floats should have been quantized");
    within_lossy_tolerance(&values, &decoded).unwrap();
}

#[test]
fn floats_moved_by_exactly_the_tolerance_pass() {
    let values = samples();
    let t = lossy_tolerance();
    // Values with few significant bits, so that adding the tolerance is exact.
    let base = edited(&values, 5, |s| {
        s.reading = 0.5;
        s.pair = (1.5, -2.0);
        s.shape = Shape::Line(vec![4.0]);
    });
    let moved = edited(&base, 5, |s| {
        s.reading = 0.5 + t;
        s.pair = (1.5 - t as f32, -2.0 + t);
        s.shape = Shape::Line(vec![4.0 - t]);
    });
    within_lossy_tolerance(&base, &moved).unwrap();
}

#[test]
fn floats_just_outside_the_tolerance_fail_with_their_path() {
    let values = edited(&samples(), 5, |s| {
        s.reading = 0.5;
        s.pair = (1.5, -2.0);
        s.shape = Shape::Line(vec![4.0]);
    });
    let t = lossy_tolerance();
    let cases: [(&str, Vec<Sample>); 3] = [
        (
            "[5].reading: 0.5 became",
            edited(&values, 5, |s| s.reading = 0.5 + t + 2f64.powi(-40)),
        ),
        // 2^-20 is more than an f32 step at 1.5 (2^-23), so the f32 is exactly that far off.
        (
            "[5].pair[0]: 1.5 became",
            edited(&values, 5, |s| s.pair.0 = 1.5 + (t + 2f64.powi(-20)) as f32),
        ),
        (
            "[5].shape::line[0]: 4.0 became",
            edited(&values, 5, |s| {
                s.shape = Shape::Line(vec![4.0 - t - 2f64.powi(-40)])
            }),
        ),
    ];
    for (path, decoded) in cases {
        let error = within_lossy_tolerance(&values, &decoded).unwrap_err();
        assert!(error.starts_with(path), "{path}: {error}");
    }
}

#[test]
fn nan_infinities_and_everything_but_floats_must_be_kept_exactly() {
    let values = samples();
    let t = lossy_tolerance();
    let cases: [(&str, Vec<Sample>); 9] = [
        ("[3].reading", edited(&values, 3, |s| s.reading = f64::NAN)),
        (
            "[3].specials[0]",
            edited(&values, 3, |s| s.specials[0] = 0.0),
        ),
        (
            "[3].specials[0]",
            edited(&values, 3, |s| s.specials[0] = -f64::NAN),
        ),
        (
            "[3].specials[1]",
            edited(&values, 3, |s| s.specials[1] = f64::MAX),
        ),
        ("[3].label", edited(&values, 3, |s| s.label.push('!'))),
        ("[3].count", edited(&values, 3, |s| s.count += 1)),
        (
            "[3]: 7 items became 6",
            edited(&values, 3, |s| s.optional = None),
        ),
        (
            "[3].shape: variant line became variant point",
            edited(&values, 3, |s| s.shape = Shape::Point(t)),
        ),
        (
            "[3].specials: 4 items became 5",
            edited(&values, 3, |s| s.specials.push(1.0)),
        ),
    ];
    for (path, decoded) in cases {
        let error = within_lossy_tolerance(&values, &decoded).unwrap_err();
        assert!(error.starts_with(path), "{path}: {error}");
    }
}

#[test]
fn every_format_passes_its_check_on_generated_geojson() {
    let countries = geojson::generate(5, 50, 1);
    for format in formats::<geojson::FeatureCollection>(true) {
        let bytes = (format.encode)(&countries);
        check(&format, &countries, &bytes).unwrap_or_else(|e| panic!("{}: {e}", format.name));
    }
}

#[test]
fn every_format_passes_its_check_on_noise_floats() {
    let floats = noise::generate(2_000, 4_000, 1);
    for format in formats::<noise::NoiseFloats>(true) {
        let bytes = (format.encode)(&floats);
        check(&format, &floats, &bytes).unwrap_or_else(|e| panic!("{}: {e}", format.name));
    }
}

#[test]
fn a_format_that_does_not_give_back_the_value_fails_its_check() {
    let countries = geojson::generate(5, 50, 1);
    let mut other = countries.clone();
    other.features[2].properties.iso_a2.push('X');
    for format in formats::<geojson::FeatureCollection>(true) {
        let bytes = (format.encode)(&other);
        let error = check(&format, &countries, &bytes).unwrap_err();
        assert!(
            error.starts_with(".features[2].properties.iso_a2: "),
            "{}: {error}",
            format.name
        );
    }
}

#[test]
fn partial_loads_pass_on_growing_files_and_fail_on_other_files() {
    let countries = geojson::generate(5, 50, 1);
    for k in [1, 4] {
        let bigger = with_repeated_geometry(&countries, k);
        let properties = |c: &geojson::FeatureCollection| {
            c.features
                .iter()
                .map(|f| f.properties.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(properties(&bigger), properties(&countries));
        check_partial_load(&bigger, &tree_buf::encode(&bigger)).unwrap();
    }
    let mut renamed = countries.clone();
    renamed.features[1].properties.admin.push('X');
    assert!(check_partial_load(&countries, &tree_buf::encode(&renamed)).is_err());
}
