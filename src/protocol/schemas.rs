//! Every message gregor declares with `kafka_struct!`, checked against
//! Kafka's own JSON message schemas (vendored with their license in
//! `tests/kafka-schemas/`, see its README): the API key, the valid and
//! flexible versions, and for every field of every struct, in wire order,
//! its name, type, versions, nullable versions, tag and whether it is
//! ignorable. Only the versions gregor implements are compared. The
//! request and response headers (`protocol::header`, declared with its own
//! `header_codec!`) are checked the same way against `RequestHeader.json`
//! and `ResponseHeader.json`, field-level flexible versions included.
//!
//! The schemas are Kafka's JSON with whole-line `//` comments (Kafka's
//! generator reads them with comments allowed); field names are Kafka's
//! CamelCase, gregor's their snake case; a `records` field is gregor's
//! `Bytes` (the record batch is decoded by `crate::record`).

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use super::codec::{FieldInfo, SchemaType};
use super::{Message, Request};

/// How many fields and structs were compared (printed by the test).
static FIELDS: AtomicUsize = AtomicUsize::new(0);
static STRUCTS: AtomicUsize = AtomicUsize::new(0);

/// A schema file: its top-level object and its common structs by name.
struct Schema {
    json: Value,
    common: HashMap<String, Vec<Value>>,
}

