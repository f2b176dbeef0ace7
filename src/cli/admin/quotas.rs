//! Client quotas and SCRAM credentials.

use super::*;

/// `gregor admin describe-client-quotas`.
pub(super) fn describe_client_quotas(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    Ok(())
}

/// `gregor admin alter-client-quotas`.
pub(super) fn alter_client_quotas(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    Ok(())
}

/// `gregor admin describe-user-scram-credentials`.
pub(super) fn describe_user_scram_credentials(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let users = p.all("-u");
    let r = admin.describe_user_scram_credentials((!users.is_empty()).then_some(&users[..]), o)?;
    let mut js = Vec::new();
    for u in &r {
        rep.entity(format!("user {}", u.user), &u.result, |infos| {
            infos
                .iter()
                .map(|i| format!("{} ({} iterations)", i.mechanism.sasl_name(), i.iterations))
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
    Ok(())
}

/// `gregor admin alter-user-scram-credentials`.
pub(super) fn alter_user_scram_credentials(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let mech = |opt: &str, m: &str| {
        parse_enum(opt, m, |s| {
            ScramMechanism::parse(s).filter(|m| m.is_known() && *m != ScramMechanism::UNKNOWN)
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
    Ok(())
}

pub(super) fn entity_json(e: &QuotaEntity) -> J {
    J::Arr(
        e.parts()
            .iter()
            .map(|(t, n)| J::Obj(vec![("type", t.into()), ("name", n.clone().into())]))
            .collect(),
    )
}
