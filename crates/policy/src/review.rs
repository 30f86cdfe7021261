//! The `[review]` table: a second model that answers the calls the rules
//! leave to a person (`ask`), and fails to the person.
//!
//! The table is configuration only; the review step itself lives in the
//! gate, so every host uses the same one.
//!
//! ```toml
//! [review]
//! api = "openai"                          # or "anthropic"; required
//! model = "gpt-4.1-mini"                  # required
//! base_url = "http://127.0.0.1:8080/v1"   # default: the API's own
//! api_key_env = "OPENAI_API_KEY"          # default: the API's usual variable
//! timeout = 30                            # seconds (a number), or "90s", "2m"
//! stream = false
//! denials_in_a_row = 3
//! denials_per_session = 20
//! enabled = true                          # `false`: no review
//! ```
//!
//! Which layer's table counts is decided in `layers`; while a reviewer is
//! configured, allow rules that grant arbitrary code ask instead (`demote`).

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::error::PolicyError;

/// Which API the reviewer speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewApi {
    /// OpenAI-compatible chat completions (OpenAI, llama.cpp's server,
    /// Ollama, vLLM, ...).
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
}

impl ReviewApi {
    /// The name written in the policy (`openai`, `anthropic`).
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewApi::OpenAi => "openai",
            ReviewApi::Anthropic => "anthropic",
        }
    }

    /// The base URL used when the table names none.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ReviewApi::OpenAi => "https://api.openai.com/v1",
            ReviewApi::Anthropic => "https://api.anthropic.com",
        }
    }

    /// The environment variable the key is read from by default.
    pub fn default_key_env(self) -> &'static str {
        match self {
            ReviewApi::OpenAi => "OPENAI_API_KEY",
            ReviewApi::Anthropic => "ANTHROPIC_API_KEY",
        }
    }
}

/// The reviewer's configuration, as merged from the policy's layers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewConfig {
    /// The API.
    pub api: ReviewApi,
    /// Where it is: OpenAI-compatible URLs include the version path
    /// (`http://127.0.0.1:8080/v1`), Anthropic's do not.
    pub base_url: String,
    /// The model the API knows.
    pub model: String,
    /// The environment variable holding the key; a variable that is unset
    /// or empty sends no key (local servers).
    pub api_key_env: String,
    /// The whole budget of one review; past it the call goes to the
    /// person.
    pub timeout: Duration,
    /// Ask for a streamed answer.
    pub stream: bool,
    /// Reviewer denials in a row after which the session's asks go to the
    /// person (default 3).
    pub denials_in_a_row: u32,
    /// Reviewer denials in one session after which its asks go to the
    /// person (default 20).
    pub denials_per_session: u32,
}

/// Default `timeout`.
pub const DEFAULT_REVIEW_TIMEOUT: Duration = Duration::from_secs(30);
/// Default `denials_in_a_row`.
pub const DEFAULT_DENIALS_IN_A_ROW: u32 = 3;
/// Default `denials_per_session`.
pub const DEFAULT_DENIALS_PER_SESSION: u32 = 20;

impl ReviewConfig {
    /// A configuration with every default but the API and the model.
    pub fn new(api: ReviewApi, model: impl Into<String>) -> ReviewConfig {
        ReviewConfig {
            api,
            base_url: api.default_base_url().to_string(),
            model: model.into(),
            api_key_env: api.default_key_env().to_string(),
            timeout: DEFAULT_REVIEW_TIMEOUT,
            stream: false,
            denials_in_a_row: DEFAULT_DENIALS_IN_A_ROW,
            denials_per_session: DEFAULT_DENIALS_PER_SESSION,
        }
    }
}

/// The `[review]` table as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawReview {
    api: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    base_url: Option<Spanned<String>>,
    api_key_env: Option<Spanned<String>>,
    timeout: Option<Spanned<toml::Value>>,
    stream: Option<bool>,
    denials_in_a_row: Option<Spanned<i64>>,
    denials_per_session: Option<Spanned<i64>>,
    enabled: Option<bool>,
}

/// A checked `[review]` table of one policy file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewTable {
    /// The reviewer; `None` when the table says `enabled = false`.
    pub config: Option<ReviewConfig>,
    /// Byte offset of the table in its file.
    pub offset: usize,
}

