//! The `gregor` command-line tool against the real broker
//! (`$GREGOR_TEST_BROKER`, default 127.0.0.1:9092) and against kcat
//! (librdkafka 2.12.1): what one tool writes the other reads byte for byte,
//! and the same command lines give the same output; and with no `-b`, only
//! `-X zookeeper.connect`, against the real ZooKeeper
//! (`$GREGOR_TEST_ZOOKEEPER`, default 127.0.0.1:2181). Without the broker
//! (or ZooKeeper) a test is skipped, and fails under `CI=true`
//! (tests/common); a missing kcat fails it.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GREGOR: &str = env!("CARGO_BIN_EXE_gregor");
/// Longest a single command may run before the test fails.
const LIMIT: Duration = Duration::from_secs(60);

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

impl Run {
    fn out(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    #[track_caller]
    fn ok(self) -> Self {
        assert_eq!(self.code, 0, "exit code; stderr:\n{}", self.stderr);
        self
    }
}

/// Runs `prog args`, feeding `stdin`; fails the test if it runs over `LIMIT`.
fn run(prog: &str, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = Command::new(prog)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {prog}: {e}"));
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut b).unwrap();
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut b).unwrap();
        b
    });
    let deadline = Instant::now() + LIMIT;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{prog} {args:?} ran longer than {LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    writer.join().unwrap();
    Run {
        code: status.code().unwrap_or(-1),
        stdout: reader.join().unwrap(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap()).into_owned(),
    }
}

/// `gregor -b <broker> args`.
fn gregor(args: &[&str], stdin: &[u8]) -> Run {
    let b = common::broker();
    let mut all = vec!["-b", b.as_str()];
    all.extend_from_slice(args);
    run(GREGOR, &all, stdin)
}

fn kcat_path() -> PathBuf {
    if let Some(k) = std::env::var_os("KCAT") {
        return PathBuf::from(k);
    }
    let deps = std::env::var_os("GREGOR_DEPS").map_or_else(
        || {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".local/share/gregor-deps")
        },
        PathBuf::from,
    );
    deps.join("librdkafka/bin/kcat")
}

/// `kcat -b <broker> args`.
fn kcat(args: &[&str], stdin: &[u8]) -> Run {
    let k = kcat_path();
    assert!(
        k.is_file(),
        "kcat not found at {} (or $KCAT): run scripts/setup.sh librdkafka",
        k.display()
    );
    let b = common::broker();
    let mut all = vec!["-b", b.as_str()];
    all.extend_from_slice(args);
    run(k.to_str().unwrap(), &all, stdin)
}

fn kcat_has(feature: &str) -> bool {
    let v = run(kcat_path().to_str().unwrap(), &["-V"], b"");
    v.out().contains(feature) || v.stderr.contains(feature)
}

fn topic(prefix: &str, partitions: i32) -> String {
    let t = common::unique_topic(prefix);
    common::create_topic(&t, partitions);
    t
}

/// Records with keys, an empty key, no key, a value holding the key
/// delimiter, tabs, non-UTF-8 bytes: the lines of a `-K:` input.
const RECORDS: &[u8] = b"k1:v1\nk2:v:with:colons\n:emptykey\nnokey\nk\tt:\xff\xfe bin\x01\n";
/// What `-f '%k|%K|%s|%S|%h\n'` shows of them, with the headers
/// `-H a=1 -H nul -H e= -H u=\u{fc}`.
const SHOWN: &[u8] = b"k1|2|v1|2|a=1,nul=NULL,e=,u=\xc3\xbc\n\
k2|2|v:with:colons|13|a=1,nul=NULL,e=,u=\xc3\xbc\n\
|0|emptykey|8|a=1,nul=NULL,e=,u=\xc3\xbc\n\
|-1|nokey|5|a=1,nul=NULL,e=,u=\xc3\xbc\n\
k\tt|3|\xff\xfe bin\x01|7|a=1,nul=NULL,e=,u=\xc3\xbc\n";
const HEADERS: &[&str] = &["-H", "a=1", "-H", "nul", "-H", "e=", "-H", "u=\u{fc}"];
const FMT: &str = "%k|%K|%s|%S|%h\\n";

fn with(base: &[&'static str], extra: &[&'static str]) -> Vec<&'static str> {
    base.iter().chain(extra).copied().collect()
}

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

#[test]
fn gregor_writes_kcat_reads_byte_for_byte() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-g2k", 1));
    gregor(&with(&["-P", "-t", t, "-K", ":"], HEADERS), RECORDS).ok();
    let k = kcat(&["-C", "-t", t, "-e", "-q", "-f", FMT], b"").ok();
    assert_eq!(k.stdout, SHOWN, "kcat read:\n{}", k.out());
}

#[test]
fn kcat_writes_gregor_reads_byte_for_byte() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-k2g", 1));
    kcat(&with(&["-P", "-t", t, "-K", ":"], HEADERS), RECORDS).ok();
    let g = gregor(&["-C", "-t", t, "-e", "-q", "-f", FMT], b"").ok();
    assert_eq!(g.stdout, SHOWN, "gregor read:\n{}", g.out());
    // The default layouts agree with kcat's too.
    for args in [
        &["-C", "-t", t, "-e", "-q"][..],
        &["-C", "-t", t, "-e", "-q", "-K", "\\t"],
        &["-C", "-t", t, "-e", "-q", "-K", "=", "-D", "\\x1e"],
        &["-C", "-t", t, "-e", "-q", "-Z", "-K", "="],
    ] {
        let g = gregor(args, b"").ok();
        let k = kcat(args, b"").ok();
        assert_eq!(
            g.stdout,
            k.stdout,
            "{args:?}\ngregor:\n{}\nkcat:\n{}",
            g.out(),
            k.out()
        );
    }
}

