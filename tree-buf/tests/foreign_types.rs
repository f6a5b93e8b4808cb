//! Types of other crates, each behind its crate's feature: they round-trip at their extremes,
//! are stored in the forms their docs give (so they write what those forms write), compress as
//! those forms do, and stored values outside a type's range read as errors.

#![cfg(all(
    feature = "bytes",
    feature = "chrono",
    feature = "indexmap",
    feature = "ordered-float",
    feature = "rust_decimal",
    feature = "smallvec",
    feature = "time",
    feature = "uuid"
))]

use std::collections::HashMap;
use std::fmt::Debug;

use tree_buf::{decode, encode, DecodeErrorKind, DecodeOwned, Encode};

fn round_trip<T: Encode + DecodeOwned + PartialEq + Debug>(values: &[T]) -> Vec<u8> {
    let values: Vec<&T> = values.iter().collect();
    let bytes = encode(&values);
    let back: Vec<T> = decode(&bytes).unwrap();
    assert_eq!(back.iter().collect::<Vec<_>>(), values);
    bytes
}

/// Checks that `values` write what their stored forms write, and round-trip.
fn stored_as<T, S>(values: &[T], stored: impl Fn(&T) -> S)
where
    T: Encode + DecodeOwned + PartialEq + Debug,
    S: Encode,
{
    let bytes = round_trip(values);
    let forms: Vec<S> = values.iter().map(stored).collect();
    assert_eq!(bytes, encode(&forms), "{values:?}");
}

/// Checks that `stored` does not read as a `T`.
fn rejected<T: DecodeOwned + Debug, S: Encode>(stored: S) {
    let error = decode::<Vec<T>>(&encode(&vec![stored])).unwrap_err();
    assert_eq!(error.kind(), DecodeErrorKind::SchemaMismatch, "{error}");
    assert_eq!(error.path(), "[]", "{error}");
}

#[test]
fn uuids_are_u128s() {
    use uuid::Uuid;
    let ids = [
        Uuid::nil(),
        Uuid::max(),
        Uuid::from_u128(0x0191_f2a3_7b4c_7d8e_9f00_1122_3344_5566),
    ];
    stored_as(&ids, Uuid::as_u128);
    let keys: HashMap<Uuid, u8> = ids.iter().map(|&id| (id, 1)).collect();
    assert_eq!(decode::<HashMap<Uuid, u8>>(&encode(&keys)).unwrap(), keys);
    // Time-ordered identifiers a millisecond apart delta-encode to about a byte each.
    let ordered: Vec<Uuid> = (0..10_000u128)
        .map(|i| Uuid::from_u128((0x0191_f2a3_7b4c + i) << 80 | 0x7000 << 64 | 0x8000 << 48))
        .collect();
    let bytes = round_trip(&ordered);
    assert!(bytes.len() < 16_000, "{} bytes", bytes.len());
}

