//! `normalize_action_text`: arbitrary text (bytes read as UTF-8, lossily) never panics, gives
//! the same result twice, and every action it returns is canonical.
//!
//! The first input byte chooses how the rest is presented: as it is (`0`), inside a ```` ```json ````
//! fence with prose around it (`1`), after a `<think>` block (`2`), or as a JSON string
//! (double-encoded, `3`); other values mean "as it is" too.
//!
//! Checked for every result: determinism (the whole result, diagnostics included);
//! `normalize_action_text` agrees with the diagnostics variant; the ignored prefix/suffix
//! fall on character boundaries and repair offsets inside the input; `next_node` is non-empty
//! and trimmed; a final response's `answer`, when set, is a string, and it has no
//! `raw_answer` next to it; a plan has `steps`; the legacy form normalises back to the same
//! `next_node` and args (a plan with no steps has no legacy form); and an already-normal action
//! normalises to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamroute::{normalize_action_text, normalize_action_value, normalize_action_with_diagnostics, JsonValue};

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fuzz_target!(|input: &[u8]| {
    let Some((&mode, rest)) = input.split_first() else { return };
    let raw = String::from_utf8_lossy(rest);
    let text = match mode {
        1 => format!("Here you go:\n```json\n{raw}\n```\nDone."),
        2 => format!("<think>let me see {{\"next_node\":\"draft\"}}</think>\n{raw}"),
        3 => json_string(&raw),
        _ => raw.into_owned(),
    };

    let first = normalize_action_with_diagnostics(&text);
    let second = normalize_action_with_diagnostics(&text);
    assert_eq!(first, second, "not deterministic");
    let plain = normalize_action_text(&text);
    assert_eq!(plain.as_ref().ok(), first.as_ref().ok().map(|(a, _)| a));
    assert_eq!(plain.as_ref().err(), first.as_ref().err());

    let Ok((action, d)) = first else { return };
    assert!(d.ignored_prefix_len + d.ignored_suffix_len <= text.len());
    assert!(text.is_char_boundary(d.ignored_prefix_len));
    assert!(text.is_char_boundary(text.len() - d.ignored_suffix_len));
    for r in &d.repairs {
        assert!(r.offset <= text.len(), "repair offset {} past the input", r.offset);
    }
    assert!(!action.next_node.is_empty(), "empty next_node");
    assert_eq!(action.next_node.trim(), action.next_node, "untrimmed next_node");
    if let Some(t) = &action.thought {
        assert!(!t.is_empty() && t.trim() == t, "untrimmed thought");
    }
    if let Some(r) = &action.reasoning {
        assert!(!r.is_empty() && r.trim() == r, "untrimmed reasoning");
    }
    let empty_plan = match action.next_node.as_str() {
        "final_response" => {
            if action.arg("answer").is_some_and(|a| matches!(a, JsonValue::String(_))) {
                assert!(action.arg("raw_answer").is_none(), "raw_answer next to a string answer");
            }
            false
        }
        "plan" => match action.arg("steps") {
            Some(JsonValue::Array(steps)) => steps.is_empty(),
            other => panic!("a plan without steps: {other:?}"),
        },
        _ => false,
    };

    // Idempotent: the canonical action, as JSON, normalises to itself.
    let canonical = JsonValue::Object(vec![
        ("next_node".into(), JsonValue::String(action.next_node.clone())),
        ("args".into(), action.args_value()),
    ]);
    let again = normalize_action_value(&canonical).expect("a canonical action normalises");
    assert_eq!(again.next_node, action.next_node);
    assert_eq!(again.args_value(), action.args_value(), "not idempotent");

    if !empty_plan {
        let legacy = action.to_legacy();
        let back = normalize_action_value(&legacy).expect("the legacy form normalises");
        assert_eq!(back.next_node, action.next_node);
        assert_eq!(back.args_value(), action.args_value(), "legacy round trip changed the args");
        let back_text = normalize_action_text(&legacy.to_json()).expect("legacy JSON text normalises");
        assert_eq!(back_text, back);
    }
});