/// Five messages in partition 0, three then two a little later, one
/// produce request each (so every broker's offsets are exact).
fn five_messages(t: &'static str) -> Vec<(i64, i64)> {
    gregor(&["-P", "-t", t, "-p", "0"], b"m0\nm1\nm2\n").ok();
    std::thread::sleep(Duration::from_millis(30));
    gregor(&["-P", "-t", t, "-p", "0"], b"m3\nm4\n").ok();
    let r = gregor(&["-C", "-t", t, "-e", "-q", "-f", "%o %T\\n"], b"").ok();
    r.out()
        .lines()
        .map(|l| {
            let (o, ts) = l.split_once(' ').unwrap();
            (o.parse().unwrap(), ts.parse().unwrap())
        })
        .collect()
}

#[test]
fn start_offsets_match_kcat() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-offsets", 1));
    let msgs = five_messages(t);
    assert_eq!(
        msgs.iter().map(|m| m.0).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4]
    );
    assert!(msgs[3].1 > msgs[2].1, "timestamps {msgs:?}");
    let s_at = leak(format!("s@{}", msgs[3].1));
    let e_at = leak(format!("e@{}", msgs[3].1));
    let cases: &[(&str, &str)] = &[
        ("beginning", "m0 m1 m2 m3 m4"),
        ("end", ""),
        ("0", "m0 m1 m2 m3 m4"),
        ("2", "m2 m3 m4"),
        ("-2", "m3 m4"),
        ("-9", "m0 m1 m2 m3 m4"),
        (s_at, "m3 m4"),
        (e_at, "m0 m1 m2"),
    ];
    for (o, want) in cases {
        let args = ["-C", "-t", t, "-o", o, "-e", "-q", "-f", "%s "];
        let g = gregor(&args, b"").ok();
        assert_eq!(g.out().trim_end(), *want, "-o {o}");
        let k = kcat(&args, b"").ok();
        assert_eq!(g.stdout, k.stdout, "-o {o}: gregor and kcat differ");
    }
}

/// Sorted output lines.
fn sorted_lines(r: &Run) -> Vec<String> {
    let mut v: Vec<String> = r.out().lines().map(str::to_string).collect();
    v.sort();
    v
}

#[test]
fn balanced_consumer_group_mode_matches_kcat() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-group", 3));
    for p in 0..3 {
        let input = format!("p{p}a\np{p}b\n");
        kcat(
            &["-P", "-t", t, "-p", leak(p.to_string())],
            input.as_bytes(),
        )
        .ok();
    }
    let g_group = leak(common::unique_topic("cli-g-gregor"));
    let k_group = leak(common::unique_topic("cli-g-kcat"));
    let fmt = "%t %p %o %s\\n";
    let g = gregor(&["-G", g_group, "-o", "beginning", "-e", "-f", fmt, t], b"").ok();
    let k = kcat(&["-G", k_group, "-o", "beginning", "-e", "-f", fmt, t], b"").ok();
    assert_eq!(sorted_lines(&g).len(), 6, "{}", g.stderr);
    assert_eq!(sorted_lines(&g), sorted_lines(&k));
    // both report the rebalance on stderr the same way
    for r in [&g, &k] {
        assert!(
            r.stderr.contains("Waiting for group rebalance"),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("rebalanced (memberid "), "{}", r.stderr);
        assert!(r
            .stderr
            .contains(&format!("assigned: {t} [0], {t} [1], {t} [2]")));
    }
    // gregor committed on close: kcat in gregor's group starts after it,
    // and so does gregor, as kcat does with its own group
    kcat(&["-P", "-t", t, "-p", "1"], b"late\n").ok();
    let g2 = gregor(&["-G", k_group, "-e", "-f", fmt, t], b"").ok();
    let k2 = kcat(&["-G", g_group, "-e", "-f", fmt, t], b"").ok();
    assert_eq!(g2.out(), format!("{t} 1 2 late\n"));
    assert_eq!(k2.out(), g2.out());
    // -C -o stored reads the committed offsets of -X group.id, as kcat
    let args = [
        "-C",
        "-t",
        t,
        "-X",
        leak(format!("group.id={g_group}")),
        "-o",
        "stored",
        "-e",
        "-f",
        fmt,
    ];
    let c = gregor(&args, b"").ok();
    let kc = kcat(&args, b"").ok();
    assert_eq!(sorted_lines(&c), sorted_lines(&kc));
    // a regex subscription
    let pattern = leak(format!("^{}", t.replace('-', "[-]")));
    let r = gregor(
        &[
            "-G",
            leak(common::unique_topic("cli-g-re")),
            "-o",
            "beginning",
            "-e",
            "-f",
            fmt,
            pattern,
        ],
        b"",
    )
    .ok();
    assert_eq!(sorted_lines(&r).len(), 7, "{}", r.stderr);
}

