//! UTC timestamps without a calendar dependency: mneme only needs "now", RFC 3339 in UTC and
//! whole-day ages, so a few lines of civil-date arithmetic are enough.

use std::time::{SystemTime, UNIX_EPOCH};

/// A point in time, UTC, with nanosecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Timestamp {
    pub secs: i64,
    pub nanos: u32,
}

impl Timestamp {
    pub fn now() -> Timestamp {
        let d = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp {
            secs: d.as_secs() as i64,
            nanos: d.subsec_nanos(),
        }
    }

    /// `2026-11-22T13:53:00.123456Z` (microseconds; enough to order proposals made in one second).
    pub fn rfc3339(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        format!(
            "{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:06}Z",
            self.nanos / 1000
        )
    }

    /// `2026-11-22T13:53:00Z`, whole seconds.
    pub fn rfc3339_seconds(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    }

    /// `20261122T135300Z`: sortable and safe in file names.
    pub fn compact(self) -> String {
        let (y, mo, d, h, mi, s) = self.civil();
        format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
    }

    /// `2026-11-22`.
    pub fn date(self) -> String {
        let (y, mo, d, ..) = self.civil();
        format!("{y:04}-{mo:02}-{d:02}")
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SS[.frac]Z` or with a `+HH:MM`/`-HH:MM` offset.
    pub fn parse(s: &str) -> Option<Timestamp> {
        let b = s.as_bytes();
        let num = |r: std::ops::Range<usize>| -> Option<i64> {
            let part = s.get(r)?;
            if part.bytes().all(|c| c.is_ascii_digit()) {
                part.parse().ok()
            } else {
                None
            }
        };
        if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        if !(1..=12).contains(&mo) || !(1..=days_in_month(y, mo)).contains(&d) {
            return None;
        }
        let mut secs = days_from_civil(y, mo, d) * 86_400;
        if b.len() == 10 {
            return Some(Timestamp { secs, nanos: 0 });
        }
        if b.len() < 20 || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
            return None;
        }
        let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if h > 23 || mi > 59 || sec > 60 {
            return None;
        }
        secs += h * 3600 + mi * 60 + sec;
        let mut rest = &s[19..];
        let mut nanos = 0u32;
        if let Some(frac) = rest.strip_prefix('.') {
            let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            let padded = format!("{:0<9}", &frac[..digits.min(9)]);
            nanos = padded.parse().ok()?;
            rest = &frac[digits..];
        }
        match rest {
            "Z" | "z" => {}
            _ => {
                let sign = match rest.as_bytes().first()? {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return None,
                };
                if rest.len() != 6 || rest.as_bytes()[3] != b':' {
                    return None;
                }
                let oh: i64 = rest[1..3].parse().ok()?;
                let om: i64 = rest[4..6].parse().ok()?;
                secs -= sign * (oh * 3600 + om * 60);
            }
        }
        Some(Timestamp { secs, nanos })
    }

    /// Whole days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: Timestamp) -> i64 {
        (later.secs - self.secs).div_euclid(86_400)
    }

    fn civil(self) -> (i64, i64, i64, i64, i64, i64) {
        let days = self.secs.div_euclid(86_400);
        let rem = self.secs.rem_euclid(86_400);
        let (y, mo, d) = civil_from_days(days);
        (y, mo, d, rem / 3600, rem % 3600 / 60, rem % 60)
    }
}

/// A short human age such as `3d`, `5h` or `12m`.
pub fn human_age(from: Timestamp, now: Timestamp) -> String {
    let secs = (now.secs - from.secs).max(0);
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m", secs / 60),
        3600..=86_399 => format!("{}h", secs / 3600),
        _ => format!("{}d", secs / 86_400),
    }
}

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_round_trip() {
        let t = Timestamp::parse("2026-11-22T13:53:07.250Z").unwrap();
        assert_eq!(t.rfc3339(), "2026-11-22T13:53:07.250000Z");
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
        assert_eq!(Timestamp::parse("1970-01-01T00:00:00Z").unwrap().secs, 0);
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
        ] {
            assert_eq!(Timestamp::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn human_ages() {
        let t = Timestamp {
            secs: 1000,
            nanos: 0,
        };
        let later = |s: i64| Timestamp {
            secs: 1000 + s,
            nanos: 0,
        };
        assert_eq!(human_age(t, later(5)), "5s");
        assert_eq!(human_age(t, later(600)), "10m");
        assert_eq!(human_age(t, later(7200)), "2h");
        assert_eq!(human_age(t, later(3 * 86_400)), "3d");
    }
}
