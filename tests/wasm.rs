//! The bindings under Node, through wasm-bindgen-test: a handle's input buffer and header
//! (src/flat/abi.rs), errors as `StreamrouteError` with `code`, options, maps as plain
//! objects. (`scripts/test` runs this with `--target wasm32-unknown-unknown`.) String and
//! byte chunks, and surrogate pairs split between string chunks, are pkg/entry/boundary.js's
//! business: tests/js covers them.
#![cfg(target_arch = "wasm32")]

use js_sys::Reflect;
use streamroute::wasm::sse::{JsSseDecoder, JsSseEncoder};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn get(v: &JsValue, k: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(k)).unwrap()
}

/// Writes `bytes` at the decoder's input buffer, as pkg/entry/boundary.js does; their length.
fn write(d: &mut JsSseDecoder, bytes: &[u8]) -> u32 {
    let ptr = d.in_ptr(bytes.len() as u32);
    // SAFETY: `ptr` is the handle's input buffer, which `inPtr` made room for `bytes` in.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr as usize as *mut u8, bytes.len()) };
    bytes.len() as u32
}

/// `feed` of `bytes` through the input buffer.
fn feed(d: &mut JsSseDecoder, bytes: &[u8]) -> u32 {
    let n = write(d, bytes);
    d.feed(n)
}

/// The header at `at` (src/flat/abi.rs).
fn header(at: u32) -> [u32; 7] {
    // SAFETY: `at` is a handle's header, a live `[u32; 7]`.
    unsafe { *(at as usize as *const [u32; 7]) }
}

/// The SSE events a decoder's header describes: `(event, data, id)` (ASCII here: the text is
/// `TEXT_ASCII`, 2, after a call that succeeded and `TEXT_UTF8`, 0, after one that failed).
fn sse_events(at: u32) -> Vec<(String, String, String)> {
    let h = header(at);
    assert!(matches!(h[2], 0 | 2), "UTF-8 or ASCII text, not {}", h[2]);
    // SAFETY: the header describes live buffers of the handle until its next call.
    let text = unsafe { std::slice::from_raw_parts(h[0] as usize as *const u8, h[1] as usize) };
    let ops = unsafe { std::slice::from_raw_parts(h[3] as usize as *const u32, h[4] as usize) };
    let text = std::str::from_utf8(text).unwrap();
    let (mut p, mut out, mut last) = (0, Vec::new(), (String::new(), String::new()));
    let mut field = |n: u32, prev: &String| {
        if n == u32::MAX {
            return prev.clone();
        }
        let f = text[p..p + n as usize].to_string();
        p += n as usize + 1;
        f
    };
    for w in ops.chunks(3).take(h[5] as usize) {
        let event = field(w[0], &last.0);
        let data = field(w[1], &String::new());
        let id = field(w[2], &last.1);
        last = (event.clone(), id.clone());
        out.push((event, data, id));
    }
    out
}

#[wasm_bindgen_test]
fn a_handle_reads_its_input_buffer_and_describes_events_in_its_header() {
    let mut d = JsSseDecoder::new(None).unwrap();
    let wire = b"event: note\nid: 7\ndata: a\n\ndata: b\n\n";
    let n = feed(&mut d, wire);
    assert_eq!(n, 2);
    assert_eq!(header(d.header())[2], 2, "all ASCII: TEXT_ASCII");
    let ev = sse_events(d.header());
    assert_eq!(ev, [("note".into(), "a".into(), "7".into()), ("message".into(), "b".into(), "7".into())]);
    // The end of the stream: an unterminated event is dropped without flushOnFinish.
    let tail = b"data: c";
    let n = write(&mut d, tail);
    assert_eq!(d.finish(n), 0);
}

