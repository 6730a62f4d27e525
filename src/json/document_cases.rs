//! Generated documents, valid and invalid, on which `document::read_document` must do exactly
//! what the streaming tokenizer does (`document.rs`'s tests, and the payload text walk's).
//! The random part is seeded from `STREAMROUTE_SEED` or the clock (`tests/common`), printed
//! on failure.

pub(crate) use crate::test_common::seed;
use crate::test_common::Rng;

/// Valid documents of every shape: each is also truncated at every offset, and the short
/// ones have every byte replaced by and preceded by every byte value.
const CORPUS: &[&[u8]] = &[
    br#"{"a":[1,-2.5e+3,true,false,null,"x\ny"],"b":{"c":"\u00e9\ud83d\ude00","d":[]},"e":{}}"#,
    b" [ 0 , -0 , 1E2 , 0.5e-1 , \"\" , [ ] , { } ] ",
    br#"{"k\"ey":"v\\al\/\b\f\r\t","":0,"k\"ey":1}"#,
    "[\"caf\u{e9} \u{1F600} \u{4e2d}\",{\"\u{e9}\":\"\u{e9}\"}]".as_bytes(),
    br#""\ud800\udc00\u0041\u00FF""#,
    b"123",
    b"-0.0e0",
    b"true",
    b"null",
    b"\t\r\n\"s\"\t\r\n",
    br#"[[[[{"a":[[{}]]}]]]]"#,
    br#"{"a":{"a":{"a":"deep"}},"b":[{"c":[1,{"d":"e"}]}]}"#,
];

/// Documents at the edges of the grammar.
const EDGES: &[&[u8]] = &[
    b"",
    b" ",
    b"\xEF\xBB\xBF{}",
    b"{} x",
    b"{}{}",
    b"[1]]",
    b"[1,]",
    b"[,1]",
    b"{\"a\":1,}",
    b"{\"a\" 1}",
    b"{\"a\":}",
    b"{1:2}",
    b"{\"a\":1 \"b\":2}",
    b"[1 2]",
    b"[}",
    b"{]",
    b"]",
    b"}",
    b":",
    b",",
    // Numbers.
    b"-",
    b"01",
    b"1.",
    b"1e",
    b"1e+",
    b"-0",
    b"-01",
    b".5",
    b"+1",
    b"0x1",
    b"1ee",
    b"1.5e-3",
    b"1e999999",
    b"-1E+400",
    b"1.0e-400",
    b"00",
    b"2.",
    b"1-2",
    b"1..2",
    b"[-]",
    b"[01]",
    b"[1.]",
    b"[1e]",
    b"[-0]",
    b"[1e999]",
    b"[1",
    b"[-",
    b"[01",
    b"{\"a\":1",
    b"{\"a\":-",
    b"1 ",
    b"1x",
    b"-x",
    b"[1x]",
    b"[1,2",
    b"[1 ,2 ]",
    // Literals.
    b"t",
    b"tr",
    b"tru",
    b"truex",
    b"trUe",
    b"nul",
    b"nulll",
    b"f",
    b"fals",
    b"[true",
    b"[nul]",
    // Escapes.
    br#""\x""#,
    br#""\u12""#,
    br#""\u12g4""#,
    br#""\u""#,
    br#""\"#,
    br#""\u00"#,
    br#""\'""#,
    br#""\U0041""#,
    br#""\ ""#,
    // Lone surrogates, as values and keys.
    br#""\ud800""#,
    br#""\udc00""#,
    br#""\ud800\ud800""#,
    br#""\ud800\udc00""#,
    br#""\ud800x""#,
    br#""\ud800\n""#,
    br#""\ud800\x""#,
    br#""\ud800\u""#,
    br#""\ud800\u00""#,
    br#""\ud800\u0041""#,
    br#""\udbff\udfff""#,
    br#""\udc00\ud800""#,
    br#""\ud800\ud800\udc00""#,
    br#""\ud800"#,
    br#""\ud800\"#,
    br#""a\ud800b""#,
    br#"{"\ud800":1}"#,
    br#"{"\ud800\udc00":1,"\ud800":2}"#,
    br#"["\ud800\u12"]"#,
    br#"["\ud800\uDBFF\uDFFF"]"#,
    // Control characters.
    b"\"a\x01b\"",
    b"\"\x1f\"",
    b"\"\x00\"",
    b"\"\n\"",
    b"{\"\t\":1}",
    b"\"\x7f\"",
    // UTF-8 in strings: bad, cut, overlong, surrogates, past U+10FFFF; before a quote, an
    // escape, a control character, the end of input.
    b"\"\x80\"",
    b"\"\xC0\x80\"",
    b"\"\xC1\xBF\"",
    b"\"\xE2\x82\"",
    b"\"\xE2\x82\xAC\"",
    b"\"\xE2\x82\\n\"",
    b"\"\xE2\x82\x01\"",
    b"\"\xE2\x82",
    b"\"\xE2",
    b"\"\xED\xA0\x80\"",
    b"\"\xF4\x90\x80\x80\"",
    b"\"\xF0\x9F\x98\"",
    b"\"\xF0\x9F\x98\x80\"",
    b"\"\xF8\x88\x80\x80\x80\"",
    b"\"\xFF\"",
    b"\"ok\xE2\x82\xACok\x80\"",
    b"\"\xE2\x28\xA1\"",
    b"\"\xC3\"",
    b"{\"\xC3\":1}",
    b"{\"\xE2\x82\":1}",
    b"\"\\n\xE2\x82\"",
    b"\"\\u0041\xC3\"",
    b"\"\xC3\\u0041\"",
    b"\"\xE2\x82\xAC\xE2\"",
    b"[\"\xE2\x82\x20\"]",
    b"\xC3\xA9",
    b"[\xC3\xA9]",
    // Whitespace that is not JSON's.
    b"\x0c1",
    b"[1\x0b]",
    b"\xC2\xA01",
    b"1\x00",
];

