//! `gregor admin groups …`: list, describe, delete consumer groups and their offsets.

use super::*;

/// `gregor admin groups …`.
pub(super) fn groups(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
                            "group {id}: state {}, protocol type {}, protocol {}, type {}{}, coordinator {} ({}:{}), {} members{}",
                            g.state,
                            if g.protocol_type.is_empty() { "<none>" } else { &g.protocol_type },
                            if g.protocol.is_empty() { "<none>" } else { &g.protocol },
                            g.group_type,
                            match (g.group_epoch, g.assignment_epoch) {
                                (Some(e), Some(a)) => format!(" (group epoch {e}, assignment epoch {a})"),
                                _ => String::new(),
                            },
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
                            if let Some(c) = &m.consumer {
                                // KIP-848: no embedded protocol bytes; the
                                // broker's view of the member
                                rep.lines.push(format!(
                                    "  member {}{}: epoch {}, client id \"{}\", host \"{}\", rack {}",
                                    m.member_id,
                                    m.group_instance_id.as_ref().map_or(String::new(), |i| format!(" (instance {i})")),
                                    c.member_epoch,
                                    m.client_id,
                                    m.client_host,
                                    c.rack_id.as_deref().unwrap_or("-"),
                                ));
                                rep.lines.push(format!(
                                    "    subscription: topics {}{}",
                                    c.subscribed_topic_names.join(","),
                                    c.subscribed_topic_regex
                                        .as_deref()
                                        .filter(|r| !r.is_empty())
                                        .map_or(String::new(), |r| format!("; regex {r}"))
                                ));
                                rep.lines
                                    .push(format!("    assignment: [{}]", tp_text(&c.assignment)));
                                rep.lines.push(format!(
                                    "    target assignment: [{}]",
                                    tp_text(&c.target_assignment)
                                ));
                                continue;
                            }
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
                                    rep.lines.push(format!("    subscription: error {}: {e}", gregor::error::code_name(e.code())));
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
                                        gregor::error::code_name(e.code())
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

pub(super) fn with_group(group: &str, j: J) -> J {
    match j {
        J::Obj(mut v) => {
            v.insert(0, ("group_id", group.into()));
            J::Obj(v)
        }
        other => other,
    }
}

pub(super) fn sub_json(r: &Option<Result<MemberSubscription>>) -> J {
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

pub(super) fn asg_json(r: &Option<Result<MemberAssignment>>) -> J {
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

pub(super) fn decode_err<T>(r: &Option<Result<T>>) -> J {
    match r {
        Some(Err(e)) => error(e),
        _ => J::Null,
    }
}

pub(super) fn group_json(id: &str, res: &Result<GroupDescription>) -> J {
    let ok = res.as_ref().ok();
    J::Obj(vec![
        ("group_id", id.into()),
        ("state", ok.map(|g| g.state.clone()).into()),
        ("protocol_type", ok.map(|g| g.protocol_type.clone()).into()),
        ("protocol", ok.map(|g| g.protocol.clone()).into()),
        ("type", ok.map(|g| g.group_type.clone()).into()),
        ("group_epoch", ok.and_then(|g| g.group_epoch).into()),
        (
            "assignment_epoch",
            ok.and_then(|g| g.assignment_epoch).into(),
        ),
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
                                (
                                    "member_epoch",
                                    m.consumer.as_ref().map(|c| c.member_epoch).into(),
                                ),
                                (
                                    "subscribed_topic_regex",
                                    m.consumer
                                        .as_ref()
                                        .and_then(|c| c.subscribed_topic_regex.clone())
                                        .into(),
                                ),
                                (
                                    "target_assignment",
                                    m.consumer.as_ref().map_or(J::Null, |c| {
                                        J::Arr(c.target_assignment.iter().map(tp_json).collect())
                                    }),
                                ),
                            ])
                        })
                        .collect(),
                )
            }),
        ),
        ("error", error_of(res)),
    ])
}