#[test]
fn count_and_exit_at_end() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-count", 3));
    // -e on empty partitions: nothing, exit 0, one end notice per partition.
    let r = gregor(&["-C", "-t", t, "-e"], b"").ok();
    assert!(r.stdout.is_empty());
    assert_eq!(
        r.stderr.matches("Reached end of topic").count(),
        3,
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains(": exiting"), "{}", r.stderr);
    let r = gregor(&["-C", "-t", t, "-e", "-q"], b"").ok();
    assert!(r.stderr.is_empty(), "-q: {}", r.stderr);

    gregor(&["-P", "-t", t, "-p", "1"], b"a\nb\nc\nd\n").ok();
    // -c ends the run without -e.
    let r = gregor(&["-C", "-t", t, "-c", "2", "-q"], b"").ok();
    assert_eq!(r.out(), "a\nb\n");
    // -c beyond what there is: -e still ends it.
    let r = gregor(&["-C", "-t", t, "-c", "10", "-e", "-q"], b"").ok();
    assert_eq!(r.out(), "a\nb\nc\nd\n");
    // producer -c stops reading input
    gregor(&["-P", "-t", t, "-p", "2", "-c", "2"], b"x\ny\nz\n").ok();
    let r = gregor(&["-C", "-t", t, "-p", "2", "-e", "-q"], b"").ok();
    assert_eq!(r.out(), "x\ny\n");
}

#[test]
fn format_tokens_match_kcat() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-fmt", 2));
    kcat(
        &[
            "-P", "-t", t, "-p", "1", "-K", "=", "-H", "h1=v1", "-H", "h2",
        ],
        b"key=value\n=novalue\nnokey\n",
    )
    .ok();
    let fmt = "%t|%p|%o|%k|%K|%s|%S|%h|%T|%%|\\t|\\x41\\n";
    let g = gregor(&["-C", "-t", t, "-e", "-q", "-f", fmt], b"").ok();
    let k = kcat(&["-C", "-t", t, "-e", "-q", "-f", fmt], b"").ok();
    assert_eq!(
        g.stdout,
        k.stdout,
        "gregor:\n{}\nkcat:\n{}",
        g.out(),
        k.out()
    );
    let lines: Vec<String> = g.out().lines().map(String::from).collect();
    assert_eq!(lines.len(), 3);
    let pre = format!("{t}|1|");
    let ts = |l: &str| l.split('|').nth(8).unwrap().parse::<i64>().unwrap();
    for (l, want) in lines.iter().zip([
        "0|key|3|value|5|h1=v1,h2=NULL|",
        "1||0|novalue|7|h1=v1,h2=NULL|",
        "2||-1|nokey|5|h1=v1,h2=NULL|",
    ]) {
        assert!(l.starts_with(&format!("{pre}{want}")), "{l}");
        assert!(ts(l) > 1_600_000_000_000, "{l}");
        assert!(l.ends_with("|%|\t|A"), "{l}");
    }
    // %R: the value length as a big-endian i32
    let r = gregor(&["-C", "-t", t, "-e", "-q", "-f", "%R"], b"").ok();
    assert_eq!(r.stdout, [0, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0, 5]);
}

#[test]
fn compression_codecs() {
    if !common::broker_up() {
        return;
    }
    let kcat_zstd = kcat_has("zstd");
    for codec in ["none", "gzip", "snappy", "lz4", "zstd"] {
        let t = leak(topic(&format!("cli-z-{codec}"), 1));
        let big = "x".repeat(5000);
        let input = format!("k1:{big}\nk2:small\n");
        gregor(&["-P", "-t", t, "-z", codec, "-K", ":"], input.as_bytes()).ok();
        let want = format!("k1={big}\nk2=small\n");
        let g = gregor(&["-C", "-t", t, "-e", "-q", "-K", "="], b"").ok();
        assert_eq!(g.out(), want, "-z {codec}");
        if codec != "zstd" || kcat_zstd {
            let k = kcat(&["-C", "-t", t, "-e", "-q", "-K", "="], b"").ok();
            assert_eq!(k.out(), want, "kcat reading -z {codec}");
        }
    }
    let r = gregor(&["-P", "-t", "x", "-z", "brotli"], b"");
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("compression.codec"), "{}", r.stderr);
}

#[test]
fn partitions() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-part", 3));
    gregor(&["-P", "-t", t, "-p", "1"], b"one\n").ok();
    kcat(&["-P", "-t", t, "-p", "2"], b"two\n").ok();
    let r = gregor(&["-C", "-t", t, "-p", "1", "-e", "-q"], b"").ok();
    assert_eq!(r.out(), "one\n");
    let r = gregor(&["-C", "-t", t, "-p", "2", "-e", "-q"], b"").ok();
    assert_eq!(r.out(), "two\n");
    let r = gregor(&["-C", "-t", t, "-p", "0", "-e", "-q"], b"").ok();
    assert_eq!(r.out(), "");
    let k = kcat(&["-C", "-t", t, "-p", "1", "-e", "-q"], b"").ok();
    assert_eq!(k.out(), "one\n");
    // all partitions by default
    let r = gregor(&["-C", "-t", t, "-e", "-q", "-f", "%p:%s\\n"], b"").ok();
    let mut lines: Vec<&str> = r.out().leak().lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["1:one", "2:two"]);
    // keyless messages without -p are spread by the partitioner
    gregor(&["-P", "-t", t], b"a\nb\nc\nd\ne\nf\n").ok();
    let r = gregor(&["-C", "-t", t, "-e", "-q"], b"").ok();
    assert_eq!(r.out().lines().count(), 8);
    // a partition the topic lacks
    let r = gregor(&["-C", "-t", t, "-p", "7", "-e"], b"");
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("partition 7 does not exist"),
        "{}",
        r.stderr
    );
    let r = gregor(&["-P", "-t", t, "-p", "7"], b"lost\n");
    assert_ne!(r.code, 0, "{}", r.stderr);
}

