//! Why a hook input could not be used.

/// A hook input that does not have the shape the protocol promises.
///
/// The fields a decision depends on are checked strictly (a call whose tool or
/// working directory is unclear must not be guessed at); everything else the
/// clients send is ignored, so that a client release that adds fields keeps
/// working.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The text is not JSON at all.
    #[error("hook input is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// An object in the input repeats a key: the client may have read the
    /// other value, so nothing is decided on it.
    #[error("hook input refused: {0}")]
    Ambiguous(toolgate_policy::json::StrictJsonError),
    /// The JSON is not an object.
    #[error("hook input must be a JSON object, got {found}")]
    NotAnObject {
        /// The JSON type that was found.
        found: &'static str,
    },
    /// A required field is absent (or `null`).
    #[error("hook input has no `{field}` field")]
    Missing {
        /// The field's name.
        field: &'static str,
    },
    /// A required field has the wrong JSON type.
    #[error("hook input field `{field}` must be {expected}, got {found}")]
    WrongType {
        /// The field's name.
        field: &'static str,
        /// The JSON type the protocol promises.
        expected: &'static str,
        /// The JSON type that was found.
        found: &'static str,
    },
    /// A required string field is empty.
    #[error("hook input field `{field}` must not be empty")]
    Empty {
        /// The field's name.
        field: &'static str,
    },
    /// The input is for another hook event, so the hook was registered under
    /// the wrong event and its answer would mean something else.
    #[error("hook input is for the event `{found}`, expected `{expected}`")]
    WrongEvent {
        /// The event this parser handles.
        expected: &'static str,
        /// The event named in the input.
        found: String,
    },
    /// The working directory is relative, so relative paths in the tool input
    /// could not be resolved.
    #[error("hook input field `cwd` must be an absolute path, got `{found}`")]
    RelativeCwd {
        /// The value that was found.
        found: String,
    },
}
