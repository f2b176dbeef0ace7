//! ACLs: describe, create and delete, and the ACL filter options.

use super::*;

/// `gregor admin describe-acls`.
pub(super) fn describe_acls(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let f = acl_filter(p)?;
    let acls = admin.describe_acls(&f, o)?;
    for b in &acls {
        rep.lines.push(b.to_string());
    }
    rep.json = J::Obj(vec![("acls", J::Arr(acls.iter().map(acl_json).collect()))]);
    Ok(())
}

/// `gregor admin create-acls`.
pub(super) fn create_acls(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let f = acl_filter(p)?;
    let need =
        |v: Option<String>, opt: &str| v.ok_or_else(|| usage(format!("create-acls needs {opt}")));
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
    Ok(())
}

/// `gregor admin delete-acls`.
pub(super) fn delete_acls(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
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
    Ok(())
}

pub(super) fn acl_json(b: &AclBinding) -> J {
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

pub(super) fn acl_filter(p: &Parsed) -> Result<AclBindingFilter, Failure> {
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
