//! The small enumerations of the admin protocol (resource types, ACL
//! operations, config sources, …) as newtypes over their wire integers, so a
//! value this version of gregor does not know passes through unchanged, as
//! [`KafkaCode`](crate::protocol::KafkaCode) does for error codes. Names are
//! the Java client's enum constant names.
//!
//! Each enumeration is declared once here; [`ENUMS`] lists them with each
//! value's name and description. The C constants (`GREGOR_ACL_OPERATION_*`,
//! …), the C descriptor functions (`gregor_get_acl_operation_descs`, …) and
//! the Python and Ruby enums all come from this table.

use std::fmt;

/// One value of an enumeration: its wire number, name and description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnumDesc {
    /// The wire value.
    pub value: i32,
    /// The Java client's name for it ("IDEMPOTENT_WRITE").
    pub name: &'static str,
    /// What it means (the first line of its documentation).
    pub desc: &'static str,
}

/// One enumeration: its Java client name and every value it knows.
#[derive(Debug, Clone, Copy)]
pub struct EnumTable {
    /// The Java client's name of the type ("AclOperation").
    pub name: &'static str,
    /// Every known value, in wire order.
    pub values: &'static [EnumDesc],
}

macro_rules! wire_enum {
    (
        $(#[$m:meta])*
        pub struct $name:ident($t:ty) {
            $( $(#[doc = $vd:literal])* $c:ident = $v:literal, )*
        }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub $t);

        impl $name {
            $( $(#[doc = $vd])* pub const $c: $name = $name($v); )*

            /// Every known value with its name and description, in wire order.
            ///
            /// cbindgen:ignore
            pub const DESCS: &'static [EnumDesc] = &[$(EnumDesc {
                value: $v,
                name: stringify!($c),
                desc: concat!($($vd),*),
            },)*];

            /// The type and its values, for [`ENUMS`].
            ///
            /// cbindgen:ignore
            pub const TABLE: EnumTable = EnumTable { name: stringify!($name), values: Self::DESCS };

            /// Every known value with its name, in wire order.
            ///
            /// cbindgen:ignore
            pub const VALUES: &'static [($name, &'static str)] = &[$(($name($v), stringify!($c)),)*];

            /// The Java client's name for the value ("UNKNOWN" for a value gregor does not know).
            pub fn name(self) -> &'static str {
                Self::VALUES
                    .iter()
                    .find(|(v, _)| *v == self)
                    .map_or("UNKNOWN", |(_, n)| n)
            }

            /// True if gregor knows the value.
            pub fn is_known(self) -> bool {
                Self::VALUES.iter().any(|(v, _)| *v == self)
            }

            /// Parses a name, ignoring case and treating `-` as `_`
            /// ("topic", "BROKER_LOGGER", "broker-logger"), or a number.
            pub fn parse(s: &str) -> Option<$name> {
                let want = s.trim().to_ascii_uppercase().replace('-', "_");
                if let Some((v, _)) = Self::VALUES.iter().find(|(_, n)| *n == want) {
                    return Some(*v);
                }
                s.trim().parse::<$t>().ok().map($name)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                if self.is_known() {
                    f.write_str(self.name())
                } else {
                    write!(f, "UNKNOWN({})", self.0)
                }
            }
        }

        impl From<$t> for $name {
            fn from(v: $t) -> Self {
                $name(v)
            }
        }
    };
}

wire_enum! {
    /// An ACL resource type (`ResourceType` in the Java client).
    pub struct ResourceType(i8) {
        /// A type gregor does not know.
        UNKNOWN = 0,
        /// In a filter: any resource type.
        ANY = 1,
        /// A topic.
        TOPIC = 2,
        /// A consumer group.
        GROUP = 3,
        /// The cluster.
        CLUSTER = 4,
        /// A transactional ID.
        TRANSACTIONAL_ID = 5,
        /// A delegation token.
        DELEGATION_TOKEN = 6,
        /// A user principal.
        USER = 7,
    }
}

