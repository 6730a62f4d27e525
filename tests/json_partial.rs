//! `PartialJson` and `JsonItemStream`: a corpus run under every chunking, the stability
//! guarantee checked at every prefix of every document, a differential check against
//! serde_json, the item stream's paths, and errors with their codes and offsets.

mod common;

use common::assert_chunk_invariant;
use streamroute::{
    JsonEvent, JsonItemStream, JsonItemStreamOptions, JsonValue, PartialJson, PartialJsonOptions, PathSegment, ValueKind,
};

// ---- The corpus ----------------------------------------------------------------------------

fn corpus() -> Vec<String> {
    let mut docs: Vec<String> = [
        // Scalars at the top level.
        "0",
        "-0",
        "-12.5e3",
        "1E+2",
        "1e-7",
        "3.141592653589793238462643383279",
        "12345678901234567890123456789",
        "-0.0e-0",
        "true",
        "false",
        "null",
        r#""""#,
        r#""plain""#,
        "  \t\r\n 42 \n",
        // Every escape.
        r#""\" \\ \/ \b \f \n \r \t""#,
        r#""\u0000\u001f\u0020\u007F\u0080\u07ff\u0800\uFFFF""#,
        r#""\u00e9\u00E9 caf\u00e9""#,
        r#""\ud83d\ude00 \uD83C\uDF0D \udbff\udfff""#,
        r#""lone \ud800 high, lone \udc00 low, \ud800\u0041 pair-less""#,
        r#""\ud83d\ud83d\ude00""#,
        r#"["\\u0041 is not an escape", "\\\"", "a\\\\b"]"#,
        // Raw UTF-8 of every width.
        "\"caf\u{e9} \u{4e16}\u{754c} \u{1F600}\u{1F30D} \u{10FFFF}\"",
        "{\"\u{1F511}\": \"\u{1F5DD}\", \"cl\u{e9}\": \"valeur\", \"\u{4e2d}\u{6587}\": [\"\u{5b57}\"]}",
        // Empty containers.
        "[]",
        "{}",
        "[[]]",
        "[{}]",
        "{\"a\":{}}",
        "{\"a\":[]}",
        "[[],[[]],{},[{}],{\"x\":[]}]",
        // Numbers of every shape in containers.
        "[0,-0,1,-1,10,-10,0.5,-0.5,1e5,1E5,1e+5,1e-5,-1.25E-3,0e0,123456789012345678901234567890]",
        "{\"int\":7,\"neg\":-7,\"frac\":7.25,\"exp\":7e10,\"big\":99999999999999999999999}",
        "[1,2,3]",
        "[1.0,2.50,3.000]",
        // Literals in containers.
        "[true,false,null]",
        "{\"t\":true,\"f\":false,\"n\":null}",
        // Whitespace everywhere.
        " { \"a\" : [ 1 , { \"b\" : null } , \"c\" ] , \"d\" : { } } ",
        "\n\r\t[\n\r\t1\n\r\t,\n\r\t\"x\"\n\r\t]\n\r\t",
        "{\n  \"name\": \"streamroute\",\n  \"tags\": [\n    \"sse\",\n    \"json\"\n  ]\n}\n",
        // Objects and arrays.
        r#"{"a":1}"#,
        r#"{"a":"b"}"#,
        r#"{"a":{"b":{"c":{"d":"e"}}}}"#,
        r#"[[1,[2,[3,[4]]]]]"#,
        r#"[{"id":1,"name":"one"},{"id":2,"name":"two"},{"id":3,"name":"three","tags":["x","y"]}]"#,
        r#"{"items":[{"q":"What?","a":["yes","no"]},{"q":"Why?","a":[]}],"count":2}"#,
        r#"{"tool":"get_weather","arguments":{"location":"San Francisco, CA","unit":"celsius","days":3}}"#,
        r#"{"":"empty key","a b":"space","\"q\"":"quoted key","\n":"newline key"}"#,
        r#"{"k\u00e9y":"v","\ud83d\ude00":1}"#,
        r#"[["a","b"],["c",["d",["e"]]],"f"]"#,
        r#"{"a":[{"b":[{"c":[1,2,{"d":[]}]}]}]}"#,
        r#"[null,[null],{"n":null},[[null]]]"#,
        r#"{"mixed":[1,"two",3.0,true,null,{"six":6},[7]]}"#,
        r#"["", "", ""]"#,
        r#"{"a":"","b":"","c":[""]}"#,
        r#"[0,"0",[0],{"0":0}]"#,
        r#"{"nested":"{\"not\":\"json\"}","arr":"[1,2]"}"#,
        r#"{"html":"<p class=\"x\">a &amp; b</p>","path":"C:\\Users\\me"}"#,
        r##"{"markdown":"# Title\n\n- item 1\n- item 2\n\n```js\nconsole.log(\"hi\")\n```"}"##,
        r#"[-1.5e-10,2.5E+10,-0.0]"#,
        r#"{"a":[1,[2,[3,[4,[5,[6,[7,[8,[9,[10]]]]]]]]]]}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();

    // Deep nesting (serde_json's own limit is 128).
    docs.push(format!("{}{}", "[".repeat(100), "]".repeat(100)));
    docs.push(format!("{}1{}", "{\"k\":".repeat(60), "}".repeat(60)));
    docs.push(format!("{}\"deep\"{}", "[{\"a\":".repeat(40), "}]".repeat(40)));
    // Big strings.
    docs.push(format!("\"{}\"", "abcdefghij".repeat(300)));
    docs.push(format!("{{\"text\":\"{}\"}}", "caf\u{e9} \u{1F600} \\n\\u00e9 ".repeat(80)));
    docs.push(format!("[\"{}\",\"{}\"]", "x".repeat(1000), "\\\"".repeat(300)));
    // Arrays of objects.
    let rows: Vec<String> =
        (0..40).map(|i| format!("{{\"id\":{i},\"name\":\"row {i}\",\"ok\":{},\"score\":{}.5}}", i % 2 == 0, i)).collect();
    docs.push(format!("{{\"rows\":[{}]}}", rows.join(",")));
    docs.push(format!("[{}]", (0..200).map(|i| i.to_string()).collect::<Vec<_>>().join(",")));
    docs
}

// ---- Helpers -------------------------------------------------------------------------------

type Outcome = (Vec<JsonEvent>, Result<JsonValue, (String, Option<u64>)>);

/// Merges adjacent `append`s of the same path (their split is the only thing chunking changes).
fn merged(events: Vec<JsonEvent>) -> Vec<JsonEvent> {
    let mut out: Vec<JsonEvent> = Vec::new();
    for ev in events {
        if let (Some(JsonEvent::Append { path: p, text: t }), JsonEvent::Append { path, text }) = (out.last_mut(), &ev) {
            if p == path {
                t.push_str(text);
                continue;
            }
        }
        out.push(ev);
    }
    out
}

fn run_partial(opts: PartialJsonOptions, chunks: &[&[u8]]) -> Outcome {
    let mut p = PartialJson::new(opts);
    let mut events = Vec::new();
    for c in chunks {
        let before = events.len();
        if let Err(e) = p.feed(c, &mut events) {
            // A failed parser repeats its error and reports nothing more.
            assert_eq!(p.feed(b"1", &mut events).unwrap_err(), e);
            assert_eq!(p.finish(&mut events).unwrap_err(), e);
            let _ = before;
            return (merged(events), Err((e.code().to_string(), e.offset())));
        }
        // At most one append per string per feed.
        let appends: Vec<_> = events[before..]
            .iter()
            .filter_map(|e| match e {
                JsonEvent::Append { path, .. } => Some(path.clone()),
                _ => None,
            })
            .collect();
        let mut dedup = appends.clone();
        dedup.dedup();
        assert_eq!(appends.len(), dedup.len(), "appends not coalesced in one feed");
    }
    let r = p.finish(&mut events).map_err(|e| (e.code().to_string(), e.offset()));
    if r.is_ok() {
        assert_eq!(p.value().as_ref(), r.as_ref().ok(), "value() after finish");
        let e = p.feed(b" ", &mut events).unwrap_err();
        assert_eq!(e.code(), "invalid_state");
    }
    (merged(events), r)
}

fn doc_name(doc: &str) -> String {
    doc.chars().take(40).collect()
}

/// The value at `path` in `v` (the last member of a repeated key).
fn at<'a>(v: &'a JsonValue, path: &[PathSegment]) -> Option<&'a JsonValue> {
    let mut v = v;
    for seg in path {
        v = match (seg, v) {
            (PathSegment::Key(k), JsonValue::Object(_)) => v.get(k)?,
            (PathSegment::Index(i), JsonValue::Array(items)) => items.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

fn kind_of(v: &JsonValue) -> Option<ValueKind> {
    match v {
        JsonValue::Object(_) => Some(ValueKind::Object),
        JsonValue::Array(_) => Some(ValueKind::Array),
        JsonValue::String(_) => Some(ValueKind::String),
        _ => None,
    }
}

/// `s` is what a prefix of `f` shows: strings are prefixes, containers have a prefix of the
/// members, all complete but possibly the last, which is itself part of its final value.
fn part_of(s: &JsonValue, f: &JsonValue) -> bool {
    match (s, f) {
        (JsonValue::String(a), JsonValue::String(b)) => b.starts_with(a.as_str()),
        (JsonValue::Array(a), JsonValue::Array(b)) => {
            a.len() <= b.len()
                && a.iter().zip(b).enumerate().all(|(i, (x, y))| if i + 1 == a.len() { part_of(x, y) } else { x == y })
        }
        (JsonValue::Object(a), JsonValue::Object(b)) => {
            a.len() <= b.len()
                && a.iter()
                    .zip(b)
                    .enumerate()
                    .all(|(i, ((ka, x), (kb, y)))| ka == kb && if i + 1 == a.len() { part_of(x, y) } else { x == y })
        }
        _ => s == f,
    }
}

/// Rebuilds the value from the events alone, checking their grammar on the way: every
/// `begin` and leaf `set` gets its `end`, appends add up to the string's `set`.
fn replay(events: &[JsonEvent]) -> Option<JsonValue> {
    fn slot<'a>(root: &'a mut Option<JsonValue>, path: &[PathSegment], insert: bool) -> &'a mut JsonValue {
        let Some((last, parents)) = path.split_last() else {
            return root.get_or_insert(JsonValue::Null);
        };
        let mut v = root.as_mut().expect("a container is open");
        for seg in parents {
            v = match (seg, v) {
                (PathSegment::Key(k), JsonValue::Object(m)) => {
                    &mut m.iter_mut().rev().find(|(key, _)| key == k).expect("member").1
                }
                (PathSegment::Index(i), JsonValue::Array(items)) => &mut items[*i],
                (seg, v) => panic!("path {seg:?} into {v:?}"),
            };
        }
        match (last, v) {
            (PathSegment::Key(k), JsonValue::Object(m)) => {
                if insert {
                    m.push((k.clone(), JsonValue::Null));
                }
                &mut m.iter_mut().rev().find(|(key, _)| key == k).expect("member").1
            }
            (PathSegment::Index(i), JsonValue::Array(items)) => {
                if insert {
                    assert_eq!(*i, items.len(), "indices go up one by one");
                    items.push(JsonValue::Null);
                }
                &mut items[*i]
            }
            (seg, v) => panic!("path {seg:?} into {v:?}"),
        }
    }
    let mut root = None;
    let mut open: Vec<Vec<PathSegment>> = Vec::new();
    let mut leaf_set: Option<Vec<PathSegment>> = None;
    for ev in events {
        match ev {
            JsonEvent::Begin { path, kind } => {
                assert!(leaf_set.is_none());
                let v = match kind {
                    ValueKind::Object => JsonValue::Object(Vec::new()),
                    ValueKind::Array => JsonValue::Array(Vec::new()),
                    ValueKind::String => JsonValue::String(String::new()),
                };
                *slot(&mut root, path, true) = v;
                open.push(path.clone());
            }
            JsonEvent::Append { path, text } => {
                assert!(!text.is_empty(), "empty append");
                assert_eq!(open.last(), Some(path));
                match slot(&mut root, path, false) {
                    JsonValue::String(s) => s.push_str(text),
                    v => panic!("append to {v:?}"),
                }
            }
            JsonEvent::Set { path, value } => {
                assert!(leaf_set.is_none());
                if let JsonValue::String(full) = value {
                    assert_eq!(open.pop().as_ref(), Some(path), "a string set closes its begin");
                    let s = slot(&mut root, path, false);
                    assert_eq!(s, value, "appends add up to the set string {full:?}");
                } else {
                    *slot(&mut root, path, true) = value.clone();
                }
                leaf_set = Some(path.clone());
            }
            JsonEvent::End { path } => match leaf_set.take() {
                Some(p) => assert_eq!(&p, path, "end follows its set"),
                None => {
                    let p = open.pop().expect("an end closes a begin");
                    assert_eq!(&p, path);
                    assert!(matches!(slot(&mut root, path, false), JsonValue::Object(_) | JsonValue::Array(_)));
                }
            },
        }
    }
    assert!(open.is_empty() && leaf_set.is_none(), "unbalanced events");
    root
}

