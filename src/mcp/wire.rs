//! MCP's stdio transport: one JSON-RPC 2.0 message per line. Every request gets an answer: a
//! line that is not JSON is answered with a parse error (`-32700`), a line past [`MAX_LINE`] or a
//! message of the wrong shape with an invalid request (`-32600`), with the request's id where it
//! has a usable one, else `null`. Notifications and the client's responses get no answer, as the
//! protocol says.

use serde_json::{json, Map, Value};

/// Longest line read: a proposal's request is at most 1 MiB, escaped in JSON a few times that.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// A JSON-RPC error answer.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i32,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub const PARSE: i32 = -32700;
    pub const INVALID_REQUEST: i32 = -32600;
    pub const METHOD_NOT_FOUND: i32 = -32601;
    pub const INVALID_PARAMS: i32 = -32602;
    /// MCP 2026-07-28: the request names a protocol version the server does not speak.
    pub const UNSUPPORTED_VERSION: i32 = -32022;

    pub fn new(code: i32, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn too_long() -> RpcError {
        RpcError::new(
            RpcError::INVALID_REQUEST,
            format!("the line is longer than {MAX_LINE} bytes; it was skipped"),
        )
    }

    fn invalid(why: &str) -> RpcError {
        RpcError::new(RpcError::INVALID_REQUEST, format!("invalid request: {why}"))
    }

    fn parse_error(why: String) -> RpcError {
        RpcError::new(RpcError::PARSE, format!("parse error: {why}"))
    }
}

/// A request: its id (a string or an integer), method and params (an object, empty if absent).
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: Value,
    pub method: String,
    pub params: Map<String, Value>,
}

/// The answer to request `id`, one line.
pub fn answer(id: &Value, outcome: Result<Value, RpcError>) -> Vec<u8> {
    let mut message = json!({"jsonrpc": "2.0", "id": id});
    match outcome {
        Ok(result) => message["result"] = result,
        Err(e) => {
            let mut error = json!({"code": e.code, "message": e.message});
            if let Some(data) = e.data {
                error["data"] = data;
            }
            message["error"] = error;
        }
    }
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// Splits a byte stream into lines no longer than `max`, without holding more of a longer one.
#[derive(Debug)]
pub struct Splitter {
    max: usize,
    line: Vec<u8>,
    /// Inside a line past `max`, until its newline.
    skipping: bool,
}

/// One line as the splitter saw it.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Whole(Vec<u8>),
    TooLong,
}

impl Splitter {
    pub fn new(max: usize) -> Splitter {
        Splitter {
            max,
            line: Vec::new(),
            skipping: false,
        }
    }

    /// Takes in `bytes`; the lines they end, in order.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Vec<Line> {
        let mut out = Vec::new();
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\n');
            let (part, rest) = match end {
                Some(i) => (&bytes[..i], &bytes[i + 1..]),
                None => (bytes, &[][..]),
            };
            if !self.skipping {
                if self.line.len() + part.len() > self.max {
                    self.line = Vec::new();
                    self.skipping = true;
                    out.push(Line::TooLong);
                } else {
                    self.line.extend_from_slice(part);
                }
            }
            if end.is_some() {
                if !self.skipping {
                    out.push(Line::Whole(std::mem::take(&mut self.line)));
                }
                self.skipping = false;
            }
            bytes = rest;
        }
        out
    }
}

/// Reads one whole line: `Ok(Some(request))` to answer, `Ok(None)` for what gets no answer
/// (a blank line, a notification, the client's response), or the error answer, one line.
pub fn read(line: &[u8]) -> Result<Option<Request>, Vec<u8>> {
    let refused = |id: Value, e: RpcError| answer(&id, Err(e));
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let text = std::str::from_utf8(line).map_err(|e| {
        refused(
            Value::Null,
            RpcError::parse_error(format!("the line is not UTF-8 ({e})")),
        )
    })?;
    // serde_json's depth limit refuses a deeply nested line before it costs.
    let value: Value = serde_json::from_str(text)
        .map_err(|e| refused(Value::Null, RpcError::parse_error(e.to_string())))?;
    let Value::Object(mut message) = value else {
        return Err(refused(
            Value::Null,
            RpcError::invalid("a message is a JSON object"),
        ));
    };
    // Only a message with no id at all is a notification; an id of the wrong type (an object,
    // an array, a boolean, null) makes an invalid request, answered with the id `null`.
    let id = message.remove("id");
    let answer_id = id
        .clone()
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null);
    let refuse = |why: &str| Err(refused(answer_id.clone(), RpcError::invalid(why)));
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return refuse("`jsonrpc` must be \"2.0\"");
    }
    let Some(method) = message.remove("method") else {
        if id.is_some() && (message.contains_key("result") || message.contains_key("error")) {
            // A response to a request this server never sends.
            return Ok(None);
        }
        return refuse("a request has a `method`");
    };
    let Some(id) = id else {
        return Ok(None);
    };
    if answer_id.is_null() || id.as_f64().is_some_and(|n| n.fract() != 0.0) {
        return Err(refused(
            Value::Null,
            RpcError::invalid("an id is a string or an integer"),
        ));
    }
    let Some(method) = method.as_str() else {
        return refuse("`method` must be a string");
    };
    let params = match message.remove("params") {
        None => Map::new(),
        Some(Value::Object(params)) => params,
        Some(_) => return refuse("`params` must be an object"),
    };
    if let Err(why) = check_params(method, &params) {
        return refuse(&why);
    }
    Ok(Some(Request {
        id,
        method: method.to_owned(),
        params,
    }))
}

