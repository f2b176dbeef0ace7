//! How message fields are encoded and decoded at a given version.
//!
//! Each Kafka message is declared once with `kafka_struct!`: its fields, in
//! wire order, each with the versions that carry it (and which of those allow
//! null, its tag if it is a tagged field, its default, and whether it may be
//! silently dropped by versions that lack it). The macro writes `encode` and
//! `decode` from that one declaration, so a version gate always reads the same
//! in both directions. The same declaration gives each field's documentation
//! its "On the wire" line (so no version note is written by hand) and, in
//! tests, each struct's field table (`field_table`, `FieldInfo`), which
//! `protocol::schemas` compares with Kafka's JSON message schemas.
//!
//! Rules (as Kafka's own generated code applies them):
//! - a field set to a non-default value on a version that cannot carry it is
//!   an [`EncodeError::FieldNotAvailable`], unless the field is `ignorable`;
//! - null in a version that does not allow it is an error both ways;
//! - tagged fields are written only when they differ from their default,
//!   sorted by tag; unknown tags are kept and written back unchanged;
//! - an array count may not exceed the bytes remaining.

use std::fmt::Debug;
use std::ops::{Bound, RangeBounds};

use crate::wire::{Bytes, DecodeError, EncodeError, Reader, Uuid, Writer};

/// What a field is being encoded or decoded with.
#[derive(Debug, Clone, Copy)]
pub struct Ctx {
    /// The message version.
    pub version: i16,
    /// Whether this version uses the flexible (compact, tagged) encoding.
    pub flexible: bool,
    /// Whether this field may be null at this version.
    pub nullable: bool,
    /// The field's name, for errors.
    pub field: &'static str,
}

impl Ctx {
    /// The context of a top-level message.
    pub fn new(version: i16, flexible: bool) -> Self {
        Ctx {
            version,
            flexible,
            nullable: false,
            field: "",
        }
    }

    /// The context of one field.
    #[inline]
    pub fn at(self, field: &'static str, nullable: bool) -> Self {
        Ctx {
            nullable,
            field,
            ..self
        }
    }
}

/// Adds the field's name in front of a decode error's reason.
#[inline]
pub fn in_field(field: &'static str) -> impl FnOnce(DecodeError) -> DecodeError {
    move |mut e| {
        e.reason = format!("{field}: {}", e.reason);
        e
    }
}

/// A type that can be a field of a Kafka message.
pub trait Field: Sized + Clone + PartialEq + Debug {
    /// Smallest number of bytes one value takes on the wire (bounds array counts).
    const MIN_SIZE: usize = 1;

    /// The zero value (0, false, "", empty, all-default struct).
    fn zero() -> Self;

    /// Encodes a non-null value.
    ///
    /// # Errors
    /// If the value cannot be carried by `cx.version`.
    fn write(&self, w: &mut Writer, cx: Ctx) -> Result<(), EncodeError>;

    /// Decodes a non-null value.
    ///
    /// # Errors
    /// On truncated or malformed input, or a null this type cannot hold.
    fn read(r: &mut Reader<'_>, cx: Ctx) -> Result<Self, DecodeError>;

    /// Encodes null, for types that have a null encoding.
    ///
    /// # Errors
    /// If the type has no null encoding.
    fn write_null(_w: &mut Writer, cx: Ctx) -> Result<(), EncodeError> {
        Err(EncodeError::NullNotAllowed {
            field: cx.field,
            version: cx.version,
        })
    }

    /// Decodes a value that may be null.
    ///
    /// # Errors
    /// As [`Field::read`].
    fn read_opt(r: &mut Reader<'_>, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        Self::read(r, cx).map(Some)
    }

    /// The type as Kafka's message schemas write it ("int32", "[]Topic").
    #[cfg(test)]
    fn schema_type() -> SchemaType;
}

/// A field's type as Kafka's JSON message schemas spell it: a primitive
/// ("int32", "string", "uuid", …), an array, or a struct with its own field
/// table. Made by `kafka_struct!`, compared with the schemas by
/// `protocol::schemas`.
#[cfg(test)]
#[derive(Clone)]
pub enum SchemaType {
    /// A primitive type, by its schema name.
    Prim(&'static str),
    /// `[]T`.
    Array(Box<SchemaType>),
    /// A struct: its name and its field table.
    Struct(&'static str, fn() -> Vec<FieldInfo>),
}

#[cfg(test)]
impl std::fmt::Debug for SchemaType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SchemaType::Prim(p) => f.write_str(p),
            SchemaType::Array(t) => write!(f, "[]{t:?}"),
            SchemaType::Struct(n, _) => f.write_str(n),
        }
    }
}