fn has_duplicate_keys(v: &JsonValue) -> bool {
    match v {
        JsonValue::Object(m) => {
            let mut keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
            keys.sort_unstable();
            let n = keys.len();
            keys.dedup();
            keys.len() != n || m.iter().any(|(_, v)| has_duplicate_keys(v))
        }
        JsonValue::Array(items) => items.iter().any(has_duplicate_keys),
        _ => false,
    }
}

// ---- PartialJson ----------------------------------------------------------------------------

#[test]
fn corpus_is_large_enough() {
    assert!(corpus().len() >= 60, "{}", corpus().len());
}

/// One long chunk whose string runs are cut again and again by escapes and invalid UTF-8:
/// each run after an invalid byte needs a fresh window of checked text (the fuzzer found the
/// window length overflowing after many of them). Every chunking agrees, in both modes.
#[test]
fn many_invalid_bytes_between_escapes_in_one_chunk() {
    let mut doc = b"{\"k\": [\"".to_vec();
    for i in 0..3000u32 {
        doc.extend_from_slice(b"\\n\xffab\xe6\x97");
        doc.extend_from_slice(if i % 7 == 0 { b"\", \"" } else { b"cd" });
    }
    doc.extend_from_slice(b"\"]}");
    for strict in [false, true] {
        let opts = PartialJsonOptions { strict, ..PartialJsonOptions::default() };
        let whole = run_partial(opts, &[&doc]);
        let pieces: Vec<&[u8]> = doc.chunks(97).collect();
        assert_eq!(run_partial(opts, &pieces), whole, "strict: {strict}");
        assert_eq!(whole.1.is_ok(), !strict, "strict: {strict}: {:?}", whole.1);
    }
}

