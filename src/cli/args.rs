//! Command-line parsing, kcat 1.7.1's options and order of checks: options
//! are handled as getopt(3) meets them (so `-h`, `-V` and `-X list` act at
//! once and an unknown `-X` property fails before a missing `-b`), operands
//! may come anywhere (GNU getopt permutes them to the end), `--` ends the
//! options.

use std::time::Duration;

use gregor::config::Config;
use gregor::message::offset;

use super::{CliError, Done};

/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `-P`: produce stdin lines or files.
    Produce,
    /// `-C`: consume partitions.
    Consume,
    /// `-L`: list metadata.
    List,
    /// `-Q`: offsets by timestamp.
    Query,
    /// `-G`: balanced consumer group (not available yet).
    Group,
}

/// Where `-C` starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// A logical or absolute offset for `Consumer::assign`.
    Offset(i64),
    /// `-o stored`: the group's committed offset.
    Stored,
    /// `-o s@ts`: the first offset at or after a timestamp (ms).
    Timestamp(i64),
}

/// Everything the command line says.
#[derive(Debug, Clone)]
pub struct Options {
    /// Mode; `None` until decided (kcat picks by whether stdin is a terminal).
    pub mode: Option<Mode>,
    /// `-G group`.
    pub group: Option<String>,
    /// `-t topic`.
    pub topic: Option<String>,
    /// `-Q -t topic:partition:timestamp`, in order.
    pub queries: Vec<(String, i32, i64)>,
    /// `-p partition`; `None` for every partition (consume) or the partitioner (produce).
    pub partition: Option<i32>,
    /// `-b brokers`.
    pub brokers: Option<String>,
    /// Configuration properties from `-X`, `-z` and `-F`, in order.
    pub props: Vec<(String, String)>,
    /// `-o`; `None` is kcat's default, the beginning.
    pub start: Option<Start>,
    /// `-o e@ts`: stop each partition at the first message at or after it.
    pub stop_ts: Option<i64>,
    /// `-e`.
    pub exit_eof: bool,
    /// `-E`: an error kcat would exit on (all brokers down) is only reported.
    pub keep_going: bool,
    /// `-D`, raw (escapes are decoded after parsing, as kcat does).
    pub delim: String,
    /// `-K`, raw.
    pub key_delim: Option<String>,
    /// `-k`.
    pub fixed_key: Option<String>,
    /// `-H`: (name, value or null).
    pub headers: Vec<(String, Option<Vec<u8>>)>,
    /// `-l`.
    pub line_mode: bool,
    /// `-c`; kcat treats 0 and negative counts as no limit.
    pub count: Option<u64>,
    /// `-m seconds`.
    pub metadata_timeout: Duration,
    /// `-Z`.
    pub null_empty: bool,
    /// `-q` / `-v`; 1 by default.
    pub verbosity: i32,
    /// `-T`.
    pub tee: bool,
    /// `-u`.
    pub unbuffered: bool,
    /// `-f`.
    pub format: Option<String>,
    /// `-J`.
    pub json: bool,
    /// `-X dump`.
    pub dump: bool,
    /// `-d`: librdkafka's debug contexts (the `debug` property).
    pub debug: Option<String>,
    /// Operands: files for `-P`, topics for `-G`.
    pub operands: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mode: None,
            group: None,
            topic: None,
            queries: Vec::new(),
            partition: None,
            brokers: None,
            props: Vec::new(),
            start: None,
            stop_ts: None,
            exit_eof: false,
            keep_going: false,
            delim: "\\n".into(),
            key_delim: None,
            fixed_key: None,
            headers: Vec::new(),
            line_mode: false,
            count: None,
            metadata_timeout: Duration::from_secs(5),
            null_empty: false,
            verbosity: 1,
            tee: false,
            unbuffered: false,
            format: None,
            json: false,
            dump: false,
            debug: None,
            operands: Vec::new(),
        }
    }
}

