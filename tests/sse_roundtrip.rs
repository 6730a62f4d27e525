//! `SseEncoder` → `SseDecoder` round trips on generated events, plus the encoder's id,
//! validation, comment and heartbeat rules.
//!
//! The generator is seeded from `common::seed()` (`STREAMROUTE_SEED=<u64>` replays a run);
//! the seed is printed in every failure message.

mod common;

use common::{assert_chunk_invariant, seed, Rng};
use streamroute::{SseDecoder, SseEncoder, SseEncoderOptions, SseEvent, SseMessage};

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

/// Pieces of single-line text: separators, leading spaces, look-alike field syntax, multi-byte
/// characters, NUL, a BOM and Unicode line separators (which SSE does not treat as breaks).
const PIECES: &[&str] = &[
    "a", "Z", "0", "42", " ", "  ", ":", ": ", "data: x", "id", "event:", "\t", "é", "中", "😀", "\u{FEFF}", "\u{2028}",
    "\u{85}", "\0",
];
/// Line breaks, including empty lines.
const BREAKS: &[&str] = &["\n", "\r\n", "\r", "\n\n", "\r\r", "\r\n\r\n"];

fn pick<'a>(rng: &mut Rng, from: &[&'a str]) -> &'a str {
    from[rng.below(from.len())]
}

/// Random text of up to `max_pieces` pieces; with `breaks`, line breaks are mixed in.
fn text(rng: &mut Rng, max_pieces: usize, breaks: bool, nul: bool) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(max_pieces + 1) {
        let p = if breaks && rng.below(4) == 0 { pick(rng, BREAKS) } else { pick(rng, PIECES) };
        if nul || p != "\0" {
            s.push_str(p);
        }
    }
    s
}

/// An owned `SseMessage`.
#[derive(Debug, Clone)]
struct Msg {
    event: Option<String>,
    data: String,
    id: Option<String>,
    retry: Option<u64>,
}

impl Msg {
    fn random(rng: &mut Rng) -> Self {
        let event = match rng.below(4) {
            0 => None,
            1 => Some(String::new()),
            _ => Some(text(rng, 4, false, true)),
        };
        let id = match rng.below(4) {
            0 | 1 => None,
            2 => Some(String::new()),
            _ => Some(text(rng, 3, false, false)),
        };
        let retry = match rng.below(8) {
            0 => Some(0),
            1 => Some(u64::MAX),
            2 => Some(rng.next_u64() % 100_000),
            _ => None,
        };
        Msg { event, data: text(rng, 12, true, true), id, retry }
    }

    fn as_message(&self) -> SseMessage<'_> {
        SseMessage { event: self.event.as_deref(), data: &self.data, id: self.id.as_deref(), retry: self.retry }
    }
}

/// One item of a generated stream.
#[derive(Debug, Clone)]
enum Item {
    Message(Msg),
    Comment(String),
    Ping,
}

/// What the decoder must read back: `expected` follows the wire rules the encoder promises.
#[derive(Debug, Default)]
struct Model {
    events: Vec<SseEvent>,
    last_id: String,
    retry: Option<u64>,
}

impl Model {
    /// Records `msg`, encoded with the automatic id `auto_id` when it has no explicit one.
    fn push(&mut self, msg: &Msg, auto_id: Option<u64>) {
        if let Some(id) = msg.id.clone().or(auto_id.map(|n| n.to_string())) {
            self.last_id = id;
        }
        if msg.retry.is_some() {
            self.retry = msg.retry;
        }
        let event = msg.event.clone().filter(|e| !e.is_empty()).unwrap_or_else(|| "message".into());
        self.events.push(SseEvent { event, data: normalise(&msg.data), id: self.last_id.clone() });
    }
}

/// CRLF and lone CR in data come back as LF.
fn normalise(data: &str) -> String {
    data.replace("\r\n", "\n").replace('\r', "\n")
}

/// Decodes `wire` under every chunking; returns (events, last_event_id, retry).
fn decode(name: &str, wire: &[u8]) -> (Vec<SseEvent>, String, Option<u64>) {
    assert_chunk_invariant(name, wire, |chunks| {
        let mut dec = SseDecoder::default();
        let mut events = Vec::new();
        for chunk in chunks {
            dec.feed(chunk, &mut events).unwrap();
        }
        dec.finish(&mut events).unwrap();
        (events, dec.last_event_id().to_owned(), dec.retry())
    })
}

