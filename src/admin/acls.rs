//! ACLs: describe, create and delete (KIP-4's ListAcls/AlterAcls,
//! as Kafka shipped them: DescribeAcls, CreateAcls, DeleteAcls), with
//! resource pattern types (KIP-290, v1+). Sent to any broker.
//!
//! Brokers before v1 know only literal names: a PREFIXED binding or a MATCH
//! filter is `_UNSUPPORTED_FEATURE` there, and a filter's ANY pattern type is
//! sent as LITERAL, as the Java client does.

use super::types::{AclOperation, AclPermissionType, PatternType, ResourceType};
use super::{call, check, entity_error, missing, unsupported, AdminClient, AdminOptions};
use crate::error::Result;
use crate::protocol::create_acls as ca;
use crate::protocol::delete_acls as da;
use crate::protocol::describe_acls as dsa;

/// One ACL: who may (or may not) do what on which resources.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AclBinding {
    /// The resource type.
    pub resource_type: ResourceType,
    /// The resource name (`*` for all).
    pub resource_name: String,
    /// How the name matches: LITERAL or PREFIXED.
    pub pattern_type: PatternType,
    /// The principal, e.g. `User:alice`.
    pub principal: String,
    /// The host, or `*`.
    pub host: String,
    /// The operation.
    pub operation: AclOperation,
    /// Allow or deny.
    pub permission_type: AclPermissionType,
}

/// A filter over ACLs; `None` and the ANY values match everything.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AclBindingFilter {
    /// The resource type, or ANY.
    pub resource_type: ResourceType,
    /// The resource name, or `None` for any.
    pub resource_name: Option<String>,
    /// The pattern type: ANY, MATCH, LITERAL or PREFIXED.
    pub pattern_type: PatternType,
    /// The principal, or `None` for any.
    pub principal: Option<String>,
    /// The host, or `None` for any.
    pub host: Option<String>,
    /// The operation, or ANY.
    pub operation: AclOperation,
    /// The permission, or ANY.
    pub permission_type: AclPermissionType,
}

impl AclBindingFilter {
    /// The filter that matches every ACL.
    pub fn any() -> Self {
        AclBindingFilter {
            resource_type: ResourceType::ANY,
            resource_name: None,
            pattern_type: PatternType::ANY,
            principal: None,
            host: None,
            operation: AclOperation::ANY,
            permission_type: AclPermissionType::ANY,
        }
    }
}

impl Default for AclBindingFilter {
    fn default() -> Self {
        Self::any()
    }
}

impl std::fmt::Display for AclBinding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} on {} \"{}\" ({}) for {} from {}",
            self.permission_type,
            self.operation,
            self.resource_type,
            self.resource_name,
            self.pattern_type,
            self.principal,
            self.host
        )
    }
}

/// The outcome of one delete filter.
#[derive(Debug, Clone)]
pub struct DeleteAclsResult {
    /// The filter.
    pub filter: AclBindingFilter,
    /// The ACLs it matched, each with the outcome of its deletion; or the
    /// broker's error for the whole filter.
    pub result: Result<Vec<(AclBinding, Result<()>)>>,
}

/// The pattern type a filter sends at `version`.
fn filter_pattern(p: PatternType, version: i16) -> Result<i8> {
    if version >= 1 {
        return Ok(p.0);
    }
    match p {
        PatternType::ANY | PatternType::LITERAL => Ok(PatternType::LITERAL.0),
        _ => Err(unsupported(format!(
            "pattern type {p} needs ACL requests v1+ (the broker speaks v0)"
        ))),
    }
}

impl AdminClient {
    /// The ACLs matching `filter`.
    ///
    /// # Errors
    /// The broker's error for the request (e.g. `SECURITY_DISABLED` when the
    /// broker has no authorizer, `CLUSTER_AUTHORIZATION_FAILED`), an
    /// unsupported pattern type, no broker reachable.
    pub fn describe_acls(
        &self,
        filter: &AclBindingFilter,
        opts: &AdminOptions,
    ) -> Result<Vec<AclBinding>> {
        let c = self.start(opts);
        let (resp, v) = self.on_any(&c, |conn| {
            call(conn, c.deadline, |v| {
                let req = dsa::DescribeAclsRequest {
                    resource_type_filter: filter.resource_type.0,
                    resource_name_filter: filter.resource_name.clone(),
                    pattern_type_filter: filter_pattern(filter.pattern_type, v)?,
                    principal_filter: filter.principal.clone(),
                    host_filter: filter.host.clone(),
                    operation: filter.operation.0,
                    permission_type: filter.permission_type.0,
                    ..Default::default()
                };
                Ok(req)
            })
        })?;
        check(
            resp.error_code,
            resp.error_message.as_deref(),
            "describe ACLs",
        )?;
        Ok(resp
            .resources
            .into_iter()
            .flat_map(|r| {
                let pattern = if v >= 1 {
                    PatternType(r.pattern_type)
                } else {
                    PatternType::LITERAL
                };
                let (rt, name) = (ResourceType(r.resource_type), r.resource_name);
                r.acls.into_iter().map(move |a| AclBinding {
                    resource_type: rt,
                    resource_name: name.clone(),
                    pattern_type: pattern,
                    principal: a.principal,
                    host: a.host,
                    operation: AclOperation(a.operation),
                    permission_type: AclPermissionType(a.permission_type),
                })
            })
            .collect())
    }

