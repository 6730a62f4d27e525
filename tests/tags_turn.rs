//! `TaggedTurn` (one retry, draft/confirm), `TagEventWriter` (SSE events decoded back with
//! `SseDecoder`), `tag_contract` and `corrective_message`.

use streamroute::{
    corrective_message, parse_tagged, tag_contract, SseDecoder, SseDecoderOptions, SseEvent, TagEventWriter, TagFilter,
    TagFilterOptions, TagViolation, TaggedTurn, TurnStep,
};

const N: &str = "c0ffee00c0ffee00c0ffee00c0ffee00";

fn valid(a: &str, u: &str) -> String {
    format!("[ARTIFACT:{N}]{a}[/ARTIFACT:{N}]\n[USER:{N}]{u}[/USER:{N}]")
}

fn blocks(a: &str, u: &str) -> Vec<(String, String)> {
    vec![("artifact".into(), a.into()), ("user".into(), u.into())]
}

fn respond(turn: &mut TaggedTurn, text: &str) -> TurnStep {
    let mut out = Vec::new();
    for piece in text.as_bytes().chunks(7) {
        turn.feed(piece, &mut out).unwrap();
    }
    turn.finish(&mut out).unwrap()
}

#[test]
fn valid_first_response_becomes_the_draft_and_only_confirm_makes_it_final() {
    let mut t = TaggedTurn::new(N, TagFilterOptions::default()).unwrap();
    assert_eq!(t.attempt(), 1);
    assert_eq!(t.confirm().unwrap_err().code(), "invalid_state");
    match respond(&mut t, &valid("A1", "U1")) {
        TurnStep::Done { ok, parse_ok, result } => {
            assert!(ok && parse_ok);
            assert_eq!(result.blocks, blocks("A1", "U1"));
        }
        s => panic!("{s:?}"),
    }
    assert_eq!(t.draft(), Some(&blocks("A1", "U1")));
    assert_eq!(t.confirmed(), None, "a draft is not final before confirm()");
    assert_eq!(t.confirm().unwrap(), &blocks("A1", "U1"));
    assert_eq!(t.confirmed(), Some(&blocks("A1", "U1")));
    let mut out = Vec::new();
    assert_eq!(t.feed(b"x", &mut out).unwrap_err().code(), "invalid_state");
    assert_eq!(t.finish(&mut out).unwrap_err().code(), "invalid_state");
}

#[test]
fn one_retry_then_done_with_failure_keeping_the_last_good_state() {
    let mut t = TaggedTurn::new(N, TagFilterOptions::default()).unwrap();
    respond(&mut t, &valid("good", "ok?"));
    t.confirm().unwrap();
    // Next turn: two broken responses.
    t.next_turn("n2").unwrap();
    assert_eq!((t.nonce(), t.attempt()), ("n2", 1));
    match respond(&mut t, "Sure! [ARTIFACT:n2]x[/ARTIFACT:n2]") {
        TurnStep::Retry { corrective, result } => {
            assert!(!result.parse_ok);
            assert!(corrective.contains("[ARTIFACT:n2]") && corrective.contains("[/USER:n2]"));
            assert!(corrective.contains("outside the blocks") && corrective.contains("missing"));
        }
        s => panic!("{s:?}"),
    }
    assert_eq!(t.attempt(), 1, "the retry starts with its first chunk");
    match respond(&mut t, "[USER:n2]u[/USER:n2]") {
        TurnStep::Done { ok, parse_ok, result } => {
            assert!(!ok && !parse_ok);
            assert_eq!(result.violations[0].code, "missing_block");
        }
        s => panic!("{s:?}"),
    }
    assert_eq!(t.attempt(), 2);
    assert_eq!(t.draft(), Some(&blocks("good", "ok?")), "the last good state is kept");
    assert_eq!(t.confirmed(), Some(&blocks("good", "ok?")));
}

#[test]
fn a_retry_that_succeeds_replaces_the_draft() {
    let mut t = TaggedTurn::new(N, TagFilterOptions::default()).unwrap();
    assert!(matches!(respond(&mut t, ""), TurnStep::Retry { .. }));
    match respond(&mut t, &valid("second", "try")) {
        TurnStep::Done { ok: true, parse_ok: true, .. } => {}
        s => panic!("{s:?}"),
    }
    assert_eq!(t.draft(), Some(&blocks("second", "try")));
    assert_eq!(t.confirmed(), None);
    // An empty retry (finish without feed) is judged too.
    let mut t = TaggedTurn::new(N, TagFilterOptions::default()).unwrap();
    let mut out = Vec::new();
    assert!(matches!(t.finish(&mut out).unwrap(), TurnStep::Retry { .. }));
    assert!(matches!(t.finish(&mut out).unwrap(), TurnStep::Done { ok: false, .. }));
    assert_eq!(t.attempt(), 2);
}