impl ReviewTable {
    /// Checks the raw table; errors name the file, line and key.
    pub(crate) fn from_raw(
        raw: Spanned<RawReview>,
        text: &str,
        file: &Path,
    ) -> Result<ReviewTable, PolicyError> {
        let offset = raw.span().start;
        let raw = raw.into_inner();
        let at = |o: usize, m: String| PolicyError::at(file, text, Some(o), m);
        let api = match &raw.api {
            None => None,
            Some(a) => Some(match a.get_ref().as_str() {
                "openai" => ReviewApi::OpenAi,
                "anthropic" => ReviewApi::Anthropic,
                other => {
                    return Err(at(
                        a.span().start,
                        format!("`review.api`: `{other}` is not `openai` or `anthropic`"),
                    ));
                }
            }),
        };
        let model = match &raw.model {
            Some(m) if m.get_ref().trim().is_empty() => {
                return Err(at(m.span().start, "`review.model` is empty".into()));
            }
            Some(m) => Some(m.get_ref().trim().to_owned()),
            None => None,
        };
        if let Some(u) = &raw.base_url {
            check_base_url(u.get_ref())
                .map_err(|m| at(u.span().start, format!("`review.base_url`: {m}")))?;
        }
        if let Some(k) = &raw.api_key_env
            && !is_env_name(k.get_ref())
        {
            return Err(at(
                k.span().start,
                format!(
                    "`review.api_key_env`: `{}` is not an environment variable name (letters, digits and `_`, not starting with a digit)",
                    k.get_ref()
                ),
            ));
        }
        let timeout = match &raw.timeout {
            None => DEFAULT_REVIEW_TIMEOUT,
            Some(t) => parse_timeout(t.get_ref())
                .map_err(|m| at(t.span().start, format!("`review.timeout`: {m}")))?,
        };
        let count = |v: &Option<Spanned<i64>>, key: &str, default: u32| match v {
            None => Ok(default),
            Some(n) => u32::try_from(*n.get_ref())
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| {
                    at(
                        n.span().start,
                        format!(
                            "`review.{key}`: `{}` is not a count of at least 1",
                            n.get_ref()
                        ),
                    )
                }),
        };
        let denials_in_a_row = count(
            &raw.denials_in_a_row,
            "denials_in_a_row",
            DEFAULT_DENIALS_IN_A_ROW,
        )?;
        let denials_per_session = count(
            &raw.denials_per_session,
            "denials_per_session",
            DEFAULT_DENIALS_PER_SESSION,
        )?;
        if raw.enabled == Some(false) {
            return Ok(ReviewTable {
                config: None,
                offset,
            });
        }
        let Some(api) = api else {
            return Err(at(
                offset,
                "`[review]` needs `api` (`openai` or `anthropic`), or `enabled = false`".into(),
            ));
        };
        let Some(model) = model else {
            return Err(at(
                offset,
                "`[review]` needs `model`, or `enabled = false`".into(),
            ));
        };
        let mut config = ReviewConfig::new(api, model);
        if let Some(u) = raw.base_url {
            config.base_url = u.into_inner().trim().to_owned();
        }
        if let Some(k) = raw.api_key_env {
            config.api_key_env = k.into_inner();
        }
        config.timeout = timeout;
        config.stream = raw.stream.unwrap_or(false);
        config.denials_in_a_row = denials_in_a_row;
        config.denials_per_session = denials_per_session;
        Ok(ReviewTable {
            config: Some(config),
            offset,
        })
    }
}

/// An `http://` or `https://` URL with a host.
fn check_base_url(text: &str) -> Result<(), ReviewSettingError> {
    let url = text.trim();
    let bad = || ReviewSettingError::BaseUrl(url.to_string());
    let parsed = url::Url::parse(url).map_err(|_| bad())?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none_or(str::is_empty) {
        return Err(bad());
    }
    Ok(())
}

/// `[A-Za-z_][A-Za-z0-9_]*`.
fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `timeout`: a number of seconds greater than zero (`30`, `2.5`), or a
/// duration string as `[notify] approval_ttl` takes (`"90s"`, `"2m"`).
fn parse_timeout(v: &toml::Value) -> Result<Duration, ReviewSettingError> {
    let secs = match v {
        toml::Value::Integer(n) => *n as f64,
        toml::Value::Float(f) => *f,
        toml::Value::String(s) => return Ok(crate::notify::parse_duration(s)?),
        other => return Err(ReviewSettingError::TimeoutType(other.to_string())),
    };
    if !(secs.is_finite() && secs > 0.0) {
        return Err(ReviewSettingError::TimeoutNotPositive(secs));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| ReviewSettingError::TimeoutTooLong(secs))
}