wire_enum! {
    /// The type of a config resource (`ConfigResource.Type`).
    pub struct ConfigResourceType(i8) {
        /// A type gregor does not know.
        UNKNOWN = 0,
        /// A topic.
        TOPIC = 2,
        /// A broker (name: its id; "" for the cluster-wide default).
        BROKER = 4,
        /// A broker's loggers (name: the broker id; KIP-412).
        BROKER_LOGGER = 8,
        /// A client-metrics subscription (KIP-714).
        CLIENT_METRICS = 16,
        /// A consumer group (KIP-848).
        GROUP = 32,
    }
}

wire_enum! {
    /// How an ACL's resource name is matched (`PatternType`, KIP-290).
    pub struct PatternType(i8) {
        /// A type gregor does not know.
        UNKNOWN = 0,
        /// In a filter: any pattern type.
        ANY = 1,
        /// In a filter: every binding that would match the name (literal,
        /// wildcard and prefixed).
        MATCH = 2,
        /// The name is matched exactly (or is the `*` wildcard).
        LITERAL = 3,
        /// The name is a prefix.
        PREFIXED = 4,
    }
}

wire_enum! {
    /// An ACL operation (`AclOperation`).
    pub struct AclOperation(i8) {
        /// An operation gregor does not know.
        UNKNOWN = 0,
        /// In a filter: any operation.
        ANY = 1,
        /// Every operation.
        ALL = 2,
        /// Read.
        READ = 3,
        /// Write.
        WRITE = 4,
        /// Create.
        CREATE = 5,
        /// Delete.
        DELETE = 6,
        /// Alter.
        ALTER = 7,
        /// Describe.
        DESCRIBE = 8,
        /// Inter-broker cluster actions.
        CLUSTER_ACTION = 9,
        /// Describe configs.
        DESCRIBE_CONFIGS = 10,
        /// Alter configs.
        ALTER_CONFIGS = 11,
        /// Idempotent produce.
        IDEMPOTENT_WRITE = 12,
        /// Create delegation tokens.
        CREATE_TOKENS = 13,
        /// Describe delegation tokens.
        DESCRIBE_TOKENS = 14,
        /// Two-phase commit (KIP-939).
        TWO_PHASE_COMMIT = 15,
    }
}

wire_enum! {
    /// An ACL permission (`AclPermissionType`).
    pub struct AclPermissionType(i8) {
        /// A permission gregor does not know.
        UNKNOWN = 0,
        /// In a filter: any permission.
        ANY = 1,
        /// Deny.
        DENY = 2,
        /// Allow.
        ALLOW = 3,
    }
}

wire_enum! {
    /// Where a config value comes from (`ConfigEntry.ConfigSource`, KIP-226).
    pub struct ConfigSource(i8) {
        /// A source gregor does not know (or a v0 response's non-default value).
        UNKNOWN = 0,
        /// Set on the topic.
        DYNAMIC_TOPIC_CONFIG = 1,
        /// Set dynamically for this broker.
        DYNAMIC_BROKER_CONFIG = 2,
        /// Set dynamically as the default for all brokers.
        DYNAMIC_DEFAULT_BROKER_CONFIG = 3,
        /// From the broker's properties file.
        STATIC_BROKER_CONFIG = 4,
        /// The built-in default.
        DEFAULT_CONFIG = 5,
        /// Set dynamically for a broker logger.
        DYNAMIC_BROKER_LOGGER_CONFIG = 6,
        /// A client-metrics config.
        CLIENT_METRICS_CONFIG = 7,
        /// Set on the group.
        GROUP_CONFIG = 8,
    }
}

wire_enum! {
    /// A config's data type (`ConfigEntry.ConfigType`, KIP-569).
    pub struct ConfigType(i8) {
        /// Not known (or not returned before DescribeConfigs v3).
        UNKNOWN = 0,
        /// Boolean.
        BOOLEAN = 1,
        /// String.
        STRING = 2,
        /// 32-bit integer.
        INT = 3,
        /// 16-bit integer.
        SHORT = 4,
        /// 64-bit integer.
        LONG = 5,
        /// Double.
        DOUBLE = 6,
        /// Comma-separated list.
        LIST = 7,
        /// Java class name.
        CLASS = 8,
        /// Password (sensitive).
        PASSWORD = 9,
    }
}