impl Options {
    /// True if the brokers can be found: `-b`, `bootstrap.servers` by
    /// `-X`/`-F` (kcat's rule: the property named at all), or a
    /// `zookeeper.connect` whose last value is not empty. With that the
    /// library reads the brokers of a ZooKeeper-era cluster from its
    /// registry (`/brokers/ids`, as Kafka's ZooKeeper mode writes it);
    /// an empty one would leave the client with no broker at all.
    pub fn brokers_seen(&self) -> bool {
        let named = |name: &str| self.props.iter().rev().find(|(k, _)| k == name);
        self.brokers.is_some()
            || named("bootstrap.servers").is_some()
            || named("metadata.broker.list").is_some()
            || named("zookeeper.connect").is_some_and(|(_, v)| !v.trim().is_empty())
    }
}

/// Options that take a value (kcat's getopt string, minus the colons).
const WITH_VALUE: &str = "GtpbzoDKkHdFXcfsrm";
/// Options without a value.
const FLAGS: &str = "PCLQeEOqvTuZlVhJU";

/// Parses the arguments (without the program name).
///
/// # Errors
/// A usage error, a fatal error (bad `-X`), or an immediate exit (`-h`,
/// `-V`, `-X list`) as [`CliError::Done`].
pub fn parse(args: &[String]) -> Result<Options, CliError> {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            o.operands.extend(args[i..].iter().cloned());
            break;
        }
        if !a.starts_with('-') || a == "-" {
            o.operands.push(a.clone());
            continue;
        }
        let body = &a[1..];
        for (at, c) in body.char_indices() {
            if WITH_VALUE.contains(c) {
                let rest = &body[at + c.len_utf8()..];
                let value = if !rest.is_empty() {
                    rest.to_string()
                } else if i < args.len() {
                    i += 1;
                    args[i - 1].clone()
                } else {
                    return Err(CliError::Usage(format!("option -{c} requires an argument")));
                };
                option(&mut o, c, Some(&value))?;
                break;
            } else if FLAGS.contains(c) {
                option(&mut o, c, None)?;
            } else {
                return Err(CliError::Usage(format!("unknown argument -{c}")));
            }
        }
    }
    Ok(o)
}

fn number<T: std::str::FromStr>(opt: char, v: &str) -> Result<T, CliError> {
    v.trim()
        .parse()
        .map_err(|_| CliError::Usage(format!("-{opt} expects a number, not \"{v}\"")))
}

/// Checks a property the way it will be set later, so that an unknown name
/// or bad value stops the command line where kcat would stop it.
fn check_prop(name: &str, value: &str) -> Result<(String, String), CliError> {
    // kcat applies "topic."-prefixed properties to the topic configuration;
    // gregor has one namespace, so the prefix is dropped when that names a
    // property.
    let name = match name.strip_prefix("topic.") {
        Some(short) if Config::new().get(short).is_some() => short,
        _ => name,
    };
    Config::new()
        .set(name, value)
        .map_err(|e| CliError::Fatal(e.to_string()))?;
    Ok((name.to_string(), value.to_string()))
}

