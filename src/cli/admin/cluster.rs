//! The cluster: describe it, its log directories, leader elections and partition reassignments.

use super::*;

/// `gregor admin describe-cluster`.
pub(super) fn describe_cluster(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    Ok(())
}

/// `gregor admin describe-log-dirs`.
pub(super) fn describe_log_dirs(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
                            gregor::error::code_name(e.code())
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
    Ok(())
}

/// `gregor admin elect-leaders`.
pub(super) fn elect_leaders(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    rep.json = partition_results(rep, &r, |()| ("elected".into(), vec![]));
    Ok(())
}

/// `gregor admin alter-partition-reassignments`.
pub(super) fn alter_partition_reassignments(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let mut items: Vec<(TopicPartition, Option<Vec<i32>>)> = Vec::new();
    for (opt, v) in &p.items {
        if opt == "--cancel" {
            items.push((tp(opt, v)?, None));
        } else {
            let (t, replicas) = v
                .split_once('=')
                .ok_or_else(|| usage(format!("-t {v}: expected topic:partition=r1,r2,...")))?;
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
    rep.json = partition_results(rep, &r, |()| ("accepted".into(), vec![]));
    Ok(())
}

/// `gregor admin list-partition-reassignments`.
pub(super) fn list_partition_reassignments(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let parts: Vec<TopicPartition> = p
        .all("-t")
        .into_iter()
        .map(|v| tp("-t", v))
        .collect::<Result<_, _>>()?;
    let r = admin.list_partition_reassignments((!parts.is_empty()).then_some(&parts[..]), o)?;
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
    Ok(())
}

pub(super) fn log_dir_json(d: &LogDirDescription) -> J {
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
