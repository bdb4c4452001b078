//! UTC timestamps and the few formats mneme writes, over jiff. Reading the clock is an effect:
//! callers pass "now" in.

/// A point in time, UTC, with nanosecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(jiff::Timestamp);

impl From<jiff::Timestamp> for Timestamp {
    fn from(t: jiff::Timestamp) -> Timestamp {
        Timestamp(t)
    }
}

impl Timestamp {
    /// Whole seconds since the Unix epoch, clamped to jiff's range.
    pub fn from_unix(secs: i64) -> Timestamp {
        let secs = secs.clamp(
            jiff::Timestamp::MIN.as_second(),
            jiff::Timestamp::MAX.as_second(),
        );
        Timestamp(jiff::Timestamp::from_second(secs).unwrap_or(jiff::Timestamp::UNIX_EPOCH))
    }

    /// Nanoseconds since the Unix epoch, as [`Timestamp::unix_nanos`] gives them; `None`
    /// outside jiff's range.
    pub fn from_unix_nanos(nanos: i128) -> Option<Timestamp> {
        jiff::Timestamp::from_nanosecond(nanos).ok().map(Timestamp)
    }

    pub fn unix_nanos(self) -> i128 {
        self.0.as_nanosecond()
    }

    pub fn unix_seconds(self) -> i64 {
        self.0.as_second()
    }

    /// Nanoseconds within the second.
    pub fn subsec_nanos(self) -> u32 {
        self.0.subsec_nanosecond().unsigned_abs()
    }

    /// `2026-11-22T13:53:00.123456Z` (microseconds; enough to order proposals made in one second).
    pub fn rfc3339(self) -> String {
        let d = self.civil();
        format!(
            "{}T{:02}:{:02}:{:02}.{:06}Z",
            self.date(),
            d.hour(),
            d.minute(),
            d.second(),
            d.subsec_nanosecond() / 1000
        )
    }

    /// `2026-11-22T13:53:00Z`, whole seconds.
    pub fn rfc3339_seconds(self) -> String {
        let d = self.civil();
        format!(
            "{}T{:02}:{:02}:{:02}Z",
            self.date(),
            d.hour(),
            d.minute(),
            d.second()
        )
    }

    /// `20261122T135300Z`: sortable and safe in file names.
    pub fn compact(self) -> String {
        let d = self.civil();
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            d.year(),
            d.month(),
            d.day(),
            d.hour(),
            d.minute(),
            d.second()
        )
    }

    /// `2026-11-22`.
    pub fn date(self) -> String {
        let d = self.civil();
        format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day())
    }

    /// Parses `YYYY-MM-DD` (midnight UTC) or an RFC 3339 time with `Z` or an offset.
    pub fn parse(s: &str) -> Option<Timestamp> {
        let b = s.as_bytes();
        if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        if b.len() == 10 {
            let date: jiff::civil::Date = s.parse().ok()?;
            // UTC is a fixed offset: no zoned time to build.
            let midnight = date.to_datetime(jiff::civil::Time::midnight());
            return jiff::tz::Offset::UTC
                .to_timestamp(midnight)
                .ok()
                .map(Timestamp);
        }
        s.parse().ok().map(Timestamp)
    }

    /// A moment given as a filter: a date or time [`Timestamp::parse`] reads, or an age before
    /// `now` such as `30m`, `12h`, `3d` or `2w` ([`parse_duration`], as [`human_age`] writes them).
    pub fn parse_since(s: &str, now: Timestamp) -> Option<Timestamp> {
        let s = s.trim();
        if let Some(t) = Timestamp::parse(s) {
            return Some(t);
        }
        let ago = parse_duration(s)?;
        Some(Timestamp::from_unix(now.unix_seconds().checked_sub(ago)?))
    }

    /// `self` plus `seconds`, saturating at the ends of time.
    pub fn plus_seconds(self, seconds: i64) -> Timestamp {
        Timestamp::from_unix(self.unix_seconds().saturating_add(seconds))
    }

    /// Whole days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: Timestamp) -> i64 {
        (later.0.as_second() - self.0.as_second()).div_euclid(86_400)
    }

    fn civil(self) -> jiff::civil::DateTime {
        jiff::tz::TimeZone::UTC.to_datetime(self.0)
    }
}

/// A length of time such as `90s`, `30m`, `12h`, `3d` or `2w`, in seconds (never negative).
pub fn parse_duration(s: &str) -> Option<i64> {
    let s = s.trim();
    let unit = s.chars().last()?;
    let n: i64 = s.get(..s.len() - unit.len_utf8())?.parse().ok()?;
    let seconds = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        'w' => 7 * 86_400,
        _ => return None,
    };
    n.checked_mul(seconds).filter(|s| *s >= 0)
}

/// A short human age such as `3d`, `5h` or `12m`.
pub fn human_age(from: Timestamp, now: Timestamp) -> String {
    let secs = (now.unix_seconds() - from.unix_seconds()).max(0);
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m", secs / 60),
        3600..=86_399 => format!("{}h", secs / 3600),
        _ => format!("{}d", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_round_trip() {
        let t = Timestamp::parse("2026-11-22T13:53:07.250Z").unwrap();
        assert_eq!(t.rfc3339(), "2026-11-22T13:53:07.250000Z");
        assert_eq!(t.rfc3339_seconds(), "2026-11-22T13:53:07Z");
        assert_eq!(t.compact(), "20261122T135307Z");
        assert_eq!(t.date(), "2026-11-22");
        assert_eq!(Timestamp::parse(&t.rfc3339()), Some(t));
    }

    #[test]
    fn parses_dates_offsets_and_leap_days() {
        let day = Timestamp::parse("2024-02-29").unwrap();
        assert_eq!(day.rfc3339(), "2024-02-29T00:00:00.000000Z");
        let off = Timestamp::parse("2024-03-01T01:00:00+02:00").unwrap();
        assert_eq!(off.rfc3339(), "2024-02-29T23:00:00.000000Z");
        assert_eq!(day.days_until(off), 0);
        assert_eq!(
            Timestamp::parse("1970-01-01T00:00:00Z")
                .unwrap()
                .unix_seconds(),
            0
        );
        assert_eq!(Timestamp::from_unix(86_400).date(), "1970-01-02");
    }

    #[test]
    fn rejects_malformed_dates() {
        for bad in [
            "2023-02-29",
            "2026-13-01",
            "2026-1-01",
            "2026-11-22T25:00:00Z",
            "2026-11-22T10:00:00",
            "2026-11-22T10:00:00.Z",
            "yesterday",
            "20261122",
        ] {
            assert_eq!(Timestamp::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn human_ages() {
        let t = Timestamp::from_unix(1000);
        let later = |s: i64| Timestamp::from_unix(1000 + s);
        assert_eq!(human_age(t, later(5)), "5s");
        assert_eq!(human_age(t, later(600)), "10m");
        assert_eq!(human_age(t, later(7200)), "2h");
        assert_eq!(human_age(t, later(3 * 86_400)), "3d");
    }
}
