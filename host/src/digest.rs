//! Lowercase hex and sha256 digests: socket-name tags, descriptor tokens, tab-set
//! fingerprints, cache folder names, content checks. One place, so every hash the project
//! writes is spelled the same way.

use sha2::Digest;

/// Lowercase hex of some bytes, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Lowercase hex sha256 of some bytes (64 digits).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&sha2::Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_hex_known_answer() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(sha256_hex(b"").len(), 64);
    }

    #[test]
    fn hex_pads_each_byte() {
        assert_eq!(hex(&[0, 1, 0xab, 0xff]), "0001abff");
    }
}
