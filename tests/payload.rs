//! FinalPayload, artifacts and sources: every field rule, default and error path of
//! `validate_final_payload` and `build_final_payload` (reference bugs B19 and B20 shown
//! fixed), redaction placeholders over pydantic/zod-style schemas (B18), the collector, the
//! source collection, `ArtifactStream`, and the RFC's Appendix A end to end.
//! Property tests are in tests/payload_props.rs.

use streamroute::{
    build_final_payload, check_final_payload, collect_sources, done_event, human_size, json_len, parse_strict, redact_artifacts,
    validate_final_payload, ArtifactCollector, ArtifactCollectorOptions, ArtifactStream, FinalPayload, JsonValue, PayloadContext,
    Source, ToolStep, NO_ANSWER,
};

fn j(text: &str) -> JsonValue {
    parse_strict(text.as_bytes()).unwrap_or_else(|e| panic!("test JSON {text}: {e}"))
}

fn corpus(name: &str) -> JsonValue {
    let path = format!("{}/tests/corpus/payload/{name}", env!("CARGO_MANIFEST_DIR"));
    j(&std::fs::read_to_string(path).expect("fixture"))
}

fn build(args: &str) -> (JsonValue, Vec<String>) {
    let b = build_final_payload(&j(args), &PayloadContext::default()).expect("build");
    (b.payload.to_value(), b.warnings)
}

fn problems(value: &str) -> Vec<(String, String)> {
    check_final_payload(&j(value)).expect_err("invalid").into_iter().map(|p| (p.path, p.message)).collect()
}

fn paths(value: &str) -> Vec<String> {
    problems(value).into_iter().map(|(p, _)| p).collect()
}

// ---------------------------------------------------------------------------------------------
// Appendix A

#[test]
fn appendix_a_end_to_end() {
    let schema = corpus("appendix_a_schema.json");
    let observation = corpus("appendix_a_observation.json");
    // The LLM context.
    let redacted = redact_artifacts(&observation, &schema).unwrap();
    assert_eq!(redacted, corpus("appendix_a_redacted.json"));
    // The collector, on the full observation.
    let mut collector = ArtifactCollector::new(ArtifactCollectorOptions::default());
    collector.collect("analyze_sales", &schema, &observation).unwrap();
    assert!(collector.warnings().is_empty());
    let all = collector.all_value();
    assert_eq!(all.get("analyze_sales").and_then(|a| a.get("chart_options")), observation.get("chart_options"));
    assert_eq!(all.get("analyze_sales").and_then(|a| a.get("raw_data")), observation.get("raw_data"));
    // One walk for both.
    let mut c2 = ArtifactCollector::default();
    assert_eq!(c2.collect_and_redact("analyze_sales", &schema, observation.clone(), None).unwrap(), redacted);
    assert_eq!(c2.all_value(), all);
    // The final payload.
    let ctx = PayloadContext { artifacts: collector.all().clone(), ..Default::default() };
    let built = build_final_payload(&corpus("appendix_a_args.json"), &ctx).unwrap();
    assert_eq!(built.warnings, Vec::<String>::new());
    let want = corpus("appendix_a_payload.json");
    assert_eq!(built.payload.to_value(), want);
    assert_eq!(built.payload.to_json(), want.to_json());
    // The frontend's validation accepts it unchanged.
    assert_eq!(validate_final_payload(&want).unwrap(), built.payload);
    // No sources: the tool does not produce any.
    let sources = collect_sources(&[ToolStep { node: "analyze_sales", schema: &schema, observation: &observation }]).unwrap();
    assert!(sources.is_empty());
}

// ---------------------------------------------------------------------------------------------
// validate_final_payload

