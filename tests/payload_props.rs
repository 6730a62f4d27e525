//! Property tests of the artifact walk over generated tool schemas (pydantic/zod-style JSON
//! Schema: nested models inline and through `$defs`/`$ref`, `anyOf` with null, `allOf`
//! wrappers, arrays and dicts of models, streamed marks) and matching observations:
//! - `redact_artifacts` never returns any artifact content: every string and key inside an
//!   artifact value holds `MARK`, nothing outside does, and `MARK` never survives;
//! - every artifact slot holds a placeholder, every other value is unchanged;
//! - redaction of an observation whose schema marks nothing is the identity (and nothing is
//!   collected);
//! - `collect_and_redact` gives what `collect` + `redact_artifacts` give;
//! - the one-pass text walk (`redact_artifacts_json`, `collect_and_redact_json`,
//!   `collect_json`) gives exactly what the tree walk gives, from compact or pretty text;
//! - `json_len` is the length of `to_json`;
//! - limits fail closed: marks hidden behind random stacks of wide unions, deep
//!   `anyOf`/`oneOf`/`allOf`, long `$ref` chains and cycles, below and past the expansion cap,
//!   and observations past the depth cap along recursive schemas, are redacted and collected
//!   or refused with `schema_too_complex`/`json_too_deep` by every entry point alike (tree,
//!   JSON text, a string holding the JSON text, that string as a JSON literal), never leaked.
//!
//! The seed comes from tests/common (`STREAMROUTE_SEED` to replay).

mod common;

use common::{seed, Rng};
use streamroute::{json_len, redact_artifacts, redact_artifacts_json, ArtifactCollector, JsonValue};

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
                    (
                        obj(vec![
                            ("anyOf", JsonValue::Array(vec![m, obj(vec![("type", s("null"))])])),
                            ("default", JsonValue::Null),
                        ]),
                        v,
                    )
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
        // The one-pass text walk gives the same, from compact and from pretty text.
        let text = obs.to_json();
        assert_eq!(redact_artifacts_json(&text, &schema).unwrap(), out.to_json(), "case {case}");
        let pretty = text.replace(',', " ,\n\t").replace(':', " : ");
        let mut c3 = ArtifactCollector::default();
        assert_eq!(c3.collect_and_redact_json("t", &schema, &pretty, None).unwrap(), out.to_json(), "case {case}");
        assert_eq!(c3.all(), c1.all(), "case {case}");
        let mut c4 = ArtifactCollector::default();
        c4.collect_json("t", &schema, &text, None).unwrap();
        assert_eq!(c4.all(), c1.all(), "case {case}");
        // Everything collected is artifact content.
        for (_, fields) in c1.all() {
            for (_, v) in fields {
                assert!(leaks(&v), "case {case}: collected a non-artifact {}", v.to_json());
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
        assert_eq!(redact_artifacts_json(&obs.to_json(), &schema).unwrap(), obs.to_json(), "case {case}");
        let mut c = ArtifactCollector::default();
        c.collect("t", &schema, &obs).unwrap();
        assert!(c.all().is_empty());
    }
}

// ---------------------------------------------------------------------------------------------
// Limits fail closed

/// A schema that hides its artifact marks behind random stacks of wide unions, deep
/// `anyOf`/`oneOf`/`allOf`, long `$ref` chains and cycles, sized below and past the expansion
/// cap (1024 nodes), and an observation whose artifact values hold `MARK`. Also how many
/// nodes the marked property expands to at most (unused decoys, repeated targets and the
/// nodes around included).
struct Hidden {
    rng: Rng,
    defs: Vec<(String, JsonValue)>,
}

impl Hidden {
    /// A size from 1 to ~3000, log-uniform, so both sides of the cap come up.
    fn size(&mut self) -> usize {
        let bits = 1 + self.rng.below(11);
        1 + self.rng.below(1 << bits)
    }

    fn def(&mut self, schema: JsonValue) -> JsonValue {
        let name = format!("D{}", self.defs.len());
        self.defs.push((name.clone(), schema));
        obj(vec![("$ref", JsonValue::String(format!("#/$defs/{name}")))])
    }

