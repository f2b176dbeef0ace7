//! DescribeLogDirs (API key 35): each broker log directory with the size and
//! lag of the partitions it holds (KIP-113; volume sizes from v4, KIP-827).
//! Versions 0–4, flexible from 2.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks a broker to describe its log directories.
    pub struct DescribeLogDirsRequest {
        /// The topics to describe, or null for all topics.
        topics: Option<Vec<DescribableLogDirTopic>> { nullable = 0.. },
    }

    /// One topic to describe.
    pub struct DescribableLogDirTopic {
        /// The topic name.
        topic: String {},
        /// The partition indexes.
        partitions: Vec<i32> {},
    }

    /// The broker's log directories.
    pub struct DescribeLogDirsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The top-level error code.
        error_code: i16 { versions = 3.., ignorable = true },
        /// One entry per log directory.
        results: Vec<DescribeLogDirsResult> {},
    }

    /// One log directory.
    pub struct DescribeLogDirsResult {
        /// The directory's error code.
        error_code: i16 {},
        /// The absolute path of the directory.
        log_dir: String {},
        /// The topics with partitions in this directory.
        topics: Vec<DescribeLogDirsTopic> {},
        /// Total bytes of the volume holding the directory, or -1.
        total_bytes: i64 { versions = 4.., default = -1, ignorable = true },
        /// Usable bytes of the volume holding the directory, or -1.
        usable_bytes: i64 { versions = 4.., default = -1, ignorable = true },
    }

    /// One topic in a log directory.
    pub struct DescribeLogDirsTopic {
        /// The topic name.
        name: String {},
        /// Its partitions in this directory.
        partitions: Vec<DescribeLogDirsPartition> {},
    }

    /// One partition in a log directory.
    pub struct DescribeLogDirsPartition {
        /// The partition index.
        partition_index: i32 {},
        /// Size of the partition's log segments in bytes.
        partition_size: i64 {},
        /// How far the log end offset is behind the high watermark (or the current log, for a future log).
        offset_lag: i64 {},
        /// True for a future log being created by AlterReplicaLogDirs.
        is_future_key: bool {},
    }
}

kafka_message!(
    DescribeLogDirsRequest,
    key = 35,
    versions = 0..=4,
    flexible = 2
);
kafka_message!(
    DescribeLogDirsResponse,
    key = 35,
    versions = 0..=4,
    flexible = 2
);

impl Request for DescribeLogDirsRequest {
    type Response = DescribeLogDirsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    fn response() -> DescribeLogDirsResponse {
        DescribeLogDirsResponse {
            results: vec![DescribeLogDirsResult {
                log_dir: "/d".into(),
                topics: vec![DescribeLogDirsTopic {
                    name: "t".into(),
                    partitions: vec![DescribeLogDirsPartition {
                        partition_index: 1,
                        partition_size: 256,
                        offset_lag: 2,
                        is_future_key: true,
                        ..Default::default()
                    }],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn v0_response_bytes() {
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,             // throttle_time_ms
            0, 0, 0, 1,             // results: 1
            0, 0,                   //   error_code
            0, 2, b'/', b'd',       //   log_dir
            0, 0, 0, 1,             //   topics: 1
            0, 1, b't',             //     name
            0, 0, 0, 1,             //     partitions: 1
            0, 0, 0, 1,             //       partition_index
            0, 0, 0, 0, 0, 0, 1, 0, //       partition_size = 256
            0, 0, 0, 0, 0, 0, 0, 2, //       offset_lag
            1,                      //       is_future_key
        ];
        assert_eq!(
            DescribeLogDirsResponse::from_bytes(&bytes, 0).unwrap(),
            response()
        );
        assert_eq!(response().to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn v4_response_bytes() {
        let mut resp = response();
        resp.error_code = 7;
        resp.results[0].total_bytes = 1000;
        resp.results[0].usable_bytes = -1;
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,             // throttle_time_ms
            0, 7,                   // error_code (v3+)
            2,                      // results: compact count 1+1
            0, 0,                   //   error_code
            3, b'/', b'd',          //   log_dir: compact length 2+1
            2,                      //   topics: 1
            2, b't',                //     name
            2,                      //     partitions: 1
            0, 0, 0, 1,             //       partition_index
            0, 0, 0, 0, 0, 0, 1, 0, //       partition_size = 256
            0, 0, 0, 0, 0, 0, 0, 2, //       offset_lag
            1,                      //       is_future_key
            0,                      //       tagged fields
            0,                      //     tagged fields
            0, 0, 0, 0, 0, 0, 3, 0xe8, //   total_bytes = 1000 (v4+)
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // usable_bytes = -1 (v4+)
            0,                      //   tagged fields
            0,                      // tagged fields
        ];
        assert_eq!(
            DescribeLogDirsResponse::from_bytes(&bytes, 4).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(4).unwrap(), bytes);
        // v3 drops the (ignorable) volume sizes rather than failing
        assert!(resp.to_bytes(3).is_ok());
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<DescribeLogDirsRequest, kp::DescribeLogDirsRequest>();
        crate::protocol::tests::check::<DescribeLogDirsResponse, kp::DescribeLogDirsResponse>();
    }
}