fn load(name: &str) -> Schema {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kafka-schemas")
        .join(format!("{name}.json"));
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json_text: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let json: Value =
        serde_json::from_str(&json_text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut common = HashMap::new();
    for c in json["commonStructs"].as_array().into_iter().flatten() {
        common.insert(
            c["name"].as_str().unwrap().to_string(),
            c["fields"].as_array().unwrap().clone(),
        );
    }
    Schema { json, common }
}

/// A schema version range ("0+", "3-7", "5", "none") as (min, max), empty
/// (min > max) for "none" or a missing key.
fn range(v: &Value) -> (i16, i16) {
    let Some(s) = v.as_str() else {
        return (1, 0);
    };
    if s == "none" {
        return (1, 0);
    }
    if let Some(lo) = s.strip_suffix('+') {
        return (lo.parse().unwrap(), i16::MAX);
    }
    match s.split_once('-') {
        Some((lo, hi)) => (lo.parse().unwrap(), hi.parse().unwrap()),
        None => {
            let v = s.parse().unwrap();
            (v, v)
        }
    }
}

/// `a` ∩ `b`, normalized so every empty range compares equal.
fn clip(a: (i16, i16), b: (i16, i16)) -> (i16, i16) {
    let r = (a.0.max(b.0), a.1.min(b.1));
    if r.0 > r.1 {
        (1, 0)
    } else {
        r
    }
}

fn show(r: (i16, i16)) -> String {
    match r {
        (lo, hi) if lo > hi => "none".into(),
        (lo, i16::MAX) => format!("{lo}+"),
        (lo, hi) if lo == hi => format!("{lo}"),
        (lo, hi) => format!("{lo}-{hi}"),
    }
}

/// Kafka's CamelCase field name in gregor's snake case.
fn snake(name: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower = i > 0 && !chars[i - 1].is_ascii_uppercase();
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if i > 0 && (prev_lower || next_lower) {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Compares one struct's fields with a schema's, within `span` (the
/// versions both implement, narrowed to those that carry the struct).
fn compare(
    path: &str,
    ours: &[FieldInfo],
    theirs: &[Value],
    schema: &Schema,
    span: (i16, i16),
    out: &mut Vec<String>,
) {
    STRUCTS.fetch_add(1, Ordering::Relaxed);
    // Schema fields present somewhere in the span, by snake-case name.
    let mut wanted = Vec::new();
    for f in theirs {
        let versions = clip(range(&f["versions"]), span);
        if versions.0 > versions.1 {
            continue;
        }
        wanted.push((snake(f["name"].as_str().unwrap()), f, versions));
    }
    // A Rust keyword is escaped (`r#match`) or prefixed (`_type`).
    let ours: Vec<FieldInfo> = ours
        .iter()
        .map(|o| FieldInfo {
            name: o.name.trim_start_matches("r#").trim_start_matches('_'),
            ..o.clone()
        })
        .collect();
    let ours = &ours[..];
    let present: Vec<&FieldInfo> = ours
        .iter()
        .filter(|o| clip(o.versions, span).0 <= clip(o.versions, span).1)
        .collect();
    for o in &present {
        if !wanted.iter().any(|(n, _, _)| n == o.name) {
            out.push(format!("{path}.{}: not in Kafka's schema", o.name));
        }
    }
    // Untagged fields in wire order.
    let our_order: Vec<&str> = present
        .iter()
        .filter(|o| o.tag.is_none())
        .map(|o| o.name)
        .filter(|n| wanted.iter().any(|(w, _, _)| w == n))
        .collect();
    let their_order: Vec<&str> = wanted
        .iter()
        .filter(|(_, f, _)| f.get("tag").is_none())
        .map(|(n, _, _)| n.as_str())
        .filter(|n| present.iter().any(|o| o.name == *n))
        .collect();
    if our_order != their_order {
        out.push(format!(
            "{path}: field order {our_order:?}, Kafka's {their_order:?}"
        ));
    }
    for (name, f, versions) in &wanted {
        let p = format!("{path}.{name}");
        FIELDS.fetch_add(1, Ordering::Relaxed);
        let Some(o) = ours.iter().find(|o| o.name == name) else {
            out.push(format!(
                "{p}: missing (Kafka: versions {})",
                show(*versions)
            ));
            continue;
        };
        let our_versions = clip(o.versions, span);
        if our_versions != *versions {
            out.push(format!(
                "{p}: versions {}, Kafka's {}",
                show(our_versions),
                show(*versions)
            ));
        }
        let their_null = clip(range(&f["nullableVersions"]), *versions);
        let our_null = clip(o.nullable, *versions);
        if our_null != their_null {
            out.push(format!(
                "{p}: nullable in {}, Kafka's {}",
                show(our_null),
                show(their_null)
            ));
        }
        let their_tag = f["tag"].as_u64().map(|t| t as u32);
        if o.tag != their_tag {
            out.push(format!("{p}: tag {:?}, Kafka's {their_tag:?}", o.tag));
        }
        if their_tag.is_some() {
            let tagged = clip(range(&f["taggedVersions"]), span);
            if tagged != *versions {
                out.push(format!(
                    "{p}: tagged in {} but present in {}",
                    show(tagged),
                    show(*versions)
                ));
            }
        }
        let their_ignorable = f["ignorable"].as_bool().unwrap_or(false);
        if o.ignorable != their_ignorable {
            out.push(format!(
                "{p}: ignorable {}, Kafka's {their_ignorable}",
                o.ignorable
            ));
        }
        if let Some(d) = f.get("default") {
            let theirs = match d {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let ours = o
                .default
                .trim_start_matches("Some(")
                .trim_end_matches(')')
                .trim_matches('"');
            let same = ours == theirs
                || (theirs == "null" && ours == "None")
                // Kafka writes some int defaults in hex or with a sign.
                || i64::from_str_radix(theirs.trim_start_matches("0x"), 16)
                    .ok()
                    .filter(|_| theirs.starts_with("0x"))
                    .is_some_and(|v| ours.parse::<i64>() == Ok(v));
            if !same {
                out.push(format!("{p}: default {}, Kafka's {theirs}", o.default));
            }
        }
        let their_flexible = f.get("flexibleVersions").map(|r| clip(range(r), *versions));
        let our_flexible = o.flexible.map(|r| clip(r, *versions));
        if our_flexible != their_flexible {
            out.push(format!(
                "{p}: field-level flexible versions {}, Kafka's {}",
                our_flexible.map_or("(the message's)".into(), show),
                their_flexible.map_or("(the message's)".into(), show)
            ));
        }
        compare_type(&p, &o.ty, f, schema, *versions, out);
    }
}

fn compare_type(
    path: &str,
    ours: &SchemaType,
    f: &Value,
    schema: &Schema,
    versions: (i16, i16),
    out: &mut Vec<String>,
) {
    let ty = f["type"].as_str().unwrap();
    let (their_array, their_elem) = match ty.strip_prefix("[]") {
        Some(e) => (true, e),
        None => (false, ty),
    };
    let (our_array, our_elem) = match ours {
        SchemaType::Array(e) => (true, &**e),
        t => (false, t),
    };
    if their_array != our_array {
        out.push(format!("{path}: type {ours:?}, Kafka's {ty}"));
        return;
    }
    let is_struct = their_elem.starts_with(|c: char| c.is_ascii_uppercase());
    match our_elem {
        SchemaType::Prim(p) if !is_struct => {
            let same = *p == their_elem || (*p == "bytes" && their_elem == "records");
            if !same {
                out.push(format!("{path}: type {ours:?}, Kafka's {ty}"));
            }
        }
        SchemaType::Struct(name, fields) if is_struct => {
            // Request and response share a Rust module, so a struct of
            // the same name in both gets a prefix ("ResponseEntryData").
            if !name.ends_with(their_elem) {
                out.push(format!("{path}: struct {name}, Kafka's {their_elem}"));
            }
            let theirs = match f["fields"].as_array() {
                Some(a) => a.clone(),
                None => match schema.common.get(their_elem) {
                    Some(c) => c.clone(),
                    None => {
                        out.push(format!("{path}: no fields for {their_elem} in the schema"));
                        return;
                    }
                },
            };
            compare(path, &fields(), &theirs, schema, versions, out);
        }
        _ => out.push(format!("{path}: type {ours:?}, Kafka's {ty}")),
    }
}

/// The mismatches of one message type against `<name>.json`.
fn check<M: Message>(name: &str, out: &mut Vec<String>) {
    let SchemaType::Struct(_, fields) = M::schema_type() else {
        unreachable!("a message is a struct");
    };
    let ours = (M::MIN_VERSION, M::MAX_VERSION);
    check_fields(name, ours, M::FIRST_FLEXIBLE, M::API_KEY, &fields(), out);
}

/// The mismatches of a message or header against `<name>.json`: its
/// versions `ours`, its first flexible version, its API key (-1 where the
/// schema has none: the consumer protocol, the headers) and its field table.
fn check_fields(
    name: &str,
    ours: (i16, i16),
    first_flexible: i16,
    api_key: i16,
    fields: &[FieldInfo],
    out: &mut Vec<String>,
) {
    let schema = load(name);
    let j = &schema.json;
    let valid = range(&j["validVersions"]);
    if ours != valid {
        out.push(format!(
            "{name}: versions {}, Kafka's {}",
            show(ours),
            show(valid)
        ));
    }
    let flexible = match range(&j["flexibleVersions"]) {
        (lo, hi) if lo <= hi && lo <= valid.1 => lo,
        _ => i16::MAX,
    };
    if first_flexible != flexible && !(first_flexible > ours.1 && flexible == i16::MAX) {
        out.push(format!(
            "{name}: flexible from {first_flexible}, Kafka's {flexible}"
        ));
    }
    let key = j["apiKey"].as_i64().map_or(-1, |k| k as i16);
    if api_key != key {
        out.push(format!("{name}: API key {api_key}, Kafka's {key}"));
    }
    let span = clip(ours, valid);
    compare(
        name,
        fields,
        j["fields"].as_array().unwrap(),
        &schema,
        span,
        out,
    );
}

/// The request and response headers against `RequestHeader.json` and
/// `ResponseHeader.json`.
fn check_headers(out: &mut Vec<String>) {
    use super::{RequestHeader as Req, ResponseHeader as Resp};
    let req = (Req::MIN_VERSION, Req::MAX_VERSION);
    check_fields(
        "RequestHeader",
        req,
        Req::FIRST_FLEXIBLE,
        -1,
        &Req::field_table(),
        out,
    );
    let resp = (Resp::MIN_VERSION, Resp::MAX_VERSION);
    check_fields(
        "ResponseHeader",
        resp,
        Resp::FIRST_FLEXIBLE,
        -1,
        &Resp::field_table(),
        out,
    );
}

fn pair<R: Request>(name: &str, out: &mut Vec<String>) {
    check::<R>(&format!("{name}Request"), out);
    check::<R::Response>(&format!("{name}Response"), out);
}

macro_rules! check_all {
    ($($key:literal $name:ident $($module:ident :: $request:ident)?,)*) => {
        fn check_every_api(out: &mut Vec<String>) -> usize {
            let mut n = 0;
            $($(
                pair::<super::$module::$request>(stringify!($name), out);
                n += 1;
            )?)*
            n
        }
    };
}
crate::api_keys::kafka_apis!(check_all);

/// Differences from Kafka's schemas that are deliberate, with the reason.
const ACCEPTED: &[(&str, &str)] = &[
    (
        "ProduceRequest: versions 0-12, Kafka's 0-11",
        "Produce v12 (KIP-890 part 2, Kafka 4.0) is v11 on the wire; to a \
         transactions v2 coordinator it also adds the partition to the transaction",
    ),
    (
        "ProduceResponse: versions 0-12, Kafka's 0-11",
        "Produce v12 (KIP-890 part 2, Kafka 4.0): the response is v11's",
    ),
    (
        "MetadataRequest: versions 0-13, Kafka's 0-12",
        "Metadata v13 (KIP-1102, Kafka 4.0) is newer than the schemas here; \
         the request is v12's",
    ),
    (
        "MetadataResponse: versions 0-13, Kafka's 0-12",
        "Metadata v13 (KIP-1102, Kafka 4.0) adds only the top-level ErrorCode \
         (int16, after ClusterAuthorizedOperations), as librdkafka 2.15 reads it",
    ),
];

#[test]
fn every_message_matches_kafkas_schema() {
    let mut out = Vec::new();
    let apis = check_every_api(&mut out);
    assert_eq!(apis, 53);
    use super::consumer_protocol::{ConsumerProtocolAssignment, ConsumerProtocolSubscription};
    check::<ConsumerProtocolSubscription>("ConsumerProtocolSubscription", &mut out);
    check::<ConsumerProtocolAssignment>("ConsumerProtocolAssignment", &mut out);
    check_headers(&mut out);
    eprintln!(
        "{} messages ({apis} APIs, the consumer protocol, the request and response \
         headers), {} structs, {} fields compared with Kafka's schemas",
        2 * apis + 4,
        STRUCTS.load(Ordering::Relaxed),
        FIELDS.load(Ordering::Relaxed)
    );
    out.retain(|m| !ACCEPTED.iter().any(|(a, _)| m == a));
    assert!(
        out.is_empty(),
        "{} differences from Kafka's message schemas:\n{}",
        out.len(),
        out.join("\n")
    );
}

#[test]
fn a_header_that_drifts_from_kafkas_schema_is_caught() {
    use super::RequestHeader as Req;
    let req = (Req::MIN_VERSION, Req::MAX_VERSION);
    // The client id written compact in v2, as the header's flexibility
    // would have it: Kafka's schema says it never is.
    let mut table = Req::field_table();
    table[3].flexible = None;
    let mut out = Vec::new();
    check_fields(
        "RequestHeader",
        req,
        Req::FIRST_FLEXIBLE,
        -1,
        &table,
        &mut out,
    );
    assert_eq!(
        out,
        ["RequestHeader.client_id: field-level flexible versions (the message's), Kafka's none"]
    );
    // A field dropped, and versions one too many.
    let mut out = Vec::new();
    let table = &Req::field_table()[..3];
    check_fields(
        "RequestHeader",
        (0, 3),
        Req::FIRST_FLEXIBLE,
        -1,
        table,
        &mut out,
    );
    assert_eq!(
        out,
        [
            "RequestHeader: versions 0-3, Kafka's 0-2",
            "RequestHeader.client_id: missing (Kafka: versions 1-2)"
        ]
    );
}

#[test]
fn schema_helpers() {
    assert_eq!(snake("ThrottleTimeMs"), "throttle_time_ms");
    assert_eq!(snake("TopicID"), "topic_id");
    assert_eq!(snake("ProducerId"), "producer_id");
    assert_eq!(range(&Value::from("3-7")), (3, 7));
    assert_eq!(range(&Value::from("5+")), (5, i16::MAX));
    assert_eq!(range(&Value::from("none")), (1, 0));
    assert_eq!(clip((0, 7), (5, i16::MAX)), (5, 7));
}