/// One row of a message's field table, as declared in `kafka_struct!`.
#[cfg(test)]
#[derive(Debug, Clone)]
pub struct FieldInfo {
    /// The Rust field name (Kafka's name in snake case).
    pub name: &'static str,
    /// Its type.
    pub ty: SchemaType,
    /// The versions that carry it (inclusive).
    pub versions: (i16, i16),
    /// The versions in which it may be null (empty when `.0 > .1`).
    pub nullable: (i16, i16),
    /// Its tag, if it is a tagged field.
    pub tag: Option<u32>,
    /// Whether versions without it drop a non-default value silently.
    pub ignorable: bool,
    /// Its default value, as `Debug` prints it.
    pub default: String,
    /// Its own flexible versions where they differ from its message's
    /// (Kafka's field-level `flexibleVersions`; only the request header's
    /// client id has one, "none"); `None`: the message's.
    pub flexible: Option<(i16, i16)>,
}

macro_rules! int_field {
    ($t:ty, $n:expr, $read:ident, $write:ident, $schema:literal) => {
        impl Field for $t {
            const MIN_SIZE: usize = $n;
            #[cfg(test)]
            fn schema_type() -> SchemaType {
                SchemaType::Prim($schema)
            }
            #[inline]
            fn zero() -> Self {
                0 as $t
            }
            #[inline]
            fn write(&self, w: &mut Writer, _cx: Ctx) -> Result<(), EncodeError> {
                w.$write(*self);
                Ok(())
            }
            #[inline]
            fn read(r: &mut Reader<'_>, _cx: Ctx) -> Result<Self, DecodeError> {
                r.$read()
            }
        }
    };
}

int_field!(i8, 1, i8, i8, "int8");
int_field!(i16, 2, i16, i16, "int16");
int_field!(i32, 4, i32, i32, "int32");
int_field!(i64, 8, i64, i64, "int64");
int_field!(u16, 2, u16, u16, "uint16");
int_field!(u32, 4, u32, u32, "uint32");
int_field!(f64, 8, f64, f64, "float64");

impl Field for bool {
    #[cfg(test)]
    fn schema_type() -> SchemaType {
        SchemaType::Prim("bool")
    }
    fn zero() -> Self {
        false
    }
    fn write(&self, w: &mut Writer, _cx: Ctx) -> Result<(), EncodeError> {
        w.bool(*self);
        Ok(())
    }
    fn read(r: &mut Reader<'_>, _cx: Ctx) -> Result<Self, DecodeError> {
        r.bool()
    }
}

impl Field for Uuid {
    const MIN_SIZE: usize = 16;
    #[cfg(test)]
    fn schema_type() -> SchemaType {
        SchemaType::Prim("uuid")
    }
    fn zero() -> Self {
        Uuid::ZERO
    }
    fn write(&self, w: &mut Writer, _cx: Ctx) -> Result<(), EncodeError> {
        w.uuid(self);
        Ok(())
    }
    fn read(r: &mut Reader<'_>, _cx: Ctx) -> Result<Self, DecodeError> {
        r.uuid()
    }
}

fn unexpected_null(r: &Reader<'_>, cx: Ctx) -> DecodeError {
    r.error(format!(
        "null in non-nullable field {} at version {}",
        cx.field, cx.version
    ))
}

impl Field for String {
    #[cfg(test)]
    fn schema_type() -> SchemaType {
        SchemaType::Prim("string")
    }
    fn zero() -> Self {
        String::new()
    }
    fn write(&self, w: &mut Writer, cx: Ctx) -> Result<(), EncodeError> {
        w.str_opt(cx.flexible, Some(self))
    }
    fn read(r: &mut Reader<'_>, cx: Ctx) -> Result<Self, DecodeError> {
        match r.str_opt(cx.flexible)? {
            Some(s) => Ok(s.to_owned()),
            None => Err(unexpected_null(r, cx)),
        }
    }
    fn write_null(w: &mut Writer, cx: Ctx) -> Result<(), EncodeError> {
        w.str_opt(cx.flexible, None)
    }
    fn read_opt(r: &mut Reader<'_>, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        Ok(r.str_opt(cx.flexible)?.map(str::to_owned))
    }
}