// ---------------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------------

#[test]
fn generated_streams_round_trip() {
    let seed = seed();
    let mut rng = Rng::new(seed);
    for round in 0..1000 {
        let opts = match rng.below(3) {
            0 => SseEncoderOptions { auto_id: true, first_id: rng.next_u64() % 1000 },
            _ => SseEncoderOptions::default(),
        };
        let mut enc = SseEncoder::new(opts);
        let mut wire = String::new();
        let mut model = Model::default();
        let mut items = Vec::new();
        for _ in 0..1 + rng.below(12) {
            let item = match rng.below(8) {
                0 => Item::Comment(text(&mut rng, 6, true, true)),
                1 => Item::Ping,
                _ => Item::Message(Msg::random(&mut rng)),
            };
            match &item {
                Item::Message(m) => {
                    let auto = (opts.auto_id && m.id.is_none()).then(|| enc.next_id());
                    enc.encode_into(&m.as_message(), &mut wire)
                        .unwrap_or_else(|e| panic!("STREAMROUTE_SEED={seed} round {round}: {m:?}: {e}"));
                    model.push(m, auto);
                }
                Item::Comment(t) => wire.push_str(&enc.comment(t)),
                Item::Ping => wire.push_str(&enc.ping()),
            }
            items.push(item);
        }
        let (events, last_id, retry) = decode(&format!("round {round}"), wire.as_bytes());
        let ctx = || format!("STREAMROUTE_SEED={seed} round {round}\n items: {items:#?}\n wire: {wire:?}");
        assert_eq!(events, model.events, "{}", ctx());
        assert_eq!(last_id, model.last_id, "{}", ctx());
        assert_eq!(retry, model.retry, "{}", ctx());
    }
}

