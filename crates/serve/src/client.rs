//! A blocking client of the API, for `toolgate approvals` when a server
//! URL is configured (`TOOLGATE_SERVER_URL`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::{CSRF_HEADER, ServeError};

/// A client of one server.
pub struct Client {
    base: String,
    token: String,
    agent: ureq::Agent,
}

impl Client {
    /// A client of the server at `base` (`http://127.0.0.1:7777`).
    pub fn new(base: &str, token: &str) -> Client {
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(30)))
            .http_status_as_error(false)
            .build()
            .into();
        Client {
            base: base.trim_end_matches('/').to_owned(),
            token: token.to_owned(),
            agent,
        }
    }

    fn get(&self, path: &str) -> Result<Value, ServeError> {
        let resp = self
            .agent
            .get(format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .call()
            .map_err(|e| ServeError::Api(format!("GET {}{path}: {e}", self.base)))?;
        self.read(resp, "GET", path)
    }

    fn post(&self, path: &str, body: &Value) -> Result<Value, ServeError> {
        let csrf = self.get("/api/session")?["csrf"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let resp = self
            .agent
            .post(format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {}", self.token))
            .header("origin", &self.base)
            .header(CSRF_HEADER, csrf)
            .header("content-type", "application/json")
            .send(body.to_string())
            .map_err(|e| ServeError::Api(format!("POST {}{path}: {e}", self.base)))?;
        self.read(resp, "POST", path)
    }

    fn read(
        &self,
        mut resp: ureq::http::Response<ureq::Body>,
        method: &str,
        path: &str,
    ) -> Result<Value, ServeError> {
        let status = resp.status();
        let text = resp
            .body_mut()
            .read_to_string()
            .map_err(|e| ServeError::Api(format!("{method} {}{path}: {e}", self.base)))?;
        let v: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        if status.is_success() {
            Ok(v)
        } else {
            let why = v["error"]
                .as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| v.to_string());
            Err(ServeError::Api(format!(
                "{method} {}{path}: HTTP {}: {why}",
                self.base,
                status.as_u16()
            )))
        }
    }

    /// The approvals (waiting only, unless `all`), as the API shows them.
    pub fn list(&self, all: bool) -> Result<Vec<Value>, ServeError> {
        let v = self.get(if all {
            "/api/approvals?all=true"
        } else {
            "/api/approvals"
        })?;
        Ok(v["approvals"].as_array().cloned().unwrap_or_default())
    }

    /// One approval.
    pub fn get_one(&self, id: &str) -> Result<Value, ServeError> {
        self.get(&format!("/api/approvals/{id}"))
    }

    /// Approves `id`, bound to `digest` (when `None`, the digest the server
    /// shows now: the caller has seen nothing else).
    pub fn approve(
        &self,
        id: &str,
        digest: Option<&str>,
        session: bool,
        note: Option<&str>,
    ) -> Result<Value, ServeError> {
        let digest = match digest {
            Some(d) => d.to_owned(),
            None => self.get_one(id)?["digest"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        };
        self.post(
            &format!("/api/approvals/{id}/approve"),
            &json!({"digest": digest, "session": session, "note": note}),
        )
    }

    /// Declines `id` with an optional note (it reaches the model).
    pub fn decline(&self, id: &str, note: Option<&str>) -> Result<Value, ServeError> {
        self.post(
            &format!("/api/approvals/{id}/decline"),
            &json!({"note": note}),
        )
    }
}
