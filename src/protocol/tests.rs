//! Every API at every version: round trip, every truncated prefix is an
//! error, and a cross-check against an independent implementation (the
//! `kafka-protocol` crate, generated from Kafka's schemas): it must decode
//! gregor's bytes into the same field values and re-encode them byte for byte.

use super::codec::Ctx;
use super::sample::{Sample, Sampler};
use super::Message;
use kafka_protocol::protocol::{Decodable, Encodable, Message as KpMessage};

/// (field name, leaf value) pairs of a `Debug` rendering, in order. Type names,
/// `Some(…)` wrappers and the unknown-tagged-fields maps are ignored, so two
/// renderings compare equal when the same fields hold the same values.
pub(crate) fn leaves(s: &str) -> Vec<(String, String)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut field = String::new();
    let mut i = 0;
    let is_uuid_at = |i: usize| {
        b.len() >= i + 36
            && b[i..i + 36].iter().enumerate().all(|(k, c)| {
                if matches!(k, 8 | 13 | 18 | 23) {
                    *c == b'-'
                } else {
                    c.is_ascii_hexdigit()
                }
            })
    };
    while i < b.len() {
        let c = b[i];
        if is_uuid_at(i) {
            out.push((field.clone(), s[i..i + 36].to_string()));
            i += 36;
        } else if c == b'"' || (c == b'b' && b.get(i + 1) == Some(&b'"')) {
            let start = i;
            i += if c == b'b' { 2 } else { 1 };
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push((field.clone(), s[start..i.min(b.len())].to_string()));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let ident = &s[start..i];
            let mut j = i;
            while j < b.len() && b[j] == b' ' {
                j += 1;
            }
            if b.get(j) == Some(&b':') && b.get(j + 1) != Some(&b':') {
                field = ident.trim_start_matches('_').to_string();
            } else if matches!(ident, "true" | "false" | "None") {
                out.push((field.clone(), ident.to_string()));
            }
        } else if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                i += 1;
            }
            out.push((field.clone(), s[start..i].to_string()));
        } else {
            i += 1;
        }
    }
    out.retain(|(f, _)| f != "unknown_tagged_fields");
    out
}

/// Round trip, truncation and the cross-check for one message type.
pub(crate) fn check<O, K>()
where
    O: Message + Sample,
    K: KpMessage + Encodable + Decodable + std::fmt::Debug,
{
    check_except::<O, K>(&[])
}

/// As [`check`], for an API whose newest fields `kafka-protocol` 0.15 lacks:
/// the fields named in `missing` must hold their defaults at the versions
/// both know, and are left out of the field comparison. Their layout is
/// still checked, against Kafka's own schemas, by `protocol::schemas`.
/// A name written `last:NAME` is a top-level field added after every other
/// (its name is also used deeper in the message): only the message's last
/// leaf is left out, if it has that name.
pub(crate) fn check_except<O, K>(missing: &[&str])
where
    O: Message + Sample,
    K: KpMessage + Encodable + Decodable + std::fmt::Debug,
{
    let name = std::any::type_name::<O>();
    let mut crossed = 0;
    for v in O::MIN_VERSION..=O::MAX_VERSION {
        for seed in [0u64, 1000] {
            let cx = Ctx::new(v, O::is_flexible(v));
            let ours = O::sample(&mut Sampler::new(seed), cx);
            let bytes = ours
                .to_bytes(v)
                .unwrap_or_else(|e| panic!("{name} v{v}: encode failed: {e}"));
            let back = O::from_bytes(&bytes, v)
                .unwrap_or_else(|e| panic!("{name} v{v}: decode failed: {e}"));
            assert_eq!(back, ours, "{name} v{v}: round trip");
            for n in 0..bytes.len() {
                let mut r = crate::wire::Reader::new(&bytes[..n]);
                assert!(
                    O::decode(&mut r, v).is_err(),
                    "{name} v{v}: prefix of {n}/{} decoded",
                    bytes.len()
                );
            }
            if K::VERSIONS.min <= v && v <= K::VERSIONS.max {
                let mut buf = bytes::Bytes::from(bytes.clone());
                let theirs = K::decode(&mut buf, v).unwrap_or_else(|e| {
                    panic!("{name} v{v}: kafka-protocol cannot decode our bytes: {e}")
                });
                assert!(
                    buf.is_empty(),
                    "{name} v{v}: kafka-protocol left {} bytes",
                    buf.len()
                );
                let mut again = Vec::new();
                theirs.encode(&mut again, v).unwrap();
                assert_eq!(
                    again, bytes,
                    "{name} v{v}: kafka-protocol re-encodes differently"
                );
                let mut l_ours = leaves(&format!("{ours:?}"));
                l_ours.retain(|(f, _)| !missing.contains(&f.as_str()));
                if l_ours
                    .last()
                    .is_some_and(|(f, _)| missing.contains(&format!("last:{f}").as_str()))
                {
                    l_ours.pop();
                }
                let l_theirs = leaves(&format!("{theirs:?}"));
                assert_eq!(
                    l_ours, l_theirs,
                    "{name} v{v}: field values differ\nours:   {ours:?}\ntheirs: {theirs:?}"
                );
                crossed += 1;
            }
        }
    }
    assert!(crossed > 0, "{name}: no version cross-checked");
}

#[test]
fn leaves_ignore_type_names_and_wrappers() {
    let a = leaves(
        r#"A { x: Some([B { name: Some("t"), id: 0000000a-0000-0000-0000-00000000000b, n: -1 }]), unknown_tagged_fields: {} }"#,
    );
    let b = leaves(
        r#"Other { x: Some([C { name: Some("t"), id: 0000000a-0000-0000-0000-00000000000b, n: -1 }]), unknown_tagged_fields: [] }"#,
    );
    assert_eq!(a, b);
    assert_eq!(a.len(), 3);
}

/// (module, listed key, the request's and the response's API_KEY) of every
/// API `kafka_apis!` says gregor implements.
macro_rules! implemented {
    ($($key:literal $name:ident $($module:ident :: $request:ident)?,)*) => {
        vec![$($((
            stringify!($module),
            $key,
            <super::$module::$request as Message>::API_KEY,
            <<super::$module::$request as super::Request>::Response as Message>::API_KEY,
        ),)?)*]
    };
}

#[test]
fn the_api_list_names_every_api_module() {
    let listed: Vec<(&str, i16, i16, i16)> = crate::api_keys::kafka_apis!(implemented);
    for (module, key, req, resp) in &listed {
        assert_eq!((key, key), (req, resp), "{module}");
    }
    // Every module here that implements a Kafka API (a request with an API
    // key) is in the list, and only those.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/protocol");
    let mut modules: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            text.lines().any(|l| l.starts_with("impl Request for"))
        })
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    modules.sort();
    let mut names: Vec<String> = listed.iter().map(|l| l.0.to_string()).collect();
    names.sort();
    assert_eq!(names, modules);
    assert_eq!(listed.len(), 53);
}