#[test]
fn corpus_events_and_values_are_chunk_invariant() {
    for doc in corpus() {
        let (events, value) =
            assert_chunk_invariant(&doc_name(&doc), doc.as_bytes(), |chunks| run_partial(PartialJsonOptions::default(), chunks));
        let value = value.unwrap_or_else(|e| panic!("{doc:?}: {e:?}"));
        assert_eq!(replay(&events).as_ref(), Some(&value), "replay of {doc:?}");
        assert_eq!(streamroute::parse_strict(doc.as_bytes()).unwrap(), value);
    }
}

#[test]
fn corpus_matches_serde_json() {
    let mut compared = 0;
    for doc in corpus() {
        let ours = run_partial(PartialJsonOptions::default(), &[doc.as_bytes()]).1.unwrap();
        // serde_json rejects lone surrogate escapes, which JSON text may hold (we make U+FFFD).
        let Ok(theirs) = serde_json::from_str::<serde_json::Value>(&doc) else {
            assert!(doc.contains("\\ud8") || doc.contains("\\udc"), "serde_json rejects {doc:?}");
            continue;
        };
        let ours: serde_json::Value = serde_json::from_str(&ours.to_json()).unwrap();
        assert_eq!(ours, theirs, "{doc:?}");
        compared += 1;
    }
    assert!(compared >= 60);
}

