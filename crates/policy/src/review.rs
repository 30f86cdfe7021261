//! The `[review]` table: a second model that answers the calls the rules
//! leave to a person (`ask`), and fails to the person.
//!
//! The table is configuration only; the review step itself lives in the
//! gate, so every host uses the same one.

use std::time::Duration;

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