fn option(o: &mut Options, c: char, v: Option<&str>) -> Result<(), CliError> {
    let v = v.unwrap_or("");
    match c {
        'P' => o.mode = Some(Mode::Produce),
        'C' => o.mode = Some(Mode::Consume),
        'L' => o.mode = Some(Mode::List),
        'Q' => o.mode = Some(Mode::Query),
        'G' => {
            o.mode = Some(Mode::Group);
            o.group = Some(v.to_string());
        }
        't' if o.mode == Some(Mode::Query) => o.queries.push(parse_query(v)?),
        't' => o.topic = Some(v.to_string()),
        'p' => {
            let p: i32 = number('p', v)?;
            o.partition = match p {
                -1 => None,
                p if p < 0 => {
                    return Err(CliError::Usage(format!(
                        "-p expects a partition (or -1), not {p}"
                    )))
                }
                p => Some(p),
            };
        }
        'b' => o.brokers = Some(v.to_string()),
        'z' => o.props.push(check_prop("compression.codec", v)?),
        'o' => parse_offset(o, v)?,
        'e' => o.exit_eof = true,
        'E' => o.keep_going = true,
        'D' => o.delim = v.to_string(),
        'K' => o.key_delim = Some(v.to_string()),
        'k' => o.fixed_key = Some(v.to_string()),
        'H' => {
            let (name, value) = match v.split_once('=') {
                Some((n, val)) => (n, Some(val.as_bytes().to_vec())),
                None => (v, None),
            };
            if name.is_empty() {
                return Err(CliError::Fatal(
                    "Expected -H \"name=value..\" or -H \"name\"".into(),
                ));
            }
            o.headers.push((name.to_string(), value));
        }
        'l' => o.line_mode = true,
        // kcat 1.7.1 accepts -O and does nothing with it.
        'O' => {}
        'c' => {
            let n: i64 = number('c', v)?;
            o.count = u64::try_from(n).ok().filter(|n| *n > 0);
        }
        'm' => o.metadata_timeout = Duration::from_secs(number('m', v)?),
        'Z' => o.null_empty = true,
        'd' => o.debug = Some(v.to_string()),
        'q' => o.verbosity = 0,
        'v' => o.verbosity += 1,
        'T' => o.tee = true,
        'u' => o.unbuffered = true,
        'F' => {
            if v != "-" && v != "none" {
                read_conf_file(o, v)?;
            }
        }
        'X' => match v {
            "list" | "help" => return Err(CliError::Done(Done::ListProperties)),
            "dump" => o.dump = true,
            _ => {
                let Some((name, value)) = v.split_once('=') else {
                    return Err(CliError::Raw(format!(
                        "% Expected -X property=value, not {v}, \
                         use -X list to display available properties"
                    )));
                };
                o.props.push(check_prop(name, value)?);
            }
        },
        'f' => o.format = Some(v.to_string()),
        'J' => o.json = true,
        's' | 'r' => {
            return Err(CliError::Fatal(format!(
                "-{c}: deserializers and schema registries are not supported by gregor"
            )))
        }
        'U' => {
            return Err(CliError::Fatal(
                "-U: kcat's self-tests are not part of gregor".into(),
            ))
        }
        'V' => return Err(CliError::Done(Done::Version)),
        'h' => return Err(CliError::Done(Done::Help)),
        _ => return Err(CliError::Usage(format!("unknown argument -{c}"))),
    }
    Ok(())
}

/// `-o`: beginning | end | stored | N | -N | s@ts | e@ts.
fn parse_offset(o: &mut Options, v: &str) -> Result<(), CliError> {
    let ts = |s: &str| -> Result<i64, CliError> { number('o', s) };
    match v {
        "beginning" => o.start = Some(Start::Offset(offset::BEGINNING)),
        "end" => o.start = Some(Start::Offset(offset::END)),
        "stored" => o.start = Some(Start::Stored),
        _ => {
            if let Some(t) = v.strip_prefix("s@") {
                o.start = Some(Start::Timestamp(ts(t)?));
            } else if let Some(t) = v.strip_prefix("e@") {
                o.stop_ts = Some(ts(t)?);
            } else {
                let n: i64 = v.trim().parse().map_err(|_| {
                    CliError::Usage(format!(
                        "-o expects beginning, end, stored, <offset>, -<count>, s@<ms> or e@<ms>, not \"{v}\""
                    ))
                })?;
                // -N is librdkafka's RD_KAFKA_OFFSET_TAIL(N) (-2000 - N):
                // a count whose tail offset does not fit an i64 would wrap
                // into a huge positive offset and read nothing
                let start = if n < 0 {
                    n.checked_neg()
                        .and_then(|c| offset::TAIL_BASE.checked_sub(c))
                        .ok_or_else(|| CliError::Usage(format!("-o {v}: offset out of range")))?
                } else {
                    n
                };
                o.start = Some(Start::Offset(start));
            }
        }
    }
    Ok(())
}

/// `-Q -t topic:partition:timestamp`.
fn parse_query(v: &str) -> Result<(String, i32, i64), CliError> {
    let bad = || CliError::Fatal("-t: expected \"topic:partition:offset_or_timestamp\"".into());
    let mut it = v.rsplitn(3, ':');
    let ts = it.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
    let p = it.next().and_then(|s| s.parse().ok()).ok_or_else(bad)?;
    let topic = it.next().filter(|t| !t.is_empty()).ok_or_else(bad)?;
    Ok((topic.to_string(), p, ts))
}

