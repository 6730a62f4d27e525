//! The planning functions' arguments as JSON values, read as a host passes them (the wasm
//! bindings, the CLI): lists of names, a removal report, tools ranked elsewhere, embeddings
//! given as plain numbers, and a retrieval as JSON text.

use super::{apply_removals, Retrieval, Tool, ToolIndex};
use crate::{Error, ErrorKind, JsonValue, Result};

fn bad(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

/// A list of names (`null`: none), each trimmed; else "`what` must be an array of strings".
///
/// # Errors
/// `invalid_input` for anything else.
pub fn string_list(v: &JsonValue, what: &str) -> Result<Vec<String>> {
    let wrong = || bad(format!("{what} must be an array of strings"));
    match v {
        JsonValue::Null => Ok(vec![]),
        JsonValue::Array(items) => {
            // A plain loop rather than `collect::<Result<_>>()`: smaller in the `.wasm`.
            let mut out = Vec::with_capacity(items.len());
            for i in items {
                out.push(i.as_str().ok_or_else(wrong)?.trim().to_string());
            }
            Ok(out)
        }
        _ => Err(wrong()),
    }
}

/// [`apply_removals`] with a coverage report (`unjustified`, and `unjustified_steps` when it
/// has them) as its JSON value.
///
/// # Errors
/// `invalid_input` for a malformed report or plan.
pub fn apply_report(plan: &JsonValue, report: &JsonValue) -> Result<JsonValue> {
    let unjustified = string_list(report.get("unjustified").unwrap_or(&JsonValue::Null), "report.unjustified")?;
    let positions = match report.get("unjustified_steps") {
        Some(JsonValue::Array(items)) => {
            let mut at = Vec::with_capacity(items.len());
            for i in items {
                let p = if let JsonValue::Number(n) = i { n.parse::<usize>().ok() } else { None };
                at.push(p.ok_or_else(|| bad("report.unjustified_steps must hold step positions"))?);
            }
            Some(at)
        }
        _ => None,
    };
    apply_removals(plan, positions.as_deref(), &unjustified)
}

/// Tools ranked elsewhere, `[{ name, score? }]` (a missing score is 0).
///
/// # Errors
/// `invalid_input` for anything else.
pub fn ranked(v: &JsonValue) -> Result<Vec<(String, f64)>> {
    let wrong = || bad("retrieved must be an array of { name, score }");
    let JsonValue::Array(items) = v else { return Err(wrong()) };
    let mut ranked = Vec::with_capacity(items.len());
    for i in items {
        let name = i.get("name").and_then(JsonValue::as_str).map(str::to_string);
        let score = match i.get("score") {
            Some(JsonValue::Number(n)) => crate::num::parse_f64(n),
            None => Some(0.0),
            _ => None,
        };
        ranked.push(name.zip(score).ok_or_else(wrong)?);
    }
    Ok(ranked)
}

/// Gives the tools their embeddings, given as numbers: the first `lens[i]` of `vectors` are
/// tool `i`'s, and so on (a negative length: the tool has none).
///
/// # Errors
/// `invalid_input` for a number that is not a finite 32-bit float.
pub fn attach_embeddings(tools: &mut [Tool], vectors: &[f64], lens: &[i32]) -> Result<()> {
    let mut at = 0usize;
    for (i, (tool, &len)) in tools.iter_mut().zip(lens).enumerate() {
        let Ok(len) = usize::try_from(len) else { continue };
        let row = vectors.get(at..at + len).unwrap_or_default();
        at += len;
        let mut e = Vec::with_capacity(row.len());
        for &x in row {
            let f = x as f32;
            if !f.is_finite() {
                return Err(bad(format!("tools[{i}].embedding: {} is not a finite 32-bit float", crate::num::show(x))));
            }
            e.push(f);
        }
        tool.embedding = Some(e);
    }
    Ok(())
}

impl ToolIndex {
    /// `r` as JSON text: `{"method":…,"fallback":…,"hits":[…]}`.
    pub fn retrieval_json(&self, r: &Retrieval) -> String {
        let mut fallback = String::from("null");
        if let Some(f) = &r.fallback {
            fallback.clear();
            crate::json::write_json_string(f, &mut fallback);
        }
        format!("{{\"method\":\"{}\",\"fallback\":{fallback},\"hits\":{}}}", r.method.as_str(), self.hits_json(&r.hits))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &str) -> JsonValue {
        crate::parse_strict(s.as_bytes()).unwrap()
    }

    #[test]
    fn reads_the_arguments_and_names_what_is_wrong() {
        assert_eq!(string_list(&json(r#"[" a ","b"]"#), "x").unwrap(), ["a", "b"]);
        assert_eq!(string_list(&json("null"), "x").unwrap(), Vec::<String>::new());
        assert_eq!(string_list(&json("[1]"), "safetySet").unwrap_err().message(), "safetySet must be an array of strings");
        assert_eq!(ranked(&json(r#"[{"name":"a","score":0.5},{"name":"b"}]"#)).unwrap(), [("a".into(), 0.5), ("b".into(), 0.0)]);
        assert!(ranked(&json(r#"[{"name":"a","score":"1"}]"#)).is_err());
        let plan = json(r#"{"steps":[{"tool":"a"},{"tool":"b"},{"tool":"a"}]}"#);
        assert_eq!(apply_report(&plan, &json(r#"{"unjustified":["a"]}"#)).unwrap(), json(r#"{"steps":[{"tool":"b"}]}"#));
        let by_step = json(r#"{"unjustified":["a"],"unjustified_steps":[2]}"#);
        assert_eq!(apply_report(&plan, &by_step).unwrap(), json(r#"{"steps":[{"tool":"a"},{"tool":"b"}]}"#));
        assert!(apply_report(&plan, &json(r#"{"unjustified_steps":[-1]}"#)).is_err());
        let mut tools = super::super::parse_catalog(&json(r#"[{"name":"a"},{"name":"b"},{"name":"c"}]"#)).unwrap();
        attach_embeddings(&mut tools, &[1.0, 2.0, 3.0], &[2, -1, 1]).unwrap();
        assert_eq!([tools[0].embedding.clone(), tools[1].embedding.clone()], [Some(vec![1.0, 2.0]), None]);
        assert_eq!(tools[2].embedding, Some(vec![3.0]));
        let e = attach_embeddings(&mut tools, &[1e39], &[1]).unwrap_err();
        // (In wasm the number is JS's text of it, `1e+39`.)
        assert!(e.message().starts_with("tools[0].embedding: 1") && e.message().ends_with(" is not a finite 32-bit float"));
    }
}