/// Hand-picked awkward messages, each alone in a stream.
#[test]
fn awkward_messages_round_trip() {
    let datas = [
        "",
        " ",
        "  lead",
        "trail ",
        ":",
        ": x",
        "\n",
        "\r",
        "\r\n",
        "\n\n",
        "a\rb",
        "a\r\nb",
        "a\n\nb",
        "\r\n\r\n",
        "\n\r",
        "é中😀",
        "\0",
        "\u{FEFF}",
        "data: fake\n\nid: 9",
    ];
    let names = [None, Some(""), Some(" "), Some(":"), Some(" lead"), Some("é😀"), Some("a\0b")];
    let ids = [None, Some(""), Some(" "), Some(" 1"), Some("中"), Some("a:b")];
    for (k, data) in datas.iter().enumerate() {
        for (j, (event, id)) in names.iter().zip(ids.iter().cycle().skip(k)).enumerate() {
            let msg = Msg { event: event.map(Into::into), data: (*data).into(), id: id.map(Into::into), retry: None };
            let wire = SseEncoder::default().encode(&msg.as_message()).unwrap();
            let mut model = Model::default();
            model.push(&msg, None);
            let (events, _, _) = decode(&format!("awkward {k}/{j}"), wire.as_bytes());
            assert_eq!(events, model.events, "{msg:?} encoded as {wire:?}");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------------------------

/// Encodes `ids` (None: automatic) in one stream and returns the ids the decoder reads back.
fn decoded_ids(opts: SseEncoderOptions, ids: &[Option<&str>]) -> Vec<String> {
    let mut enc = SseEncoder::new(opts);
    let mut wire = String::new();
    for id in ids {
        enc.encode_into(&SseMessage { data: "x", id: *id, ..Default::default() }, &mut wire).unwrap();
    }
    let (events, _, _) = decode("ids", wire.as_bytes());
    events.into_iter().map(|e| e.id).collect()
}

#[test]
fn auto_ids_start_at_1_and_increase() {
    let auto = SseEncoderOptions { auto_id: true, first_id: 0 };
    assert_eq!(SseEncoder::new(auto).next_id(), 1);
    assert_eq!(decoded_ids(auto, &[None, None, None]), ["1", "2", "3"]);
}

#[test]
fn auto_ids_start_at_first_id() {
    let auto = SseEncoderOptions { auto_id: true, first_id: 42 };
    assert_eq!(SseEncoder::new(auto).next_id(), 42);
    assert_eq!(decoded_ids(auto, &[None, None]), ["42", "43"]);
}

#[test]
fn explicit_id_overrides_auto_id() {
    let auto = SseEncoderOptions { auto_id: true, first_id: 0 };
    // The explicit id does not use up a number of the counter.
    assert_eq!(decoded_ids(auto, &[None, Some("x"), None, Some(""), None]), ["1", "x", "2", "", "3"]);
}

#[test]
fn without_auto_id_no_id_is_sent() {
    let mut enc = SseEncoder::default();
    let wire = enc.encode(&SseMessage { data: "x", ..Default::default() }).unwrap();
    assert!(!wire.contains("id"), "{wire:?}");
    assert_eq!(decoded_ids(SseEncoderOptions::default(), &[None, Some("7"), None]), ["", "7", "7"]);
}

/// The last automatic id, u64::MAX, must still be usable without a panic (the counter must not
/// overflow after it), and ids must never go backwards.
#[test]
fn auto_id_at_u64_max_does_not_overflow() {
    let mut enc = SseEncoder::new(SseEncoderOptions { auto_id: true, first_id: u64::MAX });
    let msg = SseMessage { data: "x", ..Default::default() };
    let first = std::panic::catch_unwind(move || {
        let first = enc.encode(&msg);
        (first, enc.encode(&msg))
    });
    let (first, second) = first.expect("encoding with auto id u64::MAX panicked");
    assert!(first.unwrap().contains(&format!("id: {}\n", u64::MAX)));
    // After the last id the encoder refuses instead of wrapping around to 0.
    assert_eq!(second.unwrap_err().code(), "invalid_state");
}

// ---------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------

#[test]
fn invalid_fields_are_rejected() {
    let bad: &[(Option<&str>, Option<&str>)] = &[
        (Some("a\nb"), None),
        (Some("a\rb"), None),
        (Some("\r\n"), None),
        (Some("end\n"), None),
        (None, Some("1\n")),
        (None, Some("\r1")),
        (None, Some("a\r\nb")),
        (None, Some("a\0b")),
        (None, Some("\0")),
    ];
    for &(event, id) in bad {
        let mut enc = SseEncoder::new(SseEncoderOptions { auto_id: true, first_id: 5 });
        let mut out = String::from("kept");
        let err = enc
            .encode_into(&SseMessage { event, id, data: "x", retry: Some(1) }, &mut out)
            .expect_err(&format!("{event:?} / {id:?} must be rejected"));
        assert_eq!(err.code(), "sse_invalid_field", "{event:?} / {id:?}");
        assert_eq!(out, "kept", "a rejected message must write nothing");
        assert_eq!(enc.next_id(), 5, "a rejected message must not use up an id");
    }
}

#[test]
fn nul_is_allowed_in_event_and_data() {
    let mut enc = SseEncoder::default();
    let wire = enc.encode(&SseMessage { event: Some("a\0"), data: "\0", ..Default::default() }).unwrap();
    let (events, _, _) = decode("nul", wire.as_bytes());
    assert_eq!(events, [SseEvent { event: "a\0".into(), data: "\0".into(), id: String::new() }]);
}

// ---------------------------------------------------------------------------------------------
// Comments and heartbeats
// ---------------------------------------------------------------------------------------------

#[test]
fn comments_and_pings_are_ignored_by_the_decoder() {
    let enc = SseEncoder::default();
    let texts = ["", "ping", "a\nb", "a\r\nb\rc", "data: x", "\n\n", "id: 5", "retry: 9", "é😀"];
    let outputs = texts.iter().map(|t| enc.comment(t)).chain([enc.ping()]);
    for (k, out) in outputs.enumerate() {
        assert!(out.starts_with(':'), "{out:?}");
        for line in out.strip_suffix("\n\n").expect("ends with a blank line").split('\n') {
            assert!(line.starts_with(':'), "every line is a comment: {out:?}");
        }
        // Alone, and between two events, a comment changes nothing.
        let (events, last_id, retry) = decode(&format!("comment {k}"), out.as_bytes());
        assert_eq!((events, last_id, retry), (vec![], String::new(), None), "{out:?}");
        let wire = format!("data: a\n\n{out}data: b\n\n");
        let (events, _, _) = decode(&format!("comment between {k}"), wire.as_bytes());
        let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
        assert_eq!(data, ["a", "b"], "{out:?}");
    }
    assert_eq!(enc.ping(), ": ping\n\n");
}
