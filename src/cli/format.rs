//! Output of consumed messages: kcat's `-f` format tokens, the default
//! `value<delim>` / `key<keydelim>value<delim>` layouts, and the `-J` JSON
//! envelope; plus the JSON string escaping shared with `-L -J`.

use gregor::message::{Message, TimestampType};

use super::CliError;

/// One piece of a format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Token {
    /// Literal bytes.
    Lit(Vec<u8>),
    /// `%k`.
    Key,
    /// `%K`: key length, -1 for null.
    KeyLen,
    /// `%s`.
    Value,
    /// `%S`: value length, -1 for null.
    ValueLen,
    /// `%R`: value length as a big-endian i32.
    ValueLenBinary,
    /// `%t`.
    Topic,
    /// `%p`.
    Partition,
    /// `%o`.
    Offset,
    /// `%T`: timestamp in ms, -1 if none.
    Timestamp,
    /// `%h`: headers as `name=value,...`.
    Headers,
}

/// How messages are written.
#[derive(Debug, Clone)]
pub struct Output {
    /// Tokens (unused with `json`).
    pub tokens: Vec<Token>,
    /// `-J`: a JSON object per message followed by `delim`.
    pub json: bool,
    /// The message delimiter (JSON mode).
    pub delim: Vec<u8>,
    /// `-Z`: print null (and empty) keys and values as `NULL`.
    pub null_str: bool,
}

/// Parses a `-f` format.
///
/// # Errors
/// A `%` at the end or an unknown token, in kcat's words.
pub fn parse_format(fmt: &str) -> Result<Vec<Token>, CliError> {
    let mut out = Vec::new();
    let mut rest = fmt;
    while !rest.is_empty() {
        let Some(at) = rest.find('%') else {
            out.push(Token::Lit(unescape(rest)));
            break;
        };
        if at > 0 {
            out.push(Token::Lit(unescape(&rest[..at])));
        }
        let mut chars = rest[at + 1..].chars();
        let tok = match chars.next() {
            None => return Err(CliError::Fatal("Empty formatter".into())),
            Some('o') => Token::Offset,
            Some('k') => Token::Key,
            Some('K') => Token::KeyLen,
            Some('s') => Token::Value,
            Some('S') => Token::ValueLen,
            Some('R') => Token::ValueLenBinary,
            Some('t') => Token::Topic,
            Some('p') => Token::Partition,
            Some('T') => Token::Timestamp,
            Some('h') => Token::Headers,
            Some('%') => Token::Lit(b"%".to_vec()),
            Some(c) => return Err(CliError::Fatal(format!("Unsupported formatter: %{c}"))),
        };
        out.push(tok);
        rest = chars.as_str();
    }
    Ok(out)
}