#[test]
fn files_as_messages_and_line_mode() {
    if !common::broker_up() {
        return;
    }
    let dir = std::env::temp_dir().join(common::unique_topic("gregor-cli"));
    std::fs::create_dir_all(&dir).unwrap();
    let f1 = dir.join("one.txt");
    let f2 = dir.join("two.bin");
    std::fs::write(&f1, b"line a\nline b\n").unwrap();
    std::fs::write(&f2, b"\x00\x01 binary\n").unwrap();
    let (p1, p2) = (
        leak(f1.display().to_string()),
        leak(f2.display().to_string()),
    );

    // Without -l each file is one message, as kcat does it.
    let t = leak(topic("cli-files", 1));
    gregor(&["-P", "-t", t, "-k", "fk", p1, p2], b"").ok();
    let fmt = ["-C", "-t", t, "-e", "-q", "-f", "%k|%s|%S\\n"];
    let g = gregor(&fmt, b"").ok();
    assert_eq!(
        g.stdout,
        b"fk|line a\nline b\n|14\nfk|\x00\x01 binary\n|10\n"
    );
    let t2 = leak(topic("cli-files-kcat", 1));
    kcat(&["-P", "-t", t2, "-k", "fk", p1, p2], b"").ok();
    let k = kcat(&["-C", "-t", t2, "-e", "-q", "-f", "%k|%s|%S\\n"], b"").ok();
    assert_eq!(g.stdout, k.stdout);

    // With -l the one file is read like stdin.
    let t3 = leak(topic("cli-lines", 1));
    gregor(&["-P", "-t", t3, "-l", p1], b"not stdin\n").ok();
    let g = gregor(&["-C", "-t", t3, "-e", "-q"], b"").ok();
    assert_eq!(g.out(), "line a\nline b\n");
    let r = gregor(&["-P", "-t", t3, "-l", p1, p2], b"");
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("Only one file"), "{}", r.stderr);
    // a custom delimiter, and empty records skipped as kcat does
    let t4 = leak(topic("cli-delim", 1));
    gregor(&["-P", "-t", t4, "-D", "||"], b"a||b|c||||d").ok();
    let g = gregor(&["-C", "-t", t4, "-e", "-q", "-D", ";"], b"").ok();
    assert_eq!(g.out(), "a;b|c;d;");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `-d CONTEXTS` sets librdkafka's `debug` property, as kcat: the lines go
/// to stderr in librdkafka's format; a wrong context is an error naming it;
/// without `-d` nothing is logged.
#[test]
fn debug_flag_logs_to_stderr_in_librdkafka_format() {
    if !common::broker_up() {
        return;
    }
    let r = gregor(&["-L", "-d", "broker"], b"").ok();
    let connected = r
        .stderr
        .lines()
        .find(|l| l.contains("|CONNECTED|gregor#producer-"))
        .unwrap_or_else(|| panic!("no CONNECTED line:\n{}", r.stderr));
    assert!(connected.starts_with("%7|"), "{connected}");
    assert!(connected.contains("| [thrd:"), "{connected}");
    assert_eq!(gregor(&["-L"], b"").ok().stderr, "");
    let bad = gregor(&["-L", "-d", "brokr"], b"");
    assert_ne!(bad.code, 0);
    assert!(bad.stderr.contains("\"brokr\""), "{}", bad.stderr);
}

#[test]
fn metadata_listing_matches_kcat() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-meta", 3));
    let g = gregor(&["-L", "-t", t], b"").ok();
    let out = g.out();
    assert!(
        out.contains(&format!("  topic \"{t}\" with 3 partitions:\n")),
        "{out}"
    );
    for p in 0..3 {
        assert!(
            out.contains(&format!("    partition {p}, leader ")),
            "{out}"
        );
    }
    // The topic's block reads the same in kcat's listing.
    let k = kcat(&["-L", "-t", t], b"").ok();
    let block = |s: &str| -> Vec<String> {
        s.lines()
            .skip_while(|l| !l.starts_with(&format!("  topic \"{t}\"")))
            .map(String::from)
            .collect()
    };
    assert_eq!(block(&out), block(&k.out()));
    assert!(k.out().lines().nth(1) == out.lines().nth(1), "broker count");

    // All topics.
    let all = gregor(&["-L"], b"").ok().out();
    assert!(
        all.starts_with("Metadata for all topics (from broker "),
        "{all}"
    );
    assert!(all.contains(&format!("  topic \"{t}\" with 3 partitions:")));

    // JSON, parsed.
    let j = gregor(&["-L", "-J", "-t", t], b"").ok();
    let v = json::parse(&j.out()).unwrap_or_else(|e| panic!("{e}: {}", j.out()));
    assert_eq!(
        v.get("query")
            .and_then(|q| q.get("topic"))
            .and_then(json::Value::str),
        Some(t)
    );
    let brokers = v.get("brokers").and_then(json::Value::arr).unwrap();
    assert!(!brokers.is_empty());
    let topics = v.get("topics").and_then(json::Value::arr).unwrap();
    assert_eq!(topics.len(), 1);
    assert_eq!(topics[0].get("topic").and_then(json::Value::str), Some(t));
    let parts = topics[0]
        .get("partitions")
        .and_then(json::Value::arr)
        .unwrap();
    let ids: Vec<f64> = parts
        .iter()
        .map(|p| p.get("partition").and_then(json::Value::num).unwrap())
        .collect();
    assert_eq!(ids, [0.0, 1.0, 2.0]);
    for p in parts {
        let leader = p.get("leader").and_then(json::Value::num).unwrap();
        assert!(brokers
            .iter()
            .any(|b| b.get("id").and_then(json::Value::num) == Some(leader)));
        assert!(!p
            .get("replicas")
            .and_then(json::Value::arr)
            .unwrap()
            .is_empty());
    }
    let all = gregor(&["-L", "-J"], b"").ok();
    let v = json::parse(&all.out()).unwrap();
    assert_eq!(
        v.get("query")
            .and_then(|q| q.get("topic"))
            .and_then(json::Value::str),
        Some("*")
    );
    assert!(v
        .get("topics")
        .and_then(json::Value::arr)
        .unwrap()
        .iter()
        .any(|x| x.get("topic").and_then(json::Value::str) == Some(t)));
}

