//! Planning checks (src/plan): requirements, capability map, tool index, narrowing, coverage,
//! repairs; the design's walkthrough (shared/spec/planning-pipeline.md) end to end, on
//! embeddings made by a real model (tests/planning/embeddings.json, scripts/embed-fixtures.py).

#[path = "common/planning.rs"]
mod fx;

use fx::{json, strings, Fixtures};
use streamroute::plan::*;
use streamroute::JsonValue;

fn names(n: &Narrowed) -> Vec<&str> {
    n.tools.iter().map(|t| t.name.as_str()).collect()
}

fn reasons(n: &Narrowed) -> Vec<(&str, &str)> {
    n.tools.iter().map(|t| (t.name.as_str(), t.reason.as_str())).collect()
}

fn reqs(text: &str) -> Requirements {
    Requirements::from_json(&json(text)).unwrap()
}

fn template(f: &Fixtures) -> Vec<String> {
    strings(f.walkthrough.get("template").unwrap().get("tools").unwrap())
}

fn plan(text: &str) -> Plan {
    Plan::from_json(&json(text)).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Requirements

#[test]
fn walkthrough_requirements_validate_and_normalise() {
    let f = Fixtures::load();
    let r = validate_requirements(f.walkthrough.get("requirements").unwrap(), &RequirementLabels::default()).unwrap();
    assert_eq!(r.metrics, ["revenue"]);
    assert_eq!(r.group_by, ["region", "product_category"]);
    assert_eq!(r.time, Some(TimeRequirement { column: Some("date".into()), grain: "unknown".into(), typed: false }));
    assert_eq!(r.analysis, ["total", "compare", "trend"]);
    assert_eq!(r.outputs, ["chart", "table"]);
    assert_eq!(
        r.references(),
        ["analysis.total", "analysis.compare", "analysis.trend", "outputs.chart", "outputs.table", "group_by", "time", "metrics"]
    );
    assert_eq!(
        r.to_json_value().to_json(),
        r#"{"metrics":["revenue"],"group_by":["region","product_category"],"time":{"column":"date","grain":"unknown","typed":false},"analysis":["total","compare","trend"],"outputs":["chart","table"],"constraints":[]}"#
    );
}

#[test]
fn missing_fields_are_empty_and_labels_are_normalised() {
    let r = validate_requirements(
        &json(r#"{"analysis":[" Total ","total","TREND"],"time":{"grain":"Month"}}"#),
        &RequirementLabels::default(),
    )
    .unwrap();
    assert_eq!(r.analysis, ["total", "trend"]);
    assert!(r.metrics.is_empty() && r.group_by.is_empty() && r.outputs.is_empty() && r.constraints.is_empty());
    assert_eq!(r.time, Some(TimeRequirement { column: None, grain: "month".into(), typed: false }));
    assert_eq!(r.time_column(), None);
    assert!(!r.references().contains(&"time".to_string()));
    let r = validate_requirements(&json("{}"), &RequirementLabels::default()).unwrap();
    assert_eq!(r, Requirements::default());
    let r = validate_requirements(
        &json(r#"{"metrics":null,"time":null,"constraints":["region = EMEA"]}"#),
        &RequirementLabels::default(),
    )
    .unwrap();
    assert_eq!(r.references(), ["constraints"]);
}

#[test]
fn labels_outside_the_sets_are_listed_with_paths() {
    let v = json(
        r#"{"metrics":["revenue"],"analysis":["total","forecasting","trend","seasonality"],"outputs":["dashboard"],"time":{"column":"date","grain":"biweekly"}}"#,
    );
    let err = validate_requirements(&v, &RequirementLabels::default()).unwrap_err();
    let paths: Vec<(&str, Option<&str>)> = err.issues.iter().map(|i| (i.path.as_str(), i.label.as_deref())).collect();
    assert_eq!(
        paths,
        [
            ("analysis[1]", Some("forecasting")),
            ("analysis[3]", Some("seasonality")),
            ("outputs[0]", Some("dashboard")),
            ("time.grain", Some("biweekly")),
        ]
    );
    assert_eq!(err.issues[0].allowed, RequirementLabels::default().analysis);
    assert_eq!(err.issues[2].allowed, ["chart", "table", "text"]);
    assert_eq!(err.issues[3].allowed[0], "unknown");
    let e = err.error();
    assert_eq!(e.code(), "requirements_invalid");
    assert_eq!(e.kind(), streamroute::ErrorKind::RequirementsInvalid);
    for p in ["analysis[1]", "analysis[3]", "outputs[0]", "time.grain", "\"forecasting\""] {
        assert!(e.message().contains(p), "{}", e.message());
    }
}

#[test]
fn shape_problems_are_listed_with_paths() {
    let err = validate_requirements(
        &json(r#"{"metrics":"revenue","group_by":["region",3,""],"analysis":"total","outputs":[1],"time":{"column":5,"grain":2,"typed":"yes","zone":"UTC"},"constraints":{},"extra":1}"#),
        &RequirementLabels::default(),
    )
    .unwrap_err();
    let paths: Vec<&str> = err.issues.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "metrics",
            "group_by[1]",
            "group_by[2]",
            "analysis",
            "outputs[0]",
            "time.column",
            "time.grain",
            "time.typed",
            "time.zone",
            "constraints",
            "extra"
        ]
    );
    assert!(err.issues.iter().all(|i| i.label.is_none() && !i.message.is_empty()));
    for bad in ["[]", "null", "\"x\"", "3"] {
        let err = validate_requirements(&json(bad), &RequirementLabels::default()).unwrap_err();
        assert_eq!(err.issues.len(), 1);
        assert_eq!(err.issues[0].path, "");
    }
    // The shape-only reader takes any label but not a bad shape.
    assert_eq!(reqs(r#"{"analysis":["cohort"]}"#).analysis, ["cohort"]);
    assert!(Requirements::from_json(&json(r#"{"analysis":"total"}"#)).is_err());
}

#[test]
fn callers_extend_the_label_sets() {
    let extra = RequirementLabels::from_json(&json(r#"{"analysis":["Cohort","total"],"grain":["fortnight"]}"#)).unwrap();
    let labels = RequirementLabels::default().extend(&extra);
    assert_eq!(labels.analysis.last().map(String::as_str), Some("cohort"));
    assert_eq!(labels.analysis.iter().filter(|l| *l == "total").count(), 1);
    let v = json(r#"{"analysis":["cohort"],"time":{"column":"d","grain":"fortnight"}}"#);
    assert!(validate_requirements(&v, &RequirementLabels::default()).is_err());
    let r = validate_requirements(&v, &labels).unwrap();
    assert_eq!(r.analysis, ["cohort"]);
    assert!(RequirementLabels::from_json(&json(r#"{"analysis":"x"}"#)).is_err());
    assert!(RequirementLabels::from_json(&json(r#"{"colors":[]}"#)).is_err());
    assert_eq!(RequirementLabels::from_json(&labels.to_json_value()).unwrap(), labels);
}

#[test]
fn reextraction_message_asks_for_the_allowed_labels() {
    let err = validate_requirements(
        &json(r#"{"analysis":["forecasting"],"metrics":"x","time":{"column":"d","grain":"biweekly"}}"#),
        &RequirementLabels::default(),
    )
    .unwrap_err();
    let m = reextraction_message(&err.issues);
    assert_eq!(
        m,
        "The requirements you extracted are invalid. Extract them again from the question, fixing these problems:\n\
         - analysis[0]: \"forecasting\" is not an allowed label; use one of: total, compare, trend, distribution, anomaly, correlation, ranking, forecast, summary\n\
         - metrics: must be an array of column names\n\
         - time.grain: \"biweekly\" is not an allowed label; use one of: unknown, minute, hour, day, week, month, quarter, year\n\
         Use only the allowed labels. Do not infer analysis the question does not ask for; leave a field empty (or the grain \"unknown\") when the question does not state it. Return only the JSON object."
    );
    // Issues round-trip through their JSON form (as JS hands them back).
    let back: Vec<RequirementIssue> =
        err.issues.iter().map(|i| RequirementIssue::from_json(&i.to_json_value()).unwrap()).collect();
    assert_eq!(back, err.issues);
}

// ---------------------------------------------------------------------------------------------
// Capability map

#[test]
fn default_map_is_the_designs_mapping() {
    let m = CapabilityMap::default();
    assert_eq!(m.version(), "1");
    assert!(m.warnings().is_empty());
    let caps = |r: &str| m.rule(r).unwrap().clauses.iter().map(|c| c.any_of.clone()).collect::<Vec<_>>();
    assert_eq!(caps("analysis.total"), [vec!["aggregate"]]);
    assert_eq!(caps("analysis.compare"), [vec!["aggregate", "segment"]]);
    assert_eq!(caps("analysis.trend"), [vec!["time_series_plot", "time_series_features"]]);
    assert_eq!(caps("analysis.distribution"), [vec!["distribution_plot", "distribution_stats"]]);
    assert_eq!(caps("analysis.anomaly"), [vec!["anomaly_detection"]]);
    assert_eq!(caps("outputs.chart"), [vec!["plot", "*_plot"]]);
    assert_eq!(caps("outputs.table"), [vec!["aggregate", "summary_stats"]]);
    assert_eq!(caps("group_by"), [vec!["aggregate", "segment"]]);
    assert_eq!(caps("time"), [vec!["parse_datetime"], vec!["time_series_plot", "time_series_features"]]);
    let g = &m.rule("group_by").unwrap().clauses[0];
    assert!(g.group_by_columns && g.before_plot && !g.grouping);
    assert!(m.rule("analysis.compare").unwrap().clauses[0].grouping);
    assert!(m.rule("time").unwrap().clauses[0].unless_typed);
    // Every default label has a rule.
    let (unmapped, _) = m.audit(&RequirementLabels::default(), &[]);
    assert!(unmapped.is_empty(), "{unmapped:?}");
    // Aliases and plot patterns.
    assert_eq!(m.canonical(" Time_Series "), "time_series_plot");
    assert_eq!(m.canonical("summarize"), "summary_stats");
    assert_eq!(m.canonical("aggregate"), "aggregate");
    assert!(m.is_plot("plot") && m.is_plot("bar_plot") && m.is_plot("time_series_plot"));
    assert!(!m.is_plot("_plot") && !m.is_plot("plotting") && !m.is_plot("aggregate"));
    // The JSON form loads back to the same map.
    assert_eq!(CapabilityMap::from_json(&m.to_json_value()).unwrap(), m);
    assert_eq!(CapabilityMap::from_json(&json(DEFAULT_CAPABILITY_MAP)).unwrap(), m);
}

#[test]
fn loaded_maps_are_versioned_many_to_many_with_aliases_and_a_core_set() {
    let m = CapabilityMap::from_json(&json(
        r#"{"version":2,"requirements":{"analysis.cohort":["cohort","retention"],"analysis.total":["sum_up"]},"aliases":{"rollup":"sum_up","sum_up":"aggregate_v2"}}"#,
    ))
    .unwrap();
    assert_eq!(m.version(), "2");
    assert_eq!(m.rule("analysis.cohort").unwrap().clauses[0].any_of, ["cohort", "retention"]);
    // Aliases chain; patterns are matched after canonicalisation of both sides.
    assert_eq!(m.canonical("rollup"), "aggregate_v2");
    assert!(m.matches(&m.rule("analysis.total").unwrap().clauses[0].any_of, &m.canonical("rollup")));
    // The core rules it lacks come from the built-in map, with a warning each.
    for r in CORE_REFERENCES.iter().filter(|r| **r != "analysis.total") {
        assert!(m.rule(r).is_some(), "{r}");
        assert!(m.warnings().iter().any(|w| w.contains(r)), "{r}");
    }
    assert_eq!(m.warnings().len(), CORE_REFERENCES.len() - 1);
    assert!(m.rule("analysis.anomaly").is_none());
    // Alias loops end.
    let m = CapabilityMap::from_json(&json(r#"{"version":"x","aliases":{"a":"b","b":"a"}}"#)).unwrap();
    let _ = m.canonical("a");
    // A repeated alias (built by hand: parsing keeps only the first) keeps its first place and
    // takes its last capability, also across two `aliases` members.
    let s = |x: &str| JsonValue::String(x.into());
    let hand = JsonValue::Object(vec![
        ("version".into(), s("3")),
        ("aliases".into(), JsonValue::Object(vec![("Zed".into(), s("x")), ("b".into(), s("B_Cap")), (" zed ".into(), s("y"))])),
        ("aliases".into(), JsonValue::Object(vec![("c".into(), s("d")), ("B".into(), s("e"))])),
    ]);
    let m = CapabilityMap::from_json(&hand).unwrap();
    assert_eq!([m.canonical("ZED"), m.canonical("b"), m.canonical("c"), m.canonical("zz")], ["y", "e", "d", "zz"]);
    let written = m.to_json_value().get("aliases").unwrap().to_json();
    assert_eq!(written, r#"{"zed":"y","b":"e","c":"d"}"#);
    for bad in [
        r#"{"requirements":{}}"#,
        r#"{"version":""}"#,
        r#"{"version":"1","requirements":{"analysis.total":[]}}"#,
        r#"{"version":"1","requirements":{"analysis.total":"aggregate"}}"#,
        r#"{"version":"1","requirements":{"analysis.total":[{"any_of":[]}]}}"#,
        r#"{"version":"1","requirements":{"analysis.total":[{"any_of":["a"],"maybe":true}]}}"#,
        r#"{"version":"1","requirements":{"analysis.total":[{"any_of":["a"],"grouping":"yes"}]}}"#,
        r#"{"version":"1","aliases":{"a":1}}"#,
        r#"{"version":"1","colour":1}"#,
        "[]",
    ] {
        let e = CapabilityMap::from_json(&json(bad)).unwrap_err();
        assert_eq!(e.code(), "invalid_input", "{bad}");
    }
}

#[test]
fn audit_flags_unmapped_labels_and_unknown_capabilities() {
    let f = Fixtures::load();
    let m = CapabilityMap::default();
    let labels = RequirementLabels::default().extend(&RequirementLabels {
        analysis: vec!["cohort".into()],
        outputs: vec![],
        grain: vec![],
    });
    let (unmapped, unknown) = m.audit(&labels, &f.tools);
    assert_eq!(unmapped, ["analysis.cohort"]);
    for c in ["cohort", "join", "clean", "regression"] {
        assert!(unknown.contains(&c.to_string()), "{c}: {unknown:?}");
    }
    for c in ["aggregate", "plot", "bar_plot", "summary_stats", "anomaly_detection", "time_series_plot"] {
        assert!(!unknown.contains(&c.to_string()), "{c}");
    }
}

// ---------------------------------------------------------------------------------------------
// Tool index

fn brute_force(index: &ToolIndex, q: &[f32], n: usize) -> Vec<(String, f32)> {
    let mut qn = q.to_vec();
    l2_normalize(&mut qn);
    let dim = q.len();
    let mut all: Vec<(String, f32)> = index
        .tools()
        .iter()
        .zip(index.vectors().chunks(dim))
        .map(|(t, v)| (t.name.clone(), qn.iter().zip(v).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum::<f64>() as f32))
        .collect();
    all.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap().then(a.0.cmp(&b.0)));
    all.truncate(n);
    all
}

#[test]
fn exact_search_matches_brute_force_on_every_fixture_question() {
    let f = Fixtures::load();
    let index = f.index();
    assert_eq!(index.model().unwrap().dim, 384);
    assert_eq!(index.model().unwrap().model_id, "sentence-transformers/all-MiniLM-L6-v2");
    // Normalised on load.
    for row in index.vectors().chunks(384) {
        let norm: f32 = row.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5, "{norm}");
    }
    for (q, _, v) in &f.questions {
        let hits = index.search(v, 8).unwrap();
        let want = brute_force(&index, v, 8);
        let got: Vec<&str> = hits.iter().map(|h| index.tool(h.index).unwrap().name.as_str()).collect();
        let want_names: Vec<&str> = want.iter().map(|w| w.0.as_str()).collect();
        assert_eq!(got, want_names, "{q}");
        for (h, w) in hits.iter().zip(&want) {
            assert!((h.score as f32 - w.1).abs() < 1e-5);
        }
        for pair in hits.windows(2) {
            assert!(pair[0].score >= pair[1].score);
        }
        // A scaled query gives the same result (the query is normalised too).
        let scaled: Vec<f32> = v.iter().map(|x| x * 7.5).collect();
        let again: Vec<usize> = index.search(&scaled, 8).unwrap().iter().map(|h| h.index).collect();
        assert_eq!(again, hits.iter().map(|h| h.index).collect::<Vec<_>>(), "{q}");
    }
    assert!(index.search(&f.questions[0].2, 0).unwrap().is_empty());
    assert_eq!(index.search(&f.questions[0].2, 1000).unwrap().len(), f.tools.len());
}

fn tool(name: &str, caps: &[&str]) -> Tool {
    Tool { name: name.into(), capabilities: caps.iter().map(|c| c.to_string()).collect(), ..Tool::default() }
}

fn model(dim: usize) -> Option<EmbeddingModel> {
    Some(EmbeddingModel { model_id: "m".into(), dim, pooling: "mean".into() })
}

#[test]
fn ties_break_by_tool_name_whatever_the_catalog_order() {
    // Four tools with the same direction (different lengths): equal cosine.
    let names = ["zeta", "alpha", "mid", "beta"];
    let tools: Vec<Tool> = names.iter().map(|n| tool(n, &[])).collect();
    let v: Vec<f32> = [1.0, 2.0, 0.5, 3.0].iter().flat_map(|s| [*s, *s * 2.0, 0.0]).collect();
    let index = ToolIndex::new(tools.clone(), model(3), Some(v.clone())).unwrap();
    let hits = index.search(&[1.0, 2.0, 0.0], 3).unwrap();
    let got: Vec<&str> = hits.iter().map(|h| index.tool(h.index).unwrap().name.as_str()).collect();
    assert_eq!(got, ["alpha", "beta", "mid"]);
    assert!(hits.iter().all(|h| h.score == hits[0].score));
    // Reversed catalog: same answer.
    let mut rev = tools;
    rev.reverse();
    let rv: Vec<f32> = v.chunks(3).rev().flatten().copied().collect();
    let index = ToolIndex::new(rev, model(3), Some(rv)).unwrap();
    let got: Vec<String> =
        index.search(&[1.0, 2.0, 0.0], 3).unwrap().iter().map(|h| index.tool(h.index).unwrap().name.clone()).collect();
    assert_eq!(got, ["alpha", "beta", "mid"]);
}

#[test]
fn position_finds_every_tool_by_name_and_duplicates_are_refused() {
    // Names in a scrambled order, with prefixes of each other and non-ASCII bytes.
    let names: Vec<String> =
        (0..200u32).map(|i| format!("{}{}", ["t", "tt", "é", "T_"][(i % 4) as usize], (i * 7919) % 211)).collect();
    let index = ToolIndex::new(names.iter().map(|n| tool(n, &[])).collect(), None, None).unwrap();
    for (i, n) in names.iter().enumerate() {
        assert_eq!(index.position(n), Some(i), "{n}");
    }
    for missing in ["", "t", "t0x", "zz", "T"] {
        assert_eq!(index.position(missing), None, "{missing}");
    }
    // A repeated name far from its first occurrence.
    let mut dup: Vec<Tool> = names.iter().map(|n| tool(n, &[])).collect();
    dup.push(tool(&names[3], &[]));
    let e = ToolIndex::new(dup, None, None).unwrap_err();
    assert_eq!((e.code(), e.message()), ("invalid_input", format!("duplicate tool name \"{}\"", names[3]).as_str()));
}

#[test]
fn per_tool_embeddings_and_bad_embeddings() {
    let mut a = tool("a", &[]);
    a.embedding = Some(vec![1.0, 0.0]);
    let mut b = tool("b", &[]);
    b.embedding = Some(vec![0.0, 3.0]);
    let index = ToolIndex::new(vec![a.clone(), b.clone()], model(2), None).unwrap();
    assert_eq!(index.vectors(), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(index.search(&[0.1, 1.0], 1).unwrap()[0].index, 1);
    let err = |r: streamroute::Result<ToolIndex>| r.unwrap_err().code();
    assert_eq!(err(ToolIndex::new(vec![a.clone(), tool("b", &[])], model(2), None)), "invalid_input");
    assert_eq!(err(ToolIndex::new(vec![a.clone()], model(3), None)), "invalid_input");
    assert_eq!(err(ToolIndex::new(vec![a.clone()], None, None)), "invalid_input");
    assert_eq!(err(ToolIndex::new(vec![a.clone()], model(2), Some(vec![1.0, 2.0]))), "invalid_input");
    assert_eq!(err(ToolIndex::new(vec![tool("x", &[])], model(2), Some(vec![1.0]))), "invalid_input");
    assert_eq!(err(ToolIndex::new(vec![tool("x", &[])], model(2), Some(vec![1.0, f32::NAN]))), "invalid_input");
    assert_eq!(err(ToolIndex::new(vec![tool("x", &[])], model(0), Some(vec![]))), "invalid_input");
    assert_eq!(err(ToolIndex::new(vec![tool("x", &[]), tool("x", &[])], None, None)), "invalid_input");
    // A zero vector stays zero and scores 0.
    let index = ToolIndex::new(vec![tool("x", &[]), tool("y", &[])], model(2), Some(vec![0.0, 0.0, 1.0, 0.0])).unwrap();
    let hits = index.search(&[1.0, 0.0], 2).unwrap();
    assert_eq!((hits[0].index, hits[0].score, hits[1].score), (1, 1.0, 0.0));
    // Subnormal vectors normalise without overflow (found by the fuzzer).
    let tiny = ToolIndex::new(vec![tool("x", &[]), tool("y", &[])], model(1), Some(vec![2.938736e-39, 6.1629876e-33])).unwrap();
    assert_eq!(tiny.vectors(), [1.0, 1.0]);
    assert_eq!(tiny.search(&[1e-40], 2).unwrap().iter().map(|h| h.score).collect::<Vec<_>>(), [1.0, 1.0]);
    // Wrong query length or values.
    assert_eq!(index.search(&[1.0], 2).unwrap_err().code(), "invalid_input");
    assert_eq!(index.search(&[1.0, f32::INFINITY], 2).unwrap_err().code(), "invalid_input");
    // No embeddings: search is an error, BM25 works.
    let plain = ToolIndex::new(vec![tool("plot_bar", &["plot"])], None, None).unwrap();
    assert!(plain.model().is_none());
    assert_eq!(plain.search(&[1.0], 1).unwrap_err().code(), "invalid_input");
    assert_eq!(plain.search_text("bar chart plot", 3).len(), 1);
}

#[test]
fn catalog_parsing() {
    let tools =
        parse_catalog(&json(r#"[{"name":" a ","params":{"x":{},"y":1},"extra":true},{"name":"b","description":null}]"#)).unwrap();
    assert_eq!(tools[0].name, "a");
    assert_eq!(tools[0].params, ["x", "y"]);
    assert_eq!(parse_catalog(&json(r#"{"tools":[{"name":"a"}]}"#)).unwrap().len(), 1);
    for bad in [
        r#"[{"name":""}]"#,
        r#"[{"description":"x"}]"#,
        r#"[{"name":"a"},{"name":"a"}]"#,
        r#"[{"name":"a","capabilities":"x"}]"#,
        r#"[{"name":"a","embedding":[1,"x"]}]"#,
        r#"[{"name":"a","embedding":[1e99]}]"#,
        r#"{"tools":3}"#,
        r#"[3]"#,
        "3",
    ] {
        assert_eq!(parse_catalog(&json(bad)).unwrap_err().code(), "invalid_input", "{bad}");
    }
    assert_eq!(
        tool("plot_line", &["plot", "time_series"]).document(),
        "plot line:  Capabilities: plot, time series. Params: . Outputs: ."
    );
}

#[test]
fn bm25_ranks_by_name_description_and_capabilities() {
    let f = Fixtures::load();
    let index = f.index();
    let top = |q: &str| index.search_text(q, 3).iter().map(|h| index.tool(h.index).unwrap().name.clone()).collect::<Vec<_>>();
    assert_eq!(top("histogram")[0], "plot_histogram");
    assert_eq!(top("Anomalies")[0], "detect_anomalies");
    assert_eq!(top("correlations between columns")[0], "correlation_matrix");
    assert_eq!(top("forecast_arima")[0], "forecast_arima");
    assert!(top("the of and").is_empty());
    assert!(top("").is_empty());
    for h in index.search_text("plot chart", 50) {
        assert!(h.score > 0.0);
    }
}

#[test]
fn retrieval_falls_back_to_bm25_without_a_matching_vector() {
    let f = Fixtures::load();
    let index = f.index();
    let (q, _, v) = &f.questions[10]; // "plot a histogram of customer ages"
    let texts = [q.clone()];
    let run = |vectors: &[f32], model_id: Option<&str>, dim: Option<usize>, mode: Mode| {
        index.retrieve(&Query { vectors, model_id, dim, texts: &texts, mode, n: 5 })
    };
    let cos = run(v, Some("sentence-transformers/all-MiniLM-L6-v2"), None, Mode::Auto);
    assert_eq!((cos.method, cos.fallback.as_deref()), (Method::Cosine, None));
    assert_eq!(cos.hits, index.search(v, 5).unwrap());
    let bm = index.search_text(q, 5);
    for (vectors, model_id, dim, why) in [
        (&[][..], None, None, "no query vector"),
        (&v[..], Some("@cf/baai/bge-small-en-v1.5"), None, "differs from the index model"),
        (&v[..100], None, None, "dimension"),
        (&v[..], None, Some(768), "dimension 768"),
    ] {
        for mode in [Mode::Auto, Mode::Cosine, Mode::Hybrid] {
            let r = run(vectors, model_id, dim, mode);
            assert_eq!(r.method, Method::Bm25);
            assert!(r.fallback.as_deref().unwrap().contains(why), "{:?}", r.fallback);
            assert_eq!(r.hits, bm);
        }
    }
    let r = run(v, None, None, Mode::Bm25);
    assert_eq!((r.method, r.fallback), (Method::Bm25, None));
    let plain = ToolIndex::new(f.tools.clone(), None, None).unwrap();
    let r = plain.retrieve(&Query { vectors: v, model_id: None, dim: None, texts: &texts, mode: Mode::Auto, n: 5 });
    assert_eq!(r.method, Method::Bm25);
    assert_eq!(r.fallback.as_deref(), Some("the index has no embeddings"));
    // Hybrid: reciprocal-rank fusion of both rankings.
    let h = run(v, None, None, Mode::Hybrid);
    assert_eq!((h.method, h.fallback.as_deref()), (Method::Hybrid, None));
    assert_eq!(index.tool(h.hits[0].index).unwrap().name, "plot_histogram");
    assert!(h.hits[0].score <= 2.0 / (RRF_K + 1.0));
}

/// recall@8 of the tools a person marked relevant, averaged over the fixture questions.
fn recall_at(index: &ToolIndex, f: &Fixtures, mode: Mode, k: usize) -> f64 {
    let mut sum = 0.0;
    for (q, relevant, v) in &f.questions {
        let texts = [q.clone()];
        let r = index.retrieve(&Query { vectors: v, model_id: None, dim: None, texts: &texts, mode, n: k });
        let got: Vec<&str> = r.hits.iter().map(|h| index.tool(h.index).unwrap().name.as_str()).collect();
        sum += relevant.iter().filter(|t| got.contains(&t.as_str())).count() as f64 / relevant.len() as f64;
    }
    sum / f.questions.len() as f64
}

#[test]
fn retrieval_quality_on_the_fixture_questions() {
    let f = Fixtures::load();
    assert!(f.tools.len() >= 40 && f.questions.len() >= 60);
    let index = f.index();
    let cosine = recall_at(&index, &f, Mode::Cosine, 8);
    let bm25 = recall_at(&index, &f, Mode::Bm25, 8);
    let hybrid = recall_at(&index, &f, Mode::Hybrid, 8);
    println!(
        "recall@8 over {} questions, {} tools: cosine {cosine:.3}, bm25 {bm25:.3}, hybrid {hybrid:.3}",
        f.questions.len(),
        f.tools.len()
    );
    // Pinned to the committed fixture (deterministic): a change in ranking shows up here.
    assert_eq!(format!("{cosine:.3} {bm25:.3} {hybrid:.3}"), "0.757 0.678 0.746");
    // Narrowing per question (no template, the design's safety set, cap 8): sizes and how
    // many of the relevant tools survive, without and with a score floor.
    for min_score in [None, Some(0.3)] {
        let (mut sizes, mut kept) = (Vec::new(), 0.0);
        for (q, relevant, v) in &f.questions {
            let o = NarrowOptions { min_score, ..Default::default() };
            let n = narrow_tools(&index, &Requirements::default(), v, None, None, Some(vec![q.clone()]), &o);
            assert!(n.tools.len() <= 8);
            assert!(DEFAULT_SAFETY_SET.iter().all(|s| names(&n).contains(s)));
            sizes.push(n.tools.len());
            kept += relevant.iter().filter(|t| names(&n).contains(&t.as_str())).count() as f64 / relevant.len() as f64;
        }
        let mean = sizes.iter().sum::<usize>() as f64 / sizes.len() as f64;
        println!(
            "narrowing (min_score {min_score:?}): size min {} mean {mean:.2} max {}, relevant kept {:.3}",
            sizes.iter().min().unwrap(),
            sizes.iter().max().unwrap(),
            kept / f.questions.len() as f64
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Narrowing

#[test]
fn walkthrough_narrowing_exactly() {
    // The design's example: template time_series_grouped, retrieval returned segment_metric and
    // plot_bar, safety set all present, cap 8 → six tools.
    let f = Fixtures::load();
    let index = f.index();
    let opts = NarrowOptions { template: template(&f), cap: 8, ..Default::default() };
    let ranked = vec![("segment_metric".to_string(), 0.61), ("plot_bar".to_string(), 0.58)];
    let n = narrow_ranked(Some(&index), &ranked, &opts);
    assert_eq!(
        reasons(&n),
        [
            ("parse_datetime", "template"),
            ("aggregate", "template"),
            ("plot_line", "template"),
            ("compute_summary_stats", "template"),
            ("segment_metric", "retrieval"),
            ("plot_bar", "retrieval"),
        ]
    );
    assert_eq!(
        n.safety,
        [("aggregate".to_string(), false), ("plot_line".to_string(), false), ("compute_summary_stats".to_string(), false)]
    );
    assert_eq!((n.cap, n.method, n.dropped.len()), (8, Method::Given, 0));
    assert!(n.warnings.is_empty());
    assert_eq!(n.tools[4].score, Some(0.61));
    assert_eq!(n.tools[5].rank, Some(2));
}

#[test]
fn walkthrough_narrowing_with_the_real_model() {
    let f = Fixtures::load();
    let index = f.index();
    let req = f.requirements();
    // The queries the script embedded are the ones narrowing builds.
    let texts: Vec<String> = f.queries.iter().map(|(t, _)| t.clone()).collect();
    assert_eq!(retrieval_queries(&req), texts);
    assert_eq!(texts, strings(f.walkthrough.get("queries").unwrap()));
    let opts = NarrowOptions { template: template(&f), cap: 8, ..Default::default() };
    let n = narrow_tools(&index, &req, &f.query_vectors(), Some("sentence-transformers/all-MiniLM-L6-v2"), None, None, &opts);
    assert_eq!((n.method, n.fallback.as_deref()), (Method::Cosine, None));
    println!("real model: {:?} dropped {:?}", reasons(&n), n.dropped);
    assert_eq!(
        reasons(&n),
        [
            ("parse_datetime", "template"),
            ("aggregate", "template"),
            ("plot_line", "template"),
            ("compute_summary_stats", "template"),
            ("plot_scatter", "retrieval"),
            ("plot_area", "retrieval"),
            ("plot_dual_axis", "retrieval"),
            ("plot_bar", "retrieval"),
        ]
    );
    assert!(n.safety.iter().all(|(_, added)| !added));
    // Depth 6: three template tools are among the top six, three new ones come in.
    let n6 = narrow_tools(&index, &req, &f.query_vectors(), None, None, None, &NarrowOptions { n: Some(6), ..opts.clone() });
    assert_eq!(names(&n6)[4..], ["plot_scatter", "plot_area", "plot_dual_axis"]);
    // Hybrid: both rankings fused; template first, cap kept.
    let h =
        narrow_tools(&index, &req, &f.query_vectors(), None, None, None, &NarrowOptions { mode: Mode::Hybrid, ..opts.clone() });
    assert_eq!((h.method, h.fallback.as_deref()), (Method::Hybrid, None));
    assert_eq!(names(&h)[..4], names(&n)[..4]);
    assert_eq!(h.tools.len(), 8);
    assert!(h.tools[4..].iter().all(|t| t.reason == Reason::Retrieval && t.score.is_some()));
    // A declared dimension that differs from the index: BM25.
    let d = narrow_tools(&index, &req, &f.query_vectors(), None, Some(768), None, &opts);
    assert_eq!(d.method, Method::Bm25);
    // Without vectors: BM25 over the same queries.
    let b = narrow_tools(&index, &req, &[], None, None, None, &opts);
    assert_eq!(b.method, Method::Bm25);
    assert_eq!(b.fallback.as_deref(), Some("no query vector"));
    assert_eq!(
        names(&b),
        [
            "parse_datetime",
            "aggregate",
            "plot_line",
            "compute_summary_stats",
            "cumulative_sum",
            "plot_bar",
            "plot_dual_axis",
            "plot_area"
        ]
    );
    // The adapted plan passes the coverage check with the tools narrowing kept.
    let adapted = Plan::from_json(f.walkthrough.get("adapted_plan").unwrap()).unwrap();
    let kept = Plan { steps: adapted.steps.into_iter().filter(|s| names(&n).contains(&s.tool.as_str())).collect() };
    assert!(check_coverage(&req, &kept, &CapabilityMap::default(), &index).ok);
}

fn ranked(list: &[(&str, f64)]) -> Vec<(String, f64)> {
    list.iter().map(|(n, s)| (n.to_string(), *s)).collect()
}

fn opts(template: &[&str], safety: &[&str], cap: usize) -> NarrowOptions {
    NarrowOptions {
        template: template.iter().map(|s| s.to_string()).collect(),
        safety_set: safety.iter().map(|s| s.to_string()).collect(),
        cap,
        ..Default::default()
    }
}

#[test]
fn precedence_template_always_then_retrieval_until_the_cap() {
    let r = ranked(&[("a", 0.9), ("t1", 0.8), ("b", 0.7), ("c", 0.6), ("d", 0.5)]);
    let n = narrow_ranked(None, &r, &opts(&["t1", "t2"], &[], 4));
    assert_eq!(reasons(&n), [("t1", "template"), ("t2", "template"), ("a", "retrieval"), ("b", "retrieval")]);
    // Retrieval depth defaults to the cap: "d" (rank 5) was never retrieved.
    assert_eq!(n.dropped, [("c".to_string(), 0.6)]);
    // The template's own score is kept for information.
    assert_eq!((n.tools[0].score, n.tools[0].rank), (Some(0.8), Some(2)));
    // Template tools past the cap stay; no retrieval tool comes in.
    let n = narrow_ranked(None, &r, &opts(&["t1", "t2", "t3"], &[], 2));
    assert_eq!(names(&n), ["t1", "t2", "t3"]);
    assert_eq!(n.dropped.len(), 1);
    // Duplicates in the template count once.
    let n = narrow_ranked(None, &r, &opts(&["t1", "t1"], &[], 2));
    assert_eq!(names(&n), ["t1", "a"]);
}

#[test]
fn retrieval_tools_are_ranked_by_score_whatever_order_they_come_in() {
    // The same tools and scores in any order give the same subset: the lowest-scoring are
    // dropped, and the depth `n` takes the best n.
    let best_first = ranked(&[("a", 0.9), ("b", 0.7), ("c", 0.6), ("d", 0.5)]);
    let shuffled = ranked(&[("c", 0.6), ("d", 0.5), ("a", 0.9), ("b", 0.7)]);
    let n = narrow_ranked(None, &shuffled, &opts(&["t1"], &[], 3));
    assert_eq!(reasons(&n), [("t1", "template"), ("a", "retrieval"), ("b", "retrieval")]);
    assert_eq!(n.dropped, [("c".to_string(), 0.6)]);
    assert_eq!((n.tools[1].rank, n.tools[2].rank), (Some(1), Some(2)));
    assert_eq!(n, narrow_ranked(None, &best_first, &opts(&["t1"], &[], 3)));
    // Equal scores keep the order given.
    let tied = ranked(&[("y", 0.5), ("x", 0.5), ("z", 0.9)]);
    let mut o = opts(&[], &[], 2);
    o.n = Some(3);
    let n = narrow_ranked(None, &tied, &o);
    assert_eq!(names(&n), ["z", "y"]);
    assert_eq!(n.dropped, [("x".to_string(), 0.5)]);
}

#[test]
fn precedence_safety_appended_when_missing_even_past_the_cap() {
    let r = ranked(&[("a", 0.9), ("b", 0.7), ("c", 0.6)]);
    // Room is made by dropping the lowest retrieval tools first.
    let n = narrow_ranked(None, &r, &opts(&["t1"], &["s1", "s2"], 4));
    assert_eq!(reasons(&n), [("t1", "template"), ("a", "retrieval"), ("s1", "safety"), ("s2", "safety")]);
    assert_eq!(n.dropped, [("b".to_string(), 0.7), ("c".to_string(), 0.6)]);
    assert_eq!(n.safety, [("s1".to_string(), true), ("s2".to_string(), true)]);
    // Template + safety alone exceed the cap: every retrieval tool goes, the cap is exceeded.
    let n = narrow_ranked(None, &r, &opts(&["t1", "t2"], &["s1", "s2"], 3));
    assert_eq!(names(&n), ["t1", "t2", "s1", "s2"]);
    assert_eq!(n.dropped.len(), 3);
    // A safety tool already in the template is not added again.
    let n = narrow_ranked(None, &r, &opts(&["s1"], &["s1", "s2"], 8));
    assert_eq!(reasons(&n), [("s1", "template"), ("a", "retrieval"), ("b", "retrieval"), ("c", "retrieval"), ("s2", "safety")]);
    assert_eq!(n.safety, [("s1".to_string(), false), ("s2".to_string(), true)]);
    // A safety tool that retrieval found comes in as retrieval, even below the cut.
    let r = ranked(&[("a", 0.9), ("b", 0.8), ("s1", 0.1)]);
    let n = narrow_ranked(None, &r, &opts(&["t1"], &["s1"], 3));
    assert_eq!(reasons(&n), [("t1", "template"), ("a", "retrieval"), ("s1", "retrieval")]);
    assert_eq!(n.dropped, [("b".to_string(), 0.8)]);
    assert_eq!(n.safety, [("s1".to_string(), false)]);
}

#[test]
fn depth_min_score_and_unknown_tools() {
    let f = Fixtures::load();
    let index = f.index();
    let r = ranked(&[("plot_bar", 0.9), ("plot_pie", 0.5), ("nope", 0.4)]);
    let mut o = opts(&["aggregate", "made_up"], &["plot_line"], 8);
    o.min_score = Some(0.45);
    let n = narrow_ranked(Some(&index), &r, &o);
    assert_eq!(names(&n), ["aggregate", "made_up", "plot_bar", "plot_pie", "plot_line"]);
    assert_eq!(n.warnings, ["template tool \"made_up\" is not in the catalog"]);
    o.n = Some(1);
    o.min_score = None;
    let n = narrow_ranked(Some(&index), &r, &o);
    assert_eq!(names(&n), ["aggregate", "made_up", "plot_bar", "plot_line"]);
    // Cap 0 means 1.
    let n = narrow_ranked(None, &r, &opts(&[], &[], 0));
    assert_eq!(names(&n), ["plot_bar"]);
}

// ---------------------------------------------------------------------------------------------
// Coverage

#[test]
fn walkthrough_coverage_exactly() {
    let f = Fixtures::load();
    let index = f.index();
    let req = f.requirements();
    let map = CapabilityMap::default();
    let adapted = f.walkthrough.get("adapted_plan").unwrap();
    let report = check_coverage(&req, &Plan::from_json(adapted).unwrap(), &map, &index);
    assert!(!report.ok);
    assert!(report.missing.is_empty());
    assert_eq!(report.unjustified, ["detect_anomalies", "plot_histogram"]);
    assert_eq!(report.unjustified_steps, [4, 5]);
    assert_eq!(report.message, "Remove unjustified steps: detect_anomalies, plot_histogram");
    // "Remove detect_anomalies or plot_histogram if present: no matching requirement".
    let fixed = apply_removals(adapted, Some(&report.unjustified_steps), &report.unjustified).unwrap();
    let tools: Vec<String> =
        fx::items(fixed.get("steps").unwrap()).iter().map(|s| s.get("tool").unwrap().as_str().unwrap().to_string()).collect();
    assert_eq!(tools, ["parse_datetime", "aggregate", "plot_line", "compute_summary_stats"]);
    let report = check_coverage(&req, &Plan::from_json(&fixed).unwrap(), &map, &index);
    assert!(report.ok, "{report:?}");
    assert_eq!(report.message, "");
    assert_eq!(
        report.lines,
        [
            "analysis.total -> aggregate (OK)",
            "analysis.compare -> aggregate + grouping (OK)",
            "analysis.trend -> plot_line (OK)",
            "outputs.chart -> plot_line (OK)",
            "outputs.table -> compute_summary_stats (OK)",
            "group_by -> aggregate with group_by (OK)",
            "time -> parse_datetime + plot_line (OK)",
        ]
    );
    // The aggregate step cites `time` but has no time capability: reported, not fatal.
    assert_eq!(report.steps[1].valid, ["analysis.total", "group_by"]);
    assert_eq!(report.steps[1].invalid, ["time"]);
    // With save_dataframe as a second table output, both are named.
    let mut plan = Plan::from_json(&fixed).unwrap();
    plan.steps.push(Step { tool: "save_dataframe".into(), params: json("{}"), satisfies: vec!["outputs.table".into()] });
    let mut map2 = map.to_json_value();
    if let JsonValue::Object(m) = &mut map2 {
        if let Some((_, JsonValue::Object(aliases))) = m.iter_mut().find(|(k, _)| k == "aliases") {
            aliases.push(("table_output".into(), JsonValue::String("summary_stats".into())));
        }
    }
    let report = check_coverage(&req, &plan, &CapabilityMap::from_json(&map2).unwrap(), &index);
    assert_eq!(report.lines[4], "outputs.table -> compute_summary_stats/save_dataframe (OK)");
}

#[test]
fn designs_retry_payload_exactly() {
    // The design's example payload: aggregate without grouping and an anomaly step.
    let f = Fixtures::load();
    let index = f.index();
    let req = f.requirements();
    let p = plan(
        r#"{"steps":[
        {"tool":"parse_datetime","params":{"column":"date"},"satisfies":["time"]},
        {"tool":"aggregate","params":{"agg_func":"sum","metrics":["revenue"]},"satisfies":["analysis.total","analysis.compare"]},
        {"tool":"plot_line","params":{"x":"date","y":"revenue"},"satisfies":["analysis.trend","outputs.chart"]},
        {"tool":"compute_summary_stats","params":{},"satisfies":["outputs.table"]},
        {"tool":"detect_anomalies","params":{},"satisfies":[]}]}"#,
    );
    let report = check_coverage(&req, &p, &CapabilityMap::default(), &index);
    assert!(!report.ok);
    assert_eq!(report.missing, ["analysis.compare", "group_by"]);
    assert_eq!(report.unjustified, ["detect_anomalies"]);
    assert_eq!(
        report.message,
        "Missing coverage: analysis.compare, group_by=[region, product_category]\nRemove unjustified steps: detect_anomalies"
    );
    assert_eq!(report.lines[1], "analysis.compare -> none + grouping (MISSING)");
    assert_eq!(report.lines[5], "group_by -> none with group_by (MISSING)");
    // Only group_by missing: the design's two lines exactly.
    let req2 = reqs(
        r#"{"metrics":["revenue"],"group_by":["region","product_category"],"time":{"column":"date"},"analysis":["total","trend"],"outputs":["chart","table"]}"#,
    );
    let report = check_coverage(&req2, &p, &CapabilityMap::default(), &index);
    assert_eq!(
        report.message,
        "Missing coverage: group_by=[region, product_category]\nRemove unjustified steps: detect_anomalies"
    );
}

#[test]
fn group_by_columns_and_ordering() {
    let f = Fixtures::load();
    let index = f.index();
    let map = CapabilityMap::default();
    let r = reqs(r#"{"group_by":["Region","product_category"],"outputs":["chart"]}"#);
    // One column missing.
    let p = plan(
        r#"[{"tool":"aggregate","params":{"group_by":"region"},"satisfies":["group_by"]},{"tool":"plot_bar","satisfies":"outputs.chart"}]"#,
    );
    let rep = check_coverage(&r, &p, &map, &index);
    assert_eq!(rep.missing, ["group_by"]);
    assert_eq!(rep.message, "Missing coverage: group_by=[product_category]");
    // Two steps together (segment + aggregate, `by` accepted, case-insensitive).
    let p = plan(
        r#"[{"tool":"aggregate","params":{"group_by":["region"]},"satisfies":["group_by"]},{"tool":"segment_metric","params":{"by":["PRODUCT_CATEGORY"]},"satisfies":["group_by"]},{"tool":"plot_bar","satisfies":["outputs.chart"]}]"#,
    );
    let rep = check_coverage(&r, &p, &map, &index);
    assert!(rep.ok, "{rep:?}");
    assert_eq!(rep.lines[1], "group_by -> aggregate/segment_metric with group_by (OK)");
    // Aggregation after plotting does not count.
    let p = plan(
        r#"[{"tool":"plot_bar","satisfies":["outputs.chart"]},{"tool":"aggregate","params":{"group_by":["region","product_category"]},"satisfies":["group_by"]}]"#,
    );
    let rep = check_coverage(&r, &p, &map, &index);
    assert_eq!(rep.missing, ["group_by"]);
    assert_eq!(rep.lines[1], "group_by -> none with group_by (MISSING: aggregate must come before plot_bar)");
    assert_eq!(rep.message, "Missing coverage: group_by=[Region, product_category]");
    // An unjustified plot (removed anyway) orders nothing: only its removal is asked for.
    let p = plan(
        r#"[{"tool":"plot_histogram","satisfies":[]},{"tool":"aggregate","params":{"group_by":["region","product_category"]},"satisfies":["group_by"]},{"tool":"plot_bar","satisfies":["outputs.chart"]}]"#,
    );
    let rep = check_coverage(&r, &p, &map, &index);
    assert!(rep.missing.is_empty(), "{rep:?}");
    assert_eq!(rep.message, "Remove unjustified steps: plot_histogram");
    // A grouping tool without group_by params does not cover group_by.
    let p = plan(r#"[{"tool":"aggregate","satisfies":["group_by"]}]"#);
    let rep = check_coverage(&r, &p, &map, &index);
    assert_eq!(rep.missing, ["outputs.chart", "group_by"]);
}

#[test]
fn time_requirements_need_time_aware_steps() {
    let f = Fixtures::load();
    let index = f.index();
    let map = CapabilityMap::default();
    let r = reqs(r#"{"metrics":["m"],"time":{"column":"ts","grain":"week"},"analysis":["trend"]}"#);
    // A bar chart is not time-aware.
    let p = plan(r#"[{"tool":"parse_datetime","satisfies":["time"]},{"tool":"plot_bar","satisfies":["analysis.trend","time"]}]"#);
    let rep = check_coverage(&r, &p, &map, &index);
    assert_eq!(rep.missing, ["analysis.trend", "time"]);
    assert_eq!(rep.message, "Missing coverage: analysis.trend, time=ts\nRemove unjustified steps: plot_bar");
    // Time features count as well as time plots (resample + area chart).
    let p = plan(
        r#"[{"tool":"parse_datetime","satisfies":["time"]},{"tool":"resample_time_series","params":{"grain":"week"},"satisfies":["analysis.trend"]}]"#,
    );
    assert!(check_coverage(&r, &p, &map, &index).ok);
    // Without parse_datetime: missing, unless the column is typed.
    let p = plan(r#"[{"tool":"plot_area","satisfies":["analysis.trend","time"]}]"#);
    let rep = check_coverage(&r, &p, &map, &index);
    assert_eq!(rep.missing, ["time"]);
    assert_eq!(rep.lines[1], "time -> none + plot_area (MISSING)");
    let typed = reqs(r#"{"metrics":["m"],"time":{"column":"ts","typed":true},"analysis":["trend"]}"#);
    let rep = check_coverage(&typed, &p, &map, &index);
    assert!(rep.ok);
    assert_eq!(rep.lines, ["analysis.trend -> plot_area (OK)", "time -> plot_area (OK)"]);
}

#[test]
fn citations_justify_steps() {
    let f = Fixtures::load();
    let index = f.index();
    let map = CapabilityMap::default();
    let r = reqs(r#"{"metrics":["revenue"],"analysis":["total"],"constraints":["region = EMEA"]}"#);
    let p = plan(
        r#"[{"tool":"filter_rows","params":{"condition":"region == 'EMEA'"},"satisfies":["constraints"]},
            {"tool":"aggregate","params":{"metrics":["revenue"]},"satisfies":["analysis.total","metrics"]},
            {"tool":"plot_histogram","satisfies":["metrics"]},
            {"tool":"detect_anomalies","satisfies":["analysis.anomaly"]},
            {"tool":"plot_bar","satisfies":["outputs.chart","bogus"]},
            {"tool":"made_up_tool","satisfies":["analysis.total"]}]"#,
    );
    let rep = check_coverage(&r, &p, &map, &index);
    // metrics has no rule: any step may cite it. An unrequested or unmet citation is invalid.
    assert_eq!(rep.unjustified, ["detect_anomalies", "plot_bar", "made_up_tool"]);
    assert_eq!(rep.unjustified_steps, [3, 4, 5]);
    assert_eq!(rep.steps[2].valid, ["metrics"]);
    assert_eq!(rep.steps[4].invalid, ["outputs.chart", "bogus"]);
    assert_eq!(rep.warnings, ["tool \"made_up_tool\" is not in the catalog"]);
    assert_eq!(rep.lines, ["analysis.total -> aggregate (OK)", "constraints -> filter_rows (OK)"]);
    assert_eq!(rep.message, "Remove unjustified steps: detect_anomalies, plot_bar, made_up_tool");
    // Removal by name when the report has no positions; other plan fields survive.
    let raw = json(r#"{"name":"p","steps":[{"tool":"a","x":1},{"tool":"b"},{"tool":" a "}]}"#);
    let out = apply_removals(&raw, None, &["a".to_string()]).unwrap();
    assert_eq!(out.to_json(), r#"{"name":"p","steps":[{"tool":"b"}]}"#);
    let out = apply_removals(&json(r#"[{"tool":"a"},{"tool":"b"}]"#), Some(&[0]), &[]).unwrap();
    assert_eq!(out.to_json(), r#"[{"tool":"b"}]"#);
    assert!(apply_removals(&json("3"), None, &[]).is_err());
}

#[test]
fn unknown_requirement_labels_warn_and_ask_for_reextraction() {
    let f = Fixtures::load();
    let index = f.index();
    let r = reqs(r#"{"analysis":["total","cohort"],"outputs":["dashboard"]}"#);
    let p = plan(
        r#"[{"tool":"aggregate","satisfies":["analysis.total"]},{"tool":"cohort_retention","satisfies":["analysis.cohort"]}]"#,
    );
    let rep = check_coverage(&r, &p, &CapabilityMap::default(), &index);
    assert!(rep.ok, "unknown labels do not fail the check: {rep:?}");
    assert!(rep.reextract);
    assert_eq!(rep.unknown, ["analysis.cohort", "outputs.dashboard"]);
    assert_eq!(rep.warnings.len(), 2);
    assert!(rep.warnings[0].contains("re-extract"));
    assert_eq!(rep.steps[1].valid, ["analysis.cohort"]);
}

#[test]
fn plan_parsing_errors_have_paths() {
    for (bad, path) in [
        (r#"{"steps":[{"params":{}}]}"#, "steps[0].tool"),
        (r#"{"steps":[{"tool":"a"},{"tool":"b","params":[]}]}"#, "steps[1].params"),
        (r#"{"steps":[{"tool":"a","satisfies":[1]}]}"#, "steps[0].satisfies"),
        (r#"{"steps":[3]}"#, "steps[0]"),
        (r#"{"steps":{}}"#, "plan.steps"),
        ("true", "a plan"),
    ] {
        let e = Plan::from_json(&json(bad)).unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(e.message().contains(path), "{bad}: {}", e.message());
    }
    assert!(Plan::from_json(&json("{}")).unwrap().steps.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Repairs and time grain

#[test]
fn repair_classification() {
    let c = |a: &str, b: &str| {
        classify_repair(&json(a), &json(b), &SEMANTIC_PARAMS.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap().as_str()
    };
    // Safe: missing df, column casing, default params, dropped invalid param.
    assert_eq!(
        c(
            r#"{"tool":"aggregate","params":{"group_by":["region"]}}"#,
            r#"{"tool":"aggregate","params":{"df":"df_1","group_by":["region"]}}"#
        ),
        "safe"
    );
    assert_eq!(c(r#"{"tool":"aggregate","params":{"df":null}}"#, r#"{"tool":"aggregate","params":{"df":"sales"}}"#), "safe");
    assert_eq!(
        c(
            r#"{"group_by":["Region","product_Category"],"y":"Revenue"}"#,
            r#"{"group_by":["region","product_category"],"y":"revenue"}"#
        ),
        "safe"
    );
    assert_eq!(c(r#"{"group_by":"Region"}"#, r#"{"group_by":["region"]}"#), "safe");
    assert_eq!(c(r#"{"x":"date"}"#, r#"{"x":"date","bins":20,"title":"Revenue"}"#), "safe");
    assert_eq!(c(r#"{"x":"date","colour":"red"}"#, r#"{"x":"date"}"#), "safe");
    assert_eq!(c(r#"{"bins":10}"#, r#"{"bins":20}"#), "safe");
    assert_eq!(c(r#"{"tool":"plot_line","params":{}}"#, r#"{"tool":"plot_line"}"#), "safe");
    // Semantic: group_by, metric, time grain, aggregation, tool.
    assert_eq!(c(r#"{"group_by":["region"]}"#, r#"{"group_by":["region","product_category"]}"#), "semantic");
    assert_eq!(c(r#"{"group_by":["region","product"]}"#, r#"{"group_by":["product","region"]}"#), "semantic");
    assert_eq!(c(r#"{"metrics":["revenue"]}"#, r#"{"metrics":["profit"]}"#), "semantic");
    assert_eq!(c(r#"{"y":"revenue"}"#, r#"{}"#), "semantic");
    assert_eq!(c(r#"{"grain":"week"}"#, r#"{"grain":"month"}"#), "semantic");
    assert_eq!(c(r#"{}"#, r#"{"time_grain":"month"}"#), "semantic");
    assert_eq!(c(r#"{"agg_func":"sum"}"#, r#"{"agg_func":"mean"}"#), "semantic");
    assert_eq!(c(r#"{"df":"a"}"#, r#"{"df":"b"}"#), "safe");
    assert_eq!(c(r#"{"tool":"plot_line","params":{}}"#, r#"{"tool":"plot_bar","params":{}}"#), "semantic");
    // The column a tool analyses is its metric: casing is safe, another column is not.
    assert_eq!(
        c(
            r#"{"tool":"detect_anomalies","params":{"column":"Revenue"}}"#,
            r#"{"tool":"detect_anomalies","params":{"column":"revenue"}}"#
        ),
        "safe"
    );
    assert_eq!(
        c(
            r#"{"tool":"detect_anomalies","params":{"column":"revenue"}}"#,
            r#"{"tool":"detect_anomalies","params":{"column":"profit"}}"#
        ),
        "semantic"
    );
    // Inside a nested parameter object, by the same rules.
    assert_eq!(c(r#"{"time":{"column":"date","grain":"month"}}"#, r#"{"time":{"column":"date","grain":"week"}}"#), "semantic");
    assert_eq!(
        c(r#"{"time":{"column":"Date","grain":"month"}}"#, r#"{"time":{"column":"date","grain":"month","tz":"UTC"}}"#),
        "safe"
    );
    assert_eq!(c(r#"{"style":{"theme":"dark"}}"#, r#"{"style":{"theme":"light"}}"#), "safe");
    // Custom semantic params.
    let custom = classify_repair(&json(r#"{"bins":10}"#), &json(r#"{"bins":20}"#), &["bins".to_string()]).unwrap();
    assert_eq!(custom, RepairClass::Semantic);
    assert_eq!(classify_repair(&json("3"), &json("{}"), &[]).unwrap_err().code(), "invalid_input");
    assert_eq!(classify_repair(&json(r#"{"params":3}"#), &json("{}"), &[]).unwrap_err().code(), "invalid_input");
    // A repeated key (built by hand: parsing keeps only the first) counts by its first value.
    let obj = |m: &[(&str, &str)]| {
        JsonValue::Object(m.iter().map(|(k, v)| (k.to_string(), JsonValue::String(v.to_string()))).collect())
    };
    let y = ["y".to_string()];
    let twice = obj(&[("y", "revenue"), ("bins", "1"), ("y", "profit")]);
    assert_eq!(classify_repair(&twice, &obj(&[("y", "revenue")]), &y).unwrap(), RepairClass::Safe);
    assert_eq!(classify_repair(&twice, &obj(&[("y", "profit")]), &y).unwrap(), RepairClass::Semantic);
    assert_eq!(classify_repair(&obj(&[("y", "profit")]), &twice, &y).unwrap(), RepairClass::Semantic);
}

#[test]
fn narrowing_a_ranking_with_a_repeated_name_keeps_its_first_score_and_rank() {
    let ranked: Vec<(String, f64)> =
        [("a", 0.9), ("b", 0.8), ("a", 0.5), ("b", 0.1)].iter().map(|(n, s)| (n.to_string(), *s)).collect();
    let opts = NarrowOptions { template: vec!["b".into()], safety_set: vec![], ..NarrowOptions::default() };
    let got = narrow_ranked(None, &ranked, &opts);
    let tools: Vec<(&str, Option<f64>, Option<usize>)> = got.tools.iter().map(|t| (t.name.as_str(), t.score, t.rank)).collect();
    assert_eq!(tools, [("b", Some(0.8), Some(2)), ("a", Some(0.9), Some(1))]);
}

#[test]
fn auto_time_grain_policy() {
    for (span, points, want) in [
        (0.0, 0.0, "day"),
        (30.0, 30.0, "day"),
        (89.9, 10.0, "day"),
        (90.0, 13.0, "week"),
        (200.0, 60.0, "week"),
        (365.0, 52.0, "week"),
        (365.5, 12.0, "month"),
        (1000.0, 36.0, "month"),
        (200.0, 61.0, "day"),
        (1000.0, 1000.0, "day"),
    ] {
        assert_eq!(auto_time_grain(span, points).unwrap(), want, "{span} {points}");
    }
    for (span, points) in [(-1.0, 1.0), (1.0, -1.0), (f64::NAN, 1.0), (1.0, f64::INFINITY)] {
        assert_eq!(auto_time_grain(span, points).unwrap_err().code(), "invalid_input");
    }
}

#[test]
fn large_inputs_stay_linear() {
    // Quadratic work on any of these would take minutes.
    let n = 200_000;
    let list = |prefix: &str| (0..n).map(|i| format!("\"{prefix}{i}\"")).collect::<Vec<_>>().join(",");
    let v = json(&format!(r#"{{"metrics":[{}],"group_by":[{}],"analysis":[{}]}}"#, list("m"), list("g"), list("a")));
    let r = Requirements::from_json(&v).unwrap();
    assert_eq!((r.metrics.len(), r.analysis.len()), (n, n));
    let err = validate_requirements(&v, &RequirementLabels::default()).unwrap_err();
    assert_eq!(err.issues.len(), n);
    let extra = RequirementLabels { analysis: r.analysis.clone(), outputs: vec![], grain: vec![] };
    assert_eq!(RequirementLabels::default().extend(&extra).analysis.len(), n + RequirementLabels::default().analysis.len());
    // Narrowing over a long ranking with a deep N.
    let ranked: Vec<(String, f64)> = (0..n).map(|i| (format!("t{i}"), 1.0 - i as f64 / n as f64)).collect();
    let templ: Vec<String> = (0..n).step_by(2).map(|i| format!("t{i}")).collect();
    let o = NarrowOptions { template: templ, n: Some(n), cap: n, ..Default::default() };
    let out = narrow_ranked(None, &ranked, &o);
    assert_eq!(out.tools.len(), n); // template, the three missing safety tools, retrieval up to the cap
    assert_eq!(out.dropped.len(), 3);
    // Removals by position and by name over a long plan.
    let steps = (0..n).map(|i| format!(r#"{{"tool":"t{}"}}"#, i % 1000)).collect::<Vec<_>>().join(",");
    let plan = json(&format!(r#"{{"steps":[{steps}]}}"#));
    let positions: Vec<usize> = (0..n).step_by(2).collect();
    let names: Vec<String> = (0..500).map(|i| format!("t{i}")).collect();
    let by_pos = apply_removals(&plan, Some(&positions), &[]).unwrap();
    assert_eq!(fx::items(by_pos.get("steps").unwrap()).len(), n / 2);
    let by_name = apply_removals(&plan, None, &names).unwrap();
    assert_eq!(fx::items(by_name.get("steps").unwrap()).len(), n / 2);
    // A long tool description and a large alias table.
    let long = "word ".repeat(n) + "histogram";
    let index = ToolIndex::new(vec![Tool { name: "x".into(), description: long, ..Tool::default() }], None, None).unwrap();
    assert_eq!(index.search_text("histogram", 1).len(), 1);
    let aliases = (0..n).map(|i| format!(r#""a{i}":"c{i}""#)).collect::<Vec<_>>().join(",");
    let m = CapabilityMap::from_json(&json(&format!(r#"{{"version":"1","aliases":{{{aliases}}}}}"#))).unwrap();
    assert_eq!(m.canonical("a77"), "c77");
}
