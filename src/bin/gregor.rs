//! `gregor`: a kcat-compatible command-line Kafka producer and consumer
//! built on the gregor library. The implementation lives in `src/cli/`,
//! outside the library, so the library's API stays free of it.

#[path = "../cli/mod.rs"]
mod cli;

fn main() {
    std::process::exit(cli::main(std::env::args_os().collect()));
}
