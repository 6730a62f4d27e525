//! The crate's one duplicate-key rule, in linear time: **the first occurrence of a key wins**.
//! A stream can honour no other rule without retracting what it already reported, so the
//! streaming machines (`PartialJson`, `JsonItemStream`, the extractor) and the whole-value
//! functions (the normaliser, the payload functions) all keep the first value of a repeated
//! key and ignore the later ones.
//!
//! Ordered maps are `Vec<(String, V)>`; looking a key up per key is quadratic, so every
//! operation here that meets many keys goes through one hash set or map of the keys.

use super::tokenizer::Token;
use crate::budget::try_push;
use crate::hash::{Map, Slot, StrSet};
use crate::Result;

/// The keys of one object so far. The builds that link std's hash table for other uses (all
/// but the client's: `Map<Box<str>, usize>` tables) keep the keys in one too, its code shared;
/// the client build links no other table, and its own [`KeyTable`](crate::hash::KeyTable) is far smaller there
/// (bench/README.md, "The client entry: size and cold start").
#[cfg(not(any(feature = "json", feature = "payload", feature = "planning", feature = "router", feature = "tags")))]
type Seen = crate::hash::KeyTable;

/// A short list while it is short (most objects: no hashing), a hash table past `FEW` keys.
#[cfg(any(feature = "json", feature = "payload", feature = "planning", feature = "router", feature = "tags"))]
#[derive(Debug, Clone)]
enum Seen {
    Few(Vec<Box<str>>),
    Many(Map<Box<str>, usize>),
}

#[cfg(any(feature = "json", feature = "payload", feature = "planning", feature = "router", feature = "tags"))]
const FEW: usize = 8;

#[cfg(any(feature = "json", feature = "payload", feature = "planning", feature = "router", feature = "tags"))]
impl Default for Seen {
    fn default() -> Self {
        Seen::Few(Vec::new())
    }
}

#[cfg(any(feature = "json", feature = "payload", feature = "planning", feature = "router", feature = "tags"))]
impl Seen {
    /// Adds `k` (numbered 0: the number is unused); `memory_limit_exceeded` when it cannot be
    /// kept.
    fn insert(&mut self, k: &str) -> Result<Slot> {
        use crate::budget::{out_of_memory, try_boxed_str};
        match self {
            Seen::Few(list) if list.iter().any(|x| &**x == k) => Ok(Slot::Old(0)),
            Seen::Few(list) if list.len() < FEW => {
                let k = try_boxed_str(k)?;
                try_push(list, k)?;
                Ok(Slot::New(0))
            }
            Seen::Few(list) => {
                let k = try_boxed_str(k)?;
                let mut set: Map<Box<str>, usize> = Map::default();
                set.try_reserve(FEW + 1).map_err(|_| out_of_memory(FEW + 1))?;
                set.extend(list.drain(..).map(|k| (k, 0)));
                set.insert(k, 0);
                *self = Seen::Many(set);
                Ok(Slot::New(0))
            }
            Seen::Many(set) if set.contains_key(k) => Ok(Slot::Old(0)),
            Seen::Many(set) => {
                let k = try_boxed_str(k)?;
                set.try_reserve(1).map_err(|_| out_of_memory(k.len()))?;
                set.insert(k, 0);
                Ok(Slot::New(0))
            }
        }
    }
}

/// The duplicate-key rule on a token stream: [`FirstKeys::admit`] says which tokens a sink
/// keeps. A repeated key of an object and every token of its value are dropped, so what
/// a streaming sink reports for the first occurrence is never contradicted. One set of keys
/// per open object (allocated at its first key); each token costs constant time.
#[derive(Debug, Clone)]
pub(crate) struct FirstKeys {
    /// The open containers: an object's keys so far, or `None` for an array or an object
    /// below `depth`.
    open: Vec<Option<Seen>>,
    /// Dropping the value of a repeated key: how many of its containers and strings are open
    /// (0 before its first token).
    skip: Option<usize>,
    /// Objects nested deeper than this are not checked.
    depth: usize,
    /// When set, only these keys are checked (the others always pass, and are not kept).
    only: Option<&'static [&'static str]>,
}

impl Default for FirstKeys {
    /// Every key of every object.
    fn default() -> Self {
        FirstKeys { open: Vec::new(), skip: None, depth: usize::MAX, only: None }
    }
}

impl FirstKeys {
    /// No key checked (for tokens already filtered).
    pub(crate) fn none() -> Self {
        FirstKeys { depth: 0, ..FirstKeys::default() }
    }

