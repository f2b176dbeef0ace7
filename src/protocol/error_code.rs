//! (being written)
/// A Kafka error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KafkaCode(pub i16);
/// What to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorAction { Fail }