impl Field for Bytes {
    #[cfg(test)]
    fn schema_type() -> SchemaType {
        SchemaType::Prim("bytes")
    }
    fn zero() -> Self {
        Bytes::new()
    }
    fn write(&self, w: &mut Writer, cx: Ctx) -> Result<(), EncodeError> {
        w.bytes_opt(cx.flexible, Some(self))
    }
    fn read(r: &mut Reader<'_>, cx: Ctx) -> Result<Self, DecodeError> {
        match r.bytes_opt(cx.flexible)? {
            Some(b) => Ok(b),
            None => Err(unexpected_null(r, cx)),
        }
    }
    fn write_null(w: &mut Writer, cx: Ctx) -> Result<(), EncodeError> {
        w.bytes_opt(cx.flexible, None)
    }
    fn read_opt(r: &mut Reader<'_>, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        r.bytes_opt(cx.flexible)
    }
}

impl<T: Field> Field for Vec<T> {
    #[cfg(test)]
    fn schema_type() -> SchemaType {
        SchemaType::Array(Box::new(T::schema_type()))
    }
    fn zero() -> Self {
        Vec::new()
    }
    fn write(&self, w: &mut Writer, cx: Ctx) -> Result<(), EncodeError> {
        w.length(cx.flexible, true, Some(self.len()), "array")?;
        let ecx = cx.at(cx.field, false);
        for e in self {
            e.write(w, ecx)?;
        }
        Ok(())
    }
    fn read(r: &mut Reader<'_>, cx: Ctx) -> Result<Self, DecodeError> {
        match Self::read_opt(r, cx)? {
            Some(v) => Ok(v),
            None => Err(unexpected_null(r, cx)),
        }
    }
    fn write_null(w: &mut Writer, cx: Ctx) -> Result<(), EncodeError> {
        w.length(cx.flexible, true, None, "array")
    }
    fn read_opt(r: &mut Reader<'_>, cx: Ctx) -> Result<Option<Self>, DecodeError> {
        let Some(n) = r.length(cx.flexible, true, T::MIN_SIZE, "array")? else {
            return Ok(None);
        };
        // n is bounded by the bytes remaining, so this allocation is too.
        let mut v = Vec::with_capacity(n);
        let ecx = cx.at(cx.field, false);
        for _ in 0..n {
            v.push(T::read(r, ecx)?);
        }
        Ok(Some(v))
    }
}

impl<T: Field> Field for Option<T> {
    const MIN_SIZE: usize = 1;
    #[cfg(test)]
    fn schema_type() -> SchemaType {
        T::schema_type()
    }
    fn zero() -> Self {
        None
    }
    fn write(&self, w: &mut Writer, cx: Ctx) -> Result<(), EncodeError> {
        match self {
            Some(v) => v.write(w, cx),
            None if cx.nullable => T::write_null(w, cx),
            None => Err(EncodeError::NullNotAllowed {
                field: cx.field,
                version: cx.version,
            }),
        }
    }
    fn read(r: &mut Reader<'_>, cx: Ctx) -> Result<Self, DecodeError> {
        let v = T::read_opt(r, cx)?;
        if v.is_none() && !cx.nullable {
            return Err(unexpected_null(r, cx));
        }
        Ok(v)
    }
}

/// A tagged field this code does not know, kept so it can be written back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawTaggedField {
    /// The tag.
    pub tag: u32,
    /// The field's bytes.
    pub data: Bytes,
}

/// How one field is carried across versions. Built with chained calls from
/// the `{ versions = …, nullable = …, tag = …, default = …, ignorable = … }`
/// part of a `kafka_struct!` field.
#[derive(Debug, Clone)]
pub struct FieldSpec<T> {
    min: i16,
    max: i16,
    null_min: i16,
    null_max: i16,
    tag: Option<u32>,
    ignorable: bool,
    default: Option<T>,
}

fn bounds(r: impl RangeBounds<i16>) -> (i16, i16) {
    let min = match r.start_bound() {
        Bound::Included(&v) => v,
        Bound::Excluded(&v) => v + 1,
        Bound::Unbounded => 0,
    };
    let max = match r.end_bound() {
        Bound::Included(&v) => v,
        Bound::Excluded(&v) => v - 1,
        Bound::Unbounded => i16::MAX,
    };
    (min, max)
}

