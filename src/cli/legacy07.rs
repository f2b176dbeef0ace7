//! `gregor legacy07`: the Kafka 0.7 client from the command line.
//!
//! ```text
//! gregor legacy07 produce -b HOST:PORT -t TOPIC [-p PARTITION] [options] [MESSAGE…]
//! gregor legacy07 produce -Z ZK_CONNECT -t TOPIC [-k KEY] [options] [MESSAGE…]
//! gregor legacy07 fetch   -b HOST:PORT -t TOPIC [-p PARTITION] [-o OFFSET] [-s MAX_SIZE]
//!                         [-c COUNT] [-f] [--offsets]
//! gregor legacy07 offsets -b HOST:PORT -t TOPIC [-p PARTITION] [-T TIME] [-n MAX_NUMBER]
//! gregor legacy07 brokers -Z ZK_CONNECT [-t TOPIC]
//! ```
//!
//! Exit status: 0 success, 1 a failure (the error on stderr), 2 bad usage.

use std::io::{BufRead, Write};
use std::time::Duration;

use gregor::error::Error;
use gregor::legacy07::client::{Client, Options};
use gregor::legacy07::producer::Producer07;
use gregor::legacy07::zk::Registry;
use gregor::legacy07::{EARLIEST_TIME, LATEST_TIME};
use gregor::legacy07::{MAGIC_0, MAGIC_1};
use gregor::message::Codec;

const USAGE: &str = "\
usage: gregor legacy07 COMMAND [OPTIONS]   (Kafka 0.7 brokers)

