//! Tool metadata: the compact records of the tool registry.

use super::requirements::string_list;
use crate::json::JsonValue;
use crate::{Error, ErrorKind, Result};

/// One tool of the catalog.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tool {
    /// Unique name (what plan steps call).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Capabilities (as written; the capability map canonicalises them).
    pub capabilities: Vec<String>,
    /// Input kinds (`df`, …).
    pub inputs: Vec<String>,
    /// Parameter names.
    pub params: Vec<String>,
    /// Output kinds (`df`, `chart`, …).
    pub outputs: Vec<String>,
    /// The precomputed embedding of the tool document, if any.
    pub embedding: Option<Vec<f32>>,
}

/// The most tools a catalog may hold.
pub const MAX_TOOLS: usize = 1 << 20;

fn bad(msg: impl Into<String>) -> Error {
    Error::new(ErrorKind::InvalidInput, msg)
}

impl Tool {
    /// Reads `{ name, description?, capabilities?, inputs?, params?, outputs?, embedding? }`;
    /// `params` may also be an object (its keys are the names).
    ///
    /// # Errors
    /// `invalid_input` (with the path `at`) for a missing name or a malformed field.
    pub fn from_json(value: &JsonValue, at: &str) -> Result<Tool> {
        let JsonValue::Object(members) = value else {
            return Err(bad(format!("{at} must be a tool object")));
        };
        let mut t = Tool::default();
        for (k, v) in members {
            let list = || string_list(v).ok_or_else(|| bad(format!("{at}.{k} must be an array of strings")));
            match k.as_str() {
                "name" => t.name = v.as_str().map(|s| s.trim().to_string()).unwrap_or_default(),
                "description" => match v {
                    JsonValue::String(s) => t.description = s.clone(),
                    JsonValue::Null => {}
                    _ => return Err(bad(format!("{at}.description must be a string"))),
                },
                "capabilities" => t.capabilities = list()?,
                "inputs" => t.inputs = list()?,
                "outputs" => t.outputs = list()?,
                "params" => {
                    t.params = match v {
                        JsonValue::Object(m) => m.iter().map(|(k, _)| k.clone()).collect(),
                        _ => list()?,
                    }
                }
                "embedding" => t.embedding = embedding(v, &format!("{at}.embedding"))?,
                _ => {} // other metadata is kept by the caller, not needed here
            }
        }
        if t.name.is_empty() {
            return Err(bad(format!("{at}.name must be a non-empty string")));
        }
        Ok(t)
    }

    /// The JSON form (without the embedding).
    pub fn to_json_value(&self) -> JsonValue {
        let list = JsonValue::strings::<String>;
        JsonValue::Object(vec![
            ("name".into(), JsonValue::String(self.name.clone())),
            ("description".into(), JsonValue::String(self.description.clone())),
            ("capabilities".into(), list(&self.capabilities)),
            ("inputs".into(), list(&self.inputs)),
            ("params".into(), list(&self.params)),
            ("outputs".into(), list(&self.outputs)),
        ])
    }

    /// The compact document that is embedded and searched: name, description, capabilities,
    /// params, outputs.
    pub fn document(&self) -> String {
        format!(
            "{}: {} Capabilities: {}. Params: {}. Outputs: {}.",
            self.name.replace('_', " "),
            self.description,
            self.capabilities.join(", ").replace('_', " "),
            self.params.join(", "),
            self.outputs.join(", ")
        )
    }
}

fn embedding(v: &JsonValue, at: &str) -> Result<Option<Vec<f32>>> {
    match v {
        JsonValue::Null => Ok(None),
        JsonValue::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for x in items {
                let JsonValue::Number(n) = x else {
                    return Err(bad(format!("{at} must be an array of numbers")));
                };
                // Read as f64, then rounded to f32 (the float code is shared with the rest).
                match crate::num::parse_f64(n).map(|f| f as f32).filter(|f| f.is_finite()) {
                    Some(f) => out.push(f),
                    None => return Err(bad(format!("{at}: {n} is not a finite 32-bit float"))),
                }
            }
            Ok(Some(out))
        }
        _ => Err(bad(format!("{at} must be an array of numbers"))),
    }
}

/// Reads a catalog: an array of tools, or `{ tools: [...] }`. Names must be unique.
///
/// # Errors
/// `invalid_input` for a malformed tool, a duplicate name or more than [`MAX_TOOLS`] tools.
pub fn parse_catalog(value: &JsonValue) -> Result<Vec<Tool>> {
    let items = match value {
        JsonValue::Array(items) => items,
        JsonValue::Object(_) => match value.get("tools") {
            Some(JsonValue::Array(items)) => items,
            _ => return Err(bad("a catalog must be an array of tools or { tools: [...] }")),
        },
        _ => return Err(bad("a catalog must be an array of tools or { tools: [...] }")),
    };
    if items.len() > MAX_TOOLS {
        return Err(bad(format!("a catalog holds at most {MAX_TOOLS} tools")));
    }
    // Plain loops rather than `collect::<Result<_>>()` here and below: smaller in the `.wasm`.
    let mut tools = Vec::with_capacity(items.len());
    for (i, t) in items.iter().enumerate() {
        tools.push(Tool::from_json(t, &format!("tools[{i}]"))?);
    }
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    crate::sort::sort_by(&mut names, |a, b| a < b);
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(bad(format!("duplicate tool name \"{}\"", w[0])));
    }
    Ok(tools)
}
