//! The stream router measured natively: the same core that `router.mjs` measures through the
//! JS API and wasm, without either, so bench/README can say what the boundary costs.
//!
//!   cargo bench --bench native -- [--iterations N] [--warmup-ms MS] [--sizes 64,4096]
//!       [--json FILE] DIR/text.sse DIR/action-json.sse
//!
//! The files are what `node router.mjs --dump DIR` writes: `<content>.sse` holds the exact
//! bytes router.mjs feeds, `<content>.answer.txt` beside it the answer text it must produce;
//! `<content>` (`text` or `action-json`) is the router's content mode. For each chunk size and
//! each file, `StreamRouter` (provider openai-chat) is fed the bytes in slices of that size,
//! then `finish()`ed; the `answer_delta` texts are concatenated, as router.mjs does in JS.
//! Timing as in router.mjs: a warm-up of at least 3 runs and `--warmup-ms` per case, then N
//! interleaved rounds; the median MB/s (input bytes / time) with the slowest–fastest range.
//!
//! A measurement, not a test: nothing asserts a speed. Every run's answer must equal the
//! answer file, else this prints an ERROR and exits 1. Without files (as `cargo test
//! --benches` runs it) it prints its usage and exits 0.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::exit;
use std::time::{Duration, Instant};

use streamroute::{ContentMode, Provider, RoutedEvent, StreamRouter, StreamRouterOptions};

const USAGE: &str = "usage: cargo bench --bench native -- [--iterations N] [--warmup-ms MS] \
[--sizes 64,4096] [--json FILE] FILE.sse... (files from `node bench/router.mjs --dump DIR`)";

struct Options {
    iterations: usize,
    warmup: Duration,
    sizes: Vec<usize>,
    json: Option<PathBuf>,
    files: Vec<PathBuf>,
}

/// One stream: its bytes, its content mode and the answer it must produce.
struct Case {
    name: String,
    content: ContentMode,
    bytes: Vec<u8>,
    answer: String,
}

/// The timing of one case at one chunk size.
struct Row {
    size: usize,
    content: String,
    feeds: usize,
    bytes: usize,
    seconds: f64,
    mbps: f64,
    min_mbps: f64,
    max_mbps: f64,
}

fn fail(msg: &str) -> ! {
    eprintln!("ERROR: {msg}");
    exit(1)
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Options {
    let mut o =
        Options { iterations: 15, warmup: Duration::from_millis(1500), sizes: vec![64, 4096], json: None, files: Vec::new() };
    let number = |s: &str, flag: &str| -> usize {
        s.parse().ok().filter(|&n| n > 0).unwrap_or_else(|| fail(&format!("{flag}: not a positive integer: {s}")))
    };
    while let Some(a) = args.next() {
        let mut value = || args.next().unwrap_or_else(|| fail(&format!("{a} needs a value\n{USAGE}")));
        match a.as_str() {
            "--iterations" => o.iterations = number(&value(), &a),
            "--warmup-ms" => {
                let v = value();
                o.warmup = Duration::from_millis(v.parse().unwrap_or_else(|_| fail(&format!("{a}: not a number of ms: {v}"))));
            }
            "--sizes" => o.sizes = value().split(',').map(|s| number(s, "--sizes")).collect(),
            "--json" => o.json = Some(PathBuf::from(value())),
            // `cargo bench` appends `--bench`.
            "--bench" => {}
            _ if a.starts_with("--") => fail(&format!("unknown argument {a}\n{USAGE}")),
            _ => o.files.push(PathBuf::from(&a)),
        }
    }
    o
}

fn load_case(path: &Path) -> Case {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".sse"))
        .unwrap_or_else(|| fail(&format!("{}: expected a file named <content>.sse", path.display())));
    let content =
        ContentMode::parse(name).unwrap_or_else(|e| fail(&format!("{}: the name says the content mode: {e}", path.display())));
    let read = |p: &Path| std::fs::read(p).unwrap_or_else(|e| fail(&format!("{}: {e}", p.display())));
    let answer_path = path.with_file_name(format!("{name}.answer.txt"));
    let answer = String::from_utf8(read(&answer_path)).unwrap_or_else(|_| fail(&format!("{}: not UTF-8", answer_path.display())));
    Case { name: name.to_owned(), content, bytes: read(path), answer }
}

