//! Gives the shared library a soname (`libgregor.so.0`, the C ABI's major
//! version) so programs linked against `libgregor.so` record the versioned
//! name and `make install`'s symlinks work as on any distribution.
//! `rustc-cdylib-link-arg` applies to the cdylib only, not to the static
//! library, the tests or the binaries.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("linux") || target.contains("freebsd") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libgregor.so.0");
    }
}