    /// `inner` behind one random construct; returns it and a bound on the nodes it adds.
    fn wrap(&mut self, inner: JsonValue) -> (JsonValue, usize) {
        let n = self.size();
        match self.rng.below(5) {
            0 => {
                // A union of n models, the marked one anywhere.
                let at = self.rng.below(n);
                let mut members = Vec::with_capacity(n);
                for i in 0..n {
                    members.push(if i == at {
                        inner.clone()
                    } else if self.rng.below(2) == 0 {
                        obj(vec![("type", s("object")), ("title", s("Decoy"))])
                    } else {
                        let decoy = obj(vec![("properties", obj(vec![("other", obj(vec![("type", s("string"))]))]))]);
                        self.def(decoy)
                    });
                }
                let key = ["anyOf", "oneOf", "allOf"][self.rng.below(3)];
                (obj(vec![(key, JsonValue::Array(members))]), 2 * n + 1)
            }
            1 => {
                // n levels of `X | None` or `allOf: [X]`.
                let mut s2 = inner;
                for _ in 0..n {
                    s2 = if self.rng.below(2) == 0 {
                        obj(vec![("anyOf", JsonValue::Array(vec![s2, obj(vec![("type", s("null"))])]))])
                    } else {
                        obj(vec![("allOf", JsonValue::Array(vec![s2]))])
                    };
                }
                (s2, 2 * n)
            }
            2 => {
                // A `$ref` chain of n hops.
                let mut s2 = self.def(inner);
                for _ in 1..n {
                    s2 = self.def(s2);
                }
                (s2, 2 * n)
            }
            3 => {
                // A cycle through a union back to itself.
                let name = format!("D{}", self.defs.len());
                let me = obj(vec![("$ref", JsonValue::String(format!("#/$defs/{name}")))]);
                let cyc = obj(vec![("anyOf", JsonValue::Array(vec![me.clone(), inner]))]);
                self.defs.push((name, cyc));
                (me, 4)
            }
            _ => (inner, 0),
        }
    }

    /// The schema, the observation and the node bound of the marked property.
    fn generate(&mut self) -> (JsonValue, JsonValue, usize) {
        let model = obj(vec![
            ("type", s("object")),
            (
                "properties",
                obj(vec![("blob", obj(vec![("artifact", JsonValue::Bool(true))])), ("keep", obj(vec![("type", s("string"))]))]),
            ),
        ]);
        let whole = self.rng.below(3) == 0;
        // The mark on the model itself (the whole payload is the artifact) or on its field.
        let mut schema = if whole { obj(vec![("artifact", JsonValue::Bool(true))]) } else { model };
        let mut bound = 3;
        for _ in 0..1 + self.rng.below(3) {
            let (s2, b) = self.wrap(schema);
            schema = s2;
            bound += b;
        }
        let payload = obj(vec![
            ("blob", obj(vec![("x", JsonValue::String(format!("{MARK} {}", self.rng.below(99))))])),
            ("keep", s("visible")),
        ]);
        let root = obj(vec![
            ("type", s("object")),
            ("properties", obj(vec![("payload", schema), ("note", obj(vec![("type", s("string"))]))])),
            ("$defs", JsonValue::Object(std::mem::take(&mut self.defs))),
        ]);
        let observation = obj(vec![("note", s("n")), ("payload", payload)]);
        (root, observation, bound)
    }
}