    /// Only the keys `only` of the objects among the outermost `depth` containers: a machine
    /// that reads a few known keys near the top keeps no more than those.
    pub(crate) fn watching(only: &'static [&'static str], depth: usize) -> Self {
        FirstKeys { only: Some(only), depth, ..FirstKeys::default() }
    }

    /// Whether the sink should see `tok`; `memory_limit_exceeded` when a key cannot be kept.
    pub(crate) fn admit(&mut self, tok: &Token<'_>) -> Result<bool> {
        if let Some(d) = self.skip {
            let d = match tok {
                Token::ObjectStart | Token::ArrayStart | Token::StringStart => d + 1,
                Token::ObjectEnd | Token::ArrayEnd | Token::StringEnd if d > 0 => d - 1,
                // A key or an end where the value was due (tolerant input): no value came.
                Token::ObjectEnd | Token::ArrayEnd | Token::Key(_) if d == 0 => {
                    self.skip = None;
                    return self.admit(tok);
                }
                _ => d,
            };
            self.skip = (d > 0).then_some(d);
            return Ok(false);
        }
        match tok {
            Token::ObjectStart => {
                let checked = self.open.len() < self.depth;
                try_push(&mut self.open, checked.then(Seen::default))?;
            }
            Token::ArrayStart => try_push(&mut self.open, None)?,
            Token::ObjectEnd | Token::ArrayEnd => {
                self.open.pop();
            }
            Token::Key(k) => {
                let watched = self.only.is_none_or(|only| only.contains(k));
                if let (Some(Some(keys)), true) = (self.open.last_mut(), watched) {
                    if let Slot::Old(_) = keys.insert(k)? {
                        self.skip = Some(0);
                        return Ok(false);
                    }
                }
            }
            _ => {}
        }
        Ok(true)
    }

    /// Whether the value of a repeated key is being dropped (for raw string content, which
    /// bypasses [`FirstKeys::admit`]).
    pub(crate) fn dropping(&self) -> bool {
        self.skip.is_some()
    }
}

/// The members with each key's first occurrence only, in written order.
pub(crate) fn first_keys<V: Clone>(m: &[(String, V)]) -> Vec<(String, V)> {
    let mut seen = StrSet::with_capacity(m.len());
    let mut out = Vec::with_capacity(m.len());
    for (k, v) in m {
        if seen.insert(k.as_str()) {
            out.push((k.clone(), v.clone()));
        }
    }
    out
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
    // `Box<str>` keys: the crate's kept-name table type (one copy of its code in the `.wasm`).
    let mut at: Map<Box<str>, usize> = crate::hash::map_with_capacity(into.len());
    let mut i = 0;
    into.retain(|(k, _)| {
        let first = !at.contains_key(k.as_str());
        if first {
            at.insert(k.as_str().into(), i);
            i += 1;
        }
        first
    });
    for (k, v) in items {
        match at.get(k.as_str()) {
            Some(&i) => combine(&k, &mut into[i].1, v),
            None => {
                at.insert(k.as_str().into(), into.len());
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

    /// Tokens of `{"a":1,"b":[2],"a":{"x":[3,"s"]},"c":4,"b":5}` with the repeats dropped.
    #[test]
    fn first_keys_drops_repeated_members_whole() {
        use Token::*;
        let toks = [
            ObjectStart,
            Key("a"),
            Number("1"),
            Key("b"),
            ArrayStart,
            Number("2"),
            ArrayEnd,
            Key("a"),
            ObjectStart,
            Key("x"),
            ArrayStart,
            Number("3"),
            StringStart,
            StringPart("s"),
            StringEnd,
            ArrayEnd,
            ObjectEnd,
            Key("c"),
            Number("4"),
            Key("b"),
            Number("5"),
            ObjectEnd,
        ];
        let mut f = FirstKeys::default();
        let kept: Vec<Token<'_>> = toks.iter().filter(|t| f.admit(t).unwrap()).cloned().collect();
        let want =
            [ObjectStart, Key("a"), Number("1"), Key("b"), ArrayStart, Number("2"), ArrayEnd, Key("c"), Number("4"), ObjectEnd];
        assert_eq!(kept, want);
        assert!(!f.dropping());
        // A repeated key with no value before the end (tolerant input).
        let mut f = FirstKeys::default();
        let kept: Vec<Token<'_>> =
            [ObjectStart, Key("a"), Null, Key("a"), ObjectEnd].iter().filter(|t| f.admit(t).unwrap()).cloned().collect();
        assert_eq!(kept, [ObjectStart, Key("a"), Null, ObjectEnd]);
        // Watching `a` in the outermost object only.
        let mut f = FirstKeys::watching(&["a"], 1);
        let toks = [
            ObjectStart,
            Key("a"),
            Null,
            Key("b"),
            ObjectStart,
            Key("a"),
            Null,
            Key("a"),
            Null,
            ObjectEnd,
            Key("b"),
            Null,
            Key("a"),
            Bool(true),
            ObjectEnd,
        ];
        let kept: Vec<Token<'_>> = toks.iter().filter(|t| f.admit(t).unwrap()).cloned().collect();
        assert_eq!(kept, toks[..toks.len() - 3].iter().chain(&[ObjectEnd]).cloned().collect::<Vec<_>>());
    }

    /// Past the short list: 100 keys, each written twice, the repeats dropped with their values.
    #[test]
    fn first_keys_drops_repeats_among_many_keys() {
        use Token::*;
        let keys: Vec<String> = (0..100).map(|i| format!("k{i}")).collect();
        let mut toks = vec![ObjectStart];
        for round in 0..2 {
            for k in &keys {
                toks.extend([Key(k.as_str()), if round == 0 { Null } else { Bool(true) }]);
            }
        }
        toks.push(ObjectEnd);
        let mut f = FirstKeys::default();
        let kept: Vec<Token<'_>> = toks.iter().filter(|t| f.admit(t).unwrap()).cloned().collect();
        let want: Vec<Token<'_>> = toks[..201].iter().chain(&[ObjectEnd]).cloned().collect();
        assert_eq!(kept, want);
    }

    #[test]
    fn merge_all_combines() {
        let mut m = map(&[("a", 1)]);
        merge_all(&mut m, map(&[("a", 2), ("b", 3), ("b", 4)]), |_, o, n| *o += n);
        assert_eq!(m, map(&[("a", 3), ("b", 7)]));
    }
}
