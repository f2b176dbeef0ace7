//! The `gregor` command-line tool: kcat-compatible produce (`-P`), consume
//! (`-C`), metadata listing (`-L`) and offset query (`-Q`), so the same
//! command lines work with both tools.
//!
//! Option handling, messages on stderr (`% ...` lines, `% ERROR: ...` for
//! fatal errors, `Error: ...` plus the usage for bad usage) and exit codes
//! (0, or 1 on any error) follow kcat 1.7.1.

#[cfg(feature = "admin")]
pub mod admin;
pub mod args;
pub mod consume;
pub mod format;
#[cfg(feature = "legacy07")]
pub mod legacy07;
pub mod metadata;
#[cfg(feature = "mock")]
pub mod mock;
pub mod produce;
#[cfg(feature = "zookeeper")]
pub mod zk;

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicI32, Ordering};

use gregor::config::{Config, Role};

use args::{Mode, Options};

/// Why the tool stops early.
#[derive(Debug)]
pub enum CliError {
    /// Bad usage: "Error: ..." and the usage on stderr, exit 1.
    Usage(String),
    /// A fatal error: "% ERROR: ..." on stderr, exit 1.
    Fatal(String),
    /// A message printed on stderr as it is, exit 1.
    Raw(String),
    /// Writing the output failed.
    Io(std::io::Error),
    /// Nothing wrong: `-h`, `-V` or `-X list` did their job.
    Done(Done),
}

/// The options that print something and exit at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// `-h`.
    Help,
    /// `-V`.
    Version,
    /// `-X list`.
    ListProperties,
}

impl CliError {
    /// The text without its decoration.
    pub fn message(&self) -> String {
        match self {
            CliError::Usage(m) | CliError::Fatal(m) | CliError::Raw(m) => m.clone(),
            CliError::Io(e) => e.to_string(),
            CliError::Done(d) => format!("{d:?}"),
        }
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::Io(e)
    }
}

static VERBOSITY: AtomicI32 = AtomicI32::new(1);

/// kcat's `KC_INFO`: a `% ` line on stderr if the verbosity is at least `level`.
pub fn info(level: i32, msg: std::fmt::Arguments<'_>) {
    if VERBOSITY.load(Ordering::Relaxed) >= level {
        eprintln!("% {msg}");
    }
}

/// The configuration for a client of `role` (`None`: metadata only, any
/// property): `-X`/`-z`/`-F` properties in order, then `-b`.
///
/// A property the role does not read is dropped with librdkafka's warning,
/// so that kcat command lines and config files shared by producer and
/// consumer work unchanged.
///
/// # Errors
/// A bad property (already checked while parsing, so only `-b` here).
pub fn build_config(o: &Options, role: Option<Role>) -> Result<Config, CliError> {
    let fatal = |e: gregor::error::Error| CliError::Fatal(e.to_string());
    let mut cfg = Config::new();
    for (k, v) in &o.props {
        if let Some(role) = role {
            let mut probe = Config::new();
            probe.set(k, v).map_err(fatal)?;
            if Config::role(k).is_some_and(|r| r != Role::Any && r != role) {
                let (mine, other) = if role == Role::Producer {
                    ("producer", "consumer")
                } else {
                    ("consumer", "producer")
                };
                info(
                    1,
                    format_args!(
                        "Configuration property {k} is a {other} property \
                         and will be ignored by this {mine} instance"
                    ),
                );
                continue;
            }
        }
        cfg.set(k, v).map_err(fatal)?;
    }
    if let Some(b) = &o.brokers {
        cfg.set("bootstrap.servers", b).map_err(fatal)?;
    }
    Ok(cfg)
}

