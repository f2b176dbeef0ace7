//! The property table of src/config.rs against librdkafka 2.15's
//! CONFIGURATION.md (tests/fixtures/librdkafka-2.15-properties.txt): every
//! name librdkafka knows is known to gregor, either implemented or accepted
//! with a warning saying it has no effect; callbacks are known but set
//! through their functions; a name librdkafka does not know stays an error
//! naming it. And docs/CONFIGURATION.md is the table, generated:
//! `GREGOR_WRITE_CONFIGURATION=1 cargo test --test config_properties` rewrites
//! it; this test fails while the checked-in file is stale.

use std::collections::BTreeMap;
use std::path::PathBuf;

use gregor::config::{ClientKind, Config, PropertyInfo, Role, Status};

struct Row {
    role: char,
    section: String,
    kind: String,
}

fn fixture() -> BTreeMap<String, Row> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/librdkafka-2.15-properties.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 4, "bad fixture line {line:?}");
        // a topic property repeating a global one: the global row counts
        out.entry(f[0].to_string()).or_insert(Row {
            role: f[1].chars().next().unwrap(),
            section: f[2].to_string(),
            kind: f[3].to_string(),
        });
    }
    out
}

fn info(name: &str) -> Option<PropertyInfo> {
    Config::properties().find(|p| p.name == name || p.aliases.contains(&name))
}

/// A value the property accepts.
fn sample(p: &PropertyInfo) -> String {
    match (p.kind, p.range, p.values) {
        (_, Some((min, max)), _) => (if min <= 1 && 1 <= max { 1 } else { min }).to_string(),
        ("boolean", ..) => "true".into(),
        ("enum", _, v) => v[0][0].to_string(),
        _ if p.name == "debug" => "broker,cgrp".into(),
        _ => "x".into(),
    }
}

/// A client kind that reads a property of `role`.
fn reader(role: Role) -> ClientKind {
    match role {
        Role::Consumer => ClientKind::Consumer,
        _ => ClientKind::Producer,
    }
}

#[test]
fn every_librdkafka_property_is_implemented_or_accepted_with_a_warning() {
    let rows = fixture();
    assert_eq!(
        rows.len(),
        193,
        "librdkafka 2.15 has 193 distinct property names"
    );
    let (mut implemented, mut no_effect, mut callbacks) = (0, 0, 0);
    for (name, row) in &rows {
        let p = info(name).unwrap_or_else(|| panic!("{name}: unknown to gregor"));
        // the role is librdkafka's (C/P/*), topic properties included
        let role = match p.role {
            Role::Any => '*',
            Role::Consumer => 'C',
            Role::Producer => 'P',
        };
        assert_eq!(role, row.role, "{name} ({}): role", row.section);
        let mut c = Config::new();
        if row.kind == "api" {
            assert_eq!(p.kind, "callback (dedicated function)", "{name}");
            let e = c.set(name, "x").map(|_| ()).unwrap_err();
            let m = e.to_string();
            assert!(
                m.contains(name.as_str()) && m.contains("dedicated function"),
                "{name}: {m}"
            );
            callbacks += 1;
            continue;
        }
        let v = sample(&p);
        c.set(name, &v)
            .unwrap_or_else(|e| panic!("{name}={v} refused: {e}"));
        let warnings = c.warnings(reader(p.role));
        let warned = warnings
            .iter()
            .any(|w| w.contains(&format!("property {} ", p.name)) && w.contains("no effect"));
        match p.status {
            Status::Implemented => {
                assert!(!warned, "{name}: implemented, yet {warnings:?}");
                implemented += 1;
            }
            Status::NoEffect => {
                assert!(warned, "{name}: accepted without a warning: {warnings:?}");
                no_effect += 1;
            }
        }
    }
    eprintln!(
        "librdkafka 2.15: {} names: {implemented} implemented, {no_effect} accepted with a \
         warning, {callbacks} callbacks set through functions",
        rows.len()
    );
    // gregor's own properties beyond librdkafka's
    let own: Vec<&str> = Config::properties()
        .filter(|p| !rows.contains_key(p.name) && !p.aliases.iter().any(|a| rows.contains_key(*a)))
        .map(|p| p.name)
        .collect();
    assert_eq!(
        own,
        [
            "sasl.oauthbearer.token",
            "zookeeper.connect",
            "zookeeper.session.timeout.ms",
            "consumer.id",
            "rebalance.max.retries",
            "rebalance.backoff.ms",
            // librdkafka's hidden properties (rdkafka_conf.c), not in its CONFIGURATION.md
            "enable.sparse.connections",
            // librdkafka's test properties (rdkafka_conf.c), not in its CONFIGURATION.md
            "test.mock.num.brokers",
            "test.mock.broker.rtt",
        ]
    );
}

