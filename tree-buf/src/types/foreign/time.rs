//! `time`'s dates, times, offsets and durations. An instant is its whole seconds since the Unix
//! epoch (an `i64`, which delta encoding shrinks to the gaps between neighbours) beside its
//! nanoseconds (a `u32`, constant for whole seconds), each a column; an `OffsetDateTime` adds its
//! offset in seconds, and a `PrimitiveDateTime` is taken as UTC. A date is its Julian day, a time
//! of day its nanoseconds from midnight, a duration its whole seconds and nanoseconds (of one
//! sign). Values outside `time`'s ranges read as errors.

use time::{Date, Duration, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

use crate::types::proxy::checked_conversions;

pub struct TimeCrate;

const NANOS_PER_SECOND: u64 = 1_000_000_000;

/// The nanoseconds since midnight of a time of day.
fn nanos_of_day(time: &Time) -> u64 {
    let (hours, minutes, seconds, nanos) = time.as_hms_nano();
    let seconds = u64::from(hours) * 3600 + u64::from(minutes) * 60 + u64::from(seconds);
    seconds * NANOS_PER_SECOND + u64::from(nanos)
}

/// The time of day `nanos` after midnight, if that is within the day.
fn time_of_day(nanos: u64) -> Option<Time> {
    let seconds = nanos / NANOS_PER_SECOND;
    let hours = u8::try_from(seconds / 3600).ok()?;
    let sub_nanos = (nanos % NANOS_PER_SECOND) as u32;
    Time::from_hms_nano(
        hours,
        (seconds / 60 % 60) as u8,
        (seconds % 60) as u8,
        sub_nanos,
    )
    .ok()
}

/// The date and time `seconds` and `nanos` after the Unix epoch, in UTC.
fn instant(seconds: i64, nanos: u32) -> Option<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp(seconds)
        .ok()?
        .replace_nanosecond(nanos)
        .ok()
}

checked_conversions! {
    TimeCrate, "time";
    Date as i32: |date| date.to_julian_day(), |day| Date::from_julian_day(day).ok();
    Time as u64: |time| nanos_of_day(time), |nanos| time_of_day(nanos);
    UtcOffset as i32: |offset| offset.whole_seconds(),
        |seconds| UtcOffset::from_whole_seconds(seconds).ok();
    PrimitiveDateTime as (i64, u32): |at| (at.assume_utc().unix_timestamp(), at.nanosecond()),
        |(seconds, nanos)| instant(seconds, nanos).map(|at| PrimitiveDateTime::new(at.date(), at.time()));
    OffsetDateTime as (i64, u32, i32):
        |at| (at.unix_timestamp(), at.nanosecond(), at.offset().whole_seconds()),
        // From its local date and time, which are in range even where its UTC instant is not
        // (the last hour of `Date::MAX` an hour west of UTC).
        |(seconds, nanos, offset)| UtcOffset::from_whole_seconds(offset).ok()
            .zip(seconds.checked_add(i64::from(offset)).and_then(|local| instant(local, nanos)))
            .map(|(offset, local)| PrimitiveDateTime::new(local.date(), local.time()).assume_offset(offset));
    Duration as (i64, i32): |duration| (duration.whole_seconds(), duration.subsec_nanoseconds()),
        // Nanoseconds of the seconds' sign and under a second, which `Duration::new` then
        // takes as they are (it panics where normalizing them would overflow).
        |(seconds, nanos)| (nanos.unsigned_abs() < NANOS_PER_SECOND as u32
            && (seconds == 0 || nanos == 0 || (seconds < 0) == (nanos < 0)))
            .then(|| Duration::new(seconds, nanos));
}
