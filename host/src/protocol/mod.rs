//! Wire protocol v1: the one contract shared by the host, its clients, the MCP server and the
//! helper extension. No I/O lives here.

mod error;

pub use error::{ErrorBody, ErrorCode};

/// Version of the wire protocol spoken by this build.
pub const PROTOCOL_VERSION: u32 = 1;

/// Name of the native-messaging host, as registered in host manifests.
pub const NATIVE_HOST_NAME: &str = "dev.webext_mcp.bridge";

/// The helper extension's id in the Gecko family (`browser_specific_settings.gecko.id`).
pub const HELPER_GECKO_ID: &str = "helper@webext-mcp.dev";

/// The helper extension's id in the Chromium family, derived from the public key in
/// `extension/key.pub.b64` (first 32 hex digits of sha256(DER), 0-9a-f mapped to a-p).
pub const HELPER_CHROMIUM_ID: &str = "dkcbnncejeekhnnfjnepngcdiipdcakc";

/// The public key the helper's Chromium manifest carries as `key`, so its id never changes.
pub const HELPER_CHROMIUM_KEY: &str = include_str!("../../../extension/key.pub.b64");
