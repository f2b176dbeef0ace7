//! `-L`: the cluster's brokers and topics, in kcat's text layout or (`-J`)
//! its JSON object.

use std::io::Write;

use gregor::error::KafkaCode;
use gregor::metadata::Metadata;
use gregor::producer::Producer;

use super::format::json_str;
use super::{args::Options, build_config, CliError};

/// Runs `-L`.
///
/// # Errors
/// Bad configuration; no broker answered.
pub fn run(o: &Options, out: &mut dyn Write) -> Result<i32, CliError> {
    // Metadata is for any kind of client, so every property is accepted.
    let cfg = build_config(o, None)?;
    // kcat lists through a producer handle, which lets the broker auto-create
    // a named topic; so does gregor
    let producer = Producer::new(&cfg).map_err(|e| CliError::Fatal(e.to_string()))?;
    let topics: Option<Vec<&str>> = o.topic.as_deref().map(|t| vec![t]);
    let md = producer
        .metadata(topics.as_deref(), o.metadata_timeout)
        .map_err(|e| CliError::Fatal(format!("Failed to acquire metadata: {e}")))?;
    producer.close(std::time::Duration::ZERO);
    let mut buf = Vec::new();
    if o.json {
        json(&md, o.topic.as_deref(), &mut buf);
    } else {
        text(&md, o.topic.as_deref(), &mut buf);
    }
    out.write_all(&buf)?;
    out.flush()?;
    Ok(0)
}

/// The id and name of the broker that answered: gregor names connections
/// "host:port/id" or "host:port/bootstrap", as librdkafka does.
fn orig_broker(md: &Metadata) -> (i32, &str) {
    let id = md
        .orig_broker
        .rsplit_once('/')
        .and_then(|(_, id)| id.parse().ok())
        .unwrap_or(-1);
    (id, &md.orig_broker)
}

fn err_str(code: KafkaCode) -> String {
    code.to_string()
}

fn ids(v: &[i32]) -> String {
    v.iter().map(i32::to_string).collect::<Vec<_>>().join(",")
}

/// kcat's `metadata_print`.
pub fn text(md: &Metadata, topic: Option<&str>, out: &mut Vec<u8>) {
    use std::fmt::Write as _;
    let mut s = String::new();
    let (id, name) = orig_broker(md);
    let _ = writeln!(
        s,
        "Metadata for {} (from broker {id}: {name}):",
        topic.unwrap_or("all topics")
    );
    let _ = writeln!(s, " {} brokers:", md.brokers.len());
    for b in md.brokers.values() {
        let _ = writeln!(
            s,
            "  broker {} at {}:{}{}",
            b.id,
            b.host,
            b.port,
            if md.controller_id == b.id {
                " (controller)"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(s, " {} topics:", md.topics.len());
    for t in md.topics.values() {
        let _ = write!(
            s,
            "  topic \"{}\" with {} partitions:",
            t.name,
            t.partitions.len()
        );
        if !t.error.is_ok() {
            let _ = write!(s, " {}", err_str(t.error));
            if t.error == KafkaCode::LEADER_NOT_AVAILABLE {
                s.push_str(" (try again)");
            }
        }
        s.push('\n');
        for p in &t.partitions {
            let _ = write!(
                s,
                "    partition {}, leader {}, replicas: {}, isrs: {}",
                p.id,
                p.leader,
                ids(&p.replicas),
                ids(&p.isr)
            );
            if !p.error.is_ok() {
                let _ = write!(s, ", {}", err_str(p.error));
            }
            s.push('\n');
        }
    }
    out.extend_from_slice(s.as_bytes());
}

/// kcat's `metadata_print_json`: one compact object, no trailing newline.
pub fn json(md: &Metadata, topic: Option<&str>, out: &mut Vec<u8>) {
    let (id, name) = orig_broker(md);
    out.extend_from_slice(format!("{{\"originating_broker\":{{\"id\":{id},\"name\":").as_bytes());
    json_str(name.as_bytes(), out);
    out.extend_from_slice(b"},\"query\":{\"topic\":");
    json_str(topic.unwrap_or("*").as_bytes(), out);
    out.extend_from_slice(
        format!("}},\"controllerid\":{},\"brokers\":[", md.controller_id).as_bytes(),
    );
    for (i, b) in md.brokers.values().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(format!("{{\"id\":{},\"name\":", b.id).as_bytes());
        json_str(format!("{}:{}", b.host, b.port).as_bytes(), out);
        out.push(b'}');
    }
    out.extend_from_slice(b"],\"topics\":[");
    for (i, t) in md.topics.values().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"topic\":");
        json_str(t.name.as_bytes(), out);
        if !t.error.is_ok() {
            out.extend_from_slice(b",\"error\":");
            json_str(err_str(t.error).as_bytes(), out);
        }
        out.extend_from_slice(b",\"partitions\":[");
        for (j, p) in t.partitions.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            out.extend_from_slice(format!("{{\"partition\":{}", p.id).as_bytes());
            if !p.error.is_ok() {
                out.extend_from_slice(b",\"error\":");
                json_str(err_str(p.error).as_bytes(), out);
            }
            out.extend_from_slice(format!(",\"leader\":{},\"replicas\":[", p.leader).as_bytes());
            id_objects(&p.replicas, out);
            out.extend_from_slice(b"],\"isrs\":[");
            id_objects(&p.isr, out);
            out.extend_from_slice(b"]}");
        }
        out.extend_from_slice(b"]}");
    }
    out.extend_from_slice(b"]}");
}