/// Routes the whole stream once, in `size`-byte slices, and returns the answer text.
fn route(case: &Case, size: usize, events: &mut Vec<RoutedEvent>) -> String {
    let mut router = StreamRouter::new(StreamRouterOptions {
        provider: Provider::OpenAiChat,
        content: case.content,
        ..StreamRouterOptions::default()
    })
    .unwrap_or_else(|e| fail(&format!("StreamRouter::new: {e}")));
    let mut answer = String::new();
    let mut take = |events: &mut Vec<RoutedEvent>| {
        for ev in events.drain(..) {
            if let RoutedEvent::AnswerDelta { text, .. } = ev {
                answer.push_str(&text);
            }
        }
    };
    for chunk in case.bytes.chunks(size) {
        router.feed(chunk, events).unwrap_or_else(|e| fail(&format!("{}: feed: {e}", case.name)));
        take(events);
    }
    router.finish(events).unwrap_or_else(|e| fail(&format!("{}: finish: {e}", case.name)));
    take(events);
    answer
}

fn check(case: &Case, size: usize, got: &str) {
    if got == case.answer {
        return;
    }
    let at = got.bytes().zip(case.answer.bytes()).take_while(|(a, b)| a == b).count();
    fail(&format!(
        "{} at {size} B chunks: answer differs at byte {at} (got {} bytes, want {})",
        case.name,
        got.len(),
        case.answer.len()
    ));
}

fn median(xs: &[f64]) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

fn measure(o: &Options, cases: &[Case]) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut events = Vec::new();
    for &size in &o.sizes {
        for case in cases {
            let t0 = Instant::now();
            let mut runs = 0;
            while runs < 3 || t0.elapsed() < o.warmup {
                check(case, size, &route(case, size, &mut events));
                runs += 1;
            }
        }
        let mut times = vec![Vec::with_capacity(o.iterations); cases.len()];
        for _ in 0..o.iterations {
            for (case, t) in cases.iter().zip(&mut times) {
                let t0 = Instant::now();
                let got = route(case, size, &mut events);
                t.push(t0.elapsed().as_secs_f64());
                check(case, size, &got);
            }
        }
        for (case, t) in cases.iter().zip(&times) {
            let mb = case.bytes.len() as f64 / 1e6;
            let seconds = median(t);
            let (fastest, slowest) = t.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            rows.push(Row {
                size,
                content: case.name.clone(),
                feeds: case.bytes.len().div_ceil(size),
                bytes: case.bytes.len(),
                seconds,
                mbps: mb / seconds,
                min_mbps: mb / slowest,
                max_mbps: mb / fastest,
            });
        }
    }
    rows
}

fn size_label(size: usize) -> String {
    if size >= 1024 && size % 1024 == 0 {
        format!("{} KiB", size / 1024)
    } else {
        format!("{size} B")
    }
}

fn table(rows: &[Row]) -> String {
    let mut s = String::from("| chunk | content | feeds | native MB/s |\n|---|---|--:|--:|\n");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} ({:.1}–{:.1}) |",
            size_label(r.size),
            r.content,
            r.feeds,
            r.mbps,
            r.min_mbps,
            r.max_mbps
        );
    }
    s
}

fn json(o: &Options, rows: &[Row]) -> String {
    let results: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            serde_json::json!({
                "size": r.size, "content": r.content, "feeds": r.feeds, "bytes": r.bytes,
                "seconds": r.seconds, "mbps": r.mbps, "minMbps": r.min_mbps, "maxMbps": r.max_mbps,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "iterations": o.iterations,
        "warmupMs": o.warmup.as_millis() as u64,
        "results": results,
    });
    serde_json::to_string_pretty(&doc).expect("a JSON value always serialises")
}

fn main() {
    let o = parse_args(std::env::args().skip(1));
    if o.files.is_empty() {
        eprintln!("{USAGE}");
        return;
    }
    let cases: Vec<Case> = o.files.iter().map(|p| load_case(p)).collect();
    for c in &cases {
        println!("{}: {} bytes, answer {} bytes", c.name, c.bytes.len(), c.answer.len());
    }
    println!("warm-up >= {} ms per case, median of {} runs", o.warmup.as_millis(), o.iterations);
    let rows = measure(&o, &cases);
    println!();
    print!("{}", table(&rows));
    if let Some(path) = &o.json {
        std::fs::write(path, json(&o, &rows)).unwrap_or_else(|e| fail(&format!("{}: {e}", path.display())));
    }
}
