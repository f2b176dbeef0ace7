//! A fresh chroot in the test ZooKeeper (`scripts/services.sh start
//! zookeeper`, 127.0.0.1:2181 or `$GREGOR_TEST_ZOOKEEPER`), for tests of
//! ZooKeeper-era clusters. The test broker does not register itself in
//! ZooKeeper: a test writes what a ZooKeeper-mode Kafka writes, under a
//! chroot of its own so that no test sees another's. Removed when dropped.

use std::time::Duration;

use zookeeper::{Acl, CreateMode, ZooKeeper, ZooKeeperExt};

/// The timeout of every ZooKeeper call the fixtures make.
pub const T: Duration = Duration::from_secs(10);

/// A chroot, and a session on it for writing fixtures.
pub struct Chroot {
    /// The chroot's path, `/gregor-<name>-<unique>`.
    pub root: String,
    /// A session with the chroot as its root.
    pub zk: ZooKeeper,
}

impl Chroot {
    /// A new empty chroot.
    pub fn new(name: &str) -> Chroot {
        let root = format!("/{}", super::unique_topic(&format!("gregor-{name}")));
        let top =
            ZooKeeper::connect(&super::zookeeper(), T, |_| {}).expect("ZooKeeper is not running");
        top.create(
            &root,
            vec![],
            Acl::open_unsafe().clone(),
            CreateMode::Persistent,
        )
        .unwrap();
        top.close().unwrap();
        let zk = ZooKeeper::connect(&format!("{}{root}", super::zookeeper()), T, |_| {}).unwrap();
        Chroot { root, zk }
    }

    /// A new chroot where the test broker is registered as broker 111,
    /// as Kafka's ZooKeeper mode registers one (`/brokers/ids/<id>`,
    /// version 5 of Kafka's `BrokerIdZNode`).
    pub fn with_test_broker(name: &str) -> Chroot {
        let c = Chroot::new(name);
        let b = super::broker();
        let (h, p) = b.rsplit_once(':').unwrap();
        c.put(
            "/brokers/ids/111",
            &format!(
                r#"{{"listener_security_protocol_map":{{"PLAINTEXT":"PLAINTEXT"}},"endpoints":["PLAINTEXT://{h}:{p}"],"jmx_port":-1,"features":{{}},"host":"{h}","timestamp":"1649662012051","port":{p},"version":5}}"#
            ),
        );
        c
    }

    /// `zookeeper.connect` for this chroot.
    pub fn connect(&self) -> String {
        format!("{}{}", super::zookeeper(), self.root)
    }

    /// Writes `path` (creating parents), persistent.
    pub fn put(&self, path: &str, data: &str) {
        gregor::registry::session::upsert(&self.zk, T, path, data.as_bytes()).unwrap();
    }

    /// Deletes `path` (which must exist and have no children).
    pub fn delete(&self, path: &str) {
        self.zk.delete(path, None).unwrap();
    }

    /// The children of `path`.
    pub fn children(&self, path: &str) -> Vec<String> {
        gregor::registry::session::children(&self.zk, T, path, false).unwrap()
    }

    /// The data of `path` as text, `None` if it does not exist.
    pub fn get(&self, path: &str) -> Option<String> {
        gregor::registry::session::get(&self.zk, T, path, false)
            .unwrap()
            .map(|d| String::from_utf8(d).unwrap())
    }
}

impl Drop for Chroot {
    fn drop(&mut self) {
        let _ = self.zk.close();
        if let Ok(top) = ZooKeeper::connect(&super::zookeeper(), T, |_| {}) {
            let _ = top.delete_recursive(&self.root);
            let _ = top.close();
        }
    }
}