impl<T: Field> FieldSpec<T> {
    /// A field carried by every version, never null, untagged, default zero.
    #[inline]
    pub fn new() -> Self {
        FieldSpec {
            min: 0,
            max: i16::MAX,
            null_min: 1,
            null_max: 0,
            tag: None,
            ignorable: false,
            default: None,
        }
    }
    /// The versions that carry the field.
    #[inline]
    pub fn versions(mut self, r: impl RangeBounds<i16>) -> Self {
        (self.min, self.max) = bounds(r);
        self
    }
    /// The versions in which the field may be null.
    #[inline]
    pub fn nullable(mut self, r: impl RangeBounds<i16>) -> Self {
        (self.null_min, self.null_max) = bounds(r);
        self
    }
    /// Makes the field a tagged field with this tag (in all its versions).
    #[inline]
    pub fn tag(mut self, tag: u32) -> Self {
        self.tag = Some(tag);
        self
    }
    /// Whether versions without the field may silently drop a non-default value.
    #[inline]
    pub fn ignorable(mut self, yes: bool) -> Self {
        self.ignorable = yes;
        self
    }
    /// The field's default value.
    #[inline]
    pub fn default(mut self, v: T) -> Self {
        self.default = Some(v);
        self
    }
    /// True if `version` carries the field.
    #[inline]
    pub fn has(&self, version: i16) -> bool {
        self.min <= version && version <= self.max
    }
    /// True if the field may be null at `version`.
    #[inline]
    pub fn nullable_at(&self, version: i16) -> bool {
        self.null_min <= version && version <= self.null_max
    }
    /// The field's tag, if it is tagged.
    #[inline]
    pub fn tag_no(&self) -> Option<u32> {
        self.tag
    }
    /// Whether it may be dropped silently.
    #[inline]
    pub fn is_ignorable(&self) -> bool {
        self.ignorable
    }
    /// The default value.
    #[inline]
    pub fn default_value(&self) -> T {
        self.default.clone().unwrap_or_else(T::zero)
    }
    /// The lowest version that carries the field.
    pub fn min_version(&self) -> i16 {
        self.min
    }
    /// The field's row of its struct's field table.
    #[cfg(test)]
    pub fn info(&self, name: &'static str) -> FieldInfo {
        FieldInfo {
            name,
            ty: T::schema_type(),
            versions: (self.min, self.max),
            nullable: (self.null_min, self.null_max),
            tag: self.tag,
            ignorable: self.ignorable,
            default: format!("{:?}", self.default_value()),
            flexible: None,
        }
    }
}

impl<T: Field> Default for FieldSpec<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// Writes a tagged-field section: `fields` (tag, encoded bytes) plus the
/// unknown ones, sorted by tag.
pub fn write_tagged(
    w: &mut Writer,
    mut fields: Vec<(u32, Vec<u8>)>,
    unknown: &[RawTaggedField],
) -> Result<(), EncodeError> {
    for u in unknown {
        if fields.iter().any(|(t, _)| *t == u.tag) {
            return Err(EncodeError::Invalid(format!("tag {} given twice", u.tag)));
        }
        fields.push((u.tag, u.data.to_vec()));
    }
    fields.sort_by_key(|f| f.0);
    w.uvarint(fields.len() as u32);
    for (tag, data) in fields {
        w.uvarint(tag);
        let len = u32::try_from(data.len()).map_err(|_| EncodeError::TooLong {
            what: "tagged field",
            len: data.len(),
        })?;
        w.uvarint(len);
        w.put(&data);
    }
    Ok(())
}

/// Reads the header of a tagged-field section: the count, bounded by the bytes left.
pub fn read_tag_count(r: &mut Reader<'_>) -> Result<u32, DecodeError> {
    let n = r.uvarint()?;
    if n as usize > r.remaining() {
        return Err(r.error(format!(
            "{n} tagged fields but {} bytes remaining",
            r.remaining()
        )));
    }
    Ok(n)
}

