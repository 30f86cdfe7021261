//! Timestamps as RFC 3339 UTC with milliseconds (`2025-01-31T09:08:07.123Z`).
//! Fixed width, so the stored strings sort in time order; formatted here
//! because one format does not justify a date-time dependency.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, formatted. A clock set before 1970 yields the epoch rather than an
/// error: a wrong timestamp in the ledger beats a call that is not recorded.
pub(crate) fn now() -> String {
    format_millis(now_millis())
}

/// The instant `age` ago, formatted (the epoch when that is before it).
pub(crate) fn ago(age: std::time::Duration) -> String {
    let age = u64::try_from(age.as_millis()).unwrap_or(u64::MAX);
    format_millis(now_millis().saturating_sub(age))
}

fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Formats milliseconds since the Unix epoch.
pub(crate) fn format_millis(millis: u64) -> String {
    let ms = millis % 1000;
    let secs = millis / 1000;
    let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
    let (year, month, day) = civil_from_days(secs / 86_400);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{ms:03}Z")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// `civil_from_days`, restricted to dates from 1970 on).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::format_millis;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(format_millis(951_868_799_999), "2000-02-29T23:59:59.999Z");
        assert_eq!(format_millis(1_709_251_199_000), "2024-02-29T23:59:59.000Z");
        assert_eq!(format_millis(4_107_542_400_000), "2100-03-01T00:00:00.000Z");
        assert_eq!(format_millis(1_767_225_599_999), "2025-12-31T23:59:59.999Z");
    }

    #[test]
    fn now_is_well_formed() {
        let now = super::now();
        assert_eq!(now.len(), 24, "{now}");
        assert!(now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
    }
}
