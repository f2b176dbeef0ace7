//! KIP-4's point about batching, measured: creating, describing and
//! deleting N topics in one admin request each versus one request per
//! topic, against `$GREGOR_TEST_BROKER` (default 127.0.0.1:9092).
//!
//! `cargo run --release --example admin_batch [N]`

use std::time::{Duration, Instant};

use gregor::admin::{AdminClient, AdminOptions, NewTopic};
use gregor::config::Config;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args().nth(1).map_or(Ok(200), |s| s.parse())?;
    let broker = std::env::var("GREGOR_TEST_BROKER").unwrap_or_else(|_| "127.0.0.1:9092".into());
    let admin = AdminClient::new(&Config::from_pairs([(
        "bootstrap.servers",
        broker.as_str(),
    )])?)?;
    let opts = AdminOptions::with_timeout(Duration::from_secs(60));
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_millis();
    admin.describe_cluster(false, &opts)?; // connect first
    for batched in [true, false] {
        let names: Vec<String> = (0..n)
            .map(|i| format!("batch-{stamp}-{batched}-{i}"))
            .collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let t = Instant::now();
        if batched {
            let topics: Vec<NewTopic> = names.iter().map(|n| NewTopic::new(n, 1, 1)).collect();
            let r = admin.create_topics(&topics, &opts)?;
            assert!(r.iter().all(|x| x.result.is_ok()));
        } else {
            for name in &names {
                let r = admin.create_topics(&[NewTopic::new(name, 1, 1)], &opts)?;
                assert!(r[0].result.is_ok());
            }
        }
        let create = t.elapsed();
        let t = Instant::now();
        if batched {
            let d = admin.describe_topics(&refs, false, &opts)?;
            assert!(d.iter().all(|x| x.result.is_ok()));
        } else {
            for name in &refs {
                assert!(admin.describe_topics(&[name], false, &opts)?[0]
                    .result
                    .is_ok());
            }
        }
        let describe = t.elapsed();
        let t = Instant::now();
        if batched {
            admin.delete_topics(&refs, &opts)?;
        } else {
            for name in &refs {
                admin.delete_topics(&[name], &opts)?;
            }
        }
        let delete = t.elapsed();
        println!(
            "{n} topics, {}: create {:.1} ms, describe {:.1} ms, delete {:.1} ms",
            if batched {
                "one request each"
            } else {
                "one request per topic"
            },
            create.as_secs_f64() * 1e3,
            describe.as_secs_f64() * 1e3,
            delete.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
