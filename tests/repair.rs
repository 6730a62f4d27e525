//! JSON repair (`repair_json`, `repair_json_with_log`, `repair_json_value`, `parse_json`).
//!
//! - The corpus (tests/corpus/repair/cases.txt, shared with the JS tests): every case gives
//!   exactly its expected output and logs its group's repair kind; valid documents log
//!   nothing.
//! - Invariants on every output, here and on random mutations of the corpus: it is strict
//!   JSON; repairing it again changes nothing and logs nothing; repairs are in input order at
//!   character boundaries; the log is empty exactly when the input is strict JSON, and then
//!   the output is the input's value (`parse_strict(..).to_json()`).
//! - A property test: random JSON values printed with random unambiguous breakage (single
//!   quotes, unquoted keys, Python and JS literals, comments, odd whitespace, trailing
//!   commas, fences and prose, missing closing brackets) repair to the value printed by
//!   serde_json (preserve_order + arbitrary_precision), byte for byte.
//! - Limits: nesting past 512 is `json_too_deep` (no stack overflow at 100 000 levels);
//!   megabyte inputs built to make a backtracking repairer quadratic run in one pass.

mod common;

use common::{seed, Rng};
use serde_json::Value;
use streamroute::{
    parse_json, parse_strict, repair_json, repair_json_value, repair_json_with_log, JsonValue, Repair, RepairKind,
};

// ---- the corpus ------------------------------------------------------------------------------

struct Case {
    group: String,
    input: String,
    expected: String,
    line: usize,
}

/// Undoes the corpus escapes: `\n \r \t \\ \u{hex}`.
fn unescape(s: &str, line: usize) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('u') => {
                assert_eq!(it.next(), Some('{'), "line {line}: \\u{{…}} expected");
                let hex: String = it.by_ref().take_while(|&c| c != '}').collect();
                let cp = u32::from_str_radix(&hex, 16).expect("hex");
                out.push(char::from_u32(cp).expect("a scalar value"));
            }
            other => panic!("line {line}: unknown escape \\{other:?}"),
        }
    }
    out
}

fn corpus() -> Vec<Case> {
    let text = include_str!("corpus/repair/cases.txt");
    let mut cases = Vec::new();
    let mut group = String::new();
    let mut input: Option<(String, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if let Some(g) = line.strip_prefix("## ") {
            group = g.trim().to_string();
        } else if line == "<" || line.starts_with("< ") {
            assert!(input.is_none(), "line {n}: input without expected output before it");
            input = Some((unescape(line.get(2..).unwrap_or(""), n), n));
        } else if let Some(exp) = line.strip_prefix("> ") {
            let (inp, at) = input.take().unwrap_or_else(|| panic!("line {n}: output without input"));
            cases.push(Case { group: group.clone(), input: inp, expected: exp.to_string(), line: at });
        } else {
            assert!(line.is_empty() || line.starts_with('#'), "line {n}: unexpected {line:?}");
        }
    }
    assert!(input.is_none(), "last input has no expected output");
    cases
}

#[test]
fn corpus_cases_give_their_exact_output_and_log_their_kind() {
    let cases = corpus();
    let mut groups: Vec<(String, usize)> = Vec::new();
    for case in &cases {
        match groups.last_mut() {
            Some((g, n)) if *g == case.group => *n += 1,
            _ => groups.push((case.group.clone(), 1)),
        }
        let ctx = format!("line {} ({}): {:?}", case.line, case.group, case.input);
        let got = repair_json_with_log(&case.input);
        if let Some(code) = case.expected.strip_prefix('!') {
            let err = got.expect_err(&ctx);
            assert_eq!(err.code(), code, "{ctx}");
            assert_eq!(repair_json(&case.input).unwrap_err(), err, "{ctx}");
            continue;
        }
        let (json, repairs) = got.unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(json, case.expected, "{ctx}");
        assert_eq!(repair_json(&case.input).as_deref(), Ok(json.as_str()), "{ctx}");
        let kinds: Vec<&str> = repairs.iter().map(|r| r.kind).collect();
        if case.group == "valid" {
            assert!(repairs.is_empty(), "{ctx}: logged {kinds:?}");
        } else {
            assert!(kinds.contains(&case.group.as_str()), "{ctx}: logged {kinds:?}");
        }
        check_output(&case.input, &json, &repairs, &ctx);
    }
    let total: usize = groups.iter().map(|g| g.1).sum();
    assert!(total >= 150, "{total} cases");
    // Every kind of the module docs' table has a group.
    for kind in kinds() {
        assert!(groups.iter().any(|(g, _)| g == kind), "no corpus group for {kind}");
    }
    println!("{total} repair cases: {groups:?}");
}

