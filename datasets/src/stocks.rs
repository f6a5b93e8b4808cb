//! One year of daily Apple stock prices (`stocks/AAPL_2016.csv`).

use rand::Rng;
use serde::{Deserialize, Serialize};
use tree_buf::{Decode, Encode};

use crate::DatasetError;

/// One trading day.
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
pub struct Day {
    /// `yyyy-mm-dd`.
    #[serde(rename = "Date")]
    pub date: String,
    #[serde(rename = "Open")]
    pub open: f64,
    #[serde(rename = "High")]
    pub high: f64,
    #[serde(rename = "Low")]
    pub low: f64,
    #[serde(rename = "Close")]
    pub close: f64,
    #[serde(rename = "Adj Close")]
    pub adj_close: f64,
    #[serde(rename = "Volume")]
    pub volume: u64,
}

/// The 252 trading days of 2016.
pub fn load() -> Result<Vec<Day>, DatasetError> {
    crate::read_csv("stocks/AAPL_2016.csv")
}

/// `days` days of a random walk priced in the same way (six decimals, volumes in the tens of
/// millions).
pub fn generate(days: usize, seed: u64) -> Vec<Day> {
    let mut rng = crate::rng(seed);
    let mut price = 100.0f64;
    (0..days)
        .map(|i| {
            let round = |v: f64| (v * 1e6).round() / 1e6;
            let open = round(price);
            price *= 1.0 + rng.gen_range(-0.03..0.03);
            let close = round(price);
            Day {
                date: format!("2016-{:02}-{:02}", 1 + i / 21 % 12, 1 + i % 21),
                open,
                high: round(open.max(close) * (1.0 + rng.gen_range(0.0..0.01))),
                low: round(open.min(close) * (1.0 - rng.gen_range(0.0..0.01))),
                close,
                adj_close: round(close * 0.975),
                volume: rng.gen_range(20_000_000..90_000_000),
            }
        })
        .collect()
}
