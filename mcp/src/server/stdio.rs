//! The stdio in front of rmcp: every line from the client is judged here first, so malformed
//! input gets the JSON-RPC error it deserves instead of silence.
//!
//! rmcp drops input that is not JSON (and lines over 16 MiB) without a word, to avoid error
//! storms with peers that echo, and answers a `tools/call` whose `arguments` is not an object
//! with "method not found". So:
//!
//! ```text
//! stdin ─ line (≤ MAX_LINE) ─▶ judge() ─ Pass ─▶ duplex ─▶ rmcp ─▶ duplex ─┐
//!                                 └─ Reply: -32700 parse error            ├─▶ one writer ─▶ stdout
//!                                           -32600 invalid request        │   (whole lines)
//!                                           -32602 invalid params ────────┘
//! ```
//!
//! A reply carries the request's `id` whenever one can be read (from the start of a line too
//! long or too broken to parse), else `null`. Replies are responses, which an echoing peer
//! sends back as valid responses, so no storm. Notifications (no `id`) get no reply.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The longest line read (rmcp's own cap).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

/// What to do with one line.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Hand it to rmcp.
    Pass,
    /// Answer it with this error response instead.
    Reply(Value),
    /// Neither (a broken notification: nobody to answer).
    Drop,
}

/// The verdict on one line (without its newline); `cut`: the line was longer than
/// [`MAX_LINE`] and only its start is here.
pub fn judge(line: &[u8], cut: bool) -> Verdict {
    if cut {
        return reply(id_in_prefix(line), INVALID_REQUEST, format!("a message longer than {MAX_LINE} bytes"));
    }
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Drop;
    }
    let v: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            let why = if e.to_string().contains("recursion limit") {
                "JSON nested deeper than 128 levels".to_owned()
            } else {
                format!("not JSON ({})", syntax_word(&e))
            };
            return reply(id_in_prefix(line), PARSE_ERROR, why);
        }
    };
    let Value::Object(m) = &v else {
        let why = if v.is_array() { "batches are not supported" } else { "a message is a JSON object" };
        return reply(Value::Null, INVALID_REQUEST, why.to_owned());
    };
    let id = m.get("id").cloned();
    let notification = id.is_none();
    let answer = |code, why: &str| {
        if notification {
            Verdict::Drop
        } else {
            reply(id.clone().unwrap_or(Value::Null), code, why.to_owned())
        }
    };
    if let Some(id) = &id
        && !(id.is_string() || id.is_i64() || id.is_u64())
    {
        return reply(Value::Null, INVALID_REQUEST, "`id` must be a string or an integer".to_owned());
    }
    if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return answer(INVALID_REQUEST, "`jsonrpc` must be \"2.0\"");
    }
    let Some(method) = m.get("method") else {
        // A response from the client (to a request of ours).
        return if m.contains_key("result") || m.contains_key("error") {
            Verdict::Pass
        } else {
            answer(INVALID_REQUEST, "a message needs `method` (or `result`/`error` in a response)")
        };
    };
    let Some(method) = method.as_str() else { return answer(INVALID_REQUEST, "`method` must be a string") };
    match m.get("params") {
        None | Some(Value::Object(_)) => {}
        Some(_) => return answer(INVALID_PARAMS, "`params` must be an object"),
    }
    if method == "tools/call" {
        let params = m.get("params");
        if params.and_then(|p| p.get("name")).and_then(Value::as_str).is_none() {
            return answer(INVALID_PARAMS, "tools/call needs `params.name`, the tool's name");
        }
        match params.and_then(|p| p.get("arguments")) {
            None | Some(Value::Object(_)) => {}
            Some(_) => return answer(INVALID_PARAMS, "`params.arguments` must be an object"),
        }
    }
    Verdict::Pass
}

fn reply(id: Value, code: i64, message: String) -> Verdict {
    let kind = match code {
        PARSE_ERROR => "parse error",
        INVALID_PARAMS => "invalid params",
        _ => "invalid request",
    };
    Verdict::Reply(json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": format!("{kind}: {message}")},
    }))
}

fn syntax_word(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Eof => "it ends too early",
        serde_json::error::Category::Syntax => "a syntax error",
        serde_json::error::Category::Data => "bad data",
        serde_json::error::Category::Io => "unreadable",
    }
}

/// The `id` of a message that cannot be parsed whole, read from its start: the first
/// top-level-looking `"id":` followed by an integer or a plain string; `null` otherwise.
pub fn id_in_prefix(line: &[u8]) -> Value {
    let head = &line[..line.len().min(4096)];
    let Ok(text) = std::str::from_utf8(head).or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
    else {
        return Value::Null;
    };
    let Some(at) = text.find("\"id\"") else { return Value::Null };
    let rest = text[at + 4..].trim_start();
    let Some(rest) = rest.strip_prefix(':') else { return Value::Null };
    let rest = rest.trim_start();
    if let Some(s) = rest.strip_prefix('"') {
        return match s.find(['"', '\\']) {
            Some(end) if s.as_bytes()[end] == b'"' => Value::from(&s[..end]),
            _ => Value::Null,
        };
    }
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
    digits.parse::<i64>().map_or(Value::Null, Value::from)
}

