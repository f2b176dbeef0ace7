//! Configs of topics, brokers, broker loggers and groups: describe (with
//! synonyms, KIP-226, and documentation, KIP-569), the legacy whole-set
//! AlterConfigs (KIP-4) and IncrementalAlterConfigs (KIP-339:
//! SET, DELETE, APPEND, SUBTRACT).
//!
//! A BROKER or BROKER_LOGGER resource named by a broker id goes to that
//! broker (only it can answer for its own static and logger configs); every
//! other resource, and the cluster-wide broker default (name ""), goes to
//! any broker. Resources bound for different brokers are sent in parallel.

use std::collections::BTreeMap;

use super::{
    check, collapse, entity_error, last_wins, missing, send, AdminClient, AdminOptions, Call,
};
use super::{AlterConfigOpType, ConfigResourceType, ConfigSource, ConfigType};
use crate::error::{Error, Result};
use crate::protocol::alter_configs as ac;
use crate::protocol::describe_configs as dc;
use crate::protocol::incremental_alter_configs as iac;

/// A config resource: a type and a name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConfigResource {
    /// The resource type.
    pub resource_type: ConfigResourceType,
    /// The name: the topic, the broker id, the group.
    pub name: String,
}

impl ConfigResource {
    /// A resource.
    pub fn new(resource_type: ConfigResourceType, name: impl Into<String>) -> Self {
        ConfigResource {
            resource_type,
            name: name.into(),
        }
    }

    /// A topic.
    pub fn topic(name: impl Into<String>) -> Self {
        Self::new(ConfigResourceType::TOPIC, name)
    }

    /// A broker, by id.
    pub fn broker(id: i32) -> Self {
        Self::new(ConfigResourceType::BROKER, id.to_string())
    }

    /// The broker this resource must be sent to, if any.
    fn target_broker(&self) -> Option<i32> {
        match self.resource_type {
            ConfigResourceType::BROKER | ConfigResourceType::BROKER_LOGGER => {
                self.name.parse().ok()
            }
            _ => None,
        }
    }
}

impl std::fmt::Display for ConfigResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} \"{}\"", self.resource_type, self.name)
    }
}

/// A resource's whole set of configs for the legacy AlterConfigs: (name,
/// value or null), in order.
pub type ConfigSet = Vec<(String, Option<String>)>;

/// One synonym of a config: another name for it, in precedence order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigSynonym {
    /// The synonym's name (e.g. `log.retention.ms` for `retention.ms`).
    pub name: String,
    /// Its value, or `None` (unset or sensitive).
    pub value: Option<String>,
    /// Where it comes from.
    pub source: ConfigSource,
}

/// One config of a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigEntry {
    /// The config name.
    pub name: String,
    /// The value, or `None` (unset, or hidden because sensitive).
    pub value: Option<String>,
    /// Where the value comes from (v0 brokers: `DEFAULT_CONFIG` or `UNKNOWN`).
    pub source: ConfigSource,
    /// True if the value is the default.
    pub is_default: bool,
    /// True if the config cannot be changed.
    pub is_read_only: bool,
    /// True if the value is sensitive (and therefore not returned).
    pub is_sensitive: bool,
    /// Synonyms, when asked for (DescribeConfigs v1+).
    pub synonyms: Vec<ConfigSynonym>,
    /// The data type (DescribeConfigs v3+; else `UNKNOWN`).
    pub config_type: ConfigType,
    /// The documentation, when asked for (DescribeConfigs v3+).
    pub documentation: Option<String>,
}

/// The result for one resource.
#[derive(Debug, Clone)]
pub struct ConfigResourceResult<T> {
    /// The resource.
    pub resource: ConfigResource,
    /// Its value, or the broker's error for it.
    pub result: Result<T>,
}

/// One incremental change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlterConfigOp {
    /// The config name.
    pub name: String,
    /// What to do.
    pub op: AlterConfigOpType,
    /// The operand (ignored for DELETE).
    pub value: Option<String>,
}

impl AlterConfigOp {
    /// Sets `name` to `value`.
    pub fn set(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self::new(name, AlterConfigOpType::SET, Some(value.into()))
    }

    /// Reverts `name` to its default.
    pub fn delete(name: impl Into<String>) -> Self {
        Self::new(name, AlterConfigOpType::DELETE, None)
    }

    /// A change.
    pub fn new(name: impl Into<String>, op: AlterConfigOpType, value: Option<String>) -> Self {
        AlterConfigOp {
            name: name.into(),
            op,
            value,
        }
    }
}

fn entry_of(c: dc::DescribeConfigsResourceResult, version: i16) -> ConfigEntry {
    let source = if version == 0 {
        if c.is_default {
            ConfigSource::DEFAULT_CONFIG
        } else {
            ConfigSource::UNKNOWN
        }
    } else {
        ConfigSource(c.config_source)
    };
    ConfigEntry {
        is_default: if version == 0 {
            c.is_default
        } else {
            source == ConfigSource::DEFAULT_CONFIG
        },
        name: c.name,
        value: c.value,
        source,
        is_read_only: c.read_only,
        is_sensitive: c.is_sensitive,
        synonyms: c
            .synonyms
            .into_iter()
            .map(|s| ConfigSynonym {
                name: s.name,
                value: s.value,
                source: ConfigSource(s.source),
            })
            .collect(),
        config_type: ConfigType(c.config_type),
        documentation: c.documentation.filter(|d| !d.is_empty()),
    }
}