#[test]
fn json_envelope_and_query_mode() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-json", 2));
    kcat(
        &["-P", "-t", t, "-p", "0", "-K", ":", "-H", "h=\"q\""],
        b"k:v\"\\\n",
    )
    .ok();
    let g = gregor(&["-C", "-t", t, "-e", "-q", "-J"], b"").ok();
    let v = json::parse(g.out().trim_end()).unwrap_or_else(|e| panic!("{e}: {}", g.out()));
    assert_eq!(v.get("topic").and_then(json::Value::str), Some(t));
    assert_eq!(v.get("partition").and_then(json::Value::num), Some(0.0));
    assert_eq!(v.get("offset").and_then(json::Value::num), Some(0.0));
    assert_eq!(v.get("tstype").and_then(json::Value::str), Some("create"));
    assert_eq!(v.get("key").and_then(json::Value::str), Some("k"));
    assert_eq!(v.get("payload").and_then(json::Value::str), Some("v\"\\"));
    let h = v.get("headers").and_then(json::Value::arr).unwrap();
    assert_eq!(
        h.iter().map(|x| x.str().unwrap()).collect::<Vec<_>>(),
        ["h", "\"q\""]
    );

    // -Q: offsets by timestamp, as kcat prints them.
    let q0 = leak(format!("{t}:0:0"));
    let q1 = leak(format!("{t}:1:-1"));
    let g = gregor(&["-Q", "-t", q1, "-t", q0], b"").ok();
    assert_eq!(g.out(), format!("{t} [0] offset 0\n{t} [1] offset 0\n"));
    let k = kcat(&["-Q", "-t", q1, "-t", q0], b"").ok();
    assert_eq!(g.stdout, k.stdout);
}

#[test]
fn bad_usage_fails_with_a_reason() {
    if !common::broker_up() {
        return;
    }
    let t = leak(topic("cli-usage", 1));
    let fails = |args: &[&str], stdin: &[u8], says: &str| {
        let r = gregor(args, stdin);
        assert_ne!(r.code, 0, "{args:?} succeeded");
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.out());
    };
    fails(
        &["-P", "-t", t, "-X", "no.such.property=1"],
        b"x\n",
        "no.such.property",
    );
    fails(
        &["-C", "-t", t, "-X", "fetch.wait.max.ms=soon"],
        b"",
        "fetch.wait.max.ms",
    );
    fails(
        &["-C", "-t", t, "-X", "acks"],
        b"",
        "Expected -X property=value",
    );
    fails(&["-P"], b"x\n", "-t <topic> missing");
    fails(&["-C"], b"", "-t <topic> missing");
    // No mode: like kcat, gregor picks producer for a non-terminal stdin,
    // which still needs a topic.
    fails(&[], b"x\n", "-t <topic> missing");
    let r = run(GREGOR, &["-C", "-t", t], b"");
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("-b <broker,..> missing"), "{}", r.stderr);
    fails(&["-G", "group"], b"", "-G requires one or more topics");
    // the committed offset needs a group
    fails(&["-C", "-t", t, "-o", "stored"], b"", "needs group.id");
    fails(&["-C", "-t", t, "-o", "yesterday"], b"", "-o expects");
    fails(&["-C", "-t", t, "-Y"], b"", "unknown argument");
    fails(
        &["-C", "-t", t, "-f", "%x"],
        b"",
        "Unsupported formatter: %x",
    );
    fails(&["-L", t], b"", "file/topic list only allowed");
    fails(
        &["-C", "-t", leak(common::unique_topic("cli-none")), "-e"],
        b"",
        "UNKNOWN_TOPIC_OR_PARTITION",
    );
    fails(&["-P", "-t", t, "-D", ""], b"x", "must not be empty");
    // With no mode and no topic the help is printed on stderr, as kcat does.
    let r = gregor(&["-P"], b"");
    assert!(r.stderr.contains("Usage: "), "{}", r.stderr);
    // Help, version and the property list are no errors.
    let r = run(GREGOR, &["-h"], b"").ok();
    assert!(r.out().contains("Usage: "));
    let r = run(GREGOR, &["-X", "list"], b"").ok();
    assert!(r.out().contains("bootstrap.servers"));
    assert!(r.out().contains("compression.type"));
    // A property for the other kind of client is ignored with a warning, as
    // librdkafka does, so shared kcat command lines keep working.
    let r = gregor(&["-C", "-t", t, "-e", "-X", "acks=1"], b"").ok();
    assert!(
        r.stderr.contains("acks is a producer property"),
        "{}",
        r.stderr
    );
}

