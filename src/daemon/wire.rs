//! The daemon's wire protocol (protocol-spec/daemon.md): the one header line a connection
//! starts with, the token line TCP connections present first, and the reply lines.
use serde::Serialize;

/// Longest header line (name, metadata, glob) the daemon reads; a longer one is refused.
pub const MAX_HEADER: usize = 64 * 1024;

/// What a connection asks for, from its header line.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `SEND <name>[\t<json>]` or `SEND {"name": …, "meta": …}`: TAP bytes follow until EOF.
    Send {
        name: String,
        meta: Option<serde_json::Value>,
    },
    /// `EVENTS [<glob>]`: every event of every (matching) stream, as JSON lines.
    Events { glob: Option<String> },
    /// `STATUS`: one JSON document of the open and finished streams.
    Status,
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum HeaderError {
    #[error("empty header line")]
    Empty,
    #[error("unknown request `{0}` (expected SEND, EVENTS or STATUS)")]
    Unknown(String),
    #[error("SEND needs a stream name")]
    NoName,
    #[error("invalid stream header JSON: {0}")]
    Json(String),
    #[error("stream metadata must be a JSON object")]
    MetaNotObject,
}

/// Parses one header line (without its `\n`; a trailing `\r` is ignored).
pub fn parse_header(line: &[u8]) -> Result<Request, HeaderError> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return Err(HeaderError::Empty);
    }
    let (verb, rest) = match memchr::memchr(b' ', line) {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => (line, &line[line.len()..]),
    };
    match verb {
        b"SEND" => parse_send(rest),
        b"EVENTS" => {
            let glob = String::from_utf8_lossy(rest).trim().to_owned();
            Ok(Request::Events {
                glob: (!glob.is_empty()).then_some(glob),
            })
        }
        b"STATUS" => Ok(Request::Status),
        other => Err(HeaderError::Unknown(
            String::from_utf8_lossy(&other[..other.len().min(40)]).into_owned(),
        )),
    }
}

fn parse_send(rest: &[u8]) -> Result<Request, HeaderError> {
    if rest.first() == Some(&b'{') {
        #[derive(serde::Deserialize)]
        struct Header {
            name: String,
            #[serde(default)]
            meta: Option<serde_json::Value>,
        }
        let h: Header =
            serde_json::from_slice(rest).map_err(|e| HeaderError::Json(e.to_string()))?;
        return named(h.name, h.meta);
    }
    let (name, meta) = match memchr::memchr(b'\t', rest) {
        Some(i) => {
            let meta: serde_json::Value = serde_json::from_slice(&rest[i + 1..])
                .map_err(|e| HeaderError::Json(e.to_string()))?;
            (&rest[..i], Some(meta))
        }
        None => (rest, None),
    };
    named(String::from_utf8_lossy(name).into_owned(), meta)
}

fn named(name: String, meta: Option<serde_json::Value>) -> Result<Request, HeaderError> {
    if name.is_empty() {
        return Err(HeaderError::NoName);
    }
    if meta
        .as_ref()
        .is_some_and(|m| !m.is_object() && !m.is_null())
    {
        return Err(HeaderError::MetaNotObject);
    }
    Ok(Request::Send {
        name,
        meta: meta.filter(|m| !m.is_null()),
    })
}

/// The header line a client writes for `req` (always the JSON form for SEND: any name fits).
pub fn header_line(req: &Request) -> Vec<u8> {
    let mut line = match req {
        Request::Send { name, meta } => {
            let doc = serde_json::json!({ "name": name, "meta": meta });
            format!("SEND {doc}").into_bytes()
        }
        Request::Events { glob: Some(g) } => format!("EVENTS {g}").into_bytes(),
        Request::Events { glob: None } => b"EVENTS".to_vec(),
        Request::Status => b"STATUS".to_vec(),
    };
    line.push(b'\n');
    line
}

/// `TOKEN <token>`: what a TCP connection sends before its header when the daemon has a token.
pub fn token_line(token: &str) -> Vec<u8> {
    format!("TOKEN {token}\n").into_bytes()
}

/// Whether `line` (without `\n`) presents `token`; compared in constant time for its length.
pub fn token_matches(line: &[u8], token: &str) -> bool {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let Some(given) = line.strip_prefix(b"TOKEN ") else {
        return false;
    };
    let want = token.as_bytes();
    if given.len() != want.len() {
        return false;
    }
    given
        .iter()
        .zip(want)
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

/// The daemon's answer to a SEND: the stream's verdict, one JSON line.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct VerdictReply {
    pub stream: String,
    pub ok: bool,
    pub reasons: Vec<String>,
    pub pass: u64,
    pub fail: u64,
    pub skip: u64,
    pub todo: u64,
    pub log: Option<String>,
}

