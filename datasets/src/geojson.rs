//! The borders of every country (`geojson/countries.geojson.zst`), as GeoJSON.

use rand::Rng;
use serde::{Deserialize, Serialize};
use tree_buf::{Decode, Encode};

use crate::DatasetError;

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct FeatureCollection {
    /// Always `FeatureCollection`.
    #[serde(rename = "type")]
    pub kind: String,
    pub features: Vec<Feature>,
}

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Feature {
    /// Always `Feature`.
    #[serde(rename = "type")]
    pub kind: String,
    pub properties: Properties,
    pub geometry: Geometry,
}

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
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

#[derive(Encode, Decode, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "type", content = "coordinates")]
pub enum Geometry {
    /// Rings of points: the outer border, then holes.
    Polygon(Vec<Vec<Point>>),
    /// Several polygons.
    MultiPolygon(Vec<Vec<Vec<Point>>>),
}

/// All 250 countries.
pub fn load() -> Result<FeatureCollection, DatasetError> {
    let bytes = crate::read("geojson/countries.geojson.zst")?;
    serde_json::from_slice(&bytes)
        .map_err(|e| crate::error(std::path::Path::new("geojson/countries.geojson.zst"), e))
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