/// A small JSON reader, enough to check the tool's JSON is well formed.
mod json {
    #[derive(Debug, Clone, PartialEq)]
    pub enum Value {
        Null,
        Bool(bool),
        Num(f64),
        Str(String),
        Arr(Vec<Value>),
        Obj(Vec<(String, Value)>),
    }

    impl Value {
        pub fn get(&self, k: &str) -> Option<&Value> {
            match self {
                Value::Obj(m) => m.iter().find(|(n, _)| n == k).map(|(_, v)| v),
                _ => None,
            }
        }
        pub fn str(&self) -> Option<&str> {
            match self {
                Value::Str(s) => Some(s),
                _ => None,
            }
        }
        pub fn num(&self) -> Option<f64> {
            match self {
                Value::Num(n) => Some(*n),
                _ => None,
            }
        }
        pub fn arr(&self) -> Option<&[Value]> {
            match self {
                Value::Arr(a) => Some(a),
                _ => None,
            }
        }
    }

    pub fn parse(s: &str) -> Result<Value, String> {
        let mut p = P {
            s: s.as_bytes(),
            i: 0,
        };
        let v = p.value()?;
        p.ws();
        if p.i != p.s.len() {
            return Err(format!("trailing data at {}", p.i));
        }
        Ok(v)
    }

    struct P<'a> {
        s: &'a [u8],
        i: usize,
    }

    impl P<'_> {
        fn ws(&mut self) {
            while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
        }
        fn eat(&mut self, c: u8) -> Result<(), String> {
            self.ws();
            if self.s.get(self.i) == Some(&c) {
                self.i += 1;
                Ok(())
            } else {
                Err(format!("expected '{}' at {}", c as char, self.i))
            }
        }
        fn value(&mut self) -> Result<Value, String> {
            self.ws();
            match self.s.get(self.i) {
                Some(b'{') => {
                    self.i += 1;
                    let mut m = Vec::new();
                    self.ws();
                    if self.s.get(self.i) == Some(&b'}') {
                        self.i += 1;
                        return Ok(Value::Obj(m));
                    }
                    loop {
                        self.ws();
                        let k = self.string()?;
                        self.eat(b':')?;
                        m.push((k, self.value()?));
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                return Ok(Value::Obj(m));
                            }
                            _ => return Err(format!("bad object at {}", self.i)),
                        }
                    }
                }
                Some(b'[') => {
                    self.i += 1;
                    let mut a = Vec::new();
                    self.ws();
                    if self.s.get(self.i) == Some(&b']') {
                        self.i += 1;
                        return Ok(Value::Arr(a));
                    }
                    loop {
                        a.push(self.value()?);
                        self.ws();
                        match self.s.get(self.i) {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                return Ok(Value::Arr(a));
                            }
                            _ => return Err(format!("bad array at {}", self.i)),
                        }
                    }
                }
                Some(b'"') => Ok(Value::Str(self.string()?)),
                Some(b't') if self.s[self.i..].starts_with(b"true") => {
                    self.i += 4;
                    Ok(Value::Bool(true))
                }
                Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                    self.i += 5;
                    Ok(Value::Bool(false))
                }
                Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                    self.i += 4;
                    Ok(Value::Null)
                }
                _ => {
                    let start = self.i;
                    while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                        self.i += 1;
                    }
                    std::str::from_utf8(&self.s[start..self.i])
                        .ok()
                        .and_then(|n| n.parse().ok())
                        .map(Value::Num)
                        .ok_or_else(|| format!("bad value at {start}"))
                }
            }
        }
        fn string(&mut self) -> Result<String, String> {
            if self.s.get(self.i) != Some(&b'"') {
                return Err(format!("expected string at {}", self.i));
            }
            self.i += 1;
            let mut out = Vec::new();
            loop {
                let c = *self.s.get(self.i).ok_or("unterminated string")?;
                self.i += 1;
                match c {
                    b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                    b'\\' => {
                        let e = *self.s.get(self.i).ok_or("bad escape")?;
                        self.i += 1;
                        match e {
                            b'"' | b'\\' | b'/' => out.push(e),
                            b'n' => out.push(b'\n'),
                            b'r' => out.push(b'\r'),
                            b't' => out.push(b'\t'),
                            b'b' => out.push(8),
                            b'f' => out.push(12),
                            b'u' => {
                                let hex = std::str::from_utf8(&self.s[self.i..self.i + 4])
                                    .map_err(|e| e.to_string())?;
                                let cp = u32::from_str_radix(hex, 16).map_err(|e| e.to_string())?;
                                let ch = char::from_u32(cp).ok_or("bad \\u")?;
                                out.extend_from_slice(ch.to_string().as_bytes());
                                self.i += 4;
                            }
                            _ => return Err(format!("bad escape at {}", self.i)),
                        }
                    }
                    c if c < 0x20 => return Err(format!("raw control character at {}", self.i)),
                    c => out.push(c),
                }
            }
        }
    }
}

