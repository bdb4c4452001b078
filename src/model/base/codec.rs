//! The binary encoding of the indexes mneme keeps in the git directory: little-endian,
//! length-prefixed fields, and a checksum that catches a torn or truncated file.

/// Little-endian, length-prefixed fields: the encoding of the caches the store keeps in the git
/// directory (the queue and task indexes).
pub(crate) struct Writer<'a>(pub(crate) &'a mut Vec<u8>);

impl Writer<'_> {
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    pub(crate) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(crate) fn u32(&mut self, v: usize) {
        let v = u32::try_from(v).expect("a queue field over 4 GiB");
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn i128(&mut self, v: i128) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.field(s.as_bytes());
    }
    /// `b` after its length: what [`Reader::field`] reads.
    pub(crate) fn field(&mut self, b: &[u8]) {
        self.u32(b.len());
        self.0.extend_from_slice(b);
    }
    /// What `f` writes, after its length in bytes: a reader can step over it.
    pub(crate) fn section(&mut self, f: impl FnOnce(&mut Self)) {
        let at = self.0.len();
        self.u32(0);
        f(self);
        let len = self.0.len() - at - 4;
        let len = u32::try_from(len).expect("a queue field over 4 GiB");
        self.0[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
    pub(crate) fn opt<T>(&mut self, v: Option<T>, f: impl FnOnce(&mut Self, T)) {
        match v {
            Some(v) => {
                self.u8(1);
                f(self, v);
            }
            None => self.u8(0),
        }
    }
}

/// Reads what [`Writer`] wrote; `None` at the first thing out of place.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }
    /// A reader of `bytes` from `at` on.
    pub(crate) fn at(bytes: &'a [u8], at: usize) -> Reader<'a> {
        Reader { bytes, at }
    }
    /// What it read since `start` (a [`Reader::position`]).
    pub(crate) fn since(&self, start: usize) -> &'a [u8] {
        &self.bytes[start..self.at]
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.at == self.bytes.len()
    }
    /// How far it has read.
    pub(crate) fn position(&self) -> usize {
        self.at
    }
    /// How many bytes are left to read.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let taken = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(taken)
    }
    pub(crate) fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    pub(crate) fn i128(&mut self) -> Option<i128> {
        Some(i128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
    pub(crate) fn field(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        self.take(len)
    }
    /// What [`Writer::str`] wrote; `None` unless it is UTF-8.
    pub(crate) fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.field()?).ok()
    }
    pub(crate) fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => f(self).map(Some),
            _ => None,
        }
    }
    /// A count and that many items; returns the bytes of all of it, count included.
    pub(crate) fn list(&mut self, item: impl Fn(&mut Self) -> Option<()>) -> Option<&'a [u8]> {
        let start = self.at;
        let n = self.u32()?;
        for _ in 0..n {
            item(self)?;
        }
        Some(&self.bytes[start..self.at])
    }
}

/// Appends the [`checksum`] of everything in `bytes`: what [`unsealed`] checks.
pub(crate) fn seal(bytes: &mut Vec<u8>) {
    let sum = checksum(bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
}

/// `bytes` without the checksum [`seal`] ended them with, if it matches.
pub(crate) fn unsealed(bytes: &[u8]) -> Option<&[u8]> {
    let (body, sum) = bytes.split_last_chunk::<8>()?;
    (checksum(body) == u64::from_le_bytes(*sum)).then_some(body)
}

/// A fast checksum over 8-byte words: it catches a torn or truncated file, not an attacker
/// (the index lives in the git directory, beside what it describes).
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
    h
}
