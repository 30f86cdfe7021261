//! Text or binary: what a model gets back from a file or a response body.
//!
//! A model reading bytes that are not text gets nothing useful and loses
//! context to garbage, so bytes that are not UTF-8 text (or that contain NUL,
//! which text files do not) are summarised by kind and size instead.

use std::fmt;

/// Content returned to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// UTF-8 text, returned as it is.
    Text(String),
    /// Bytes that are not text, described instead of returned.
    Binary {
        /// What the bytes look like ("PNG image", "image/png", "binary data").
        kind: String,
        /// How many bytes there were.
        len: u64,
    },
}

impl Body {
    /// The text, if this is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Body::Text(t) => Some(t),
            Body::Binary { .. } => None,
        }
    }
}

impl fmt::Display for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Body::Text(t) => f.write_str(t),
            Body::Binary { kind, len } => {
                write!(f, "[binary content: {kind}, {len} bytes; not shown]")
            }
        }
    }
}

/// Classifies `bytes`. With `cut_short`, the bytes are a prefix of something
/// longer, so a multi-byte character broken at the end is not a sign of
/// binary data and is dropped.
pub(crate) fn classify(bytes: Vec<u8>, cut_short: bool, declared: Option<&str>) -> Body {
    let mut bytes = bytes;
    if !bytes.contains(&0) {
        match String::from_utf8(bytes) {
            Ok(text) => return Body::Text(text),
            Err(e) => {
                let utf8 = e.utf8_error();
                bytes = e.into_bytes();
                // `error_len() == None`: the input ends inside a character.
                if cut_short && utf8.error_len().is_none() {
                    bytes.truncate(utf8.valid_up_to());
                    return Body::Text(String::from_utf8_lossy(&bytes).into_owned());
                }
                if declared.is_some_and(is_textual) {
                    // Declared text in another encoding: shown with the
                    // undecodable bytes replaced, rather than hidden.
                    return Body::Text(String::from_utf8_lossy(&bytes).into_owned());
                }
            }
        }
    }
    Body::Binary {
        kind: sniff(&bytes)
            .or(declared)
            .unwrap_or("binary data")
            .to_string(),
        len: bytes.len() as u64,
    }
}

/// Whether a MIME type (parameters allowed) is some kind of text.
pub(crate) fn is_textual(mime: &str) -> bool {
    let essence = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    essence.starts_with("text/")
        || essence.ends_with("+json")
        || essence.ends_with("+xml")
        || matches!(
            essence.as_str(),
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/ecmascript"
                | "application/x-javascript"
                | "application/toml"
                | "application/yaml"
                | "application/x-yaml"
                | "application/x-sh"
                | "application/sql"
                | "application/graphql"
        )
}

/// A name for common binary formats, from their first bytes.
fn sniff(bytes: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG\r\n\x1a\n", "PNG image"),
        (b"\xff\xd8\xff", "JPEG image"),
        (b"GIF87a", "GIF image"),
        (b"GIF89a", "GIF image"),
        (b"%PDF-", "PDF document"),
        (b"PK\x03\x04", "ZIP archive"),
        (b"\x1f\x8b", "gzip data"),
        (b"\x28\xb5\x2f\xfd", "zstd data"),
        (b"BZh", "bzip2 data"),
        (b"\xfd7zXZ\x00", "xz data"),
        (b"\x7fELF", "ELF executable"),
        (b"\x00asm", "WebAssembly module"),
        (b"SQLite format 3\x00", "SQLite database"),
    ];
    if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        return Some("WebP image");
    }
    MAGIC
        .iter()
        .find(|(magic, _)| bytes.starts_with(magic))
        .map(|(_, name)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_stays_text() {
        assert_eq!(
            classify(b"hello\n".to_vec(), false, None),
            Body::Text("hello\n".into())
        );
    }

    #[test]
    fn nul_bytes_mean_binary_even_when_declared_text() {
        let body = classify(b"ab\0cd".to_vec(), false, Some("text/plain"));
        assert!(matches!(body, Body::Binary { len: 5, .. }));
    }

    #[test]
    fn png_is_named() {
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png.extend([0u8; 20]);
        assert_eq!(
            classify(png, false, None),
            Body::Binary {
                kind: "PNG image".into(),
                len: 28
            }
        );
    }

    #[test]
    fn invalid_utf8_is_binary_unless_declared_text() {
        let latin1 = b"caf\xe9 au lait".to_vec();
        assert!(matches!(
            classify(latin1.clone(), false, None),
            Body::Binary { .. }
        ));
        assert_eq!(
            classify(latin1, false, Some("text/plain; charset=iso-8859-1")),
            Body::Text("caf\u{fffd} au lait".into())
        );
    }

    #[test]
    fn a_character_cut_at_the_end_of_a_prefix_is_dropped() {
        let mut bytes = "né".as_bytes().to_vec();
        bytes.pop();
        assert_eq!(classify(bytes.clone(), true, None), Body::Text("n".into()));
        assert!(matches!(classify(bytes, false, None), Body::Binary { .. }));
    }

    #[test]
    fn textual_mime_types() {
        assert!(is_textual("text/html; charset=utf-8"));
        assert!(is_textual("application/vnd.api+json"));
        assert!(is_textual("Application/JSON"));
        assert!(!is_textual("image/png"));
        assert!(!is_textual("application/octet-stream"));
    }
}
