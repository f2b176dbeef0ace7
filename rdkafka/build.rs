//! Makes librdkafka's whole export list out of `abi/functions.tsv` (written
//! by scripts/rdkafka-abi-table.py from librdkafka 2.12.1's headers and
//! library):
//!
//! - `$OUT_DIR/stubs.rs`: an `extern "C"` function for every row no module
//!   of `src/` implements by hand, failing cleanly by its return type (see
//!   `failure`), included by `src/stubs.rs`;
//! - `$OUT_DIR/librdkafka.map`: the linker version script that exports
//!   exactly the table's names (`local: *` for everything else); a name no
//!   function defines fails the link (rustc passes
//!   `--no-undefined-version`);
//! - the link arguments of the shared library: soname `librdkafka.so.1`,
//!   that version script, and `--exclude-libs,ALL` so that no symbol of a
//!   linked library leaks: rustc exports every `#[no_mangle]` function of
//!   every crate of a cdylib (gregor's `gregor_*` among them) through a
//!   version script of its own, which ours can only add to, so the
//!   dependencies' symbols are hidden where they come from, their
//!   archives. Only this crate's own objects export, and those define
//!   only the table's names (the hand-written functions are checked
//!   against the table below). Whole-program LTO would merge gregor into
//!   this crate's object and defeat that; the crate is not built with it.
//!
//! The variadic functions stable Rust cannot define are C, in `csrc/`
//! ([`C_SHIMS`]): each file is compiled with the system C compiler (`$CC`,
//! default `cc`) against our own `include/librdkafka/rdkafka.h` and linked
//! into the shared library as an object file (not an archive, which
//! `--exclude-libs` would hide), so its function is exported like the
//! Rust ones and gets no stub. The static library does not hold them.
//!
//! A hand-written function is any `pub extern "C" fn rd_kafka_*` in
//! `src/`; its parameters and return type must have the ABI classes of its
//! row (a mismatch fails the build), and a name the table lacks fails the
//! build too, so nothing but librdkafka's functions can be exported.

use std::collections::BTreeMap;
use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// One row of `abi/functions.tsv`.
struct Row {
    name: String,
    returns: String,
    /// (name, C type) of each fixed parameter.
    params: Vec<(String, String)>,
    /// The ABI classes: return, then each fixed parameter.
    ret_class: String,
    param_classes: Vec<String>,
    variadic: bool,
}

/// The functions written in C: (file under `csrc/`, the functions it
/// defines, each one of the table's variadic rows).
const C_SHIMS: &[(&str, &[&str])] = &[
    ("producev.c", &["rd_kafka_producev"]),
    (
        "mock.c",
        &[
            "rd_kafka_mock_push_request_errors",
            "rd_kafka_mock_broker_push_request_error_rtts",
        ],
    ),
];

fn main() {
    let dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let table = dir.join("abi/functions.tsv");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={}", table.display());
    println!("cargo:rerun-if-changed={}", dir.join("src").display());

    let rows = read_table(&table);
    let by_name: BTreeMap<&str, &Row> = rows.iter().map(|r| (r.name.as_str(), r)).collect();
    let hand = hand_written(&dir.join("src"));
    for (name, (file, params, ret)) in &hand {
        let Some(row) = by_name.get(name.as_str()) else {
            panic!("{file}: {name} is not one of librdkafka's functions (abi/functions.tsv)");
        };
        check_signature(row, file, params, ret);
    }

    let target = env::var("TARGET").unwrap_or_default();
    let elf = target.contains("linux") || target.contains("freebsd");
    let mut shims = Vec::new();
    if elf {
        for (file, names) in C_SHIMS {
            for name in *names {
                let row = by_name
                    .get(name)
                    .unwrap_or_else(|| panic!("{file}: {name} is not in the table"));
                assert!(
                    row.variadic,
                    "{file}: {name} is not variadic: write it in Rust"
                );
                assert!(
                    !hand.contains_key(*name),
                    "{name} is defined in both Rust and csrc/{file}"
                );
            }
            shims.push((compile_c(&dir, &out, file), *names));
        }
    }
    let stubs = stubs(rows.iter().filter(|r| {
        !hand.contains_key(&r.name) && !shims.iter().any(|(_, ns)| ns.contains(&r.name.as_str()))
    }));
    write(&out.join("stubs.rs"), &stubs);
    let map = out.join("librdkafka.map");
    write(&map, &version_script(&rows));

    if elf {
        for (obj, _) in &shims {
            println!("cargo:rustc-cdylib-link-arg={}", obj.display());
        }
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librdkafka.so.1");
        println!(
            "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
            map.display()
        );
        println!("cargo:rustc-cdylib-link-arg=-Wl,--exclude-libs,ALL");
    }
}