fn id_objects(ids: &[i32], out: &mut Vec<u8>) {
    let v: Vec<String> = ids.iter().map(|i| format!("{{\"id\":{i}}}")).collect();
    out.extend_from_slice(v.join(",").as_bytes());
}

#[cfg(test)]
mod tests {
    use gregor::metadata::Uuid;
    use gregor::metadata::{BrokerInfo, PartitionInfo, TopicInfo};

    use super::*;

    fn md() -> Metadata {
        let mut md = Metadata {
            controller_id: 1,
            orig_broker: "h:9092/1".into(),
            ..Default::default()
        };
        for id in [1, 2] {
            md.brokers.insert(
                id,
                BrokerInfo {
                    id,
                    host: "h".into(),
                    port: 9091 + id,
                    rack: None,
                },
            );
        }
        let part = |id, error| PartitionInfo {
            id,
            error,
            leader: 2,
            leader_epoch: 0,
            replicas: vec![2, 1],
            isr: vec![2],
            offline: vec![],
        };
        md.topics.insert(
            "a\"b".into(),
            TopicInfo {
                name: "a\"b".into(),
                id: Uuid::ZERO,
                error: KafkaCode::NONE,
                is_internal: false,
                partitions: vec![
                    part(0, KafkaCode::NONE),
                    part(1, KafkaCode::LEADER_NOT_AVAILABLE),
                ],
            },
        );
        md.topics.insert(
            "new".into(),
            TopicInfo {
                name: "new".into(),
                id: Uuid::ZERO,
                error: KafkaCode::LEADER_NOT_AVAILABLE,
                is_internal: false,
                partitions: vec![],
            },
        );
        md
    }

    #[test]
    fn text_layout() {
        let mut out = Vec::new();
        text(&md(), None, &mut out);
        let lna = KafkaCode::LEADER_NOT_AVAILABLE.to_string();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "Metadata for all topics (from broker 1: h:9092/1):\n \
                 2 brokers:\n  broker 1 at h:9092 (controller)\n  broker 2 at h:9093\n \
                 2 topics:\n  topic \"a\"b\" with 2 partitions:\n    \
                 partition 0, leader 2, replicas: 2,1, isrs: 2\n    \
                 partition 1, leader 2, replicas: 2,1, isrs: 2, {lna}\n  \
                 topic \"new\" with 0 partitions: {lna} (try again)\n"
            )
        );
    }

    #[test]
    fn json_layout() {
        let mut md = md();
        md.topics.remove("new");
        md.orig_broker = "h:9092/bootstrap".into();
        let mut out = Vec::new();
        json(&md, Some("a\"b"), &mut out);
        let lna = KafkaCode::LEADER_NOT_AVAILABLE.to_string();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                "{{\"originating_broker\":{{\"id\":-1,\"name\":\"h:9092/bootstrap\"}},\
                 \"query\":{{\"topic\":\"a\\\"b\"}},\"controllerid\":1,\
                 \"brokers\":[{{\"id\":1,\"name\":\"h:9092\"}},{{\"id\":2,\"name\":\"h:9093\"}}],\
                 \"topics\":[{{\"topic\":\"a\\\"b\",\"partitions\":[\
                 {{\"partition\":0,\"leader\":2,\"replicas\":[{{\"id\":2}},{{\"id\":1}}],\"isrs\":[{{\"id\":2}}]}},\
                 {{\"partition\":1,\"error\":\"{lna}\",\"leader\":2,\"replicas\":[{{\"id\":2}},{{\"id\":1}}],\"isrs\":[{{\"id\":2}}]}}]}}]}}"
            )
        );
    }
}