/// kcat's escapes in format literals: `\n \r \t`, `\xHH`, `\NNN` (C's
/// strtoul base 0: decimal, `0` octal, `0x` hex), any other `\c` as `c`.
fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        match b[i] {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'x' if b.get(i + 1).is_some_and(u8::is_ascii_hexdigit) => {
                let n = b[i + 1..]
                    .iter()
                    .take(2)
                    .take_while(|c| c.is_ascii_hexdigit())
                    .count();
                let v = std::str::from_utf8(&b[i + 1..i + 1 + n])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .unwrap_or(0);
                out.push(v);
                i += n;
            }
            c if c.is_ascii_digit() => {
                let hex = c == b'0'
                    && matches!(b.get(i + 1), Some(b'x' | b'X'))
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
                let (radix, skip) = if hex {
                    (16, 2)
                } else if c == b'0' {
                    (8, 0)
                } else {
                    (10, 0)
                };
                let digits = b[i + skip..]
                    .iter()
                    .take_while(|d| (**d as char).is_digit(radix))
                    .count();
                let mut v: u32 = 0;
                for d in &b[i + skip..i + skip + digits] {
                    v = v
                        .wrapping_mul(radix)
                        .wrapping_add((*d as char).to_digit(radix).unwrap_or(0));
                }
                out.push(v as u8);
                i += skip + digits.max(1) - 1;
            }
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// The tokens of kcat's default output: `%s<delim>`, or `%k<keydelim>%s<delim>` with `-K`.
pub fn default_format(key_delim: Option<&[u8]>, delim: &[u8]) -> Vec<Token> {
    let mut t = Vec::new();
    if let Some(kd) = key_delim {
        t.push(Token::Key);
        t.push(Token::Lit(kd.to_vec()));
    }
    t.push(Token::Value);
    t.push(Token::Lit(delim.to_vec()));
    t
}

impl Output {
    /// Appends one message to `out`. `broker` is the partition's leader, for `-J`.
    pub fn render(&self, m: &Message, broker: i32, out: &mut Vec<u8>) {
        if self.json {
            json_message(m, broker, out);
            out.extend_from_slice(&self.delim);
            return;
        }
        for t in &self.tokens {
            match t {
                Token::Lit(s) => out.extend_from_slice(s),
                Token::Key => self.bytes(m.key.as_deref(), out),
                Token::KeyLen => len(m.key.as_deref(), out),
                Token::Value => self.bytes(m.value.as_deref(), out),
                Token::ValueLen => len(m.value.as_deref(), out),
                Token::ValueLenBinary => {
                    let n = m.value.as_ref().map_or(-1, |v| v.len() as i32);
                    out.extend_from_slice(&n.to_be_bytes());
                }
                Token::Topic => out.extend_from_slice(m.topic.as_bytes()),
                Token::Partition => out.extend_from_slice(m.partition.to_string().as_bytes()),
                Token::Offset => out.extend_from_slice(m.offset.to_string().as_bytes()),
                Token::Timestamp => {
                    let ts = if m.timestamp_type == TimestampType::NotAvailable {
                        -1
                    } else {
                        m.timestamp
                    };
                    out.extend_from_slice(ts.to_string().as_bytes());
                }
                Token::Headers => {
                    for (i, h) in m.headers.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        out.extend_from_slice(&h.key);
                        out.push(b'=');
                        match &h.value {
                            Some(v) => out.extend_from_slice(v),
                            None => out.extend_from_slice(b"NULL"),
                        }
                    }
                }
            }
        }
    }

    /// `%k` / `%s`: the bytes; nothing for null or empty unless `-Z`.
    fn bytes(&self, b: Option<&[u8]>, out: &mut Vec<u8>) {
        match b {
            Some(b) if !b.is_empty() => out.extend_from_slice(b),
            _ if self.null_str => out.extend_from_slice(b"NULL"),
            _ => {}
        }
    }
}

fn len(b: Option<&[u8]>, out: &mut Vec<u8>) {
    let n = b.map_or(-1, |b| b.len() as i64);
    out.extend_from_slice(n.to_string().as_bytes());
}

/// kcat's `-J` envelope:
/// `{"topic":..,"partition":..,"offset":..,"tstype":..,"ts":..,"broker":..,"headers":[..],"key":..,"payload":..}`.
fn json_message(m: &Message, broker: i32, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"topic\":");
    json_str(m.topic.as_bytes(), out);
    out.extend_from_slice(
        format!(",\"partition\":{},\"offset\":{}", m.partition, m.offset).as_bytes(),
    );
    let tstype = match m.timestamp_type {
        TimestampType::NotAvailable => None,
        TimestampType::CreateTime => Some("create"),
        TimestampType::LogAppendTime => Some("logappend"),
    };
    if let Some(t) = tstype {
        out.extend_from_slice(format!(",\"tstype\":\"{t}\",\"ts\":{}", m.timestamp).as_bytes());
    }
    out.extend_from_slice(format!(",\"broker\":{broker}").as_bytes());
    if !m.headers.is_empty() {
        out.extend_from_slice(b",\"headers\":[");
        for (i, h) in m.headers.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json_str(&h.key, out);
            out.push(b',');
            json_opt(h.value.as_deref(), out);
        }
        out.push(b']');
    }
    out.extend_from_slice(b",\"key\":");
    json_opt(m.key.as_deref(), out);
    out.extend_from_slice(b",\"payload\":");
    json_opt(m.value.as_deref(), out);
    out.push(b'}');
}

