//! The crate's hash tables: `Map` and `Set` (std's, with the hasher chosen here) and `StrSet`.
//!
//! In wasm, std's `RandomState` has no source of randomness (its keys are fixed), so SipHash
//! buys no flooding resistance there and costs its rounds and a few KB of `.wasm` per entry;
//! the wasm build hashes with [`FxHasher`] (a multiply-rotate word hash) instead, started
//! from a per-instance random seed (`getrandom`, the Web Crypto API) and finished with a full
//! avalanche, so that keys from model output (JSON object keys, tool call ids) cannot be
//! chosen to fall into one bucket. Natively, where the keys are random, `RandomState` is kept
//! (the hasher is still built and tested).
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use std::hash::Hasher;

/// The hasher of [`Map`] and [`Set`].
#[cfg(target_arch = "wasm32")]
pub(crate) type State = FxState;

/// Builds [`FxHasher`]s that start from this instance's seed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FxState(u64);

impl Default for FxState {
    fn default() -> Self {
        FxState(seed())
    }
}

impl std::hash::BuildHasher for FxState {
    type Hasher = FxHasher;
    fn build_hasher(&self) -> FxHasher {
        FxHasher { hash: self.0 }
    }
}

/// A random `u64` drawn once per instance (a fixed one if the runtime gives no randomness).
fn seed() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEED: AtomicU64 = AtomicU64::new(0);
    let s = SEED.load(Ordering::Relaxed);
    if s != 0 {
        return s;
    }
    let mut b = [0u8; 8];
    let s = if getrandom::fill(&mut b).is_ok() { u64::from_le_bytes(b) | 1 } else { 0x9e37_79b9_7f4a_7c15 };
    SEED.store(s, Ordering::Relaxed);
    s
}
/// The hasher of [`Map`] and [`Set`].
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type State = std::collections::hash_map::RandomState;

/// A hash map with the crate's hasher.
pub(crate) type Map<K, V> = std::collections::HashMap<K, V, State>;
/// A hash set with the crate's hasher.
pub(crate) type Set<K> = std::collections::HashSet<K, State>;

/// An empty map with room for `n` entries.
pub(crate) fn map_with_capacity<K, V>(n: usize) -> Map<K, V> {
    Map::with_capacity_and_hasher(n, State::default())
}

/// A set of borrowed strings. Underneath it is a `Map<&str, usize>` (the values unused), so
/// that these sets and the maps from names to positions are one table type in the `.wasm`
/// (each key and value type links its own copy of the table's insert and growth code).
#[derive(Debug, Default)]
pub(crate) struct StrSet<'a>(Map<&'a str, usize>);

impl<'a> StrSet<'a> {
    /// An empty set with room for `n` strings.
    pub(crate) fn with_capacity(n: usize) -> Self {
        StrSet(map_with_capacity(n))
    }

    /// Adds `k`; `false` when it was there.
    pub(crate) fn insert(&mut self, k: &'a str) -> bool {
        self.0.insert(k, 0).is_none()
    }

    /// Whether `k` is in the set.
    pub(crate) fn contains(&self, k: &str) -> bool {
        self.0.contains_key(k)
    }
}

impl<'a> FromIterator<&'a str> for StrSet<'a> {
    fn from_iter<I: IntoIterator<Item = &'a str>>(items: I) -> Self {
        let mut set = StrSet::default();
        for k in items {
            set.insert(k);
        }
        set
    }
}

/// `items` without repeats, each first occurrence in its place.
pub(crate) fn distinct_strings(items: Vec<String>) -> Vec<String> {
    let mut seen = StrSet::with_capacity(items.len());
    let first: Vec<bool> = items.iter().map(|s| seen.insert(s.as_str())).collect();
    drop(seen);
    items.into_iter().zip(first).filter_map(|(s, first)| first.then_some(s)).collect()
}

/// An insert-only set of owned strings, each numbered by its insertion (0, 1, ...): a short
/// list while it holds at most [`FEW`] keys (most objects: no hashing), then open addressing
/// with linear probing over `u32` slots (the number plus one; 0 is empty), at most half full,
/// hashed by [`State`]. Much smaller in the `.wasm` than a std table, for the duplicate-key
/// rule of the JSON machines (json/keys.rs). Growth is fallible.
/// Built only where json/keys.rs keeps its keys in it (the client build) and in tests.
#[cfg(any(test, not(any(feature = "json", feature = "payload", feature = "planning", feature = "router", feature = "tags"))))]
#[derive(Debug, Clone, Default)]
pub(crate) struct KeyTable {
    /// The keys, in insertion order.
    keys: Vec<Box<str>>,
    /// A power of two long (or empty); twice the keys at least.
    slots: Vec<u32>,
    hasher: State,
}

/// Keys a [`KeyTable`] looks up by comparing each, before it hashes.
#[cfg(any(test, not(any(feature = "json", feature = "payload", feature = "planning", feature = "router", feature = "tags"))))]
const FEW: usize = 8;

/// Where [`KeyTable::insert`] put or found a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// A new key, numbered so.
    New(usize),
    /// The key was there, numbered so.
    Old(usize),
}