#[test]
fn chrono_instants_are_seconds_and_nanoseconds() {
    use chrono::{
        DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike, Utc,
    };
    let instants = [
        DateTime::<Utc>::MIN_UTC,
        DateTime::<Utc>::MAX_UTC,
        DateTime::from_timestamp(1_700_000_000, 123_456_789).unwrap(),
        DateTime::from_timestamp(-1, 0).unwrap(),
    ];
    stored_as(&instants, |at| (at.timestamp(), at.nanosecond()));
    let naive: Vec<NaiveDateTime> = instants.iter().map(|at| at.naive_utc()).collect();
    stored_as(&naive, |at| (at.and_utc().timestamp(), at.nanosecond()));
    let offsets: Vec<DateTime<FixedOffset>> = (instants.iter().zip([86_399, 0, 3600, -86_399]))
        .map(|(at, offset)| at.with_timezone(&FixedOffset::east_opt(offset).unwrap()))
        .collect();
    let back: Vec<DateTime<FixedOffset>> = decode(&encode(&offsets)).unwrap();
    for (back, at) in back.iter().zip(&offsets) {
        assert_eq!((back, back.offset()), (at, at.offset()));
    }
    let dates = [
        NaiveDate::MIN,
        NaiveDate::MAX,
        NaiveDate::from_ymd_opt(2016, 2, 29).unwrap(),
    ];
    round_trip(&dates);
    let leap_second = NaiveTime::from_hms_nano_opt(23, 59, 59, 1_500_000_000).unwrap();
    let times = [
        NaiveTime::MIN,
        leap_second,
        NaiveTime::from_hms_opt(12, 0, 1).unwrap(),
    ];
    stored_as(&times, |t| (t.num_seconds_from_midnight(), t.nanosecond()));
    let deltas = [
        TimeDelta::MIN,
        TimeDelta::MAX,
        TimeDelta::zero(),
        TimeDelta::nanoseconds(-1_500_000_001),
        TimeDelta::milliseconds(2_750),
    ];
    round_trip(&deltas);

    // A minute apart in whole seconds: the seconds delta-encode to almost nothing and the
    // nanoseconds are all zero.
    let minutes: Vec<DateTime<Utc>> = (0..10_000)
        .map(|i| DateTime::from_timestamp(1_600_000_000 + i * 60, 0).unwrap())
        .collect();
    let bytes = round_trip(&minutes);
    assert!(bytes.len() < 200, "{} bytes", bytes.len());

    rejected::<DateTime<Utc>, _>((i64::MAX, 0u32));
    rejected::<NaiveDateTime, _>((0i64, 2_000_000_000u32));
    rejected::<DateTime<FixedOffset>, _>((0i64, 0u32, 86_400i32));
    // In range in UTC, but not in local time: chrono's methods that give that would panic.
    let last = DateTime::<Utc>::MAX_UTC.timestamp();
    rejected::<DateTime<FixedOffset>, _>((last, 0u32, 3600i32));
    rejected::<NaiveDate, _>(i32::MAX);
    rejected::<NaiveTime, _>((86_400u32, 0u32));
    rejected::<TimeDelta, _>((i64::MAX, 0i32));
    rejected::<TimeDelta, _>((0i64, 1_000_000_000i32));
}

#[test]
fn time_instants_are_seconds_and_nanoseconds() {
    use time::macros::{date, datetime, offset, time};
    use time::{Date, Duration, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};
    let dates = [Date::MIN, Date::MAX, date!(2016 - 02 - 29)];
    stored_as(&dates, |d| d.to_julian_day());
    let times = [Time::MIDNIGHT, time!(23:59:59.999_999_999), time!(12:30)];
    round_trip(&times);
    let primitive = [
        PrimitiveDateTime::MIN,
        PrimitiveDateTime::MAX,
        datetime!(2019-01-01 0:00:00.5),
    ];
    stored_as(&primitive, |at| {
        (at.assume_utc().unix_timestamp(), at.nanosecond())
    });
    let instants = [
        // Local times at the ends of the range, whose UTC instants are past them.
        PrimitiveDateTime::MAX.assume_offset(offset!(-1)),
        PrimitiveDateTime::MIN.assume_offset(offset!(+1)),
        datetime!(2019-01-01 0:00 +5:30),
        datetime!(1901-12-13 20:45:52.000_000_001 -23:59:59),
        OffsetDateTime::UNIX_EPOCH,
    ];
    let back: Vec<OffsetDateTime> = decode(&encode(&instants.to_vec())).unwrap();
    for (back, at) in back.iter().zip(&instants) {
        assert_eq!((back, back.offset()), (at, at.offset()));
    }
    round_trip(&[UtcOffset::UTC, offset!(-23:59:59), offset!(+5:45)]);
    let durations = [
        Duration::MIN,
        Duration::MAX,
        Duration::ZERO,
        Duration::new(-3, -500),
        Duration::milliseconds(2_750),
    ];
    stored_as(&durations, |d| (d.whole_seconds(), d.subsec_nanoseconds()));

    rejected::<Date, _>(i32::MAX);
    rejected::<Time, _>(86_400_000_000_000u64);
    rejected::<UtcOffset, _>(26 * 3600i32);
    rejected::<PrimitiveDateTime, _>((i64::MAX, 0u32));
    rejected::<OffsetDateTime, _>((0i64, 1_000_000_000u32, 0i32));
    rejected::<Duration, _>((5i64, -3i32));
    rejected::<Duration, _>((i64::MIN, -1_000_000_000i32));
}

