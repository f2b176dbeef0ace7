//! Reading the JSON Kafka writes into znodes, with errors that name the
//! znode and the field ("/brokers/ids/1: field \"port\": expected an
//! integer, got \"x\"").

use serde_json::{Map, Value};

use crate::error::{local, Error};

/// A parsed znode: its path (for errors) and its JSON object.
pub struct Node<'a> {
    /// The znode's path.
    pub path: &'a str,
    /// Its top-level object.
    pub obj: Map<String, Value>,
}

/// An error about `path`'s `field`.
pub fn bad(path: &str, field: &str, why: impl std::fmt::Display) -> Error {
    Error::local(
        local::BAD_MSG,
        format!("malformed znode {path}: field \"{field}\": {why}"),
    )
}

/// An error about the whole of `path`.
pub fn bad_node(path: &str, why: impl std::fmt::Display) -> Error {
    Error::local(local::BAD_MSG, format!("malformed znode {path}: {why}"))
}

/// Parses `data` as a JSON object.
///
/// # Errors
/// `_BAD_MSG` naming `path` if it is not UTF-8 JSON or not an object.
pub fn parse<'a>(path: &'a str, data: &[u8]) -> Result<Node<'a>, Error> {
    let v: Value =
        serde_json::from_slice(data).map_err(|e| bad_node(path, format!("not JSON: {e}")))?;
    match v {
        Value::Object(obj) => Ok(Node { path, obj }),
        other => Err(bad_node(
            path,
            format!("expected a JSON object, got {other}"),
        )),
    }
}

/// An integer from a JSON number or a string of digits (Kafka writes
/// timestamps as strings).
pub fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

impl Node<'_> {
    /// The raw value of `field`, if present and not null.
    pub fn get(&self, field: &str) -> Option<&Value> {
        self.obj.get(field).filter(|v| !v.is_null())
    }

    /// A required integer field within `lo..=hi`.
    ///
    /// # Errors
    /// Missing, not an integer, or out of range.
    pub fn int(&self, field: &str, lo: i64, hi: i64) -> Result<i64, Error> {
        let v = self
            .get(field)
            .ok_or_else(|| bad(self.path, field, "missing"))?;
        match as_i64(v) {
            Some(n) if (lo..=hi).contains(&n) => Ok(n),
            Some(n) => Err(bad(self.path, field, format!("{n} is outside {lo}..={hi}"))),
            None => Err(bad(
                self.path,
                field,
                format!("expected an integer, got {v}"),
            )),
        }
    }

    /// An optional integer field (absent or null: `None`).
    ///
    /// # Errors
    /// Present but not an integer in range.
    pub fn opt_int(&self, field: &str, lo: i64, hi: i64) -> Result<Option<i64>, Error> {
        match self.get(field) {
            None => Ok(None),
            Some(_) => self.int(field, lo, hi).map(Some),
        }
    }

    /// A required i32 field.
    ///
    /// # Errors
    /// As [`Node::int`].
    pub fn i32(&self, field: &str) -> Result<i32, Error> {
        self.int(field, i64::from(i32::MIN), i64::from(i32::MAX))
            .map(|n| n as i32)
    }

    /// An optional string field.
    ///
    /// # Errors
    /// Present but not a string.
    pub fn opt_str(&self, field: &str) -> Result<Option<String>, Error> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(bad(self.path, field, format!("expected a string, got {v}"))),
        }
    }

    /// A required string field.
    ///
    /// # Errors
    /// Missing or not a string.
    pub fn str(&self, field: &str) -> Result<String, Error> {
        self.opt_str(field)?
            .ok_or_else(|| bad(self.path, field, "missing"))
    }

    /// An optional object field (absent or null: empty).
    ///
    /// # Errors
    /// Present but not an object.
    pub fn object(&self, field: &str) -> Result<Map<String, Value>, Error> {
        match self.get(field) {
            None => Ok(Map::new()),
            Some(Value::Object(m)) => Ok(m.clone()),
            Some(v) => Err(bad(
                self.path,
                field,
                format!("expected an object, got {v}"),
            )),
        }
    }

    /// An optional array field (absent or null: empty).
    ///
    /// # Errors
    /// Present but not an array.
    pub fn array(&self, field: &str) -> Result<Vec<Value>, Error> {
        match self.get(field) {
            None => Ok(Vec::new()),
            Some(Value::Array(a)) => Ok(a.clone()),
            Some(v) => Err(bad(self.path, field, format!("expected an array, got {v}"))),
        }
    }
}

/// A list of broker ids (`[1, 2, 3]`) at `path`'s `field`.
///
/// # Errors
/// Not an array of i32.
pub fn id_list(path: &str, field: &str, v: &Value) -> Result<Vec<i32>, Error> {
    let a = v.as_array().ok_or_else(|| {
        bad(
            path,
            field,
            format!("expected an array of broker ids, got {v}"),
        )
    })?;
    a.iter()
        .map(|x| {
            x.as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .ok_or_else(|| bad(path, field, format!("{x} is not a broker id")))
        })
        .collect()
}
