//! The borders of every country (`geojson/countries.geojson.zst`), as GeoJSON.

use rand::Rng;
use serde::{Deserialize, Serialize};
use tree_buf::{Decode, Encode};

use crate::DatasetError;

#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct FeatureCollection {
    /// Always `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: String,
    pub features: Vec<Feature>,
}

#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct Feature {
    /// Always `Feature`.
    #[serde(rename = "type")]
    pub kind: String,
    pub properties: Properties,
    pub geometry: Geometry,
}

#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub struct Properties {
    /// The country's name.
    #[serde(rename = "ADMIN")]
    pub admin: String,
    #[serde(rename = "ISO_A3")]
    pub iso_a3: String,
    #[serde(rename = "ISO_A2")]
    pub iso_a2: String,
}

/// A `(longitude, latitude)` pair.
pub type Point = (f64, f64);

/// With serde, written externally tagged (`{"Polygon": [...]}`) so that formats without field
/// names can hold it too; [`load`] reads GeoJSON's own `{"type": ..., "coordinates": ...}`.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    PartialEq,
)]
pub enum Geometry {
    /// Rings of points: the outer border, then holes.
    Polygon(Vec<Vec<Point>>),
    /// Several polygons.
    MultiPolygon(Vec<Vec<Vec<Point>>>),
}

/// All 250 countries.
pub fn load() -> Result<FeatureCollection, DatasetError> {
    const PATH: &str = "geojson/countries.geojson.zst";
    let bytes = crate::read(PATH)?;
    let collection: wire::FeatureCollection =
        serde_json::from_slice(&bytes).map_err(|e| crate::error(std::path::Path::new(PATH), e))?;
    Ok(collection.into())
}

/// GeoJSON as it is spelled: geometries tagged `{"type": ..., "coordinates": ...}`, a form only
/// self-describing formats can read back, so the model above is converted from it.
mod wire {
    use serde::Deserialize;

    use super::{Point, Properties};

    #[derive(Deserialize)]
    pub(super) struct FeatureCollection {
        #[serde(rename = "type")]
        kind: String,
        features: Vec<Feature>,
    }

    #[derive(Deserialize)]
    struct Feature {
        #[serde(rename = "type")]
        kind: String,
        properties: Properties,
        geometry: Geometry,
    }

    #[derive(Deserialize)]
    #[serde(tag = "type", content = "coordinates")]
    enum Geometry {
        Polygon(Vec<Vec<Point>>),
        MultiPolygon(Vec<Vec<Vec<Point>>>),
    }

    impl From<FeatureCollection> for super::FeatureCollection {
        fn from(collection: FeatureCollection) -> Self {
            let features = collection
                .features
                .into_iter()
                .map(|feature| super::Feature {
                    kind: feature.kind,
                    properties: feature.properties,
                    geometry: match feature.geometry {
                        Geometry::Polygon(rings) => super::Geometry::Polygon(rings),
                        Geometry::MultiPolygon(polygons) => super::Geometry::MultiPolygon(polygons),
                    },
                })
                .collect();
            super::FeatureCollection {
                kind: collection.kind,
                features,
            }
        }
    }
}

/// `countries` look-alike countries: random walks of points in degrees, 9 decimals plus a few
/// ULPs of noise as in the real file, some as multipolygons.
pub fn generate(countries: usize, points_per_ring: usize, seed: u64) -> FeatureCollection {
    let mut rng = crate::rng(seed);
    let ring = |rng: &mut rand::rngs::StdRng| -> Vec<Point> {
        let (mut x, mut y) = (
            rng.gen_range(-180.0..180.0f64),
            rng.gen_range(-60.0..70.0f64),
        );
        (0..points_per_ring)
            .map(|_| {
                x += rng.gen_range(-0.05..0.05);
                y += rng.gen_range(-0.05..0.05);
                let noisy = |v: f64, rng: &mut rand::rngs::StdRng| {
                    f64::from_bits(
                        ((v * 1e9).round() / 1e9)
                            .to_bits()
                            .wrapping_add(rng.gen_range(0..8)),
                    )
                };
                (noisy(x, rng), noisy(y, rng))
            })
            .collect()
    };
    let features = (0..countries)
        .map(|i| {
            let geometry = if i % 3 == 0 {
                Geometry::MultiPolygon((0..3).map(|_| vec![ring(&mut rng)]).collect())
            } else {
                Geometry::Polygon(vec![ring(&mut rng)])
            };
            let code: String = (0..3)
                .map(|k| char::from(b'A' + ((i * 7 + k * 3) % 26) as u8))
                .collect();
            Feature {
                kind: "Feature".into(),
                properties: Properties {
                    admin: format!("Country {i}"),
                    iso_a2: code[..2].to_owned(),
                    iso_a3: code,
                },
                geometry,
            }
        })
        .collect();
    FeatureCollection {
        kind: "FeatureCollection".into(),
        features,
    }
}