#[test]
fn decimals_are_scaled_integers() {
    use rust_decimal::Decimal;
    let extremes = [
        Decimal::MAX,
        Decimal::MIN,
        Decimal::ZERO,
        Decimal::new(150, 2),
        Decimal::from_i128_with_scale(1, 28),
    ];
    stored_as(&extremes, |d| (d.mantissa(), d.scale()));
    // `1.50` keeps its scale, and negative zero its sign.
    let negative_zero = -Decimal::new(0, 2);
    let back: Vec<Decimal> = decode(&encode(&vec![Decimal::new(150, 2), negative_zero])).unwrap();
    assert_eq!(back[0].to_string(), "1.50");
    assert_eq!(back[1].to_string(), "-0.00");
    assert_eq!(
        decode::<Vec<Decimal>>(&encode(&vec![Decimal::new(-5, 1)])).unwrap()[0].to_string(),
        "-0.5"
    );
    // Prices in cents: the scale is constant and the cents a small integer column.
    let prices: Vec<Decimal> = (0..10_000i64)
        .map(|i| Decimal::new(10_000 + (i * 7919) % 500, 2))
        .collect();
    let bytes = round_trip(&prices);
    assert!(bytes.len() < 12_000, "{} bytes", bytes.len());

    rejected::<Decimal, _>((1i128, 29u32));
    rejected::<Decimal, _>((1i128 << 100, 0u32));
    // The sign of zero, on a value that is not zero.
    rejected::<Decimal, _>((5i128, 1u32 << 31));
}

#[test]
fn ordered_floats_are_their_floats() {
    use ordered_float::{NotNan, OrderedFloat};
    let floats = [
        OrderedFloat(f64::NAN),
        OrderedFloat(-0.0),
        OrderedFloat(1.5),
    ];
    stored_as(&floats, |f| f.0);
    stored_as(&[OrderedFloat(f32::INFINITY)], |f| f.0);
    let not_nan = [
        NotNan::new(2.5f64).unwrap(),
        NotNan::new(f64::NEG_INFINITY).unwrap(),
    ];
    stored_as(&not_nan, |f| f.into_inner());
    round_trip(&[NotNan::new(0.25f32).unwrap()]);
    rejected::<NotNan<f64>, _>(f64::NAN);
    rejected::<NotNan<f32>, _>(f32::NAN);
}

#[test]
fn collections_are_sequences_and_maps() {
    use bytes::{Bytes, BytesMut};
    use indexmap::{IndexMap, IndexSet};
    use smallvec::SmallVec;

    // Insertion order is kept, not sorted away.
    let map: IndexMap<String, u32> = [("b", 1), ("a", 2), ("c", 3)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let back: IndexMap<String, u32> = decode(&encode(&map)).unwrap();
    assert!(back.iter().eq(map.iter()));
    // The same node type as other maps: a `BTreeMap` reads it.
    let sorted: std::collections::BTreeMap<String, u32> = map.clone().into_iter().collect();
    assert_eq!(
        decode::<std::collections::BTreeMap<String, u32>>(&encode(&map)).unwrap(),
        sorted
    );
    let set: IndexSet<u32> = [30, 10, 20].into_iter().collect();
    let back: IndexSet<u32> = decode(&encode(&set)).unwrap();
    assert!(back.iter().eq(set.iter()));
    assert_eq!(encode(&set), encode(&vec![30u32, 10, 20]));

    let small: Vec<SmallVec<[u32; 2]>> = vec![
        SmallVec::new(),
        SmallVec::from_slice(&[1, 2]),
        SmallVec::from_slice(&[3, 4, 5, 6]),
    ];
    stored_as(&small, |v| v.to_vec());

    let buffers = [
        Bytes::new(),
        Bytes::from_static(b"tree-buf"),
        Bytes::from(vec![0u8; 300]),
    ];
    stored_as(&buffers, |b| b.to_vec());
    let mutable: Vec<BytesMut> = buffers.iter().map(|b| BytesMut::from(&b[..])).collect();
    stored_as(&mutable, |b| b.to_vec());
}
