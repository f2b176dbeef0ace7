//! `gregor admin …`: one subcommand per admin operation, text or `-J` JSON
//! output. The `gregor` binary hands everything after `admin` to [`run`];
//! one module per family of commands, each command one function.
//!
//! Exit codes: 0 when the call and every entity succeeded, 1 when the call
//! or any entity failed (each failure is printed with its Kafka error name),
//! 2 for a usage error (unknown command or option, bad value).

mod acls;
mod cluster;
mod configs;
mod groups;
mod json;
mod quotas;
mod topics;
mod transactions;

use std::io::Write;
use std::time::Duration;

use gregor::admin::*;
use gregor::config::Config;
use gregor::error::{Error, Result};
use gregor::metadata::Uuid;
use json::{dyn_obj, error, error_of, J};

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
                gregor::error::code_name(e.code())
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
                    gregor::error::code_name(e.code())
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

/// One command: its arguments in, what it printed into the report.
type Command = fn(Cmd<'_>) -> Done;

/// What a command works with: the client, the parsed command line and its
/// admin options, and the report it fills in.
struct Cmd<'a> {
    admin: &'a AdminClient,
    p: &'a Parsed,
    o: &'a AdminOptions,
    rep: &'a mut Report,
}

/// A command's outcome: `Ok` when it ran (entities may still have failed,
/// as the report says), else why the whole call failed.
type Done = Result<(), Failure>;

fn execute(p: &Parsed) -> Result<Report, Failure> {
    let admin = AdminClient::new(&p.cfg).map_err(|e| usage(e.to_string()))?;
    let mut rep = Report::new();
    let command: Command = match p.cmd.as_str() {
        "create-topics" => topics::create_topics,
        "delete-topics" => topics::delete_topics,
        "create-partitions" => topics::create_partitions,
        "describe-topics" => topics::describe_topics,
        "delete-records" => topics::delete_records,
        "list-offsets" => topics::list_offsets,
        "describe-configs" => configs::describe_configs,
        "alter-configs" => configs::alter_configs,
        "incremental-alter-configs" => configs::alter_configs,
        "describe-acls" => acls::describe_acls,
        "create-acls" => acls::create_acls,
        "delete-acls" => acls::delete_acls,
        "describe-cluster" => cluster::describe_cluster,
        "describe-log-dirs" => cluster::describe_log_dirs,
        "elect-leaders" => cluster::elect_leaders,
        "alter-partition-reassignments" => cluster::alter_partition_reassignments,
        "list-partition-reassignments" => cluster::list_partition_reassignments,
        "describe-client-quotas" => quotas::describe_client_quotas,
        "alter-client-quotas" => quotas::alter_client_quotas,
        "describe-user-scram-credentials" => quotas::describe_user_scram_credentials,
        "alter-user-scram-credentials" => quotas::alter_user_scram_credentials,
        "describe-producers" => transactions::describe_producers,
        "list-transactions" => transactions::list_transactions,
        "describe-transactions" => transactions::describe_transactions,
        g if g.starts_with("groups ") => groups::groups,
        other => return Err(usage(format!("unknown command \"{other}\""))),
    };
    command(Cmd {
        admin: &admin,
        p,
        o: &p.opts,
        rep: &mut rep,
    })?;
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

fn op_names(ops: &[AclOperation]) -> Vec<&'static str> {
    ops.iter().map(|o| o.name()).collect()
}

fn ops_json(ops: Option<&[AclOperation]>) -> J {
    ops.map_or(J::Null, |ops| {
        J::from(op_names(ops).into_iter().map(J::from).collect::<Vec<_>>())
    })
}
