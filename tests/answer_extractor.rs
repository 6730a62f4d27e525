//! `AnswerExtractor` conformance: the shared corpus (tests/corpus/answer_extractor.json, also
//! run from JS), 1 MB cases generated here, a differential test against serde_json, one test
//! per reference bug B12–B16 (../shared/spec/reference-behaviour.md §8), caps and lifecycle.
//!
//! Every input goes through `common::assert_chunk_invariant` (whole, byte by byte, every
//! split point of short inputs, random splits; `STREAMROUTE_SEED` pins the random ones).

mod common;

use common::{assert_chunk_invariant, Rng};
use serde_json::Value;
use streamroute::{AnswerExtractor, AnswerExtractorOptions};

/// What a whole run of the extractor gave.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    answer: String,
    is_finish_action: Option<bool>,
    next_node: Option<String>,
    thought: String,
    emitted_count: u64,
    /// Code of the first error (the run stops there).
    error: Option<&'static str>,
}

fn run_opts(opts: AnswerExtractorOptions, chunks: &[&[u8]]) -> Outcome {
    let mut x = AnswerExtractor::new(opts);
    let mut answer = String::new();
    let mut thought = String::new();
    let mut error = None;
    for c in chunks {
        // `feed_into` keeps the text decoded before an error.
        let r = x.feed_into(c, &mut answer);
        thought.push_str(&x.take_thought());
        if let Err(e) = r {
            error = Some(e.code());
            break;
        }
    }
    if error.is_none() {
        match x.finish() {
            Ok(t) => answer.push_str(&t),
            Err(e) => error = Some(e.code()),
        }
    }
    thought.push_str(&x.take_thought());
    Outcome {
        answer,
        is_finish_action: x.is_finish_action(),
        next_node: x.next_node().map(str::to_string),
        thought,
        emitted_count: x.emitted_count(),
        error,
    }
}

fn run(chunks: &[&[u8]]) -> Outcome {
    run_opts(AnswerExtractorOptions::default(), chunks)
}

/// Runs `input` under every chunking; returns the (common) outcome.
fn check(name: &str, input: &str) -> Outcome {
    assert_chunk_invariant(name, input.as_bytes(), run)
}

fn expect(answer: &str, fin: Option<bool>, next_node: Option<&str>, thought: &str) -> Outcome {
    Outcome {
        answer: answer.to_string(),
        is_finish_action: fin,
        next_node: next_node.map(str::to_string),
        thought: thought.to_string(),
        emitted_count: answer.chars().count() as u64,
        error: None,
    }
}

// ------------------------------------------------------------------------------------------
// The corpus
// ------------------------------------------------------------------------------------------

struct Case {
    name: String,
    input: String,
    want: Outcome,
}

fn corpus() -> Vec<Case> {
    let v: Value =
        serde_json::from_str(include_str!("corpus/answer_extractor.json")).expect("tests/corpus/answer_extractor.json is JSON");
    let s = |c: &Value, k: &str| -> String { c[k].as_str().unwrap_or_else(|| panic!("{k} of {c}")).to_string() };
    v.as_array()
        .expect("an array of cases")
        .iter()
        .map(|c| {
            let answer = s(c, "answer");
            Case {
                name: s(c, "name"),
                input: s(c, "input"),
                want: Outcome {
                    emitted_count: answer.chars().count() as u64,
                    answer,
                    is_finish_action: c["isFinishAction"].as_bool(),
                    next_node: c["nextNode"].as_str().map(str::to_string),
                    thought: s(c, "thought"),
                    error: None,
                },
            }
        })
        .collect()
}

#[test]
fn corpus_has_every_shape() {
    let cases = corpus();
    assert!(cases.len() >= 160, "only {} cases", cases.len());
    let mut names = std::collections::HashSet::new();
    for c in &cases {
        assert!(names.insert(c.name.as_str()), "duplicate case name {:?}", c.name);
    }
    for family in [
        "unified final",
        "legacy",
        "string args",
        "array args",
        "escape",
        "surrogate",
        "order",
        "newlines",
        "nested",
        "tool call",
        "args before",
        "prose",
        "fence",
        "think",
        "truncated",
        "empty answer",
        "number answer",
    ] {
        assert!(cases.iter().any(|c| c.name.contains(family)), "no case for {family}");
    }
}

