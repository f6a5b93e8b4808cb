//! Floats whose mantissas are noise, generated: a 3D mesh (a bumpy sphere's vertices and unit
//! normals, in `f32`) and sensor readings (`f64`, a slow drift plus measurement noise). Nothing
//! in their low bits repeats, so column codecs and zstd can only take what their signs and
//! exponents leave.

use rand::Rng;
use serde::{Deserialize, Serialize};
use tree_buf::{Decode, Encode};

/// A triangle mesh's vertex data.
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
pub struct Mesh {
    pub vertices: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
}

/// A mesh and a sensor's readings.
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
pub struct NoiseFloats {
    pub mesh: Mesh,
    pub readings: Vec<f64>,
}

/// A mesh of `vertices` vertices on a sphere of radius about 10 and `readings` readings of
/// about 20 (a temperature, say), from `seed`: about 24 bytes per vertex and 8 per reading.
pub fn generate(vertices: usize, readings: usize, seed: u64) -> NoiseFloats {
    let mut rng = crate::rng(seed);
    let (points, normals) = (0..vertices)
        .map(|_| {
            let direction: [f32; 3] = std::array::from_fn(|_| rng.gen_range(-1.0..1.0));
            let length = direction
                .iter()
                .map(|c| c * c)
                .sum::<f32>()
                .sqrt()
                .max(1e-6);
            let normal = direction.map(|c| c / length);
            let radius = 10.0 + rng.gen_range(-0.5..0.5);
            (normal.map(|c| c * radius), normal)
        })
        .unzip();
    let readings = (0..readings)
        .map(|i| 20.0 + 5.0 * (i as f64 * 1e-3).sin() + rng.gen_range(-0.1..0.1))
        .collect();
    NoiseFloats {
        mesh: Mesh {
            vertices: points,
            normals,
        },
        readings,
    }
}

/// The report's dataset: 100,000 vertices and 200,000 readings, 4 MB of floats.
pub fn load() -> NoiseFloats {
    generate(100_000, 200_000, 7)
}
