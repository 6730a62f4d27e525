//! Request nonces from the platform's cryptographic random number generator.

use crate::{Error, ErrorKind, Result};

/// Returns 32 lowercase hex characters (128 bits) from the platform CSPRNG
/// (`crypto.getRandomValues` in JavaScript runtimes, the OS elsewhere).
///
/// # Errors
/// `invalid_state` when the platform has no usable random source.
pub fn make_nonce() -> Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::new(ErrorKind::InvalidState, format!("no cryptographic random source: {e}")))?;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(32);
    for b in bytes {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn nonce_is_32_lowercase_hex_and_fresh() {
        let a = super::make_nonce().unwrap();
        let b = super::make_nonce().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)));
        assert_ne!(a, b);
    }
}