/// The repair kinds: the closed list `RepairKind::ALL`, by name.
fn kinds() -> Vec<&'static str> {
    RepairKind::ALL.iter().map(|k| k.as_str()).collect()
}

#[test]
fn the_kind_table_in_the_docs_is_the_list_here() {
    let docs = include_str!("../src/repair/mod.rs");
    let documented: Vec<&str> =
        docs.lines().filter_map(|l| l.strip_prefix("/// | `")).filter_map(|l| l.split('`').next()).collect();
    assert_eq!(documented, kinds());
    for &k in RepairKind::ALL {
        assert_eq!(RepairKind::from_name(k.as_str()), Some(k));
        assert_eq!(k.to_string(), k.as_str());
    }
    assert_eq!(RepairKind::from_name("nope"), None);
    // The TypeScript union of the package is derived from the same list (src/repair/kind.rs).
}

/// The invariants of every successful repair of `input`.
fn check_output(input: &str, json: &str, repairs: &[Repair], ctx: &str) {
    let value = parse_strict(json.as_bytes()).unwrap_or_else(|e| panic!("{ctx}: output {json:?} is not JSON: {e}"));
    // The text keeps a repeated key as written (a repair fixes syntax, it does not read
    // members); the value keeps its first occurrence. So the text is canonical when it is the
    // value's own text, or, with repeats, when repairing it again changes nothing.
    if value.to_json() != json {
        assert_eq!(repair_json(json).as_deref(), Ok(json), "{ctx}: output is not compact canonical JSON");
        assert!(value.to_json().len() < json.len(), "{ctx}: output is not compact canonical JSON");
    }
    assert_eq!(repair_json_value(input).as_ref(), Ok(&value), "{ctx}");
    assert_eq!(parse_json(input, true).as_ref(), Ok(&value), "{ctx}");
    let again = repair_json_with_log(json).unwrap_or_else(|e| panic!("{ctx}: {e}"));
    assert_eq!(again, (json.to_string(), vec![]), "{ctx}: repairing the output changed it");
    for pair in repairs.windows(2) {
        assert!(pair[0].offset <= pair[1].offset, "{ctx}: repairs out of order: {repairs:?}");
    }
    for r in repairs {
        assert!(r.offset <= input.len() && input.is_char_boundary(r.offset), "{ctx}: {r:?}");
        assert!(kinds().contains(&r.kind), "{ctx}: undocumented kind {}", r.kind);
    }
    match parse_strict(input.as_bytes()) {
        Ok(v) => {
            assert!(repairs.is_empty(), "{ctx}: valid JSON logged {repairs:?}");
            assert_eq!(parse_strict(json.as_bytes()).as_ref(), Ok(&v), "{ctx}: valid JSON changed value");
        }
        Err(_) => assert!(!repairs.is_empty(), "{ctx}: invalid JSON repaired without a log"),
    }
}

// ---- the API ---------------------------------------------------------------------------------

