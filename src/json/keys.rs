//! The crate's one duplicate-key rule, in linear time: **the first occurrence of a key wins**.
//! A stream can honour no other rule without retracting what it already reported, so the
//! streaming machines (`PartialJson`, `JsonItemStream`, the extractor) and the whole-value
//! functions (the normaliser, the payload functions) all keep the first value of a repeated
//! key and ignore the later ones.
//!
//! Ordered maps are `Vec<(String, V)>`; looking a key up per key is quadratic, so every
//! operation here that meets many keys goes through one hash set or map of the keys.

use std::collections::{HashMap, HashSet};

/// The members with each key's first occurrence only, in written order.
pub(crate) fn first_keys<V: Clone>(m: &[(String, V)]) -> Vec<(String, V)> {
    let mut seen: HashSet<&str> = HashSet::with_capacity(m.len());
    m.iter().filter(|(k, _)| seen.insert(k.as_str())).cloned().collect()
}

/// Merges `items` into `into` in one pass: an item whose key `into` has is combined into that
/// member (`combine(key, existing, new)`), any other is appended (the first of repeated new keys;
/// a later one is combined into it). Repeated keys already in `into` collapse to their first
/// occurrence first.
pub(crate) fn merge_all<V>(
    into: &mut Vec<(String, V)>,
    items: impl IntoIterator<Item = (String, V)>,
    mut combine: impl FnMut(&str, &mut V, V),
) {
    let mut at: HashMap<String, usize> = HashMap::with_capacity(into.len());
    let mut i = 0;
    into.retain(|(k, _)| {
        let first = !at.contains_key(k.as_str());
        if first {
            at.insert(k.clone(), i);
            i += 1;
        }
        first
    });
    for (k, v) in items {
        match at.get(k.as_str()) {
            Some(&i) => combine(&k, &mut into[i].1, v),
            None => {
                at.insert(k.clone(), into.len());
                into.push((k, v));
            }
        }
    }
}

/// Sets every `(key, value)` of `items` in `into` (replacing a present key's value in place,
/// else appending), as many single sets would, in one pass.
pub(crate) fn set_all<V>(into: &mut Vec<(String, V)>, items: impl IntoIterator<Item = (String, V)>) {
    merge_all(into, items, |_, old, new| *old = new);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, i32)]) -> Vec<(String, i32)> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn first_keys_keeps_first_occurrences_in_order() {
        let m = map(&[("a", 1), ("b", 2), ("a", 3), ("c", 4), ("b", 5)]);
        assert_eq!(first_keys(&m), map(&[("a", 1), ("b", 2), ("c", 4)]));
    }

    #[test]
    fn set_all_replaces_in_place_and_appends() {
        let mut m = map(&[("a", 1), ("b", 2), ("a", 9)]);
        set_all(&mut m, map(&[("b", 20), ("c", 30), ("c", 31)]));
        assert_eq!(m, map(&[("a", 1), ("b", 20), ("c", 31)]));
    }

    #[test]
    fn merge_all_combines() {
        let mut m = map(&[("a", 1)]);
        merge_all(&mut m, map(&[("a", 2), ("b", 3), ("b", 4)]), |_, o, n| *o += n);
        assert_eq!(m, map(&[("a", 3), ("b", 7)]));
    }
}
