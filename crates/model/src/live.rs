//! What both live models need to reach their API.

use std::fmt;

use crate::http::HttpOptions;

/// Where a live model is and how to talk to it.
#[derive(Clone)]
pub struct ApiConfig {
    /// The model name the API knows (`gpt-4.1`, `claude-sonnet-4-5`, ...).
    pub model: String,
    /// The API's base URL: for OpenAI-compatible endpoints it includes the
    /// version path (`https://api.openai.com/v1`); for Anthropic it does
    /// not (`https://api.anthropic.com`), as the official clients'
    /// `*_BASE_URL` variables do.
    pub base_url: String,
    /// The API key; `None` sends no credentials (local endpoints).
    pub api_key: Option<String>,
    /// Ask for a streamed answer (server-sent events). A server that
    /// answers with plain JSON anyway is understood too.
    pub stream: bool,
    /// The most tokens one answer may take (Anthropic requires it;
    /// default 4096).
    pub max_tokens: u32,
    /// Retries and timeouts.
    pub http: HttpOptions,
    /// OpenAI's `response_format` (structured output), sent as given;
    /// the Anthropic Messages API has no such field and ignores it.
    pub response_format: Option<serde_json::Value>,
}

impl ApiConfig {
    /// A streaming configuration with default limits.
    pub fn new(
        model: impl Into<String>,
        base_url: impl Into<String>,
        api_key: Option<String>,
    ) -> ApiConfig {
        ApiConfig {
            model: model.into(),
            base_url: base_url.into(),
            api_key,
            stream: true,
            max_tokens: 4096,
            http: HttpOptions::default(),
            response_format: None,
        }
    }
}

impl fmt::Debug for ApiConfig {
    /// Everything but the key, which never reaches a log.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiConfig")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("stream", &self.stream)
            .field("max_tokens", &self.max_tokens)
            .field("http", &self.http)
            .field("response_format", &self.response_format)
            .finish()
    }
}