/// Reads `input` line by line (each at most [`MAX_LINE`]), passes good lines to `to_rmcp` and
/// sends error replies to `out`, until `input` ends.
pub async fn filter_input<R, W>(input: R, mut to_rmcp: W, out: mpsc::Sender<Vec<u8>>) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    loop {
        line.clear();
        let (ended, cut) = read_capped(&mut input, &mut line).await?;
        if ended && line.is_empty() {
            break;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        match judge(body, cut) {
            Verdict::Pass => {
                to_rmcp.write_all(body).await?;
                to_rmcp.write_all(b"\n").await?;
                to_rmcp.flush().await?;
            }
            Verdict::Reply(v) => {
                tracing::debug!(bytes = body.len(), "malformed input answered with a JSON-RPC error");
                let mut bytes = serde_json::to_vec(&v).map_err(std::io::Error::other)?;
                bytes.push(b'\n');
                if out.send(bytes).await.is_err() {
                    break;
                }
            }
            Verdict::Drop => tracing::debug!(bytes = body.len(), "malformed notification dropped"),
        }
        if ended {
            break;
        }
    }
    to_rmcp.shutdown().await
}

/// One line into `line` (with its newline), keeping at most [`MAX_LINE`] bytes of it and
/// skipping the rest. Answers (input ended, line was cut).
async fn read_capped<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Vec<u8>,
) -> std::io::Result<(bool, bool)> {
    let mut cut = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok((true, cut));
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        let room = MAX_LINE.saturating_sub(line.len());
        if take > room {
            cut = true;
        }
        line.extend_from_slice(&buf[..take.min(room)]);
        input.consume(take);
        if done {
            return Ok((false, cut));
        }
    }
}

/// Copies `from` (rmcp's output) to `out` line by line, so error replies never land inside
/// one of its messages.
pub async fn forward_output<R: AsyncRead + Unpin>(
    from: R,
    out: mpsc::Sender<Vec<u8>>,
) -> std::io::Result<()> {
    let mut from = BufReader::new(from);
    loop {
        let mut line = Vec::new();
        if from.read_until(b'\n', &mut line).await? == 0 {
            return Ok(());
        }
        if out.send(line).await.is_err() {
            return Ok(());
        }
    }
}

/// Writes every line it is sent to `stdout`, in order.
pub async fn write_lines<W: AsyncWrite + Unpin>(
    mut stdout: W,
    mut lines: mpsc::Receiver<Vec<u8>>,
) -> std::io::Result<()> {
    while let Some(line) = lines.recv().await {
        stdout.write_all(&line).await?;
        stdout.flush().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_and_id(v: Verdict) -> (i64, Value) {
        match v {
            Verdict::Reply(r) => (r["error"]["code"].as_i64().unwrap(), r["id"].clone()),
            other => panic!("no reply: {other:?}"),
        }
    }

    #[test]
    fn malformed_input_gets_the_json_rpc_code_with_the_id_when_it_can_be_read() {
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{{\"a\":{}1{}}}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        let cases: [(&str, bool, i64, Value); 11] = [
            ("{not json", false, PARSE_ERROR, Value::Null),
            (r#"{"jsonrpc":"2.0","id":7,"method":"tools/list",,}"#, false, PARSE_ERROR, json!(7)),
            (deep.as_str(), false, PARSE_ERROR, json!(9)),
            (
                r#"{"jsonrpc":"2.0","id":"a1","method":"tools/call","params":{"name":"x","arguments":"#,
                true,
                INVALID_REQUEST,
                json!("a1"),
            ),
            ("[1,2]", false, INVALID_REQUEST, Value::Null),
            ("42", false, INVALID_REQUEST, Value::Null),
            (r#"{"id":3,"method":"ping"}"#, false, INVALID_REQUEST, json!(3)),
            (r#"{"jsonrpc":"2.0","id":4,"method":5}"#, false, INVALID_REQUEST, json!(4)),
            (
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ping","arguments":[1]}}"#,
                false,
                INVALID_PARAMS,
                json!(5),
            ),
            (
                r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"arguments":{}}}"#,
                false,
                INVALID_PARAMS,
                json!(6),
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/list","params":"x"}"#,
                false,
                INVALID_PARAMS,
                json!(8),
            ),
        ];
        for (line, cut, code, id) in cases {
            assert_eq!(code_and_id(judge(line.as_bytes(), cut)), (code, id), "{line}");
        }
    }

    #[test]
    fn good_messages_pass_and_broken_notifications_are_dropped() {
        for line in [
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ping","arguments":{}}}"#
                .as_slice(),
            br#"{"jsonrpc":"2.0","id":"x","method":"initialize","params":{}}"#.as_slice(),
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.as_slice(),
            br#"{"jsonrpc":"2.0","id":2,"result":{}}"#.as_slice(),
        ] {
            assert_eq!(judge(line, false), Verdict::Pass, "{}", String::from_utf8_lossy(line));
        }
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","method":"notifications/x","params":3}"#, false),
            Verdict::Drop
        );
        assert_eq!(judge(b"   ", false), Verdict::Drop);
    }

    #[tokio::test]
    async fn a_line_over_the_cap_is_answered_and_the_next_one_still_passes() {
        let mut input = br#"{"jsonrpc":"2.0","id":11,"method":"ping","params":{"pad":""#.to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        input.extend_from_slice(b"\"}}\n{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}\n");
        let (tx, mut rx) = mpsc::channel(4);
        let mut passed = Vec::new();
        filter_input(input.as_slice(), &mut passed, tx).await.unwrap();
        let reply: Value = serde_json::from_slice(&rx.recv().await.unwrap()).unwrap();
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (json!(11), json!(INVALID_REQUEST))
        );
        assert_eq!(passed, b"{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\"}\n");
    }
}
