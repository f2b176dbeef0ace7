//! AlterUserScramCredentials (API key 51): creates, updates or deletes users'
//! SCRAM credentials (KIP-554). Version 0, flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;
use crate::wire::Bytes;

kafka_struct! {
    /// Asks to change users' SCRAM credentials.
    pub struct AlterUserScramCredentialsRequest {
        /// The credentials to delete.
        deletions: Vec<ScramCredentialDeletion> {},
        /// The credentials to create or update.
        upsertions: Vec<ScramCredentialUpsertion> {},
    }

    /// One credential to delete.
    pub struct ScramCredentialDeletion {
        /// The user name.
        name: String {},
        /// The mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512).
        mechanism: i8 {},
    }

    /// One credential to create or update.
    pub struct ScramCredentialUpsertion {
        /// The user name.
        name: String {},
        /// The mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512).
        mechanism: i8 {},
        /// The iteration count.
        iterations: i32 {},
        /// A random salt made by the client.
        salt: Bytes {},
        /// The salted password.
        salted_password: Bytes {},
    }

    /// The result for each user.
    pub struct AlterUserScramCredentialsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// One entry per affected user.
        results: Vec<AlterUserScramCredentialsResult> {},
    }

    /// One user's result.
    pub struct AlterUserScramCredentialsResult {
        /// The user name.
        user: String {},
        /// The error code.
        error_code: i16 {},
        /// The error message, or null.
        error_message: Option<String> { nullable = 0.. },
    }
}

kafka_message!(
    AlterUserScramCredentialsRequest,
    key = 51,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    AlterUserScramCredentialsResponse,
    key = 51,
    versions = 0..=0,
    flexible = 0
);

impl Request for AlterUserScramCredentialsRequest {
    type Response = AlterUserScramCredentialsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_request_bytes() {
        let req = AlterUserScramCredentialsRequest {
            deletions: vec![ScramCredentialDeletion {
                name: "bo".into(),
                mechanism: 2,
                ..Default::default()
            }],
            upsertions: vec![ScramCredentialUpsertion {
                name: "al".into(),
                mechanism: 1,
                iterations: 8192,
                salt: Bytes::from(&[0xaa, 0xbb][..]),
                salted_password: Bytes::from(&[0x01, 0x02, 0x03][..]),
                ..Default::default()
            }],
            ..Default::default()
        };
        #[rustfmt::skip]
        let bytes = [
            2,                  // deletions: compact count 1+1
            3, b'b', b'o',      //   name
            2,                  //   mechanism: SCRAM-SHA-512
            0,                  //   tagged fields
            2,                  // upsertions: 1
            3, b'a', b'l',      //   name
            1,                  //   mechanism: SCRAM-SHA-256
            0, 0, 0x20, 0,      //   iterations = 8192
            3, 0xaa, 0xbb,      //   salt: compact length 2+1
            4, 1, 2, 3,         //   salted_password: 3+1
            0,                  //   tagged fields
            0,                  // tagged fields
        ];
        assert_eq!(
            AlterUserScramCredentialsRequest::from_bytes(&bytes, 0).unwrap(),
            req
        );
        assert_eq!(req.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            AlterUserScramCredentialsRequest,
            kp::AlterUserScramCredentialsRequest,
        >();
        crate::protocol::tests::check::<
            AlterUserScramCredentialsResponse,
            kp::AlterUserScramCredentialsResponse,
        >();
    }
}
