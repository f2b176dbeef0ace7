//! Configurations: describe, alter (legacy, whole set) and incremental alter.

use super::*;

/// `gregor admin describe-configs`.
pub(super) fn describe_configs(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    Ok(())
}

/// `gregor admin alter-configs` / `gregor admin incremental-alter-configs`.
pub(super) fn alter_configs(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    Ok(())
}

pub(super) fn config_entry_json(e: &ConfigEntry) -> J {
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
