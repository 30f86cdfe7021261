//! The `[notify]` table: who hears of a call that waits for a person, and
//! how long it may wait.
//!
//! ```toml
//! [notify]
//! webhook = "https://ntfy.example.org/toolgate"   # a JSON POST per new waiting call
//! include_arguments = false                       # the call's input in the POST (default off)
//! desktop = false                                 # notify-send where a session bus exists
//! approval_ttl = "1h"                             # a waiting call older than this expires
//! ```
//!
//! The engine does nothing with these: `toolgate serve` reads them (see
//! `toolgate-serve`). They are parsed here so that a mistake in them is a
//! load error at its line, like every other part of the file.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::error::PolicyError;

/// How long a waiting call waits when `approval_ttl` is not set.
pub const DEFAULT_APPROVAL_TTL: Duration = Duration::from_secs(3600);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawNotify {
    webhook: Option<Spanned<String>>,
    include_arguments: Option<bool>,
    desktop: Option<bool>,
    approval_ttl: Option<Spanned<String>>,
}

/// The checked `[notify]` table (all defaults when the table is absent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notify {
    /// An `http://` or `https://` URL that receives a JSON POST for every
    /// new waiting call.
    pub webhook: Option<String>,
    /// Whether the POST carries the call's input. Off by default: inputs
    /// can hold secrets, and a webhook is often a third-party service.
    pub include_arguments: bool,
    /// Whether to show a desktop notification (where a session bus exists).
    pub desktop: bool,
    /// A waiting call older than this expires and its waiter is refused.
    pub approval_ttl: Duration,
}

impl Default for Notify {
    fn default() -> Notify {
        Notify {
            webhook: None,
            include_arguments: false,
            desktop: false,
            approval_ttl: DEFAULT_APPROVAL_TTL,
        }
    }
}

impl Notify {
    /// Checks the raw table; errors name the file, line and key.
    pub(crate) fn from_raw(
        raw: Option<RawNotify>,
        text: &str,
        file: &Path,
    ) -> Result<Notify, PolicyError> {
        let Some(raw) = raw else {
            return Ok(Notify::default());
        };
        let err =
            |s: &Spanned<String>, m: String| PolicyError::at(file, text, Some(s.span().start), m);
        let mut out = Notify {
            include_arguments: raw.include_arguments.unwrap_or(false),
            desktop: raw.desktop.unwrap_or(false),
            ..Notify::default()
        };
        if let Some(w) = &raw.webhook {
            let url = w.get_ref().trim();
            let scheme_ok = url.starts_with("http://") || url.starts_with("https://");
            let has_host = url.split_once("://").is_some_and(|(_, rest)| {
                !rest.is_empty() && !rest.starts_with('/') && !rest.contains(char::is_whitespace)
            });
            if !scheme_ok || !has_host {
                return Err(err(
                    w,
                    format!("`notify.webhook`: `{url}` is not an http:// or https:// URL"),
                ));
            }
            out.webhook = Some(url.to_owned());
        }
        if let Some(t) = &raw.approval_ttl {
            out.approval_ttl = parse_duration(t.get_ref())
                .map_err(|m| err(t, format!("`notify.approval_ttl`: {m}")))?;
        }
        Ok(out)
    }
}

/// Why a duration setting cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not numbers with units.
    #[error("`{0}` is not a duration such as `90s`, `15m`, `1h` or `1h30m`")]
    Malformed(String),
    /// Zero: a call that expires at once could never be approved.
    #[error("`{0}` is zero: a waiting call would expire at once")]
    Zero(String),
}

/// Parses `90s`, `15m`, `1h`, `1h30m`, `2d`: one or more numbers, each with
/// a unit (`s`, `m`, `h`, `d`). Zero is refused: a call that expires at
/// once could never be approved.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let bad = || DurationError::Malformed(text.to_string());
    let mut total: u64 = 0;
    let mut digits = String::new();
    let mut any = false;
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(bad()),
        };
        let n: u64 = digits.parse().map_err(|_| bad())?;
        digits.clear();
        total = n
            .checked_mul(unit)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
        any = true;
    }
    if !digits.is_empty() || !any {
        return Err(bad());
    }
    if total == 0 {
        return Err(DurationError::Zero(text.to_string()));
    }
    Ok(Duration::from_secs(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notify(text: &str) -> Result<Notify, PolicyError> {
        crate::file::Doc::parse(text, Path::new("toolgate.toml")).map(|d| d.notify)
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1h30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2d"), Ok(Duration::from_secs(172_800)));
        for bad in [
            "",
            "1",
            "h",
            "1x",
            "-1h",
            "1.5h",
            "0s",
            "99999999999999999999d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn absent_table_is_the_defaults() {
        assert_eq!(notify("allow = []\n").unwrap(), Notify::default());
        assert_eq!(Notify::default().approval_ttl, DEFAULT_APPROVAL_TTL);
    }

    #[test]
    fn a_full_table() {
        let n = notify(
            "[notify]\nwebhook = \"https://ntfy.sh/x\"\ninclude_arguments = true\n\
             desktop = true\napproval_ttl = \"15m\"\n",
        )
        .unwrap();
        assert_eq!(n.webhook.as_deref(), Some("https://ntfy.sh/x"));
        assert!(n.include_arguments && n.desktop);
        assert_eq!(n.approval_ttl, Duration::from_secs(900));
    }

    #[test]
    fn mistakes_are_load_errors_at_their_line() {
        let e = notify("[notify]\n\nwebhook = \"ftp://x\"\n").unwrap_err();
        assert!(e.to_string().contains(":3:"), "{e}");
        assert!(e.to_string().contains("notify.webhook"), "{e}");
        let e = notify("[notify]\napproval_ttl = \"soon\"\n").unwrap_err();
        assert!(
            e.to_string().contains(":2:") && e.to_string().contains("approval_ttl"),
            "{e}"
        );
        assert!(notify("[notify]\nwebhok = \"http://x\"\n").is_err());
    }
}