/// Compiles `csrc/<file>` to an object file in `out`; its path.
fn compile_c(dir: &Path, out: &Path, file: &str) -> PathBuf {
    let src = dir.join("csrc").join(file);
    println!("cargo:rerun-if-changed={}", src.display());
    println!(
        "cargo:rerun-if-changed={}",
        dir.join("include/librdkafka/rdkafka.h").display()
    );
    println!("cargo:rerun-if-env-changed=CC");
    let obj = out.join(file).with_extension("o");
    let cc = env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = std::process::Command::new(&cc)
        .args(["-std=c99", "-Wall", "-Werror", "-O2", "-fPIC", "-c", "-I"])
        .arg(dir.join("include"))
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(status.success(), "{cc} failed on {}", src.display());
    obj
}

fn write(path: &Path, text: &str) {
    fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn read_table(path: &Path) -> Vec<Row> {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, _header, returns, params, abi, flags] = cols[..] else {
            panic!("{}:{}: expected 6 columns", path.display(), i + 1);
        };
        let params: Vec<(String, String)> = params
            .split("; ")
            .filter(|p| !p.is_empty() && *p != "...")
            .map(|p| {
                let (n, t) = p
                    .split_once(": ")
                    .unwrap_or_else(|| panic!("{}:{}: parameter {p:?}", path.display(), i + 1));
                (n.to_string(), t.to_string())
            })
            .collect();
        let (ret_class, rest) = abi
            .split_once('(')
            .unwrap_or_else(|| panic!("{}:{}: abi {abi:?}", path.display(), i + 1));
        let param_classes: Vec<String> = rest
            .trim_end_matches(')')
            .split(',')
            .filter(|c| !c.is_empty() && *c != "...")
            .map(str::to_string)
            .collect();
        assert_eq!(
            params.len(),
            param_classes.len(),
            "{}:{}: parameters and abi classes differ in number",
            path.display(),
            i + 1
        );
        rows.push(Row {
            name: name.to_string(),
            returns: returns.to_string(),
            params,
            ret_class: ret_class.to_string(),
            param_classes,
            variadic: flags.split(',').any(|f| f == "variadic"),
        });
    }
    rows
}

/// Every `pub extern "C" fn rd_kafka_*` of the crate's sources: its file,
/// its parameters' Rust types and its return type ("" for none).
type Signature = (String, Vec<String>, String);

fn hand_written(src: &Path) -> BTreeMap<String, Signature> {
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    files.sort();
    let mut found = BTreeMap::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let code: String = text
            .lines()
            .map(|l| match l.trim_start().starts_with("//") {
                true => "",
                false => l,
            })
            .collect::<Vec<_>>()
            .join("\n");
        let key = "pub extern \"C\" fn rd_kafka_";
        let mut rest = code.as_str();
        while let Some(at) = rest.find(key) {
            let after = &rest[at + key.len() - "rd_kafka_".len()..];
            let open = after.find('(').expect("a parameter list");
            let name = after[..open].trim().to_string();
            let close = matching(after, open);
            let params = split_top(&after[open + 1..close])
                .into_iter()
                .filter(|p| !p.is_empty())
                .map(|p| {
                    p.split_once(':')
                        .map_or(p.clone(), |(_, t)| t.trim().to_string())
                })
                .collect();
            let tail = &after[close + 1..];
            let body = tail.find('{').expect("a function body");
            let ret = tail[..body]
                .trim()
                .strip_prefix("->")
                .unwrap_or("")
                .trim()
                .to_string();
            let shown = file
                .strip_prefix(src.parent().unwrap_or(src))
                .unwrap_or(&file);
            if let Some((other, _, _)) = found.insert(
                name.clone(),
                (shown.display().to_string(), params, ret.clone()),
            ) {
                panic!("{name} is defined twice ({other} and {})", shown.display());
            }
            rest = &after[close..];
        }
    }
    found
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

fn matching(s: &str, open: usize) -> usize {
    let mut depth = 0;
    for (i, c) in s.char_indices().skip(open) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses in {s:.80}");
}

