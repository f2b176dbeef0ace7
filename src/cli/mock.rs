//! `gregor mock [-n brokers] [-p port] [-P partitions] [-d rebalance-delay-ms]
//! [-T transaction-version] [-M metric-prefix]... [-I push-interval-ms]
//! [-t topic[:partitions]]...`: starts gregor's in-process mock cluster
//! (`gregor::mock::Cluster`), prints its bootstrap list on stdout and serves
//! until interrupted — the cluster `scripts/demo.sh` uses when no broker is
//! at hand.

use std::io::Write;
use std::time::Duration;

use gregor::mock::Cluster;

const USAGE: &str = "Usage: gregor mock [-n brokers] [-p first-port] [-P partitions] \
[-d rebalance-delay-ms] [-T transaction-version] [-M metric-prefix]... \
[-I push-interval-ms] [-t topic[:partitions]]...\n\
  -n  number of brokers (default 3), IDs 1..n\n\
  -p  listen on port, port+1, ... (default: ephemeral ports)\n\
  -P  partitions of an auto-created topic (default 4)\n\
  -d  group.initial.rebalance.delay.ms (default 3000)\n\
  -T  finalized transaction.version: 2 serves transactions v2 (KIP-890), 0-1 v1 (default: v1)\n\
  -M  a metric name prefix the client metrics subscription asks for (KIP-714;\n\
      repeatable; \"\" asks for every metric; default: none, no metrics pushed)\n\
  -I  the subscription's push interval in ms (default 5000)\n\
  -t  create a topic before serving (repeatable)\n\
Prints the bootstrap list on stdout and serves until interrupted.\n";

fn num<T: std::str::FromStr>(flag: &str, v: Option<&String>) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
    v.parse()
        .map_err(|_| format!("{flag}: not a valid number: {v:?}"))
}

/// Runs `gregor mock`; returns the exit code.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let mut brokers = 3usize;
    let mut port: Option<u16> = None;
    let mut partitions = 4i32;
    let mut delay_ms = 3000u64;
    let mut transaction_version: Option<i16> = None;
    let mut topics: Vec<(String, i32)> = Vec::new();
    let mut metrics: Vec<String> = Vec::new();
    let mut push_interval_ms: Option<u64> = None;
    let mut it = args.iter();
    let parsed: Result<(), String> = (|| {
        while let Some(a) = it.next() {
            match a.as_str() {
                "-n" => brokers = num("-n", it.next())?,
                "-p" => port = Some(num("-p", it.next())?),
                "-P" => partitions = num("-P", it.next())?,
                "-d" => delay_ms = num("-d", it.next())?,
                "-T" => transaction_version = Some(num("-T", it.next())?),
                "-M" => metrics.push(it.next().ok_or("-M needs a metric prefix")?.clone()),
                "-I" => push_interval_ms = Some(num("-I", it.next())?),
                "-t" => {
                    let t = it.next().ok_or("-t needs a topic")?;
                    let (name, n) = match t.split_once(':') {
                        Some((n, p)) => (
                            n.to_owned(),
                            p.parse()
                                .map_err(|_| format!("-t {t}: bad partition count"))?,
                        ),
                        None => (t.clone(), -1),
                    };
                    topics.push((name, n));
                }
                "-h" | "--help" => return Err(String::new()),
                o => return Err(format!("unknown option {o}")),
            }
        }
        Ok(())
    })();
    if let Err(m) = parsed {
        if m.is_empty() {
            let _ = out.write_all(USAGE.as_bytes());
            return 0;
        }
        let _ = write!(err, "Error: {m}\n\n{USAGE}");
        return 1;
    }
    if brokers == 0 || brokers > 1000 {
        let _ = writeln!(err, "Error: -n {brokers}: 1 to 1000 brokers");
        return 1;
    }
    let mut b = Cluster::builder()
        .brokers(brokers)
        .default_partitions(partitions)
        .group_initial_rebalance_delay(Duration::from_millis(delay_ms));
    if let Some(level) = transaction_version {
        b = b.transaction_version(level);
    }
    if let Some(p) = port {
        let ports: Result<Vec<u16>, _> = (0..brokers)
            .map(|i| u16::try_from(usize::from(p) + i))
            .collect();
        match ports {
            Ok(ps) => b = b.ports(&ps),
            Err(_) => {
                let _ = writeln!(err, "Error: -p {p}: ports past 65535");
                return 1;
            }
        }
    }
    let cluster = match b.build() {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(err, "% ERROR: {e}");
            return 1;
        }
    };
    if !metrics.is_empty() {
        let prefixes: Vec<&str> = metrics.iter().map(String::as_str).collect();
        cluster.set_telemetry_requested_metrics(&prefixes);
    }
    if let Some(ms) = push_interval_ms {
        if let Err(e) = cluster.set_telemetry_push_interval(Duration::from_millis(ms)) {
            let _ = writeln!(err, "Error: -I {ms}: {e}");
            return 1;
        }
    }
    for (name, n) in &topics {
        let n = if *n < 0 { partitions } else { *n };
        if let Err(e) = cluster.create_topic(name, n, brokers.min(3) as i32) {
            let _ = writeln!(err, "% ERROR: {e}");
            return 1;
        }
    }
    let _ = writeln!(out, "{}", cluster.bootstrap_servers());
    let _ = out.flush();
    let _ = writeln!(
        err,
        "% gregor mock cluster {} with {brokers} broker(s); serving until interrupted",
        cluster.cluster_id()
    );
    loop {
        std::thread::park_timeout(Duration::from_secs(3600));
    }
}