#[test]
fn validate_fills_every_default() {
    let p = validate_final_payload(&j(r#"{"raw_answer":"hi"}"#)).unwrap();
    assert_eq!(p, FinalPayload::new("hi"));
    assert_eq!(
        p.to_json(),
        r#"{"raw_answer":"hi","artifacts":{},"confidence":null,"sources":[],"route":null,"suggested_actions":[],"requires_followup":false,"warnings":[],"language":null,"extra":{}}"#
    );
}

#[test]
fn validate_accepts_every_field() {
    let text = r#"{"raw_answer":"a","artifacts":{"t":{"f":[1]}},"confidence":1,"sources":[{"title":"T","url":"u","snippet":null,"relevance_score":0.5}],"route":"r","suggested_actions":[{"action_id":"x","label":"X"}],"requires_followup":true,"warnings":["w"],"language":"es","extra":{"k":{"n":1}}}"#;
    let p = validate_final_payload(&j(text)).unwrap();
    assert_eq!(p.confidence, Some(1.0));
    assert_eq!(p.sources[0].relevance_score, Some(0.5));
    assert_eq!(p.suggested_actions[0].params, vec![]);
    assert!(p.requires_followup);
    assert_eq!(p.language.as_deref(), Some("es"));
    assert_eq!(
        p.to_json(),
        r#"{"raw_answer":"a","artifacts":{"t":{"f":[1]}},"confidence":1,"sources":[{"title":"T","url":"u","snippet":null,"relevance_score":0.5}],"route":"r","suggested_actions":[{"action_id":"x","label":"X","params":{}}],"requires_followup":true,"warnings":["w"],"language":"es","extra":{"k":{"n":1}}}"#
    );
    // Nullable fields take null; confidence bounds are inclusive.
    for ok in [
        r#"{"raw_answer":"","confidence":null,"route":null,"language":null}"#,
        r#"{"raw_answer":"a","confidence":0}"#,
        r#"{"raw_answer":"a","confidence":0.0}"#,
        r#"{"raw_answer":"a","confidence":1e0}"#,
        r#"{"raw_answer":"a","sources":[{"title":""}]}"#,
        r#"{"raw_answer":"a","language":"zh"}"#,
    ] {
        validate_final_payload(&j(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}

#[test]
fn validate_reports_each_field_rule_with_its_path() {
    let cases: &[(&str, &str, &str)] = &[
        ("[]", "$", "must be an object"),
        ("\"text\"", "$", "must be an object"),
        ("{}", "raw_answer", "required string is missing"),
        (r#"{"raw_answer":null}"#, "raw_answer", "must be a string"),
        (r#"{"raw_answer":5}"#, "raw_answer", "must be a string"),
        (r#"{"raw_answer":"a","confidence":1.5}"#, "confidence", "between 0 and 1 (got 1.5)"),
        (r#"{"raw_answer":"a","confidence":-0.01}"#, "confidence", "between 0 and 1"),
        (r#"{"raw_answer":"a","confidence":"high"}"#, "confidence", "must be a number"),
        (r#"{"raw_answer":"a","confidence":true}"#, "confidence", "must be a number"),
        (r#"{"raw_answer":"a","confidence":1e400}"#, "confidence", "between 0 and 1"),
        (r#"{"raw_answer":"a","artifacts":[]}"#, "artifacts", "must be an object"),
        (r#"{"raw_answer":"a","artifacts":{"t":1}}"#, "artifacts.t", "must be an object"),
        (r#"{"raw_answer":"a","sources":{}}"#, "sources", "must be an array"),
        (r#"{"raw_answer":"a","sources":null}"#, "sources", "must be an array"),
        (r#"{"raw_answer":"a","sources":["x"]}"#, "sources[0]", "must be a Source object"),
        (r#"{"raw_answer":"a","sources":[{"url":"u"}]}"#, "sources[0].title", "required string is missing"),
        (r#"{"raw_answer":"a","sources":[{"title":1}]}"#, "sources[0].title", "must be a string"),
        (r#"{"raw_answer":"a","sources":[{"title":"t","url":1}]}"#, "sources[0].url", "string or null"),
        (r#"{"raw_answer":"a","sources":[{"title":"t","snippet":[]}]}"#, "sources[0].snippet", "string or null"),
        (
            r#"{"raw_answer":"a","sources":[{"title":"t","relevance_score":"hi"}]}"#,
            "sources[0].relevance_score",
            "number or null",
        ),
        (r#"{"raw_answer":"a","sources":[{"title":"t","id":1}]}"#, "sources[0].id", "unknown field of Source"),
        (r#"{"raw_answer":"a","route":3}"#, "route", "string or null"),
        (r#"{"raw_answer":"a","suggested_actions":[{"label":"L"}]}"#, "suggested_actions[0].action_id", "required"),
        (r#"{"raw_answer":"a","suggested_actions":[{"action_id":"x"}]}"#, "suggested_actions[0].label", "required"),
        (
            r#"{"raw_answer":"a","suggested_actions":[{"action_id":"x","label":"L","params":[]}]}"#,
            "suggested_actions[0].params",
            "must be an object",
        ),
        (r#"{"raw_answer":"a","suggested_actions":"x"}"#, "suggested_actions", "must be an array"),
        (r#"{"raw_answer":"a","requires_followup":"yes"}"#, "requires_followup", "must be a boolean"),
        (r#"{"raw_answer":"a","requires_followup":null}"#, "requires_followup", "must be a boolean"),
        (r#"{"raw_answer":"a","warnings":"w"}"#, "warnings", "must be an array"),
        (r#"{"raw_answer":"a","warnings":["ok",2]}"#, "warnings[1]", "must be a string"),
        (r#"{"raw_answer":"a","language":"english"}"#, "language", "ISO 639-1"),
        (r#"{"raw_answer":"a","language":"EN"}"#, "language", "ISO 639-1"),
        (r#"{"raw_answer":"a","language":"en-US"}"#, "language", "ISO 639-1"),
        (r#"{"raw_answer":"a","language":"xx"}"#, "language", "ISO 639-1"),
        (r#"{"raw_answer":"a","language":1}"#, "language", "ISO 639-1 code or null"),
        (r#"{"raw_answer":"a","extra":[]}"#, "extra", "must be an object"),
        (r#"{"raw_answer":"a","answer":"b"}"#, "answer", "unknown field"),
    ];
    for (input, path, msg) in cases {
        let got = problems(input);
        assert_eq!(got.len(), 1, "{input}: {got:?}");
        assert_eq!(got[0].0, *path, "{input}");
        assert!(got[0].1.contains(msg), "{input}: {:?} lacks {msg:?}", got[0].1);
        let err = validate_final_payload(&j(input)).unwrap_err();
        assert_eq!(err.code(), "payload_invalid");
        assert!(err.message().contains(&format!("{path}: ")), "{}", err.message());
    }
}

#[test]
fn validate_lists_every_problem_at_once() {
    let input = r#"{"confidence":2,"sources":[{"title":"ok"},{"url":"x"},{"title":3}],"language":"english","requires_followup":1,"bogus":true}"#;
    assert_eq!(
        paths(input),
        ["raw_answer", "confidence", "sources[1].title", "sources[2].title", "requires_followup", "language", "bogus"]
    );
    let err = validate_final_payload(&j(input)).unwrap_err();
    assert!(
        err.message().starts_with("invalid FinalPayload (7 problems): raw_answer: required string is missing; confidence:"),
        "{}",
        err.message()
    );
}

#[test]
fn a_problem_is_written_as_the_path_and_message_error_problems_lists() {
    let found = check_final_payload(&j(r#"{"raw_answer":"a","confidence":2}"#)).expect_err("invalid");
    let list: Vec<String> = found.iter().map(|p| p.to_json_value().to_json()).collect();
    assert_eq!(list.len(), 1);
    assert!(list[0].starts_with(r#"{"path":"confidence","message":""#), "{}", list[0]);
    assert_eq!(j(&list[0]).get("message").and_then(JsonValue::as_str), Some(found[0].message.as_str()));
}

/// A repeated key counts once, its first occurrence (the crate's one duplicate-key rule), also
/// in a value built by hand with the repeats in it.
#[test]
fn validate_repeated_keys_first_one_wins() {
    let s = |t: &str| JsonValue::String(t.into());
    let n = |t: &str| JsonValue::Number(t.into());
    let extra = JsonValue::Object(vec![("k".into(), n("1")), ("k".into(), n("2"))]);
    let v = JsonValue::Object(vec![("raw_answer".into(), s("a")), ("raw_answer".into(), s("b")), ("extra".into(), extra)]);
    let p = validate_final_payload(&v).unwrap();
    assert_eq!(p.raw_answer, "a");
    assert_eq!(p.to_value().get("extra").unwrap().to_json(), r#"{"k":1}"#);
    let p = validate_final_payload(&j(r#"{"raw_answer":"a","raw_answer":"b","extra":{"k":1,"k":2}}"#)).unwrap();
    assert_eq!(p.raw_answer, "a");
    assert_eq!(p.to_value().get("extra").unwrap().to_json(), r#"{"k":1}"#);
}

// ---------------------------------------------------------------------------------------------
// build_final_payload

#[test]
fn build_answer_from_answer_or_raw_answer() {
    assert_eq!(build(r#"{"answer":"A"}"#).0.get("raw_answer"), Some(&j("\"A\"")));
    assert_eq!(build(r#"{"raw_answer":"R"}"#).0.get("raw_answer"), Some(&j("\"R\"")));
    // B6: an empty or null answer does not shadow raw_answer.
    for args in [
        r#"{"answer":"","raw_answer":"text"}"#,
        r#"{"answer":null,"raw_answer":"text"}"#,
        r#"{"answer":"  ","raw_answer":"text"}"#,
    ] {
        let (p, w) = build(args);
        assert_eq!(p.get("raw_answer"), Some(&j("\"text\"")), "{args}");
        assert!(w.is_empty(), "{args}: {w:?}");
        assert_eq!(p.get("extra").unwrap().to_json(), "{}", "{args}");
    }
    // Both, different: answer (canonical, the streamed text) wins, with a warning.
    let (p, w) = build(r#"{"answer":"A","raw_answer":"R"}"#);
    assert_eq!(p.get("raw_answer"), Some(&j("\"A\"")));
    assert_eq!(w, ["answer_conflict: answer and raw_answer differ; answer is used"]);
    // Same text twice (the normaliser mirrors answer): no warning, nothing in extra.
    let (p, w) = build(r#"{"answer":"A","raw_answer":"A"}"#);
    assert!(w.is_empty());
    assert_eq!(p.get("extra").unwrap().to_json(), "{}");
}

#[test]
fn build_answer_fallback_chain() {
    let cases = [
        (r#"{"text":"T","result":"R"}"#, "T", r#"{"result":"R"}"#),
        (r#"{"result":"R","output":"O"}"#, "R", "{\"output\":\"O\"}"),
        (r#"{"output":"O"}"#, "O", "{}"),
        (r#"{"response":"x"}"#, "x", "{}"),
        (r#"{"message":"x"}"#, "x", "{}"),
        (r#"{"content":"x"}"#, "x", "{}"),
        (r#"{"greeting":"x"}"#, "x", "{}"),
        (r#"{"joke":"x"}"#, "x", "{}"),
        (r#"{"reply":"x"}"#, "x", "{}"),
        (r#"{"summary":"x"}"#, "x", "{}"),
        (r#"{"explanation":"x"}"#, "x", "{}"),
        (r#"{"description":"x"}"#, "x", "{}"),
        (r#"{"body":"x"}"#, "x", "{}"),
        // A number is written as text.
        (r#"{"result":42}"#, "42", "{}"),
        (r#"{"result":true}"#, "true", "{}"),
        // A nested object is searched; the object stays in extra.
        (r#"{"result":{"text":"deep"}}"#, "deep", r#"{"result":{"text":"deep"}}"#),
        // A nested args.
        (r#"{"args":{"answer":"inner"}}"#, "inner", r#"{"args":{"answer":"inner"}}"#),
        // The only long string.
        (r#"{"foo":"a long enough string","n":1}"#, "a long enough string", r#"{"n":1}"#),
        // Blank fallback values are skipped.
        (r#"{"text":"","result":"R"}"#, "R", r#"{"text":""}"#),
    ];
    for (args, answer, extra) in cases {
        let (p, _) = build(args);
        assert_eq!(p.get("raw_answer").and_then(JsonValue::as_str), Some(answer), "{args}");
        assert_eq!(p.get("extra").unwrap().to_json(), extra, "{args}");
    }
    // Two long strings: no guess.
    let (p, w) = build(r#"{"a":"first long string","b":"second long string"}"#);
    assert_eq!(p.get("raw_answer").and_then(JsonValue::as_str), Some(NO_ANSWER));
    assert_eq!(w, ["raw_answer_missing: no answer in the args or the last observation"]);
    // A non-string answer is not the answer: dropped with a warning, the chain goes on.
    let (p, w) = build(r#"{"answer":{"x":1},"text":"T"}"#);
    assert_eq!(p.get("raw_answer").and_then(JsonValue::as_str), Some("T"));
    assert_eq!(w, ["field_dropped: answer: must be a string (got object)"]);
}

#[test]
fn build_b20_no_json_dump_and_last_observation() {
    // B20 (second half): args without an answer never become a JSON dump.
    let ctx = PayloadContext { last_observation: Some(j(r#"{"summary":"from the tool"}"#)), ..Default::default() };
    let b = build_final_payload(&j(r#"{"confidence":0.9}"#), &ctx).unwrap();
    assert_eq!(b.payload.raw_answer, "from the tool");
    assert_eq!(b.payload.confidence, Some(0.9));
    assert!(b.warnings.is_empty());
    let ctx = PayloadContext { last_observation: Some(j(r#""plain observation""#)), ..Default::default() };
    assert_eq!(build_final_payload(&j("{}"), &ctx).unwrap().payload.raw_answer, "plain observation");
    let ctx = PayloadContext { last_observation: Some(j(r#"{"rows":[1,2,3]}"#)), ..Default::default() };
    let b = build_final_payload(&j(r#"{"confidence":0.9}"#), &ctx).unwrap();
    assert_eq!(b.payload.raw_answer, NO_ANSWER);
    assert!(!b.payload.raw_answer.contains('{'));
    // The args' own answer beats the observation.
    let ctx = PayloadContext { last_observation: Some(j(r#""obs""#)), ..Default::default() };
    assert_eq!(build_final_payload(&j(r#"{"answer":"mine"}"#), &ctx).unwrap().payload.raw_answer, "mine");
}

#[test]
fn build_b20_one_bad_field_keeps_the_rest() {
    let (p, w) = build(
        r#"{"raw_answer":"A","confidence":1.5,"route":"kb","suggested_actions":[{"action_id":"x","label":"X"}],"language":"english","requires_followup":"no","warnings":["stale",3],"sources":[{"title":"S"},{"url":"no title"}]}"#,
    );
    assert_eq!(
        p.to_json(),
        r#"{"raw_answer":"A","artifacts":{},"confidence":null,"sources":[{"title":"S","url":null,"snippet":null,"relevance_score":null}],"route":"kb","suggested_actions":[{"action_id":"x","label":"X","params":{}}],"requires_followup":false,"warnings":["stale"],"language":null,"extra":{}}"#
    );
    assert_eq!(
        w,
        [
            "field_dropped: confidence: must be between 0 and 1 (got 1.5)",
            "item_dropped: sources[1]: sources[1].title: required string is missing",
            "field_dropped: requires_followup: must be a boolean (got string)",
            "item_dropped: warnings[1]: warnings[1]: must be a string (got number)",
            "field_dropped: language: must be an ISO 639-1 code such as \"en\" (got \"english\")",
        ]
    );
    // Wrong container types.
    let (p, w) =
        build(r#"{"answer":"A","sources":"s","suggested_actions":{},"artifacts":[],"extra":1,"route":2,"warnings":"w"}"#);
    assert_eq!(validate_final_payload(&p).unwrap(), FinalPayload::new("A"));
    assert_eq!(w.len(), 6, "{w:?}");
    // Nulls are "not given": no warning.
    let (p, w) = build(
        r#"{"answer":"A","sources":null,"confidence":null,"requires_followup":null,"extra":null,"artifacts":null,"language":null}"#,
    );
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(validate_final_payload(&p).unwrap(), FinalPayload::new("A"));
}

#[test]
fn build_b19_model_sources_and_artifacts_are_kept() {
    // B19: the model's sources are not overwritten by the (empty) collected list.
    let (p, _) = build(r#"{"answer":"A","sources":[{"title":"S"}]}"#);
    assert_eq!(p.get("sources").unwrap().to_json(), r#"[{"title":"S","url":null,"snippet":null,"relevance_score":null}]"#);
    // Merged with collected ones, deduplicated on (title, url, snippet), first kept.
    let ctx = PayloadContext {
        sources: vec![
            Source { url: Some("u".into()), relevance_score: Some(0.1), ..Source::new("S") },
            Source::new("S"),
            Source::new("C"),
        ],
        artifacts: vec![("tool".into(), vec![("chart".into(), j("{\"c\":1}")), ("shared".into(), j("\"collected\""))])],
        ..Default::default()
    };
    let args = j(
        r#"{"answer":"A","sources":[{"title":"S","url":"u","relevance_score":0.9},{"title":"M"}],"artifacts":{"tool":{"shared":"model","note":1},"other":{"x":2}}}"#,
    );
    let b = build_final_payload(&args, &ctx).unwrap();
    let titles: Vec<(&str, Option<f64>)> = b.payload.sources.iter().map(|s| (s.title.as_str(), s.relevance_score)).collect();
    assert_eq!(titles, [("S", Some(0.9)), ("M", None), ("S", None), ("C", None)]);
    assert_eq!(
        b.payload.to_value().get("artifacts").unwrap().to_json(),
        r#"{"tool":{"shared":"collected","note":1,"chart":{"c":1}},"other":{"x":2}}"#
    );
    // Unknown keys of a model-written source or action are ignored, with a warning.
    let (p, w) = build(
        r#"{"answer":"A","sources":[{"title":"S","page":3}],"suggested_actions":[{"action_id":"a","label":"L","icon":"x"}]}"#,
    );
    assert_eq!(p.get("sources").unwrap().to_json(), r#"[{"title":"S","url":null,"snippet":null,"relevance_score":null}]"#);
    assert_eq!(
        w,
        [
            "key_ignored: sources[0].page: not a field of its type",
            "key_ignored: suggested_actions[0].icon: not a field of its type"
        ]
    );
    // A non-object artifact entry of the model is dropped alone.
    let (p, w) = build(r#"{"answer":"A","artifacts":{"bad":1,"good":{"f":1}}}"#);
    assert_eq!(p.get("artifacts").unwrap().to_json(), r#"{"good":{"f":1}}"#);
    assert_eq!(w, ["item_dropped: artifacts.bad: must be an object (got number)"]);
}

#[test]
fn build_unknown_keys_move_to_extra() {
    let (p, w) = build(r#"{"answer":"A","thought":"t","chart_id":7,"extra":{"chart_id":1,"k":"v"}}"#);
    assert_eq!(p.get("extra").unwrap().to_json(), r#"{"chart_id":1,"k":"v","thought":"t"}"#);
    assert_eq!(w, ["extra_conflict: chart_id: extra.chart_id is kept, the top-level chart_id is dropped"]);
    let (p, _) = build(r#"{"answer":"A","z":1,"a":2}"#);
    assert_eq!(p.get("extra").unwrap().to_json(), r#"{"z":1,"a":2}"#);
}

#[test]
fn build_reflection_score_overrides_confidence() {
    let ctx = PayloadContext { reflection_score: Some(0.4), ..Default::default() };
    let b = build_final_payload(&j(r#"{"answer":"A","confidence":0.95}"#), &ctx).unwrap();
    assert_eq!(b.payload.confidence, Some(0.4));
    assert_eq!(b.payload.to_value().get("extra").unwrap().to_json(), r#"{"model_confidence":0.95}"#);
    // Without a model value nothing is added to extra.
    let b = build_final_payload(&j(r#"{"answer":"A"}"#), &ctx).unwrap();
    assert_eq!((b.payload.confidence, b.payload.extra.len()), (Some(0.4), 0));
    // An invalid model value is still recorded, and warned about.
    let b = build_final_payload(&j(r#"{"answer":"A","confidence":7}"#), &ctx).unwrap();
    assert_eq!(b.payload.confidence, Some(0.4));
    assert_eq!(b.payload.to_value().get("extra").unwrap().to_json(), r#"{"model_confidence":7}"#);
    assert_eq!(b.warnings, ["field_dropped: confidence: must be between 0 and 1 (got 7)"]);
    // The score must be in 0..=1.
    for bad in [1.5, -0.1, f64::NAN] {
        let ctx = PayloadContext { reflection_score: Some(bad), ..Default::default() };
        assert_eq!(build_final_payload(&j("{}"), &ctx).unwrap_err().code(), "invalid_input");
    }
}

#[test]
fn build_from_actions_and_scalars() {
    // A whole normalised action: its args are used.
    let (p, w) = build(r#"{"next_node":"final_response","args":{"answer":"A","route":"r"},"thought":null,"reasoning":"x"}"#);
    assert_eq!(
        (p.get("raw_answer").and_then(JsonValue::as_str), p.get("route").and_then(JsonValue::as_str)),
        (Some("A"), Some("r"))
    );
    assert!(w.is_empty());
    assert_eq!(p.get("extra").unwrap().to_json(), "{}");
    // Legacy terminal action.
    let (p, _) = build(r#"{"thought":"done","next_node":null,"args":{"raw_answer":"L"}}"#);
    assert_eq!(p.get("raw_answer").and_then(JsonValue::as_str), Some("L"));
    // Not a final response: used, with a warning.
    let (_, w) = build(r#"{"next_node":"search","args":{"answer":"A"}}"#);
    assert_eq!(w, ["not_final_response: the action's next_node is \"search\"; its args are used"]);
    // A string or number is the answer; null or an array is no answer.
    assert_eq!(build(r#""just text""#).0.get("raw_answer").and_then(JsonValue::as_str), Some("just text"));
    assert_eq!(build("3.5").0.get("raw_answer").and_then(JsonValue::as_str), Some("3.5"));
    assert_eq!(build("null").0.get("raw_answer").and_then(JsonValue::as_str), Some(NO_ANSWER));
    let (p, w) = build(r#"["a"]"#);
    assert_eq!(p.get("raw_answer").and_then(JsonValue::as_str), Some(NO_ANSWER));
    assert_eq!(w[0], "field_dropped: args: an array is not a final response's args");
}

#[test]
fn built_payloads_always_validate() {
    for args in [
        "{}",
        "null",
        "1",
        "[]",
        r#"{"answer":"A","extra":{"raw_answer":1}}"#,
        r#"{"answer":"A","confidence":0.5,"sources":[{"title":"t"}],"warnings":[],"language":"fr","requires_followup":true}"#,
        r#"{"raw_answer":"","artifacts":{"a":{}},"route":null}"#,
    ] {
        let (p, _) = build(args);
        validate_final_payload(&p).unwrap_or_else(|e| panic!("{args}: {e}"));
    }
}

#[test]
fn context_from_value() {
    let ctx = PayloadContext::from_value(&j(
        r#"{"artifacts":{"t":{"f":1}},"sources":[{"title":"S"}],"lastObservation":{"text":"o"},"reflectionScore":0.5}"#,
    ))
    .unwrap();
    assert_eq!(ctx.artifacts.len(), 1);
    assert_eq!(ctx.sources, [Source::new("S")]);
    assert_eq!(ctx.reflection_score, Some(0.5));
    assert_eq!(PayloadContext::from_value(&j("null")).unwrap(), PayloadContext::default());
    let snake = PayloadContext::from_value(&j(r#"{"last_observation":"o","reflection_score":1}"#)).unwrap();
    assert_eq!((snake.last_observation, snake.reflection_score), (Some(j("\"o\"")), Some(1.0)));
    for (bad, path) in [
        (r#"{"sources":[{"url":"u"}]}"#, "context.sources[0].title"),
        (r#"{"artifacts":{"t":1}}"#, "context.artifacts.t"),
        (r#"{"reflectionScore":2}"#, "context.reflectionScore"),
        ("[]", "context must be an object"),
    ] {
        let e = PayloadContext::from_value(&j(bad)).unwrap_err();
        assert_eq!(e.code(), "invalid_input");
        assert!(e.message().contains(path), "{}", e.message());
    }
}

// ---------------------------------------------------------------------------------------------
// redact_artifacts

const ALL_TYPES_SCHEMA: &str = r#"{"type":"object","properties":{
  "d":{"artifact":true},"l":{"artifact":true},"s":{"artifact":true},"i":{"artifact":true},
  "f":{"artifact":true},"b":{"artifact":true},"n":{"artifact":true},"keep":{"type":"string"}}}"#;

#[test]
fn placeholders_for_every_type() {
    let obs = j(
        r#"{"d":{"a":1,"b":2},"l":[1,2,3],"s":"héllo wörld","i":5,"f":2.5,"b":false,"n":null,"keep":"visible","other":{"x":1}}"#,
    );
    let out = redact_artifacts(&obs, &j(ALL_TYPES_SCHEMA)).unwrap();
    assert_eq!(
        out.to_json(),
        r#"{"d":"<artifact:dict size=13B>","l":"<artifact:list size=3 items>","s":"<artifact:str size=11 chars>","i":"<artifact:int>","f":"<artifact:float>","b":"<artifact:bool>","n":"<artifact:NoneType>","keep":"visible","other":{"x":1}}"#
    );
    let exp = j(r#"{"i":1e3}"#);
    assert_eq!(redact_artifacts(&exp, &j(ALL_TYPES_SCHEMA)).unwrap().to_json(), r#"{"i":"<artifact:float>"}"#);
}

#[test]
fn dict_sizes_in_b_kb_mb() {
    assert_eq!(human_size(0), "0B");
    assert_eq!(human_size(1023), "1023B");
    assert_eq!(human_size(1024), "1KB");
    assert_eq!(human_size(42 * 1024 + 100), "42KB");
    assert_eq!(human_size(1024 * 1024 - 1), "1MB");
    assert_eq!(human_size(5 * 1024 * 1024 + 1), "5MB");
    let big = format!(r#"{{"d":{{"k":"{}"}}}}"#, "x".repeat(42 * 1024));
    let out = redact_artifacts(&j(&big), &j(ALL_TYPES_SCHEMA)).unwrap();
    assert_eq!(out.to_json(), r#"{"d":"<artifact:dict size=42KB>"}"#);
}

#[test]
fn streamed_fields() {
    let schema = j(
        r#"{"properties":{"chart":{"artifact":true,"stream":true},"named":{"artifact":true,"stream_id":"sales_chart"},"off":{"artifact":true,"stream":false}}}"#,
    );
    let out = redact_artifacts(&j(r#"{"chart":{"a":1},"named":[1],"off":"x"}"#), &schema).unwrap();
    assert_eq!(
        out.to_json(),
        r#"{"chart":"<artifact:dict stream=chart>","named":"<artifact:list stream=sales_chart>","off":"<artifact:str size=1 chars>"}"#
    );
}

/// What pydantic v2 writes for nested models, optional models, lists and dicts of models.
const PYDANTIC_NESTED: &str = r##"{
  "$defs": {
    "Figure": {"properties": {"caption": {"type": "string"}, "png": {"artifact": true, "type": "string"}}, "required": ["caption", "png"], "title": "Figure", "type": "object"},
    "Section": {"properties": {"title": {"type": "string"}, "figure": {"anyOf": [{"$ref": "#/$defs/Figure"}, {"type": "null"}], "default": null}, "table": {"artifact": true, "items": {"additionalProperties": true, "type": "object"}, "type": "array"}}, "required": ["title"], "title": "Section", "type": "object"}
  },
  "properties": {
    "summary": {"type": "string"},
    "sections": {"items": {"$ref": "#/$defs/Section"}, "type": "array"},
    "main": {"$ref": "#/$defs/Figure"},
    "by_name": {"additionalProperties": {"$ref": "#/$defs/Figure"}, "type": "object"},
    "whole": {"$ref": "#/$defs/Figure", "artifact": true},
    "legacy": {"allOf": [{"$ref": "#/$defs/Figure"}], "description": "pydantic < 2.9 style"}
  },
  "required": ["summary"], "title": "Report", "type": "object"
}"##;

#[test]
fn nested_artifacts_through_refs_unions_lists_and_dicts() {
    let obs = j(
        r#"{"summary":"s","sections":[{"title":"A","figure":{"caption":"c","png":"AAAA"},"table":[{"r":1},{"r":2}]},{"title":"B","figure":null,"table":[]},"not an object"],
        "main":{"caption":"m","png":"BB","extra_key":"kept"},"by_name":{"x":{"caption":"x","png":"CCC"}},"whole":{"caption":"w","png":"D"},"legacy":{"caption":"l","png":"EE"},"unknown":{"png":"visible"}}"#,
    );
    let out = redact_artifacts(&obs, &j(PYDANTIC_NESTED)).unwrap();
    assert_eq!(
        out.to_json(),
        r#"{"summary":"s","sections":[{"title":"A","figure":{"caption":"c","png":"<artifact:str size=4 chars>"},"table":"<artifact:list size=2 items>"},{"title":"B","figure":null,"table":"<artifact:list size=0 items>"},"not an object"],"main":{"caption":"m","png":"<artifact:str size=2 chars>","extra_key":"kept"},"by_name":{"x":{"caption":"x","png":"<artifact:str size=3 chars>"}},"whole":"<artifact:dict size=25B>","legacy":{"caption":"l","png":"<artifact:str size=2 chars>"},"unknown":{"png":"visible"}}"#
    );
    // The collector names nested artifacts by their dotted path.
    let mut c = ArtifactCollector::default();
    c.collect("report", &j(PYDANTIC_NESTED), &obs).unwrap();
    let all = c.all();
    let names: Vec<&str> = all[0].1.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        ["sections.0.figure.png", "sections.0.table", "sections.1.table", "main.png", "by_name.x.png", "whole", "legacy.png"]
    );
}

#[test]
fn pattern_properties_count_as_matching_every_key() {
    // pydantic v2 writes `patternProperties` for `dict[Annotated[str, pattern], Model]`. Patterns
    // are not evaluated: an undeclared key takes every pattern's schema, so nothing marked as an
    // artifact under any of them leaks.
    let schema = j(
        r##"{"type":"object","properties":{"charts":{"type":"object","patternProperties":{"^c":{"$ref":"#/$defs/Chart"},"^t":{"type":"string"}}},"name":{"type":"string"}},"$defs":{"Chart":{"type":"object","properties":{"title":{"type":"string"},"options":{"type":"object","artifact":true}}}}}"##,
    );
    let obs = j(r#"{"charts":{"c1":{"title":"Q4","options":{"secret":"S"}},"x":{"title":"X","options":[1]}},"name":"n"}"#);
    let out = redact_artifacts(&obs, &schema).unwrap();
    assert_eq!(
        out.to_json(),
        r#"{"charts":{"c1":{"title":"Q4","options":"<artifact:dict size=14B>"},"x":{"title":"X","options":"<artifact:list size=1 items>"}},"name":"n"}"#
    );
    // The JSON-text walk reads the schema the same way.
    assert_eq!(streamroute::redact_artifacts_json(&obs.to_json(), &schema).unwrap(), out.to_json());
    let mut c = ArtifactCollector::default();
    c.collect("t", &schema, &obs).unwrap();
    let all = c.all();
    let names: Vec<&str> = all[0].1.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["charts.c1.options", "charts.x.options"]);
    // A declared property still takes only its own schema.
    let declared = j(r#"{"type":"object","properties":{"a":{"type":"string"}},"patternProperties":{".*":{"artifact":true}}}"#);
    assert_eq!(
        redact_artifacts(&j(r#"{"a":"kept","b":"gone"}"#), &declared).unwrap().to_json(),
        r#"{"a":"kept","b":"<artifact:str size=4 chars>"}"#
    );
}

#[test]
fn zod_style_definitions_and_refs() {
    // zod-to-json-schema: `definitions`, `$ref` into them, `nullable` as anyOf.
    let schema = j(
        r##"{"$ref":"#/definitions/Out","definitions":{"Out":{"type":"object","properties":{"file":{"type":"object","properties":{"bytes":{"type":"string","artifact":true}}},"maybe":{"anyOf":[{"type":"string","artifact":true},{"type":"null"}]}},"additionalProperties":false}},"$schema":"http://json-schema.org/draft-07/schema#"}"##,
    );
    let out = redact_artifacts(&j(r#"{"file":{"bytes":"xyz","name":"n"},"maybe":"secret"}"#), &schema).unwrap();
    assert_eq!(
        out.to_json(),
        r#"{"file":{"bytes":"<artifact:str size=3 chars>","name":"n"},"maybe":"<artifact:str size=6 chars>"}"#
    );
}

#[test]
fn redaction_edge_cases() {
    let schema = j(ALL_TYPES_SCHEMA);
    // Non-object observations come back as they are.
    for v in ["\"text\"", "3", "null", "true", "[1,2]"] {
        assert_eq!(redact_artifacts(&j(v), &schema).unwrap(), j(v));
    }
    // Repeated keys: parsed text keeps the first (the crate's rule, the text walk too); a
    // value built with the repeats in it has every occurrence redacted.
    let text = r#"{"s":"one","s":"two"}"#;
    let first = r#"{"s":"<artifact:str size=3 chars>"}"#;
    assert_eq!(redact_artifacts(&j(text), &schema).unwrap().to_json(), first);
    assert_eq!(streamroute::redact_artifacts_json(text, &schema).unwrap(), first);
    let both =
        JsonValue::Object(vec![("s".into(), JsonValue::String("one".into())), ("s".into(), JsonValue::String("two".into()))]);
    assert_eq!(
        redact_artifacts(&both, &schema).unwrap().to_json(),
        r#"{"s":"<artifact:str size=3 chars>","s":"<artifact:str size=3 chars>"}"#
    );
    // A top-level array whose schema describes its items is walked.
    let arr = j(r#"{"type":"array","items":{"properties":{"x":{"artifact":true}}}}"#);
    assert_eq!(redact_artifacts(&j(r#"[{"x":1},{"y":2}]"#), &arr).unwrap().to_json(), r#"[{"x":"<artifact:int>"},{"y":2}]"#);
    // Truthy marks as Python reads them.
    let truthy = j(
        r#"{"properties":{"a":{"artifact":1},"b":{"artifact":"yes"},"c":{"artifact":0},"d":{"artifact":""},"e":{"artifact":null},"f":{"artifact":0.0}}}"#,
    );
    assert_eq!(
        redact_artifacts(&j(r#"{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1}"#), &truthy).unwrap().to_json(),
        r#"{"a":"<artifact:int>","b":"<artifact:int>","c":1,"d":1,"e":1,"f":1}"#
    );
    // Boolean schemas mark nothing; bad schemas are typed errors.
    assert_eq!(redact_artifacts(&j(r#"{"a":1}"#), &j("true")).unwrap(), j(r#"{"a":1}"#));
    for bad in ["\"schema\"", "[]", "null", "1"] {
        assert_eq!(redact_artifacts(&j("{}"), &j(bad)).unwrap_err().code(), "invalid_input");
    }
    // Unresolvable and cyclic refs are harmless.
    let cyclic = j(
        r##"{"$defs":{"N":{"properties":{"next":{"$ref":"#/$defs/N"},"blob":{"artifact":true},"loop":{"$ref":"#/$defs/L"}}},"L":{"$ref":"#/$defs/L"}},"$ref":"#/$defs/N","properties":{"bad":{"$ref":"#/nowhere"}}}"##,
    );
    let out = redact_artifacts(&j(r#"{"next":{"next":{"blob":[1]}},"bad":{"blob":1},"loop":{"blob":2}}"#), &cyclic).unwrap();
    assert_eq!(out.to_json(), r#"{"next":{"next":{"blob":"<artifact:list size=1 items>"}},"bad":{"blob":1},"loop":{"blob":2}}"#);
    // Deeper than the cap: a typed error, never a stack overflow or a leak.
    let mut deep = JsonValue::Object(vec![("blob".into(), JsonValue::String("secret".into()))]);
    for _ in 0..600 {
        deep = JsonValue::Object(vec![("next".into(), deep)]);
    }
    assert_eq!(redact_artifacts(&deep, &cyclic).unwrap_err().code(), "json_too_deep");
}

#[test]
fn b18_collect_and_redact_do_not_depend_on_size() {
    // B18: the reference collected from the clamped observation (big artifacts vanished) and
    // sent truncated observations unredacted. Here a 60 000-character artifact is collected
    // whole and redacted whatever its size.
    let schema = j(r#"{"properties":{"csv":{"artifact":true},"note":{"type":"string"}}}"#);
    let csv = "a,b\n".repeat(15_000);
    let obs =
        JsonValue::Object(vec![("csv".into(), JsonValue::String(csv.clone())), ("note".into(), JsonValue::String("n".into()))]);
    let mut c = ArtifactCollector::default();
    c.collect("export", &schema, &obs).unwrap();
    assert_eq!(c.all()[0].1[0].1.as_str().map(str::len), Some(60_000));
    let red = redact_artifacts(&obs, &schema).unwrap();
    assert_eq!(red.to_json(), r#"{"csv":"<artifact:str size=60000 chars>","note":"n"}"#);
    assert!(!red.to_json().contains("a,b"));
}

// ---------------------------------------------------------------------------------------------
// ArtifactCollector

#[test]
fn collector_merges_and_overwrites() {
    let schema = j(r#"{"properties":{"chart":{"artifact":true},"csv":{"artifact":true},"text":{"type":"string"}}}"#);
    let mut c = ArtifactCollector::default();
    c.collect("t1", &schema, &j(r#"{"chart":{"v":1},"text":"x"}"#)).unwrap();
    c.collect("t2", &schema, &j(r#"{"text":"no artifacts"}"#)).unwrap();
    c.collect("t1", &schema, &j(r#"{"csv":"a,b","chart":{"v":2}}"#)).unwrap();
    assert_eq!(c.all_value().to_json(), r#"{"t1":{"chart":{"v":2},"csv":"a,b"}}"#);
    c.collect("t\"3", &schema, &j(r#"{"csv":"x"}"#)).unwrap();
    assert_eq!(c.all_json(), c.all_value().to_json());
    c.clear();
    assert_eq!(c.all_value().to_json(), "{}");
}

#[test]
fn collector_large_artifacts_go_to_the_store() {
    let schema = j(r#"{"properties":{"big":{"artifact":true},"small":{"artifact":true}}}"#);
    let obs = j(r#"{"big":[1,2,3,4,5,6,7,8,9,10],"small":[1]}"#);
    let opts = ArtifactCollectorOptions { max_inline_bytes: 10 };
    // No store: kept inline, warned.
    let mut c = ArtifactCollector::new(opts);
    c.collect("t", &schema, &obs).unwrap();
    assert_eq!(c.all_value().to_json(), r#"{"t":{"big":[1,2,3,4,5,6,7,8,9,10],"small":[1]}}"#);
    assert_eq!(c.warnings(), ["artifact_large: t.big is 22 bytes (over 10), kept inline (no store)"]);
    // With a store: replaced by a reference.
    let mut stored = Vec::new();
    let mut store = |node: &str, field: &str, v: &JsonValue| {
        stored.push((node.to_string(), field.to_string(), v.to_json()));
        Ok(format!("ref_{}", stored.len()))
    };
    let mut c = ArtifactCollector::new(opts);
    c.collect_with("t", &schema, &obs, Some(&mut store)).unwrap();
    assert_eq!(c.all_value().to_json(), r#"{"t":{"big":{"artifact_ref":"ref_1","type":"list","size_bytes":22},"small":[1]}}"#);
    assert_eq!(c.warnings(), ["artifact_large: t.big is 22 bytes (over 10), stored as ref_1"]);
    assert_eq!(stored, [("t".to_string(), "big".to_string(), "[1,2,3,4,5,6,7,8,9,10]".to_string())]);
    // Exactly the limit stays inline.
    let mut c = ArtifactCollector::new(ArtifactCollectorOptions { max_inline_bytes: 22 });
    c.collect("t", &schema, &obs).unwrap();
    assert!(c.warnings().is_empty());
    // A failing store fails the call and keeps nothing of it.
    let mut c = ArtifactCollector::new(opts);
    let mut failing =
        |_: &str, _: &str, _: &JsonValue| Err(streamroute::Error::new(streamroute::ErrorKind::InvalidInput, "disk full"));
    assert_eq!(c.collect_with("t", &schema, &obs, Some(&mut failing)).unwrap_err().message(), "disk full");
    assert_eq!(c.all_value().to_json(), "{}");
    assert_eq!(ArtifactCollector::default().options().max_inline_bytes, 1024 * 1024);
}

// ---------------------------------------------------------------------------------------------
// collect_sources

const SEARCH_SCHEMA: &str = r##"{
  "$defs": {"SearchResult": {"produces_sources": true, "properties": {"title": {"type": "string"}, "url": {"type": "string"}, "snippet": {"type": "string"}, "score": {"type": "number", "source_field": "relevance_score"}, "heading": {"type": "string", "source_field": "title"}}, "type": "object"}},
  "properties": {"query": {"type": "string"}, "results": {"items": {"$ref": "#/$defs/SearchResult"}, "type": "array"}, "best": {"anyOf": [{"$ref": "#/$defs/SearchResult"}, {"type": "null"}]}},
  "type": "object"
}"##;

#[test]
fn sources_from_marked_models() {
    let schema = j(SEARCH_SCHEMA);
    let obs = j(
        r#"{"query":"q","results":[{"title":"A","url":"https://a","snippet":"sa","score":0.9},{"heading":"B","score":1},{"url":"no title"},{"title":"C","score":"bad"},{"title":"A","url":"https://a","snippet":"sa","score":0.1}],"best":{"title":"D"}}"#,
    );
    let flat = j(
        r#"{"produces_sources":true,"properties":{"title":{},"link":{"source_field":"url"},"body":{"source_field":"snippet"}}}"#,
    );
    let flat_obs = j(r#"{"title":"E","link":"https://e","body":"b","other":1}"#);
    let none = j("null");
    let sources = collect_sources(&[
        ToolStep { node: "search", schema: &schema, observation: &obs },
        ToolStep { node: "fetch", schema: &flat, observation: &flat_obs },
        ToolStep { node: "empty", schema: &flat, observation: &none },
        ToolStep { node: "again", schema: &flat, observation: &flat_obs },
    ])
    .unwrap();
    let got: Vec<String> = sources.iter().map(|s| s.to_value().to_json()).collect();
    assert_eq!(
        got,
        [
            r#"{"title":"A","url":"https://a","snippet":"sa","relevance_score":0.9}"#,
            r#"{"title":"B","url":null,"snippet":null,"relevance_score":1}"#,
            r#"{"title":"D","url":null,"snippet":null,"relevance_score":null}"#,
            r#"{"title":"E","url":"https://e","snippet":"b","relevance_score":null}"#,
        ]
    );
    // Without the model-level mark, no sources.
    let unmarked = j(r#"{"properties":{"title":{}}}"#);
    let obs = j(r#"{"title":"X"}"#);
    assert!(collect_sources(&[ToolStep { node: "n", schema: &unmarked, observation: &obs }]).unwrap().is_empty());
    assert_eq!(collect_sources(&[ToolStep { node: "n", schema: &none, observation: &obs }]).unwrap_err().code(), "invalid_input");
}

// ---------------------------------------------------------------------------------------------
// ArtifactStream

#[test]
fn artifact_stream_numbers_chunks_per_stream() {
    let mut s = ArtifactStream::new();
    // The JSON text written directly is the value's.
    let e = |c: streamroute::ArtifactChunk| {
        let text = c.to_json_text().unwrap();
        assert_eq!(text, c.to_value().to_json());
        text
    };
    assert_eq!(
        e(s.emit("chart", j(r#"{"a":1}"#), false, None).unwrap()),
        r#"{"type":"artifact_chunk","stream_id":"chart","seq":0,"chunk":{"a":1},"done":false,"artifact_type":"dict"}"#
    );
    assert_eq!(
        e(s.emit("table", j("[1]"), false, Some("csv_rows")).unwrap()),
        r#"{"type":"artifact_chunk","stream_id":"table","seq":0,"chunk":[1],"done":false,"artifact_type":"csv_rows"}"#
    );
    assert_eq!(s.emit("chart", j(r#""x""#), false, None).unwrap().seq, 1);
    assert_eq!(s.open_streams(), ["chart", "table"]);
    let last = s.emit("chart", j("null"), true, None).unwrap();
    assert_eq!((last.seq, last.done, last.artifact_type.as_str()), (2, true, "NoneType"));
    assert_eq!(s.open_streams(), ["table"]);
    assert_eq!(s.emit("chart", j("1"), false, None).unwrap_err().code(), "invalid_state");
    assert_eq!(s.emit("table", j("2.5"), true, None).unwrap().artifact_type, "float");
    assert_eq!(s.emit("", j("1"), false, None).unwrap_err().code(), "invalid_input");
    assert_eq!(s.emit("x", j("1"), false, Some("")).unwrap_err().code(), "invalid_input");
    s.reset();
    assert_eq!(s.emit("chart", j("1"), true, None).unwrap().seq, 0);
    for i in 1..streamroute::MAX_STREAMS {
        s.emit(&format!("s{i}"), j("1"), false, None).unwrap();
    }
    assert_eq!(s.emit("one too many", j("1"), false, None).unwrap_err().code(), "buffer_limit_exceeded");
    let done = done_event(&FinalPayload::new("A"));
    assert_eq!(done.get("type"), Some(&j("\"done\"")));
    assert_eq!(validate_final_payload(done.get("payload").unwrap()).unwrap(), FinalPayload::new("A"));
}

#[test]
fn json_len_matches_to_json() {
    for text in [r#"{"a":"\u0001\n\"\\é","b":[1,true,false,null,{}],"c":[]}"#, "[]", "{}", r#""\u001f\b\f\t\r""#] {
        let v = j(text);
        assert_eq!(json_len(&v), v.to_json().len(), "{text}");
    }
}

#[test]
fn text_walk_equals_tree_walk() {
    // Escapes, non-ASCII, whitespace, duplicates, nested artifacts, every placeholder kind.
    let text = "{ \"s\" : \"\\u00e9\\ud83d\\ude00\\n\", \"d\":{\"k\":\"\\n\\u0001\\\"\",\"a\":[1, 2.5e3,{\"x\":null}]},\"l\":[ [], {}, \"\\\\\" ],\n\"i\":-0,\"f\":1.0,\"b\":true,\"n\":null,\"keep\":\"\\u0041\",\"s\":\"again\",\"other\":{\"d\":[1]}}";
    let schema = j(ALL_TYPES_SCHEMA);
    let tree = redact_artifacts(&j(text), &schema).unwrap().to_json();
    assert_eq!(streamroute::redact_artifacts_json(text, &schema).unwrap(), tree);
    let mut c1 = ArtifactCollector::default();
    c1.collect("t", &schema, &j(text)).unwrap();
    let mut c2 = ArtifactCollector::default();
    assert_eq!(c2.collect_and_redact_json("t", &schema, text, None).unwrap(), tree);
    assert_eq!(c1.all(), c2.all());
    let nested = j(PYDANTIC_NESTED);
    let obs = r#"{"sections":[{"figure":{"png":"AAAA","caption":"c"},"table":[{"r":1}]},{"figure":null}],"whole":{"png":"x"},"by_name":{"a":{"png":"y"}}}"#;
    assert_eq!(streamroute::redact_artifacts_json(obs, &nested).unwrap(), redact_artifacts(&j(obs), &nested).unwrap().to_json());
    // Primitives and errors.
    assert_eq!(streamroute::redact_artifacts_json(" \"x\" ", &schema).unwrap(), "\"x\"");
    assert_eq!(streamroute::redact_artifacts_json("{\"s\":", &schema).unwrap_err().code(), "json_invalid");
    assert_eq!(streamroute::redact_artifacts_json("{}", &j("1")).unwrap_err().code(), "invalid_input");
    let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
    assert_eq!(streamroute::redact_artifacts_json(&deep, &schema).unwrap_err().code(), "json_too_deep");
}

// ---------------------------------------------------------------------------------------------
// Fail closed: one result per value, limits that never let a marked value through

/// Every redacting and collecting entry point on one observation: the redacted compact JSON
/// and what was collected (as compact JSON), or the error code. All must agree.
fn every_entry_point(obs: &JsonValue, schema: &JsonValue) -> Result<(String, String), String> {
    let text = obs.to_json();
    let code = |e: streamroute::Error| e.code().to_string();
    let tree = redact_artifacts(obs, schema).map(|v| v.to_json()).map_err(code);
    let from_text = streamroute::redact_artifacts_json(&text, schema).map_err(code);
    assert_eq!(from_text, tree, "redact_artifacts_json vs redact_artifacts");
    let mut in_place = obs.clone();
    let r = streamroute::redact_artifacts_in_place(&mut in_place, schema).map_err(code);
    assert_eq!(r.map(|()| in_place.to_json()), tree, "redact_artifacts_in_place");
    let mut c1 = ArtifactCollector::default();
    let r1 = c1.collect("t", schema, obs).map_err(code);
    let mut c2 = ArtifactCollector::default();
    let r2 = c2.collect_json("t", schema, &text, None).map_err(code);
    let mut c3 = ArtifactCollector::default();
    let r3 = c3.collect_and_redact("t", schema, obs.clone(), None).map(|v| v.to_json()).map_err(code);
    let mut c4 = ArtifactCollector::default();
    let r4 = c4.collect_and_redact_json("t", schema, &text, None).map_err(code);
    assert_eq!(r3, tree, "collect_and_redact");
    assert_eq!(r4, tree, "collect_and_redact_json");
    let collected = c1.all_value().to_json();
    let outcome = tree.clone().map(|_| ());
    assert_eq!(r1, outcome, "collect");
    assert_eq!(r2, outcome, "collect_json");
    for c in [&c2, &c3, &c4] {
        assert_eq!(c.all_value().to_json(), collected, "collected");
    }
    tree.map(|t| (t, collected))
}

const BLOB_SCHEMA: &str = r#"{"type":"object","properties":{"blob":{"artifact":true},"keep":{"type":"string"}}}"#;

#[test]
fn a_string_observation_holding_json_is_one_value_everywhere() {
    // A tool's raw JSON output arriving as a string (a JSON string literal in JSON text) is
    // redacted and collected like the object it holds, by every entry point.
    let schema = j(BLOB_SCHEMA);
    let inner = r#"{ "blob": {"secret": "SECRET"}, "keep": "k" }"#;
    let obs = JsonValue::String(inner.to_string());
    let (redacted, collected) = every_entry_point(&obs, &schema).unwrap();
    assert_eq!(redacted, JsonValue::String(r#"{"blob":"<artifact:dict size=19B>","keep":"k"}"#.into()).to_json());
    assert_eq!(collected, r#"{"t":{"blob":{"secret":"SECRET"}}}"#);
    // Inside JSON text: the literal is redacted inside, and gives what the tree gives.
    assert_eq!(streamroute::redact_artifacts_json(&obs.to_json(), &schema).unwrap(), redacted);
    // Nothing to redact, prose, or not JSON after all: the string as it is.
    for plain in ["{ \"keep\" : \"k\" }", "hello", "{not json", "  [1, 2]  ", "", "{\"blob\":"] {
        let v = JsonValue::String(plain.into());
        let (r, c) = every_entry_point(&v, &schema).unwrap();
        assert_eq!(r, v.to_json(), "{plain:?}");
        assert_eq!(c, "{}");
    }
    // Limits inside the string are the walk's limits: typed errors, not the string unchanged.
    let deep = format!("{{\"blob\":1,\"x\":{}{}}}", "[".repeat(600), "]".repeat(600));
    assert_eq!(every_entry_point(&JsonValue::String(deep), &schema).unwrap_err(), "json_too_deep");
    // Sources from a string observation holding JSON.
    let flat = j(r#"{"produces_sources":true,"properties":{"title":{},"link":{"source_field":"url"}}}"#);
    let text_obs = JsonValue::String(r#"{"title":"E","link":"https://e"}"#.into());
    let sources = collect_sources(&[ToolStep { node: "fetch", schema: &flat, observation: &text_obs }]).unwrap();
    assert_eq!(sources.len(), 1);
    assert_eq!(sources[0].url.as_deref(), Some("https://e"));
}

/// `{"payload": <wrapped model>}` where the model holds the artifact `blob`.
fn wrapped(wrapper: JsonValue, defs: Vec<(String, JsonValue)>) -> JsonValue {
    JsonValue::Object(vec![
        ("type".into(), JsonValue::String("object".into())),
        ("properties".into(), JsonValue::Object(vec![("payload".into(), wrapper)])),
        ("$defs".into(), JsonValue::Object(defs)),
    ])
}

fn reference(name: &str) -> JsonValue {
    JsonValue::Object(vec![("$ref".into(), JsonValue::String(format!("#/$defs/{name}")))])
}

fn any_of(members: Vec<JsonValue>) -> JsonValue {
    JsonValue::Object(vec![("anyOf".into(), JsonValue::Array(members))])
}

/// A union of `n` models, the one with the artifact last.
fn union_of(n: usize) -> JsonValue {
    let mut defs: Vec<(String, JsonValue)> =
        (0..n - 1).map(|i| (format!("M{i}"), j(r#"{"type":"object","properties":{"other":{"type":"string"}}}"#))).collect();
    defs.push(("Blob".into(), j(BLOB_SCHEMA)));
    let members = defs.iter().map(|(name, _)| reference(name)).collect();
    wrapped(any_of(members), defs)
}

/// `anyOf: [X, null]` `depth` deep around the model.
fn deep_any_of(depth: usize) -> JsonValue {
    let mut s = j(BLOB_SCHEMA);
    for _ in 0..depth {
        s = any_of(vec![s, j(r#"{"type":"null"}"#)]);
    }
    wrapped(s, Vec::new())
}

/// A `$ref` chain of `hops` hops to the model.
fn ref_chain(hops: usize) -> JsonValue {
    let mut defs: Vec<(String, JsonValue)> =
        (0..hops - 1).map(|i| (format!("R{i}"), reference(&format!("R{}", i + 1)))).collect();
    defs.push((format!("R{}", hops - 1), reference("Blob")));
    defs.push(("Blob".into(), j(BLOB_SCHEMA)));
    wrapped(reference("R0"), defs)
}

#[test]
fn schema_expansion_fails_closed() {
    let obs = j(r#"{"payload":{"blob":"SECRET","keep":"k"}}"#);
    let redacted = r#"{"payload":{"blob":"<artifact:str size=6 chars>","keep":"k"}}"#;
    // What used to stop silently after 64 nodes: unions of 32+ models, anyOf 32 deep, $ref
    // chains of 63 hops. All are expanded now.
    for schema in [union_of(40), union_of(300), deep_any_of(40), deep_any_of(300), ref_chain(63), ref_chain(900)] {
        let (out, collected) = every_entry_point(&obs, &schema).unwrap();
        assert_eq!(out, redacted);
        assert_eq!(collected, r#"{"t":{"payload.blob":"SECRET"}}"#);
    }
    // Past the cap: schema_too_complex from every entry point, never a partial expansion.
    for schema in [union_of(600), deep_any_of(600), ref_chain(1100)] {
        assert_eq!(every_entry_point(&obs, &schema).unwrap_err(), "schema_too_complex");
        let v = JsonValue::String(obs.to_json());
        assert_eq!(every_entry_point(&v, &schema).unwrap_err(), "schema_too_complex");
        let sources = collect_sources(&[ToolStep { node: "t", schema: &schema, observation: &obs }]);
        assert_eq!(sources.unwrap_err().code(), "schema_too_complex");
    }
    // A union wider than the cap is refused before it is read.
    let wide = wrapped(any_of(vec![j("{}"); 5000]), Vec::new());
    assert_eq!(every_entry_point(&obs, &wide).unwrap_err(), "schema_too_complex");
    // Cycles expand once: no error, no loop.
    let cyclic = wrapped(
        reference("C"),
        vec![(
            "C".into(),
            j(
                r##"{"anyOf":[{"$ref":"#/$defs/C"},{"allOf":[{"$ref":"#/$defs/C"}]},{"$ref":"#"},{"type":"object","properties":{"blob":{"artifact":true}}}]}"##,
            ),
        )],
    );
    assert_eq!(every_entry_point(&obs, &cyclic).unwrap().0, redacted);
}