#[cfg(any(test, not(any(feature = "json", feature = "payload", feature = "planning", feature = "router", feature = "tags"))))]
impl KeyTable {
    /// How many keys it holds.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// The number of `k`, if it is there.
    pub(crate) fn get(&self, k: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return self.keys.iter().position(|x| **x == *k);
        }
        self.probe(k).ok()
    }

    /// Adds `k` (copied) unless it is there; `memory_limit_exceeded` when it cannot be kept.
    pub(crate) fn insert(&mut self, k: &str) -> crate::Result<Slot> {
        if let Some(n) = self.get(k) {
            return Ok(Slot::Old(n));
        }
        self.add(crate::budget::try_boxed_str(k)?)
    }

    /// Adds `k`, known not to be there.
    fn add(&mut self, k: Box<str>) -> crate::Result<Slot> {
        let n = self.keys.len();
        if n < FEW && self.slots.is_empty() {
            crate::budget::try_push(&mut self.keys, k)?;
            return Ok(Slot::New(n));
        }
        if 2 * (n + 1) > self.slots.len() {
            self.grow(n + 1)?;
        }
        crate::budget::try_push(&mut self.keys, k)?;
        if let Err(at) = self.probe(&self.keys[n]) {
            self.slots[at] = n as u32 + 1;
        }
        Ok(Slot::New(n))
    }

    /// `Ok(number)` of `k`, or `Err(slot)`: the empty slot where it would go.
    fn probe(&self, k: &str) -> Result<usize, usize> {
        use std::hash::BuildHasher;
        let mask = self.slots.len() - 1;
        let mut at = self.hasher.hash_one(k) as usize & mask;
        loop {
            match self.slots[at] {
                0 => return Err(at),
                s if *self.keys[s as usize - 1] == *k => return Ok(s as usize - 1),
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Slots for `n` keys: rebuilt, at least twice `n`, when they are fewer (none while `n` is
    /// at most [`FEW`] and there are none).
    fn grow(&mut self, n: usize) -> crate::Result<()> {
        if n <= FEW && self.slots.is_empty() {
            return Ok(());
        }
        let len = n.saturating_mul(2).max(8).checked_next_power_of_two().unwrap_or(usize::MAX);
        if len <= self.slots.len() {
            return Ok(());
        }
        let mut slots = Vec::new();
        slots.try_reserve_exact(len).map_err(|_| crate::budget::out_of_memory(len.saturating_mul(4)))?;
        slots.resize(len, 0);
        self.slots = slots;
        for i in 0..self.keys.len() {
            if let Err(at) = self.probe(&self.keys[i]) {
                self.slots[at] = i as u32 + 1;
            }
        }
        Ok(())
    }
}

/// FxHash (rustc's): each word is added, rotated and multiplied into one `u64`.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut b = [0u8; 8];
            b.copy_from_slice(w);
            self.add(u64::from_le_bytes(b));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            // The length keeps "a" and "a\0" apart.
            self.add(u64::from_le_bytes(b) ^ ((rest.len() as u64) << 56));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    /// The state through splitmix64's finaliser: every bit of it reaches the low bits that
    /// pick a bucket (a bare multiply leaves them to the low bits of the last word alone).
    #[inline]
    fn finish(&self) -> u64 {
        let mut z = self.hash;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, BuildHasherDefault};

    fn fx(s: &str) -> u64 {
        BuildHasherDefault::<FxHasher>::default().hash_one(s)
    }

    #[test]
    fn key_table_numbers_keys_by_first_insertion() {
        let mut t = KeyTable::default();
        let keys: Vec<String> = (0..1000).map(|i| format!("k{i}")).collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.insert(k).unwrap(), Slot::New(i));
            assert_eq!(t.insert(k).unwrap(), Slot::Old(i));
            if i == FEW || i == 100 {
                for (j, k) in keys[..=i].iter().enumerate() {
                    assert_eq!(t.get(k), Some(j), "{k}");
                }
            }
        }
        assert_eq!(t.len(), 1000);
        assert_eq!(t.get("k1000"), None);
        assert_eq!(t.insert("").unwrap(), Slot::New(1000));
        assert_eq!(t.get(""), Some(1000));
    }

    #[test]
    fn fx_is_deterministic_and_tells_strings_apart() {
        assert_eq!(fx("group_by"), fx("group_by"));
        let words = ["", "a", "a\0", "ab", "ba", "abcdefgh", "abcdefgh\0", "abcdefghi", "total", "totals"];
        for (i, a) in words.iter().enumerate() {
            for b in &words[i + 1..] {
                assert_ne!(fx(a), fx(b), "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn keys_that_differ_only_in_high_bytes_spread_over_the_low_bits() {
        // Without the finaliser these all land in one bucket of a small table: their last
        // words differ only in their high bytes.
        let buckets: std::collections::HashSet<u64> =
            (0u8..64).map(|i| fx(&format!("item_00{}", char::from(b'!' + i))) & 63).collect();
        assert!(buckets.len() > 24, "{} distinct buckets of 64", buckets.len());
    }

    #[test]
    fn fx_spreads_short_keys_over_the_high_bits() {
        // hashbrown takes its 7-bit tag from the top of the hash: short keys must reach it.
        let tags: std::collections::HashSet<u64> = (0..64).map(|i| fx(&format!("t{i}")) >> 57).collect();
        assert!(tags.len() > 32, "{} distinct tags", tags.len());
    }
}