#[wasm_bindgen_test]
fn a_failed_call_keeps_the_events_before_it_and_a_typed_error() {
    let opts = js_sys::Object::new();
    Reflect::set(&opts, &"maxLineBytes".into(), &JsValue::from_f64(8.0)).unwrap();
    let mut d = JsSseDecoder::new(Some(opts.into())).unwrap();
    let wire = b"data: a\n\ndata: too long\n\n";
    assert_eq!(feed(&mut d, wire), u32::MAX);
    assert_eq!(header(d.header())[5], 1);
    assert_eq!(header(d.header())[2], 0, "after a failure: TEXT_UTF8");
    assert_eq!(sse_events(d.header())[0].1, "a");
    let err = d.take_error();
    assert_eq!(get(&err, "code").as_string().unwrap(), "sse_event_too_large");
    assert_eq!(get(&err, "name").as_string().unwrap(), "StreamrouteError");
    assert!(err.is_instance_of::<js_sys::Error>());
    // The decoder stays failed.
    let more = b"data: b\n\n";
    assert_eq!(feed(&mut d, more), u32::MAX);
    assert_eq!(get(&d.take_error(), "code").as_string().unwrap(), "sse_event_too_large");
}

#[wasm_bindgen_test]
fn bad_options_are_typed_errors() {
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
    assert_eq!(feed(&mut d, wire.as_bytes()), 1);
    assert_eq!(sse_events(d.header())[0].1, "a\nb");
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
    assert_eq!(features, ["sse", "json", "tags", "router", "payload", "planning", "client"]);
}

#[wasm_bindgen_test]
fn stream_router_options_are_checked() {
    use streamroute::wasm::router::JsStreamRouter;
    let err = JsStreamRouter::new(Some(js_sys::JSON::parse("{\"content\":\"yaml\"}").unwrap())).err().unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_option");
    let r = JsStreamRouter::new(Some(js_sys::JSON::parse("{\"provider\":\"anthropic\"}").unwrap())).unwrap();
    assert_eq!(r.provider(), "anthropic");
}

#[wasm_bindgen_test]
fn options_of_booleans_and_numbers_are_checked_with_the_same_messages() {
    use streamroute::wasm::json::JsPartialJson;
    let parse = |s: &str| js_sys::JSON::parse(s).unwrap();
    let bad = [
        ("\"x\"", "invalid_option", "invalid options: invalid type: a string, expected struct PartialJsonOptions"),
        ("[1]", "invalid_option", "invalid options: invalid type: an array, expected struct PartialJsonOptions"),
        ("{\"strict\":1}", "invalid_option", "invalid options: strict: invalid type: a number, expected a boolean"),
        ("{\"maxDepth\":\"8\"}", "invalid_option", "invalid options: maxDepth: invalid type: a string, expected f64"),
        ("{\"maxDepth\":true}", "invalid_option", "invalid options: maxDepth: invalid type: boolean `true`, expected f64"),
        (
            "{\"strict\":[],\"maxDepth\":\"8\"}",
            "invalid_option",
            "invalid options: strict: invalid type: an array, expected a boolean",
        ),
        ("{\"maxDepth\":2,\"other\":1}", "invalid_input", "invalid options: unknown option \"other\""),
    ];
    for (options, code, message) in bad {
        let err = JsPartialJson::new(Some(parse(options))).err().unwrap();
        assert_eq!(get(&err, "code").as_string().unwrap(), code, "{options}");
        assert_eq!(get(&err, "message").as_string().unwrap(), message, "{options}");
    }
    for options in
        ["null", "{}", "{\"strict\":null,\"maxDepth\":null}", "{\"strict\":false,\"maxDepth\":3,\"maxBufferBytes\":64}"]
    {
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
        ("{\"blocks\":\"ARTIFACT\"}", "invalid options: blocks: invalid type: a string, expected a sequence"),
        ("{\"blocks\":[\"A\",1]}", "invalid options: blocks: invalid type: a number, expected a string"),
        ("{\"blocks\":{}}", "invalid options: blocks: invalid type: an object, expected a sequence"),
        ("{\"maxBufferBytes\":\"1\"}", "invalid options: maxBufferBytes: invalid type: a string, expected f64"),
        ("7", "invalid options: invalid type: a number, expected struct TagFilterInit"),
    ];
    for (options, message) in filter {
        let err = JsTagFilter::new(nonce(), Some(parse(options))).err().unwrap();
        assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_option", "{options}");
        assert_eq!(get(&err, "message").as_string().unwrap(), message, "{options}");
    }
    let err = JsTaggedTurn::new(Some(parse("{\"nonce\":5}"))).err().unwrap();
    assert_eq!(get(&err, "message").as_string().unwrap(), "invalid options: nonce: invalid type: a number, expected a string");
    let err = JsTaggedTurn::new(Some(parse("{\"blocks\":[\"A\"],\"bogus\":true}"))).err().unwrap();
    assert_eq!(get(&err, "code").as_string().unwrap(), "invalid_input");
    assert_eq!(get(&err, "message").as_string().unwrap(), "invalid options: unknown option \"bogus\"");
    assert!(JsTagFilter::new(nonce(), Some(parse("{\"blocks\":[\"A\",\"B\"],\"maxBufferBytes\":null}"))).is_ok());
    assert!(JsTaggedTurn::new(Some(parse("{\"nonce\":\"n0nce\",\"blocks\":null}"))).is_ok());
}

