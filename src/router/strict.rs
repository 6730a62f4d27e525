//! OpenAI's strict structured-output form of a JSON Schema (`strict: true` for function tools
//! and `json_schema` response formats).
//!
//! Strict mode accepts a subset of JSON Schema and wants every object closed and complete:
//! `additionalProperties: false` and every property listed in `required`. A property that the
//! schema leaves optional is made nullable instead (`type: [T, "null"]`, or `anyOf` with
//! `{type: "null"}`), so the model says `null` where it would have left the key out. The
//! conversion goes through `properties`, `items`, `anyOf` and `$defs` / `definitions`.
//!
//! It gives up (and the caller sends the schema unchanged with `strict: false`) when it
//! cannot be exact: a root that is not an object schema, an open object
//! (`additionalProperties: true` or a schema), keywords strict mode does not take (`allOf`,
//! `oneOf`, `not`, `if`/`then`/`else`, `patternProperties`, `dependentRequired`, tuple
//! `items`, ...), a schema of `true` / `{}` (any value), an array without `items`, or nesting past 64 levels. Pure
//! annotations (`$schema`, `$id`, `$comment`, `examples`, `default`) are dropped; `title` and
//! `description` are kept.

use crate::json::JsonValue;

/// Keywords kept as they are.
const KEPT: [&str; 17] = [
    "type",
    "enum",
    "const",
    "$ref",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
];

/// Annotations dropped from the strict form.
const DROPPED: [&str; 5] = ["$schema", "$id", "$comment", "examples", "default"];

const MAX_DEPTH: usize = 64;

/// The strict form of `schema`, or `None` when it cannot be made exactly.
pub(crate) fn openai_strict(schema: &JsonValue) -> Option<JsonValue> {
    let is_object = schema.get("type").and_then(JsonValue::as_str) == Some("object") || schema.get("properties").is_some();
    if !is_object || schema.get("anyOf").is_some() {
        return None;
    }
    convert(schema, 0)
}

fn convert(schema: &JsonValue, depth: usize) -> Option<JsonValue> {
    let JsonValue::Object(members) = schema else { return None };
    if depth > MAX_DEPTH || members.is_empty() {
        return None;
    }
    let object = schema.get("type").and_then(JsonValue::as_str) == Some("object") || schema.get("properties").is_some();
    // An array of anything (no `items`): strict mode wants the item schema.
    let array = match schema.get("type") {
        Some(JsonValue::String(t)) => t == "array",
        Some(JsonValue::Array(ts)) => ts.iter().any(|t| t.as_str() == Some("array")),
        _ => false,
    };
    if array && schema.get("items").is_none() {
        return None;
    }
    let mut out: Vec<(String, JsonValue)> = Vec::with_capacity(members.len() + 2);
    let mut required: Vec<&str> = Vec::new();
    for (k, v) in members {
        match k.as_str() {
            "properties" => {}
            "required" => {
                let JsonValue::Array(names) = v else { return None };
                for n in names {
                    required.push(n.as_str()?);
                }
            }
            "additionalProperties" => {
                if !matches!(v, JsonValue::Bool(false)) {
                    return None;
                }
            }
            "items" => {
                if matches!(v, JsonValue::Array(_)) {
                    return None;
                }
                out.push((k.clone(), convert(v, depth + 1)?));
            }
            "anyOf" => {
                let JsonValue::Array(options) = v else { return None };
                let options = options.iter().map(|o| convert(o, depth + 1)).collect::<Option<Vec<_>>>()?;
                out.push((k.clone(), JsonValue::Array(options)));
            }
            "$defs" | "definitions" => {
                let JsonValue::Object(defs) = v else { return None };
                let defs =
                    defs.iter().map(|(name, d)| Some((name.clone(), convert(d, depth + 1)?))).collect::<Option<Vec<_>>>()?;
                out.push((k.clone(), JsonValue::Object(defs)));
            }
            _ if KEPT.contains(&k.as_str()) => out.push((k.clone(), v.clone())),
            _ if DROPPED.contains(&k.as_str()) => {}
            _ => return None,
        }
    }
    if object {
        let props = match schema.get("properties") {
            Some(JsonValue::Object(p)) => p.as_slice(),
            Some(_) => return None,
            None => &[],
        };
        let mut converted = Vec::with_capacity(props.len());
        for (name, p) in props {
            let strict = convert(p, depth + 1)?;
            let optional = !required.contains(&name.as_str());
            converted.push((name.clone(), if optional { nullable(strict) } else { strict }));
        }
        let all = props.iter().map(|(name, _)| JsonValue::String(name.clone())).collect();
        out.push(("properties".into(), JsonValue::Object(converted)));
        out.push(("required".into(), JsonValue::Array(all)));
        out.push(("additionalProperties".into(), JsonValue::Bool(false)));
    } else if !required.is_empty() {
        return None;
    }
    Some(JsonValue::Object(out))
}