/// `-F` reads a configuration file (kcat's `-F`: `property=value` lines),
/// in bounded memory: `/dev/zero` or an endless pipe is refused after 1 MiB
/// with an error, not read whole. Needs no broker.
#[test]
fn conf_file_is_read_bounded() {
    // 1 GiB of address space: reading /dev/zero whole would abort
    let script = format!("ulimit -v 1048576; exec {GREGOR} -L -F /dev/zero");
    let r = run("sh", &["-c", &script], b"");
    assert_eq!(r.code, 1, "stderr:\n{}", r.stderr);
    assert!(
        r.stderr
            .contains("/dev/zero: configuration file larger than 1024 KiB"),
        "stderr:\n{}",
        r.stderr
    );
    // a pipe: 2 MiB of comment lines
    let big = b"# a comment line\n".repeat(1 << 17);
    let r = run(GREGOR, &["-L", "-F", "/dev/stdin"], &big);
    assert_eq!(r.code, 1, "stderr:\n{}", r.stderr);
    assert!(
        r.stderr.contains("configuration file larger than 1024 KiB"),
        "stderr:\n{}",
        r.stderr
    );
    // a configuration file of ordinary size still reads
    let small = b"# comment\nclient.id=bounded\n";
    let r = run(GREGOR, &["-F", "/dev/stdin", "-X", "dump"], small);
    assert_eq!(r.code, 0, "stderr:\n{}", r.stderr);
    assert!(r.out().contains("client.id = bounded"), "{}", r.out());
}

/// `-o -N` is librdkafka's RD_KAFKA_OFFSET_TAIL(N); a count whose tail
/// offset does not fit an i64 is refused, not wrapped into an offset that
/// reads nothing and exits 0. Needs no broker (refused while parsing).
#[test]
fn tail_offset_out_of_range_is_refused() {
    let r = run(
        GREGOR,
        &[
            "-b",
            "127.0.0.1:1",
            "-C",
            "-t",
            "t",
            "-o",
            "-9223372036854775808",
            "-e",
        ],
        b"",
    );
    assert_ne!(r.code, 0, "stderr:\n{}", r.stderr);
    assert!(
        r.stderr
            .contains("-o -9223372036854775808: offset out of range"),
        "stderr:\n{}",
        r.stderr
    );
}

/// A ZooKeeper-era cluster for the command line: the test broker
/// registered in a fresh chroot of the test ZooKeeper (see
/// `common::zk::Chroot`).
struct ZkCluster(common::zk::Chroot);

impl ZkCluster {
    fn new(name: &str) -> ZkCluster {
        ZkCluster(common::zk::Chroot::with_test_broker(name))
    }

    /// `zookeeper.connect=<the test ZooKeeper>/<this chroot>`, for `-X`.
    fn prop(&self) -> &'static str {
        leak(format!("zookeeper.connect={}", self.0.connect()))
    }

    /// `gregor -X zookeeper.connect=… args`: no `-b`.
    fn gregor(&self, args: &[&str], stdin: &[u8]) -> Run {
        let mut all = vec!["-X", self.prop()];
        all.extend_from_slice(args);
        run(GREGOR, &all, stdin)
    }
}

/// Whether the broker and ZooKeeper both answer (skipped otherwise, a
/// failure under `CI=true`).
fn zk_cluster_up() -> bool {
    common::broker_up() && common::zookeeper_up()
}

/// `-L` with `-X zookeeper.connect` and no `-b` (or from a `-F` file): the
/// brokers come from ZooKeeper's registry; a chroot where no broker is
/// registered fails, so it is the registry that was read.
#[test]
fn zookeeper_connect_instead_of_b_lists_metadata() {
    if !zk_cluster_up() {
        return;
    }
    let zk = ZkCluster::new("cli-zk-list");
    let t = leak(topic("cli-zk-list", 3));
    zk.gregor(&["-P", "-t", t, "-p", "2"], b"one\ntwo\n").ok();
    let b = common::broker();
    let l = zk.gregor(&["-L", "-t", t], b"").ok();
    let out = l.out();
    assert!(
        out.contains(&format!("  broker 111 at {b}")),
        "{out}{}",
        l.stderr
    );
    assert!(
        out.contains(&format!("  topic \"{t}\" with 3 partitions:\n")),
        "{out}"
    );
    for p in 0..3 {
        assert!(
            out.contains(&format!("    partition {p}, leader 111,")),
            "{out}"
        );
    }
    // the same listing as through -b, from "Metadata for" on
    let direct = gregor(&["-L", "-t", t], b"").ok().out();
    let body = |s: &str| s.lines().skip(1).map(String::from).collect::<Vec<_>>();
    assert_eq!(body(&out), body(&direct));
    // JSON
    let j = zk.gregor(&["-L", "-J", "-t", t], b"").ok();
    let v = json::parse(&j.out()).unwrap_or_else(|e| panic!("{e}: {}", j.out()));
    let topics = v.get("topics").and_then(json::Value::arr).unwrap();
    assert_eq!(topics[0].get("topic").and_then(json::Value::str), Some(t));
    // zookeeper.connect from a configuration file (-F), as from -X
    let conf = format!("{}\n", zk.prop());
    let f = run(
        GREGOR,
        &["-L", "-t", t, "-F", "/dev/stdin"],
        conf.as_bytes(),
    )
    .ok();
    assert_eq!(body(&f.out()), body(&direct), "{}", f.stderr);
    // a registry without brokers: an error, not a listing from elsewhere
    let empty = ZkCluster::new("cli-zk-empty");
    empty.0.delete("/brokers/ids/111");
    let r = empty.gregor(&["-L", "-t", t], b"");
    assert_ne!(r.code, 0, "{}", r.out());
    assert!(r.stdout.is_empty(), "{}", r.out());
    assert!(r.stderr.contains("/brokers/ids"), "{}", r.stderr);
}

