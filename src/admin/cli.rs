//! `gregor admin …`: one subcommand per admin operation, text or `-J` JSON
//! output. The `gregor` binary hands everything after `admin` to [`run`].
//!
//! Exit codes: 0 when the call and every entity succeeded, 1 when the call
//! or any entity failed (each failure is printed with its Kafka error name),
//! 2 for a usage error (unknown command or option, bad value).

use std::io::Write;
use std::time::Duration;

use super::json::{dyn_obj, error, error_of, J};
use super::*;
use crate::config::Config;
use crate::error::Error;
use crate::wire::Uuid;

const USAGE: &str = "\
usage: gregor admin <command> -b <brokers> [options]

common options:
  -b <host:port,...>        bootstrap brokers
  -X <prop=value>           configuration property (librdkafka names)
  -J                        JSON output
  --timeout <ms>            request timeout (default socket.timeout.ms)
  --operation-timeout <ms>  how long the broker waits for the operation
  --validate-only           validate only; change nothing

commands:
  create-topics       -t <topic> [-p <partitions>] [-r <replication>] [-a <assignment>] [-c <k=v>]...
                      (repeat -t for more topics; -p/-r/-a/-c apply to the last -t;
                       assignment: replicas of each partition, e.g. 1:2,2:3)
  delete-topics       -t <topic>... | --topic-id <id>...
  create-partitions   -t <topic> -p <total> [-a <assignment of the new partitions>]...
  describe-topics     -t <topic>... | --topic-id <id>... [--include-authorized-operations]
  describe-configs    --entity <type:name>... [-t <topic>]... [-k <key>]... [--synonyms] [--documentation]
                      (types: topic, broker, broker-logger, group, client-metrics)
  alter-configs       --entity <type:name> -c <k=v>... (legacy: replaces the whole set)
  incremental-alter-configs --entity <type:name> [--set k=v] [--delete k] [--append k=v] [--subtract k=v]...
  describe-acls       [ACL filter options]
  create-acls         --resource-type <t> --resource-name <n> --principal <p> --operation <o>
                      [--pattern-type literal|prefixed] [--host <h>] [--permission allow|deny]
  delete-acls         [ACL filter options]
                      (filter options: --resource-type --resource-name --pattern-type
                       --principal --host --operation --permission; omitted = any)
  describe-cluster    [--include-authorized-operations]
  describe-log-dirs   [--broker <id>]...
  elect-leaders       [--election preferred|unclean] [-t <topic:partition>]... (none: all)
  alter-partition-reassignments -t <topic:partition=r1,r2,...>... | --cancel <topic:partition>...
  list-partition-reassignments  [-t <topic:partition>]...
  delete-records      -t <topic:partition=offset>...
  list-offsets        -t <topic:partition[=spec]>... [--spec earliest|latest|max-timestamp|<ms>] [--read-committed]
  describe-client-quotas [--match <type=name>] [--match-default <type>] [--match-any <type>]... [--strict]
  alter-client-quotas --entity <type=name[,type=name]> [--set k=v] [--remove k]... (name empty: default entity)
  describe-user-scram-credentials [-u <user>]...
  alter-user-scram-credentials [--upsert <user:mechanism:iterations:password>] [--delete <user:mechanism>]...
  describe-producers  -t <topic:partition>... [--broker <id>]
  list-transactions   [--state <s>]... [--producer-id <id>]... [--duration <ms>]
  describe-transactions -i <transactional-id>...
  groups list         [--state <s>]... [--type classic|consumer]...
  groups describe     <group>... [--include-authorized-operations]
  groups delete       <group>...
  groups offsets list <group> [<topic>[:<partition>]]... [--require-stable]
                      (no topic: every partition the group has offsets for)
  groups offsets alter <group> <topic>:<partition>=<offset>...
  groups offsets delete <group> <topic>:<partition>...
";

/// Runs `gregor admin` with `args` (what follows "admin" on the command
/// line), writing results to `out` and diagnostics to `err`; returns the
/// exit code.
pub fn run(args: &[String], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Some(cmd) = args.first() else {
        let _ = write!(err, "{USAGE}");
        return 2;
    };
    if matches!(cmd.as_str(), "-h" | "--help" | "help") {
        let _ = write!(out, "{USAGE}");
        return 0;
    }
    let (cmd, rest) = match command(args) {
        Ok(c) => c,
        Err(msg) => {
            let _ = writeln!(
                err,
                "gregor admin {cmd}: {msg}\n(gregor admin --help lists the commands and options)"
            );
            return 2;
        }
    };
    let cmd = &cmd;
    let parsed = match Parsed::parse(cmd, rest) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(
                err,
                "gregor admin {cmd}: {msg}\n(gregor admin --help lists the commands and options)"
            );
            return 2;
        }
    };
    if parsed.help {
        let _ = write!(out, "{USAGE}");
        return 0;
    }
    let json = parsed.json;
    match execute(&parsed) {
        Ok(report) => {
            if json {
                let _ = writeln!(out, "{}", report.json.to_json());
            } else {
                for line in &report.lines {
                    let _ = writeln!(out, "{line}");
                }
            }
            i32::from(report.failed)
        }
        Err(Failure::Usage(msg)) => {
            let _ = writeln!(err, "gregor admin {cmd}: {msg}");
            2
        }
        Err(Failure::Call(e)) => {
            if json {
                let _ = writeln!(out, "{}", J::Obj(vec![("error", error(&e))]).to_json());
            }
            let _ = writeln!(
                err,
                "gregor admin {cmd}: {} ({e})",
                crate::error::code_name(e.code())
            );
            1
        }
    }
}

/// The command and its arguments: "groups" takes a subcommand ("groups
/// list", "groups offsets alter"), the others are one word.
fn command(args: &[String]) -> Result<(String, &[String]), String> {
    let word = |i: usize| args.get(i).map(String::as_str);
    match word(0) {
        Some("groups") => match word(1) {
            Some(sub @ ("list" | "describe" | "delete")) => {
                Ok((format!("groups {sub}"), &args[2..]))
            }
            Some("offsets") => match word(2) {
                Some(sub @ ("list" | "alter" | "delete")) => {
                    Ok((format!("groups offsets {sub}"), &args[3..]))
                }
                other => Err(format!(
                    "groups offsets: expected list, alter or delete, not {}",
                    other.map_or("nothing".to_string(), |o| format!("\"{o}\""))
                )),
            },
            other => Err(format!(
                "groups: expected list, describe, delete or offsets, not {}",
                other.map_or("nothing".to_string(), |o| format!("\"{o}\""))
            )),
        },
        Some(c) => Ok((c.to_string(), &args[1..])),
        None => Err("no command".into()),
    }
}

/// Commands that take positional arguments (group IDs, partitions).
fn takes_positional(cmd: &str) -> bool {
    cmd.starts_with("groups ")
}

enum Failure {
    Usage(String),
    Call(Error),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Call(e)
    }
}

/// What a command printed: text lines, the JSON document, and whether
/// any entity failed.
struct Report {
    lines: Vec<String>,
    json: J,
    failed: bool,
}

impl Report {
    fn new() -> Self {
        Report {
            lines: Vec::new(),
            json: J::Null,
            failed: false,
        }
    }

    /// Adds a line for an entity's result.
    fn entity<T>(
        &mut self,
        what: impl std::fmt::Display,
        r: &Result<T>,
        ok: impl FnOnce(&T) -> String,
    ) {
        match r {
            Ok(v) => self.lines.push(format!("{what}: {}", ok(v))),
            Err(e) => {
                self.failed = true;
                self.lines.push(format!(
                    "{what}: error {}: {e}",
                    crate::error::code_name(e.code())
                ));
            }
        }
    }
}

