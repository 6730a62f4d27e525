//! The bindings under Node, through wasm-bindgen-test: string and byte chunks, surrogate
//! pairs split between string chunks, errors as `StreamrouteError` with `code`, maps as
//! plain objects. (`scripts/test` runs this with `--target wasm32-unknown-unknown`.)
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Reflect, Uint8Array};
use streamroute::wasm::sse::{JsSseDecoder, JsSseEncoder};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn get(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

fn datas(events: &JsValue) -> Vec<String> {
    let arr: &Array = events.unchecked_ref();
    arr.iter().map(|e| get(&e, "data").as_string().unwrap()).collect()
}

#[wasm_bindgen_test]
fn string_and_byte_chunks_decode_alike() {
    let mut d = JsSseDecoder::new(None).unwrap();
    let a = d.feed(JsValue::from_str("data: caf\u{e9}\n\n")).unwrap();
    let bytes = "data: caf\u{e9}\n\n".as_bytes();
    let first = Uint8Array::from(&bytes[..9]);
    let second = Uint8Array::from(&bytes[9..]);
    let b1 = d.feed(first.into()).unwrap();
    let b2 = d.feed(second.into()).unwrap();
    assert_eq!(datas(&a), vec!["caf\u{e9}"]);
    assert!(datas(&b1).is_empty());
    assert_eq!(datas(&b2), vec!["caf\u{e9}"]);
}

#[wasm_bindgen_test]
fn surrogate_pair_split_between_string_chunks() {
    let mut d = JsSseDecoder::new(None).unwrap();
    let s = js_sys::JsString::from("data: \u{1F600}\n\n");
    let mut out = Vec::new();
    for i in 0..s.length() {
        let unit = s.slice(i, i + 1);
        out.extend(datas(&d.feed(unit.into()).unwrap()));
    }
    assert_eq!(out, vec!["\u{1F600}"]);
}

#[wasm_bindgen_test]
fn lone_high_surrogate_at_end_becomes_replacement() {
    let mut d = JsSseDecoder::new(None).unwrap();
    let high = js_sys::JsString::from_char_code1(0xD83D);
    let chunk = js_sys::JsString::from("data: x").concat(&high);
    assert!(datas(&d.feed(chunk.into()).unwrap()).is_empty());
    assert!(datas(&d.feed(JsValue::from_str("\n\n")).unwrap()) == vec!["x\u{FFFD}"]);
}

#[wasm_bindgen_test]
fn cap_error_is_a_streamroute_error_with_events() {
    let opts = js_sys::Object::new();
    Reflect::set(&opts, &"maxLineBytes".into(), &JsValue::from_f64(8.0)).unwrap();
    let mut d = JsSseDecoder::new(Some(opts.into())).unwrap();
    let err = d.feed(JsValue::from_str("data: a\n\ndata: too long\n\n")).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "sse_event_too_large");
    assert_eq!(get(&err, "name").as_string().unwrap(), "StreamrouteError");
    assert!(err.is_instance_of::<js_sys::Error>());
    assert_eq!(datas(&get(&err, "events")), vec!["a"]);
    // The decoder stays failed.
    let again = d.feed(JsValue::from_str("data: b\n\n")).unwrap_err();
    assert_eq!(get(&again, "code").as_string().unwrap(), "sse_event_too_large");
}

#[wasm_bindgen_test]
fn bad_chunk_and_bad_options_are_typed_errors() {
    let mut d = JsSseDecoder::new(None).unwrap();
    let err = d.feed(JsValue::from_f64(1.0)).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_input");
    let opts = js_sys::Object::new();
    Reflect::set(&opts, &"maxEventBytes".into(), &JsValue::from_f64(0.5)).unwrap();
    let err = JsSseDecoder::new(Some(opts.into())).err().unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_option");
}

#[wasm_bindgen_test]
fn encoder_round_trip_and_invalid_field() {
    let mut e = JsSseEncoder::new(None).unwrap();
    let msg = js_sys::Object::new();
    Reflect::set(&msg, &"event".into(), &"note".into()).unwrap();
    Reflect::set(&msg, &"data".into(), &"a\nb".into()).unwrap();
    Reflect::set(&msg, &"id".into(), &JsValue::from_f64(42.0)).unwrap();
    let wire = e.encode(msg.into()).unwrap();
    assert_eq!(wire, "event: note\nid: 42\ndata: a\ndata: b\n\n");
    let mut d = JsSseDecoder::new(None).unwrap();
    let ev = d.feed(JsValue::from_str(&wire)).unwrap();
    assert_eq!(datas(&ev), vec!["a\nb"]);
    let bad = js_sys::Object::new();
    Reflect::set(&bad, &"event".into(), &"a\rb".into()).unwrap();
    Reflect::set(&bad, &"data".into(), &"".into()).unwrap();
    let err = e.encode(bad.into()).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "sse_invalid_field");
}

#[wasm_bindgen_test]
fn nonce_and_maps_as_plain_objects() {
    let n = streamroute::wasm::make_nonce().unwrap();
    assert_eq!(n.len(), 32);
    let info = streamroute::wasm::build_info().unwrap();
    let limits = get(&info, "limits");
    assert!(!limits.is_instance_of::<js_sys::Map>());
    assert_eq!(get(&limits, "sseMaxLineBytes").as_f64(), Some(1048576.0));
    // The default build (every feature) is the main entry.
    assert_eq!(get(&info, "entry").as_string().as_deref(), Some("streamroute"));
    let features: Vec<String> = js_sys::Array::from(&get(&info, "features")).iter().filter_map(|f| f.as_string()).collect();
    assert_eq!(features, ["sse", "json", "tags", "router", "payload", "planning"]);
}