/// `-P` with `-X zookeeper.connect` and no `-b`: the messages (keys,
/// partitions, headers) are on the broker, read back through `-b`.
#[test]
fn zookeeper_connect_instead_of_b_produces() {
    if !zk_cluster_up() {
        return;
    }
    let zk = ZkCluster::new("cli-zk-produce");
    let t = leak(topic("cli-zk-produce", 2));
    zk.gregor(
        &["-P", "-t", t, "-p", "1", "-K", ":", "-H", "via=zk"],
        b"k1:v1\nk2:v2\n:v3\n",
    )
    .ok();
    zk.gregor(&["-P", "-t", t, "-p", "0"], b"w1\n").ok();
    let c = gregor(&["-C", "-t", t, "-e", "-q", "-f", "%p %o %k|%s|%h\\n"], b"").ok();
    assert_eq!(
        sorted_lines(&c),
        [
            "0 0 |w1|",
            "1 0 k1|v1|via=zk",
            "1 1 k2|v2|via=zk",
            "1 2 |v3|via=zk"
        ],
        "{}",
        c.stderr
    );
}

/// `-C` with `-X zookeeper.connect` and no `-b`: what was produced through
/// `-b` is read, with offsets and keys.
#[test]
fn zookeeper_connect_instead_of_b_consumes() {
    if !zk_cluster_up() {
        return;
    }
    let zk = ZkCluster::new("cli-zk-consume");
    let t = leak(topic("cli-zk-consume", 2));
    gregor(&["-P", "-t", t, "-p", "0", "-K", ":"], b"a:1\nb:2\n").ok();
    gregor(&["-P", "-t", t, "-p", "1", "-K", ":"], b"c:3\n").ok();
    let fmt = "%p %o %k=%s\\n";
    let c = zk.gregor(&["-C", "-t", t, "-e", "-q", "-f", fmt], b"").ok();
    assert_eq!(
        sorted_lines(&c),
        ["0 0 a=1", "0 1 b=2", "1 0 c=3"],
        "{}",
        c.stderr
    );
    // one partition, from an offset, a count
    let c = zk
        .gregor(
            &[
                "-C", "-t", t, "-p", "0", "-o", "1", "-c", "1", "-q", "-f", fmt,
            ],
            b"",
        )
        .ok();
    assert_eq!(c.out(), "0 1 b=2\n", "{}", c.stderr);
}

/// `-G` with `-X zookeeper.connect` and no `-b`: the balanced consumer
/// finds the group's coordinator through the brokers of the registry, gets
/// every partition, and commits: a second run of the group reads only
/// what came later.
#[test]
fn zookeeper_connect_instead_of_b_in_group_mode() {
    if !zk_cluster_up() {
        return;
    }
    let zk = ZkCluster::new("cli-zk-group");
    let t = leak(topic("cli-zk-group", 3));
    for p in 0..3 {
        let input = format!("p{p}a\np{p}b\n");
        zk.gregor(
            &["-P", "-t", t, "-p", leak(p.to_string())],
            input.as_bytes(),
        )
        .ok();
    }
    let group = leak(common::unique_topic("cli-zk-g"));
    let fmt = "%t %p %o %s\\n";
    let g = zk
        .gregor(&["-G", group, "-o", "beginning", "-e", "-f", fmt, t], b"")
        .ok();
    let want: Vec<String> = (0..3)
        .flat_map(|p| [format!("{t} {p} 0 p{p}a"), format!("{t} {p} 1 p{p}b")])
        .collect();
    assert_eq!(sorted_lines(&g), want, "{}", g.stderr);
    assert!(
        g.stderr
            .contains(&format!("assigned: {t} [0], {t} [1], {t} [2]")),
        "{}",
        g.stderr
    );
    zk.gregor(&["-P", "-t", t, "-p", "1"], b"late\n").ok();
    let g2 = zk.gregor(&["-G", group, "-e", "-f", fmt, t], b"").ok();
    assert_eq!(g2.out(), format!("{t} 1 2 late\n"), "{}", g2.stderr);
}

/// With neither `-b` nor `zookeeper.connect` (or an empty one) every mode
/// stops with a usage error naming both. Needs no broker.
#[test]
fn missing_bootstrap_names_b_and_zookeeper_connect() {
    for args in [
        &["-L"][..],
        &["-P", "-t", "t"],
        &["-C", "-t", "t"],
        &["-G", "g", "t"],
        &["-L", "-X", "zookeeper.connect="],
    ] {
        let r = run(GREGOR, args, b"x\n");
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.out());
        assert!(
            r.stderr.starts_with(
                "Error: -b <broker,..> missing (or -X zookeeper.connect=<host:port,..[/chroot]>)\n"
            ),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stderr.contains("Usage: "), "{args:?}: {}", r.stderr);
    }
    // the usage says it too
    let h = run(GREGOR, &["-h"], b"").ok().out();
    assert!(
        h.contains("-X zookeeper.connect=<host:port,..[/chroot]>"),
        "{h}"
    );
}
