//! `chrono`'s dates, times and durations. An instant is its whole seconds since the Unix epoch (an
//! `i64`, which delta encoding shrinks to the gaps between neighbours) beside its nanoseconds (a
//! `u32`, constant for whole seconds), each a column; a `FixedOffset` instant adds its offset in
//! seconds. A date is its day count from the common era, a time of day its seconds from midnight
//! and nanoseconds (above a billion during a leap second). Values outside chrono's ranges read as
//! errors.

use chrono::{
    DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Timelike, Utc,
};

use crate::types::proxy::checked_conversions;

pub struct Chrono;

checked_conversions! {
    Chrono, "chrono";
    NaiveDate as i32: |date| date.num_days_from_ce(),
        |days| NaiveDate::from_num_days_from_ce_opt(days);
    NaiveTime as (u32, u32): |time| (time.num_seconds_from_midnight(), time.nanosecond()),
        |(seconds, nanos)| NaiveTime::from_num_seconds_from_midnight_opt(seconds, nanos);
    NaiveDateTime as (i64, u32): |at| (at.and_utc().timestamp(), at.nanosecond()),
        |(seconds, nanos)| DateTime::from_timestamp(seconds, nanos).map(|at| at.naive_utc());
    DateTime<Utc> as (i64, u32): |at| (at.timestamp(), at.nanosecond()),
        |(seconds, nanos)| DateTime::from_timestamp(seconds, nanos);
    DateTime<FixedOffset> as (i64, u32, i32):
        |at| (at.timestamp(), at.nanosecond(), at.offset().local_minus_utc()),
        // Its local date and time must be in range too: chrono's methods that give them panic
        // where they are not.
        |(seconds, nanos, offset)| FixedOffset::east_opt(offset).zip(DateTime::from_timestamp(seconds, nanos))
            .filter(|(offset, at)| at.naive_utc().checked_add_offset(*offset).is_some())
            .map(|(offset, at)| at.with_timezone(&offset));
    TimeDelta as (i64, i32): |delta| (delta.num_seconds(), delta.subsec_nanos()),
        |(seconds, nanos)| TimeDelta::try_seconds(seconds)
            .filter(|_| nanos.unsigned_abs() < 1_000_000_000)
            .and_then(|whole| whole.checked_add(&TimeDelta::nanoseconds(i64::from(nanos))));
}
