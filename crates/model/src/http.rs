//! The HTTP both live models share: one JSON POST, retried on the statuses
//! that say "try again later", and a reader for server-sent events.
//!
//! Rate limits and overloaded servers are normal for model APIs, so 429,
//! 500, 502, 503 and 529 (Anthropic's "overloaded") are retried with
//! exponential backoff, honouring `retry-after`; both the number of
//! attempts and each wait are bounded, so a run never hangs on a server
//! that keeps refusing. Any other error status fails at once.

use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

use serde_json::Value;

use crate::model::ModelError;

/// Statuses worth another attempt.
const RETRYABLE: [u16; 5] = [429, 500, 502, 503, 529];

/// The most response bytes read (a streamed answer included).
const MAX_RESPONSE_BYTES: u64 = 32 << 20;

/// How a live model retries and how long it waits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpOptions {
    /// Requests made at most for one turn, the first included (default 5).
    pub attempts: u32,
    /// The wait before the first retry, doubled before each next one
    /// (default 1 s).
    pub backoff: Duration,
    /// The longest wait between two attempts, whether computed or asked
    /// for by `retry-after` (default 60 s).
    pub max_wait: Duration,
    /// Budget for connecting (default 30 s).
    pub connect_timeout: Duration,
    /// Budget for one whole request, a streamed answer included
    /// (default 10 min: long answers stream for minutes).
    pub timeout: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            attempts: 5,
            backoff: Duration::from_secs(1),
            max_wait: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(30),
            timeout: Duration::from_secs(600),
        }
    }
}

/// A successful response: JSON, or a stream of events.
pub(crate) enum Reply {
    /// A `application/json` (or any non-event-stream) body.
    Json(Value),
    /// A `text/event-stream` body.
    Events(Events<Box<dyn BufRead + Send>>),
}

/// A JSON client for one API.
pub(crate) struct Http {
    api: &'static str,
    agent: ureq::Agent,
    opts: HttpOptions,
}

impl Http {
    pub(crate) fn new(api: &'static str, opts: HttpOptions) -> Http {
        let config = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_connect(Some(opts.connect_timeout))
            .timeout_global(Some(opts.timeout))
            .user_agent(concat!("toolgate/", env!("CARGO_PKG_VERSION")));
        Http {
            api,
            agent: ureq::Agent::new_with_config(config.build()),
            opts,
        }
    }

    /// POSTs `body` to `url` and returns the reply, retrying as the module
    /// says. `headers` carry the credentials; they are never printed.
    pub(crate) fn post(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &str,
    ) -> Result<Reply, ModelError> {
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let mut req = self
                .agent
                .post(url)
                .header("content-type", "application/json");
            for (name, value) in headers {
                req = req.header(*name, value.as_str());
            }
            let response = req.send(body).map_err(|e| ModelError::Transport {
                api: self.api,
                url: url.to_string(),
                message: e.to_string(),
            })?;
            let status = response.status().as_u16();
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            let content_type = header("content-type").unwrap_or_default();
            let retry_after = header("retry-after");
            let reader = response
                .into_body()
                .into_with_config()
                .limit(MAX_RESPONSE_BYTES)
                .reader();
            if (200..300).contains(&status) {
                let reader: Box<dyn BufRead + Send> = Box::new(BufReader::new(reader));
                if content_type
                    .to_ascii_lowercase()
                    .starts_with("text/event-stream")
                {
                    return Ok(Reply::Events(Events::new(reader)));
                }
                let value =
                    serde_json::from_reader(reader).map_err(|e| ModelError::BadResponse {
                        api: self.api,
                        message: format!("the body is not JSON: {e}"),
                    })?;
                return Ok(Reply::Json(value));
            }
            let message = error_message(reader);
            if RETRYABLE.contains(&status) && attempt < self.opts.attempts {
                std::thread::sleep(self.wait(attempt, retry_after.as_deref()));
                continue;
            }
            return Err(ModelError::Status {
                api: self.api,
                status,
                message,
                attempts: attempt,
            });
        }
    }

    /// The wait after failed attempt number `attempt` (1-based):
    /// `retry-after` when the server gave one in seconds, else exponential
    /// backoff; never more than `max_wait`.
    fn wait(&self, attempt: u32, retry_after: Option<&str>) -> Duration {
        let asked = retry_after
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| Duration::from_secs_f64(s.min(self.opts.max_wait.as_secs_f64())));
        let computed = || {
            let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
            self.opts.backoff.saturating_mul(factor)
        };
        asked.unwrap_or_else(computed).min(self.opts.max_wait)
    }
}

