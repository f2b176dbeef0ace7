//! DescribeUserScramCredentials (API key 50): which SCRAM mechanisms and
//! iteration counts each user has credentials for (KIP-554). Version 0,
//! flexible from 0.

use super::codec::{kafka_message, kafka_struct};
use super::Request;

kafka_struct! {
    /// Asks for users' SCRAM credentials.
    pub struct DescribeUserScramCredentialsRequest {
        /// The users to describe, or null or empty for all users.
        users: Option<Vec<UserName>> { nullable = 0.. },
    }

    /// One user.
    pub struct UserName {
        /// The user name.
        name: String {},
    }

    /// Each user's SCRAM credentials.
    pub struct DescribeUserScramCredentialsResponse {
        /// Throttle time in ms.
        throttle_time_ms: i32 {},
        /// The message-level error code.
        error_code: i16 {},
        /// The message-level error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// One entry per user.
        results: Vec<DescribeUserScramCredentialsResult> {},
    }

    /// One user's credentials.
    pub struct DescribeUserScramCredentialsResult {
        /// The user name.
        user: String {},
        /// The user-level error code.
        error_code: i16 {},
        /// The user-level error message, or null.
        error_message: Option<String> { nullable = 0.. },
        /// One entry per mechanism.
        credential_infos: Vec<CredentialInfo> {},
    }

    /// One SCRAM credential.
    pub struct CredentialInfo {
        /// The mechanism (1 SCRAM-SHA-256, 2 SCRAM-SHA-512).
        mechanism: i8 {},
        /// The iteration count.
        iterations: i32 {},
    }
}

kafka_message!(
    DescribeUserScramCredentialsRequest,
    key = 50,
    versions = 0..=0,
    flexible = 0
);
kafka_message!(
    DescribeUserScramCredentialsResponse,
    key = 50,
    versions = 0..=0,
    flexible = 0
);

impl Request for DescribeUserScramCredentialsRequest {
    type Response = DescribeUserScramCredentialsResponse;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::Message;

    #[test]
    fn v0_response_bytes() {
        let resp = DescribeUserScramCredentialsResponse {
            results: vec![DescribeUserScramCredentialsResult {
                user: "al".into(),
                credential_infos: vec![CredentialInfo {
                    mechanism: 1,
                    iterations: 4096,
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        #[rustfmt::skip]
        let bytes = [
            0, 0, 0, 0,         // throttle_time_ms
            0, 0,               // error_code
            0,                  // error_message: null (compact)
            2,                  // results: compact count 1+1
            3, b'a', b'l',      //   user
            0, 0,               //   error_code
            0,                  //   error_message: null
            2,                  //   credential_infos: 1
            1,                  //     mechanism: SCRAM-SHA-256
            0, 0, 0x10, 0,      //     iterations = 4096
            0,                  //     tagged fields
            0,                  //   tagged fields
            0,                  // tagged fields
        ];
        assert_eq!(
            DescribeUserScramCredentialsResponse::from_bytes(&bytes, 0).unwrap(),
            resp
        );
        assert_eq!(resp.to_bytes(0).unwrap(), bytes);
    }

    #[test]
    fn cross_check() {
        use kafka_protocol::messages as kp;
        crate::protocol::tests::check::<
            DescribeUserScramCredentialsRequest,
            kp::DescribeUserScramCredentialsRequest,
        >();
        crate::protocol::tests::check::<
            DescribeUserScramCredentialsResponse,
            kp::DescribeUserScramCredentialsResponse,
        >();
    }
}