/// The params a method's request must have, as MCP's schema gives them.
fn check_params(method: &str, params: &Map<String, Value>) -> Result<(), String> {
    let is = |key: &str, ok: fn(&Value) -> bool| params.get(key).is_some_and(ok);
    let may = |key: &str, ok: fn(&Value) -> bool| params.get(key).is_none_or(ok);
    let named = |v: &Value| v.get("name").is_some_and(Value::is_string);
    let checks: &[(bool, &str)] = match method {
        "initialize" => &[
            (
                is("protocolVersion", Value::is_string),
                "`protocolVersion` is a string",
            ),
            (
                is("capabilities", Value::is_object),
                "`capabilities` is an object",
            ),
            (is("clientInfo", named), "`clientInfo` names the client"),
        ],
        "tools/call" => &[
            (is("name", Value::is_string), "`name` is a string"),
            (
                may("arguments", |v| v.is_object() || v.is_null()),
                "`arguments` is an object",
            ),
        ],
        "tools/list" => &[(
            may("cursor", |v| v.is_string() || v.is_null()),
            "`cursor` is a string",
        )],
        _ => &[],
    };
    let meta_ok = may("_meta", |v| v.is_object() || v.is_null());
    match checks.iter().find(|(ok, _)| !ok) {
        Some((_, why)) => Err(format!("{method}: {why}")),
        None if !meta_ok => Err("`_meta` is an object".into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_past_the_limit_are_skipped_without_being_kept() {
        let mut s = Splitter::new(4);
        let mut lines = s.feed(b"ab\nabcdefgh");
        assert_eq!(lines, [Line::Whole(b"ab".to_vec()), Line::TooLong]);
        assert!(s.line.is_empty(), "nothing of the long line is held");
        lines = s.feed(b"ijk\ncd\n");
        assert_eq!(lines, [Line::Whole(b"cd".to_vec())]);
    }

    #[test]
    fn a_line_split_across_reads_is_whole() {
        let mut s = Splitter::new(100);
        assert!(s.feed(b"{\"a\":").is_empty());
        assert_eq!(s.feed(b"1}\n"), [Line::Whole(b"{\"a\":1}".to_vec())]);
    }

    #[test]
    fn every_line_is_read_or_refused() {
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let read_ping = read(&[ping.as_slice(), b"\r"].concat()).unwrap().unwrap();
        assert_eq!(
            (read_ping.id, read_ping.method.as_str()),
            (json!(1), "ping")
        );
        assert_eq!(read(b"  "), Ok(None));
        let refused = |line: &[u8]| {
            read(line).map(|_| ()).map_err(|answer| {
                let answer: Value = serde_json::from_slice(&answer).unwrap();
                (
                    answer["id"].clone(),
                    answer["error"]["code"].as_i64().unwrap(),
                )
            })
        };
        assert_eq!(refused(b"{"), Err((Value::Null, -32700)));
        assert_eq!(refused(b"\xff\xfe"), Err((Value::Null, -32700)));
        assert_eq!(
            refused("[".repeat(100_000).as_bytes()),
            Err((Value::Null, -32700))
        );
        assert_eq!(refused(b"[1]"), Err((Value::Null, -32600)));
        let wrong = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}"#;
        assert_eq!(refused(wrong), Err((json!(7), -32600)));
        let nameless = br#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}"#;
        assert_eq!(refused(nameless), Err((json!("a"), -32600)));
        let versionless = br#"{"id":3,"method":"ping"}"#;
        assert_eq!(refused(versionless), Err((json!(3), -32600)));
        // An id of the wrong type: an invalid request, answered with the id `null`.
        for id in [r#"{"a":1}"#, "[1]", "true", "null", "1.5"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            assert_eq!(
                refused(line.as_bytes()),
                Err((Value::Null, -32600)),
                "{line}"
            );
        }
        // A notification gets no answer, whatever it holds; nor does a response.
        assert_eq!(
            read(br#"{"jsonrpc":"2.0","method":"$/cancel","params":1}"#),
            Ok(None)
        );
        assert_eq!(read(br#"{"jsonrpc":"2.0","id":4,"result":{}}"#), Ok(None));
    }

    #[test]
    fn an_answer_is_one_line_with_the_id() {
        let ok = answer(&json!(2), Ok(json!({})));
        assert_eq!(ok, b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
        let mut error = RpcError::new(-32022, "no");
        error.data = Some(json!({"supported": []}));
        let line: Value = serde_json::from_slice(&answer(&Value::Null, Err(error))).unwrap();
        assert_eq!(line["error"]["data"]["supported"], json!([]));
        assert_eq!(line["id"], Value::Null);
    }
}