/// The API's own error message (both APIs put it at `error.message`), or
/// the start of the body.
fn error_message(reader: impl Read) -> String {
    let mut body = Vec::new();
    // An error body is short; a missing or cut one still makes an error.
    let _ = reader.take(64 * 1024).read_to_end(&mut body);
    let text = String::from_utf8_lossy(&body);
    if let Ok(v) = serde_json::from_str::<Value>(&text) {
        let error = v.get("error").unwrap_or(&v);
        if let Some(m) = error.get("message").and_then(Value::as_str) {
            return match error.get("type").and_then(Value::as_str) {
                Some(kind) => format!("{kind}: {m}"),
                None => m.to_string(),
            };
        }
        if let Some(m) = error.as_str() {
            return m.to_string();
        }
    }
    let text = text.trim();
    if text.is_empty() {
        "(empty body)".to_string()
    } else {
        text.chars().take(300).collect()
    }
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// The `event:` field, when given.
    pub(crate) name: Option<String>,
    /// The `data:` lines, joined with newlines.
    pub(crate) data: String,
}

/// Reads server-sent events (the `text/event-stream` format) one by one.
pub(crate) struct Events<R> {
    reader: R,
    done: bool,
}

impl<R: BufRead> Events<R> {
    pub(crate) fn new(reader: R) -> Events<R> {
        Events {
            reader,
            done: false,
        }
    }

    /// The next event; `Ok(None)` at the end of the stream.
    pub(crate) fn next_event(&mut self) -> std::io::Result<Option<Event>> {
        let mut name = None;
        let mut data: Option<String> = None;
        let mut line = String::new();
        while !self.done {
            line.clear();
            if self.reader.read_line(&mut line)? == 0 {
                self.done = true;
                break;
            }
            let l = line.trim_end_matches(['\n', '\r']);
            if l.is_empty() {
                if data.is_some() || name.is_some() {
                    break;
                }
                continue;
            }
            if l.starts_with(':') {
                continue;
            }
            let (field, value) = match l.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (l, ""),
            };
            match field {
                "event" => name = Some(value.to_string()),
                "data" => match &mut data {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                },
                _ => {}
            }
        }
        if data.is_none() && name.is_none() {
            return Ok(None);
        }
        Ok(Some(Event {
            name,
            data: data.unwrap_or_default(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_split_on_blank_lines_and_comments_skipped() {
        let text = ": keep-alive\n\nevent: a\ndata: {\"x\":1}\n\ndata: one\ndata: two\r\n\r\ndata: [DONE]\n";
        let mut ev = Events::new(text.as_bytes());
        let a = ev.next_event().unwrap().unwrap();
        assert_eq!(
            (a.name.as_deref(), a.data.as_str()),
            (Some("a"), "{\"x\":1}")
        );
        let b = ev.next_event().unwrap().unwrap();
        assert_eq!((b.name, b.data.as_str()), (None, "one\ntwo"));
        let c = ev.next_event().unwrap().unwrap();
        assert_eq!(c.data, "[DONE]");
        assert_eq!(ev.next_event().unwrap(), None);
    }

    #[test]
    fn waits_double_and_honour_retry_after_within_the_bound() {
        let http = Http::new(
            "OpenAI",
            HttpOptions {
                backoff: Duration::from_millis(100),
                max_wait: Duration::from_secs(2),
                ..HttpOptions::default()
            },
        );
        assert_eq!(http.wait(1, None), Duration::from_millis(100));
        assert_eq!(http.wait(3, None), Duration::from_millis(400));
        assert_eq!(http.wait(10, None), Duration::from_secs(2));
        assert_eq!(http.wait(1, Some("1")), Duration::from_secs(1));
        assert_eq!(http.wait(1, Some("0")), Duration::ZERO);
        assert_eq!(http.wait(1, Some("3600")), Duration::from_secs(2));
        assert_eq!(http.wait(2, Some("soon")), Duration::from_millis(200));
    }

    #[test]
    fn error_messages_come_from_either_api_shape() {
        let openai = br#"{"error":{"message":"Rate limit reached","type":"requests"}}"#;
        assert_eq!(error_message(&openai[..]), "requests: Rate limit reached");
        let anthropic =
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        assert_eq!(
            error_message(&anthropic[..]),
            "overloaded_error: Overloaded"
        );
        assert_eq!(error_message(&b"bad gateway"[..]), "bad gateway");
        assert_eq!(error_message(&b""[..]), "(empty body)");
    }
}
