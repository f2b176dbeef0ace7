//! Topics and their partitions: create, delete, grow, describe, delete records, list offsets.

use super::*;

/// `gregor admin create-topics`.
pub(super) fn create_topics(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    Ok(())
}

/// `gregor admin delete-topics`.
pub(super) fn delete_topics(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let (names, ids) = names_and_ids(p)?;
    let mut all = Vec::new();
    if !names.is_empty() {
        all.extend(admin.delete_topics(&names, o)?);
    }
    if !ids.is_empty() {
        all.extend(admin.delete_topics_by_id(&ids, o)?);
    }
    let mut js = Vec::new();
    for t in &all {
        let what = topic_label(t.name.as_deref(), &t.topic_id);
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
    Ok(())
}

/// `gregor admin create-partitions`.
pub(super) fn create_partitions(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    rep.json = topic_results(rep, &r, |_| "partitions added".to_string());
    Ok(())
}

/// `gregor admin describe-topics`.
pub(super) fn describe_topics(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let (names, ids) = names_and_ids(p)?;
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
        let what = topic_label(t.name.as_deref(), &t.topic_id);
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
    Ok(())
}

/// `gregor admin delete-records`.
pub(super) fn delete_records(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    rep.json = partition_results(rep, &r, |low| {
        (
            format!("low watermark {low}"),
            vec![("low_watermark", J::from(*low))],
        )
    });
    Ok(())
}

/// `gregor admin list-offsets`.
pub(super) fn list_offsets(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    rep.json = partition_results(rep, &r, |i| {
        (
            format!("offset {} timestamp {}", i.offset, i.timestamp),
            vec![
                ("offset", J::from(i.offset)),
                ("timestamp", J::from(i.timestamp)),
                ("leader_epoch", J::from(i.leader_epoch)),
            ],
        )
    });
    Ok(())
}

pub(super) fn topic_description_json(t: &TopicResult<TopicDescription>) -> J {
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

/// The topics of `-t <topic>` and `--topic-id <id>` (at least one).
fn names_and_ids(p: &Parsed) -> Result<(Vec<&str>, Vec<Uuid>), Failure> {
    let names = p.all("-t");
    let ids: Vec<Uuid> = p
        .all("--topic-id")
        .into_iter()
        .map(uuid)
        .collect::<Result<_, _>>()?;
    if names.is_empty() && ids.is_empty() {
        return Err(usage("no topic: give -t <topic> or --topic-id <id>"));
    }
    Ok((names, ids))
}

/// "topic NAME", or "topic ID ID" for a topic known by ID only.
fn topic_label(name: Option<&str>, id: &Uuid) -> String {
    match name {
        Some(n) => format!("topic {n}"),
        None => format!("topic ID {}", id.to_kafka_string()),
    }
}
