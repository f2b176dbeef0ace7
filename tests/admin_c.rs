//! c-tests/admin.c — the admin C API used from C through include/gregor.h —
//! built against the static library under AddressSanitizer and UBSan (leak
//! detection on) and run against the real broker.

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn admin_c_program_under_sanitizers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `cargo test` does not rebuild the staticlib: build it (a no-op when fresh)
    let st = Command::new(env!("CARGO"))
        .args(["build", "--lib", "--offline"])
        .current_dir(root)
        .status()
        .expect("cargo build");
    assert!(st.success(), "cargo build --lib failed");
    let exe = std::env::temp_dir().join(format!("gregor-admin-c-{}", std::process::id()));
    let out = Command::new("cc")
        .args([
            "-std=c11",
            "-D_POSIX_C_SOURCE=200809L",
            "-Wall",
            "-Wextra",
            "-Werror",
        ])
        .args([
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=undefined",
            "-g",
        ])
        .arg(root.join("c-tests/admin.c"))
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join("target/debug/libgregor.a"))
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe)
        .output()
        .expect("cc (a C compiler is needed for the C tests)");
    assert!(
        out.status.success(),
        "compiling c-tests/admin.c failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe)
        .arg(common::broker())
        .env("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&exe);
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success() && stdout.trim() == "ok",
        "c-tests/admin.c failed ({}):\n{stdout}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stderr)
    );
}
