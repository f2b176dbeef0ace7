fn main() {
    println!("Message {}", std::mem::size_of::<gregor::message::Message>());
    println!("Error {}", std::mem::size_of::<gregor::error::Error>());
    println!("Option<Error> {}", std::mem::size_of::<Option<gregor::error::Error>>());
    println!("Record {}", std::mem::size_of::<gregor::record::Record>());
    println!("Bytes {}", std::mem::size_of::<gregor::wire::Bytes>());
    println!("Result<Option<Message>> {}", std::mem::size_of::<gregor::error::Result<Option<gregor::message::Message>>>());
}
