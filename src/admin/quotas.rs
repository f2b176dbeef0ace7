//! Client quotas (KIP-546): describe the quotas of users, client IDs and IPs
//! matching a filter, and set or remove them. Sent to any broker.

use std::collections::BTreeMap;

use super::{call, check, entity_error, last_wins, missing, AdminClient, AdminOptions};
use crate::error::{Error, Result};
use crate::protocol::alter_client_quotas as acq;
use crate::protocol::describe_client_quotas as dcq;

/// A quota entity: (entity type, name) parts, e.g. `[("user", Some("alice")),
/// ("client-id", None)]`; a `None` name is the type's default entity. Parts
/// are kept sorted by type, so equal entities compare equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QuotaEntity(Vec<(String, Option<String>)>);

impl QuotaEntity {
    /// An entity from its parts.
    pub fn new(parts: impl IntoIterator<Item = (String, Option<String>)>) -> Self {
        let mut v: Vec<_> = parts.into_iter().collect();
        v.sort();
        QuotaEntity(v)
    }

    /// The parts, sorted by entity type.
    pub fn parts(&self) -> &[(String, Option<String>)] {
        &self.0
    }
}

impl std::fmt::Display for QuotaEntity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (t, n)) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            match n {
                Some(n) => write!(f, "{t}={n}")?,
                None => write!(f, "{t}=<default>")?,
            }
        }
        Ok(())
    }
}

/// How one filter component matches an entity type's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QuotaMatch {
    /// Exactly this name.
    Exact(String),
    /// The default entity of the type.
    Default,
    /// Any entity of the type that has a name (not the default).
    Any,
}

/// One filter component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaFilterComponent {
    /// The entity type ("user", "client-id", "ip").
    pub entity_type: String,
    /// How the name matches.
    pub matching: QuotaMatch,
}

/// An entity and its quota values.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaEntry {
    /// The entity.
    pub entity: QuotaEntity,
    /// Quota key → value (e.g. "producer_byte_rate" → 1048576.0).
    pub values: BTreeMap<String, f64>,
}

/// Changes to one entity's quotas.
#[derive(Debug, Clone, PartialEq)]
pub struct QuotaAlteration {
    /// The entity.
    pub entity: QuotaEntity,
    /// Quota key → value to set, or `None` to remove the key.
    pub ops: Vec<(String, Option<f64>)>,
}

fn entity_of(parts: impl IntoIterator<Item = (String, Option<String>)>) -> QuotaEntity {
    QuotaEntity::new(parts)
}

impl AdminClient {
    /// The quotas of the entities matching every filter component; with
    /// `strict`, only entities with no other entity types.
    ///
    /// # Errors
    /// The broker's error (e.g. `INVALID_REQUEST` for a bad filter), no
    /// broker reachable, `_UNSUPPORTED_FEATURE`.
    pub fn describe_client_quotas(
        &self,
        components: &[QuotaFilterComponent],
        strict: bool,
        opts: &AdminOptions,
    ) -> Result<Vec<QuotaEntry>> {
        let c = self.start(opts);
        let (resp, _) = self.on_any(&c, |conn| {
            call(conn, c.deadline, |_| {
                let req = dcq::DescribeClientQuotasRequest {
                    strict,
                    components: components
                        .iter()
                        .map(|f| {
                            let mut w = dcq::ComponentData {
                                entity_type: f.entity_type.clone(),
                                ..Default::default()
                            };
                            let (t, m) = match &f.matching {
                                QuotaMatch::Exact(n) => (0, Some(n.clone())),
                                QuotaMatch::Default => (1, None),
                                QuotaMatch::Any => (2, None),
                            };
                            w.match_type = t;
                            w.r#match = m;
                            w
                        })
                        .collect(),
                    ..Default::default()
                };
                Ok(req)
            })
        })?;
        check(
            resp.error_code,
            resp.error_message.as_deref(),
            "describe client quotas",
        )?;
        Ok(resp
            .entries
            .unwrap_or_default()
            .into_iter()
            .map(|e| QuotaEntry {
                entity: entity_of(e.entity.into_iter().map(|p| (p.entity_type, p.entity_name))),
                values: e.values.into_iter().map(|v| (v.key, v.value)).collect(),
            })
            .collect())
    }

    /// Sets and removes quotas; one result per entity, in order (an entity
    /// named twice: the last wins). Honours `opts.validate_only`.
    ///
    /// # Errors
    /// An empty entity or a value that is not finite (`_INVALID_ARG`), no
    /// broker reachable, `_UNSUPPORTED_FEATURE`.
    pub fn alter_client_quotas(
        &self,
        alterations: &[QuotaAlteration],
        opts: &AdminOptions,
    ) -> Result<Vec<(QuotaEntity, Result<()>)>> {
        let c = self.start(opts);
        let items = last_wins(alterations, |a| a.entity.clone());
        if items.is_empty() {
            return Ok(Vec::new());
        }
        for a in &items {
            if a.entity.0.is_empty() {
                return Err(Error::invalid_arg("quota entity has no parts"));
            }
            if let Some((k, _)) = a
                .ops
                .iter()
                .find(|(_, v)| v.is_some_and(|v| !v.is_finite()))
            {
                return Err(Error::invalid_arg(format!(
                    "quota {k}: value is not finite"
                )));
            }
        }
        let (resp, _) = self.on_any(&c, |conn| {
            call(conn, c.deadline, |_| {
                let req = acq::AlterClientQuotasRequest {
                    validate_only: c.validate_only,
                    entries: items
                        .iter()
                        .map(|a| acq::EntryData {
                            entity: a
                                .entity
                                .0
                                .iter()
                                .map(|(t, n)| acq::EntityData {
                                    entity_type: t.clone(),
                                    entity_name: n.clone(),
                                    ..Default::default()
                                })
                                .collect(),
                            ops: a
                                .ops
                                .iter()
                                .map(|(k, v)| acq::OpData {
                                    key: k.clone(),
                                    value: v.unwrap_or(0.0),
                                    remove: v.is_none(),
                                    ..Default::default()
                                })
                                .collect(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                Ok(req)
            })
        })?;
        let mut by: BTreeMap<QuotaEntity, (i16, Option<String>)> = resp
            .entries
            .into_iter()
            .map(|e| {
                (
                    entity_of(e.entity.into_iter().map(|p| (p.entity_type, p.entity_name))),
                    (e.error_code, e.error_message),
                )
            })
            .collect();
        Ok(items
            .into_iter()
            .map(|a| {
                let what = format!("quota entity {}", a.entity);
                let r = match by.remove(&a.entity) {
                    Some((0, _)) => Ok(()),
                    Some((code, msg)) => Err(entity_error(code, msg.as_deref(), &what)),
                    None => Err(missing(&what, "AlterClientQuotas")),
                };
                (a.entity, r)
            })
            .collect())
    }
}