/// Keywords Anthropic's JSON outputs (`output_config.format`) do not take: they are moved into
/// the schema's `description` as a note, so the model still reads them.
const ANTHROPIC_NOTED: [&str; 8] =
    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "maxItems"];

/// The form of `schema` that Anthropic's JSON outputs take: every object schema that does not
/// say otherwise closed (`additionalProperties: false`, which the API requires), and the
/// constraints it does not support (`minimum`, `maxLength`, `minItems` above 1, ...) moved into
/// `description` (`"… (minimum: 1, maxLength: 20)"`). Subschemas are converted the same way
/// through `properties`, `items`, `prefixItems`, `anyOf`/`allOf`/`oneOf`, `not`, a
/// schema-valued `additionalProperties` and `$defs`/`definitions`, to 64 levels (deeper ones
/// go as they are). An explicitly open object (`additionalProperties: true` or a schema) stays
/// open: closing it would change what it means.
pub(crate) fn anthropic_output_schema(schema: &JsonValue) -> JsonValue {
    anthropic_node(schema, 0)
}

fn anthropic_node(schema: &JsonValue, depth: usize) -> JsonValue {
    let JsonValue::Object(members) = schema else { return schema.clone() };
    if depth > MAX_DEPTH {
        return schema.clone();
    }
    let sub = |v: &JsonValue| anthropic_node(v, depth + 1);
    let each = |v: &JsonValue| match v {
        JsonValue::Array(items) => JsonValue::Array(items.iter().map(sub).collect()),
        other => sub(other),
    };
    let named = |v: &JsonValue| match v {
        JsonValue::Object(m) => JsonValue::Object(m.iter().map(|(k, s)| (k.clone(), sub(s))).collect()),
        other => other.clone(),
    };
    let object = match schema.get("type") {
        Some(JsonValue::String(t)) => t == "object",
        Some(JsonValue::Array(ts)) => ts.iter().any(|t| t.as_str() == Some("object")),
        _ => false,
    } || schema.get("properties").is_some();
    let mut out: Vec<(String, JsonValue)> = Vec::with_capacity(members.len() + 1);
    let mut notes: Vec<String> = Vec::new();
    for (k, v) in members {
        let v = match k.as_str() {
            "properties" | "$defs" | "definitions" | "patternProperties" => named(v),
            "items" | "prefixItems" | "anyOf" | "allOf" | "oneOf" | "not" => each(v),
            "additionalProperties" if matches!(v, JsonValue::Object(_)) => sub(v),
            "minItems" if !matches!(v, JsonValue::Number(n) if n == "0" || n == "1") => {
                notes.push(format!("{k}: {}", v.to_json()));
                continue;
            }
            key if ANTHROPIC_NOTED.contains(&key) => {
                notes.push(format!("{k}: {}", v.to_json()));
                continue;
            }
            _ => v.clone(),
        };
        out.push((k.clone(), v));
    }
    if !notes.is_empty() {
        let note = format!("({})", notes.join(", "));
        match out.iter_mut().find(|(k, _)| k == "description") {
            Some((_, JsonValue::String(d))) if !d.trim().is_empty() => {
                d.push(' ');
                d.push_str(&note);
            }
            Some((_, d)) => *d = JsonValue::String(note),
            None => out.push(("description".into(), JsonValue::String(note))),
        }
    }
    if object && schema.get("additionalProperties").is_none() {
        out.push(("additionalProperties".into(), JsonValue::Bool(false)));
    }
    JsonValue::Object(out)
}

