//! Property tests of the artifact walk over generated tool schemas (pydantic/zod-style JSON
//! Schema: nested models inline and through `$defs`/`$ref`, `anyOf` with null, `allOf`
//! wrappers, arrays and dicts of models, streamed marks) and matching observations:
//! - `redact_artifacts` never returns any artifact content: every string and key inside an
//!   artifact value holds `MARK`, nothing outside does, and `MARK` never survives;
//! - every artifact slot holds a placeholder, every other value is unchanged;
//! - redaction of an observation whose schema marks nothing is the identity (and nothing is
//!   collected);
//! - `collect_and_redact` gives what `collect` + `redact_artifacts` give;
//! - `json_len` is the length of `to_json`.
//! The seed comes from tests/common (`STREAMROUTE_SEED` to replay).

mod common;

use common::{seed, Rng};
use streamroute::{json_len, redact_artifacts, ArtifactCollector, JsonValue};

const MARK: &str = "SECRET";

fn s(x: &str) -> JsonValue {
    JsonValue::String(x.to_string())
}

fn obj(members: Vec<(&str, JsonValue)>) -> JsonValue {
    JsonValue::Object(members.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

struct Gen {
    rng: Rng,
    marks: bool,
    defs: Vec<(String, JsonValue)>,
}

impl Gen {
    fn below(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }

    fn plain(&mut self, depth: usize) -> JsonValue {
        match self.below(if depth > 2 { 5 } else { 7 }) {
            0 => JsonValue::String(format!("text \"{}\"\n", self.below(1000))),
            1 => JsonValue::Number(format!("{}.{}", self.below(100), self.below(100))),
            2 => JsonValue::Bool(self.below(2) == 0),
            3 => JsonValue::Null,
            4 => JsonValue::Number(self.below(1000).to_string()),
            5 => JsonValue::Array(vec![self.plain(depth + 1), self.plain(depth + 1)]),
            _ => JsonValue::Object(vec![(format!("k{}", self.below(9)), self.plain(depth + 1))]),
        }
    }

    fn secret(&mut self, depth: usize) -> JsonValue {
        match self.below(if depth > 2 { 3 } else { 5 }) {
            0 => JsonValue::String(format!("{MARK} {} é", self.below(1000))),
            1 => JsonValue::Array(vec![self.secret(depth + 1), s(MARK)]),
            2 => s(MARK),
            _ => JsonValue::Object(vec![
                (format!("{MARK}{}", self.below(9)), self.secret(depth + 1)),
                (format!("{MARK}k"), self.secret(depth + 1)),
            ]),
        }
    }

    /// A model schema (maybe a `$ref`) and an observation for it. Artifact values are
    /// secrets; artifacts inside are recorded in ``artifacts` (a lower bound: ones under a null or empty parent are counted too).
    fn model(&mut self, depth: usize, artifacts: &mut usize) -> (JsonValue, JsonValue) {
        let mut props = Vec::new();
        let mut obs = Vec::new();
        let n = self.below(if depth > 2 { 3 } else { 6 });
        for i in 0..n {
            let key = format!("f{i}");
            let artifact = self.marks && self.below(100) < 35;
            let (mut prop, mut value) = match if depth > 3 { 0 } else { self.below(6) } {
                0 => (obj(vec![("type", s(["string", "number", "boolean", "null"][self.below(4)]))]), self.plain(depth + 2)),
                1 => self.model(depth + 1, artifacts),
                2 => {
                    let (m, o) = self.model(depth + 1, artifacts);
                    let v = if self.below(10) < 3 { JsonValue::Null } else { o };
                    (obj(vec![("anyOf", JsonValue::Array(vec![m, obj(vec![("type", s("null"))])])), ("default", JsonValue::Null)]), v)
                }
                3 => {
                    let (m, o) = self.model(depth + 1, artifacts);
                    let len = self.below(4);
                    (obj(vec![("type", s("array")), ("items", m)]), JsonValue::Array(vec![o; len]))
                }
                4 => {
                    let (m, o) = self.model(depth + 1, artifacts);
                    (obj(vec![("type", s("object")), ("additionalProperties", m)]), obj(vec![("a", o.clone()), ("b", o)]))
                }
                _ => {
                    let (m, o) = self.model(depth + 1, artifacts);
                    (obj(vec![("allOf", JsonValue::Array(vec![m])), ("description", s("wrapped"))]), o)
                }
            };
            if artifact {
                let JsonValue::Object(p) = &mut prop else { unreachable!() };
                p.push(("artifact".into(), JsonValue::Bool(true)));
                if self.below(10) < 3 {
                    p.push(("stream".into(), JsonValue::Bool(true)));
                }
                if self.below(10) < 2 {
                    p.push(("stream_id".into(), JsonValue::String(format!("stream_{}", self.below(9)))));
                }
                value = self.secret(depth);
            }
            props.push((key.clone(), prop));
            if self.below(10) < 9 {
                if artifact {
                    *artifacts += 1;
                }
                obs.push((key, value));
            }
        }
        if self.below(2) == 0 {
            obs.push((format!("unknown{}", self.below(9)), self.plain(depth + 1)));
        }
        let schema = obj(vec![("type", s("object")), ("properties", JsonValue::Object(props))]);
        if self.below(2) == 0 {
            let name = format!("M{}", self.defs.len());
            self.defs.push((name.clone(), schema));
            return (obj(vec![("$ref", JsonValue::String(format!("#/$defs/{name}")))]), JsonValue::Object(obs));
        }
        (schema, JsonValue::Object(obs))
    }
}

/// A schema, an observation, and how many artifact fields the observation has (at least).
fn generate(case: u64, marks: bool) -> (JsonValue, JsonValue, usize) {
    let mut g = Gen { rng: Rng::new(case), marks, defs: Vec::new() };
    let mut n = 0;
    let (root, obs) = g.model(0, &mut n);
    let JsonValue::Object(mut members) = root else { unreachable!() };
    members.push(("$defs".into(), JsonValue::Object(std::mem::take(&mut g.defs))));
    (JsonValue::Object(members), obs, n)
}

fn leaks(v: &JsonValue) -> bool {
    v.to_json().contains(MARK)
}

/// Every value of `out` equals the one of `input` at the same place, except artifact slots
/// (where `input` holds a secret), which hold placeholders.
fn same_except_artifacts(input: &JsonValue, out: &JsonValue) -> bool {
    if leaks(input) && !leaks(out) && !matches!(input, JsonValue::Object(_) | JsonValue::Array(_)) {
        return out.as_str().is_some_and(|p| p.starts_with("<artifact:") && p.ends_with('>'));
    }
    match (input, out) {
        (JsonValue::Object(a), JsonValue::Object(b)) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|((ka, va), (kb, vb))| {
                    ka == kb
                        && (same_except_artifacts(va, vb)
                            || (leaks(va) && vb.as_str().is_some_and(|p| p.starts_with("<artifact:"))))
                })
        }
        (JsonValue::Array(a), JsonValue::Array(b)) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|(va, vb)| {
                    same_except_artifacts(va, vb) || (leaks(va) && vb.as_str().is_some_and(|p| p.starts_with("<artifact:")))
                })
        }
        _ => input == out,
    }
}