fn split_top(s: &str) -> Vec<String> {
    let (mut parts, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for c in s.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    parts.push(cur.trim().to_string());
    parts
}

/// The ABI class of a Rust FFI type, in the table's vocabulary.
fn class_of(rust: &str, file: &str, name: &str) -> String {
    let t = rust.trim();
    if t.is_empty() || t == "()" {
        return "void".into();
    }
    if t.starts_with('*') || t.starts_with("Option<") || t.contains("extern \"C\" fn") {
        return "ptr".into();
    }
    let t = t.rsplit("::").next().unwrap_or(t);
    let class = match t {
        "c_int" => "i32",
        "c_uint" => "u32",
        "c_char" | "c_schar" => "i8",
        "c_uchar" => "u8",
        "c_short" => "i16",
        "c_ushort" => "u16",
        "c_long" | "c_longlong" => "i64",
        "c_ulong" | "c_ulonglong" => "u64",
        "c_double" => "f64",
        "c_float" => "f32",
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "isize" | "usize" | "f32"
        | "f64" => t,
        _ => panic!("{file}: {name}: cannot tell the C ABI class of the Rust type {rust:?}"),
    };
    class.into()
}

fn check_signature(row: &Row, file: &str, params: &[String], ret: &str) {
    let name = &row.name;
    let got: Vec<String> = params.iter().map(|p| class_of(p, file, name)).collect();
    assert!(
        got == row.param_classes,
        "{file}: {name} takes ({}) but librdkafka's takes ({}) (abi/functions.tsv)",
        got.join(","),
        row.param_classes.join(",")
    );
    let got = class_of(ret, file, name);
    assert!(
        got == row.ret_class,
        "{file}: {name} returns {got} but librdkafka's returns {} (abi/functions.tsv)",
        row.ret_class
    );
}

/// What a stub returns, by the C return type: the Rust expression.
fn failure(row: &Row) -> String {
    let c = row
        .returns
        .split_whitespace()
        .filter(|w| *w != "const")
        .collect::<Vec<_>>()
        .join(" ");
    match (row.ret_class.as_str(), c.as_str()) {
        ("void", _) => String::new(),
        (_, "rd_kafka_resp_err_t") => "RESP_ERR__NOT_IMPLEMENTED".into(),
        // RD_KAFKA_CONF_INVALID (errstr says why).
        (_, "rd_kafka_conf_res_t") => "-1".into(),
        // NULL would mean success: the function's static error object.
        (_, "rd_kafka_error_t *") => "NOT_IMPLEMENTED.as_ptr()".into(),
        ("ptr", _) => "::std::ptr::null_mut()".into(),
        // Counts and sizes: nothing.
        ("usize" | "u8" | "u16" | "u32" | "u64", _) => "0".into(),
        // The other enums librdkafka returns (resource, ACL, group state
        // and type, SCRAM mechanism, message status, event and client
        // type) have their UNKNOWN / NONE member at 0.
        ("i32", t) if t.starts_with("rd_kafka_") => "0".into(),
        ("f32" | "f64", _) => "0.0".into(),
        // int, int32_t, int64_t, ssize_t: -1, librdkafka's "failed" (and
        // RD_KAFKA_PARTITION_UA for a partitioner).
        _ => "-1".into(),
    }
}

fn message(name: &str) -> String {
    format!("{name}: not implemented by gregor's librdkafka yet")
}

fn rust_type(class: &str) -> &str {
    match class {
        "ptr" => "*mut c_void",
        "void" => "()",
        other => other,
    }
}

/// A Rust parameter name for a C one: snake case, `_`-prefixed when the
/// stub does not read it (which also keeps C names that are Rust keywords,
/// like `type`, legal).
fn param_name(c: &str, index: usize, used: bool) -> String {
    let mut s = String::new();
    for (i, ch) in c.chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if i > 0 && !s.ends_with('_') {
                s.push('_');
            }
            s.push(ch.to_ascii_lowercase());
        } else {
            s.push(ch);
        }
    }
    if s.is_empty() || s == "_" {
        s = format!("arg{index}");
    }
    if used {
        s
    } else {
        format!("_{s}")
    }
}