/// `schema` that also takes `null`.
fn nullable(schema: JsonValue) -> JsonValue {
    let null = || JsonValue::String("null".into());
    let JsonValue::Object(mut m) = schema else { return schema };
    let has = |m: &[(String, JsonValue)], key: &str| m.iter().position(|(k, _)| k == key);
    if has(&m, "const").is_none() && has(&m, "$ref").is_none() {
        if let Some(t) = has(&m, "type") {
            let ty = match std::mem::replace(&mut m[t].1, JsonValue::Null) {
                JsonValue::String(s) if s == "null" => JsonValue::String(s),
                JsonValue::String(s) => JsonValue::Array(vec![JsonValue::String(s), null()]),
                JsonValue::Array(mut a) => {
                    if !a.iter().any(|x| x.as_str() == Some("null")) {
                        a.push(null());
                    }
                    JsonValue::Array(a)
                }
                other => other,
            };
            m[t].1 = ty;
            if let Some(e) = has(&m, "enum") {
                if let JsonValue::Array(values) = &mut m[e].1 {
                    if !values.contains(&JsonValue::Null) {
                        values.push(JsonValue::Null);
                    }
                }
            }
            return JsonValue::Object(m);
        }
        if let Some(a) = has(&m, "anyOf") {
            if let JsonValue::Array(options) = &mut m[a].1 {
                let null_option = JsonValue::Object(vec![("type".into(), null())]);
                if !options.contains(&null_option) {
                    options.push(null_option);
                }
            }
            return JsonValue::Object(m);
        }
    }
    // A `$ref`, a `const` or a schema without a type: one of it, or null. Annotations stay
    // outside.
    let (notes, inner): (Vec<_>, Vec<_>) = m.into_iter().partition(|(k, _)| k == "description" || k == "title");
    let mut out = notes;
    out.push((
        "anyOf".into(),
        JsonValue::Array(vec![JsonValue::Object(inner), JsonValue::Object(vec![("type".into(), null())])]),
    ));
    JsonValue::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_strict;

    fn strict(s: &str) -> Option<String> {
        openai_strict(&parse_strict(s.as_bytes()).unwrap()).map(|v| v.to_json())
    }

    #[test]
    fn optional_properties_become_required_and_nullable() {
        assert_eq!(
            strict(r##"{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","enum":[1,2]},"c":{"$ref":"#/$defs/C","description":"d"}},"required":["a"],"$defs":{"C":{"type":"object","properties":{"x":{"type":"array","items":{"type":"string"}}}}}}"##).unwrap(),
            r##"{"type":"object","$defs":{"C":{"type":"object","properties":{"x":{"type":["array","null"],"items":{"type":"string"}}},"required":["x"],"additionalProperties":false}},"properties":{"a":{"type":"string"},"b":{"type":["integer","null"],"enum":[1,2,null]},"c":{"description":"d","anyOf":[{"$ref":"#/$defs/C"},{"type":"null"}]}},"required":["a","b","c"],"additionalProperties":false}"##
        );
    }

    fn anthropic(s: &str) -> String {
        anthropic_output_schema(&parse_strict(s.as_bytes()).unwrap()).to_json()
    }

    #[test]
    fn anthropic_objects_closed_and_unsupported_constraints_noted() {
        assert_eq!(
            anthropic(
                r##"{"type":"object","properties":{"city":{"type":"string","maxLength":20},"n":{"type":"integer","description":"How many.","minimum":1,"maximum":5},"tags":{"type":"array","items":{"type":"object","properties":{"t":{"type":"string"}}},"minItems":1,"maxItems":3},"map":{"type":"object","additionalProperties":{"type":"object","properties":{}}},"open":{"type":"object","additionalProperties":true},"ref":{"$ref":"#/$defs/R"}},"required":["city"],"$defs":{"R":{"type":"object","properties":{"x":{"anyOf":[{"type":"object"},{"type":"null"}]}}}}}"##
            ),
            r##"{"type":"object","properties":{"city":{"type":"string","description":"(maxLength: 20)"},"n":{"type":"integer","description":"How many. (minimum: 1, maximum: 5)"},"tags":{"type":"array","items":{"type":"object","properties":{"t":{"type":"string"}},"additionalProperties":false},"minItems":1,"description":"(maxItems: 3)"},"map":{"type":"object","additionalProperties":{"type":"object","properties":{},"additionalProperties":false}},"open":{"type":"object","additionalProperties":true},"ref":{"$ref":"#/$defs/R"}},"required":["city"],"$defs":{"R":{"type":"object","properties":{"x":{"anyOf":[{"type":"object","additionalProperties":false},{"type":"null"}]}},"additionalProperties":false}},"additionalProperties":false}"##
        );
        assert_eq!(anthropic(r#"{"type":"array","minItems":2}"#), r#"{"type":"array","description":"(minItems: 2)"}"#);
        assert_eq!(anthropic(r#"true"#), "true");
    }

    #[test]
    fn what_cannot_be_exact_is_refused() {
        for s in [
            r#"{"type":"array","items":{"type":"string"}}"#,
            r#"{"type":"object","properties":{"tags":{"type":"array"}}}"#,
            r#"{"type":"object","properties":{"tags":{"type":["array","null"]}}}"#,
            r#"{"type":"object","additionalProperties":{"type":"string"}}"#,
            r#"{"type":"object","properties":{"a":{"allOf":[{"type":"string"}]}}}"#,
            r#"{"type":"object","properties":{"a":{}}}"#,
            r#"{"type":"object","properties":{"a":true}}"#,
            r#"{"type":"object","patternProperties":{"^x":{"type":"string"}}}"#,
            r#"{"anyOf":[{"type":"object"}]}"#,
        ] {
            assert_eq!(strict(s), None, "{s}");
        }
        assert!(strict(r#"{"type":"object","additionalProperties":false,"$schema":"x","properties":{}}"#).is_some());
    }
}
