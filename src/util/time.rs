//! Dates and times as tapline writes them: UTC from the Unix clock, in the proleptic Gregorian
//! calendar, so no time zone database is read and every machine writes the same text.
//!
//! A time before 1970 is written as the date it is (the second it falls in, rounding towards
//! the past as after 1970), never as the epoch: the HTML report's copy once wrote 1970-01-01
//! for any earlier clock.
use std::time::{SystemTime, UNIX_EPOCH};

/// `2026-11-23 08:10:21 UTC`: the second `time` falls in, as the HTML report heads a run.
pub(crate) fn utc(time: SystemTime) -> String {
    let secs = match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).unwrap_or(i64::MAX),
        Err(before) => {
            let before = before.duration();
            let started = u64::from(before.subsec_nanos() > 0);
            i64::try_from(before.as_secs() + started).map_or(i64::MIN, |s| -s)
        }
    };
    let (date, clock) = date_and_clock(secs);
    format!("{date} {clock} UTC")
}

/// `2026-11-23T08:10:40.123Z` for `ms` milliseconds since the Unix epoch, as history records a
/// run's start.
pub(crate) fn rfc3339(ms: i64) -> String {
    let (date, clock) = date_and_clock(ms.div_euclid(1000));
    format!("{date}T{clock}.{:03}Z", ms.rem_euclid(1000))
}

/// `YYYY-MM-DD` and `HH:MM:SS` of the second `secs` since the epoch.
fn date_and_clock(secs: i64) -> (String, String) {
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let of_day = secs.rem_euclid(86_400);
    (
        format!("{year:04}-{month:02}-{day:02}"),
        format!(
            "{:02}:{:02}:{:02}",
            of_day / 3600,
            of_day % 3600 / 60,
            of_day % 60
        ),
    )
}

/// The year, month and day of `days` since 1970-01-01: Howard Hinnant's days-to-civil
/// algorithm, exact over the whole range of `i64` seconds.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Counted from 0000-03-01, so that a leap day ends a year of 400-year eras.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    // In range by construction: a day of 1..=31, a month of 1..=12.
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn utc_dates() {
        let at = |secs| utc(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(utc(UNIX_EPOCH), "1970-01-01 00:00:00 UTC");
        assert_eq!(at(1_795_421_421), "2026-11-23 08:10:21 UTC");
        assert_eq!(at(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(
            utc(UNIX_EPOCH + Duration::from_millis(1_999)),
            "1970-01-01 00:00:01 UTC",
            "cut to the second, never rounded up"
        );
    }

    /// Regression: the HTML report's copy wrote any time before 1970 as the epoch.
    #[test]
    fn utc_before_the_epoch_is_its_own_date() {
        let before = |d: Duration| utc(UNIX_EPOCH - d);
        assert_eq!(before(Duration::from_secs(1)), "1969-12-31 23:59:59 UTC");
        assert_eq!(
            before(Duration::from_millis(1)),
            "1969-12-31 23:59:59 UTC",
            "the second it falls in"
        );
        assert_eq!(
            before(Duration::from_secs(86_400 * 365)),
            "1969-01-01 00:00:00 UTC"
        );
    }

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_795_421_440_005), "2026-11-23T08:10:40.005Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(rfc3339(253_402_300_800_000), "10000-01-01T00:00:00.000Z");
    }

    /// Every day from 1600 to 2400 follows the one before it by the calendar's own rules
    /// (month lengths, leap years by 4, 100 and 400): the algorithm checked by counting.
    #[test]
    fn days_follow_one_another_by_the_calendar() {
        let leap = |y: i64| y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let length = |y: i64, m: u32| match m {
            2 if leap(y) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        };
        let first = -135_140; // 1600-01-01
        assert_eq!(civil_from_days(first), (1600, 1, 1));
        let mut expected = (1600, 1, 1);
        for days in first..=157_053 {
            assert_eq!(civil_from_days(days), expected, "day {days}");
            let (y, m, d) = expected;
            expected = if d < length(y, m) {
                (y, m, d + 1)
            } else if m < 12 {
                (y, m + 1, 1)
            } else {
                (y + 1, 1, 1)
            };
        }
        assert_eq!(expected, (2400, 1, 1), "157_053 is 2399-12-31");
    }
}