impl AdminClient {
    /// Groups resources by the broker that must get them (`None`: any),
    /// sends one request per broker, all in flight at once, and puts the
    /// answers back in input order.
    fn per_broker<T, R: crate::protocol::Request>(
        &self,
        c: &Call,
        resources: &[ConfigResource],
        build: impl Fn(&[usize], i16) -> Result<R>,
        split: impl Fn(R::Response, &[usize], i16) -> Vec<Result<T>>,
    ) -> Vec<Result<T>> {
        let mut groups: BTreeMap<Option<i32>, Vec<usize>> = BTreeMap::new();
        for (i, r) in resources.iter().enumerate() {
            groups.entry(r.target_broker()).or_default().push(i);
        }
        let mut out: Vec<Option<Result<T>>> = resources.iter().map(|_| None).collect();
        let sent: Vec<_> = groups
            .into_iter()
            .map(|(target, idx)| {
                let conn = match target {
                    Some(id) => self.broker(c, id),
                    None => self.any(c),
                };
                let s = conn.and_then(|conn| send(&conn, c.deadline, |v| build(&idx, v)));
                (idx, s)
            })
            .collect();
        for (idx, s) in sent {
            match s.and_then(|s| s.wait(c.deadline)) {
                Ok((resp, v)) => {
                    for (&i, r) in idx.iter().zip(split(resp, &idx, v)) {
                        out[i] = Some(r);
                    }
                }
                Err(e) => {
                    for &i in &idx {
                        out[i] = Some(Err(e.clone()));
                    }
                }
            }
        }
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::timed_out("no answer"))))
            .collect()
    }

    /// Describes resources' configs: all of them, or only `keys` when given
    /// (configs a broker returns beyond those asked are dropped).
    /// `include_synonyms` needs DescribeConfigs v1+, `include_documentation`
    /// v3+ (older brokers simply return none).
    ///
    /// A resource named twice is described once.
    ///
    /// # Errors
    /// A local error when no resource could be sent (no broker reachable,
    /// no broker speaks DescribeConfigs); broker errors are per resource.
    pub fn describe_configs(
        &self,
        resources: &[ConfigResource],
        keys: Option<&[&str]>,
        include_synonyms: bool,
        include_documentation: bool,
        opts: &AdminOptions,
    ) -> Result<Vec<ConfigResourceResult<Vec<ConfigEntry>>>> {
        let c = self.start(opts);
        let resources = &last_wins(resources, Clone::clone)[..];
        let results = self.per_broker(
            &c,
            resources,
            |idx, v| {
                let req = dc::DescribeConfigsRequest {
                    resources: idx
                        .iter()
                        .map(|&i| {
                            let mut r = dc::DescribeConfigsResource {
                                resource_type: resources[i].resource_type.0,
                                resource_name: resources[i].name.clone(),
                                ..Default::default()
                            };
                            r.configuration_keys =
                                keys.map(|ks| ks.iter().map(|k| (*k).to_string()).collect());
                            r
                        })
                        .collect(),
                    include_synonyms: include_synonyms && v >= 1,
                    include_documentation: include_documentation && v >= 3,
                    ..Default::default()
                };
                Ok(req)
            },
            |resp, idx, v| {
                let mut by: BTreeMap<(i8, String), dc::DescribeConfigsResult> = resp
                    .results
                    .into_iter()
                    .map(|r| ((r.resource_type, r.resource_name.clone()), r))
                    .collect();
                idx.iter()
                    .map(|&i| {
                        let res = &resources[i];
                        let r = by
                            .remove(&(res.resource_type.0, res.name.clone()))
                            .ok_or_else(|| missing(res, "DescribeConfigs"))?;
                        check(r.error_code, r.error_message.as_deref(), res)?;
                        // some brokers return every config whatever was asked
                        Ok(r.configs
                            .into_iter()
                            .filter(|e| keys.is_none_or(|ks| ks.contains(&e.name.as_str())))
                            .map(|e| entry_of(e, v))
                            .collect())
                    })
                    .collect()
            },
        );
        Ok(pair(resources.to_vec(), collapse(results)?))
    }

    /// The legacy AlterConfigs (KIP-4): replaces each resource's whole set of
    /// dynamic configs by the given one (configs left out revert to their
    /// defaults). Prefer [`AdminClient::incremental_alter_configs`].
    /// Honours `opts.validate_only`. A resource named twice: the last wins.
    ///
    /// # Errors
    /// As [`AdminClient::describe_configs`].
    pub fn alter_configs(
        &self,
        alterations: &[(ConfigResource, ConfigSet)],
        opts: &AdminOptions,
    ) -> Result<Vec<ConfigResourceResult<()>>> {
        let c = self.start(opts);
        let alterations = &last_wins(alterations, |a| a.0.clone())[..];
        let resources: Vec<ConfigResource> = alterations.iter().map(|a| a.0.clone()).collect();
        let results = self.per_broker(
            &c,
            &resources,
            |idx, _| {
                let req = ac::AlterConfigsRequest {
                    validate_only: c.validate_only,
                    resources: idx
                        .iter()
                        .map(|&i| {
                            let (res, configs) = &alterations[i];
                            ac::AlterConfigsResource {
                                resource_type: res.resource_type.0,
                                resource_name: res.name.clone(),
                                configs: configs
                                    .iter()
                                    .map(|(k, v)| ac::AlterableConfig {
                                        name: k.clone(),
                                        value: v.clone(),
                                        ..Default::default()
                                    })
                                    .collect(),
                                ..Default::default()
                            }
                        })
                        .collect(),
                    ..Default::default()
                };
                Ok(req)
            },
            |resp, idx, _| {
                let codes: Vec<_> = resp
                    .responses
                    .into_iter()
                    .map(|r| {
                        (
                            r.resource_type,
                            r.resource_name,
                            r.error_code,
                            r.error_message,
                        )
                    })
                    .collect();
                split_alter(codes, idx, &resources, "AlterConfigs")
            },
        );
        Ok(pair(resources, collapse(results)?))
    }

    /// IncrementalAlterConfigs (KIP-339): applies each change to one config
    /// value, leaving the others as they are. Honours `opts.validate_only`.
    /// A resource named twice: the last wins.
    ///
    /// # Errors
    /// As [`AdminClient::describe_configs`].
    pub fn incremental_alter_configs(
        &self,
        alterations: &[(ConfigResource, Vec<AlterConfigOp>)],
        opts: &AdminOptions,
    ) -> Result<Vec<ConfigResourceResult<()>>> {
        let c = self.start(opts);
        let alterations = &last_wins(alterations, |a| a.0.clone())[..];
        let resources: Vec<ConfigResource> = alterations.iter().map(|a| a.0.clone()).collect();
        let results = self.per_broker(
            &c,
            &resources,
            |idx, _| {
                let req = iac::IncrementalAlterConfigsRequest {
                    validate_only: c.validate_only,
                    resources: idx
                        .iter()
                        .map(|&i| {
                            let (res, ops) = &alterations[i];
                            iac::AlterConfigsResource {
                                resource_type: res.resource_type.0,
                                resource_name: res.name.clone(),
                                configs: ops
                                    .iter()
                                    .map(|o| iac::AlterableConfig {
                                        name: o.name.clone(),
                                        config_operation: o.op.0,
                                        value: o.value.clone(),
                                        ..Default::default()
                                    })
                                    .collect(),
                                ..Default::default()
                            }
                        })
                        .collect(),
                    ..Default::default()
                };
                Ok(req)
            },
            |resp, idx, _| {
                let codes: Vec<_> = resp
                    .responses
                    .into_iter()
                    .map(|r| {
                        (
                            r.resource_type,
                            r.resource_name,
                            r.error_code,
                            r.error_message,
                        )
                    })
                    .collect();
                split_alter(codes, idx, &resources, "IncrementalAlterConfigs")
            },
        );
        Ok(pair(resources, collapse(results)?))
    }
}

