//! A small JSON value and writer for `gregor admin -J` (no dependency).

use std::fmt::Write as _;

use gregor::error::{code_name, Error};

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum J {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
    /// An object whose keys come from data (config names, quota keys).
    Dyn(Vec<(String, J)>),
}

impl J {
    /// Serializes compactly.
    pub(crate) fn to_json(&self) -> String {
        let mut s = String::new();
        self.write(&mut s);
        s
    }

    fn write(&self, out: &mut String) {
        match self {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Int(n) => {
                let _ = write!(out, "{n}");
            }
            J::Float(f) if f.is_finite() => {
                let _ = write!(out, "{f:?}");
            }
            J::Float(_) => out.push_str("null"),
            J::Str(s) => string(out, s),
            J::Arr(v) => {
                out.push('[');
                for (i, x) in v.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    x.write(out);
                }
                out.push(']');
            }
            J::Obj(kv) => {
                let kv: Vec<(&str, &J)> = kv.iter().map(|(k, v)| (*k, v)).collect();
                object(out, &kv);
            }
            J::Dyn(kv) => {
                let kv: Vec<(&str, &J)> = kv.iter().map(|(k, v)| (k.as_str(), v)).collect();
                object(out, &kv);
            }
        }
    }
}

fn object(out: &mut String, kv: &[(&str, &J)]) {
    out.push('{');
    for (i, (k, v)) in kv.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, k);
        out.push(':');
        v.write(out);
    }
    out.push('}');
}

/// An object with keys from data; `None` gives null.
pub(crate) fn dyn_obj<V: Into<J>>(kv: Option<impl IntoIterator<Item = (String, V)>>) -> J {
    match kv {
        None => J::Null,
        Some(kv) => J::Dyn(kv.into_iter().map(|(k, v)| (k, v.into())).collect()),
    }
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl From<&str> for J {
    fn from(s: &str) -> Self {
        J::Str(s.to_string())
    }
}

impl From<String> for J {
    fn from(s: String) -> Self {
        J::Str(s)
    }
}

impl From<&String> for J {
    fn from(s: &String) -> Self {
        J::Str(s.clone())
    }
}

impl From<bool> for J {
    fn from(b: bool) -> Self {
        J::Bool(b)
    }
}

impl From<i64> for J {
    fn from(n: i64) -> Self {
        J::Int(n)
    }
}

impl From<i32> for J {
    fn from(n: i32) -> Self {
        J::Int(n.into())
    }
}

impl From<i16> for J {
    fn from(n: i16) -> Self {
        J::Int(n.into())
    }
}

impl From<f64> for J {
    fn from(f: f64) -> Self {
        J::Float(f)
    }
}

impl<T: Into<J>> From<Option<T>> for J {
    fn from(v: Option<T>) -> Self {
        v.map_or(J::Null, Into::into)
    }
}

impl<T: Into<J>> From<Vec<T>> for J {
    fn from(v: Vec<T>) -> Self {
        J::Arr(v.into_iter().map(Into::into).collect())
    }
}

/// `{"code": n, "name": "...", "message": "..."}`.
pub(crate) fn error(e: &Error) -> J {
    J::Obj(vec![
        ("code", J::Int(e.code().into())),
        ("name", J::Str(code_name(e.code()))),
        ("message", J::Str(e.to_string())),
    ])
}

/// The error of a result, or null.
pub(crate) fn error_of<T>(r: &gregor::error::Result<T>) -> J {
    r.as_ref().err().map_or(J::Null, error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_nests() {
        let v = J::Obj(vec![
            ("a", J::from("x\"y\\\n\u{1}")),
            ("b", J::from(vec![1i32, 2])),
            ("c", J::from(None::<i32>)),
            ("d", J::Float(1.5)),
            ("e", J::Float(f64::NAN)),
        ]);
        assert_eq!(
            v.to_json(),
            r#"{"a":"x\"y\\\n\u0001","b":[1,2],"c":null,"d":1.5,"e":null}"#
        );
    }
}
