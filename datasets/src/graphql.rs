//! A GraphQL response of the Decentraland marketplace subgraph: 1,000 orders of wearables with
//! their NFTs and bids (`graphql/decentraland_response.json.zst`).
//!
//! The typed model stores what the strings mean: `0x` addresses as `[u8; 20]`, amounts in wei as
//! `u128`, block numbers and timestamps as `u64`, closed sets of names as enums. Serde writes them
//! back in the response's own spelling, so JSON round-trips. [`raw`] mirrors the JSON literally.

use rand::seq::SliceRandom;
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
pub struct Response {
    pub data: Data,
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
pub struct Data {
    pub count: Count,
    pub orders: Vec<Order>,
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
#[serde(rename_all = "camelCase")]
pub struct Count {
    pub id: String,
    pub order_total: u64,
    pub wearable_total: u64,
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
#[serde(rename_all = "camelCase")]
pub struct Order {
    /// Unix seconds.
    #[serde(with = "number_string")]
    pub created_at: u64,
    pub nft: Nft,
    /// In wei (10^-18 MANA).
    #[serde(with = "number_string")]
    pub price: u128,
    pub status: Status,
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
#[serde(rename_all = "camelCase")]
pub struct Nft {
    pub bids: Vec<Bid>,
    pub search_is_land: bool,
    pub search_is_wearable_accessory: bool,
    pub search_text: String,
    pub wearable: Wearable,
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
#[serde(rename_all = "camelCase")]
pub struct Bid {
    #[serde(with = "address")]
    pub bidder: [u8; 20],
    #[serde(with = "number_string")]
    pub block_number: u64,
    pub status: Status,
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
#[serde(rename_all = "camelCase")]
pub struct Wearable {
    pub body_shapes: Vec<BodyShape>,
    pub category: Category,
    pub collection: Collection,
    pub name: String,
    pub owner: Owner,
    pub rarity: Rarity,
    pub representation_id: String,
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
pub struct Owner {
    /// The owner's MANA balance, in wei.
    #[serde(with = "number_string")]
    pub mana: u128,
}

/// Of an order or a bid.
#[derive(
    Encode,
    Decode,
    Serialize,
    Deserialize,
    bitcode::Encode,
    bitcode::Decode,
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Open,
    Sold,
    Cancelled,
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
    Copy,
    PartialEq,
    Eq,
)]
pub enum BodyShape {
    BaseFemale,
    BaseMale,
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
    Copy,
    PartialEq,
    Eq,
)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Earring,
    Eyebrows,
    Eyes,
    Eyewear,
    FacialHair,
    Feet,
    Hair,
    Hat,
    Helmet,
    LowerBody,
    Mask,
    Mouth,
    Tiara,
    TopHead,
    UpperBody,
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
    Copy,
    PartialEq,
    Eq,
)]
pub enum Collection {
    #[serde(rename = "community_contest")]
    CommunityContest,
    #[serde(rename = "dcg_collection")]
    DcgCollection,
    #[serde(rename = "dcl_launch")]
    DclLaunch,
    #[serde(rename = "exclusive_masks")]
    ExclusiveMasks,
    #[serde(rename = "halloween_2019")]
    Halloween2019,
    #[serde(rename = "mch_collection")]
    MchCollection,
    #[serde(rename = "stay_safe")]
    StaySafe,
    #[serde(rename = "xmas_2019")]
    Xmas2019,
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
    Copy,
    PartialEq,
    Eq,
)]
#[serde(rename_all = "snake_case")]
pub enum Rarity {
    Common,
    Uncommon,
    Rare,
    Epic,
    Legendary,
    Mythic,
    Unique,
}

/// Integers that the response spells as strings of digits. Formats that are not human-readable
/// (bincode, MessagePack, postcard) get the integer itself, as a Rust user would store it.
mod number_string {
    use std::fmt::Display;
    use std::str::FromStr;

    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Display + Serialize, S: Serializer>(
        value: &T,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.collect_str(value)
        } else {
            value.serialize(serializer)
        }
    }

    pub fn deserialize<'de, T, D>(deserializer: D) -> Result<T, D::Error>
    where
        T: FromStr + Deserialize<'de>,
        T::Err: Display,
        D: Deserializer<'de>,
    {
        if deserializer.is_human_readable() {
            let text = <&str>::deserialize(deserializer)?;
            text.parse().map_err(de::Error::custom)
        } else {
            T::deserialize(deserializer)
        }
    }
}

/// Ethereum addresses: `0x` and 40 lower-case hex digits in JSON, the 20 bytes elsewhere.
mod address {
    use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8; 20], serializer: S) -> Result<S::Ok, S::Error> {
        if !serializer.is_human_readable() {
            return bytes.serialize(serializer);
        }
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        serializer.collect_str(&format_args!("0x{hex}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<[u8; 20], D::Error> {
        if !deserializer.is_human_readable() {
            return <[u8; 20]>::deserialize(deserializer);
        }
        let text = <&str>::deserialize(deserializer)?;
        let hex = text
            .strip_prefix("0x")
            .filter(|h| h.len() == 40)
            .ok_or_else(|| de::Error::custom("not a 0x address"))?;
        let mut bytes = [0u8; 20];
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(de::Error::custom)?;
        }
        Ok(bytes)
    }
}