/// Declares Kafka message structs and writes their codec.
///
/// ```ignore
/// kafka_struct! {
///     /// One partition.
///     pub struct Partition {
///         /// The partition index.
///         partition_index: i32 {},
///         /// The leader epoch.
///         leader_epoch: i32 { versions = 7.., default = -1, ignorable = true },
///         /// The rack, or null.
///         rack: Option<String> { versions = 1.., nullable = 1.. },
///         /// Set only when diverging.
///         diverging: EpochEndOffset { versions = 12.., tag = 0 },
///     }
/// }
/// ```
macro_rules! kafka_struct {
    ($(
        $(#[$meta:meta])*
        pub struct $name:ident {
            $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty { $($k:ident = $v:expr),* $(,)? }
            ),* $(,)?
        }
    )*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub struct $name {
            $(
                $(#[$fmeta])*
                #[doc = concat!("\n\nOn the wire: `", stringify!($ty), " { ", stringify!($($k = $v),*), " }` (versions, nullable versions, tag, default; `{ }`: every version, never null).")]
                pub $field: $ty,
            )*
            /// Tagged fields this version of gregor does not know, kept as read.
            pub unknown_tagged_fields: Vec<$crate::protocol::codec::RawTaggedField>,
        }

        impl Default for $name {
            fn default() -> Self {
                $name {
                    $($field: $crate::protocol::codec::FieldSpec::<$ty>::new()$(.$k($v))*.default_value(),)*
                    unknown_tagged_fields: Vec::new(),
                }
            }
        }

        #[cfg(test)]
        impl $name {
            /// The field table: every field as declared, in wire order.
            #[allow(dead_code)]
            pub(crate) fn field_table() -> Vec<$crate::protocol::codec::FieldInfo> {
                use $crate::protocol::codec::FieldSpec;
                vec![$(FieldSpec::<$ty>::new()$(.$k($v))*.info(stringify!($field)),)*]
            }
        }

        impl $name {
            /// The message's `throttle_time_ms` field (KIP-219), or 0 if it
            /// has none.
            #[doc(hidden)]
            pub fn throttle_field(&self) -> i32 {
                $(
                    if stringify!($field) == "throttle_time_ms" {
                        if let Some(v) = (&self.$field as &dyn ::std::any::Any).downcast_ref::<i32>() {
                            return *v;
                        }
                    }
                )*
                0
            }
        }

        impl $crate::protocol::codec::Field for $name {
            fn zero() -> Self {
                <$name as Default>::default()
            }

            #[cfg(test)]
            fn schema_type() -> $crate::protocol::codec::SchemaType {
                $crate::protocol::codec::SchemaType::Struct(stringify!($name), $name::field_table)
            }

            #[allow(unused_variables, unused_mut)]
            fn write(
                &self,
                w: &mut $crate::wire::Writer,
                cx: $crate::protocol::codec::Ctx,
            ) -> Result<(), $crate::wire::EncodeError> {
                #[allow(unused_imports)]
                use $crate::protocol::codec::{Field, FieldSpec};
                let v = cx.version;
                // Only a value of a field nullable at this version is written
                // with nullable set: a present struct there gets its marker.
                if cx.nullable {
                    w.i8(1);
                }
                $({
                    let spec = FieldSpec::<$ty>::new()$(.$k($v))*;
                    if spec.has(v) {
                        if spec.tag_no().is_none() {
                            self.$field.write(w, cx.at(stringify!($field), spec.nullable_at(v)))?;
                        } else if !cx.flexible {
                            return Err($crate::wire::EncodeError::FieldNotAvailable {
                                field: stringify!($field), version: v });
                        }
                    } else if !spec.is_ignorable() && self.$field != spec.default_value() {
                        return Err($crate::wire::EncodeError::FieldNotAvailable {
                            field: stringify!($field),
                            version: v,
                        });
                    }
                })*
                if cx.flexible {
                    let mut tagged: Vec<(u32, Vec<u8>)> = Vec::new();
                    $({
                        let spec = FieldSpec::<$ty>::new()$(.$k($v))*;
                        if let Some(tag) = spec.tag_no() {
                            if spec.has(v) && self.$field != spec.default_value() {
                                let mut tw = $crate::wire::Writer::new();
                                self.$field.write(&mut tw, cx.at(stringify!($field), spec.nullable_at(v)))?;
                                tagged.push((tag, tw.into_vec()));
                            }
                        }
                    })*
                    $crate::protocol::codec::write_tagged(w, tagged, &self.unknown_tagged_fields)?;
                } else if !self.unknown_tagged_fields.is_empty() {
                    return Err($crate::wire::EncodeError::FieldNotAvailable {
                        field: "unknown_tagged_fields",
                        version: v,
                    });
                }
                Ok(())
            }

            #[allow(unused_variables, unused_mut)]
            fn read(
                r: &mut $crate::wire::Reader<'_>,
                cx: $crate::protocol::codec::Ctx,
            ) -> Result<Self, $crate::wire::DecodeError> {
                use $crate::protocol::codec::{Field, FieldSpec, in_field};
                let v = cx.version;
                let mut this = <$name as Default>::default();
                $({
                    let spec = FieldSpec::<$ty>::new()$(.$k($v))*;
                    if spec.has(v) && spec.tag_no().is_none() {
                        this.$field = <$ty as Field>::read(r, cx.at(stringify!($field), spec.nullable_at(v)))
                            .map_err(in_field(stringify!($field)))?;
                    }
                })*
                if cx.flexible {
                    let n = $crate::protocol::codec::read_tag_count(r)?;
                    for _ in 0..n {
                        let tag = r.uvarint()?;
                        let size = r.uvarint()? as usize;
                        let mut sub = r.sub(size, "tagged field")?;
                        let mut known = false;
                        $({
                            let spec = FieldSpec::<$ty>::new()$(.$k($v))*;
                            if !known && spec.tag_no() == Some(tag) && spec.has(v) {
                                this.$field = <$ty as Field>::read(&mut sub, cx.at(stringify!($field), spec.nullable_at(v)))
                                    .map_err(in_field(stringify!($field)))?;
                                if !sub.is_empty() {
                                    return Err(sub.error(format!(
                                        "tagged field {} has {} bytes left over", stringify!($field), sub.remaining())));
                                }
                                known = true;
                            }
                        })*
                        if !known {
                            let data = sub.bytes(size, "tagged field")?;
                            this.unknown_tagged_fields.push($crate::protocol::codec::RawTaggedField { tag, data });
                        }
                    }
                }
                Ok(this)
            }

            fn write_null(
                w: &mut $crate::wire::Writer,
                _cx: $crate::protocol::codec::Ctx,
            ) -> Result<(), $crate::wire::EncodeError> {
                w.i8(-1);
                Ok(())
            }

            fn read_opt(
                r: &mut $crate::wire::Reader<'_>,
                cx: $crate::protocol::codec::Ctx,
            ) -> Result<Option<Self>, $crate::wire::DecodeError> {
                if cx.nullable && r.i8()? < 0 {
                    Ok(None)
                } else {
                    Self::read(r, cx).map(Some)
                }
            }
        }

        // A nullable struct is written as an i8 marker (-1 null, 1 present)
        // followed by the struct; `Option<Struct>` relies on this impl.
        #[cfg(any(test, feature = "samples"))]
        impl $crate::protocol::sample::Sample for $name {
            #[allow(unused_variables)]
            fn sample(s: &mut $crate::protocol::sample::Sampler, cx: $crate::protocol::codec::Ctx) -> Self {
                use $crate::protocol::codec::FieldSpec;
                let v = cx.version;
                let mut this = <$name as Default>::default();
                $({
                    let spec = FieldSpec::<$ty>::new()$(.$k($v))*;
                    if spec.has(v) && (spec.tag_no().is_none() || cx.flexible) {
                        this.$field = <$ty as $crate::protocol::sample::Sample>::sample(
                            s, cx.at(stringify!($field), spec.nullable_at(v)));
                    }
                })*
                this
            }
        }
    )*};
}
pub(crate) use kafka_struct;

/// Implements [`crate::protocol::Message`] for a top-level message struct.
///
/// `kafka_message!(MetadataRequest, key = 3, versions = 0..=12, flexible = 9);`
/// (omit `flexible` for messages with no flexible versions).
macro_rules! kafka_message {
    ($name:ident, key = $key:expr, versions = $min:literal ..= $max:literal, flexible = $flex:literal) => {
        impl $crate::protocol::Message for $name {
            const API_KEY: i16 = $key;
            const MIN_VERSION: i16 = $min;
            const MAX_VERSION: i16 = $max;
            const FIRST_FLEXIBLE: i16 = $flex;

            fn throttle_time_ms(&self) -> i32 {
                self.throttle_field()
            }
        }
    };
    ($name:ident, key = $key:expr, versions = $min:literal ..= $max:literal) => {
        impl $crate::protocol::Message for $name {
            const API_KEY: i16 = $key;
            const MIN_VERSION: i16 = $min;
            const MAX_VERSION: i16 = $max;
            const FIRST_FLEXIBLE: i16 = i16::MAX;

            fn throttle_time_ms(&self) -> i32 {
                self.throttle_field()
            }
        }
    };
}
pub(crate) use kafka_message;