    /// Creates ACLs; one result per binding, in order.
    ///
    /// # Errors
    /// A PREFIXED binding on a v0 broker, no broker reachable.
    pub fn create_acls(
        &self,
        bindings: &[AclBinding],
        opts: &AdminOptions,
    ) -> Result<Vec<Result<()>>> {
        let c = self.start(opts);
        if bindings.is_empty() {
            return Ok(Vec::new());
        }
        let (resp, _) = self.on_any(&c, |conn| {
            call(conn, c.deadline, |v| {
                let req = ca::CreateAclsRequest {
                    creations: bindings
                        .iter()
                        .map(|b| {
                            if v < 1 && b.pattern_type != PatternType::LITERAL {
                                return Err(unsupported(format!(
                                    "pattern type {} needs CreateAcls v1+ (the broker speaks v0)",
                                    b.pattern_type
                                )));
                            }
                            let w = ca::AclCreation {
                                resource_type: b.resource_type.0,
                                resource_name: b.resource_name.clone(),
                                resource_pattern_type: b.pattern_type.0,
                                principal: b.principal.clone(),
                                host: b.host.clone(),
                                operation: b.operation.0,
                                permission_type: b.permission_type.0,
                                ..Default::default()
                            };
                            Ok(w)
                        })
                        .collect::<Result<_>>()?,
                    ..Default::default()
                };
                Ok(req)
            })
        })?;
        let mut results = resp.results.into_iter();
        Ok(bindings
            .iter()
            .map(|b| match results.next() {
                Some(r) => check(r.error_code, r.error_message.as_deref(), format!("ACL {b}")),
                None => Err(missing(format!("ACL {b}"), "CreateAcls")),
            })
            .collect())
    }

    /// Deletes the ACLs matching each filter; one result per filter, in
    /// order, listing what it matched.
    ///
    /// # Errors
    /// An unsupported pattern type, no broker reachable.
    pub fn delete_acls(
        &self,
        filters: &[AclBindingFilter],
        opts: &AdminOptions,
    ) -> Result<Vec<DeleteAclsResult>> {
        let c = self.start(opts);
        if filters.is_empty() {
            return Ok(Vec::new());
        }
        let (resp, v) = self.on_any(&c, |conn| {
            call(conn, c.deadline, |v| {
                let req = da::DeleteAclsRequest {
                    filters: filters
                        .iter()
                        .map(|f| {
                            let w = da::DeleteAclsFilter {
                                resource_type_filter: f.resource_type.0,
                                resource_name_filter: f.resource_name.clone(),
                                pattern_type_filter: filter_pattern(f.pattern_type, v)?,
                                principal_filter: f.principal.clone(),
                                host_filter: f.host.clone(),
                                operation: f.operation.0,
                                permission_type: f.permission_type.0,
                                ..Default::default()
                            };
                            Ok(w)
                        })
                        .collect::<Result<_>>()?,
                    ..Default::default()
                };
                Ok(req)
            })
        })?;
        let mut results = resp.filter_results.into_iter();
        Ok(filters
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let what = format!("ACL filter {i}");
                let result = match results.next() {
                    None => Err(missing(&what, "DeleteAcls")),
                    Some(r) if r.error_code != 0 => Err(entity_error(
                        r.error_code,
                        r.error_message.as_deref(),
                        &what,
                    )),
                    Some(r) => Ok(r
                        .matching_acls
                        .into_iter()
                        .map(|m| {
                            let b = AclBinding {
                                resource_type: ResourceType(m.resource_type),
                                resource_name: m.resource_name,
                                pattern_type: if v >= 1 {
                                    PatternType(m.pattern_type)
                                } else {
                                    PatternType::LITERAL
                                },
                                principal: m.principal,
                                host: m.host,
                                operation: AclOperation(m.operation),
                                permission_type: AclPermissionType(m.permission_type),
                            };
                            let r =
                                check(m.error_code, m.error_message.as_deref(), format!("ACL {b}"));
                            (b, r)
                        })
                        .collect()),
                };
                DeleteAclsResult {
                    filter: f.clone(),
                    result,
                }
            })
            .collect())
    }
}
