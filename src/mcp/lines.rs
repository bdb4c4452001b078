//! The MCP server's standard input, one JSON-RPC message per line, guarded: every request gets
//! an answer. rmcp drops a line that is not JSON (or too deep, or too long) without a word, and
//! a client waiting on that request waits forever. Here such a line is answered with a JSON-RPC
//! error (`-32700` parse error, `-32600` for a line past [`MAX_LINE`] or a message of the wrong
//! shape, with the request's id where it has one, else `null`) and the server goes on serving.
//! Notifications get no answer, as the protocol says.

use std::future::Future;
use std::sync::Arc;

use rmcp::service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::Transport;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::{mpsc, Mutex};

/// Longest line read: a proposal's request is at most 1 MiB, escaped in JSON a few times that.
pub const MAX_LINE: usize = 8 * 1024 * 1024;

/// A line that does not reach rmcp, and the JSON-RPC error that answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    code: i32,
    message: String,
    /// The request's id where it has a usable one, else `null`.
    id: Value,
}

impl Refusal {
    fn too_long() -> Refusal {
        Refusal {
            code: -32600,
            message: format!("the line is longer than {MAX_LINE} bytes; it was skipped"),
            id: Value::Null,
        }
    }

    fn invalid(why: &serde_json::Error, id: Value) -> Refusal {
        Refusal {
            code: -32600,
            message: format!("invalid request: {why}"),
            id,
        }
    }

    fn parse_error(why: String) -> Refusal {
        Refusal {
            code: -32700,
            message: format!("parse error: {why}"),
            id: Value::Null,
        }
    }

    /// The answer, one line.
    fn answer(&self) -> Vec<u8> {
        let mut line = json!({
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        })
        .to_string()
        .into_bytes();
        line.push(b'\n');
        line
    }
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

/// Whether a whole line goes on to rmcp (`Ok(true)`: a message it reads), is left unanswered
/// (`Ok(false)`: blank, or a notification rmcp does not know, which gets no answer by the
/// protocol) or is refused.
pub fn judge(line: &[u8]) -> Result<bool, Refusal> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(false);
    }
    let text = std::str::from_utf8(line)
        .map_err(|e| Refusal::parse_error(format!("the line is not UTF-8 ({e})")))?;
    // serde_json's depth limit refuses a deeply nested line before it costs.
    let value: Value =
        serde_json::from_str(text).map_err(|e| Refusal::parse_error(e.to_string()))?;
    let Err(why) = serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value.clone()) else {
        return Ok(true);
    };
    // Only a message with no id at all is a notification; an id of the wrong type (an object,
    // an array, a boolean) makes an invalid request, answered with the id `null`.
    let Some(id) = value.get("id") else {
        if value.get("method").is_some() {
            return Ok(false);
        }
        return Err(Refusal::invalid(&why, Value::Null));
    };
    let usable = id.is_string() || id.is_number();
    Err(Refusal::invalid(
        &why,
        if usable { id.clone() } else { Value::Null },
    ))
}

/// Reads `input`, sends each line rmcp reads on to `rmcp` and each refusal to `refused`, until
/// `input` ends (then `rmcp` ends too).
async fn guard(
    mut input: impl AsyncRead + Unpin,
    mut rmcp: DuplexStream,
    refused: mpsc::UnboundedSender<Refusal>,
) {
    let mut splitter = Splitter::new(MAX_LINE);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        for line in splitter.feed(&chunk[..n]) {
            let judged = match line {
                Line::TooLong => Err(Refusal::too_long()),
                Line::Whole(bytes) => judge(&bytes).map(|pass| pass.then_some(bytes)),
            };
            match judged {
                Ok(Some(mut bytes)) => {
                    bytes.push(b'\n');
                    if rmcp.write_all(&bytes).await.is_err() {
                        return;
                    }
                }
                Ok(None) => {}
                Err(refusal) => {
                    if refused.send(refusal).is_err() {
                        return;
                    }
                }
            }
        }
    }
}

/// rmcp's line transport reading the guarded lines; answers, and each refusal, are written here,
/// a whole line at a time.
pub struct Guarded<W: AsyncWrite + Send + Unpin + 'static> {
    inner: AsyncRwTransport<RoleServer, DuplexStream, tokio::io::Sink>,
    output: Arc<Mutex<W>>,
    refused: mpsc::UnboundedReceiver<Refusal>,
    /// Answers to refusals being written.
    answering: Vec<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl<W: AsyncWrite + Send + Unpin + 'static> Guarded<W> {
    /// The transport over `input` and `output`; its guard runs on the current runtime.
    pub fn new(input: impl AsyncRead + Send + Unpin + 'static, output: W) -> Guarded<W> {
        let (to_rmcp, from_guard) = tokio::io::duplex(64 * 1024);
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(guard(input, to_rmcp, tx));
        Guarded {
            inner: AsyncRwTransport::new(from_guard, tokio::io::sink()),
            output: Arc::new(Mutex::new(output)),
            refused: rx,
            answering: Vec::new(),
        }
    }
}

/// Writes `line` whole, then flushes.
async fn write_line<W: AsyncWrite + Unpin>(output: &Mutex<W>, line: &[u8]) -> std::io::Result<()> {
    let mut output = output.lock().await;
    output.write_all(line).await?;
    output.flush().await
}

impl<W: AsyncWrite + Send + Unpin + 'static> Transport<RoleServer> for Guarded<W> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let output = self.output.clone();
        async move {
            let mut line = serde_json::to_vec(&item)?;
            line.push(b'\n');
            write_line(&output, &line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            tokio::select! {
                // Lines in the order they came: a refusal queued before the input ended is
                // answered before the session does.
                biased;
                Some(refusal) = self.refused.recv() => {
                    // Answered on its own task: rmcp polls this future in a select and may
                    // drop it, and the answer must not be lost with it.
                    let output = self.output.clone();
                    self.answering.retain(|a| !a.is_finished());
                    self.answering.push(tokio::spawn(async move {
                        write_line(&output, &refusal.answer()).await
                    }));
                }
                message = self.inner.receive() => {
                    if message.is_none() {
                        // The input ended: the answers still being written go out first.
                        for answer in self.answering.drain(..) {
                            let _ = answer.await;
                        }
                    }
                    return message;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inner.close().await
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
    fn only_messages_rmcp_reads_go_on() {
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert_eq!(judge(&[ping.as_slice(), b"\r"].concat()), Ok(true));
        assert_eq!(judge(b"  "), Ok(false));
        let code = |line: &[u8]| judge(line).unwrap_err().code;
        assert_eq!(code(b"{"), -32700);
        assert_eq!(code(b"\xff\xfe"), -32700);
        assert_eq!(code("[".repeat(100_000).as_bytes()), -32700);
        let wrong = judge(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}"#);
        assert_eq!(wrong.map_err(|r| (r.code, r.id)), Err((-32600, json!(7))));
        // An id of the wrong type: an invalid request, answered with the id `null`.
        for id in [r#"{"a":1}"#, "[1]", "true", "null"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let refused = judge(line.as_bytes()).map_err(|r| (r.code, r.id));
            assert_eq!(refused, Err((-32600, Value::Null)), "{line}");
        }
        // A notification gets no answer, whatever it holds.
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","method":"$/cancel","params":1}"#),
            Ok(false)
        );
    }
}