#[test]
fn corpus_every_chunking() {
    let mut failures = Vec::new();
    for case in corpus() {
        let got = std::panic::catch_unwind(|| check(&case.name, &case.input));
        match got {
            Err(p) => failures.push(format!(
                "{:?}: chunkings differ: {}",
                case.name,
                p.downcast_ref::<String>().map_or("?", |s| s.as_str())
            )),
            Ok(got) if got != case.want => failures
                .push(format!("{:?}\n   input: {:?}\n   want:  {:?}\n   got:   {:?}", case.name, case.input, case.want, got)),
            Ok(_) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus case(s) failed (STREAMROUTE_SEED={}):\n{}",
        failures.len(),
        common::seed(),
        failures.join("\n")
    );
}

/// The corpus expectations checked against serde_json where the input is one plain JSON
/// object (no duplicate keys): the answer of a finish action (`next_node` null, or
/// `final_response` / `null` / `none` in any ASCII case) is the first non-blank string among
/// the first-level `args.answer` / `args.raw_answer` (nothing when all are blank), and the
/// thought is the top-level `thought` string.
#[test]
fn corpus_agrees_with_serde_json() {
    let mut checked = 0;
    for case in corpus() {
        // serde_json keeps the last of duplicate keys; the extractor streams as they come.
        if ["duplicate", "first args", "two thoughts"].iter().any(|d| case.name.contains(d)) {
            continue;
        }
        let Ok(Value::Object(top)) = serde_json::from_str::<Value>(&case.input) else { continue };
        let terminal = match top.get("next_node") {
            Some(Value::Null) => true,
            Some(Value::String(s)) => ["final_response", "null", "none"].iter().any(|n| s.trim().eq_ignore_ascii_case(n)),
            _ => continue,
        };
        if let Some(Value::String(t)) = top.get("thought") {
            assert_eq!(&case.want.thought, t, "{}", case.name);
        }
        let Some(Value::Object(args)) = top.get("args") else { continue };
        let strings: Vec<&str> =
            args.iter().filter(|(k, _)| *k == "answer" || *k == "raw_answer").filter_map(|(_, v)| v.as_str()).collect();
        let serde_answer = strings.iter().find(|s| !blank(s));
        let want = match (terminal, serde_answer) {
            (true, Some(a)) => *a,
            _ if top.contains_key("answer") || top.contains_key("raw_answer") => continue,
            _ => "",
        };
        assert_eq!(case.want.answer, want, "{}: corpus answer vs serde_json", case.name);
        assert_eq!(case.want.is_finish_action, Some(terminal), "{}", case.name);
        checked += 1;
    }
    assert!(checked >= 100, "only {checked} corpus cases are plain JSON objects");
}

// ------------------------------------------------------------------------------------------
// 1 MB cases (generated here, not stored)
// ------------------------------------------------------------------------------------------

/// About `len` bytes of varied text: ASCII words, punctuation that looks like JSON, accents,
/// CJK, emoji, newlines, quotes and backslashes.
/// Only ASCII whitespace: no answer (the candidate rule).
fn blank(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_whitespace())
}

/// String and list answers are trimmed of ASCII whitespace (the candidate rule).
fn trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_ascii_whitespace())
}

fn big_text(len: usize, seed: u64) -> String {
    const PIECES: &[&str] = &[
        "lorem ",
        "ipsum ",
        "caf\u{e9} ",
        "\u{4e16}\u{754c} ",
        "\u{1F600}",
        "\n",
        "\"quoted\" ",
        "back\\slash ",
        "{\"answer\": \"decoy\"} ",
        "</think> ",
        "tab\t",
        "\u{10FFFF}",
        "x",
    ];
    let mut rng = Rng::new(seed);
    let mut s = String::with_capacity(len + 8);
    while s.len() < len {
        s.push_str(PIECES[rng.below(PIECES.len())]);
    }
    s
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Every character as a `\uXXXX` escape (surrogate pairs for astral characters).
fn all_escaped(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        let mut buf = [0u16; 2];
        for u in c.encode_utf16(&mut buf) {
            out.push_str(&format!("\\u{u:04x}"));
        }
    }
    out.push('"');
    out
}

const MB: usize = 1 << 20;