#[test]
fn invalid_documents_are_rejected_like_serde_json() {
    let bad = [
        "",
        " ",
        "{",
        "[",
        "[1,]",
        "{\"a\":1,}",
        "01",
        "1.",
        ".5",
        "-",
        "1e",
        "1e+",
        "+1",
        "[1 2]",
        "{\"a\" 1}",
        "{a:1}",
        "{'a':1}",
        "\"\x01\"",
        "\"a\nb\"",
        "[1] x",
        "tru",
        "nul",
        "True",
        "\"\\x\"",
        "\"\\u12\"",
        "\"\\u12G4\"",
        "[}",
        "{]",
        "[1,,2]",
        "{\"a\":}",
        "\"abc",
        "[\"a\",]",
        "NaN",
        "Infinity",
        "--1",
        "1 2",
        "{}{}",
        "\u{feff}{}",
        "[\"\\\"]",
    ];
    for doc in bad {
        assert!(serde_json::from_str::<serde_json::Value>(doc).is_err(), "serde accepts {doc:?}");
        let (_, r) = assert_chunk_invariant(doc, doc.as_bytes(), |c| run_partial(PartialJsonOptions::default(), c));
        let (code, offset) = r.expect_err(doc);
        assert_eq!(code, "json_invalid", "{doc:?}");
        assert!(offset.is_some_and(|o| o <= doc.len() as u64), "{doc:?}: {offset:?}");
    }
    let bytes: &[u8] = b"\"\xff\"";
    assert!(serde_json::from_slice::<serde_json::Value>(bytes).is_err());
    let (_, r) = assert_chunk_invariant("invalid utf-8", bytes, |c| run_partial(PartialJsonOptions::default(), c));
    assert_eq!(r.unwrap_err(), ("json_invalid".into(), Some(1)));
}

#[test]
fn every_prefix_reports_only_what_stays() {
    for doc in corpus() {
        let fin = streamroute::parse_strict(doc.as_bytes()).unwrap();
        if has_duplicate_keys(&fin) {
            continue;
        }
        let bytes = doc.as_bytes();
        for n in 0..=bytes.len() {
            let mut p = PartialJson::new(PartialJsonOptions::default());
            let mut events = Vec::new();
            p.feed(&bytes[..n], &mut events).unwrap();
            let ctx = || format!("{doc:?} cut at {n}");
            let mut appended: Vec<(Vec<PathSegment>, String)> = Vec::new();
            for ev in &events {
                let path = ev.path();
                let want = at(&fin, path).unwrap_or_else(|| panic!("{}: no {path:?} in the final value", ctx()));
                match ev {
                    JsonEvent::Begin { kind, .. } => {
                        assert_eq!(kind_of(want), Some(*kind), "{}", ctx())
                    }
                    JsonEvent::Set { value, .. } => assert_eq!(value, want, "{}", ctx()),
                    JsonEvent::Append { text, .. } => {
                        match appended.iter_mut().find(|(p, _)| p == path) {
                            Some((_, s)) => s.push_str(text),
                            None => appended.push((path.to_vec(), text.clone())),
                        }
                        let so_far = &appended.iter().find(|(p, _)| p == path).unwrap().1;
                        let full = want.as_str().unwrap_or_else(|| panic!("{}: append to a non-string", ctx()));
                        assert!(full.starts_with(so_far.as_str()), "{}: {so_far:?} is not a prefix of {full:?}", ctx());
                    }
                    JsonEvent::End { .. } => {}
                }
            }
            match p.value() {
                None => assert!(events.is_empty(), "{}: events but no value", ctx()),
                Some(snap) => {
                    assert!(part_of(&snap, &fin), "{}: {snap:?} is not part of {fin:?}", ctx())
                }
            }
        }
    }
}

