//! The planning checks (src/plan) on arbitrary JSON, and the tool index on arbitrary floats.
//!
//! The input is JSON text (lossily decoded); when it parses, the value is used in every role:
//! requirements, labels, capability map, catalog, plan, repair sides. Never a panic, and:
//! validated requirements validate again to themselves; a loaded map round-trips through its
//! JSON form; a repair that changes nothing is safe; the coverage report is consistent (`ok`
//! exactly when nothing is missing or unjustified, positions in range, removals leave a plan
//! with no unjustified positions). Then the raw bytes, read as little-endian f32s, become a
//! small embedding matrix and a query: search never panics, returns at most n hits sorted by
//! score then name, and agrees with a scalar brute force on the best score.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::parse_strict;
use streamroute::plan::*;

fn json_roles(v: &streamroute::JsonValue) {
    let labels = RequirementLabels::default();
    if let Ok(r) = validate_requirements(v, &labels) {
        let again = validate_requirements(&r.to_json_value(), &labels).expect("normalised requirements validate");
        assert_eq!(again, r);
    }
    if let Err(e) = validate_requirements(v, &labels) {
        assert!(!e.issues.is_empty());
        assert_eq!(e.error().code(), "requirements_invalid");
        let _ = reextraction_message(&e.issues);
    }
    if let Ok(l) = RequirementLabels::from_json(v) {
        let _ = labels.extend(&l);
    }
    if let Ok(m) = CapabilityMap::from_json(v) {
        let back = CapabilityMap::from_json(&m.to_json_value()).expect("a loaded map reloads");
        assert_eq!(back.rules(), m.rules());
    }
    assert_eq!(classify_repair(v, v, &[]).ok().map(|c| c.as_str()).unwrap_or("safe"), "safe");
    let map = CapabilityMap::default();
    let tools = parse_catalog(v).unwrap_or_default();
    let index = ToolIndex::new(tools, None, None).or_else(|_| ToolIndex::new(vec![], None, None));
    let (Ok(index), Ok(req)) =
        (index, Requirements::from_json(v).or_else(|_| Requirements::from_json(&parse_strict(b"{}").unwrap())))
    else {
        return;
    };
    let _ = index.search_text(&v.to_json(), 8);
    let narrowed = narrow_tools(&index, &req, &[], None, None, None, &NarrowOptions::default());
    assert!(narrowed.tools.len() <= narrowed.cap.max(DEFAULT_SAFETY_SET.len()));
    if let Ok(plan) = Plan::from_json(v) {
        let report = check_coverage(&req, &plan, &map, &index);
        assert_eq!(report.ok, report.missing.is_empty() && report.unjustified.is_empty());
        assert_eq!(report.unjustified.len(), report.unjustified_steps.len());
        assert!(report.unjustified_steps.iter().all(|&i| i < plan.steps.len()));
        let fixed = apply_removals(v, Some(&report.unjustified_steps), &report.unjustified).expect("a plan");
        let fixed = Plan::from_json(&fixed).expect("still a plan");
        assert_eq!(fixed.steps.len(), plan.steps.len() - report.unjustified_steps.len());
        let again = check_coverage(&req, &fixed, &map, &index);
        assert!(again.unjustified.is_empty(), "{again:?}");
    }
}

fn vectors(data: &[u8]) {
    let Some((&head, rest)) = data.split_first() else { return };
    let dim = 1 + usize::from(head % 16);
    let floats: Vec<f32> = rest
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .map(|x| if x.is_finite() { x.clamp(-1e6, 1e6) } else { 0.0 })
        .collect();
    if floats.len() < 2 * dim {
        return;
    }
    let (query, matrix) = floats.split_at(dim);
    let n = matrix.len() / dim;
    let tools: Vec<Tool> = (0..n).map(|i| Tool { name: format!("t{:03}", (i * 7) % 1000 + i), ..Tool::default() }).collect();
    let model = EmbeddingModel { model_id: "fuzz".into(), dim, pooling: "mean".into() };
    let Ok(index) = ToolIndex::new(tools, Some(model), Some(matrix[..n * dim].to_vec())) else { return };
    let hits = index.search(query, 5).expect("a finite query of the right length");
    assert!(hits.len() <= 5.min(n));
    for w in hits.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        let (na, nb) = (&index.tool(a.index).unwrap().name, &index.tool(b.index).unwrap().name);
        assert!(a.score > b.score || (a.score == b.score && na < nb));
    }
    let r = index.retrieve(&Query { vectors: query, model_id: Some("fuzz"), dim: None, texts: &[], mode: Mode::Hybrid, n: 3 });
    assert_eq!(r.method, Method::Hybrid);
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(v) = parse_strict(text.as_bytes()) {
        json_roles(&v);
    }
    vectors(data);
});