commands:
  produce   send messages (the arguments after the options, or else one per
            line of standard input) as one message set
  fetch     print messages, one per line, from an offset to the end
  offsets   print the offsets before a time, latest first (OFFSETS request)
  brokers   print the brokers (and a topic's partitions) registered in ZooKeeper

options:
  -b HOST:PORT      the broker
  -Z ZK_CONNECT     ZooKeeper (host:port[,host:port][/chroot]); produce picks
                    the partition from the 0.7 registry
  -t TOPIC          the topic
  -p PARTITION      the partition (default 0)
  -k KEY            produce -Z: the same key goes to the same partition
  -z CODEC          produce: none, gzip or snappy (default none)
  --magic 0|1       produce: message format (default 1; 0 for 0.6 brokers)
  -o OFFSET         fetch: a byte offset, beginning or end (default beginning)
  -s MAX_SIZE       fetch: bytes per FETCH request (default 307200)
  -c COUNT          fetch: stop after COUNT messages
  -f                fetch: keep polling at the end instead of exiting
  --offsets         fetch: print OFFSET NEXT_OFFSET before each message
  -T TIME           offsets: ms since the epoch, latest or earliest (default latest)
  -n MAX_NUMBER     offsets: at most this many (default 10)
  --timeout MS      socket and ZooKeeper timeout (default 30000)
";

#[derive(Default)]
struct Args {
    command: String,
    broker: Option<String>,
    zk: Option<String>,
    topic: Option<String>,
    partition: i32,
    key: Option<String>,
    codec: Option<Codec>,
    magic: Option<i8>,
    offset: Option<String>,
    max_size: i32,
    count: Option<usize>,
    follow: bool,
    print_offsets: bool,
    time: i64,
    max_number: i32,
    timeout: Duration,
    messages: Vec<String>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut a = Args {
        max_size: 300 * 1024,
        time: LATEST_TIME,
        max_number: 10,
        timeout: Duration::from_secs(30),
        ..Args::default()
    };
    let mut it = args.iter();
    a.command = it.next().ok_or("no command")?.clone();
    if !matches!(
        a.command.as_str(),
        "produce" | "fetch" | "offsets" | "brokers"
    ) {
        return Err(format!("unknown command {:?}", a.command));
    }
    let mut rest_are_messages = false;
    while let Some(arg) = it.next() {
        if rest_are_messages || !arg.starts_with('-') || arg == "-" {
            a.messages.push(arg.clone());
            continue;
        }
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        let num = |name: &str, v: String| -> Result<i64, String> {
            v.parse::<i64>()
                .map_err(|_| format!("{name}: {v:?} is not a number"))
        };
        match arg.as_str() {
            "--" => rest_are_messages = true,
            "-b" => a.broker = Some(value("-b")?),
            "-Z" => a.zk = Some(value("-Z")?),
            "-t" => a.topic = Some(value("-t")?),
            "-p" => {
                a.partition = i32::try_from(num("-p", value("-p")?)?)
                    .map_err(|_| "-p: out of range".to_string())?
            }
            "-k" => a.key = Some(value("-k")?),
            "-z" => {
                let v = value("-z")?;
                let c: Codec = v.parse().map_err(|e| format!("-z: {e}"))?;
                if !matches!(c, Codec::None | Codec::Gzip | Codec::Snappy) {
                    return Err(format!("-z: Kafka 0.7 has none, gzip and snappy, not {v}"));
                }
                a.codec = Some(c);
            }
            "--magic" => {
                a.magic = Some(match value("--magic")?.as_str() {
                    "0" => MAGIC_0,
                    "1" => MAGIC_1,
                    v => return Err(format!("--magic: 0 or 1, not {v:?}")),
                })
            }
            "-o" => a.offset = Some(value("-o")?),
            "-s" => {
                a.max_size = i32::try_from(num("-s", value("-s")?)?)
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or("-s: must be 1 to 2147483647")?
            }
            "-c" => {
                a.count = Some(
                    usize::try_from(num("-c", value("-c")?)?)
                        .map_err(|_| "-c: must not be negative".to_string())?,
                )
            }
            "-f" => a.follow = true,
            "--offsets" => a.print_offsets = true,
            "-T" => {
                a.time = match value("-T")?.as_str() {
                    "latest" => LATEST_TIME,
                    "earliest" => EARLIEST_TIME,
                    v => num("-T", v.to_string())?,
                }
            }
            "-n" => {
                a.max_number = i32::try_from(num("-n", value("-n")?)?)
                    .ok()
                    .filter(|n| *n >= 0)
                    .ok_or("-n: must be 0 to 2147483647")?
            }
            "--timeout" => {
                let ms = num("--timeout", value("--timeout")?)?;
                if ms <= 0 {
                    return Err("--timeout: must be above 0".into());
                }
                a.timeout = Duration::from_millis(ms as u64);
            }
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown option {other}")),
        }
    }
    Ok(a)
}

/// Runs `gregor legacy07 ARGS…` (`args` are those after "legacy07"),
/// writing results to `out` and errors to `err`; returns the exit status.
/// `produce` without message arguments reads lines from standard input.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            if !e.is_empty() {
                let _ = writeln!(err, "gregor legacy07: {e}");
            }
            let _ = err.write_all(USAGE.as_bytes());
            return if e.is_empty() { 0 } else { 2 };
        }
    };
    match execute(&a, out) {
        Ok(()) => 0,
        Err(Failure::Usage(e)) => {
            let _ = writeln!(err, "gregor legacy07: {e}");
            let _ = err.write_all(USAGE.as_bytes());
            2
        }
        Err(Failure::Error(e)) => {
            let _ = writeln!(err, "gregor legacy07: error: {e}");
            1
        }
    }
}

enum Failure {
    Usage(String),
    Error(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Error(e)
    }
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Self {
        Failure::Error(Error::local(
            gregor::error::local::FAIL,
            format!("output: {e}"),
        ))
    }
}

fn need<'a>(v: &'a Option<String>, flag: &str, command: &str) -> Result<&'a str, Failure> {
    v.as_deref()
        .ok_or_else(|| Failure::Usage(format!("{command} needs {flag}")))
}

fn options(a: &Args) -> Options {
    Options {
        socket_timeout: a.timeout,
        compression: a.codec.unwrap_or(Codec::None),
        magic: a.magic.unwrap_or(MAGIC_1),
        ..Options::default()
    }
}

