//! Types written as other types: `#[tree_buf(into, from, try_from)]` on a type and
//! `#[tree_buf(with = "module")]` on a field. The file holds exactly what the stored type writes,
//! and a conversion back that fails is an error at the value's path.

use std::convert::Infallible;
use std::net::Ipv4Addr;

use tree_buf::{
    decode, decode_with_options, encode, Decode, DecodeErrorKind, DecodeOptions, Encode,
};

/// A colour written as one packed `u32` column instead of three `u8` columns.
#[derive(Encode, Decode, Clone, Copy, Debug, PartialEq)]
#[tree_buf(into = "u32", from = "u32")]
struct Rgb {
    r: u8,
    g: u8,
    b: u8,
}

impl From<Rgb> for u32 {
    fn from(c: Rgb) -> u32 {
        u32::from(c.r) << 16 | u32::from(c.g) << 8 | u32::from(c.b)
    }
}

impl From<u32> for Rgb {
    fn from(packed: u32) -> Rgb {
        Rgb {
            r: (packed >> 16) as u8,
            g: (packed >> 8) as u8,
            b: packed as u8,
        }
    }
}

/// A percentage: any `u8` is written, only 0 to 100 read.
#[derive(Encode, Decode, Clone, Copy, Debug, PartialEq)]
#[tree_buf(into = "u8", try_from = "u8")]
struct Percent(u8);

impl From<Percent> for u8 {
    fn from(p: Percent) -> u8 {
        p.0
    }
}

impl TryFrom<u8> for Percent {
    type Error = String;

    fn try_from(value: u8) -> Result<Self, String> {
        match value {
            0..=100 => Ok(Percent(value)),
            _ => Err(format!("{value} is not a percentage")),
        }
    }
}

/// A foreign type (one this crate cannot derive for) stored as a `u32`.
mod ipv4 {
    use super::*;

    pub type Stored = u32;

    pub fn to_stored(address: &Ipv4Addr) -> u32 {
        u32::from(*address)
    }

    pub fn from_stored(stored: u32) -> Result<Ipv4Addr, Infallible> {
        Ok(Ipv4Addr::from(stored))
    }
}

/// Hours of the day, read back only if below 24.
mod hour {
    pub type Stored = u8;

    pub fn to_stored(hour: &u32) -> u8 {
        *hour as u8
    }

    pub fn from_stored(stored: u8) -> Result<u32, String> {
        match stored {
            0..=23 => Ok(u32::from(stored)),
            _ => Err(format!("hour {stored} is past the end of the day")),
        }
    }
}

#[derive(Encode, Decode, Debug, PartialEq, Clone)]
struct Visit {
    #[tree_buf(with = "ipv4")]
    address: Ipv4Addr,
    #[tree_buf(with = "hour")]
    hour: u32,
    colour: Rgb,
    load: Percent,
}

/// What `Visit` writes, field for field.
#[derive(Encode, Decode, Debug, PartialEq)]
struct StoredVisit {
    address: u32,
    hour: u8,
    colour: u32,
    load: u8,
}

fn visits(count: u32) -> Vec<Visit> {
    (0..count)
        .map(|i| Visit {
            // Scattered, so that the column does not compress away.
            address: Ipv4Addr::from(i.wrapping_mul(2_654_435_761)),
            hour: i % 24,
            colour: Rgb {
                r: i as u8,
                g: (i * 3) as u8,
                b: 7,
            },
            load: Percent((i % 101) as u8),
        })
        .collect()
}

fn stored(visits: &[Visit]) -> Vec<StoredVisit> {
    (visits.iter())
        .map(|v| StoredVisit {
            address: u32::from(v.address),
            hour: v.hour as u8,
            colour: u32::from(v.colour),
            load: v.load.0,
        })
        .collect()
}

#[test]
fn converted_types_write_exactly_what_their_stored_types_write() {
    let visits = visits(1000);
    let bytes = encode(&visits);
    assert_eq!(bytes, encode(&stored(&visits)));
    assert_eq!(decode::<Vec<Visit>>(&bytes).unwrap(), visits);
    assert_eq!(decode::<Vec<StoredVisit>>(&bytes).unwrap(), stored(&visits));
}

#[test]
fn conversions_that_fail_are_errors_at_the_path() {
    let mut rows = stored(&visits(10));
    rows[3].load = 150;
    let error = decode::<Vec<Visit>>(&encode(&rows)).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch);
    assert_eq!(error.path(), "[].load");
    assert!(
        error.to_string().contains("150 is not a percentage"),
        "{error}"
    );

    let mut rows = stored(&visits(10));
    rows[9].hour = 24;
    let error = decode::<Vec<Visit>>(&encode(&rows)).unwrap_err();
    assert_eq!(error.path(), "[].hour");
    assert!(error.to_string().contains("hour 24 is past"), "{error}");
}