/// The largest `-F` file read. kcat's `-F` reads a librdkafka configuration
/// file (`property=value` lines, as Java's `.properties`); real ones are a
/// few KiB. `-F /dev/zero` or a pipe that never ends must not be read into
/// memory whole.
const MAX_CONF_FILE: u64 = 1 << 20;

/// `-F file`: `property=value` lines, `#` comments, Java's `\:` and `\=` escapes.
fn read_conf_file(o: &mut Options, path: &str) -> Result<(), CliError> {
    use std::io::Read;
    let fail = |e: std::io::Error| CliError::Fatal(format!("Failed to open {path}: {e}"));
    let mut raw = Vec::new();
    std::fs::File::open(path)
        .map_err(fail)?
        .take(MAX_CONF_FILE + 1)
        .read_to_end(&mut raw)
        .map_err(fail)?;
    if raw.len() as u64 > MAX_CONF_FILE {
        return Err(CliError::Fatal(format!(
            "{path}: configuration file larger than {} KiB: not a configuration file",
            MAX_CONF_FILE >> 10
        )));
    }
    let text = String::from_utf8(raw).map_err(|_| {
        CliError::Fatal(format!(
            "Failed to read {path}: stream did not contain valid UTF-8"
        ))
    })?;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.replace("\\:", ":").replace("\\=", "=");
        let (name, value) = match line.split_once('=') {
            Some((k, v)) if !k.is_empty() => (k, v),
            _ => {
                return Err(CliError::Fatal(format!(
                    "{path}:{}: expected property=value",
                    n + 1
                )))
            }
        };
        let prop = check_prop(name, value)
            .map_err(|e| CliError::Fatal(format!("{path}:{}: {}", n + 1, e.message())))?;
        o.props.push(prop);
    }
    Ok(())
}