/// The response as its JSON spells it: every value a string or a bool.
pub mod raw {
    use serde::{Deserialize, Serialize};
    use tree_buf::{Decode, Encode};

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
    pub struct Response {
        pub data: Data,
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
    pub struct Data {
        pub count: Count,
        pub orders: Vec<Order>,
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
    #[serde(rename_all = "camelCase")]
    pub struct Count {
        pub id: String,
        pub order_total: u64,
        pub wearable_total: u64,
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
    #[serde(rename_all = "camelCase")]
    pub struct Order {
        pub created_at: String,
        pub nft: Nft,
        pub price: String,
        pub status: String,
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
    #[serde(rename_all = "camelCase")]
    pub struct Nft {
        pub bids: Vec<Bid>,
        pub search_is_land: bool,
        pub search_is_wearable_accessory: bool,
        pub search_text: String,
        pub wearable: Wearable,
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
    #[serde(rename_all = "camelCase")]
    pub struct Bid {
        pub bidder: String,
        pub block_number: String,
        pub status: String,
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
    #[serde(rename_all = "camelCase")]
    pub struct Wearable {
        pub body_shapes: Vec<String>,
        pub category: String,
        pub collection: String,
        pub name: String,
        pub owner: Owner,
        pub rarity: String,
        pub representation_id: String,
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
    pub struct Owner {
        pub mana: String,
    }
}

const PATH: &str = "graphql/decentraland_response.json.zst";

fn parse<T: serde::de::DeserializeOwned>() -> Result<T, DatasetError> {
    let bytes = crate::read(PATH)?;
    serde_json::from_slice(&bytes).map_err(|e| crate::error(std::path::Path::new(PATH), e))
}

/// The typed response.
pub fn load() -> Result<Response, DatasetError> {
    parse()
}

/// The response with every value as the JSON spells it.
pub fn load_raw() -> Result<raw::Response, DatasetError> {
    parse()
}

/// A look-alike response of `orders` orders: a catalogue of wearables sold many times over, a
/// few hundred bidders, prices in round wei.
pub fn generate(orders: usize, seed: u64) -> Response {
    let mut rng = crate::rng(seed);
    let catalogue: Vec<(String, Category, Collection, Rarity)> = (0..160)
        .map(|i| {
            let category = *[
                Category::Hat,
                Category::UpperBody,
                Category::Earring,
                Category::Feet,
                Category::Mask,
            ]
            .choose(&mut rng)
            .unwrap_or(&Category::Hat);
            let collection = *[
                Collection::DclLaunch,
                Collection::CommunityContest,
                Collection::Halloween2019,
            ]
            .choose(&mut rng)
            .unwrap_or(&Collection::DclLaunch);
            let rarity = *[
                Rarity::Rare,
                Rarity::Epic,
                Rarity::Legendary,
                Rarity::Mythic,
            ]
            .choose(&mut rng)
            .unwrap_or(&Rarity::Rare);
            (format!("wearable number {i}"), category, collection, rarity)
        })
        .collect();
    let bidders: Vec<[u8; 20]> = (0..90).map(|_| rng.gen()).collect();
    let statuses = [Status::Open, Status::Sold, Status::Cancelled];
    let orders = (0..orders)
        .map(|i| {
            let (name, category, collection, rarity) =
                catalogue[rng.gen_range(0..catalogue.len())].clone();
            let bids = (0..rng.gen_range(0..3))
                .map(|_| Bid {
                    bidder: bidders[rng.gen_range(0..bidders.len())],
                    block_number: rng.gen_range(9_000_000..10_000_000),
                    status: statuses[rng.gen_range(0..3)],
                })
                .collect();
            Order {
                created_at: 1_587_453_605 - i as u64 * rng.gen_range(1_000..20_000),
                nft: Nft {
                    bids,
                    search_is_land: false,
                    search_is_wearable_accessory: rng.gen_bool(0.3),
                    search_text: name.to_lowercase(),
                    wearable: Wearable {
                        body_shapes: if rng.gen_bool(0.8) {
                            vec![BodyShape::BaseFemale, BodyShape::BaseMale]
                        } else {
                            vec![BodyShape::BaseMale]
                        },
                        category,
                        collection,
                        representation_id: name.replace(' ', "_"),
                        name,
                        owner: Owner { mana: 0 },
                        rarity,
                    },
                },
                price: u128::from(rng.gen_range(1..5_000u32)) * 10u128.pow(18),
                status: statuses[rng.gen_range(0..3)],
            }
        })
        .collect();
    Response {
        data: Data {
            count: Count {
                id: "all".into(),
                order_total: 86_656,
                wearable_total: 49_540,
            },
            orders,
        },
    }
}
