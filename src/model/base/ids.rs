//! Hash-based ids: short, stable, independent of file names and positions, and unlikely to
//! collide across branches.

use sha2::{Digest, Sha256};

/// Lowercase hex of the SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Whether `s` reads as [`sha256_hex`] writes: 64 lowercase hex digits.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    s
}

/// Number of base36 characters for an id among `existing` others: long enough that two branches
/// minting ids independently rarely collide (about 1 in 1000 for the next id).
pub fn id_len(existing: usize) -> usize {
    let mut len = 4;
    // 36^len must exceed 1000 × existing.
    while 36f64.powi(len as i32) < 1000.0 * existing.max(1) as f64 {
        len += 1;
    }
    len
}

/// `prefix-xxxx`: base36 of a SHA-256 over `seed`, re-hashed until `taken` rejects none.
pub fn mint(prefix: &str, seed: &[u8], existing: usize, taken: impl Fn(&str) -> bool) -> String {
    let len = id_len(existing);
    let mut digest = Sha256::digest(seed);
    loop {
        let id = format!("{prefix}-{}", base36(&digest, len));
        if !taken(&id) {
            return id;
        }
        digest = Sha256::digest(digest);
    }
}

fn base36(bytes: &[u8], len: usize) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    // 16 bytes give 128 bits, enough for 24 base36 characters.
    let mut n = u128::from_be_bytes(bytes[..16].try_into().expect("sha256 has 32 bytes"));
    let mut s = String::with_capacity(len);
    for _ in 0..len {
        s.push(DIGITS[(n % 36) as usize] as char);
        n /= 36;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_grow_with_the_ledger_and_avoid_taken_ones() {
        assert_eq!(id_len(0), 4);
        assert_eq!(id_len(1000), 4);
        assert_eq!(id_len(2000), 5);
        assert_eq!(id_len(100_000), 6);
        let first = mint("f", b"seed", 0, |_| false);
        assert_eq!(first.len(), 6);
        assert!(crate::model::facts::file::is_valid_id(&first));
        let second = mint("f", b"seed", 0, |id| id == first);
        assert_ne!(first, second);
        assert_eq!(mint("f", b"seed", 0, |_| false), first, "deterministic");
    }

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