type AlterAnswer = (i8, String, i16, Option<String>);

fn split_alter(
    answers: Vec<AlterAnswer>,
    idx: &[usize],
    resources: &[ConfigResource],
    api: &str,
) -> Vec<Result<()>> {
    let mut by: BTreeMap<(i8, String), (i16, Option<String>)> = answers
        .into_iter()
        .map(|(t, n, code, msg)| ((t, n), (code, msg)))
        .collect();
    idx.iter()
        .map(|&i| {
            let res = &resources[i];
            match by.remove(&(res.resource_type.0, res.name.clone())) {
                Some((0, _)) => Ok(()),
                Some((code, msg)) => Err(entity_error(code, msg.as_deref(), res)),
                None => Err(missing(res, api)),
            }
        })
        .collect()
}

fn pair<T>(
    resources: Vec<ConfigResource>,
    results: Vec<Result<T>>,
) -> Vec<ConfigResourceResult<T>> {
    resources
        .into_iter()
        .zip(results)
        .map(|(resource, result)| ConfigResourceResult { resource, result })
        .collect()
}

/// Converts CreateTopics v5+'s echoed configs.
pub(crate) fn created_entry(
    c: crate::protocol::create_topics::CreatableTopicConfigs,
) -> ConfigEntry {
    let source = ConfigSource(c.config_source);
    ConfigEntry {
        name: c.name,
        value: c.value,
        is_default: source == ConfigSource::DEFAULT_CONFIG,
        source,
        is_read_only: c.read_only,
        is_sensitive: c.is_sensitive,
        synonyms: Vec::new(),
        config_type: ConfigType::UNKNOWN,
        documentation: None,
    }
}