#[wasm_bindgen_test]
fn stream_router_takes_string_units_and_bytes_alike() {
    use streamroute::wasm::router::JsStreamRouter;
    let text = "data: {\"choices\":[{\"delta\":{\"content\":\"caf\u{e9} \u{1F600}\"},\"finish_reason\":\"stop\"}]}\n\n";
    let collect = |r: &mut JsStreamRouter, chunks: Vec<JsValue>| {
        let mut answer = String::new();
        let mut types = Vec::new();
        let mut all: Vec<JsValue> = Vec::new();
        for c in chunks {
            let a: Array = r.feed(c).unwrap().unchecked_into();
            all.extend(a.iter());
        }
        let a: Array = r.finish().unwrap().unchecked_into();
        all.extend(a.iter());
        for e in all {
            let t = get(&e, "type").as_string().unwrap();
            if t == "answer_delta" {
                answer.push_str(&get(&e, "text").as_string().unwrap());
            }
            types.push(t);
        }
        (answer, types.last().cloned())
    };
    let js = js_sys::JsString::from(text);
    let units: Vec<JsValue> = (0..js.length()).map(|i| js.slice(i, i + 1).into()).collect();
    let mut r = JsStreamRouter::new(None).unwrap();
    let by_unit = collect(&mut r, units);
    let mut r = JsStreamRouter::new(None).unwrap();
    let bytes: Vec<JsValue> = text.as_bytes().chunks(3).map(|c| Uint8Array::from(c).into()).collect();
    let by_bytes = collect(&mut r, bytes);
    assert_eq!(by_unit, ("caf\u{e9} \u{1F600}".to_string(), Some("done".to_string())));
    assert_eq!(by_bytes, by_unit);
    assert_eq!(r.provider(), "openai-chat");
    let err = JsStreamRouter::new(Some(js_sys::JSON::parse("{\"content\":\"yaml\"}").unwrap())).err().unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_option");
}

#[wasm_bindgen_test]
fn options_of_booleans_and_numbers_are_checked_with_the_same_messages() {
    use streamroute::wasm::json::JsPartialJson;
    let parse = |s: &str| js_sys::JSON::parse(s).unwrap();
    let bad = [
        ("\"x\"", "invalid_option", "invalid options: invalid type: a string, expected struct PartialJsonOptions"),
        ("[1]", "invalid_option", "invalid options: invalid type: an array, expected struct PartialJsonOptions"),
        ("{\"strict\":1}", "invalid_option", "invalid options: invalid type: a number, expected a boolean"),
        ("{\"maxDepth\":\"8\"}", "invalid_option", "invalid options: invalid type: a string, expected f64"),
        ("{\"maxDepth\":true}", "invalid_option", "invalid options: invalid type: boolean `true`, expected f64"),
        ("{\"strict\":[],\"maxDepth\":\"8\"}", "invalid_option", "invalid options: invalid type: an array, expected a boolean"),
        ("{\"maxDepth\":2,\"other\":1}", "invalid_input", "invalid options: unknown option \"other\""),
    ];
    for (options, code, message) in bad {
        let err = JsPartialJson::new(Some(parse(options))).err().unwrap();
        assert_eq!(get(&err, "code").as_string().unwrap(), code, "{options}");
        assert_eq!(get(&err, "message").as_string().unwrap(), message, "{options}");
    }
    for options in ["null", "{}", "{\"strict\":null,\"maxDepth\":null}", "{\"strict\":false,\"maxDepth\":3,\"maxBufferBytes\":64}"] {
        assert!(JsPartialJson::new(Some(parse(options))).is_ok(), "{options}");
    }
    let err = JsPartialJson::new(Some(parse("{\"maxDepth\":2000}"))).err().unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_option");
}

#[wasm_bindgen_test]
fn options_with_strings_and_lists_are_checked_with_the_same_messages() {
    use streamroute::wasm::tags::{JsTagFilter, JsTaggedTurn};
    let parse = |s: &str| js_sys::JSON::parse(s).unwrap();
    let nonce = || JsValue::from_str("n0nce");
    let filter = [
        ("{\"blocks\":\"ARTIFACT\"}", "invalid options: invalid type: a string, expected a sequence"),
        ("{\"blocks\":[\"A\",1]}", "invalid options: invalid type: a number, expected a string"),
        ("{\"blocks\":{}}", "invalid options: invalid type: an object, expected a sequence"),
        ("{\"maxBufferBytes\":\"1\"}", "invalid options: invalid type: a string, expected f64"),
        ("7", "invalid options: invalid type: a number, expected struct TagFilterInit"),
    ];
    for (options, message) in filter {
        let err = JsTagFilter::new(nonce(), Some(parse(options))).err().unwrap();
        assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_option", "{options}");
        assert_eq!(get(&err, "message").as_string().unwrap(), message, "{options}");
    }
    let err = JsTaggedTurn::new(Some(parse("{\"nonce\":5}"))).err().unwrap();
    assert_eq!(get(&err, "message").as_string().unwrap(), "invalid options: invalid type: a number, expected a string");
    let err = JsTaggedTurn::new(Some(parse("{\"blocks\":[\"A\"],\"bogus\":true}"))).err().unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_input");
    assert_eq!(get(&err, "message").as_string().unwrap(), "invalid options: unknown option \"bogus\"");
    assert!(JsTagFilter::new(nonce(), Some(parse("{\"blocks\":[\"A\",\"B\"],\"maxBufferBytes\":null}"))).is_ok());
    assert!(JsTaggedTurn::new(Some(parse("{\"nonce\":\"n0nce\",\"blocks\":null}"))).is_ok());
}
