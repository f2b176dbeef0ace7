//! Producers and transactions: describe producers, list and describe transactions.

use super::*;

/// `gregor admin describe-producers`.
pub(super) fn describe_producers(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let parts: Vec<TopicPartition> = p
        .all("-t")
        .into_iter()
        .map(|v| tp("-t", v))
        .collect::<Result<_, _>>()?;
    if parts.is_empty() {
        return Err(usage("no partition: give -t <topic:partition>"));
    }
    let broker = p
        .one("--broker")
        .map(|b| num::<i32>("--broker", b))
        .transpose()?;
    let r = admin.describe_producers(&parts, broker, o)?;
    rep.json = partition_results(rep, &r, |ps| {
        let text: Vec<String> = ps
            .iter()
            .map(|s| {
                format!(
                    "producer {} epoch {} last sequence {}",
                    s.producer_id, s.producer_epoch, s.last_sequence
                )
            })
            .collect();
        (
            format!(
                "{} active producers{}{}",
                ps.len(),
                if ps.is_empty() { "" } else { ": " },
                text.join("; ")
            ),
            vec![(
                "producers",
                J::Arr(
                    ps.iter()
                        .map(|s| {
                            J::Obj(vec![
                                ("producer_id", s.producer_id.into()),
                                ("producer_epoch", s.producer_epoch.into()),
                                ("last_sequence", s.last_sequence.into()),
                                ("last_timestamp", s.last_timestamp.into()),
                                ("coordinator_epoch", s.coordinator_epoch.into()),
                                (
                                    "current_transaction_start_offset",
                                    s.current_transaction_start_offset.into(),
                                ),
                            ])
                        })
                        .collect(),
                ),
            )],
        )
    });
    Ok(())
}

/// `gregor admin list-transactions`.
pub(super) fn list_transactions(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let states = p.all("--state");
    let pids: Vec<i64> = p
        .all("--producer-id")
        .into_iter()
        .map(|v| num("--producer-id", v))
        .collect::<Result<_, _>>()?;
    let dur = p
        .one("--duration")
        .map(|v| num::<i64>("--duration", v))
        .transpose()?;
    let r = admin.list_transactions(&states, &pids, dur, o)?;
    let mut js = Vec::new();
    for b in &r {
        match &b.result {
            Ok(ts) => {
                rep.lines
                    .push(format!("broker {}: {} transactions", b.broker_id, ts.len()));
                for t in ts {
                    rep.lines.push(format!(
                        "  {} producer {} {}",
                        t.transactional_id, t.producer_id, t.state
                    ));
                }
            }
            Err(_) => rep.entity(format!("broker {}", b.broker_id), &b.result, |_| {
                String::new()
            }),
        }
        js.push(J::Obj(vec![
            ("broker", b.broker_id.into()),
            (
                "transactions",
                match &b.result {
                    Ok(ts) => J::Arr(
                        ts.iter()
                            .map(|t| {
                                J::Obj(vec![
                                    ("transactional_id", (&t.transactional_id).into()),
                                    ("producer_id", t.producer_id.into()),
                                    ("state", (&t.state).into()),
                                ])
                            })
                            .collect(),
                    ),
                    Err(_) => J::Null,
                },
            ),
            (
                "unknown_state_filters",
                b.unknown_state_filters.clone().into(),
            ),
            ("error", error_of(&b.result)),
        ]));
    }
    rep.json = J::Obj(vec![("brokers", J::Arr(js))]);
    Ok(())
}

/// `gregor admin describe-transactions`.
pub(super) fn describe_transactions(c: Cmd<'_>) -> Done {
    let Cmd { admin, p, o, rep } = c;
    let mut idl = p.all("-i");
    idl.extend(p.all("--transactional-id"));
    if idl.is_empty() {
        return Err(usage("no transactional ID: give -i <id>"));
    }
    let r = admin.describe_transactions(&idl, o)?;
    let mut js = Vec::new();
    for (id, res) in &r {
        rep.entity(format!("transactional ID {id}"), res, |t| {
            format!(
                "{} producer {} epoch {} coordinator {} partitions [{}]",
                t.state,
                t.producer_id,
                t.producer_epoch,
                t.coordinator_id,
                t.partitions
                    .iter()
                    .map(|p| format!("{}:{}", p.topic, p.partition))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        });
        let ok = res.as_ref().ok();
        js.push(J::Obj(vec![
            ("transactional_id", id.into()),
            ("state", ok.map(|t| t.state.clone()).into()),
            ("producer_id", ok.map(|t| t.producer_id).into()),
            ("producer_epoch", ok.map(|t| t.producer_epoch).into()),
            ("coordinator_id", ok.map(|t| t.coordinator_id).into()),
            (
                "transaction_timeout_ms",
                ok.map(|t| t.transaction_timeout_ms).into(),
            ),
            (
                "transaction_start_time_ms",
                ok.map(|t| t.transaction_start_time_ms).into(),
            ),
            (
                "partitions",
                ok.map(|t| {
                    J::Arr(
                        t.partitions
                            .iter()
                            .map(|p| {
                                J::Obj(vec![
                                    ("topic", (&p.topic).into()),
                                    ("partition", p.partition.into()),
                                ])
                            })
                            .collect(),
                    )
                })
                .unwrap_or(J::Null),
            ),
            ("error", error_of(res)),
        ]));
    }
    rep.json = J::Obj(vec![("transactions", J::Arr(js))]);
    Ok(())
}
