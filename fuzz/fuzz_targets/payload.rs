//! The payload API on arbitrary input: the bytes (lossily decoded) are split at the first NUL
//! into a tool schema and an observation, each read with `repair_json` (so most inputs are
//! JSON), and the whole text is also used as final-action args.
//!
//! Never a panic, and: `redact_artifacts` equals the observation of `collect_and_redact`, and
//! the collector holds exactly the values `collect` finds; the one-pass text walk
//! (`redact_artifacts_json`, `collect_and_redact_json`) gives the same; with nothing collected the
//! redaction is the identity; `build_final_payload` always gives a payload that
//! `validate_final_payload` accepts unchanged; `validate_final_payload` fails only with
//! `payload_invalid`. Errors of the schema walk are only `invalid_input` (a schema that is not
//! an object or boolean), `json_too_deep` and `schema_too_complex` (past the expansion cap).
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{
    build_final_payload, collect_sources, parse_json, redact_artifacts, redact_artifacts_json, validate_final_payload,
    ArtifactCollector, JsonValue, PayloadContext, ToolStep,
};

fn value(text: &str) -> JsonValue {
    parse_json(text, true).unwrap_or_else(|_| JsonValue::String(text.to_string()))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (a, b) = text.split_once('\0').unwrap_or((&text, "{}"));
    let schema = value(a);
    let observation = value(b);
    match redact_artifacts(&observation, &schema) {
        Ok(red) => {
            let mut c1 = ArtifactCollector::default();
            c1.collect("t", &schema, &observation).expect("collect agrees with redact");
            let mut c2 = ArtifactCollector::default();
            let both = c2.collect_and_redact("t", &schema, observation.clone(), None).expect("collect_and_redact");
            assert_eq!(both, red);
            assert_eq!(c1.all(), c2.all());
            // The one-pass text walk agrees with the tree walk.
            let text = observation.to_json();
            assert_eq!(redact_artifacts_json(&text, &schema).expect("text walk"), red.to_json());
            let mut c3 = ArtifactCollector::default();
            let red3 = c3.collect_and_redact_json("t", &schema, &text, None).expect("text collect");
            assert_eq!(red3, red.to_json());
            assert_eq!(c3.all(), c1.all());
            // With nothing collected the redaction is the identity.
            if c1.all().is_empty() {
                assert_eq!(red, observation);
            }
        }
        Err(e) => assert!(matches!(e.code(), "invalid_input" | "json_too_deep" | "schema_too_complex"), "{e}"),
    }
    if let Err(e) = collect_sources(&[ToolStep { node: "t", schema: &schema, observation: &observation }]) {
        assert!(matches!(e.code(), "invalid_input" | "json_too_deep" | "schema_too_complex"), "{e}");
    }
    let args = value(&text);
    let ctx = PayloadContext { last_observation: Some(observation), ..Default::default() };
    let built = build_final_payload(&args, &ctx).expect("a context without a score never fails");
    let v = built.payload.to_value();
    assert_eq!(validate_final_payload(&v).expect("built payloads validate"), built.payload);
    if let Err(e) = validate_final_payload(&args) {
        assert_eq!(e.code(), "payload_invalid");
    }
});
