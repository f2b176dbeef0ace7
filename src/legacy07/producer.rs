//! A producer that finds Kafka 0.7 brokers through the ZooKeeper registry,
//! as Kafka 0.7's ZooKeeper-based producer does (Kafka 0.7's design
//! document, on the producer's ZooKeeper-based load balancing).

use crate::sync::MutexExt;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crc::{Crc, CRC_32_ISO_HDLC};

use super::client::{Client, Options};
use super::zk::{BrokerPartition, Registry};
use crate::error::{local, Error};

/// Sends to the partitions the registry offers for a topic: the registered
/// ones, and partition 0 of brokers that do not have the topic yet.
///
/// A message set with a key goes to partition `crc32(key) % n` of that
/// list (the same key, the same partition, while the list stays the same);
/// without a key the producer goes round the list. (Kafka 0.7 hashed the
/// key object's `hashCode`, which has no byte-level equivalent, and picked
/// a random partition without one.)
///
/// Thread-safe; one connection per broker, shared.
pub struct Producer07 {
    registry: Mutex<Registry>,
    clients: Mutex<HashMap<i32, Arc<Client>>>,
    opts: Options,
    next: AtomicUsize,
}

impl std::fmt::Debug for Producer07 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer07")
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

const KEY_HASH: Crc<u32> = Crc::<u32>::new(&CRC_32_ISO_HDLC);

impl Producer07 {
    /// Reads the registry at `zk_connect` (`host:port[,…][/chroot]`).
    ///
    /// # Errors
    /// Bad options; ZooKeeper unreachable within `zk_timeout`; no brokers.
    pub fn new(zk_connect: &str, zk_timeout: Duration, opts: Options) -> Result<Self, Error> {
        opts.validate()?;
        Ok(Producer07 {
            registry: Mutex::new(Registry::connect(zk_connect, zk_timeout)?),
            clients: Mutex::new(HashMap::new()),
            opts,
            next: AtomicUsize::new(0),
        })
    }

    /// The partitions this producer would choose among for `topic` now.
    ///
    /// # Errors
    /// ZooKeeper failures.
    pub fn partitions(&self, topic: &str) -> Result<Vec<BrokerPartition>, Error> {
        self.registry.locked().producer_partitions(topic)
    }

    /// Re-reads the registry now (it is also re-read whenever a watch fired).
    ///
    /// # Errors
    /// ZooKeeper failures, no brokers.
    pub fn refresh(&self) -> Result<(), Error> {
        self.registry.locked().refresh()
    }

    fn client(&self, broker_id: i32) -> Result<Arc<Client>, Error> {
        let info = self.registry.locked().broker(broker_id)?.ok_or_else(|| {
            Error::local(
                local::ALL_BROKERS_DOWN,
                format!("broker {broker_id} left the registry"),
            )
        })?;
        let addr = info.addr();
        let mut clients = self.clients.locked();
        if let Some(c) = clients.get(&broker_id) {
            if c.addr() == addr {
                return Ok(c.clone());
            }
        }
        // New broker, or it came back at another address.
        let c = Arc::new(Client::connect(&addr, self.opts.clone())?);
        clients.insert(broker_id, c.clone());
        Ok(c)
    }

    /// Sends `payloads` as one message set to a partition of `topic` and
    /// says which. A transport failure re-reads the registry and tries once
    /// more (possibly elsewhere). As with every 0.7 PRODUCE, there is no
    /// acknowledgement.
    ///
    /// # Errors
    /// No partition to send to, a payload over `max_message_size`, transport
    /// failures on both tries.
    pub fn send(
        &self,
        topic: &str,
        key: Option<&[u8]>,
        payloads: &[&[u8]],
    ) -> Result<BrokerPartition, Error> {
        let mut last = None;
        for attempt in 0..2 {
            if attempt > 0 {
                self.refresh()?;
            }
            let parts = self.partitions(topic)?;
            if parts.is_empty() {
                return Err(Error::local(
                    local::UNKNOWN_PARTITION,
                    format!("no partition to send {topic} to"),
                ));
            }
            let i = match key {
                Some(k) => KEY_HASH.checksum(k) as usize % parts.len(),
                None => self.next.fetch_add(1, Ordering::Relaxed) % parts.len(),
            };
            let bp = parts[i];
            let res = self
                .client(bp.broker_id)
                .and_then(|c| c.produce(topic, bp.partition, payloads));
            match res {
                Ok(()) => return Ok(bp),
                Err(e) if e.is_retriable() => {
                    self.clients.locked().remove(&bp.broker_id);
                    last = Some(e);
                }
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| Error::local(local::FAIL, "send failed")))
    }
}