/// Options that take a value, per command (besides the common ones).
fn value_options(cmd: &str) -> Option<&'static [&'static str]> {
    const ACL: &[&str] = &[
        "--resource-type",
        "--resource-name",
        "--pattern-type",
        "--principal",
        "--host",
        "--operation",
        "--permission",
    ];
    Some(match cmd {
        "create-topics" => &["-t", "-p", "-r", "-a", "-c"],
        "delete-topics" => &["-t", "--topic-id"],
        "create-partitions" => &["-t", "-p", "-a"],
        "describe-topics" => &["-t", "--topic-id"],
        "describe-configs" => &["--entity", "-t", "-k"],
        "alter-configs" => &["--entity", "-t", "-c"],
        "incremental-alter-configs" => &[
            "--entity",
            "-t",
            "--set",
            "--delete",
            "--append",
            "--subtract",
        ],
        "describe-acls" | "create-acls" | "delete-acls" => ACL,
        "describe-cluster" => &[],
        "describe-log-dirs" => &["--broker"],
        "elect-leaders" => &["--election", "-t"],
        "alter-partition-reassignments" => &["-t", "--cancel"],
        "list-partition-reassignments" => &["-t"],
        "delete-records" => &["-t"],
        "list-offsets" => &["-t", "--spec"],
        "describe-client-quotas" => &["--match", "--match-default", "--match-any"],
        "alter-client-quotas" => &["--entity", "--set", "--remove"],
        "describe-user-scram-credentials" => &["-u"],
        "alter-user-scram-credentials" => &["--upsert", "--delete"],
        "describe-producers" => &["-t", "--broker"],
        "list-transactions" => &["--state", "--producer-id", "--duration"],
        "describe-transactions" => &["-i", "--transactional-id"],
        "groups list" => &["--state", "--type"],
        "groups describe"
        | "groups delete"
        | "groups offsets list"
        | "groups offsets alter"
        | "groups offsets delete" => &[],
        _ => return None,
    })
}

/// Flags (no value), per command (besides the common ones).
fn flags(cmd: &str) -> &'static [&'static str] {
    match cmd {
        "describe-topics" | "describe-cluster" => &["--include-authorized-operations"],
        "describe-configs" => &["--synonyms", "--documentation"],
        "list-offsets" => &["--read-committed"],
        "describe-client-quotas" => &["--strict"],
        "groups describe" => &["--include-authorized-operations"],
        "groups offsets list" => &["--require-stable"],
        _ => &[],
    }
}

struct Parsed {
    cmd: String,
    cfg: Config,
    json: bool,
    help: bool,
    opts: AdminOptions,
    /// Command options with values, in order.
    items: Vec<(String, String)>,
    /// Command flags given.
    flags: Vec<String>,
    /// Positional arguments (group commands only).
    positional: Vec<String>,
}

fn ms(opt: &str, v: &str) -> Result<Duration, String> {
    v.parse::<u64>()
        .map(Duration::from_millis)
        .map_err(|_| format!("{opt}: \"{v}\" is not a number of milliseconds"))
}

impl Parsed {
    fn parse(cmd: &str, args: &[String]) -> Result<Parsed, String> {
        let values = value_options(cmd).ok_or_else(|| format!("unknown command \"{cmd}\""))?;
        let cmd_flags = flags(cmd);
        let mut p = Parsed {
            cmd: cmd.to_string(),
            cfg: Config::new(),
            json: false,
            help: false,
            opts: AdminOptions::default(),
            items: Vec::new(),
            flags: Vec::new(),
            positional: Vec::new(),
        };
        let mut brokers = None;
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let a = a.as_str();
            let mut value = || {
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("option {a} needs a value"))
            };
            match a {
                "-h" | "--help" => p.help = true,
                "-J" => p.json = true,
                "--validate-only" => p.opts.validate_only = true,
                "-b" => brokers = Some(value()?),
                "-X" => {
                    let kv = value()?;
                    let (k, v) = kv
                        .split_once('=')
                        .ok_or_else(|| format!("-X {kv}: expected property=value"))?;
                    p.cfg.set(k, v).map_err(|e| e.to_string())?;
                }
                "--timeout" => p.opts.request_timeout = Some(ms(a, &value()?)?),
                "--operation-timeout" => p.opts.operation_timeout = Some(ms(a, &value()?)?),
                _ if values.contains(&a) => {
                    let v = value()?;
                    p.items.push((a.to_string(), v));
                }
                _ if cmd_flags.contains(&a) => p.flags.push(a.to_string()),
                _ if takes_positional(cmd) && !a.starts_with('-') => {
                    p.positional.push(a.to_string())
                }
                _ => return Err(format!("unknown option \"{a}\"")),
            }
        }
        if p.help {
            return Ok(p);
        }
        match brokers {
            Some(b) => {
                p.cfg
                    .set("bootstrap.servers", &b)
                    .map_err(|e| e.to_string())?;
            }
            None if p.cfg.is_set("bootstrap.servers") => {}
            None => return Err("no brokers: give -b <host:port>".into()),
        }
        Ok(p)
    }

    fn flag(&self, f: &str) -> bool {
        self.flags.iter().any(|x| x == f)
    }

    fn all(&self, opt: &str) -> Vec<&str> {
        self.items
            .iter()
            .filter(|(o, _)| o == opt)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    fn one(&self, opt: &str) -> Option<&str> {
        self.all(opt).last().copied()
    }
}

fn usage(msg: impl Into<String>) -> Failure {
    Failure::Usage(msg.into())
}

fn num<T: std::str::FromStr>(opt: &str, v: &str) -> Result<T, Failure> {
    v.trim()
        .parse()
        .map_err(|_| usage(format!("{opt}: \"{v}\" is not a valid number")))
}

fn kv<'a>(opt: &str, v: &'a str) -> Result<(&'a str, &'a str), Failure> {
    v.split_once('=')
        .ok_or_else(|| usage(format!("{opt} {v}: expected key=value")))
}

/// "1:2,2:3" → [[1,2],[2,3]].
fn assignment(v: &str) -> Result<Vec<Vec<i32>>, Failure> {
    v.split(',')
        .map(|p| p.split(':').map(|b| num::<i32>("-a", b)).collect())
        .collect()
}

fn tp(opt: &str, v: &str) -> Result<TopicPartition, Failure> {
    parse_topic_partition(v).map_err(|e| usage(format!("{opt}: {e}")))
}

fn entity(v: &str) -> Result<ConfigResource, Failure> {
    let (t, n) = v
        .split_once(':')
        .ok_or_else(|| usage(format!("--entity {v}: expected type:name")))?;
    let rt = ConfigResourceType::parse(t)
        .filter(|t| t.is_known() && *t != ConfigResourceType::UNKNOWN)
        .ok_or_else(|| usage(format!("--entity {v}: unknown resource type \"{t}\"")))?;
    Ok(ConfigResource::new(rt, n))
}

fn parse_enum<T>(opt: &str, v: &str, parse: impl Fn(&str) -> Option<T>) -> Result<T, Failure> {
    parse(v).ok_or_else(|| usage(format!("{opt}: unknown value \"{v}\"")))
}

fn uuid(v: &str) -> Result<Uuid, Failure> {
    Uuid::parse(v).ok_or_else(|| usage(format!("--topic-id: \"{v}\" is not a topic ID")))
}