#[test]
fn numbers_and_literals_appear_only_complete() {
    let doc = br#"{"n": -12.5e3, "t": true, "m": [1, 22]}"#;
    for n in 0..=doc.len() {
        let mut p = PartialJson::new(PartialJsonOptions::default());
        let mut events = Vec::new();
        p.feed(&doc[..n], &mut events).unwrap();
        for ev in &events {
            if let JsonEvent::Set { value: JsonValue::Number(t), .. } = ev {
                assert!(["-12.5e3", "1", "22"].contains(&t.as_str()), "cut {n}: {t}");
            }
        }
        fn leaves(v: &JsonValue, out: &mut Vec<String>) {
            match v {
                JsonValue::Array(items) => items.iter().for_each(|v| leaves(v, out)),
                JsonValue::Object(m) => m.iter().for_each(|(_, v)| leaves(v, out)),
                v => out.push(v.to_json()),
            }
        }
        let mut found = Vec::new();
        if let Some(v) = p.value() {
            leaves(&v, &mut found);
        }
        for leaf in found {
            assert!(["-12.5e3", "true", "1", "22"].contains(&leaf.as_str()), "cut {n}: {leaf}");
        }
    }
    // A top-level number completes only at finish.
    let mut p = PartialJson::new(PartialJsonOptions::default());
    let mut events = Vec::new();
    p.feed(b"-12", &mut events).unwrap();
    assert!(events.is_empty() && p.value().is_none());
    let v = p.finish(&mut events).unwrap();
    assert_eq!(v, JsonValue::Number("-12".into()));
    assert_eq!(events, vec![JsonEvent::Set { path: vec![], value: v.clone() }, JsonEvent::End { path: vec![] },]);
}