/// Why a `[review]` setting cannot be used; the loader names the key and
/// its place.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum ReviewSettingError {
    /// `base_url` that is not an http(s) URL with a host.
    #[error("`{0}` is not an http:// or https:// URL")]
    BaseUrl(String),
    /// `timeout` of a TOML type that is no duration.
    #[error("`{0}` is not a number of seconds (`30`, `2.5`) or a duration (`\"90s\"`)")]
    TimeoutType(String),
    /// `timeout` of zero, a negative or no number.
    #[error("`{0}` is not a number of seconds above zero")]
    TimeoutNotPositive(f64),
    /// `timeout` past what a duration holds.
    #[error("`{0}` seconds is too long")]
    TimeoutTooLong(f64),
    /// `timeout` as a duration string that does not parse.
    #[error(transparent)]
    Duration(#[from] crate::notify::DurationError),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Result<Option<ReviewTable>, PolicyError> {
        crate::file::Doc::parse(text, Path::new("toolgate.toml")).map(|d| d.review)
    }

    fn config(text: &str) -> ReviewConfig {
        table(text).unwrap().unwrap().config.unwrap()
    }

    #[test]
    fn absent_table_is_no_review() {
        assert_eq!(table("allow = []\n").unwrap(), None);
    }

    #[test]
    fn a_full_table() {
        let c = config(
            "[review]\napi = \"openai\"\nmodel = \"gpt-4.1-mini\"\n\
             base_url = \"http://127.0.0.1:8080/v1\"\napi_key_env = \"LOCAL_KEY\"\n\
             timeout = 12\nstream = true\ndenials_in_a_row = 2\ndenials_per_session = 9\n\
             enabled = true\n",
        );
        assert_eq!(
            c,
            ReviewConfig {
                api: ReviewApi::OpenAi,
                base_url: "http://127.0.0.1:8080/v1".into(),
                model: "gpt-4.1-mini".into(),
                api_key_env: "LOCAL_KEY".into(),
                timeout: Duration::from_secs(12),
                stream: true,
                denials_in_a_row: 2,
                denials_per_session: 9,
            }
        );
    }

    #[test]
    fn defaults_come_from_the_api() {
        let c = config("[review]\napi = \"anthropic\"\nmodel = \"claude-haiku\"\n");
        assert_eq!(c, ReviewConfig::new(ReviewApi::Anthropic, "claude-haiku"));
        assert_eq!(c.base_url, "https://api.anthropic.com");
        assert_eq!(c.api_key_env, "ANTHROPIC_API_KEY");
        assert_eq!(c.timeout, DEFAULT_REVIEW_TIMEOUT);
    }

    #[test]
    fn timeout_forms() {
        let t = |v: &str| {
            table(&format!(
                "[review]\napi = \"openai\"\nmodel = \"m\"\ntimeout = {v}\n"
            ))
            .map(|t| t.and_then(|t| t.config).map(|c| c.timeout))
        };
        assert_eq!(t("30").unwrap(), Some(Duration::from_secs(30)));
        assert_eq!(t("2.5").unwrap(), Some(Duration::from_millis(2500)));
        assert_eq!(t("\"2m\"").unwrap(), Some(Duration::from_secs(120)));
        for bad in [
            "0", "-1", "0.0", "nan", "inf", "\"soon\"", "\"0s\"", "true", "1e300",
        ] {
            let e = t(bad).unwrap_err();
            assert_eq!(e.place.map(|p| p.0), Some(4), "{bad}: {e}");
            assert!(e.message.contains("review.timeout"), "{bad}: {e}");
        }
    }

    #[test]
    fn enabled_false_needs_nothing_else() {
        let t = table("[review]\nenabled = false\n").unwrap().unwrap();
        assert_eq!(t.config, None);
        let t = table("[review]\nenabled = false\napi = \"openai\"\nmodel = \"m\"\n")
            .unwrap()
            .unwrap();
        assert_eq!(t.config, None);
        // Values are still checked.
        assert!(table("[review]\nenabled = false\napi = \"gemini\"\n").is_err());
    }

    #[test]
    fn bad_values_are_load_errors_at_their_line_naming_the_key() {
        let head = "[review]\napi = \"openai\"\nmodel = \"m\"\n";
        for (line, key) in [
            ("api_key_env = \"1KEY\"", "api_key_env"),
            ("api_key_env = \"MY-KEY\"", "api_key_env"),
            ("api_key_env = \"\"", "api_key_env"),
            ("base_url = \"ftp://x\"", "base_url"),
            ("base_url = \"127.0.0.1:8080\"", "base_url"),
            ("base_url = \"http://\"", "base_url"),
            ("denials_in_a_row = 0", "denials_in_a_row"),
            ("denials_per_session = -3", "denials_per_session"),
            ("denials_per_session = 99999999999", "denials_per_session"),
        ] {
            let e = table(&format!("{head}{line}\n")).unwrap_err();
            assert_eq!(e.place.map(|p| p.0), Some(4), "{line}: {e}");
            assert!(e.message.contains(&format!("review.{key}")), "{line}: {e}");
        }
        let e = table("[review]\n\napi = \"gemini\"\nmodel = \"m\"\n").unwrap_err();
        assert_eq!(e.place.map(|p| p.0), Some(3), "{e}");
        assert!(e.message.contains("review.api"), "{e}");
        let e = table("[review]\napi = \"openai\"\nmodel = \" \"\n").unwrap_err();
        assert_eq!(e.place.map(|p| p.0), Some(3), "{e}");
        assert!(e.message.contains("review.model"), "{e}");
        let e = table("allow = []\n[review]\nmodel = \"m\"\n").unwrap_err();
        assert!(e.message.contains("`api`"), "{e}");
        assert!(e.place.is_some(), "{e}");
        let e = table("[review]\napi = \"openai\"\n").unwrap_err();
        assert!(e.message.contains("`model`"), "{e}");
        let e = table("[review]\napi = \"openai\"\nmodel = \"m\"\nkey = \"sk-1\"\n").unwrap_err();
        assert_eq!(e.place.map(|p| p.0), Some(4), "{e}");
        assert!(e.message.contains("key"), "{e}");
        let e = table("[review]\napi = \"openai\"\nmodel = \"m\"\nstream = \"yes\"\n").unwrap_err();
        assert_eq!(e.place.map(|p| p.0), Some(4), "{e}");
    }
}