fn stubs<'a>(rows: impl Iterator<Item = &'a Row>) -> String {
    let mut out = String::from(
        "// Generated by build.rs from abi/functions.tsv: one stub per librdkafka\n\
         // function src/ does not implement by hand.\n\n",
    );
    for row in rows {
        let mut params = Vec::new();
        let mut body = Vec::new();
        let request = admin_request(row);
        for (i, ((cname, ctype), class)) in row.params.iter().zip(&row.param_classes).enumerate() {
            let next = row.params.get(i + 1);
            let errstr = cname == "errstr"
                && ctype == "char *"
                && next.is_some_and(|(n, t)| n == "errstr_size" && t == "size_t");
            let cntp = cname.ends_with("cntp") && ctype == "size_t *";
            let errstr_size = cname == "errstr_size"
                && i > 0
                && row.params[i - 1].0 == "errstr"
                && row.params[i - 1].1 == "char *";
            let used = errstr
                || cntp
                || errstr_size
                || (request && matches!(cname.as_str(), "rk" | "options" | "rkqu"));
            let pname = param_name(cname, i, used);
            let ty = if errstr {
                "*mut c_char"
            } else if cntp {
                "*mut usize"
            } else {
                rust_type(class)
            };
            if errstr {
                body.push(format!(
                    "raw::write_errstr({pname}, errstr_size, \"{}\");",
                    message(&row.name)
                ));
            }
            if cntp {
                body.push(format!("raw::write_out({pname}, 0usize);"));
            }
            params.push(format!("{pname}: {ty}"));
        }
        if request {
            body.push(format!(
                "crate::admin::unimplemented_request(rk, options, rkqu, \"{}\");",
                row.name.trim_start_matches("rd_kafka_")
            ));
        }
        let value = failure(row);
        let ret = match row.ret_class.as_str() {
            "void" => String::new(),
            c => format!(" -> {}", rust_type(c)),
        };
        let on_panic = if value.is_empty() { "()" } else { &value };
        let what = match value.as_str() {
            "" if request => {
                "posts a result event failed with `_NOT_IMPLEMENTED` to `rkqu`".to_string()
            }
            "" => "does nothing".to_string(),
            "RESP_ERR__NOT_IMPLEMENTED" => "returns `RD_KAFKA_RESP_ERR__NOT_IMPLEMENTED`".into(),
            "NOT_IMPLEMENTED.as_ptr()" => {
                "returns a static `_NOT_IMPLEMENTED` error object (`rd_kafka_error_destroy` leaves it be)"
                    .into()
            }
            "::std::ptr::null_mut()" => "returns NULL".into(),
            v => format!("returns {v}"),
        };
        let _ = writeln!(out, "/// `{}`: not implemented yet; {what}.", row.name);
        if row.variadic {
            out.push_str(
                "///\n\
                 /// Variadic in C; defined here with its fixed parameters only. A\n\
                 /// variadic call passes the fixed arguments where a non-variadic\n\
                 /// one does (x86-64 System V: the same registers, with %al holding\n\
                 /// a count the callee may ignore; AArch64 AAPCS64 on Linux: the\n\
                 /// same registers and stack) and the caller removes what it\n\
                 /// pushed, so this definition is safe to call with any extra\n\
                 /// arguments, which it never reads. The real function will need\n\
                 /// a C shim to read them (`va_list`).\n",
            );
        }
        let _ = writeln!(out, "#[no_mangle]");
        let _ = writeln!(
            out,
            "pub extern \"C\" fn {}({}){ret} {{",
            row.name,
            params.join(", ")
        );
        if value == "NOT_IMPLEMENTED.as_ptr()" {
            let _ = writeln!(
                out,
                "    static NOT_IMPLEMENTED: ErrorObject = ErrorObject::not_implemented(c\"{}\");",
                message(&row.name)
            );
        }
        let _ = writeln!(out, "    guard({on_panic}, || {{");
        let _ = writeln!(out, "        set_last_error(RESP_ERR__NOT_IMPLEMENTED);");
        for line in body {
            let _ = writeln!(out, "        {line}");
        }
        if !value.is_empty() {
            let _ = writeln!(out, "        {value}");
        }
        let _ = writeln!(out, "    }})\n}}\n");
    }
    out
}

/// Whether the row is an asynchronous admin request, `void
/// rd_kafka_<Name>(rd_kafka_t *rk, ..., const rd_kafka_AdminOptions_t
/// *options, rd_kafka_queue_t *rkqu)`, whose caller waits on `rkqu` for
/// the result event: its stub posts one, failed.
fn admin_request(row: &Row) -> bool {
    let p = &row.params;
    row.ret_class == "void"
        && p.len() >= 3
        && p[0].0 == "rk"
        && p[0].1 == "rd_kafka_t *"
        && p[p.len() - 2].0 == "options"
        && p[p.len() - 2].1 == "const rd_kafka_AdminOptions_t *"
        && p[p.len() - 1].0 == "rkqu"
        && p[p.len() - 1].1 == "rd_kafka_queue_t *"
}

fn version_script(rows: &[Row]) -> String {
    let mut s = String::from(
        "/* Generated by build.rs from abi/functions.tsv: librdkafka 2.12.1's\n   \
         exported functions, and nothing else. */\n{\n  global:\n",
    );
    for r in rows {
        let _ = writeln!(s, "    {};", r.name);
    }
    s.push_str("  local:\n    *;\n};\n");
    s
}
