//! Loading the planning fixtures of tests/planning/ (shared by tests/planning.rs).
#![allow(dead_code)]

use streamroute::plan::{parse_catalog, EmbeddingModel, Requirements, Tool, ToolIndex};
use streamroute::{parse_strict, JsonValue};

pub fn load(name: &str) -> JsonValue {
    let path = format!("{}/tests/planning/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_strict(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

pub fn json(text: &str) -> JsonValue {
    parse_strict(text.as_bytes()).unwrap_or_else(|e| panic!("{e}: {text}"))
}

pub fn floats(v: &JsonValue) -> Vec<f32> {
    match v {
        JsonValue::Array(items) => items
            .iter()
            .map(|x| match x {
                JsonValue::Number(n) => n.parse().unwrap(),
                _ => panic!("not a number"),
            })
            .collect(),
        _ => panic!("not an array"),
    }
}

pub fn strings(v: &JsonValue) -> Vec<String> {
    match v {
        JsonValue::Array(items) => items.iter().map(|x| x.as_str().unwrap().to_string()).collect(),
        _ => panic!("not an array"),
    }
}

pub fn items(v: &JsonValue) -> &[JsonValue] {
    match v {
        JsonValue::Array(items) => items,
        _ => panic!("not an array"),
    }
}

pub struct Fixtures {
    pub tools: Vec<Tool>,
    pub model: EmbeddingModel,
    pub embeddings: Vec<f32>,
    /// (question, relevant tools, embedding)
    pub questions: Vec<(String, Vec<String>, Vec<f32>)>,
    pub walkthrough: JsonValue,
    /// (query text, embedding)
    pub queries: Vec<(String, Vec<f32>)>,
}

impl Fixtures {
    pub fn load() -> Fixtures {
        let tools = parse_catalog(&load("catalog.json")).unwrap();
        let emb = load("embeddings.json");
        let num = |k: &str| {
            emb.get(k).and_then(|v| match v {
                JsonValue::Number(n) => n.parse::<usize>().ok(),
                _ => None,
            })
        };
        let model = EmbeddingModel {
            model_id: emb.get("model_id").unwrap().as_str().unwrap().into(),
            dim: num("dim").unwrap(),
            pooling: emb.get("pooling").unwrap().as_str().unwrap().into(),
        };
        let mut embeddings = Vec::new();
        for (t, e) in tools.iter().zip(items(emb.get("tools").unwrap())) {
            assert_eq!(e.get("name").unwrap().as_str(), Some(t.name.as_str()));
            assert_eq!(
                e.get("document").unwrap().as_str(),
                Some(t.document().as_str()),
                "Tool::document drifted from the script"
            );
            embeddings.extend(floats(e.get("embedding").unwrap()));
        }
        let questions = items(emb.get("questions").unwrap())
            .iter()
            .map(|q| {
                (
                    q.get("q").unwrap().as_str().unwrap().to_string(),
                    strings(q.get("relevant").unwrap()),
                    floats(q.get("embedding").unwrap()),
                )
            })
            .collect();
        let queries = items(emb.get("walkthrough_queries").unwrap())
            .iter()
            .map(|q| (q.get("text").unwrap().as_str().unwrap().to_string(), floats(q.get("embedding").unwrap())))
            .collect();
        Fixtures { tools, model, embeddings, questions, walkthrough: load("walkthrough.json"), queries }
    }

    pub fn index(&self) -> ToolIndex {
        ToolIndex::new(self.tools.clone(), Some(self.model.clone()), Some(self.embeddings.clone())).unwrap()
    }

    pub fn requirements(&self) -> Requirements {
        Requirements::from_json(self.walkthrough.get("requirements").unwrap()).unwrap()
    }

    pub fn query_vectors(&self) -> Vec<f32> {
        self.queries.iter().flat_map(|(_, v)| v.iter().copied()).collect()
    }
}