#[test]
fn generated_1mb_final_answer() {
    let text = big_text(MB, 1);
    let input = format!(r#"{{"next_node":"final_response","args":{{"answer":{}}}}}"#, json_string(&text));
    assert_eq!(check("1mb final answer", &input), expect(&text, Some(true), Some("final_response"), ""));
}

#[test]
fn generated_1mb_answer_held_before_next_node() {
    let text = big_text(MB, 2);
    let input = format!(r#"{{"thought":"long one","args":{{"answer":{}}},"next_node":"final_response"}}"#, json_string(&text));
    assert_eq!(check("1mb held answer", &input), expect(&text, Some(true), Some("final_response"), "long one"));
}

#[test]
fn generated_1mb_all_escaped_legacy_answer() {
    let text = big_text(MB / 6, 3);
    let input = format!(r#"{{"next_node":null,"args":{{"raw_answer":{}}}}}"#, all_escaped(&text));
    assert!(input.len() >= MB / 2);
    assert_eq!(check("1mb escaped answer", &input), expect(&text, Some(true), None, ""));
}

#[test]
fn generated_1mb_tool_call_and_prose() {
    let text = big_text(MB, 4);
    let tool = format!(r#"{{"args":{{"answer":{}}},"next_node":"save_note"}}"#, json_string(&text));
    assert_eq!(check("1mb tool call", &tool), expect("", Some(false), Some("save_note"), ""));
    // A megabyte of prose (with braces, tags and JSON-looking fragments) before the action.
    let prose = format!(
        "{}\n<think>{}</think>\n```json\n{{\"next_node\":\"final_response\",\"args\":[\"a\",\"b\"]}}\n```",
        text.replace('"', "'"),
        big_text(4096, 5).replace("</think>", "</thin k>")
    );
    assert_eq!(check("1mb prose", &prose), expect("a\nb", Some(true), Some("final_response"), ""));
}

#[test]
fn generated_1mb_string_and_array_args() {
    let text = big_text(MB, 6);
    let input = format!(r#"{{"next_node":"final_response","args":{}}}"#, json_string(&text));
    assert_eq!(check("1mb string args", &input), expect(trim(&text), Some(true), Some("final_response"), ""));
    let items: Vec<String> = (0..1024).map(|i| big_text(1024, 100 + i)).collect();
    let input = format!(
        r#"{{"next_node":"final_response","args":[{}]}}"#,
        items.iter().map(|s| json_string(s)).collect::<Vec<_>>().join(",")
    );
    let lines: Vec<&str> = items.iter().map(String::as_str).filter(|s| !blank(s)).collect();
    assert_eq!(check("1mb array args", &input), expect(trim(&lines.join("\n")), Some(true), Some("final_response"), ""));
}

// ------------------------------------------------------------------------------------------
// Differential: decoded strings against serde_json
// ------------------------------------------------------------------------------------------

/// A random string drawing on every kind of character JSON encoders treat specially.
fn random_string(rng: &mut Rng) -> String {
    const SPECIAL: &[char] = &[
        '"',
        '\\',
        '/',
        '\u{8}',
        '\u{c}',
        '\n',
        '\r',
        '\t',
        '\0',
        '\u{1f}',
        '\u{7f}',
        '\u{e9}',
        '\u{4e16}',
        '\u{2028}',
        '\u{2029}',
        '\u{feff}',
        '\u{fffd}',
        '\u{ffff}',
        '\u{1F600}',
        '\u{10000}',
        '\u{10FFFF}',
        '{',
        '}',
        '[',
        ']',
        ':',
        ',',
        '<',
        '>',
    ];
    let len = rng.below(40);
    (0..len)
        .map(|_| match rng.below(4) {
            0 => SPECIAL[rng.below(SPECIAL.len())],
            1 => char::from_u32(rng.below(0x80) as u32).unwrap(),
            2 => char::from_u32(0x80 + rng.below(0xD800 - 0x80) as u32).unwrap(),
            _ => char::from_u32(0x10000 + rng.below(0x100000) as u32).unwrap(),
        })
        .collect()
}

/// Encodes `s` as a JSON string choosing, per character, between the raw character, its short
/// escape and a `\uXXXX` escape in lower or upper case (pairs for astral characters).
fn random_encoding(s: &str, rng: &mut Rng) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        let short = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '/' => Some("\\/"),
            '\u{8}' => Some("\\b"),
            '\u{c}' => Some("\\f"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            _ => None,
        };
        let must_escape = matches!(c, '"' | '\\') || (c as u32) < 0x20;
        match rng.below(3) {
            0 if !must_escape => out.push(c),
            1 if short.is_some() => out.push_str(short.unwrap()),
            _ => {
                let mut buf = [0u16; 2];
                for u in c.encode_utf16(&mut buf) {
                    if rng.below(2) == 0 {
                        out.push_str(&format!("\\u{u:04x}"));
                    } else {
                        out.push_str(&format!("\\u{u:04X}"));
                    }
                }
            }
        }
    }
    out.push('"');
    out
}

#[test]
fn differential_against_serde_json() {
    let mut rng = Rng::new(common::seed() ^ 0xD1FF);
    for i in 0..300 {
        let s = random_string(&mut rng);
        let encodings = [serde_json::to_string(&s).unwrap(), random_encoding(&s, &mut rng)];
        for (k, enc) in encodings.iter().enumerate() {
            let reference: String = serde_json::from_str(enc).unwrap_or_else(|e| panic!("serde_json rejects {enc}: {e}"));
            assert_eq!(reference, s, "the encoder is wrong for {enc}");
            let shapes = [
                format!(r#"{{"next_node":"final_response","args":{{"answer":{enc}}}}}"#),
                format!(r#"{{"args":{{"x":[{enc}],"answer":{enc}}},"next_node":"final_response"}}"#),
                format!(r#"{{"next_node":null,"args":{enc}}}"#),
                format!(r#"{{"thought":{enc},"next_node":"final_response","args":[{enc}]}}"#),
            ];
            for (j, input) in shapes.iter().enumerate() {
                let got = check(&format!("differential #{i}/{k}/{j}"), input);
                // Object answers are kept as written unless blank; string and list args
                // are trimmed.
                let want = match j {
                    0 | 1 if blank(&reference) => "",
                    0 | 1 => reference.as_str(),
                    _ => trim(&reference),
                };
                assert_eq!(got.answer, want, "input {input}");
                assert_eq!(got.emitted_count, want.chars().count() as u64);
                if j == 3 {
                    assert_eq!(got.thought, reference, "thought of {input}");
                }
            }
        }
        // next_node decoded the same way: an escaped "final_response" is terminal.
        let nn = random_encoding("final_response", &mut rng);
        assert_eq!(serde_json::from_str::<String>(&nn).unwrap(), "final_response");
        let input = format!(r#"{{"next_node":{nn},"args":"ok"}}"#);
        assert_eq!(check("differential next_node", &input), expect("ok", Some(true), Some("final_response"), ""));
    }
}

// ------------------------------------------------------------------------------------------
// Reference bugs B12–B16: each one does not happen here
// ------------------------------------------------------------------------------------------

fn feed_in(x: &mut AnswerExtractor, input: &[u8], size: usize) -> Vec<String> {
    input.chunks(size).map(|c| x.feed(c).unwrap()).collect()
}

/// B12 (quadratic rescans). No timing here (bench/ measures it): a 400 KB tool call without
/// `thought`, fed 4 bytes at a time, holds nothing back (a 64-byte cap is never hit), emits
/// nothing and decides at once; 200 KB of prose likewise; a 400 KB answer fed in 4-byte
/// chunks comes out as it arrives, each chunk's text in that chunk's call.
#[test]
fn b12_linear_work_no_rescans() {
    let small = AnswerExtractorOptions { max_buffer_bytes: 64 };
    let body = big_text(400 << 10, 12);
    for input in [
        format!(r#"{{"next_node":"search","args":{{"query":{}}}}}"#, json_string(&body)),
        format!(r#"{{"args":{{"query":{}}},"next_node":"search"}}"#, json_string(&body)),
    ] {
        let mut x = AnswerExtractor::new(small);
        assert!(feed_in(&mut x, input.as_bytes(), 4).iter().all(String::is_empty));
        assert_eq!(x.finish().unwrap(), "");
        assert_eq!((x.is_finish_action(), x.next_node()), (Some(false), Some("search")));
        assert_eq!(x.take_thought(), "");
    }
    let prose = big_text(200 << 10, 13).replace('{', "(");
    let mut x = AnswerExtractor::new(small);
    assert!(feed_in(&mut x, prose.as_bytes(), 4).iter().all(String::is_empty));
    assert_eq!((x.finish().unwrap(), x.is_finish_action()), (String::new(), None));

    // Streaming: after each 4-byte chunk of a plain ASCII answer, exactly those 4 characters.
    let answer = "abcd".repeat(100 << 10);
    let head = r#"{"next_node":"final_response","args":{"answer":""#;
    let mut x = AnswerExtractor::new(small);
    assert_eq!(x.feed(head.as_bytes()).unwrap(), "");
    for piece in answer.as_bytes().chunks(4) {
        assert_eq!(x.feed(piece).unwrap().as_bytes(), piece);
    }
    assert_eq!(x.feed(b"\"}}").unwrap(), "");
    assert_eq!(x.emitted_count(), answer.len() as u64);
}

/// B13: `\u00e9` split across chunks, char-by-char feeding, a truncated `\u00`, `\b` and `\f`.
#[test]
fn b13_escapes_decode_across_chunks() {
    let head = r#"{"next_node":"final_response","args":{"answer":"caf\u00"#;
    let mut x = AnswerExtractor::default();
    assert_eq!(x.feed(head.as_bytes()).unwrap(), "caf");
    assert_eq!(x.feed(br#"e9"}}"#).unwrap(), "\u{e9}");
    assert_eq!(x.finish().unwrap(), "");

    let whole = r#"{"next_node":"final_response","args":{"answer":"caf\u00e9 \b\f \\u00e9"}}"#;
    let mut x = AnswerExtractor::default();
    let out: String = feed_in(&mut x, whole.as_bytes(), 1).concat();
    assert_eq!(out, "caf\u{e9} \u{8}\u{c} \\u00e9");
    assert_eq!(check("b13 whole", whole).answer, out);

    // Truncated inside the escape: nothing of it leaks.
    assert_eq!(check("b13 truncated", head), expect("caf", Some(true), Some("final_response"), ""));
}

/// B14: a surrogate pair is one character, whatever the split, and the output is always
/// valid Unicode (a lone surrogate becomes U+FFFD instead of being lost).
#[test]
fn b14_surrogate_pairs_combine() {
    let input = r#"{"next_node":"final_response","args":{"answer":"\uD83D\uDE00"}}"#;
    for p in 0..=input.len() {
        let (a, b) = input.as_bytes().split_at(p);
        let got = run(&[a, b]);
        assert_eq!(got, expect("\u{1F600}", Some(true), Some("final_response"), ""), "split at {p}");
    }
    let raw = "{\"next_node\":\"final_response\",\"args\":{\"answer\":\"\u{1F600}\"}}";
    assert_eq!(check("b14 raw", raw).answer, "\u{1F600}");
    let lone = r#"{"next_node":"final_response","args":{"answer":"a\uD83D b \uDE00 c"}}"#;
    assert_eq!(check("b14 lone", lone).answer, "a\u{FFFD} b \u{FFFD} c");
    // Invalid UTF-8 bytes (not expressible in the JSON corpus) also become U+FFFD.
    let mut bad = br#"{"next_node":"final_response","args":{"answer":"x"#.to_vec();
    bad.extend_from_slice(b"\xF0\x9F\x98 \xFF y\xE4\xB8\x96\"}}");
    let got = assert_chunk_invariant("b14 invalid utf-8", &bad, run);
    assert_eq!(got.answer, "x\u{FFFD} \u{FFFD} y\u{4e16}");
}

/// Malformed UTF-8 anywhere in the answer (lone continuation bytes, truncated sequences,
/// overlongs, surrogates, bytes that are never UTF-8, sequences cut by an escape or by the
/// string's end, in the answer and in a thought) decodes as `from_utf8_lossy` decodes the
/// same bytes, at every chunking: the answer's bytes are never validated as a whole, so this
/// pins that nothing malformed survives and nothing valid is lost.
#[test]
fn malformed_utf8_in_the_answer_decodes_as_lossy() {
    const PIECES: &[&[u8]] = &[
        b"a",
        b" ",
        b"\x80",
        b"\xBF",
        b"\xC2",
        b"\xC0\xAF",
        b"\xE0\x80",
        b"\xE2\x82",
        b"\xE2\x82\xAC",
        b"\xED\xA0\x80",
        b"\xF0\x9F",
        b"\xF0\x9F\x98\x80",
        b"\xF4\x90\x80\x80",
        b"\xFF",
        b"\xC3\xA9",
        b"\xE4\xB8\x96",
        b"\\n",
    ];
    let mut rng = common::Rng::new(common::seed() ^ 0xBAD);
    for round in 0..300 {
        let mut content = Vec::new();
        for _ in 0..1 + rng.below(30) {
            content.extend_from_slice(PIECES[rng.below(PIECES.len())]);
        }
        let decoded = String::from_utf8_lossy(&content).replace("\\n", "\n");
        // A blank answer is no answer (the thought is kept as written).
        let answer = if blank(&decoded) { "" } else { decoded.as_str() };
        let mut input = br#"{"thought":""#.to_vec();
        input.extend_from_slice(&content);
        input.extend_from_slice(br#"","next_node":"final_response","args":{"answer":""#);
        input.extend_from_slice(&content);
        input.extend_from_slice(b"\"}}");
        let name = format!("malformed UTF-8 #{round}");
        let got = assert_chunk_invariant(&name, &input, run);
        assert_eq!(got.answer, answer, "{name}: {content:?}");
        assert_eq!(got.thought, decoded, "{name}: {content:?}");
        assert_eq!(got.emitted_count, answer.chars().count() as u64, "{name}");
        // Held before `next_node` decides, against a small cap: the cap counts decoded
        // bytes, so it is hit (or not) at every chunking alike.
        let mut held = br#"{"args":{"answer":""#.to_vec();
        held.extend_from_slice(&content);
        held.extend_from_slice(br#""},"next_node":"final_response"}"#);
        let opts = AnswerExtractorOptions { max_buffer_bytes: 24 };
        let got = assert_chunk_invariant(&format!("{name} held"), &held, |c| run_opts(opts, c));
        if decoded.len() <= 24 {
            assert_eq!(got.answer, answer, "{name} held: {content:?}");
        } else {
            assert_eq!(got.error, Some("buffer_limit_exceeded"), "{name} held: {content:?}");
        }
        // String args opening with `{` are held whole (they may be JSON holding the answer):
        // the same cap on decoded bytes.
        let mut encoded = br#"{"next_node":"final_response","args":"{"#.to_vec();
        encoded.extend_from_slice(&content);
        encoded.extend_from_slice(br#""}"#);
        let got = assert_chunk_invariant(&format!("{name} encoded"), &encoded, |c| run_opts(opts, c));
        let text = format!("{{{decoded}");
        if text.len() <= 24 {
            assert_eq!(got.answer, trim(&text), "{name} encoded: {content:?}");
        } else {
            assert_eq!(got.error, Some("buffer_limit_exceeded"), "{name} encoded: {content:?}");
        }
    }
}

/// B15: `reset()` between attempts: the retry's answer alone, even when the first attempt
/// stopped inside a string, an escape or a UTF-8 sequence.
#[test]
fn b15_reset_between_attempts() {
    let retry = r#"{"next_node":"final_response","args":{"answer":"Hello world"}}"#;
    let mut x = AnswerExtractor::default();
    assert_eq!(x.feed(br#"{"next_node":"final_response","args":{"answer":"Hel"#).unwrap(), "Hel");
    x.reset();
    assert_eq!((x.is_finish_action(), x.next_node(), x.emitted_count()), (None, None, 0));
    assert_eq!(x.feed(retry.as_bytes()).unwrap(), "Hello world");
    assert_eq!(x.finish().unwrap(), "");
    assert_eq!(x.emitted_count(), 11);

    let truncated_firsts: [&[u8]; 6] = [
        br#"{"next_node":"final_response","args":{"answer":"Hel"#,
        br#"{"next_node":"final_response","args":{"answer":"caf\u00"#,
        br#"{"next_node":"final_response","args":{"answer":"x\ud83d"#,
        b"{\"next_node\":\"final_response\",\"args\":{\"answer\":\"\xF0\x9F",
        br#"{"args":{"answer":"held"#,
        br#"<think>{"next_node":"#,
    ];
    for first in truncated_firsts {
        for size in [1, 3, 1000] {
            let mut x = AnswerExtractor::default();
            feed_in(&mut x, first, size);
            x.reset();
            let out: String = feed_in(&mut x, retry.as_bytes(), size).concat();
            assert_eq!(out + &x.finish().unwrap(), "Hello world", "after {first:?}");
            assert_eq!(x.is_finish_action(), Some(true));
        }
    }
    // reset() also recovers after finish() and after an error.
    let mut x = AnswerExtractor::new(AnswerExtractorOptions { max_buffer_bytes: 4 });
    assert!(x.feed(br#"{"args":"too long to hold""#).is_err());
    x.reset();
    assert_eq!(x.feed(br#"{"next_node":null,"args":"ok"}"#).unwrap(), "ok");
    x.finish().unwrap();
    x.reset();
    assert_eq!(x.feed(br#"{"next_node":null,"args":"again"}"#).unwrap(), "again");
}

/// B16: structure-blind matching, each case of the list.
#[test]
fn b16_structure_aware() {
    // Nested keys: the real answer, never the nested one.
    let nested = r#"{"next_node":"final_response","args":{"sources":[{"answer":"nested"}],"answer":"real"}}"#;
    assert_eq!(check("b16 nested", nested).answer, "real");
    // args.metadata.answer with no final answer streams nothing.
    let meta = r#"{"next_node":"final_response","args":{"metadata":{"answer":"meta"}}}"#;
    assert_eq!(check("b16 metadata", meta), expect("", Some(true), Some("final_response"), ""));
    // Args before next_node of a tool call, fed incrementally: no call returns any text.
    let secret = r#"{"args":{"answer":"secret"},"next_node":"save_note"}"#;
    for size in 1..secret.len() {
        let mut x = AnswerExtractor::default();
        assert!(feed_in(&mut x, secret.as_bytes(), size).iter().all(String::is_empty));
        assert_eq!(x.finish().unwrap(), "");
        assert_eq!(x.is_finish_action(), Some(false));
    }
    // Prose that quotes "args" with an answer, then a tool call: nothing leaks.
    let prose = r#"Thinking "args": {"answer": "leak"} {"next_node":"search","args":{"query":"q"}}"#;
    assert_eq!(check("b16 prose args", prose), expect("", Some(false), Some("search"), ""));
    // Prose mentioning `"next_node": null` before a tool call: not terminal.
    let null = "I will not set \"next_node\": null\n{\"next_node\":\"search\",\"args\":{}}";
    assert_eq!(check("b16 prose null", null), expect("", Some(false), Some("search"), ""));
    // Array args: every string element, not only the first.
    let arr = r#"{"next_node":"final_response","args":["one","two","three"]}"#;
    assert_eq!(check("b16 array", arr).answer, "one\ntwo\nthree");
    // A non-string answer does not block raw_answer (nor does an empty one).
    for args in [
        r#"{"answer":42,"raw_answer":"raw"}"#,
        r#"{"answer":null,"raw_answer":"raw"}"#,
        r#"{"answer":"","raw_answer":"raw"}"#,
        r#"{"answer":{"a":1},"raw_answer":"raw"}"#,
    ] {
        let input = format!(r#"{{"next_node":"final_response","args":{args}}}"#);
        assert_eq!(check("b16 non-string answer", &input).answer, "raw", "{args}");
    }
    // raw_answer before answer: exactly one field's text, the first, whatever the chunking
    // (never a mix of the two, never the other one at the end).
    let both = r#"{"next_node":"final_response","args":{"raw_answer":"R text","answer":"A text"}}"#;
    assert_eq!(check("b16 raw first", both).answer, "R text");
    // A nested thought in args does not reach the thinking channel.
    let nested_thought = r#"{"thought":"top","next_node":"final_response","args":{"thought":"nested","answer":"a"}}"#;
    assert_eq!(check("b16 nested thought", nested_thought), expect("a", Some(true), Some("final_response"), "top"));
}

// ------------------------------------------------------------------------------------------
// Caps and lifecycle
// ------------------------------------------------------------------------------------------

#[test]
fn cap_on_held_answer() {
    let small = AnswerExtractorOptions { max_buffer_bytes: 16 };
    let run_small = |chunks: &[&[u8]]| run_opts(small, chunks);
    // Held while undecided: more than 16 bytes is an error, for every chunking.
    for input in [
        r#"{"args":{"answer":"seventeen bytes!!"},"next_node":"final_response"}"#,
        r#"{"args":"seventeen bytes!!","next_node":"final_response"}"#,
        r#"{"args":["seventeen"," bytes!"],"next_node":"final_response"}"#,
        r#"{"answer":"seventeen bytes!!"}"#,
    ] {
        let got = assert_chunk_invariant(input, input.as_bytes(), run_small);
        assert_eq!(got.error, Some("buffer_limit_exceeded"), "{input}");
        assert_eq!(got.answer, "", "{input}");
    }
    // Exactly 16 is fine.
    let ok = r#"{"args":{"answer":"sixteen bytes!!!"},"next_node":"final_response"}"#;
    let got = assert_chunk_invariant(ok, ok.as_bytes(), run_small);
    assert_eq!((got.error, got.answer.as_str()), (None, "sixteen bytes!!!"));
    // Once decided, an answer streams and is never held: no cap.
    let long = "x".repeat(10_000);
    let input = format!(r#"{{"next_node":"final_response","args":{{"answer":"{long}"}}}}"#);
    let got = assert_chunk_invariant("cap streamed", input.as_bytes(), run_small);
    assert_eq!((got.error, got.answer), (None, long.clone()));
    // A tool call's answer is dropped, not held: no cap either.
    let input = format!(r#"{{"next_node":"save","args":{{"answer":"{long}"}}}}"#);
    assert_eq!(assert_chunk_invariant("cap tool", input.as_bytes(), run_small).error, None);
}

#[test]
fn errors_are_sticky_until_reset() {
    let mut x = AnswerExtractor::new(AnswerExtractorOptions { max_buffer_bytes: 16 });
    let e = x.feed(br#"{"args":{"answer":"seventeen bytes!!"#).unwrap_err();
    assert_eq!(e.code(), "buffer_limit_exceeded");
    assert_eq!(x.feed(br#"","next_node":"final_response"}"#).unwrap_err(), e);
    assert_eq!(x.finish().unwrap_err(), e);
    assert_eq!(x.feed(b"").unwrap_err(), e);
    x.reset();
    assert_eq!(x.feed(br#"{"next_node":null,"args":"ok"}"#).unwrap(), "ok");
}

#[test]
fn lifecycle() {
    let mut x = AnswerExtractor::default();
    assert_eq!(x.feed(b"").unwrap(), "");
    assert_eq!((x.is_finish_action(), x.next_node(), x.emitted_count()), (None, None, 0));
    assert_eq!(x.take_thought(), "");
    assert_eq!(x.feed(br#"{"thought":"th"#).unwrap(), "");
    assert_eq!(x.take_thought(), "th");
    assert_eq!(x.take_thought(), "");
    assert_eq!(x.feed(br#"ink","next_node":" final_response ","args":"hi"}"#).unwrap(), "hi");
    assert_eq!(x.take_thought(), "ink");
    assert_eq!(x.next_node(), Some("final_response"));
    assert_eq!(x.finish().unwrap(), "");
    assert_eq!(x.feed(b"more").unwrap_err().code(), "invalid_state");
    assert_eq!(x.finish().unwrap_err().code(), "invalid_state");
    x.reset();
    assert_eq!(x.feed(br#"{"answer":"bare"}"#).unwrap(), "bare");
    assert_eq!(x.finish().unwrap(), "");
}

/// Text after the action is ignored, a wait for more input is never an error, and a top-level
/// answer without `next_node` is emitted when its object closes (not at `finish`).
#[test]
fn top_level_answer_comes_at_close() {
    let mut x = AnswerExtractor::default();
    assert_eq!(x.feed(br#"{"answer":"bare","confidence":0.9"#).unwrap(), "");
    assert_eq!(x.is_finish_action(), None);
    assert_eq!(x.feed(b"}").unwrap(), "bare");
    assert_eq!(x.is_finish_action(), Some(true));
    assert_eq!(x.feed(br#" {"next_node":"final_response","args":"ignored"}"#).unwrap(), "");
    assert_eq!(x.finish().unwrap(), "");
}

/// A `{` whose first value starts more than 1 KiB later is given up (and its bytes scanned
/// again as prose) on the same byte for every chunking; just under that it is the action.
#[test]
fn candidate_cut_is_chunk_independent() {
    let action = r#""next_node":"final_response","args":["x"]}"#;
    let under = format!(r#"{{"{}":1,{action}"#, "k".repeat(1000));
    assert_eq!(check("long key under the cut", &under), expect("x", Some(true), Some("final_response"), ""));
    let over = format!(r#"{{"{}":1,{action}"#, "k".repeat(1100));
    assert_eq!(check("long key over the cut", &over), expect("", None, None, ""));
    let spaces = format!("{{{}{action}", " ".repeat(1100));
    assert_eq!(check("long blank over the cut", &spaces), expect("", None, None, ""));
    let then_action = format!("{over} {{{action}");
    assert_eq!(check("over the cut, then an action", &then_action).answer, "x");
}

/// A `next_node` longer than the 4 KiB kept of it: the same kept prefix for every chunking
/// (whole characters, nothing after the first one that does not fit).
#[test]
fn long_next_node_is_cut_the_same_for_every_chunking() {
    for name in ["\u{20ac}".repeat(1400) + "abc", "ab".repeat(2048) + "\u{20ac}x", "a".repeat(5000)] {
        let input = format!(r#"{{"next_node":"{name}","args":{{"answer":"x"}}}}"#);
        let got = check("long next_node", &input);
        let mut kept = String::new();
        for c in name.chars() {
            if kept.len() + c.len_utf8() > 4096 {
                break;
            }
            kept.push(c);
        }
        assert_eq!(got, expect("", Some(false), Some(&kept), ""));
    }
    // Invalid UTF-8 (each byte one U+FFFD of 3 bytes) crossing the cut, as the fuzzer found.
    let mut input = br#"{"next_node":"F"#.to_vec();
    input.extend(std::iter::repeat_n(0xFF, 3000));
    input.extend_from_slice(br#"","args":{}}"#);
    let got = assert_chunk_invariant("long invalid next_node", &input, run);
    assert_eq!(got.next_node.map(|n| n.len()), Some(1 + 1365 * 3));
}

/// Found by the `answer_extractor` fuzz target: whitespace held back at the start of an
/// answer (a blank answer is no answer) counted against the cap only when a chunk ended
/// inside it, so whole input passed and the same bytes in pieces failed. Every whitespace
/// run that is held now counts, wherever the chunks end.
#[test]
fn held_whitespace_counts_against_the_cap_under_every_chunking() {
    let cap = AnswerExtractorOptions { max_buffer_bytes: 64 };
    let error = |name: &str, input: &str| assert_chunk_invariant(name, input.as_bytes(), |chunks| run_opts(cap, chunks).error);
    // Leading form feeds (escaped) before the answer's first other character.
    let lead = format!(r#"{{"next_node":"final_response","args":{{"answer":"{}\u0000 x"}}}}"#, "\\u000c".repeat(68));
    assert_eq!(error("lead 68", &lead), Some("buffer_limit_exceeded"));
    let short = format!(r#"{{"next_node":"final_response","args":{{"answer":"{}\u0000 x"}}}}"#, "\\u000c".repeat(60));
    assert_eq!(error("lead 60", &short), None);
    // A trimmed answer (list items) holds a whitespace run until text follows it.
    let run = format!(r#"{{"next_node":"final_response","args":["a{}b"]}}"#, " ".repeat(70));
    assert_eq!(error("run 70", &run), Some("buffer_limit_exceeded"));
    let fits = format!(r#"{{"next_node":"final_response","args":["a{}b"]}}"#, " ".repeat(60));
    assert_eq!(error("run 60", &fits), None);
}