#[test]
fn parse_json_is_strict_unless_asked_to_repair() {
    let err = parse_json("{'a': 1}", false).unwrap_err();
    assert_eq!((err.code(), err.offset()), ("json_invalid", Some(1)));
    let v = parse_json("{'a': 1}", true).unwrap();
    assert_eq!(v, JsonValue::Object(vec![("a".into(), JsonValue::Number("1".into()))]));
    assert_eq!(parse_json(r#"{"a": 1}"#, false).unwrap(), v);
    let err = parse_json("// no json here", true).unwrap_err();
    assert_eq!((err.code(), err.offset()), ("json_unrepairable", None));
}

#[test]
fn repairs_report_byte_offsets_in_the_input() {
    let (json, repairs) = repair_json_with_log("{\"é\": 'ü', 😀: True,}").unwrap();
    assert_eq!(json, r#"{"é":"ü","😀":true}"#);
    let got: Vec<(&str, usize)> = repairs.iter().map(|r| (r.kind, r.offset)).collect();
    assert_eq!(got, [("quotes", 7), ("unquoted_key", 13), ("python_literal", 19), ("trailing_comma", 23)]);
}

#[test]
fn numbers_keep_their_text_and_keys_their_order() {
    let text = "{z: 12345678901234567890123, a: -0.000001e-7, m: 1E400, 'b': [0, -0, 1.0]}";
    assert_eq!(repair_json(text).unwrap(), r#"{"z":12345678901234567890123,"a":-0.000001e-7,"m":1E400,"b":[0,-0,1.0]}"#);
}

#[test]
fn escapes_are_decoded_and_lone_surrogates_become_replacement_characters() {
    for (input, want) in [
        (r#"'\u0000\u001F\u007f'"#, "\"\\u0000\\u001f\u{7f}\""),
        (r#"'\ud83d\ude00'"#, "\"\u{1F600}\""),
        (r#"'\ud83d'"#, "\"\u{FFFD}\""),
        (r#"'\ude00\ud83d x'"#, "\"\u{FFFD}\u{FFFD} x\""),
        (r#"'\ud83d\u0041'"#, "\"\u{FFFD}A\""),
        (r#"'\u00e9\u4E16'"#, "\"é世\""),
        (r#"['\"', '\\', '\/', '\b\f\n\r\t']"#, r#"["\"","\\","/","\b\f\n\r\t"]"#),
    ] {
        assert_eq!(repair_json(input).unwrap(), want, "{input}");
    }
}

// ---- limits ----------------------------------------------------------------------------------

#[test]
fn nesting_is_capped_at_512_without_recursion() {
    let ok = format!("{}{}", "[".repeat(512), "]".repeat(512));
    assert_eq!(repair_json(&ok).unwrap(), ok);
    assert_eq!(repair_json(&"[".repeat(512)).unwrap(), ok);
    for deep in ["[".repeat(513), "{\"a\":".repeat(100_000), "a(".repeat(100_000), "[{".repeat(50_000)] {
        let err = repair_json(&deep).unwrap_err();
        assert_eq!(err.code(), "json_too_deep");
        let at = err.offset().unwrap() as usize;
        assert!(at < deep.len(), "{at}");
    }
    let err = repair_json(&"[".repeat(100_000)).unwrap_err();
    assert_eq!((err.code(), err.offset()), ("json_too_deep", Some(512)));
}

/// Inputs that make a repairer which re-reads a string after a wrong guess quadratic (and
/// jsonrepair, which re-slices its output, too). Each runs once on a megabyte: a quadratic
/// implementation would take hours, so finishing is the test; no time is measured.
#[test]
fn megabyte_inputs_built_against_backtracking_run_in_one_pass() {
    const MB: usize = 1 << 20;
    let fill = |unit: &str| unit.repeat(MB / unit.len());
    let inputs = [
        format!("[\"a, {}, \"z", fill("x\"b ")),
        format!("[{}", fill("\"a, x\"b ")),
        format!("{{{}", fill("\"k: v\"w ")),
        format!("{{\"a: {}", fill("x\"y ")),
        format!("[\"{}", fill(" ")),
        format!("[\"{}]", fill("a,\n")),
        format!("[{}", fill("'a, \"b, ")),
        fill("\"a\" + "),
        fill("{\"a\":[1,2,{\"b\":'c'}],d:True,}\n"),
        fill("/* */ // x\n"),
        fill("prose { "),
        fill("{"),
        fill("[1, \"two\", three, 4.5e, tr"),
        fill("\\\"k\\\": \\\"v\\\\\\\"\\\", "),
        fill("1 apple "),
        // Quotes followed by quotes, brackets the string opened, delimiters at the end.
        format!("[\"{}", fill("x\"\" ")),
        format!("\"{}", fill("[a\"] b {c\"} d ")),
        format!("[\"{}]", fill("a, ")),
        format!("[\"{}]", fill("a+")),
        fill("\"a +\n "),
        format!("[{}", fill("\"x\" + ")),
        // Bare text read twice, brackets around fences.
        fill("hello world, 2.3.4\n"),
        fill("[```json\n1\n```]"),
        // Comments inside strings that lost their quotes.
        format!("[{}", fill("\"a /* c */ + \"b\" ")),
        format!("[\"/* {}", fill("a */ \" ")),
    ];
    for input in &inputs {
        match repair_json(input) {
            Ok(json) => assert!(parse_strict(json.as_bytes()).is_ok()),
            Err(e) => assert!(matches!(e.code(), "json_too_deep" | "json_unrepairable"), "{e}"),
        }
    }
}

// ---- random mutations of the corpus ------------------------------------------------------------

const ALPHABET: &[&str] = &[
    "\"", "'", "`", "\\", "\\\"", "{", "}", "[", "]", "(", ")", ",", ":", ";", " ", "\n", "\t", "/", "//", "/*", "*/", "#", "+",
    "-", ".", "...", "0", "1e", "x", "true", "None", "nul", "```", "“", "”", "\u{a0}", "é", "😀", "\\u", "\\ud800", "\u{0}",
    "<think>", "f(",
];

#[test]
fn random_mutations_keep_every_invariant() {
    let cases = corpus();
    let mut rng = Rng::new(seed() ^ 0x5EED_0001);
    for round in 0..20_000 {
        let base = &cases[rng.below(cases.len())].input;
        let mut s: String = base.clone();
        for _ in 0..1 + rng.below(4) {
            let mut at = rng.below(s.len() + 1);
            while !s.is_char_boundary(at) {
                at -= 1;
            }
            match rng.below(3) {
                0 => s.insert_str(at, ALPHABET[rng.below(ALPHABET.len())]),
                1 => {
                    let mut end = (at + 1 + rng.below(4)).min(s.len());
                    while !s.is_char_boundary(end) {
                        end += 1;
                    }
                    s.replace_range(at..end, "");
                }
                _ => s.truncate(at),
            }
        }
        let ctx = format!("round {round} (STREAMROUTE_SEED={}): {s:?}", seed());
        match repair_json_with_log(&s) {
            Ok((json, repairs)) => check_output(&s, &json, &repairs, &ctx),
            Err(e) => {
                assert!(matches!(e.code(), "json_unrepairable" | "json_too_deep"), "{ctx}: {e}");
                assert!(parse_strict(s.as_bytes()).is_err(), "{ctx}: valid JSON unrepairable");
            }
        }
    }
}

// ---- the property test ------------------------------------------------------------------------

fn random_string(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "a", "Z", "key", " ", "  ", "\"", "'", "\\", "/", "//", "/*", "*/", "#", ",", ":", "]", "}", "[", "{", "\n", "\t", "\r",
        "\u{1}", "\u{1f}", "\u{7f}", "é", "世", "😀", "“", "’", "`", "+", "...", "\u{a0}", "\u{2028}", "true", "None", "0", "-1",
        "(", ")",
    ];
    (0..rng.below(8)).map(|_| PIECES[rng.below(PIECES.len())]).collect()
}

fn random_key(rng: &mut Rng) -> String {
    if rng.below(2) == 0 {
        const IDENTS: &[&str] = &["a", "name", "key_1", "$id", "True", "null", "camelCase", "x9"];
        IDENTS[rng.below(IDENTS.len())].to_string()
    } else {
        random_string(rng)
    }
}

fn random_number(rng: &mut Rng) -> Value {
    const NUMBERS: &[&str] = &[
        "0",
        "-0",
        "1",
        "-17",
        "3.25",
        "-0.5e-3",
        "1E400",
        "2e+8",
        "123456789012345678901234567890",
        "0.1000",
        "9007199254740993",
    ];
    let text = if rng.below(2) == 0 {
        NUMBERS[rng.below(NUMBERS.len())].to_string()
    } else {
        (rng.next_u64() >> rng.below(64)).to_string()
    };
    serde_json::from_str(&text).expect("a number")
}

fn random_value(rng: &mut Rng, depth: usize) -> Value {
    let leaf = depth >= 4 || rng.below(3) == 0;
    match rng.below(if leaf { 5 } else { 7 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => random_number(rng),
        3 | 4 => Value::String(random_string(rng)),
        5 => Value::Array((0..rng.below(5)).map(|_| random_value(rng, depth + 1)).collect()),
        _ => {
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                m.insert(random_key(rng), random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
    }
}

/// Prints `v` as JSON with random breakage that has one reading.
struct Breaker<'r> {
    rng: &'r mut Rng,
    out: String,
}

impl Breaker<'_> {
    fn chance(&mut self, percent: usize) -> bool {
        self.rng.below(100) < percent
    }

    /// Whitespace, comments and special spaces between tokens.
    fn gap(&mut self) {
        for _ in 0..self.rng.below(3) {
            match self.rng.below(10) {
                0 => self.out.push_str("/* c, ] } */"),
                1 => self.out.push_str(" // c \"x\" ]\n"),
                2 => self.out.push('\u{a0}'),
                3 => self.out.push('\n'),
                4 => self.out.push_str("\n  "),
                _ => self.out.push(' '),
            }
        }
    }

    fn string(&mut self, s: &str, key: bool) {
        let ident = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        if key && ident && self.chance(50) {
            self.out.push_str(s);
            return;
        }
        let q = if self.chance(40) { '\'' } else { '"' };
        self.out.push(q);
        for c in s.chars() {
            match c {
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                c if c == q => {
                    self.out.push('\\');
                    self.out.push(c);
                }
                c if (c as u32) < 0x20 => self.out.push_str(&format!("\\u{:04X}", c as u32)),
                c if !c.is_ascii() && self.chance(20) => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        self.out.push_str(&format!("\\u{u:04x}"));
                    }
                }
                c => self.out.push(c),
            }
        }
        self.out.push(q);
    }

    fn value(&mut self, v: &Value) {
        self.gap();
        match v {
            Value::Null => {
                let lit = ["null", "None", "undefined"][self.rng.below(3)];
                self.out.push_str(lit);
            }
            Value::Bool(b) => {
                let python = self.chance(40);
                self.out.push_str(match (b, python) {
                    (true, false) => "true",
                    (false, false) => "false",
                    (true, true) => "True",
                    (false, true) => "False",
                });
            }
            Value::Number(n) => self.out.push_str(&n.to_string()),
            Value::String(s) => self.string(s, false),
            Value::Array(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                    self.gap();
                }
                if !items.is_empty() && self.chance(30) {
                    self.out.push(',');
                    self.gap();
                }
                self.out.push(']');
            }
            Value::Object(members) => {
                self.out.push('{');
                for (i, (k, item)) in members.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.gap();
                    self.string(k, true);
                    self.gap();
                    self.out.push(':');
                    self.value(item);
                    self.gap();
                }
                if !members.is_empty() && self.chance(30) {
                    self.out.push(',');
                    self.gap();
                }
                self.out.push('}');
            }
        }
    }
}

fn break_json(v: &Value, rng: &mut Rng) -> String {
    let mut b = Breaker { rng, out: String::new() };
    b.value(v);
    b.gap();
    let mut doc = b.out;
    match rng.below(4) {
        // Fenced, with prose around.
        0 => doc = format!("Here you go:\n```json\n{doc}\n```\nAnything else?"),
        // The last closing brackets cut off.
        1 => {
            for _ in 0..rng.below(4) {
                let trimmed = doc.trim_end_matches([' ', '\n', '\t', '\u{a0}']);
                if !trimmed.ends_with([']', '}']) {
                    break;
                }
                let n = trimmed.len() - 1;
                doc.truncate(n);
            }
        }
        _ => {}
    }
    doc
}

#[test]
fn random_values_with_unambiguous_breakage_repair_to_themselves() {
    let mut rng = Rng::new(seed() ^ 0x5EED_0002);
    for round in 0..5_000 {
        let v = random_value(&mut rng, 0);
        let want = serde_json::to_string(&v).unwrap();
        let doc = break_json(&v, &mut rng);
        let ctx = format!("round {round} (STREAMROUTE_SEED={}): {doc:?}", seed());
        let (json, repairs) = repair_json_with_log(&doc).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(json, want, "{ctx}");
        check_output(&doc, &json, &repairs, &ctx);
        // Valid JSON: value-identical, nothing logged.
        let (plain, log) = repair_json_with_log(&want).unwrap();
        assert_eq!((plain.as_str(), log.len()), (want.as_str(), 0), "{ctx}");
        let pretty = serde_json::to_string_pretty(&v).unwrap();
        assert_eq!(repair_json_with_log(&pretty).unwrap(), (want.clone(), vec![]), "{ctx}");
    }
}

// ---- nothing is lost ---------------------------------------------------------------------------

/// Syntax that a repair may add, escape, re-quote or drop.
const SYNTAX: &[&str] = &[
    "{", "}", "[", "]", ",", ":", ";", "=", "\"", "'", "“", "”", "‘", "’", " ", "  ", "\n", "\t", "+", "-", ".", "...", "\\",
    "\\\"", "\u{a0}", "\u{200b}",
];
/// Text whose letters, digits and non-ASCII characters must all reach the output, in order.
/// Its letters never spell a keyword whichever pieces meet, and after a backslash they never
/// make an escape that stands for another character (`\x41`, `\0`, `\n`).
const TEXT: &[&str] = &["k", "yz", "Q", "7", "42", "9", "é", "世", "😀", "k y", "Qk7", "zz"];
/// Text that may go: comments, fence markers, literal names that are rewritten.
const DROPPABLE: &[&str] = &["/* c */", "// c\n", "# c\n", "\n```json\n", "\n```\n", "None", "True", "undefined", "NaN"];

/// Whether every character of `want` occurs in `text`, in order.
fn is_subsequence(want: &[char], text: &str) -> bool {
    let mut it = want.iter().peekable();
    for c in text.chars() {
        if it.peek() == Some(&&c) {
            it.next();
        }
    }
    it.peek().is_none()
}

/// A repair adds, escapes, re-quotes or drops syntax, but every letter, digit and non-ASCII
/// character of the input's text reaches the output in input order (prose extraction aside:
/// text outside the JSON is dropped on purpose and logged as `prose`).
#[test]
fn repairs_never_drop_text() {
    let mut rng = Rng::new(seed() ^ 0x5EED_0003);
    let mut checked = 0;
    const ROUNDS: usize = 20_000;
    for round in 0..ROUNDS {
        let (mut doc, mut kept) = (String::new(), Vec::new());
        if rng.below(4) > 0 {
            doc.push(if rng.below(2) == 0 { '[' } else { '{' });
        }
        for _ in 0..1 + rng.below(14) {
            match rng.below(10) {
                0..=4 => doc.push_str(SYNTAX[rng.below(SYNTAX.len())]),
                5..=8 => {
                    let t = TEXT[rng.below(TEXT.len())];
                    doc.push_str(t);
                    kept.extend(t.chars().filter(|c| !c.is_whitespace()));
                }
                _ => doc.push_str(DROPPABLE[rng.below(DROPPABLE.len())]),
            }
        }
        let ctx = format!("round {round} (STREAMROUTE_SEED={}): {doc:?}", seed());
        let (json, repairs) = match repair_json_with_log(&doc) {
            Ok(done) => done,
            Err(e) => {
                assert_eq!(e.code(), "json_unrepairable", "{ctx}");
                assert!(kept.is_empty(), "{ctx}: text refused");
                continue;
            }
        };
        if repairs.iter().any(|r| r.kind == "prose") {
            continue;
        }
        checked += 1;
        assert!(is_subsequence(&kept, &json), "{ctx}: text lost in {json}");
    }
    assert!(checked > ROUNDS / 2, "only {checked} rounds checked");
}