#[test]
fn redaction_never_leaks_and_keeps_the_rest() {
    let base = seed();
    let mut with_artifacts = 0;
    for case in 0..1500u64 {
        let (schema, obs, n) = generate(base.wrapping_add(case), true);
        with_artifacts += usize::from(n > 0);
        let out = redact_artifacts(&obs, &schema).expect("redact");
        assert!(!leaks(&out), "STREAMROUTE_SEED={base} case {case}: leaked\n{}\n{}", schema.to_json(), out.to_json());
        assert!(same_except_artifacts(&obs, &out), "STREAMROUTE_SEED={base} case {case}\n{}\n{}", obs.to_json(), out.to_json());
        let mut c1 = ArtifactCollector::default();
        c1.collect("t", &schema, &obs).unwrap();
        let mut c2 = ArtifactCollector::default();
        assert_eq!(c2.collect_and_redact("t", &schema, obs.clone(), None).unwrap(), out, "case {case}");
        assert_eq!(c1.all(), c2.all(), "case {case}");
        // Everything collected is artifact content.
        for (_, fields) in c1.all() {
            for (_, v) in fields {
                assert!(leaks(v), "case {case}: collected a non-artifact {}", v.to_json());
            }
        }
        assert_eq!(json_len(&obs), obs.to_json().len());
    }
    assert!(with_artifacts > 500, "the generator made only {with_artifacts} cases with artifacts");
}

#[test]
fn redaction_without_artifacts_is_the_identity() {
    let base = seed();
    for case in 0..1500u64 {
        let (schema, obs, _) = generate(base.wrapping_add(case), false);
        assert_eq!(redact_artifacts(&obs, &schema).unwrap(), obs, "STREAMROUTE_SEED={base} case {case}");
        let mut c = ArtifactCollector::default();
        c.collect("t", &schema, &obs).unwrap();
        assert!(c.all().is_empty());
    }
}