wire_enum! {
    /// An incremental config change (`AlterConfigOp.OpType`, KIP-339).
    pub struct AlterConfigOpType(i8) {
        /// Set the value.
        SET = 0,
        /// Revert to the default.
        DELETE = 1,
        /// Add to a list value.
        APPEND = 2,
        /// Remove from a list value.
        SUBTRACT = 3,
    }
}

wire_enum! {
    /// A SCRAM mechanism (`ScramMechanism`, KIP-554).
    pub struct ScramMechanism(i8) {
        /// A mechanism gregor does not know.
        UNKNOWN = 0,
        /// SCRAM-SHA-256.
        SCRAM_SHA_256 = 1,
        /// SCRAM-SHA-512.
        SCRAM_SHA_512 = 2,
    }
}

wire_enum! {
    /// Which leader an election picks (`ElectionType`, KIP-460).
    pub struct ElectionType(i8) {
        /// The preferred (first) replica, if it is in sync.
        PREFERRED = 0,
        /// Any live replica when no in-sync replica is left (may lose data).
        UNCLEAN = 1,
    }
}

/// Every enumeration of this module, for the C descriptor functions and the
/// generated C constants.
///
/// cbindgen:ignore
pub const ENUMS: &[EnumTable] = &[
    ResourceType::TABLE,
    ConfigResourceType::TABLE,
    PatternType::TABLE,
    AclOperation::TABLE,
    AclPermissionType::TABLE,
    ConfigSource::TABLE,
    ConfigType::TABLE,
    AlterConfigOpType::TABLE,
    ScramMechanism::TABLE,
    ElectionType::TABLE,
];

impl EnumDesc {
    /// The description without the leading space of the doc comment.
    pub fn description(&self) -> &'static str {
        self.desc.trim()
    }
}

impl ScramMechanism {
    /// The SASL mechanism name ("SCRAM-SHA-256").
    pub fn sasl_name(self) -> &'static str {
        match self {
            ScramMechanism::SCRAM_SHA_256 => "SCRAM-SHA-256",
            ScramMechanism::SCRAM_SHA_512 => "SCRAM-SHA-512",
            _ => "UNKNOWN",
        }
    }
}

/// The operations an authorized-operations bit field (Metadata v8+,
/// DescribeCluster) allows: bit `n` set means operation `n`. Kafka's
/// "not asked" marker `i32::MIN` gives `None`.
pub fn authorized_operations(bits: i32) -> Option<Vec<AclOperation>> {
    if bits == i32::MIN {
        return None;
    }
    Some(
        (0..31)
            .filter(|b| bits & (1 << b) != 0)
            .map(|b| AclOperation(b as i8))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_unknowns_pass_through() {
        assert_eq!(
            ConfigResourceType::parse("broker-logger"),
            Some(ConfigResourceType::BROKER_LOGGER)
        );
        assert_eq!(
            ConfigResourceType::parse("Topic"),
            Some(ConfigResourceType::TOPIC)
        );
        assert_eq!(
            ConfigResourceType::parse("32"),
            Some(ConfigResourceType::GROUP)
        );
        assert_eq!(ConfigResourceType::parse("nope"), None);
        assert_eq!(AclOperation(99).to_string(), "UNKNOWN(99)");
        assert_eq!(AclOperation(99).name(), "UNKNOWN");
        assert_eq!(PatternType::PREFIXED.to_string(), "PREFIXED");
    }

    #[test]
    fn authorized_operations_bits() {
        assert_eq!(authorized_operations(i32::MIN), None);
        assert_eq!(
            authorized_operations((1 << 3) | (1 << 8)),
            Some(vec![AclOperation::READ, AclOperation::DESCRIBE])
        );
    }
}