fn execute(a: &Args, out: &mut dyn Write) -> Result<(), Failure> {
    let cmd = a.command.as_str();
    match cmd {
        "produce" => {
            let topic = need(&a.topic, "-t", cmd)?;
            let messages: Vec<Vec<u8>> = if a.messages.is_empty() {
                std::io::stdin()
                    .lock()
                    .lines()
                    .map(|l| l.map(String::into_bytes))
                    .collect::<Result<_, _>>()?
            } else {
                a.messages.iter().map(|m| m.clone().into_bytes()).collect()
            };
            let refs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
            if let Some(zk) = &a.zk {
                let p = Producer07::new(zk, a.timeout, options(a))?;
                let bp = p.send(topic, a.key.as_deref().map(str::as_bytes), &refs)?;
                writeln!(
                    out,
                    "sent {} message(s) to broker {} partition {}",
                    refs.len(),
                    bp.broker_id,
                    bp.partition
                )?;
            } else {
                let c = Client::connect(need(&a.broker, "-b or -Z", cmd)?, options(a))?;
                c.produce(topic, a.partition, &refs)?;
                // PRODUCE has no answer: an OFFSETS round trip shows the
                // broker took it (it drops the connection if it did not).
                let end = c.latest_offset(topic, a.partition)?;
                writeln!(
                    out,
                    "sent {} message(s) to partition {}; log end offset {end}",
                    refs.len(),
                    a.partition
                )?;
            }
            Ok(())
        }
        "fetch" => {
            let topic = need(&a.topic, "-t", cmd)?;
            let c = Client::connect(need(&a.broker, "-b", cmd)?, options(a))?;
            let mut offset = match a.offset.as_deref().unwrap_or("beginning") {
                "beginning" => c.earliest_offset(topic, a.partition)?,
                "end" => c.latest_offset(topic, a.partition)?,
                v => v.parse::<i64>().map_err(|_| {
                    Failure::Usage(format!("-o: {v:?} is not an offset, beginning or end"))
                })?,
            };
            let mut printed = 0usize;
            loop {
                let r = c.fetch(topic, a.partition, offset, a.max_size)?;
                for m in &r.messages {
                    if a.count.is_some_and(|n| printed >= n) {
                        return Ok(());
                    }
                    if a.print_offsets {
                        write!(out, "{} {} ", m.offset, m.next_offset)?;
                    }
                    out.write_all(&m.payload)?;
                    out.write_all(b"\n")?;
                    printed += 1;
                }
                if a.count.is_some_and(|n| printed >= n) {
                    return Ok(());
                }
                if r.next_offset == offset {
                    if !a.follow {
                        return Ok(());
                    }
                    out.flush()?;
                    std::thread::sleep(Duration::from_millis(200));
                }
                offset = r.next_offset;
            }
        }
        "offsets" => {
            let topic = need(&a.topic, "-t", cmd)?;
            let c = Client::connect(need(&a.broker, "-b", cmd)?, options(a))?;
            for o in c.offsets_before(topic, a.partition, a.time, a.max_number)? {
                writeln!(out, "{o}")?;
            }
            Ok(())
        }
        "brokers" => {
            let mut reg = Registry::connect(need(&a.zk, "-Z", cmd)?, a.timeout)?;
            for b in reg.brokers()? {
                writeln!(out, "broker {} {} (creator {})", b.id, b.addr(), b.creator)?;
            }
            if let Some(t) = &a.topic {
                let registered = reg.registered_partitions(t)?;
                for bp in reg.producer_partitions(t)? {
                    let note = if registered.contains(&bp) {
                        ""
                    } else {
                        " (not registered yet: partition 0 for a new topic)"
                    };
                    writeln!(
                        out,
                        "topic {t} broker {} partition {}{note}",
                        bp.broker_id, bp.partition
                    )?;
                }
            }
            Ok(())
        }
        _ => Err(Failure::Usage(format!("unknown command {cmd:?}"))),
    }
}
