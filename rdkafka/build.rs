//! The link arguments of the shared library, `librdkafka.so`: soname
//! `librdkafka.so.1`, the name programs built against librdkafka record,
//! and `--exclude-libs,ALL` so that no symbol of a linked library leaks:
//! rustc exports every `#[no_mangle]` function of every crate of a cdylib
//! (gregor's `gregor_*` among them) through a version script of its own,
//! so the dependencies' symbols are hidden where they come from, their
//! archives, and only this crate's own objects export. Whole-program LTO
//! would merge gregor into this crate's object and defeat that; the crate
//! is not built with it.

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = env::var("TARGET").unwrap_or_default();
    if target.contains("linux") || target.contains("freebsd") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librdkafka.so.1");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--exclude-libs,ALL");
    }
}
