//! Wire protocol v1: the one contract shared by the host, its clients, the MCP server and the
//! helper extension. No I/O lives here.

mod error;

pub use error::{ErrorBody, ErrorCode};

/// Version of the wire protocol spoken by this build.
pub const PROTOCOL_VERSION: u32 = 1;