/// Runs the tool with `argv` (program name first); returns the exit code.
pub fn main(argv: Vec<std::ffi::OsString>) -> i32 {
    // subcommands beyond kcat's flags: `gregor zk ...`, `gregor legacy07 ...`, `gregor admin ...`
    if let Some(sub) = argv.get(1).and_then(|a| a.to_str()) {
        let rest: Vec<String> = argv[2..]
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let (stdout, stderr) = (std::io::stdout(), std::io::stderr());
        let (mut out, mut err) = (stdout.lock(), stderr.lock());
        let left_out = match sub {
            "legacy07" if !cfg!(feature = "legacy07") => Some("legacy07"),
            "admin" if !cfg!(feature = "admin") => Some("admin"),
            "zk" if !cfg!(feature = "zookeeper") => Some("zookeeper"),
            "mock" if !cfg!(feature = "mock") => Some("mock"),
            _ => None,
        };
        if let Some(feature) = left_out {
            drop(rest);
            let _ = out.flush();
            let _ = writeln!(
                err,
                "gregor {sub}: not available: this gregor was built without the `{feature}` feature"
            );
            return 2;
        }
        #[cfg(feature = "legacy07")]
        if sub == "legacy07" {
            return legacy07::run(&rest, &mut out, &mut err);
        }
        #[cfg(feature = "admin")]
        if sub == "admin" {
            return admin::run(&rest, &mut out, &mut err);
        }
        #[cfg(feature = "zookeeper")]
        if sub == "zk" {
            return zk::run(&rest, &mut out, &mut err);
        }
        #[cfg(feature = "mock")]
        if sub == "mock" {
            // It serves until interrupted: hold no stdio lock meanwhile
            // (GREGOR_MOCK_DEBUG writes from the brokers' threads).
            drop((out, err));
            return mock::run(&rest, &mut std::io::stdout(), &mut std::io::stderr());
        }
    }
    let prog = argv
        .first()
        .map_or("gregor".into(), |p| p.to_string_lossy().into_owned());
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = run(&argv, &mut out).and_then(|rc| {
        out.flush()?;
        Ok(rc)
    });
    let code = match result {
        Ok(rc) => rc,
        Err(CliError::Done(d)) => {
            let text = match d {
                Done::Help => usage(&prog),
                Done::Version => version(),
                Done::ListProperties => properties(),
            };
            let _ = out.write_all(text.as_bytes());
            0
        }
        Err(CliError::Usage(m)) => {
            let _ = out.flush();
            eprint!("Error: {m}\n\n{}", usage(&prog));
            1
        }
        Err(CliError::Fatal(m)) => {
            let _ = out.flush();
            eprintln!("% ERROR: {m}");
            1
        }
        Err(CliError::Raw(m)) => {
            let _ = out.flush();
            eprintln!("{m}");
            1
        }
        // A reader that went away (`gregor -C ... | head`) is no error.
        Err(CliError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => 0,
        Err(CliError::Io(e)) => {
            eprintln!("% ERROR: Output write error: {e}");
            1
        }
    };
    let _ = out.flush();
    code
}

fn run(argv: &[std::ffi::OsString], out: &mut dyn Write) -> Result<i32, CliError> {
    let mut args: Vec<String> = argv
        .iter()
        .skip(1)
        .map(|a| {
            a.clone()
                .into_string()
                .map_err(|a| CliError::Usage(format!("argument {a:?} is not UTF-8")))
        })
        .collect::<Result<_, _>>()?;
    // kcat drops a leading "kcat" argument (left over by Docker images' examples).
    if args.first().is_some_and(|a| a == "kcat" || a == "kafkacat") {
        args.remove(0);
    }
    let mut o = args::parse(&args)?;
    VERBOSITY.store(o.verbosity, Ordering::Relaxed);
    // -d: librdkafka's `debug` property, as kcat sets it
    if let Some(d) = o.debug.clone() {
        Config::new()
            .set("debug", &d)
            .map_err(|e| CliError::Fatal(e.to_string()))?;
        o.props.push(("debug".to_string(), d));
    }
    if o.dump {
        out.write_all(dump(&build_config(&o, None)?).as_bytes())?;
        return Ok(0);
    }
    if !o.brokers_seen() {
        // kcat's words, then the other way in: a ZooKeeper-era cluster's
        // brokers are in its registry (Kafka's zookeeper.connect)
        let or_zk = if cfg!(feature = "zookeeper") {
            " (or -X zookeeper.connect=<host:port,..[/chroot]>)"
        } else {
            ""
        };
        return Err(CliError::Usage(format!("-b <broker,..> missing{or_zk}")));
    }
    let mode = match o.mode {
        Some(m) => m,
        None => {
            let m = if std::io::stdin().is_terminal() {
                Mode::Consume
            } else {
                Mode::Produce
            };
            info(
                1,
                format_args!(
                    "Auto-selecting {} mode (use -P or -C to override)",
                    if m == Mode::Consume {
                        "Consumer"
                    } else {
                        "Producer"
                    }
                ),
            );
            o.mode = Some(m);
            m
        }
    };
    if matches!(mode, Mode::Produce | Mode::Consume) && o.topic.is_none() {
        return Err(CliError::Usage("-t <topic> missing".into()));
    }
    if mode == Mode::Query && o.queries.is_empty() {
        return Err(CliError::Usage(
            "-t <topic>:<partition>:<offset_or_timestamp> missing".into(),
        ));
    }
    if !o.operands.is_empty() && !matches!(mode, Mode::Produce | Mode::Group) {
        return Err(CliError::Usage(
            "file/topic list only allowed in producer(-P)/kafkaconsumer(-G) mode".into(),
        ));
    }
    match mode {
        Mode::Produce => produce::run(&o, &mut std::io::stdin().lock(), out),
        Mode::Consume => consume::run(&o, out),
        Mode::List => metadata::run(&o, out),
        Mode::Query => consume::query(&o, out),
        Mode::Group => consume::run_group(&o, out),
    }
}

fn version() -> String {
    format!(
        "gregor {} - kcat-compatible Apache Kafka producer and consumer tool\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// `-X list`: every property gregor knows, with its default.
fn properties() -> String {
    let mut s = format!("{:<40} | {:<20} | Description\n", "Property", "Default");
    s.push_str(&format!("{:-<40}-|-{:-<20}-|-{:-<40}\n", "", "", ""));
    for p in Config::properties() {
        let (name, default, doc) = (p.name, p.default, p.doc);
        s.push_str(&format!("{name:<40} | {default:<20} | {doc}\n"));
    }
    s
}

/// `-X dump`: every property's value.
fn dump(cfg: &Config) -> String {
    let mut s = String::from("# Global config\n");
    for (name, value) in cfg.dump() {
        s.push_str(&format!("{name} = {value}\n"));
    }
    s.push_str("\n# Topic config\n\n");
    s
}

fn usage(prog: &str) -> String {
    let (zk_option, zk_examples) = if cfg!(feature = "zookeeper") {
        (ZK_OPTION, ZK_EXAMPLES)
    } else {
        ("", "")
    };
    USAGE
        .replace("{zk_option}", zk_option)
        .replace("{zk_examples}", zk_examples)
        .replace("{prog}", prog)
        .replace("{version}", &version())
}

/// The usage's lines on `zookeeper.connect` in place of `-b` (a build
/// without the `zookeeper` feature leaves them out).
const ZK_OPTION: &str = r#"                     Or, for a ZooKeeper-era cluster, instead of -b:
                     -X zookeeper.connect=<host:port,..[/chroot]>
                     (the brokers registered in ZooKeeper)
"#;

const ZK_EXAMPLES: &str = r#"
ZooKeeper-era cluster (brokers from ZooKeeper's registry, no -b):
  {prog} -L -X zookeeper.connect=<host:port,..[/chroot]> [-t <topic>]
  ... | {prog} -P -X zookeeper.connect=... -t <topic>
  {prog} -C -X zookeeper.connect=... -t <topic>
  {prog} -G <group-id> -X zookeeper.connect=... <topic>..
"#;

const USAGE: &str = r#"Usage: {prog} <options> [file1 file2 .. | topic1 topic2 ..]]
{version}
General options:
  -C | -P | -L | -Q  Mode: Consume, Produce, Metadata List, Query mode
  -G <group-id>      Mode: balanced consumer group (KafkaConsumer);
                     the topics (or ^regexes) to subscribe to follow
  -t <topic>         Topic to consume from, produce to, or list
  -p <partition>     Partition
  -b <brokers,..>    Bootstrap broker(s) (host[:port])
{zk_option}  -D <delim>         Message delimiter string:
                     a-z | \r | \n | \t | \xNN ..
                     Default: \n
  -K <delim>         Key delimiter (same format as -D)
  -c <cnt>           Limit message count
  -m <seconds>       Metadata (et.al.) request timeout. Default: 5 seconds.
  -F <config-file>   Read configuration properties from file,
                     file format is "property=value".
  -X list            List available configuration properties
  -X prop=val        Set configuration property (an unknown one is an error).
                     A "topic." prefix is dropped.
  -X dump            Dump configuration and exit.
  -q                 Be quiet (verbosity set to 0)
  -v                 Increase verbosity
  -E                 Do not exit when all brokers are down
  -V                 Print version
  -h                 Print usage help

Producer options:
  -z snappy|gzip|lz4|zstd Message compression. Default: none
  -p -1              Use the partitioner
  -D <delim>         Delimiter to split input into messages
  -K <delim>         Delimiter to split input key and message
  -k <str>           Use a fixed key for all messages.
                     If combined with -K, per-message keys
                     takes precedence.
  -H <header=value>  Add Message Headers (may be specified multiple times)
  -l                 Send messages from a file separated by
                     delimiter, as with stdin.
                     (only one file allowed)
  -T                 Output sent messages to stdout, acting like tee.
  -c <cnt>           Exit after producing this number of messages
  -Z                 Send empty messages as NULL messages
  file1 file2..      Read messages from files.
                     With -l, only one file permitted.
                     Otherwise, the entire file contents will
                     be sent as one single message.

Consumer options:
  -o <offset>        Offset to start consuming from:
                     beginning | end | stored |
                     <value>  (absolute offset) |
                     -<value> (relative offset from end)
                     s@<value> (timestamp in ms to start at)
                     e@<value> (timestamp in ms to stop at (not included))
  -e                 Exit successfully when last message received
  -f <fmt..>         Output formatting string, see below.
                     Takes precedence over -D and -K.
  -J                 Output with JSON envelope
  -D <delim>         Delimiter to separate messages on output
  -K <delim>         Print message keys prefixing the message
                     with specified delimiter.
  -c <cnt>           Exit after consuming this number of messages
  -Z                 Print NULL values and keys as "NULL" instead of empty.
                     For JSON (-J) the nullstr is always null.
  -u                 Unbuffered output

Metadata options (-L):
  -t <topic>         Topic to query (optional)
  -J                 Output as JSON

Query options (-Q):
  -t <t>:<p>:<ts>    Get offset for topic <t>,
                     partition <p>, timestamp <ts>.
                     Timestamp is the number of milliseconds
                     since epoch UTC.
                     Multiple -t .. are allowed but a partition
                     must only occur once.

Format string tokens:
  %s                 Message payload
  %S                 Message payload length (or -1 for NULL)
  %R                 Message payload length (or -1 for NULL) serialized
                     as a binary big endian 32-bit signed integer
  %k                 Message key
  %K                 Message key length (or -1 for NULL)
  %T                 Message timestamp (milliseconds since epoch UTC)
  %h                 Message headers (n=v CSV)
  %t                 Topic
  %p                 Partition
  %o                 Message offset
  %%                 A percent sign
  \n \r \t           Newlines, tab
  \xXX \NNN          Any byte (hex; decimal, 0octal, 0xhex)
 Example:
  -f 'Topic %t [%p] at offset %o: key %k: %s\n'

JSON message envelope (on one line) when consuming with -J:
 { "topic": str, "partition": int, "offset": int,
   "tstype": "create|logappend|unknown", "ts": int, // timestamp in milliseconds since epoch
   "broker": int,
   "headers": [ "<name>", str|null, .. ], // optional
   "key": str|null, "payload": str|null }

Consumer mode (writes messages to stdout):
  {prog} -b <broker> -t <topic> -p <partition>
 or:
  {prog} -C -b ...

Producer mode (reads messages from stdin):
  ... | {prog} -b <broker> -t <topic> -p <partition>
 or:
  {prog} -P -b ...

Metadata listing:
  {prog} -L -b <broker> [-t <topic>]

Query offset by timestamp:
  {prog} -Q -b broker -t <topic>:<partition>:<timestamp>
{zk_examples}
"#;