/// The global allocator (src/wasm/mod.rs) under a long-lived machine's pattern: many times
/// the wasm memory in allocations of mixed sizes, mostly small, grown in steps (`realloc`)
/// and freed in random order while others live. Freed memory must be reused: memory grows
/// by at most twice the most that is ever live at once (a leaking allocator grows by all
/// of it). Contents survive every `realloc`. Then memory runs out: `try_reserve` fails, it
/// never traps, and what was freed is there again.
#[wasm_bindgen_test]
fn the_allocator_reuses_freed_memory_keeps_contents_and_reports_exhaustion() {
    use core::arch::wasm32::memory_size;
    const PAGE: usize = 1 << 16;
    const LIVE: usize = 64;
    const LARGEST: usize = 64 << 10;
    let mut state = 0x2545_f491_u32;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let start = memory_size(0);
    let churn = (16 * start * PAGE).max(64 << 20);
    let (mut total, mut live) = (0, Vec::<Vec<u8>>::with_capacity(LIVE));
    while total < churn {
        let r = next();
        // One in eight up to 64 KiB, the rest up to 512 bytes.
        let size = 1 + if r % 8 == 0 { (r >> 3) as usize % LARGEST } else { (r >> 3) as usize % 512 };
        let mut v = Vec::new();
        let mut step = 1 + (r >> 24) as usize % 64;
        while v.len() < size {
            step = (step * 2).min(size - v.len());
            v.try_reserve(step).expect("room");
            let from = v.len();
            v.extend((from..from + step).map(|i| i as u8 ^ r as u8));
        }
        total += size;
        if live.len() < LIVE {
            live.push(v);
            continue;
        }
        let old = std::mem::replace(&mut live[(r >> 12) as usize % LIVE], v);
        let key = old.first().map_or(0, |&b| b);
        assert!(old.iter().enumerate().all(|(i, &b)| b == i as u8 ^ key), "contents kept through realloc");
    }
    drop(live);
    let grown = (memory_size(0) - start) * PAGE;
    assert!(grown <= 2 * LIVE * LARGEST, "{grown} bytes grown for at most {} live", LIVE * LARGEST);

    // Exhaustion: 256 MiB blocks until the allocator says no (wasm32 memory ends at 4 GiB).
    let mut blocks = Vec::with_capacity(17);
    loop {
        let mut b = Vec::<u8>::new();
        if b.try_reserve_exact(256 << 20).is_err() {
            break;
        }
        blocks.push(b);
        assert!(blocks.len() < 17, "more than 4 GiB");
    }
    assert!(!blocks.is_empty());
    let n = blocks.len();
    blocks.clear();
    for _ in 0..n {
        let mut b = Vec::<u8>::new();
        b.try_reserve_exact(256 << 20).expect("freed memory is reused");
        blocks.push(b);
    }
}
