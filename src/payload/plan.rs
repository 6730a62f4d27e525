//! The artifact plan of a tool schema: the schema walk of `schema.rs` computed once for every
//! place an observation can reach, so that a binding can walk an observation it holds in its
//! own form (a JS object) without handing it over as JSON text.
//!
//! A state is one expansion ([`SchemaDoc::root`], [`SchemaDoc::property`],
//! [`SchemaDoc::item`]): its marks and, unless it is an artifact (whose value is not walked
//! into; the root state always is walked), where each member or element goes. An object
//! member goes by its key to the state of a key some node declares, else to the state of an
//! undeclared key (the same for every such key); an array element by its index to the state
//! of that `prefixItems` index, else to the state past every prefix. So the walk of
//! `schema.rs` over any observation visits exactly the states of the plan, in the same way.
//!
//! The plan is JSON text, one array per state, the root first:
//! `[flags, stream_id, [key, ...], [target, ...], undeclared, [prefix target, ...], rest]`,
//! flags 1 for an artifact and 2 for a streamed one, `stream_id` a string or null. A target
//! is a state's index, -1 where the schema says nothing (the value passes unchanged), or -2
//! where the expansion is `schema_too_complex` (the walk must report that error, so the
//! binding hands such an observation to the text walk). Bounded: a schema whose plan has more
//! than `MAX_STATES` states or `MAX_EDGES` targets has none (`None`), nor has one that is not
//! a schema or whose root is too complex; the binding then walks JSON text as before.

use super::schema::SchemaDoc;
use crate::json::{write_json_string, JsonValue};
use crate::Result;

/// Most states of a plan.
const MAX_STATES: usize = 512;
/// Most targets (keys and prefix indices) of a plan.
const MAX_EDGES: usize = 8192;

/// The plan of `schema` as JSON text, or `None` (see the module's comment).
pub(crate) fn artifact_plan(schema: &JsonValue) -> Option<String> {
    let doc = SchemaDoc::new(schema).ok()?;
    let mut plan = Plan { states: Vec::new(), edges: 0 };
    plan.target(doc.root())?;
    let mut out = String::from("[");
    let mut i = 0;
    while let Some(nodes) = plan.states.get(i).cloned() {
        let marks = SchemaDoc::marks(&nodes);
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        out.push(match (marks.artifact, marks.stream) {
            (false, false) => '0',
            (true, false) => '1',
            (false, true) => '2',
            (true, true) => '3',
        });
        out.push(',');
        match marks.stream_id {
            Some(id) => write_json_string(id, &mut out),
            None => out.push_str("null"),
        }
        if marks.artifact && i > 0 {
            out.push_str(",[],[],-1,[],-1]");
        } else {
            plan.transitions(&doc, &nodes, &mut out)?;
        }
        i += 1;
    }
    out.push(']');
    Some(out)
}

struct Plan<'a> {
    /// The states' nodes, in expansion order (marks read the first `stream_id`): two
    /// expansions are one state when they hold the same nodes in the same order.
    states: Vec<Vec<&'a JsonValue>>,
    edges: usize,
}

impl<'a> Plan<'a> {
    /// The target of an expansion; `None` past the bounds. A linear search: at most
    /// `MAX_STATES` states, and no hash table of node lists to link.
    fn target(&mut self, expansion: Result<Vec<&'a JsonValue>>) -> Option<isize> {
        self.edges += 1;
        if self.edges > MAX_EDGES {
            return None;
        }
        let nodes = match expansion {
            Err(_) => return Some(-2),
            Ok(nodes) if nodes.is_empty() => return Some(-1),
            Ok(nodes) => nodes,
        };
        let same = |s: &Vec<&JsonValue>| s.len() == nodes.len() && s.iter().zip(&nodes).all(|(a, b)| std::ptr::eq(*a, *b));
        if let Some(id) = self.states.iter().position(same) {
            return Some(id as isize);
        }
        if self.states.len() >= MAX_STATES {
            return None;
        }
        self.states.push(nodes);
        Some(self.states.len() as isize - 1)
    }

    /// Writes `,[keys],[targets],undeclared,[prefix],rest]` of a walked state.
    fn transitions(&mut self, doc: &SchemaDoc<'a>, nodes: &[&'a JsonValue], out: &mut String) -> Option<()> {
        // A key two nodes declare is listed twice, with the same target both times.
        let mut keys: Vec<&'a str> = Vec::new();
        let mut prefix = 0;
        for n in nodes {
            if let Some(JsonValue::Object(props)) = n.get("properties") {
                keys.extend(props.iter().map(|(k, _)| k.as_str()));
            }
            for key in ["prefixItems", "items"] {
                if let Some(JsonValue::Array(p)) = n.get(key) {
                    prefix = prefix.max(p.len());
                }
            }
        }
        out.push_str(",[");
        for (i, k) in keys.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_json_string(k, out);
        }
        out.push_str("],[");
        for (i, k) in keys.iter().enumerate() {
            let t = self.target(doc.property(nodes, k))?;
            push_target(out, i, t);
        }
        let t = self.target(doc.undeclared(nodes))?;
        out.push_str("],");
        push_target(out, 0, t);
        out.push_str(",[");
        for i in 0..prefix {
            let t = self.target(doc.item(nodes, i))?;
            push_target(out, i, t);
        }
        let t = self.target(doc.item(nodes, prefix))?;
        out.push_str("],");
        push_target(out, 0, t);
        out.push(']');
        Some(())
    }
}

fn push_target(out: &mut String, i: usize, t: isize) {
    if i > 0 {
        out.push(',');
    }
    match t {
        -2 => out.push_str("-2"),
        -1 => out.push_str("-1"),
        _ => out.push_str(&t.unsigned_abs().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::artifact_plan;

    fn plan(schema: &str) -> Option<String> {
        artifact_plan(&crate::parse_strict(schema.as_bytes()).unwrap())
    }

    #[test]
    fn states_marks_and_targets() {
        let schema = r##"{"type":"object","properties":{"a":{"artifact":true,"stream_id":"s"},
            "b":{"$ref":"#/$defs/B"},"r":{"$ref":"#"}},"additionalProperties":{"type":"string"},
            "$defs":{"B":{"type":"array","prefixItems":[{"artifact":true}],"items":{"type":"string"}}}}"##;
        assert_eq!(
            plan(schema).unwrap(),
            // `r` is its own state: the `$ref` node, then the root (the same marks and targets).
            r#"[[0,null,["a","b","r"],[1,2,3],4,[],-1],[3,"s",[],[],-1,[],-1],[0,null,[],[],-1,[5],6],[0,null,["a","b","r"],[1,2,3],4,[],-1],[0,null,[],[],-1,[],-1],[1,null,[],[],-1,[],-1],[0,null,[],[],-1,[],-1]]"#
        );
    }

    #[test]
    fn too_complex_is_a_target_and_no_schema_no_plan() {
        let wide: Vec<String> = (0..1100).map(|i| format!(r#"{{"title":"m{i}"}}"#)).collect();
        let schema = format!(r#"{{"properties":{{"x":{{"anyOf":[{}]}},"a":{{"artifact":1}}}}}}"#, wide.join(","));
        assert!(plan(&schema).unwrap().starts_with(r#"[[0,null,["x","a"],[-2,1],-1,[],-1]"#));
        assert_eq!(plan("5"), None);
        assert_eq!(plan("true").unwrap(), "[[0,null,[],[],-1,[],-1]]");
    }
}