fn id_list(v: &[i32]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn execute(p: &Parsed) -> Result<Report, Failure> {
    let admin = AdminClient::new(&p.cfg).map_err(|e| usage(e.to_string()))?;
    let o = &p.opts;
    let mut rep = Report::new();
    match p.cmd.as_str() {
        "create-topics" => {
            let mut topics: Vec<NewTopic> = Vec::new();
            for (opt, v) in &p.items {
                if opt == "-t" {
                    topics.push(NewTopic::new(v.as_str(), -1, -1));
                    continue;
                }
                let t = topics
                    .last_mut()
                    .ok_or_else(|| usage(format!("{opt} before any -t")))?;
                match opt.as_str() {
                    "-p" => t.num_partitions = num(opt, v)?,
                    "-r" => t.replication_factor = num(opt, v)?,
                    "-a" => {
                        t.replica_assignment = assignment(v)?
                            .into_iter()
                            .enumerate()
                            .map(|(i, r)| (i as i32, r))
                            .collect();
                    }
                    _ => {
                        let (k, val) = kv(opt, v)?;
                        t.configs.push((k.to_string(), val.to_string()));
                    }
                }
            }
            if topics.is_empty() {
                return Err(usage("no topic: give -t <topic>"));
            }
            let r = admin.create_topics(&topics, o)?;
            let mut js = Vec::new();
            for t in &r {
                let n = t.name.clone().unwrap_or_default();
                rep.entity(format!("topic {n}"), &t.result, |c| {
                    format!(
                        "{} (id {}, {} partitions, replication factor {})",
                        if o.validate_only { "valid" } else { "created" },
                        c.topic_id.to_kafka_string(),
                        c.num_partitions,
                        c.replication_factor
                    )
                });
                let ok = t.result.as_ref().ok();
                js.push(J::Obj(vec![
                    ("name", n.into()),
                    ("topic_id", ok.map(|c| c.topic_id.to_kafka_string()).into()),
                    ("num_partitions", ok.map(|c| c.num_partitions).into()),
                    (
                        "replication_factor",
                        ok.map(|c| c.replication_factor).into(),
                    ),
                    (
                        "configs",
                        dyn_obj(ok.map(|c| {
                            c.configs
                                .iter()
                                .map(|e| (e.name.clone(), e.value.clone()))
                                .collect::<Vec<_>>()
                        })),
                    ),
                    ("error", error_of(&t.result)),
                ]));
            }
            rep.json = J::Obj(vec![("topics", J::Arr(js))]);
        }
        "delete-topics" => {
            let names = p.all("-t");
            let ids: Vec<Uuid> = p
                .all("--topic-id")
                .into_iter()
                .map(uuid)
                .collect::<Result<_, _>>()?;
            if names.is_empty() && ids.is_empty() {
                return Err(usage("no topic: give -t <topic> or --topic-id <id>"));
            }
            let mut all = Vec::new();
            if !names.is_empty() {
                all.extend(admin.delete_topics(&names, o)?);
            }
            if !ids.is_empty() {
                all.extend(admin.delete_topics_by_id(&ids, o)?);
            }
            let mut js = Vec::new();
            for t in &all {
                let what = match &t.name {
                    Some(n) => format!("topic {n}"),
                    None => format!("topic ID {}", t.topic_id.to_kafka_string()),
                };
                rep.entity(what, &t.result, |()| "deleted".to_string());
                js.push(J::Obj(vec![
                    ("name", t.name.clone().into()),
                    (
                        "topic_id",
                        (!t.topic_id.is_zero())
                            .then(|| t.topic_id.to_kafka_string())
                            .into(),
                    ),
                    ("error", error_of(&t.result)),
                ]));
            }
            rep.json = J::Obj(vec![("topics", J::Arr(js))]);
        }
        "create-partitions" => {
            let mut reqs: Vec<NewPartitions> = Vec::new();
            for (opt, v) in &p.items {
                if opt == "-t" {
                    reqs.push(NewPartitions::increase_to(v.as_str(), 0));
                    continue;
                }
                let t = reqs
                    .last_mut()
                    .ok_or_else(|| usage(format!("{opt} before any -t")))?;
                match opt.as_str() {
                    "-p" => t.total_count = num(opt, v)?,
                    _ => t.assignments = Some(assignment(v)?),
                }
            }
            if reqs.is_empty() {
                return Err(usage("no topic: give -t <topic> -p <total>"));
            }
            if let Some(t) = reqs.iter().find(|t| t.total_count < 1) {
                return Err(usage(format!(
                    "topic {}: give the new total with -p",
                    t.topic
                )));
            }
            let r = admin.create_partitions(&reqs, o)?;
            rep.json = topic_results(&mut rep, &r, |_| "partitions added".to_string());
        }
        "describe-topics" => {
            let names = p.all("-t");
            let ids: Vec<Uuid> = p
                .all("--topic-id")
                .into_iter()
                .map(uuid)
                .collect::<Result<_, _>>()?;
            if names.is_empty() && ids.is_empty() {
                return Err(usage("no topic: give -t <topic> or --topic-id <id>"));
            }
            let ops = p.flag("--include-authorized-operations");
            let mut all = Vec::new();
            if !names.is_empty() {
                all.extend(admin.describe_topics(&names, ops, o)?);
            }
            if !ids.is_empty() {
                all.extend(admin.describe_topics_by_id(&ids, ops, o)?);
            }
            let mut js = Vec::new();
            for t in &all {
                let what = match &t.name {
                    Some(n) => format!("topic {n}"),
                    None => format!("topic ID {}", t.topic_id.to_kafka_string()),
                };
                match &t.result {
                    Ok(d) => {
                        rep.lines.push(format!(
                            "{what}: id {}, {} partitions{}{}",
                            d.topic_id.to_kafka_string(),
                            d.partitions.len(),
                            if d.is_internal { ", internal" } else { "" },
                            d.authorized_operations
                                .as_ref()
                                .map_or(String::new(), |ops| format!(
                                    ", authorized operations {}",
                                    op_names(ops).join(",")
                                ))
                        ));
                        for p in &d.partitions {
                            rep.lines.push(format!(
                                "  partition {}: leader {}, replicas [{}], isr [{}]{}",
                                p.partition,
                                p.leader,
                                id_list(&p.replicas),
                                id_list(&p.isr),
                                p.error
                                    .map_or(String::new(), |e| format!(", error {}", e.name()))
                            ));
                        }
                    }
                    Err(_) => rep.entity(&what, &t.result, |_| String::new()),
                }
                js.push(topic_description_json(t));
            }
            rep.json = J::Obj(vec![("topics", J::Arr(js))]);
        }
        "describe-configs" => {
            let mut resources: Vec<ConfigResource> = p
                .all("--entity")
                .into_iter()
                .map(entity)
                .collect::<Result<_, _>>()?;
            resources.extend(p.all("-t").into_iter().map(ConfigResource::topic));
            if resources.is_empty() {
                return Err(usage(
                    "no resource: give --entity <type:name> or -t <topic>",
                ));
            }
            let keys = p.all("-k");
            let r = admin.describe_configs(
                &resources,
                (!keys.is_empty()).then_some(&keys[..]),
                p.flag("--synonyms"),
                p.flag("--documentation"),
                o,
            )?;
            let mut js = Vec::new();
            for res in &r {
                match &res.result {
                    Ok(entries) => {
                        rep.lines
                            .push(format!("{}: {} configs", res.resource, entries.len()));
                        for e in entries {
                            rep.lines.push(format!(
                                "  {}={} ({}{}{})",
                                e.name,
                                e.value.as_deref().unwrap_or(if e.is_sensitive {
                                    "<sensitive>"
                                } else {
                                    "<null>"
                                }),
                                e.source,
                                if e.is_read_only { ", read-only" } else { "" },
                                if e.is_sensitive { ", sensitive" } else { "" },
                            ));
                            for s in &e.synonyms {
                                rep.lines.push(format!(
                                    "    synonym {}={} ({})",
                                    s.name,
                                    s.value.as_deref().unwrap_or("<null>"),
                                    s.source
                                ));
                            }
                            if let Some(d) = &e.documentation {
                                rep.lines.push(format!("    doc: {d}"));
                            }
                        }
                    }
                    Err(_) => rep.entity(&res.resource, &res.result, |_| String::new()),
                }
                js.push(J::Obj(vec![
                    ("type", res.resource.resource_type.name().into()),
                    ("name", (&res.resource.name).into()),
                    (
                        "configs",
                        match &res.result {
                            Ok(es) => J::Arr(es.iter().map(config_entry_json).collect()),
                            Err(_) => J::Null,
                        },
                    ),
                    ("error", error_of(&res.result)),
                ]));
            }
            rep.json = J::Obj(vec![("resources", J::Arr(js))]);
        }
        "alter-configs" | "incremental-alter-configs" => {
            let incremental = p.cmd == "incremental-alter-configs";
            let mut legacy: Vec<(ConfigResource, ConfigSet)> = Vec::new();
            let mut incr: Vec<(ConfigResource, Vec<AlterConfigOp>)> = Vec::new();
            for (opt, v) in &p.items {
                let res = match opt.as_str() {
                    "--entity" => Some(entity(v)?),
                    "-t" => Some(ConfigResource::topic(v.as_str())),
                    _ => None,
                };
                if let Some(res) = res {
                    legacy.push((res.clone(), Vec::new()));
                    incr.push((res, Vec::new()));
                    continue;
                }
                let (Some(l), Some(i)) = (legacy.last_mut(), incr.last_mut()) else {
                    return Err(usage(format!("{opt} before any --entity")));
                };
                match opt.as_str() {
                    "-c" => {
                        let (k, val) = kv(opt, v)?;
                        l.1.push((k.to_string(), Some(val.to_string())));
                    }
                    "--delete" => i.1.push(AlterConfigOp::delete(v.as_str())),
                    _ => {
                        let (k, val) = kv(opt, v)?;
                        let op = match opt.as_str() {
                            "--set" => AlterConfigOpType::SET,
                            "--append" => AlterConfigOpType::APPEND,
                            _ => AlterConfigOpType::SUBTRACT,
                        };
                        i.1.push(AlterConfigOp::new(k, op, Some(val.to_string())));
                    }
                }
            }
            if legacy.is_empty() {
                return Err(usage("no resource: give --entity <type:name>"));
            }
            let r = if incremental {
                admin.incremental_alter_configs(&incr, o)?
            } else {
                admin.alter_configs(&legacy, o)?
            };
            let mut js = Vec::new();
            for res in &r {
                rep.entity(&res.resource, &res.result, |()| {
                    if o.validate_only { "valid" } else { "altered" }.to_string()
                });
                js.push(J::Obj(vec![
                    ("type", res.resource.resource_type.name().into()),
                    ("name", (&res.resource.name).into()),
                    ("error", error_of(&res.result)),
                ]));
            }
            rep.json = J::Obj(vec![("resources", J::Arr(js))]);
        }
        "describe-acls" => {
            let f = acl_filter(p)?;
            let acls = admin.describe_acls(&f, o)?;
            for b in &acls {
                rep.lines.push(b.to_string());
            }
            rep.json = J::Obj(vec![("acls", J::Arr(acls.iter().map(acl_json).collect()))]);
        }
        "create-acls" => {
            let f = acl_filter(p)?;
            let need = |v: Option<String>, opt: &str| {
                v.ok_or_else(|| usage(format!("create-acls needs {opt}")))
            };
            let b = AclBinding {
                resource_type: match f.resource_type {
                    ResourceType::ANY => return Err(usage("create-acls needs --resource-type")),
                    t => t,
                },
                resource_name: need(f.resource_name, "--resource-name")?,
                pattern_type: match f.pattern_type {
                    PatternType::ANY => PatternType::LITERAL,
                    t => t,
                },
                principal: need(f.principal, "--principal")?,
                host: f.host.unwrap_or_else(|| "*".into()),
                operation: match f.operation {
                    AclOperation::ANY => return Err(usage("create-acls needs --operation")),
                    op => op,
                },
                permission_type: match f.permission_type {
                    AclPermissionType::ANY => AclPermissionType::ALLOW,
                    pt => pt,
                },
            };
            let r = admin.create_acls(std::slice::from_ref(&b), o)?;
            let mut js = Vec::new();
            for x in &r {
                rep.entity(format!("ACL {b}"), x, |()| "created".into());
                js.push(J::Obj(vec![("acl", acl_json(&b)), ("error", error_of(x))]));
            }
            rep.json = J::Obj(vec![("results", J::Arr(js))]);
        }
        "delete-acls" => {
            let f = acl_filter(p)?;
            let r = admin.delete_acls(std::slice::from_ref(&f), o)?;
            let mut js = Vec::new();
            for x in &r {
                match &x.result {
                    Ok(m) => {
                        rep.lines.push(format!("filter matched {} ACLs", m.len()));
                        for (b, res) in m {
                            rep.entity(format!("  ACL {b}"), res, |()| "deleted".into());
                        }
                    }
                    Err(_) => rep.entity("filter", &x.result, |_| String::new()),
                }
                js.push(J::Obj(vec![
                    (
                        "matching_acls",
                        match &x.result {
                            Ok(m) => J::Arr(
                                m.iter()
                                    .map(|(b, r)| {
                                        J::Obj(vec![("acl", acl_json(b)), ("error", error_of(r))])
                                    })
                                    .collect(),
                            ),
                            Err(_) => J::Null,
                        },
                    ),
                    ("error", error_of(&x.result)),
                ]));
            }
            rep.json = J::Obj(vec![("filters", J::Arr(js))]);
        }
        "describe-cluster" => {
            let d = admin.describe_cluster(p.flag("--include-authorized-operations"), o)?;
            rep.lines.push(format!(
                "cluster {} controller {}",
                d.cluster_id.as_deref().unwrap_or("<none>"),
                d.controller_id
            ));
            for b in &d.brokers {
                rep.lines.push(format!(
                    "  broker {} at {}{}",
                    b.id,
                    b.addr(),
                    b.rack
                        .as_ref()
                        .map_or(String::new(), |r| format!(" rack {r}"))
                ));
            }
            if let Some(ops) = &d.authorized_operations {
                rep.lines.push(format!(
                    "  authorized operations: {}",
                    op_names(ops).join(",")
                ));
            }
            rep.json = J::Obj(vec![
                ("cluster_id", d.cluster_id.clone().into()),
                ("controller_id", d.controller_id.into()),
                (
                    "brokers",
                    J::Arr(
                        d.brokers
                            .iter()
                            .map(|b| {
                                J::Obj(vec![
                                    ("id", b.id.into()),
                                    ("host", (&b.host).into()),
                                    ("port", b.port.into()),
                                    ("rack", b.rack.clone().into()),
                                ])
                            })
                            .collect(),
                    ),
                ),
                (
                    "authorized_operations",
                    ops_json(d.authorized_operations.as_deref()),
                ),
            ]);
        }
        "describe-log-dirs" => {
            let brokers: Vec<i32> = p
                .all("--broker")
                .into_iter()
                .map(|b| num("--broker", b))
                .collect::<Result<_, _>>()?;
            let r = admin.describe_log_dirs((!brokers.is_empty()).then_some(&brokers[..]), o)?;
            let mut js = Vec::new();
            for b in &r {
                match &b.result {
                    Ok(dirs) => {
                        rep.lines
                            .push(format!("broker {}: {} log dirs", b.broker_id, dirs.len()));
                        for d in dirs {
                            rep.lines.push(format!(
                                "  {}: {} replicas{}",
                                d.path,
                                d.replicas.len(),
                                d.error.as_ref().map_or(String::new(), |e| format!(
                                    ", error {}",
                                    crate::error::code_name(e.code())
                                ))
                            ));
                            for x in &d.replicas {
                                rep.lines.push(format!(
                                    "    {}: {} bytes, lag {}{}",
                                    x.partition,
                                    x.size,
                                    x.offset_lag,
                                    if x.is_future { ", future" } else { "" }
                                ));
                            }
                        }
                    }
                    Err(_) => rep.entity(format!("broker {}", b.broker_id), &b.result, |_| {
                        String::new()
                    }),
                }
                js.push(J::Obj(vec![
                    ("broker", b.broker_id.into()),
                    (
                        "log_dirs",
                        match &b.result {
                            Ok(dirs) => J::Arr(dirs.iter().map(log_dir_json).collect()),
                            Err(_) => J::Null,
                        },
                    ),
                    ("error", error_of(&b.result)),
                ]));
            }
            rep.json = J::Obj(vec![("brokers", J::Arr(js))]);
        }
        "elect-leaders" => {
            let et = match p.one("--election") {
                None => ElectionType::PREFERRED,
                Some(v) => parse_enum("--election", v, ElectionType::parse)?,
            };
            let parts: Vec<TopicPartition> = p
                .all("-t")
                .into_iter()
                .map(|v| tp("-t", v))
                .collect::<Result<_, _>>()?;
            let r = admin.elect_leaders(et, (!parts.is_empty()).then_some(&parts[..]), o)?;
            rep.json = partition_results(&mut rep, &r, |()| ("elected".into(), vec![]));
        }
        "alter-partition-reassignments" => {
            let mut items: Vec<(TopicPartition, Option<Vec<i32>>)> = Vec::new();
            for (opt, v) in &p.items {
                if opt == "--cancel" {
                    items.push((tp(opt, v)?, None));
                } else {
                    let (t, replicas) = v.split_once('=').ok_or_else(|| {
                        usage(format!("-t {v}: expected topic:partition=r1,r2,..."))
                    })?;
                    let rs = replicas
                        .split(',')
                        .map(|b| num::<i32>("-t", b))
                        .collect::<Result<_, _>>()?;
                    items.push((tp(opt, t)?, Some(rs)));
                }
            }
            if items.is_empty() {
                return Err(usage("nothing to reassign: give -t or --cancel"));
            }
            let r = admin.alter_partition_reassignments(&items, o)?;
            rep.json = partition_results(&mut rep, &r, |()| ("accepted".into(), vec![]));
        }
        "list-partition-reassignments" => {
            let parts: Vec<TopicPartition> = p
                .all("-t")
                .into_iter()
                .map(|v| tp("-t", v))
                .collect::<Result<_, _>>()?;
            let r =
                admin.list_partition_reassignments((!parts.is_empty()).then_some(&parts[..]), o)?;
            for x in &r {
                rep.lines.push(format!(
                    "{}: replicas [{}], adding [{}], removing [{}]",
                    x.partition,
                    id_list(&x.replicas),
                    id_list(&x.adding_replicas),
                    id_list(&x.removing_replicas)
                ));
            }
            rep.json = J::Obj(vec![(
                "reassignments",
                J::Arr(
                    r.iter()
                        .map(|x| {
                            J::Obj(vec![
                                ("topic", (&x.partition.topic).into()),
                                ("partition", x.partition.partition.into()),
                                ("replicas", x.replicas.clone().into()),
                                ("adding_replicas", x.adding_replicas.clone().into()),
                                ("removing_replicas", x.removing_replicas.clone().into()),
                            ])
                        })
                        .collect(),
                ),
            )]);
        }
        "delete-records" => {
            let mut items = Vec::new();
            for v in p.all("-t") {
                let (t, off) = v
                    .split_once('=')
                    .ok_or_else(|| usage(format!("-t {v}: expected topic:partition=offset")))?;
                items.push((tp("-t", t)?, num::<i64>("-t", off)?));
            }
            if items.is_empty() {
                return Err(usage("no partition: give -t <topic:partition=offset>"));
            }
            let r = admin.delete_records(&items, o)?;
            rep.json = partition_results(&mut rep, &r, |low| {
                (
                    format!("low watermark {low}"),
                    vec![("low_watermark", J::from(*low))],
                )
            });
        }
        "list-offsets" => {
            let default = match p.one("--spec") {
                None => OffsetSpec::Latest,
                Some(v) => parse_enum("--spec", v, OffsetSpec::parse)?,
            };
            let mut items = Vec::new();
            for v in p.all("-t") {
                let (t, spec) = match v.split_once('=') {
                    Some((t, s)) => (t, parse_enum("-t", s, OffsetSpec::parse)?),
                    None => (v, default),
                };
                items.push((tp("-t", t)?, spec));
            }
            if items.is_empty() {
                return Err(usage("no partition: give -t <topic:partition>"));
            }
            let r = admin.list_offsets(&items, p.flag("--read-committed"), o)?;
            rep.json = partition_results(&mut rep, &r, |i| {
                (
                    format!("offset {} timestamp {}", i.offset, i.timestamp),
                    vec![
                        ("offset", J::from(i.offset)),
                        ("timestamp", J::from(i.timestamp)),
                        ("leader_epoch", J::from(i.leader_epoch)),
                    ],
                )
            });
        }
        "describe-client-quotas" => {
            let mut comps = Vec::new();
            for (opt, v) in &p.items {
                let c = match opt.as_str() {
                    "--match" => {
                        let (t, n) = kv(opt, v)?;
                        QuotaFilterComponent {
                            entity_type: t.into(),
                            matching: QuotaMatch::Exact(n.into()),
                        }
                    }
                    "--match-default" => QuotaFilterComponent {
                        entity_type: v.clone(),
                        matching: QuotaMatch::Default,
                    },
                    _ => QuotaFilterComponent {
                        entity_type: v.clone(),
                        matching: QuotaMatch::Any,
                    },
                };
                comps.push(c);
            }
            let r = admin.describe_client_quotas(&comps, p.flag("--strict"), o)?;
            for e in &r {
                let vals: Vec<String> = e.values.iter().map(|(k, v)| format!("{k}={v}")).collect();
                rep.lines.push(format!("{}: {}", e.entity, vals.join(", ")));
            }
            rep.json = J::Obj(vec![(
                "entries",
                J::Arr(
                    r.iter()
                        .map(|e| {
                            J::Obj(vec![
                                ("entity", entity_json(&e.entity)),
                                (
                                    "values",
                                    dyn_obj(Some(e.values.iter().map(|(k, v)| (k.clone(), *v)))),
                                ),
                            ])
                        })
                        .collect(),
                ),
            )]);
        }
        "alter-client-quotas" => {
            let mut alts: Vec<QuotaAlteration> = Vec::new();
            for (opt, v) in &p.items {
                match opt.as_str() {
                    "--entity" => {
                        let parts = v
                            .split(',')
                            .map(|part| {
                                let (t, n) = kv(opt, part)?;
                                Ok((t.to_string(), (!n.is_empty()).then(|| n.to_string())))
                            })
                            .collect::<Result<Vec<_>, Failure>>()?;
                        alts.push(QuotaAlteration {
                            entity: QuotaEntity::new(parts),
                            ops: Vec::new(),
                        });
                    }
                    _ => {
                        let a = alts
                            .last_mut()
                            .ok_or_else(|| usage(format!("{opt} before any --entity")))?;
                        if opt == "--remove" {
                            a.ops.push((v.clone(), None));
                        } else {
                            let (k, val) = kv(opt, v)?;
                            a.ops.push((k.to_string(), Some(num::<f64>(opt, val)?)));
                        }
                    }
                }
            }
            if alts.is_empty() {
                return Err(usage("no entity: give --entity <type=name>"));
            }
            let r = admin.alter_client_quotas(&alts, o)?;
            let mut js = Vec::new();
            for (e, res) in &r {
                rep.entity(format!("entity {e}"), res, |()| "altered".into());
                js.push(J::Obj(vec![
                    ("entity", entity_json(e)),
                    ("error", error_of(res)),
                ]));
            }
            rep.json = J::Obj(vec![("entries", J::Arr(js))]);
        }
        "describe-user-scram-credentials" => {
            let users = p.all("-u");
            let r = admin
                .describe_user_scram_credentials((!users.is_empty()).then_some(&users[..]), o)?;
            let mut js = Vec::new();
            for u in &r {
                rep.entity(format!("user {}", u.user), &u.result, |infos| {
                    infos
                        .iter()
                        .map(|i| {
                            format!("{} ({} iterations)", i.mechanism.sasl_name(), i.iterations)
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                });
                js.push(J::Obj(vec![
                    ("user", (&u.user).into()),
                    (
                        "credentials",
                        match &u.result {
                            Ok(infos) => J::Arr(
                                infos
                                    .iter()
                                    .map(|i| {
                                        J::Obj(vec![
                                            ("mechanism", i.mechanism.sasl_name().into()),
                                            ("iterations", i.iterations.into()),
                                        ])
                                    })
                                    .collect(),
                            ),
                            Err(_) => J::Null,
                        },
                    ),
                    ("error", error_of(&u.result)),
                ]));
            }
            rep.json = J::Obj(vec![("users", J::Arr(js))]);
        }
        "alter-user-scram-credentials" => {
            let mech = |opt: &str, m: &str| {
                parse_enum(opt, m, |s| {
                    ScramMechanism::parse(s)
                        .filter(|m| m.is_known() && *m != ScramMechanism::UNKNOWN)
                })
            };
            let mut alts = Vec::new();
            for (opt, v) in &p.items {
                if opt == "--delete" {
                    let (u, m) = v
                        .split_once(':')
                        .ok_or_else(|| usage(format!("--delete {v}: expected user:mechanism")))?;
                    alts.push(UserScramAlteration::Delete {
                        user: u.into(),
                        mechanism: mech(opt, m)?,
                    });
                } else {
                    let mut it = v.splitn(4, ':');
                    let (Some(u), Some(m), Some(i), Some(pw)) =
                        (it.next(), it.next(), it.next(), it.next())
                    else {
                        return Err(usage(format!(
                            "--upsert {v}: expected user:mechanism:iterations:password"
                        )));
                    };
                    alts.push(UserScramAlteration::Upsert {
                        user: u.into(),
                        mechanism: mech(opt, m)?,
                        iterations: num(opt, i)?,
                        password: pw.into(),
                        salt: None,
                    });
                }
            }
            if alts.is_empty() {
                return Err(usage("nothing to do: give --upsert or --delete"));
            }
            let r = admin.alter_user_scram_credentials(&alts, o)?;
            let mut js = Vec::new();
            for (u, res) in &r {
                rep.entity(format!("user {u}"), res, |()| "altered".into());
                js.push(J::Obj(vec![("user", u.into()), ("error", error_of(res))]));
            }
            rep.json = J::Obj(vec![("users", J::Arr(js))]);
        }
        "describe-producers" => {
            let parts: Vec<TopicPartition> = p
                .all("-t")
                .into_iter()
                .map(|v| tp("-t", v))
                .collect::<Result<_, _>>()?;
            if parts.is_empty() {
                return Err(usage("no partition: give -t <topic:partition>"));
            }
            let broker = p
                .one("--broker")
                .map(|b| num::<i32>("--broker", b))
                .transpose()?;
            let r = admin.describe_producers(&parts, broker, o)?;
            rep.json = partition_results(&mut rep, &r, |ps| {
                let text: Vec<String> = ps
                    .iter()
                    .map(|s| {
                        format!(
                            "producer {} epoch {} last sequence {}",
                            s.producer_id, s.producer_epoch, s.last_sequence
                        )
                    })
                    .collect();
                (
                    format!(
                        "{} active producers{}{}",
                        ps.len(),
                        if ps.is_empty() { "" } else { ": " },
                        text.join("; ")
                    ),
                    vec![(
                        "producers",
                        J::Arr(
                            ps.iter()
                                .map(|s| {
                                    J::Obj(vec![
                                        ("producer_id", s.producer_id.into()),
                                        ("producer_epoch", s.producer_epoch.into()),
                                        ("last_sequence", s.last_sequence.into()),
                                        ("last_timestamp", s.last_timestamp.into()),
                                        ("coordinator_epoch", s.coordinator_epoch.into()),
                                        (
                                            "current_transaction_start_offset",
                                            s.current_transaction_start_offset.into(),
                                        ),
                                    ])
                                })
                                .collect(),
                        ),
                    )],
                )
            });
        }
        "list-transactions" => {
            let states = p.all("--state");
            let pids: Vec<i64> = p
                .all("--producer-id")
                .into_iter()
                .map(|v| num("--producer-id", v))
                .collect::<Result<_, _>>()?;
            let dur = p
                .one("--duration")
                .map(|v| num::<i64>("--duration", v))
                .transpose()?;
            let r = admin.list_transactions(&states, &pids, dur, o)?;
            let mut js = Vec::new();
            for b in &r {
                match &b.result {
                    Ok(ts) => {
                        rep.lines.push(format!(
                            "broker {}: {} transactions",
                            b.broker_id,
                            ts.len()
                        ));
                        for t in ts {
                            rep.lines.push(format!(
                                "  {} producer {} {}",
                                t.transactional_id, t.producer_id, t.state
                            ));
                        }
                    }
                    Err(_) => rep.entity(format!("broker {}", b.broker_id), &b.result, |_| {
                        String::new()
                    }),
                }
                js.push(J::Obj(vec![
                    ("broker", b.broker_id.into()),
                    (
                        "transactions",
                        match &b.result {
                            Ok(ts) => J::Arr(
                                ts.iter()
                                    .map(|t| {
                                        J::Obj(vec![
                                            ("transactional_id", (&t.transactional_id).into()),
                                            ("producer_id", t.producer_id.into()),
                                            ("state", (&t.state).into()),
                                        ])
                                    })
                                    .collect(),
                            ),
                            Err(_) => J::Null,
                        },
                    ),
                    (
                        "unknown_state_filters",
                        b.unknown_state_filters.clone().into(),
                    ),
                    ("error", error_of(&b.result)),
                ]));
            }
            rep.json = J::Obj(vec![("brokers", J::Arr(js))]);
        }
        "describe-transactions" => {
            let mut idl = p.all("-i");
            idl.extend(p.all("--transactional-id"));
            if idl.is_empty() {
                return Err(usage("no transactional ID: give -i <id>"));
            }
            let r = admin.describe_transactions(&idl, o)?;
            let mut js = Vec::new();
            for (id, res) in &r {
                rep.entity(format!("transactional ID {id}"), res, |t| {
                    format!(
                        "{} producer {} epoch {} coordinator {} partitions [{}]",
                        t.state,
                        t.producer_id,
                        t.producer_epoch,
                        t.coordinator_id,
                        t.partitions
                            .iter()
                            .map(|p| format!("{}:{}", p.topic, p.partition))
                            .collect::<Vec<_>>()
                            .join(",")
                    )
                });
                let ok = res.as_ref().ok();
                js.push(J::Obj(vec![
                    ("transactional_id", id.into()),
                    ("state", ok.map(|t| t.state.clone()).into()),
                    ("producer_id", ok.map(|t| t.producer_id).into()),
                    ("producer_epoch", ok.map(|t| t.producer_epoch).into()),
                    ("coordinator_id", ok.map(|t| t.coordinator_id).into()),
                    (
                        "transaction_timeout_ms",
                        ok.map(|t| t.transaction_timeout_ms).into(),
                    ),
                    (
                        "transaction_start_time_ms",
                        ok.map(|t| t.transaction_start_time_ms).into(),
                    ),
                    (
                        "partitions",
                        ok.map(|t| {
                            J::Arr(
                                t.partitions
                                    .iter()
                                    .map(|p| {
                                        J::Obj(vec![
                                            ("topic", (&p.topic).into()),
                                            ("partition", p.partition.into()),
                                        ])
                                    })
                                    .collect(),
                            )
                        })
                        .unwrap_or(J::Null),
                    ),
                    ("error", error_of(res)),
                ]));
            }
            rep.json = J::Obj(vec![("transactions", J::Arr(js))]);
        }
        g if g.starts_with("groups ") => groups(&admin, p, &mut rep)?,
        other => return Err(usage(format!("unknown command \"{other}\""))),
    }
    admin.close();
    Ok(rep)
}

fn tp_json(t: &TopicPartition) -> J {
    J::Obj(vec![
        ("topic", (&t.topic).into()),
        ("partition", t.partition.into()),
    ])
}

fn tp_text(ps: &[TopicPartition]) -> String {
    ps.iter()
        .map(|p| format!("{}:{}", p.topic, p.partition))
        .collect::<Vec<_>>()
        .join(",")
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// `gregor admin groups …`.
fn groups(admin: &AdminClient, p: &Parsed, rep: &mut Report) -> Result<(), Failure> {
    let o = &p.opts;
    let args: Vec<&str> = p.positional.iter().map(String::as_str).collect();
    let group_arg = || {
        args.first()
            .copied()
            .ok_or_else(|| usage("no group: give the group ID"))
    };
    match p.cmd.as_str() {
        "groups list" => {
            let l = admin.list_groups(&p.all("--state"), &p.all("--type"), o)?;
            for g in &l.groups {
                rep.lines.push(format!(
                    "group {}: protocol type {}, state {}{}, coordinator {}",
                    g.group_id,
                    if g.protocol_type.is_empty() {
                        "<none>"
                    } else {
                        &g.protocol_type
                    },
                    g.state.as_deref().unwrap_or("<unknown>"),
                    g.group_type
                        .as_ref()
                        .map_or(String::new(), |t| format!(", type {t}")),
                    g.coordinator_id
                ));
            }
            for (b, e) in &l.errors {
                rep.entity(format!("broker {b}"), &Err::<(), _>(e.clone()), |_| {
                    String::new()
                });
            }
            rep.json = J::Obj(vec![
                (
                    "groups",
                    J::Arr(
                        l.groups
                            .iter()
                            .map(|g| {
                                J::Obj(vec![
                                    ("group_id", (&g.group_id).into()),
                                    ("protocol_type", (&g.protocol_type).into()),
                                    ("state", g.state.clone().into()),
                                    ("type", g.group_type.clone().into()),
                                    (
                                        "is_simple_consumer_group",
                                        g.is_simple_consumer_group().into(),
                                    ),
                                    ("coordinator", g.coordinator_id.into()),
                                ])
                            })
                            .collect(),
                    ),
                ),
                (
                    "errors",
                    J::Arr(
                        l.errors
                            .iter()
                            .map(|(b, e)| {
                                J::Obj(vec![("broker", (*b).into()), ("error", error(e))])
                            })
                            .collect(),
                    ),
                ),
            ]);
        }
        "groups describe" => {
            if args.is_empty() {
                return Err(usage("no group: give one or more group IDs"));
            }
            let r = admin.describe_groups(&args, p.flag("--include-authorized-operations"), o)?;
            let mut js = Vec::new();
            for (id, res) in &r {
                match res {
                    Ok(g) => {
                        rep.lines.push(format!(
                            "group {id}: state {}, protocol type {}, protocol {}, coordinator {} ({}:{}), {} members{}",
                            g.state,
                            if g.protocol_type.is_empty() { "<none>" } else { &g.protocol_type },
                            if g.protocol.is_empty() { "<none>" } else { &g.protocol },
                            g.coordinator.id,
                            g.coordinator.host,
                            g.coordinator.port,
                            g.members.len(),
                            g.authorized_operations.as_ref().map_or(String::new(), |ops| format!(
                                ", authorized operations {}",
                                op_names(ops).join(",")
                            ))
                        ));
                        for m in &g.members {
                            rep.lines.push(format!(
                                "  member {}{}: client id \"{}\", host \"{}\", metadata {} bytes, assignment {} bytes",
                                m.member_id,
                                m.group_instance_id.as_ref().map_or(String::new(), |i| format!(" (instance {i})")),
                                m.client_id,
                                m.client_host,
                                m.metadata.len(),
                                m.assignment_bytes.len()
                            ));
                            match &m.subscription {
                                Some(Ok(s)) => rep.lines.push(format!(
                                    "    subscription v{}: topics {}; owned [{}]; generation {}; rack {}; user data {} bytes",
                                    s.version,
                                    s.topics.join(","),
                                    tp_text(&s.owned_partitions),
                                    s.generation_id.map_or("-".to_string(), |g| g.to_string()),
                                    s.rack_id.as_deref().unwrap_or("-"),
                                    s.user_data.as_ref().map_or(0, Vec::len)
                                )),
                                Some(Err(e)) => {
                                    rep.failed = true;
                                    rep.lines.push(format!("    subscription: error {}: {e}", crate::error::code_name(e.code())));
                                }
                                None => {}
                            }
                            match &m.assignment {
                                Some(Ok(a)) => rep.lines.push(format!(
                                    "    assignment v{}: [{}]; user data {} bytes",
                                    a.version,
                                    tp_text(&a.partitions),
                                    a.user_data.as_ref().map_or(0, Vec::len)
                                )),
                                Some(Err(e)) => {
                                    rep.failed = true;
                                    rep.lines.push(format!(
                                        "    assignment: error {}: {e}",
                                        crate::error::code_name(e.code())
                                    ));
                                }
                                None => {}
                            }
                        }
                    }
                    Err(_) => rep.entity(format!("group {id}"), res, |_| String::new()),
                }
                js.push(group_json(id, res));
            }
            rep.json = J::Obj(vec![("groups", J::Arr(js))]);
        }
        "groups delete" => {
            if args.is_empty() {
                return Err(usage("no group: give one or more group IDs"));
            }
            let r = admin.delete_groups(&args, o)?;
            let mut js = Vec::new();
            for (id, res) in &r {
                rep.entity(format!("group {id}"), res, |()| "deleted".into());
                js.push(J::Obj(vec![
                    ("group_id", id.into()),
                    ("error", error_of(res)),
                ]));
            }
            rep.json = J::Obj(vec![("groups", J::Arr(js))]);
        }
        "groups offsets list" => {
            let group = group_arg()?;
            let mut named: Vec<TopicPartition> = Vec::new();
            let mut whole: Vec<&str> = Vec::new();
            for a in &args[1..] {
                match parse_topic_partition(a) {
                    Ok(t) => named.push(t),
                    Err(_) if !a.is_empty() => whole.push(a),
                    Err(e) => return Err(usage(e.to_string())),
                }
            }
            // a topic without a partition: every partition it has
            if !whole.is_empty() {
                for t in admin.describe_topics(&whole, false, o)? {
                    let d = t.result.map_err(Failure::Call)?;
                    let n = t.name.unwrap_or_default();
                    named.extend(
                        d.partitions
                            .iter()
                            .map(|x| TopicPartition::new(n.clone(), x.partition)),
                    );
                }
            }
            let asked = (!args[1..].is_empty()).then_some(&named[..]);
            let r = admin.list_group_offsets(group, asked, p.flag("--require-stable"), o)?;
            let j = partition_results(rep, &r, |x| {
                (
                    format!(
                        "offset {}{}{}",
                        x.offset,
                        x.leader_epoch
                            .map_or(String::new(), |e| format!(", leader epoch {e}")),
                        x.metadata
                            .as_ref()
                            .filter(|m| !m.is_empty())
                            .map_or(String::new(), |m| format!(", metadata \"{m}\""))
                    ),
                    vec![
                        ("offset", J::from(x.offset)),
                        ("leader_epoch", J::from(x.leader_epoch)),
                        ("metadata", J::from(x.metadata.clone())),
                    ],
                )
            });
            rep.json = with_group(group, j);
        }
        "groups offsets alter" => {
            let group = group_arg()?;
            let mut items = Vec::new();
            for v in &args[1..] {
                let (t, off) = v
                    .split_once('=')
                    .ok_or_else(|| usage(format!("{v}: expected topic:partition=offset")))?;
                items.push((
                    tp("offset", t)?,
                    OffsetAndMetadata::new(num::<i64>("offset", off)?),
                ));
            }
            if items.is_empty() {
                return Err(usage("no offset: give topic:partition=offset"));
            }
            let r = admin.alter_group_offsets(group, &items, o)?;
            let j = partition_results(rep, &r, |()| ("committed".into(), vec![]));
            rep.json = with_group(group, j);
        }
        _ => {
            let group = group_arg()?;
            let parts: Vec<TopicPartition> = args[1..]
                .iter()
                .map(|v| tp("partition", v))
                .collect::<Result<_, _>>()?;
            if parts.is_empty() {
                return Err(usage("no partition: give topic:partition"));
            }
            let r = admin.delete_group_offsets(group, &parts, o)?;
            let j = partition_results(rep, &r, |()| ("deleted".into(), vec![]));
            rep.json = with_group(group, j);
        }
    }
    Ok(())
}

fn with_group(group: &str, j: J) -> J {
    match j {
        J::Obj(mut v) => {
            v.insert(0, ("group_id", group.into()));
            J::Obj(v)
        }
        other => other,
    }
}

fn sub_json(r: &Option<Result<MemberSubscription>>) -> J {
    match r {
        Some(Ok(s)) => J::Obj(vec![
            ("version", s.version.into()),
            ("topics", s.topics.clone().into()),
            ("user_data_hex", s.user_data.as_deref().map(hex).into()),
            (
                "owned_partitions",
                J::Arr(s.owned_partitions.iter().map(tp_json).collect()),
            ),
            ("generation_id", s.generation_id.into()),
            ("rack_id", s.rack_id.clone().into()),
        ]),
        _ => J::Null,
    }
}

fn asg_json(r: &Option<Result<MemberAssignment>>) -> J {
    match r {
        Some(Ok(a)) => J::Obj(vec![
            ("version", a.version.into()),
            (
                "partitions",
                J::Arr(a.partitions.iter().map(tp_json).collect()),
            ),
            ("user_data_hex", a.user_data.as_deref().map(hex).into()),
        ]),
        _ => J::Null,
    }
}

fn decode_err<T>(r: &Option<Result<T>>) -> J {
    match r {
        Some(Err(e)) => error(e),
        _ => J::Null,
    }
}

fn group_json(id: &str, res: &Result<GroupDescription>) -> J {
    let ok = res.as_ref().ok();
    J::Obj(vec![
        ("group_id", id.into()),
        ("state", ok.map(|g| g.state.clone()).into()),
        ("protocol_type", ok.map(|g| g.protocol_type.clone()).into()),
        ("protocol", ok.map(|g| g.protocol.clone()).into()),
        (
            "coordinator",
            ok.map_or(J::Null, |g| {
                J::Obj(vec![
                    ("id", g.coordinator.id.into()),
                    ("host", (&g.coordinator.host).into()),
                    ("port", g.coordinator.port.into()),
                ])
            }),
        ),
        (
            "authorized_operations",
            ops_json(ok.and_then(|g| g.authorized_operations.as_deref())),
        ),
        (
            "members",
            ok.map_or(J::Null, |g| {
                J::Arr(
                    g.members
                        .iter()
                        .map(|m| {
                            J::Obj(vec![
                                ("member_id", (&m.member_id).into()),
                                ("group_instance_id", m.group_instance_id.clone().into()),
                                ("client_id", (&m.client_id).into()),
                                ("client_host", (&m.client_host).into()),
                                ("metadata_hex", hex(&m.metadata).into()),
                                ("assignment_hex", hex(&m.assignment_bytes).into()),
                                ("subscription", sub_json(&m.subscription)),
                                ("subscription_error", decode_err(&m.subscription)),
                                ("assignment", asg_json(&m.assignment)),
                                ("assignment_error", decode_err(&m.assignment)),
                            ])
                        })
                        .collect(),
                )
            }),
        ),
        ("error", error_of(res)),
    ])
}

fn op_names(ops: &[AclOperation]) -> Vec<&'static str> {
    ops.iter().map(|o| o.name()).collect()
}

fn ops_json(ops: Option<&[AclOperation]>) -> J {
    ops.map_or(J::Null, |ops| {
        J::from(op_names(ops).into_iter().map(J::from).collect::<Vec<_>>())
    })
}

fn topic_results<T>(rep: &mut Report, r: &[TopicResult<T>], ok: impl Fn(&T) -> String) -> J {
    let mut js = Vec::new();
    for t in r {
        let n = t.name.clone().unwrap_or_default();
        rep.entity(format!("topic {n}"), &t.result, &ok);
        js.push(J::Obj(vec![
            ("name", n.into()),
            ("error", error_of(&t.result)),
        ]));
    }
    J::Obj(vec![("topics", J::Arr(js))])
}

type Fields = Vec<(&'static str, J)>;

fn partition_results<T>(
    rep: &mut Report,
    r: &[PartitionResult<T>],
    ok: impl Fn(&T) -> (String, Fields),
) -> J {
    let mut js = Vec::new();
    for x in r {
        let mut fields: Fields = vec![
            ("topic", (&x.partition.topic).into()),
            ("partition", x.partition.partition.into()),
        ];
        match &x.result {
            Ok(v) => {
                let (text, more) = ok(v);
                rep.lines.push(format!("{}: {text}", x.partition));
                fields.extend(more);
            }
            Err(_) => rep.entity(&x.partition, &x.result, |_| String::new()),
        }
        fields.push(("error", error_of(&x.result)));
        js.push(J::Obj(fields));
    }
    J::Obj(vec![("partitions", J::Arr(js))])
}

fn topic_description_json(t: &TopicResult<TopicDescription>) -> J {
    let ok = t.result.as_ref().ok();
    J::Obj(vec![
        ("name", t.name.clone().into()),
        (
            "topic_id",
            (!t.topic_id.is_zero())
                .then(|| t.topic_id.to_kafka_string())
                .into(),
        ),
        ("is_internal", ok.map(|d| d.is_internal).into()),
        (
            "partitions",
            ok.map(|d| {
                J::Arr(
                    d.partitions
                        .iter()
                        .map(|p| {
                            J::Obj(vec![
                                ("partition", p.partition.into()),
                                ("leader", p.leader.into()),
                                ("leader_epoch", p.leader_epoch.into()),
                                ("replicas", p.replicas.clone().into()),
                                ("isr", p.isr.clone().into()),
                                ("offline_replicas", p.offline_replicas.clone().into()),
                                ("error", p.error.map(|e| e.name()).into()),
                            ])
                        })
                        .collect(),
                )
            })
            .unwrap_or(J::Null),
        ),
        (
            "authorized_operations",
            ops_json(ok.and_then(|d| d.authorized_operations.as_deref())),
        ),
        ("error", error_of(&t.result)),
    ])
}

fn config_entry_json(e: &ConfigEntry) -> J {
    J::Obj(vec![
        ("name", (&e.name).into()),
        ("value", e.value.clone().into()),
        ("source", e.source.name().into()),
        ("is_default", e.is_default.into()),
        ("is_read_only", e.is_read_only.into()),
        ("is_sensitive", e.is_sensitive.into()),
        ("type", e.config_type.name().into()),
        ("documentation", e.documentation.clone().into()),
        (
            "synonyms",
            J::Arr(
                e.synonyms
                    .iter()
                    .map(|s| {
                        J::Obj(vec![
                            ("name", (&s.name).into()),
                            ("value", s.value.clone().into()),
                            ("source", s.source.name().into()),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

fn log_dir_json(d: &LogDirDescription) -> J {
    J::Obj(vec![
        ("path", (&d.path).into()),
        ("error", d.error.as_ref().map_or(J::Null, error)),
        ("total_bytes", d.total_bytes.into()),
        ("usable_bytes", d.usable_bytes.into()),
        (
            "replicas",
            J::Arr(
                d.replicas
                    .iter()
                    .map(|r| {
                        J::Obj(vec![
                            ("topic", (&r.partition.topic).into()),
                            ("partition", r.partition.partition.into()),
                            ("size", r.size.into()),
                            ("offset_lag", r.offset_lag.into()),
                            ("is_future", r.is_future.into()),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

fn acl_json(b: &AclBinding) -> J {
    J::Obj(vec![
        ("resource_type", b.resource_type.name().into()),
        ("resource_name", (&b.resource_name).into()),
        ("pattern_type", b.pattern_type.name().into()),
        ("principal", (&b.principal).into()),
        ("host", (&b.host).into()),
        ("operation", b.operation.name().into()),
        ("permission_type", b.permission_type.name().into()),
    ])
}

fn entity_json(e: &QuotaEntity) -> J {
    J::Arr(
        e.parts()
            .iter()
            .map(|(t, n)| J::Obj(vec![("type", t.into()), ("name", n.clone().into())]))
            .collect(),
    )
}

fn acl_filter(p: &Parsed) -> Result<AclBindingFilter, Failure> {
    let mut f = AclBindingFilter::any();
    for (opt, v) in &p.items {
        match opt.as_str() {
            "--resource-type" => f.resource_type = parse_enum(opt, v, ResourceType::parse)?,
            "--resource-name" => f.resource_name = Some(v.clone()),
            "--pattern-type" => f.pattern_type = parse_enum(opt, v, PatternType::parse)?,
            "--principal" => f.principal = Some(v.clone()),
            "--host" => f.host = Some(v.clone()),
            "--operation" => f.operation = parse_enum(opt, v, AclOperation::parse)?,
            _ => f.permission_type = parse_enum(opt, v, AclPermissionType::parse)?,
        }
    }
    Ok(f)
}
