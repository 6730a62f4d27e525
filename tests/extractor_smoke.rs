mod common;
use streamroute::AnswerExtractor;

fn run(chunks: &[&[u8]]) -> (String, Option<bool>, Option<String>, String) {
    let mut x = AnswerExtractor::default();
    let mut out = String::new();
    let mut th = String::new();
    for c in chunks {
        out.push_str(&x.feed(c).unwrap());
        th.push_str(&x.take_thought());
    }
    out.push_str(&x.finish().unwrap());
    (out, x.is_finish_action(), x.next_node().map(str::to_string), th)
}

#[test]
fn smoke() {
    let cases: &[(&str, &str, Option<bool>)] = &[
        (r#"{"next_node":"final_response","args":{"answer":"caf\u00e9 \ud83d\ude00 \"q\" \b\f"}}"#, "café 😀 \"q\" \u{8}\u{c}", Some(true)),
        (r#"{"args":{"answer":"secret"},"next_node":"save_note"}"#, "", Some(false)),
        (r#"{"args":{"answer":"held"},"next_node":"final_response"}"#, "held", Some(true)),
        (r#"The set {1,2} has {a}. <think>{"next_node":"final_response","args":{"answer":"no"}}</think> ```json
{"thought":"t","next_node":null,"args":{"raw_answer":"legacy"}}
``` tail {"next_node":"final_response","args":{"answer":"second"}}"#, "legacy", Some(true)),
        (r#"{"next_node":"final_response","args":{"sources":[{"answer":"nested"}],"answer":"real"}}"#, "real", Some(true)),
        (r#"{"next_node":"final_response","args":["a","b",3,"c"]}"#, "a\nb\nc", Some(true)),
        (r#"{"next_node":"final_response","args":"  plain  "}"#, "  plain  ", Some(true)),
        (r#"{"answer":"bare","confidence":0.9}"#, "bare", Some(true)),
        (r#"{"next_node":"final_response","args":{"answer":"","raw_answer":"raw"}}"#, "raw", Some(true)),
        (r#"{"a":1} {"next_node":"final_response","args":{"answer":"after non-action"}}"#, "after non-action", Some(true)),
        (r#"{"next_node":"final_response","args":{"answer":"trunc\u00"#, "trunc", Some(true)),
        (r#"{"next_node":"search","args":{"answer":"x"}}"#, "", Some(false)),
        (r#"{{{{{ {"next_node" : "final_response" , "args" : { "answer" : "ws" } }"#, "ws", Some(true)),
    ];
    for (input, want, fin) in cases {
        let got = common::assert_chunk_invariant(input, input.as_bytes(), run);
        assert_eq!(got.0, *want, "{input}");
        assert_eq!(got.1, *fin, "{input}");
    }
}