#[test]
fn checked_conversions_decode_alike_on_one_thread_and_in_parallel() {
    let visits = visits(200_000);
    let bytes = encode(&visits);
    // Large enough for the leaves to be decoded on several threads.
    assert!(bytes.len() > 1 << 19, "{} bytes", bytes.len());
    for parallel in [false, true] {
        let options = DecodeOptions::default().parallel(parallel);
        assert_eq!(
            decode_with_options::<Vec<Visit>>(&bytes, &options).unwrap(),
            visits
        );
    }
}

#[test]
fn parallel_decoding_reports_the_error_one_thread_reports() {
    // A corrupt column (`colour`, converted without checks) registered before a converted column
    // with a value that fails (`load`): on one thread the corrupt column fails first, and so it
    // does when the leaves wait to run in parallel.
    // Over a megabyte of data, which is decoded in parallel.
    let mut rows = stored(&visits(300_000));
    rows[5].load = 150;
    let mut bytes = encode(&rows);
    let one_thread = DecodeOptions::default()
        .parallel(false)
        .verify_checksums(false);
    let parallel = DecodeOptions::default().verify_checksums(false);
    // Branches follow the header, the schema and the branch table, in order.
    let breakdown = tree_buf::size_breakdown(&bytes).unwrap();
    let mut start = breakdown.header_bytes + breakdown.schema_bytes + breakdown.table_bytes;
    for branch in breakdown
        .branches
        .iter()
        .take_while(|b| b.path != "[].colour")
    {
        start += branch.bytes;
    }
    // Stomp over the middle of the colour column's data, past the header its decoder reads
    // when it is registered.
    let colour = breakdown
        .branches
        .iter()
        .find(|b| b.path == "[].colour")
        .unwrap();
    bytes[start + colour.bytes / 2..start + colour.bytes].fill(0xff);
    let errors: Vec<String> = [one_thread, parallel]
        .iter()
        .map(|options| {
            decode_with_options::<Vec<Visit>>(&bytes, options)
                .unwrap_err()
                .to_string()
        })
        .collect();
    assert!(errors[0].contains("[].colour"), "{}", errors[0]);
    assert_eq!(errors[0], errors[1]);
}

#[derive(Encode, Decode, Debug, PartialEq)]
enum Event {
    Ping(#[tree_buf(with = "ipv4")] Ipv4Addr),
    Move {
        #[tree_buf(with = "ipv4")]
        from: Ipv4Addr,
        #[tree_buf(with = "ipv4")]
        to: Ipv4Addr,
    },
    Quiet,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Tagged<T> {
    tag: T,
    #[tree_buf(with = "ipv4")]
    address: Ipv4Addr,
}

#[derive(Encode, Decode, Debug, PartialEq)]
struct Pair(#[tree_buf(with = "ipv4")] Ipv4Addr, Percent);

#[test]
fn with_works_in_variants_tuples_and_generic_types() {
    let localhost = Ipv4Addr::LOCALHOST;
    let events = vec![
        Event::Ping(localhost),
        Event::Quiet,
        Event::Move {
            from: localhost,
            to: Ipv4Addr::BROADCAST,
        },
    ];
    assert_eq!(decode::<Vec<Event>>(&encode(&events)).unwrap(), events);
    let tagged = vec![Tagged {
        tag: "a".to_string(),
        address: localhost,
    }];
    assert_eq!(
        decode::<Vec<Tagged<String>>>(&encode(&tagged)).unwrap(),
        tagged
    );
    let pair = Pair(localhost, Percent(5));
    assert_eq!(decode::<Pair>(&encode(&pair)).unwrap(), pair);
}

#[derive(Encode)]
struct Before {
    id: u32,
}

#[derive(Decode, Debug, PartialEq)]
struct After {
    id: u32,
    #[tree_buf(with = "hour", default)]
    hour: u32,
    #[tree_buf(default)]
    load: Option<Percent>,
}

#[test]
fn converted_fields_can_be_defaulted_or_optional() {
    let read: Vec<After> = decode(&encode(&vec![Before { id: 1 }])).unwrap();
    assert_eq!(
        read,
        [After {
            id: 1,
            hour: 0,
            load: None
        }]
    );
}

#[test]
fn converted_map_keys_are_ordered_by_their_stored_form() {
    use std::collections::HashMap;
    let map: HashMap<Rgb, u8> = (0..50u32).map(|i| (Rgb::from(i * 7919), i as u8)).collect();
    let bytes = encode(&map);
    let as_stored: std::collections::BTreeMap<u32, u8> =
        map.iter().map(|(k, v)| (u32::from(*k), *v)).collect();
    assert_eq!(bytes, encode(&as_stored));
    assert_eq!(decode::<HashMap<Rgb, u8>>(&bytes).unwrap(), map);
}

impl Eq for Rgb {}

impl std::hash::Hash for Rgb {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        u32::from(*self).hash(state);
    }
}