fn json_opt(b: Option<&[u8]>, out: &mut Vec<u8>) {
    match b {
        Some(b) => json_str(b, out),
        None => out.extend_from_slice(b"null"),
    }
}

/// A JSON string as yajl writes it: `"` and `\` escaped, control characters
/// as `\b \f \n \r \t` or `\u00XX`; other bytes (UTF-8 or not) as they are.
pub fn json_str(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    for &c in s {
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c if c < 0x20 => out.extend_from_slice(format!("\\u{c:04X}").as_bytes()),
            c => out.push(c),
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use gregor::message::Bytes;
    use gregor::message::Header;

    use super::*;

    fn msg() -> Message {
        Message {
            topic: Arc::from("t\"1"),
            partition: 2,
            offset: 7,
            key: Some(Bytes::from(&b"k"[..])),
            value: Some(Bytes::from(&b"v\n"[..])),
            headers: vec![
                Header {
                    key: Bytes::from("a"),
                    value: Some(Bytes::from("1")),
                },
                Header {
                    key: Bytes::from("n"),
                    value: None,
                },
                Header {
                    key: Bytes::from("e"),
                    value: Some(Bytes::from("")),
                },
            ],
            timestamp: 1234,
            timestamp_type: TimestampType::CreateTime,
            leader_epoch: None,
            error: None,
        }
    }

    fn render(fmt: &str, m: &Message, null_str: bool) -> Vec<u8> {
        let o = Output {
            tokens: parse_format(fmt).unwrap(),
            json: false,
            delim: b"\n".to_vec(),
            null_str,
        };
        let mut out = Vec::new();
        o.render(m, 1, &mut out);
        out
    }

    #[test]
    fn every_token() {
        assert_eq!(
            render("%t|%p|%o|%k|%K|%s|%S|%T|%h|%%\\t\\n", &msg(), false),
            b"t\"1|2|7|k|1|v\n|2|1234|a=1,n=NULL,e=|%\t\n"
        );
        assert_eq!(render("%R", &msg(), false), [0, 0, 0, 2]);
        let mut m = msg();
        m.key = None;
        m.value = Some(Bytes::from(""));
        m.headers.clear();
        m.timestamp_type = TimestampType::NotAvailable;
        assert_eq!(
            render("[%k][%K][%s][%S][%h][%T]", &m, false),
            b"[][-1][][0][][-1]"
        );
        assert_eq!(render("[%k][%s]", &m, true), b"[NULL][NULL]");
    }

    #[test]
    fn escapes_and_errors() {
        assert_eq!(unescape("\\x41\\65\\0101\\\\\\q\\"), b"AAA\\q\\");
        assert!(matches!(parse_format("abc%"), Err(CliError::Fatal(m)) if m == "Empty formatter"));
        assert!(
            matches!(parse_format("%z"), Err(CliError::Fatal(m)) if m == "Unsupported formatter: %z")
        );
    }

    #[test]
    fn json_envelope() {
        let o = Output {
            tokens: Vec::new(),
            json: true,
            delim: b"\n".to_vec(),
            null_str: false,
        };
        let mut out = Vec::new();
        o.render(&msg(), 3, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\"topic\":\"t\\\"1\",\"partition\":2,\"offset\":7,\"tstype\":\"create\",\"ts\":1234,\
             \"broker\":3,\"headers\":[\"a\",\"1\",\"n\",null,\"e\",\"\"],\"key\":\"k\",\"payload\":\"v\\n\"}\n"
        );
        let mut s = Vec::new();
        json_str(b"\x01\x08\x0c\\/\x7f", &mut s);
        assert_eq!(s, b"\"\\u0001\\b\\f\\\\/\x7f\"");
    }
}
