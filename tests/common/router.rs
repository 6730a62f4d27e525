//! Router helpers shared by the router tests (`#[path = "common/router.rs"]`) and the fuzz
//! targets (`fuzz/src/lib.rs`); apart from `mod.rs` because the library's own unit
//! tests include that, where the crate is not `streamroute`.
#![allow(dead_code)]

use streamroute::RoutedEvent;

/// Merges adjacent text events of one kind (and argument text of one call): what the router
/// may cut differently for different chunkings.
pub fn coalesce(events: Vec<RoutedEvent>) -> Vec<RoutedEvent> {
    let mut out: Vec<RoutedEvent> = Vec::new();
    for e in events {
        match (out.last_mut(), &e) {
            (Some(RoutedEvent::AnswerDelta { text: a, phase: p1 }), RoutedEvent::AnswerDelta { text: b, phase: p2 })
                if p1 == p2 =>
            {
                a.push_str(b)
            }
            (Some(RoutedEvent::Compaction { text: a }), RoutedEvent::Compaction { text: b })
            | (Some(RoutedEvent::ArtifactDelta { text: a }), RoutedEvent::ArtifactDelta { text: b })
            | (Some(RoutedEvent::UserDelta { text: a }), RoutedEvent::UserDelta { text: b })
            | (Some(RoutedEvent::RefusalDelta { text: a }), RoutedEvent::RefusalDelta { text: b }) => a.push_str(b),
            (Some(RoutedEvent::ThinkingDelta { text: a, source: s1 }), RoutedEvent::ThinkingDelta { text: b, source: s2 })
                if s1 == s2 =>
            {
                a.push_str(b)
            }
            (
                Some(RoutedEvent::ToolCallDelta { index: i1, arguments: a }),
                RoutedEvent::ToolCallDelta { index: i2, arguments: b },
            ) if i1 == i2 => a.push_str(b),
            _ => out.push(e),
        }
    }
    out
}

/// Routes `chunks` through a `StreamRouter` with `options`: every event, or the thrown
/// error's code.
pub fn route_chunks(
    options: streamroute::StreamRouterOptions,
    chunks: &[&[u8]],
) -> Result<Vec<streamroute::RoutedEvent>, &'static str> {
    let mut r = streamroute::StreamRouter::new(options).map_err(|e| e.code())?;
    let mut out = Vec::new();
    for c in chunks {
        r.feed(c, &mut out).map_err(|e| e.code())?;
    }
    r.finish(&mut out).map_err(|e| e.code())?;
    Ok(out)
}
