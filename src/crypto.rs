//! Tokens at rest: AES-256-GCM with a key id, so keys can be rotated.
//!
//! `TOKEN_ENCRYPTION_KEY` is `<key id>:<64 hex digits>`; `TOKEN_ENCRYPTION_OLD_KEYS` lists older
//! keys the same way, comma-separated, still accepted for reading. A sealed token is stored as
//! `v1:<key id>:<hex nonce>:<hex ciphertext+tag>`; without a key it is stored as `plain:<token>`
//! (and the README says so). Sealing takes its nonce as an argument (the adapter draws it from
//! `crypto.getRandomValues`), so this module is pure and its tests deterministic.
//!
//! Invariants: a key id names exactly one key; opening never falls back to another key; errors
//! never contain the token or the key.

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes256Gcm, Nonce};

/// One key with its id.
#[derive(Clone)]
struct Key {
    id: String,
    cipher: Aes256Gcm,
}

/// Seals and opens tokens. `Default` is "no key": tokens are stored in plain text.
#[derive(Clone, Default)]
pub struct TokenCipher {
    current: Option<Key>,
    old: Vec<Key>,
}

impl std::fmt::Debug for TokenCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.current.iter().chain(&self.old).map(|k| k.id.as_str()).collect();
        write!(f, "TokenCipher(key ids {ids:?})")
    }
}

/// Why a stored token could not be opened, or a key could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CipherError {
    /// A key setting is not `<id>:<64 hex digits>`.
    BadKey,
    /// The stored value names a key id we do not have.
    UnknownKey(String),
    /// The stored value is not in a format we wrote.
    Malformed,
    /// Authentication failed: wrong key or tampered data.
    Tampered,
}

fn parse_key(spec: &str) -> Result<Key, CipherError> {
    let (id, hex_key) = spec.trim().split_once(':').ok_or(CipherError::BadKey)?;
    let bytes = hex::decode(hex_key.trim()).map_err(|_| CipherError::BadKey)?;
    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') || bytes.len() != 32 {
        return Err(CipherError::BadKey);
    }
    let cipher = Aes256Gcm::new_from_slice(&bytes).map_err(|_| CipherError::BadKey)?;
    Ok(Key { id: id.to_string(), cipher })
}

impl TokenCipher {
    /// Builds the cipher from the two settings (either may be absent).
    pub fn from_settings(current: Option<&str>, old: Option<&str>) -> Result<TokenCipher, CipherError> {
        let current = current.map(parse_key).transpose()?;
        let old =
            old.map(|list| list.split(',').filter(|s| !s.trim().is_empty()).map(parse_key).collect::<Result<Vec<_>, _>>()).transpose()?.unwrap_or_default();
        Ok(TokenCipher { current, old })
    }

    /// True when tokens are encrypted at rest.
    pub fn encrypts(&self) -> bool {
        self.current.is_some()
    }

    /// Seals a token with the current key and `nonce` (12 random bytes), or marks it plain.
    pub fn seal(&self, token: &str, nonce: [u8; 12]) -> String {
        let Some(key) = &self.current else { return format!("plain:{token}") };
        let sealed = key.cipher.encrypt(Nonce::from_slice(&nonce), token.as_bytes()).expect("AES-GCM encryption of a short token cannot fail");
        format!("v1:{}:{}:{}", key.id, hex::encode(nonce), hex::encode(sealed))
    }

    /// Opens a stored token with the key its id names.
    pub fn open(&self, stored: &str) -> Result<String, CipherError> {
        if let Some(plain) = stored.strip_prefix("plain:") {
            return Ok(plain.to_string());
        }
        let mut parts = stored.splitn(4, ':');
        let (Some("v1"), Some(id), Some(nonce), Some(sealed)) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            return Err(CipherError::Malformed);
        };
        let key = self.current.iter().chain(&self.old).find(|k| k.id == id).ok_or_else(|| CipherError::UnknownKey(id.to_string()))?;
        let nonce = hex::decode(nonce).ok().filter(|n| n.len() == 12).ok_or(CipherError::Malformed)?;
        let sealed = hex::decode(sealed).map_err(|_| CipherError::Malformed)?;
        let plain = key.cipher.decrypt(Nonce::from_slice(&nonce), sealed.as_ref()).map_err(|_| CipherError::Tampered)?;
        String::from_utf8(plain).map_err(|_| CipherError::Tampered)
    }

    /// True when `stored` was sealed with an older key (or none) and should be sealed again.
    pub fn needs_reseal(&self, stored: &str) -> bool {
        match &self.current {
            Some(key) => !stored.starts_with(&format!("v1:{}:", key.id)),
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K1: &str = "k1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
    const K2: &str = "k2:1f1e1d1c1b1a191817161514131211100f0e0d0c0b0a09080706050403020100";

    #[test]
    fn a_sealed_token_opens_and_hides_the_token() {
        let c = TokenCipher::from_settings(Some(K1), None).unwrap();
        let sealed = c.seal("xoxb-secret", [7; 12]);
        assert!(sealed.starts_with("v1:k1:"));
        assert!(!sealed.contains("xoxb"));
        assert_eq!(c.open(&sealed).unwrap(), "xoxb-secret");
    }

    #[test]
    fn without_a_key_tokens_are_stored_plain_and_marked() {
        let c = TokenCipher::default();
        assert!(!c.encrypts());
        assert_eq!(c.seal("xoxb-1", [0; 12]), "plain:xoxb-1");
        assert_eq!(c.open("plain:xoxb-1").unwrap(), "xoxb-1");
    }

    #[test]
    fn an_old_key_still_opens_and_asks_for_a_reseal() {
        let old = TokenCipher::from_settings(Some(K1), None).unwrap();
        let sealed = old.seal("xoxb-2", [1; 12]);
        let rotated = TokenCipher::from_settings(Some(K2), Some(K1)).unwrap();
        assert_eq!(rotated.open(&sealed).unwrap(), "xoxb-2");
        assert!(rotated.needs_reseal(&sealed));
        assert!(!rotated.needs_reseal(&rotated.seal("xoxb-2", [2; 12])));
        assert!(rotated.needs_reseal("plain:xoxb-2"));
    }

    #[test]
    fn an_unknown_key_id_is_refused() {
        let sealed = TokenCipher::from_settings(Some(K1), None).unwrap().seal("t", [3; 12]);
        let other = TokenCipher::from_settings(Some(K2), None).unwrap();
        assert_eq!(other.open(&sealed), Err(CipherError::UnknownKey("k1".into())));
    }

    #[test]
    fn tampering_is_detected() {
        let c = TokenCipher::from_settings(Some(K1), None).unwrap();
        let mut sealed = c.seal("xoxb-3", [4; 12]);
        let last = sealed.pop().unwrap();
        sealed.push(if last == '0' { '1' } else { '0' });
        assert_eq!(c.open(&sealed), Err(CipherError::Tampered));
        assert_eq!(c.open("v2:whatever"), Err(CipherError::Malformed));
    }

    #[test]
    fn malformed_keys_are_refused() {
        for bad in ["nokey", "k1:abcd", ":0001", "k 1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"] {
            assert_eq!(TokenCipher::from_settings(Some(bad), None).unwrap_err(), CipherError::BadKey, "{bad}");
        }
        assert_eq!(TokenCipher::from_settings(None, Some("x:y")).unwrap_err(), CipherError::BadKey);
    }
}