/// Decodes a `-D`/`-K` delimiter: `\n`, `\r`, `\t` and `\xNN`; anything else as is.
///
/// # Errors
/// `\x` without a hex digit.
pub fn parse_delim(s: &str) -> Result<Vec<u8>, CliError> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'x' => {
                    let digits = b[i + 2..]
                        .iter()
                        .take(2)
                        .take_while(|c| c.is_ascii_hexdigit())
                        .count();
                    if digits == 0 {
                        return Err(CliError::Fatal(format!(
                            "Delimiter {} expects hex number",
                            &s[i..]
                        )));
                    }
                    let hex = std::str::from_utf8(&b[i + 2..i + 2 + digits]).unwrap_or("0");
                    out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
                    i += 2 + digits;
                    continue;
                }
                _ => {
                    out.push(b'\\');
                    i += 1;
                    continue;
                }
            }
            i += 2;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<String> {
        s.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn getopt_style_clusters_attached_values_and_operands() {
        let o = parse(&args(&[
            "-Pb", "h:1", "-tT", "file1", "-K:", "-H", "a=1", "-Hb", "--", "-x",
        ]))
        .unwrap();
        assert_eq!(o.mode, Some(Mode::Produce));
        assert_eq!(o.brokers.as_deref(), Some("h:1"));
        assert_eq!(o.topic.as_deref(), Some("T"));
        assert_eq!(o.key_delim.as_deref(), Some(":"));
        assert_eq!(
            o.headers,
            vec![
                ("a".to_string(), Some(b"1".to_vec())),
                ("b".to_string(), None)
            ]
        );
        assert_eq!(o.operands, args(&["file1", "-x"]));
    }

    #[test]
    fn offsets() {
        let start = |v: &str| parse(&args(&["-o", v])).unwrap().start;
        assert_eq!(start("beginning"), Some(Start::Offset(offset::BEGINNING)));
        assert_eq!(start("end"), Some(Start::Offset(offset::END)));
        assert_eq!(start("stored"), Some(Start::Stored));
        assert_eq!(start("42"), Some(Start::Offset(42)));
        assert_eq!(start("-3"), Some(Start::Offset(offset::tail(3))));
        assert_eq!(
            start("s@1700000000000"),
            Some(Start::Timestamp(1_700_000_000_000))
        );
        assert_eq!(parse(&args(&["-oe@5"])).unwrap().stop_ts, Some(5));
        assert!(matches!(
            parse(&args(&["-o", "soon"])),
            Err(CliError::Usage(_))
        ));
        for v in ["-9223372036854775808", "-9223372036854773809"] {
            match parse(&args(&["-o", v])) {
                Err(CliError::Usage(m)) => assert!(m.contains("out of range"), "{m}"),
                other => panic!("{v}: {other:?}"),
            }
        }
        assert_eq!(start("-9223372036854773808"), Some(Start::Offset(i64::MIN)));
    }

    #[test]
    fn immediate_exits_and_errors() {
        assert!(matches!(
            parse(&args(&["-h", "-Y"])),
            Err(CliError::Done(Done::Help))
        ));
        assert!(matches!(
            parse(&args(&["-X", "list"])),
            Err(CliError::Done(Done::ListProperties))
        ));
        match parse(&args(&["-X", "no.such.prop=1", "-b", "x"])) {
            Err(CliError::Fatal(m)) => assert!(m.contains("no.such.prop"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse(&args(&["-X", "acks"])),
            Err(CliError::Raw(_))
        ));
        assert!(matches!(parse(&args(&["-t"])), Err(CliError::Usage(_))));
        assert!(matches!(parse(&args(&["-Y"])), Err(CliError::Usage(_))));
        assert!(matches!(
            parse(&args(&["-z", "brotli"])),
            Err(CliError::Fatal(_))
        ));
        assert!(matches!(
            parse(&args(&["-H", "=v"])),
            Err(CliError::Fatal(_))
        ));
    }

    #[test]
    fn topic_prefix_and_counts() {
        let o = parse(&args(&["-X", "topic.acks=1", "-c", "0", "-p", "-1"])).unwrap();
        assert_eq!(o.props, vec![("acks".to_string(), "1".to_string())]);
        assert_eq!(o.count, None);
        assert_eq!(o.partition, None);
        let o = parse(&args(&["-Q", "-t", "a:b:c:2:-1"])).unwrap();
        assert_eq!(o.queries, vec![("a:b:c".to_string(), 2, -1)]);
    }

    #[test]
    fn brokers_from_b_bootstrap_servers_or_zookeeper() {
        let seen = |a: &[&str]| parse(&args(a)).unwrap().brokers_seen();
        assert!(!seen(&["-L"]));
        assert!(seen(&["-b", "h:1"]));
        assert!(seen(&["-X", "bootstrap.servers=h:1"]));
        assert!(seen(&["-X", "metadata.broker.list=h:1"]));
        if !cfg!(feature = "zookeeper") {
            return;
        }
        assert!(seen(&["-X", "zookeeper.connect=z:2181,y:2181/kafka"]));
        // an empty one reads no registry: the last value counts
        assert!(!seen(&["-X", "zookeeper.connect="]));
        assert!(!seen(&[
            "-X",
            "zookeeper.connect=z:2181",
            "-X",
            "zookeeper.connect= "
        ]));
        assert!(seen(&[
            "-X",
            "zookeeper.connect=",
            "-X",
            "zookeeper.connect=z:2181"
        ]));
        // from a -F file as from -X
        let path = std::env::temp_dir().join(format!("gregor-args-{}.conf", std::process::id()));
        std::fs::write(
            &path,
            "# a ZooKeeper-era cluster\nzookeeper.connect=z\\:2181\n",
        )
        .unwrap();
        let o = parse(&args(&["-L", "-F", path.to_str().unwrap()]));
        let _ = std::fs::remove_file(&path);
        let o = o.unwrap();
        assert!(o.brokers_seen());
        assert_eq!(
            o.props,
            vec![("zookeeper.connect".to_string(), "z:2181".to_string())]
        );
    }

    #[test]
    fn delimiters() {
        assert_eq!(parse_delim("").unwrap(), b"");
        assert_eq!(parse_delim("\\n").unwrap(), b"\n");
        assert_eq!(parse_delim("\\t\\n\\n").unwrap(), b"\t\n\n");
        assert_eq!(parse_delim("\\x54!\\x45\\x53T").unwrap(), b"T!EST");
        assert_eq!(parse_delim("\\x30").unwrap(), b"0");
        assert_eq!(parse_delim(";;\\").unwrap(), b";;\\");
        assert!(parse_delim("\\xg").is_err());
    }
}