#[test]
fn events_of_a_small_document() {
    let key = |k: &str| PathSegment::Key(k.into());
    let (events, v) = run_partial(PartialJsonOptions::default(), &[br#"{"a":"h\u00e9","b":[1,{}]}"#]);
    let a = vec![key("a")];
    let b = vec![key("b")];
    let b0 = vec![key("b"), PathSegment::Index(0)];
    let b1 = vec![key("b"), PathSegment::Index(1)];
    assert_eq!(
        events,
        vec![
            JsonEvent::Begin { path: vec![], kind: ValueKind::Object },
            JsonEvent::Begin { path: a.clone(), kind: ValueKind::String },
            JsonEvent::Append { path: a.clone(), text: "h\u{e9}".into() },
            JsonEvent::Set { path: a.clone(), value: JsonValue::String("h\u{e9}".into()) },
            JsonEvent::End { path: a },
            JsonEvent::Begin { path: b.clone(), kind: ValueKind::Array },
            JsonEvent::Set { path: b0.clone(), value: JsonValue::Number("1".into()) },
            JsonEvent::End { path: b0 },
            JsonEvent::Begin { path: b1.clone(), kind: ValueKind::Object },
            JsonEvent::End { path: b1 },
            JsonEvent::End { path: b },
            JsonEvent::End { path: vec![] },
        ]
    );
    assert_eq!(v.unwrap().to_json(), r#"{"a":"hé","b":[1,{}]}"#);
}

#[test]
fn escapes_and_surrogates_are_held_until_decodable() {
    let doc = br#"["\ud83d\ude00\u00e9\n"]"#;
    let path = vec![PathSegment::Index(0)];
    for n in 0..=doc.len() {
        let mut p = PartialJson::new(PartialJsonOptions::default());
        let mut events = Vec::new();
        p.feed(&doc[..n], &mut events).unwrap();
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                JsonEvent::Append { path: p, text } if *p == path => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let want = match n {
            0..=13 => "",
            14..=19 => "\u{1F600}",
            20..=21 => "\u{1F600}\u{e9}",
            _ => "\u{1F600}\u{e9}\n",
        };
        assert_eq!(text, want, "cut at {n}");
    }
}

#[test]
fn snapshot_shows_partial_strings_and_omits_pending_keys() {
    let mut p = PartialJson::new(PartialJsonOptions::default());
    let mut ev = Vec::new();
    assert_eq!(p.value(), None);
    p.feed(b"  ", &mut ev).unwrap();
    assert_eq!(p.value(), None);
    p.feed(br#"{"a": [1, "hel"#, &mut ev).unwrap();
    let fed = p.position();
    assert_eq!(p.value().unwrap().to_json(), r#"{"a":[1,"hel"]}"#);
    p.feed(br#"lo"], "b"#, &mut ev).unwrap();
    assert_eq!(p.value().unwrap().to_json(), r#"{"a":[1,"hello"]}"#);
    p.feed(br#"": {"c": 12"#, &mut ev).unwrap();
    assert_eq!(p.value().unwrap().to_json(), r#"{"a":[1,"hello"],"b":{}}"#);
    p.feed(br#"3, "d": "x"#, &mut ev).unwrap();
    assert_eq!(p.value().unwrap().to_json(), r#"{"a":[1,"hello"],"b":{"c":123,"d":"x"}}"#);
    let e = p.finish(&mut ev).unwrap_err();
    assert_eq!(fed, 16);
    assert_eq!((e.code(), e.offset()), ("json_invalid", Some(p.position())));
    assert_eq!(e.offset(), Some(16 + 8 + 11 + 10));
    // The partial value stays readable after the failure.
    assert_eq!(p.value().unwrap().to_json(), r#"{"a":[1,"hello"],"b":{"c":123,"d":"x"}}"#);
    // A string at the top level.
    let mut p = PartialJson::new(PartialJsonOptions::default());
    p.feed(b"\"ab", &mut ev).unwrap();
    assert_eq!(p.value(), Some(JsonValue::String("ab".into())));
}

#[test]
fn tolerant_mode_accepts_what_models_write() {
    let doc = b"{\"a\": \"line\nbreak\ttab \\' \xff\"}";
    let strict = run_partial(PartialJsonOptions::default(), &[doc]).1;
    assert_eq!(strict.unwrap_err(), ("json_invalid".into(), Some(11)));
    let opts = PartialJsonOptions { strict: false, ..Default::default() };
    let (_, v) = assert_chunk_invariant("tolerant", doc, |c| run_partial(opts, c));
    assert_eq!(v.unwrap().get("a").unwrap().as_str(), Some("line\nbreak\ttab ' \u{FFFD}"));
}

#[test]
fn errors_have_codes_and_offsets_for_every_chunking() {
    let cases: &[(&str, PartialJsonOptions, &str, u64)] = &[
        ("{\"a\":1,}", PartialJsonOptions::default(), "json_invalid", 7),
        ("[1 2]", PartialJsonOptions::default(), "json_invalid", 3),
        ("{\"a\":", PartialJsonOptions::default(), "json_invalid", 5),
        ("", PartialJsonOptions::default(), "json_invalid", 0),
        ("[\"ab\x01\"]", PartialJsonOptions::default(), "json_invalid", 4),
        ("[[[[1]]]]", PartialJsonOptions { max_depth: 3, ..Default::default() }, "json_too_deep", 3),
        (
            "{\"a\":\"0123456789abcdefghij\"}",
            // 32 for the object, 64 + 2 for the member `a`, 32 for the string: 11 bytes left.
            PartialJsonOptions { max_buffer_bytes: 141, ..Default::default() },
            "buffer_limit_exceeded",
            17,
        ),
        (
            "[\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]",
            PartialJsonOptions { max_buffer_bytes: 80, ..Default::default() },
            "buffer_limit_exceeded",
            18,
        ),
        ("[1,2,3,4,5]", PartialJsonOptions { max_buffer_bytes: 32 * 4, ..Default::default() }, "buffer_limit_exceeded", 6),
        (
            "{\"a_long_key_past_the_cap\":1}",
            PartialJsonOptions { max_buffer_bytes: 60, ..Default::default() },
            "buffer_limit_exceeded",
            25,
        ),
    ];
    for &(doc, opts, code, offset) in cases {
        let (events, r) = assert_chunk_invariant(doc, doc.as_bytes(), |c| run_partial(opts, c));
        assert_eq!(r.unwrap_err(), (code.to_string(), Some(offset)), "{doc:?}");
        // What was reported before the error stays true: every leaf's `set` has its `end`.
        for w in events.windows(2) {
            if let JsonEvent::Set { path, .. } = &w[0] {
                assert_eq!(w[1], JsonEvent::End { path: path.clone() }, "{doc:?}");
            }
        }
    }
}

#[test]
fn hundred_thousand_brackets_are_too_deep_not_a_crash() {
    for open in ["[", "{\"a\":", "[{\"a\":"] {
        let doc = open.repeat(100_000);
        let (_, r) = run_partial(PartialJsonOptions::default(), &[doc.as_bytes()]);
        let (code, offset) = r.unwrap_err();
        assert_eq!(code, "json_too_deep");
        assert!(offset.unwrap() > 500, "{offset:?}");
        let opts = JsonItemStreamOptions::default();
        let mut s = JsonItemStream::new("$*", opts).unwrap();
        let e = s.feed(doc.as_bytes(), &mut Vec::new()).unwrap_err();
        assert_eq!(e.code(), "json_too_deep");
    }
    // maxDepth is clamped to 1024, and a tree that deep is dropped without a crash.
    let doc = format!("{}{}", "[".repeat(1024), "]".repeat(1024));
    let opts = PartialJsonOptions { max_depth: usize::MAX, ..Default::default() };
    let (_, r) = run_partial(opts, &[doc.as_bytes()]);
    assert!(r.is_ok());
    let doc = format!("{}{}", "[".repeat(1025), "]".repeat(1025));
    let (_, r) = run_partial(opts, &[doc.as_bytes()]);
    assert_eq!(r.unwrap_err(), ("json_too_deep".into(), Some(1024)));
}

// ---- JsonItemStream -------------------------------------------------------------------------

fn run_items(path: &str, opts: JsonItemStreamOptions, chunks: &[&[u8]]) -> (Vec<String>, Option<(String, Option<u64>)>) {
    let mut s = JsonItemStream::new(path, opts).unwrap();
    let mut items = Vec::new();
    let mut err = None;
    for c in chunks {
        if let Err(e) = s.feed(c, &mut items) {
            assert_eq!(s.feed(b"1", &mut items).unwrap_err(), e);
            err = Some(e);
            break;
        }
    }
    if err.is_none() {
        err = s.finish(&mut items).err();
    }
    (items.iter().map(JsonValue::to_json).collect(), err.map(|e| (e.code().to_string(), e.offset())))
}

fn items_of(path: &str, doc: &str) -> Vec<String> {
    let (items, err) = assert_chunk_invariant(&format!("{path} {}", doc_name(doc)), doc.as_bytes(), |c| {
        run_items(path, JsonItemStreamOptions::default(), c)
    });
    assert_eq!(err, None, "{path} {doc:?}");
    items
}

#[test]
fn items_of_a_top_level_array() {
    let doc = r#" [1, {"a": [2, "x"]}, "s\u00e9", [], {}, null, -1.5e3, [[3]]] "#;
    assert_eq!(items_of("$", doc), ["1", r#"{"a":[2,"x"]}"#, "\"s\u{e9}\"", "[]", "{}", "null", "-1.5e3", "[[3]]"]);
    assert_eq!(items_of("$[*]", doc), items_of("$", doc));
    // A top-level object has no items at `$`; an empty array none either.
    assert!(items_of("$", r#"{"a":[1]}"#).is_empty());
    assert!(items_of("$", "[]").is_empty());
}

#[test]
fn items_at_a_key_skip_everything_else() {
    let doc = r#"{"meta": {"items": [9, 9]}, "items": [{"id": 1, "tags": ["a"]}, {"id": 2}], "after": [3], "items2": [8]}"#;
    assert_eq!(items_of("$.items", doc), [r#"{"id":1,"tags":["a"]}"#, r#"{"id":2}"#]);
    assert_eq!(items_of("$.meta.items", doc), ["9", "9"]);
    assert_eq!(items_of("$['after']", doc), ["3"]);
    assert_eq!(items_of("$.items[0].tags", doc), ["\"a\""]);
    assert!(items_of("$.missing", doc).is_empty());
    assert!(items_of("$.meta", doc).is_empty(), "an object is not an array of items");
    // Questions for a quiz UI, arriving one at a time.
    let quiz = r#"{"title": "Quiz", "questions": [{"q": "2+2?", "choices": ["3", "4"]}, {"q": "Capital of France?", "choices": ["Paris"]}]}"#;
    assert_eq!(items_of("$.questions", quiz).len(), 2);
}

#[test]
fn items_at_nested_paths_indices_and_quoted_keys() {
    let doc = r#"{"data": {"results": [{"rows": [1]}, {"rows": [[2], [3, 4]], "x": {"rows": [0]}}]}, "key with spaces": ["k"], "q\"k": [true]}"#;
    assert_eq!(items_of("$.data.results[1].rows", doc), ["[2]", "[3,4]"]);
    assert_eq!(items_of("$.data.results[0].rows", doc), ["1"]);
    assert_eq!(items_of("$.data.results", doc).len(), 2);
    assert!(items_of("$.data.results[2].rows", doc).is_empty());
    assert_eq!(items_of("$['key with spaces']", doc), ["\"k\""]);
    assert_eq!(items_of(r#"$["key with spaces"]"#, doc), ["\"k\""]);
    assert_eq!(items_of(r#"$['q"k']"#, doc), ["true"]);
    assert_eq!(items_of("$[1][0]", "[[0], [[5, 6], 7]]"), ["5", "6"]);
    // Repeated keys: the first occurrence wins, on the path and inside items.
    assert_eq!(items_of("$.a", r#"{"a": [1], "a": [2]}"#), ["1"]);
    assert_eq!(items_of("$.a.b", r#"{"a": {"b": [1], "b": [2]}, "a": {"b": [3]}}"#), ["1"]);
    assert_eq!(items_of("$.a", r#"{"a": [{"k": 1, "k": {"x": [2]}, "j": 3}]}"#), [r#"{"k":1,"j":3}"#]);
}

#[test]
fn every_top_level_value_with_dollar_star() {
    let ndjson = "{\"a\":1}\n{\"b\":[2]}\n\n[3]\r\n\"x\"\n4\ntrue\nnull\n";
    assert_eq!(items_of("$*", ndjson), [r#"{"a":1}"#, r#"{"b":[2]}"#, "[3]", "\"x\"", "4", "true", "null"]);
    let concatenated = r#"{"a":1}{"b":2}[3]"x"4 5 true"y"-6"#;
    assert_eq!(items_of("$*", concatenated), [r#"{"a":1}"#, r#"{"b":2}"#, "[3]", "\"x\"", "4", "5", "true", "\"y\"", "-6"]);
    assert!(items_of("$*", "").is_empty());
    assert!(items_of("$*", " \n ").is_empty());
}

#[test]
fn items_split_at_every_byte() {
    let doc = r#"{"items": [{"id": 1, "s": "\ud83d\ude00 caf\u00e9"}, [true, false], "\u00e9", 12.5e-1, null], "tail": {"items": [0]}}"#;
    let want = items_of("$.items", doc);
    assert_eq!(want.len(), 5);
    let bytes = doc.as_bytes();
    for p in 0..=bytes.len() {
        for q in p..=bytes.len() {
            let (items, err) = run_items("$.items", JsonItemStreamOptions::default(), &[&bytes[..p], &bytes[p..q], &bytes[q..]]);
            assert_eq!((items, err), (want.clone(), None), "split at {p} and {q}");
        }
    }
}

#[test]
fn items_come_as_soon_as_they_close() {
    let mut s = JsonItemStream::new("$.items", JsonItemStreamOptions::default()).unwrap();
    let mut items = Vec::new();
    s.feed(br#"{"items": [{"id": 1}"#, &mut items).unwrap();
    assert_eq!(items.len(), 1);
    s.feed(br#", 2"#, &mut items).unwrap();
    assert_eq!(items.len(), 1, "a number is complete only when something follows");
    s.feed(b"]", &mut items).unwrap();
    assert_eq!(items.len(), 2);
    let e = s.finish(&mut items).unwrap_err();
    assert_eq!((e.code(), e.offset()), ("json_invalid", Some(24)));
    assert_eq!(s.feed(b"}", &mut items).unwrap_err(), e);
}

#[test]
fn item_stream_errors() {
    let o = JsonItemStreamOptions::default();
    for bad in ["", "items", "$.", "$[x]", "$['a'"] {
        assert_eq!(JsonItemStream::new(bad, o).unwrap_err().code(), "invalid_option");
    }
    // The whole document must be valid, before, inside and after the target.
    let cases: &[(&str, &str, JsonItemStreamOptions, usize, &str, u64)] = &[
        ("$.items", r#"{"x": [1,], "items": [1]}"#, o, 0, "json_invalid", 9),
        ("$.items", r#"{"items": [1, 2,]}"#, o, 2, "json_invalid", 16),
        ("$.items", r#"{"items": [1, 2]} x"#, o, 2, "json_invalid", 18),
        ("$.items", r#"{"items": [1, 2]"#, o, 2, "json_invalid", 16),
        ("$", "", o, 0, "json_invalid", 0),
        ("$*", "{\"a\":1}\n{\"a\"", o, 1, "json_invalid", 12),
        ("$*", "[1]\n[[[[2]]]]", JsonItemStreamOptions { max_depth: 3, ..o }, 1, "json_too_deep", 7),
        (
            "$.items",
            r#"{"items": ["short", "a long string past the item cap", "x"]}"#,
            JsonItemStreamOptions { max_item_bytes: 50, ..o },
            1,
            "buffer_limit_exceeded",
            39,
        ),
        ("$", "[\"\x01\"]", o, 0, "json_invalid", 2),
        // A key longer than the token cap (the smaller of max_item_bytes and 1 MiB), outside
        // any item, is reported where it begins (escapes or not).
        (
            "$.items",
            r#"{"items": [1], "a_key_that_is_longer_than_forty_bytes_in_all": 2}"#,
            JsonItemStreamOptions { max_item_bytes: 40, ..o },
            1,
            "buffer_limit_exceeded",
            15,
        ),
        (
            "$.items",
            r#"{"items": [1], "a_key_\u00e9\n_that_is_longer_than_forty_bytes\t": 2}"#,
            JsonItemStreamOptions { max_item_bytes: 40, ..o },
            1,
            "buffer_limit_exceeded",
            15,
        ),
    ];
    for &(path, doc, opts, n, code, offset) in cases {
        let (items, err) = assert_chunk_invariant(doc, doc.as_bytes(), |c| run_items(path, opts, c));
        assert_eq!(items.len(), n, "{path} {doc:?}");
        assert_eq!(err, Some((code.to_string(), Some(offset))), "{path} {doc:?}");
    }
    // Invalid UTF-8 is reported where its sequence begins, even split between chunks (a
    // sequence cut short by the closing quote, at the quote).
    for (doc, offset) in [(&b"[\"ab\xc3\xa9\xe2\x82(\"]"[..], 6), (b"[\"\xf0\x9f\x98\"]", 5), (b"{\"\xc3(\":1}", 2)] {
        let (_, err) = assert_chunk_invariant("utf-8", doc, |c| run_items("$", o, c));
        assert_eq!(err, Some(("json_invalid".to_string(), Some(offset))));
    }
    // Tolerant mode.
    let opts = JsonItemStreamOptions { strict: false, ..o };
    let (items, err) = run_items("$", opts, &[b"[\"a\x01\\'\"]"]);
    assert_eq!((items, err), (vec!["\"a\\u0001'\"".to_string()], None));
}

#[test]
fn memory_outside_the_items_is_not_held() {
    // A big string and many values outside the target do not count toward the item cap.
    let big = "x".repeat(100_000);
    let doc = format!(r#"{{"skip": "{big}", "many": [{}], "items": [1, "ok"]}}"#, "0,".repeat(10_000) + "0");
    let opts = JsonItemStreamOptions { max_item_bytes: 64, ..Default::default() };
    let (items, err) = run_items("$.items", opts, &[doc.as_bytes()]);
    assert_eq!((items, err), (vec!["1".to_string(), "\"ok\"".to_string()], None));
    // Each item is charged on its own.
    let doc = format!("[{}]", vec![r#""0123456789""#; 1000].join(","));
    let opts = JsonItemStreamOptions { max_item_bytes: 42, ..Default::default() };
    let (items, err) = run_items("$", opts, &[doc.as_bytes()]);
    assert_eq!((items.len(), err), (1000, None));
    let opts = JsonItemStreamOptions { max_item_bytes: 41, ..Default::default() };
    let (items, err) = run_items("$", opts, &[doc.as_bytes()]);
    assert_eq!((items.len(), err), (0, Some(("buffer_limit_exceeded".to_string(), Some(11)))));
}