fn decode(sse: &str) -> Vec<SseEvent> {
    let mut d = SseDecoder::new(SseDecoderOptions::default());
    let mut ev = Vec::new();
    d.feed(sse.as_bytes(), &mut ev).unwrap();
    d.finish(&mut ev).unwrap();
    ev
}

#[test]
fn transport_events_round_trip_through_the_sse_decoder() {
    let mut f = TagFilter::new(N, TagFilterOptions::default()).unwrap();
    let mut w = TagEventWriter::new(1, Some(3000));
    let text = valid("line 1\nline \"2\"\r\n\u{1F680}", "ok?");
    let mut sse = String::new();
    let mut out = Vec::new();
    for piece in text.as_bytes().chunks(5) {
        out.clear();
        f.feed(piece, &mut out).unwrap();
        w.deltas(&f, &out, &mut sse).unwrap();
    }
    out.clear();
    let r = f.finish(&mut out).unwrap();
    w.deltas(&f, &out, &mut sse).unwrap();
    w.ping(&mut sse).unwrap();
    w.done(r.ok, r.parse_ok, &mut sse).unwrap();
    assert!(sse.starts_with("event: artifact_delta\nid: 1\nretry: 3000\ndata: {\"text\":"), "{sse}");
    assert_eq!(sse.matches("retry:").count(), 1);
    let events = decode(&sse);
    let ids: Vec<u64> = events.iter().map(|e| e.id.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "ids are monotonic: {ids:?}");
    let mut art = String::new();
    let mut user = String::new();
    for e in &events[..events.len() - 2] {
        let v: serde_json::Value = serde_json::from_str(&e.data).unwrap();
        let t = v["text"].as_str().unwrap();
        match e.event.as_str() {
            "artifact_delta" => art.push_str(t),
            "user_delta" => user.push_str(t),
            other => panic!("unexpected event {other}"),
        }
    }
    assert_eq!(art, "line 1\nline \"2\"\r\n\u{1F680}");
    assert_eq!(user, "ok?");
    let ping = &events[events.len() - 2];
    assert_eq!((ping.event.as_str(), ping.data.as_str()), ("ping", "{}"));
    let done = &events[events.len() - 1];
    assert_eq!(done.event, "done");
    assert_eq!(done.data, "{\"ok\":true,\"parse_ok\":true}");
    assert_eq!(w.next_id(), ids[ids.len() - 1] + 1);
}

#[test]
fn contract_text_names_every_rule_and_parses_as_its_own_example() {
    let c = tag_contract(N, &TagFilterOptions::default(), &[]).unwrap();
    for needle in [
        format!("[ARTIFACT:{N}]"),
        format!("[/ARTIFACT:{N}]"),
        format!("[USER:{N}]"),
        format!("[/USER:{N}]"),
        "ARTIFACT, then USER".to_string(),
        "nothing before, between or after".to_string(),
    ] {
        assert!(c.contains(&needle), "{needle:?} not in {c}");
    }
    // The skeleton in the contract is itself a valid response.
    let start = c.find('[').unwrap();
    let end = c.rfind(']').unwrap() + 1;
    let blocks = parse_tagged(&c[start..end], N, &TagFilterOptions::default()).unwrap();
    assert_eq!(blocks[0].1, "\n(the clean artifact text only)\n");
    let o = TagFilterOptions { blocks: vec!["PLAN".into()], ..Default::default() };
    let c = tag_contract("n", &o, &[("plan".into(), "the plan as a list".into())]).unwrap();
    assert!(c.contains("[PLAN:n]\n(the plan as a list)\n[/PLAN:n]") && c.contains("exactly one block"));
    assert_eq!(tag_contract("bad nonce", &o, &[]).unwrap_err().code(), "invalid_option");
}

#[test]
fn corrective_message_is_short_and_names_each_problem_once() {
    let v = |code| TagViolation { code, offset: 0 };
    let m = corrective_message(N, &TagFilterOptions::default(), &[]).unwrap();
    assert!(m.contains("Return only in the required format, no extra text"));
    assert!(m.len() < 400);
    let m = corrective_message(
        N,
        &TagFilterOptions::default(),
        &[
            v("text_outside_blocks"),
            v("text_outside_blocks"),
            v("wrong_order"),
            v("nested_marker"),
            v("unclosed_block"),
            v("duplicate_block"),
            v("missing_block"),
        ],
    )
    .unwrap();
    assert_eq!(m.matches("outside the blocks").count(), 1);
    for s in ["wrong order", "inside a block", "not closed", "more than once", "missing"] {
        assert!(m.contains(s), "{s:?} in {m}");
    }
}
