//! Planning checks (src/plan): requirements, capability map, tool index, narrowing, coverage,
//! repairs; the design's walkthrough end to end on embeddings from a real model.

#[path = "common/planning.rs"]
mod fx;

use fx::{json, Fixtures};
use streamroute::plan::*;

#[test]
fn explore() {
    let f = Fixtures::load();
    let idx = f.index();
    let req = f.requirements();
    let opts = NarrowOptions { template: fx::strings(f.walkthrough.get("template").unwrap().get("tools").unwrap()), ..Default::default() };
    for n in [4, 6, 8, 10] {
        let r = narrow_tools(&idx, &req, &f.query_vectors(), Some(&f.model.model_id), None, &NarrowOptions { n: Some(n), ..opts.clone() });
        println!("n={n} {:?}", r.tools.iter().map(|t| (t.name.as_str(), t.reason.as_str(), t.score)).collect::<Vec<_>>());
        let r = narrow_tools(&idx, &req, &[], None, None, &NarrowOptions { n: Some(n), ..opts.clone() });
        println!("bm25 n={n} {:?}", r.tools.iter().map(|t| (t.name.as_str(), t.reason.as_str())).collect::<Vec<_>>());
    }
    for (i, (t, v)) in f.queries.iter().enumerate() {
        let hits = idx.search(v, 5).unwrap();
        println!("{i} {t}: {:?}", hits.iter().map(|h| (idx.tool(h.index).unwrap().name.as_str(), h.score)).collect::<Vec<_>>());
    }
    for mode in [Mode::Cosine, Mode::Bm25, Mode::Hybrid] {
        let mut sum = 0.0;
        for (q, rel, v) in &f.questions {
            let r = idx.retrieve(&Query { vectors: v, model_id: None, dim: None, texts: &[q.clone()], mode, n: 8 });
            let names: Vec<&str> = r.hits.iter().map(|h| idx.tool(h.index).unwrap().name.as_str()).collect();
            let found = rel.iter().filter(|x| names.contains(&x.as_str())).count();
            sum += found as f64 / rel.len() as f64;
        }
        println!("{mode:?} recall@8 {:.3}", sum / f.questions.len() as f64);
    }
}