/// An error reply: `{"error": "..."}`, then the daemon closes the connection.
pub fn error_line(message: &str) -> Vec<u8> {
    let mut line = serde_json::to_vec(&serde_json::json!({ "error": message }))
        .unwrap_or_else(|_| b"{\"error\":\"?\"}".to_vec());
    line.push(b'\n');
    line
}

/// What a client reads back: a verdict, or an error.
pub fn parse_reply(line: &[u8]) -> Result<VerdictReply, String> {
    let v: serde_json::Value = serde_json::from_slice(line)
        .map_err(|e| format!("unreadable reply from the daemon: {e}"))?;
    if let Some(err) = v.get("error").and_then(|e| e.as_str()) {
        return Err(err.to_owned());
    }
    serde_json::from_value(v).map_err(|e| format!("unreadable verdict from the daemon: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn send(name: &str) -> Request {
        Request::Send {
            name: name.into(),
            meta: None,
        }
    }

    #[test]
    fn headers_parse() {
        assert_eq!(parse_header(b"SEND unit"), Ok(send("unit")));
        assert_eq!(parse_header(b"SEND unit tests\r"), Ok(send("unit tests")));
        assert_eq!(parse_header(b"SEND a\0b"), Ok(send("a\0b")));
        assert_eq!(
            parse_header(b"SEND shard-1\t{\"ci\": 3}"),
            Ok(Request::Send {
                name: "shard-1".into(),
                meta: Some(serde_json::json!({"ci": 3}))
            })
        );
        assert_eq!(
            parse_header(br#"SEND {"name": "a\nb", "meta": null}"#),
            Ok(send("a\nb"))
        );
        assert_eq!(parse_header(b"EVENTS"), Ok(Request::Events { glob: None }));
        assert_eq!(
            parse_header(b"EVENTS unit*"),
            Ok(Request::Events {
                glob: Some("unit*".into())
            })
        );
        assert_eq!(parse_header(b"STATUS"), Ok(Request::Status));
    }

    #[test]
    fn bad_headers_say_why() {
        assert_eq!(parse_header(b""), Err(HeaderError::Empty));
        assert_eq!(parse_header(b"SEND"), Err(HeaderError::NoName));
        assert_eq!(parse_header(b"SEND "), Err(HeaderError::NoName));
        assert!(matches!(
            parse_header(b"ok 1 - a"),
            Err(HeaderError::Unknown(v)) if v == "ok"
        ));
        assert!(matches!(
            parse_header(b"SEND {\"name\": 3}"),
            Err(HeaderError::Json(_))
        ));
        assert_eq!(
            parse_header(b"SEND a\t[1]"),
            Err(HeaderError::MetaNotObject)
        );
    }

    #[test]
    fn client_headers_round_trip() {
        for name in [
            "unit",
            "../x",
            "/etc/passwd",
            "a\0b",
            "tab\there",
            "new\nline",
        ] {
            let req = send(name);
            let line = header_line(&req);
            assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            assert_eq!(parse_header(&line[..line.len() - 1]), Ok(req));
        }
        let req = Request::Events {
            glob: Some("a*".into()),
        };
        let line = header_line(&req);
        assert_eq!(parse_header(&line[..line.len() - 1]), Ok(req));
    }

    #[test]
    fn tokens_must_match_exactly() {
        assert!(token_matches(b"TOKEN s3cret", "s3cret"));
        assert!(token_matches(b"TOKEN s3cret\r", "s3cret"));
        assert!(!token_matches(b"TOKEN s3cre", "s3cret"));
        assert!(!token_matches(b"TOKEN s3cretX", "s3cret"));
        assert!(!token_matches(b"SEND unit", "s3cret"));
        assert!(!token_matches(b"TOKEN ", "s3cret"));
    }

    #[test]
    fn replies_parse() {
        assert_eq!(parse_reply(&error_line("no")), Err("no".into()));
        let v = VerdictReply {
            stream: "u".into(),
            ok: true,
            reasons: vec![],
            pass: 1,
            fail: 0,
            skip: 0,
            todo: 0,
            log: None,
        };
        let line = serde_json::to_vec(&v).expect("json");
        assert_eq!(parse_reply(&line), Ok(v));
    }
}