#[test]
fn names_librdkafka_does_not_know_are_errors_naming_them() {
    for name in [
        "bootstrap.server",
        "socket.keepalive.enabled",
        "linger.msec",
        "debug.contexts",
        "log.level",
    ] {
        let e = Config::new().set(name, "1").map(|_| ()).unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains(name) && m.contains("no such configuration property"),
            "{m}"
        );
    }
}

#[test]
fn other_role_properties_are_warnings_not_errors() {
    // one dict for a producer and a consumer, as C programs and Python dicts share them
    let c = Config::from_pairs([
        ("linger.ms", "10"),
        ("group.id", "g"),
        ("socket.keepalive.enable", "true"),
        ("debug", "broker"),
    ])
    .unwrap();
    let p = gregor::producer::Producer::new(&c).expect("producer");
    let k = gregor::consumer::Consumer::new(&c).expect("consumer");
    let a = gregor::admin::AdminClient::new(&c).expect("admin");
    drop((p, k, a));
    let w = c.warnings(ClientKind::Consumer);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].contains("linger.ms is a producer property"), "{w:?}");
}

fn escape(s: &str) -> String {
    s.replace('|', "\\|")
}

fn generate() -> String {
    let mut s = String::from(
        "# gregor configuration properties\n\n\
         Generated from the property table in src/config.rs by\n\
         `GREGOR_WRITE_CONFIGURATION=1 cargo test --test config_properties`\n\
         (the same test fails when this file is stale). Every property of\n\
         librdkafka 2.15's CONFIGURATION.md is known by name:\n\n\
         - **implemented**: gregor acts on it;\n\
         - **no effect**: accepted so configurations written for librdkafka work,\n  \
         and the client logs a `CONFWARN` warning naming it when it is created;\n\
         - **callback**: a function or pointer, set through its dedicated call\n  \
         (setting it as a string is an error, as in librdkafka).\n\n\
         A name librdkafka does not know is an error naming it. A property of the\n\
         other role (C = consumer, P = producer, * = both) is ignored with a\n\
         warning; an admin client warns about both. Secrets are shown as\n\
         `[redacted]` by `gregor_config_dump` and the bindings' dumps.\n\n\
         Property | C/P | Status | Range | Default | Description\n\
         ---------|-----|--------|-------|---------|------------\n",
    );
    for p in Config::properties() {
        let role = match p.role {
            Role::Any => "*",
            Role::Consumer => "C",
            Role::Producer => "P",
        };
        let status = match (p.kind, p.status) {
            ("callback (dedicated function)", Status::Implemented) => "callback",
            ("callback (dedicated function)", Status::NoEffect) => "callback, not available",
            (_, Status::Implemented) => "implemented",
            (_, Status::NoEffect) => "no effect",
        };
        let range = match (p.range, p.values) {
            (Some((a, b)), _) => format!("{a} .. {b}"),
            (None, v) if !v.is_empty() => v.iter().map(|c| c[0]).collect::<Vec<_>>().join(", "),
            _ if p.kind == "boolean" => "true, false".into(),
            _ => String::new(),
        };
        let mut name = format!("`{}`", p.name);
        for a in p.aliases {
            name.push_str(&format!(" (alias `{a}`)"));
        }
        let secret = if p.secret { " (secret)" } else { "" };
        s.push_str(&format!(
            "{name} | {role} | {status} | {} | {} | {}{secret}\n",
            escape(&range),
            escape(p.default),
            escape(p.doc)
        ));
    }
    s
}

#[test]
fn configuration_md_is_generated_from_the_table() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/CONFIGURATION.md");
    let text = generate();
    if std::env::var_os("GREGOR_WRITE_CONFIGURATION").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == text,
        "docs/CONFIGURATION.md is stale: run GREGOR_WRITE_CONFIGURATION=1 cargo test --test \
         config_properties"
    );
}