/// Every test document: the corpus, its truncations and byte substitutions, the edges, deep
/// nesting, and random values with random mutations.
pub(crate) fn documents() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    for doc in CORPUS {
        for cut in 0..=doc.len() {
            out.push(doc[..cut].to_vec());
        }
        if doc.len() <= 48 {
            for at in 0..doc.len() {
                for b in 0..=255u8 {
                    let mut d = doc.to_vec();
                    d[at] = b;
                    out.push(d);
                    let mut d = doc.to_vec();
                    d.insert(at, b);
                    out.push(d);
                }
            }
        }
        out.push([b"  ".as_slice(), doc, b"\n"].concat());
        out.push([*doc, b" 1"].concat());
        out.push([*doc, b"x"].concat());
    }
    out.extend(EDGES.iter().map(|d| d.to_vec()));
    for depth in [511, 512, 513, 1000] {
        for (open, close) in [(b"[", b"]"), (b"{", b"}")] {
            let mut d = Vec::new();
            for _ in 0..depth {
                if open == b"{" {
                    d.extend_from_slice(b"{\"k\":");
                } else {
                    d.push(b'[');
                }
            }
            if open == b"{" {
                d.extend_from_slice(b"1");
            }
            let cut = d.clone();
            for _ in 0..depth {
                d.push(close[0]);
            }
            out.push(cut);
            out.push(d);
        }
        let mixed: Vec<u8> = (0..depth).flat_map(|k| if k % 2 == 0 { *b"[" } else { *b"{" }).collect();
        out.push(mixed);
    }
    let mut rng = Rng::new(seed());
    for _ in 0..3000 {
        let mut d = Vec::new();
        random_value(&mut rng, 0, &mut d);
        out.push(d.clone());
        for _ in 0..1 + rng.below(3) {
            if d.is_empty() {
                break;
            }
            let at = rng.below(d.len());
            match rng.below(4) {
                0 => d[at] = rng.below(256) as u8,
                1 => {
                    d.remove(at);
                }
                2 => {
                    const NEAR: &[u8] = b"\"\\{}[],:0-.eu \x80\xC3\xED";
                    d.insert(at, NEAR[rng.below(NEAR.len())]);
                }
                _ => d.truncate(at),
            }
        }
        out.push(d);
    }
    out
}

/// A random JSON value, written with random whitespace and escapes.
fn random_value(rng: &mut Rng, depth: usize, out: &mut Vec<u8>) {
    let ws = |rng: &mut Rng, out: &mut Vec<u8>| {
        if rng.below(4) == 0 {
            out.extend_from_slice(&b" \t\r\n"[..1 + rng.below(4)]);
        }
    };
    ws(rng, out);
    let pick = if depth > 6 { rng.below(5) } else { rng.below(7) };
    match pick {
        0 => out.extend_from_slice([b"true".as_slice(), b"false", b"null"][rng.below(3)]),
        1 => {
            const NUMBERS: &[&[u8]] =
                &[b"0", b"-0", b"12", b"-3.25", b"1e5", b"6.02E+23", b"1e-7", b"123456789012345678901234567890"];
            out.extend_from_slice(NUMBERS[rng.below(NUMBERS.len())]);
        }
        2..=4 => random_string(rng, out),
        5 => {
            out.push(b'[');
            let n = rng.below(4);
            for k in 0..n {
                if k > 0 {
                    out.push(b',');
                }
                random_value(rng, depth + 1, out);
            }
            ws(rng, out);
            out.push(b']');
        }
        _ => {
            out.push(b'{');
            let n = rng.below(4);
            for k in 0..n {
                if k > 0 {
                    out.push(b',');
                }
                ws(rng, out);
                random_string(rng, out);
                ws(rng, out);
                out.push(b':');
                random_value(rng, depth + 1, out);
            }
            ws(rng, out);
            out.push(b'}');
        }
    }
    ws(rng, out);
}

fn random_string(rng: &mut Rng, out: &mut Vec<u8>) {
    const PIECES: &[&[u8]] = &[
        b"a",
        b"key",
        b"hello world",
        b"\\n",
        b"\\\"",
        b"\\\\",
        b"\\/",
        b"\\t",
        b"\\u00e9",
        b"\\u0000",
        b"\\ud83d\\ude00",
        b"\\ud800",
        b"\\udc00",
        b"\xC3\xA9",
        b"\xE4\xB8\xAD",
        b"\xF0\x9F\x98\x80",
        b"0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz",
    ];
    out.push(b'"');
    for _ in 0..rng.below(5) {
        out.extend_from_slice(PIECES[rng.below(PIECES.len())]);
    }
    out.push(b'"');
}