/// Every entry point on `obs` (as a tree, as JSON text, and as a string holding its JSON
/// text): the redacted compact JSON of the tree form and the collected artifacts, or the one
/// error code they all give.
fn outcome(obs: &JsonValue, schema: &JsonValue) -> Result<(String, JsonValue), String> {
    let code = |e: streamroute::Error| e.code().to_string();
    let text = obs.to_json();
    let tree = redact_artifacts(obs, schema).map(|v| v.to_json()).map_err(code);
    assert_eq!(redact_artifacts_json(&text, schema).map_err(code), tree);
    let mut c = ArtifactCollector::default();
    let r = c.collect_and_redact_json("t", schema, &text, None).map_err(code);
    assert_eq!(r, tree);
    let mut c2 = ArtifactCollector::default();
    assert_eq!(c2.collect("t", schema, obs).map_err(code), tree.clone().map(|_| ()));
    assert_eq!(c2.all(), c.all());
    // The same value as a string of JSON text, and that string as a JSON literal.
    let as_string = JsonValue::String(text);
    let from_string = redact_artifacts(&as_string, schema).map_err(code);
    let mut c3 = ArtifactCollector::default();
    let literal = c3.collect_and_redact_json("t", schema, &as_string.to_json(), None).map_err(code);
    match &tree {
        Ok(t) => {
            assert_eq!(from_string, Ok(JsonValue::String(t.clone())));
            assert_eq!(literal, Ok(JsonValue::String(t.clone()).to_json()));
        }
        Err(e) => {
            assert_eq!(from_string.unwrap_err(), *e);
            assert_eq!(literal.unwrap_err(), *e);
        }
    }
    assert_eq!(c3.all(), c.all());
    tree.map(|t| (t, c.all_value()))
}

#[test]
fn limits_never_let_a_marked_value_through() {
    // Schemas nested thousands of levels deep are built, cloned and dropped recursively here
    // (parsed schemas stop at 512 levels): a thread with room for that.
    std::thread::Builder::new().stack_size(512 << 20).spawn(limits_cases).unwrap().join().unwrap();
}

fn limits_cases() {
    let base = seed();
    let (mut ok, mut refused) = (0, 0);
    for case in 0..400u64 {
        let mut h = Hidden { rng: Rng::new(base.wrapping_add(case)), defs: Vec::new() };
        let (schema, obs, bound) = h.generate();
        let ctx = format!("STREAMROUTE_SEED={base} case {case} (bound {bound})");
        match outcome(&obs, &schema) {
            Ok((redacted, collected)) => {
                ok += 1;
                assert!(!redacted.contains(MARK), "{ctx}: leaked {redacted}");
                assert!(collected.to_json().contains(MARK), "{ctx}: nothing collected");
            }
            Err(code) => {
                refused += 1;
                assert_eq!(code, "schema_too_complex", "{ctx}");
                // Only a schema that can reach past the cap is refused.
                assert!(bound > 1024, "{ctx}: refused below the cap");
            }
        }
    }
    assert!(ok > 50 && refused > 20, "{ok} expanded, {refused} refused");
}

#[test]
fn deep_observations_along_recursive_schemas_never_leak() {
    // A recursive model (`next` is the model again) with an artifact at every level, past the
    // depth cap (512): redacted to the bottom, or json_too_deep, never the secret.
    let schema = obj(vec![
        ("$ref", s("#/$defs/N")),
        (
            "$defs",
            obj(vec![(
                "N",
                obj(vec![(
                    "properties",
                    obj(vec![
                        (
                            "next",
                            obj(vec![(
                                "anyOf",
                                JsonValue::Array(vec![obj(vec![("$ref", s("#/$defs/N"))]), obj(vec![("type", s("null"))])]),
                            )]),
                        ),
                        ("blob", obj(vec![("artifact", JsonValue::Bool(true))])),
                    ]),
                )]),
            )]),
        ),
    ]);
    let mut rng = Rng::new(seed());
    for _ in 0..12 {
        let depth = 1 + rng.below(700);
        let mut obs = obj(vec![("blob", s(MARK))]);
        for _ in 0..depth {
            obs = obj(vec![("blob", s(MARK)), ("next", obs)]);
        }
        match outcome(&obs, &schema) {
            Ok((redacted, collected)) => {
                assert!(depth < 512, "depth {depth} was walked");
                assert!(!redacted.contains(MARK), "depth {depth}: leaked");
                assert!(collected.to_json().matches(MARK).count() == depth + 1);
            }
            Err(code) => {
                assert_eq!(code, "json_too_deep", "depth {depth}");
                assert!(depth >= 255, "depth {depth} refused");
            }
        }
    }
}
