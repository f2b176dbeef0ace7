//! What a handler is given with its request.

use super::shared::Shared;

/// A request being served: which broker, which version, an injected error.
pub(crate) struct Ctx<'a> {
    pub shared: &'a Shared,
    pub broker: i32,
    pub version: i16,
    pub client_id: String,
    /// An error the control API injected for this request.
    pub inject: Option<i16>,
}
