// The wire profiles and `fromSse`: each profile module has its writer (`toSse`) and its reader
// (`fromSse`); this module picks one by name and reads frames with it.
//
// Three layers, each with one job:
// - `FrameReader`: bytes or text to SSE frames, with the frame cap. A frame over the cap is
//   reported once and skipped through its terminating blank line (a small machine over the
//   bytes, `Skip`), after which a fresh decoder reads on: nothing of the skipped frame's tail
//   is ever read as a frame, whatever the chunking.
// - `ProfileFrames`: frames to events with one profile's reader, and the check that the wire
//   is that profile's at all (its vocabulary within the first `SCAN_FRAMES` frames).
// - `WireStream`: the two together, what `fromSse` and `connectSse({ profile })` run.
import { SseDecoder } from '../classes/sse.js';
import type { SseEvent } from '../classes/sse.js';
import { badChunk, chunkView } from '../boundary.js';
import { decoderCaps, optionsIn } from '../connect.js';
import { StreamrouteError } from '../runtime.js';
import { invalid, isObject, own, str } from './common.js';
import type { DoneEvent, ErrorEvent, ProfileReader, SseFrame, WireEvent } from './common.js';
import { knows as plannerKnows, reader as planner } from './planner.js';
import { knows as taggedKnows, reader as tagged } from './tagged.js';
import { DONE_MARKER, knows as aiSdkKnows, reader as aiSdk } from './ai-sdk.js';
import { knows as agUiKnows, reader as agUi } from './ag-ui.js';

/** A profile's name. */
export type Profile = 'planner' | 'tagged' | 'ai-sdk' | 'ag-ui';

interface ProfileModule {
  /** A fresh reader of the profile's frames. */
  reader(): ProfileReader;
  /** Whether a frame (its name, raw data and parsed data) is of the profile's vocabulary. */
  knows(name: string, raw: string, data: unknown): boolean;
}

/** The reader of every profile by name (writers: web.js, so a page that only reads has none). */
const PROFILES: { readonly [P in Profile]: ProfileModule } = {
  planner: { reader: planner, knows: plannerKnows },
  tagged: { reader: tagged, knows: taggedKnows },
  'ai-sdk': { reader: aiSdk, knows: aiSdkKnows },
  'ag-ui': { reader: agUi, knows: agUiKnows },
};
const NAMES = Object.keys(PROFILES) as Profile[];

/** `profile` when it names a profile, else `invalid_option`. */
export function profileName(profile: unknown): Profile {
  if (typeof profile !== 'string' || !Object.hasOwn(PROFILES, profile)) {
    const got = typeof profile === 'string' ? JSON.stringify(profile) : `a ${typeof profile}`;
    throw new StreamrouteError('invalid_option', `profile must be "planner", "tagged", "ai-sdk" or "ag-ui", got ${got}`);
  }
  return profile as Profile;
}

/** Frames (decoded SSE events but `ping`s) within which a wire must show its profile's vocabulary. */
export const SCAN_FRAMES = 16;

/** What `JSON.parse` could not read. */
const NOT_JSON: unique symbol = Symbol('not JSON');

/** The name of the frame that ends a stream its server stopped (SseLog's `stop()`). */
export const STOPPED = 'stopped';

/** The terminal event of a stream that is not the profile's. */
const FAILED_DONE: DoneEvent = { type: 'done', ok: false, parse_ok: false, finish_reason: null, finish: 'error' };

const errorText = (err: unknown): string => (err instanceof Error ? err.message : str(err));

/**
 * Frames to events with one profile's reader. A frame it cannot read gives an `error {code:
 * "wire_invalid"}` and reading goes on. Until a frame of the profile's vocabulary arrives, the
 * events of the others are held; if none arrives within `SCAN_FRAMES` frames (or before the
 * end), the wire is another profile's or none: one `wire_invalid` naming the profile the frames
 * look like, a `done {ok: false}`, and nothing more.
 */
export class ProfileFrames {
  readonly #profile: Profile;
  readonly #reader: ProfileReader;
  #state: 'scanning' | 'reading' | 'stopped' = 'scanning';
  /** Frames seen while scanning. */
  #seen = 0;
  /** Events of the frames seen while scanning. */
  #held: WireEvent[] = [];
  /** While scanning: per other profile, frames only it knows and frames it shares. */
  readonly #looks = new Map<Profile, { only: number; shared: number }>();

  constructor(profile: unknown) {
    this.#profile = profileName(profile);
    this.#reader = PROFILES[this.#profile].reader();
  }

  /** Whether no event comes any more: the wire was found not to be the profile's, or its server stopped it. */
  get stopped(): boolean {
    return this.#state === 'stopped';
  }

  /** The events of one decoded SSE frame. */
  frame(f: SseFrame): WireEvent[] {
    if (this.#state === 'stopped') return [];
    const name = f.event;
    if (name === 'ping') return [];
    if (name === STOPPED) return this.#stopped(f.data);
    const named = this.#reader.named;
    // The frame's one parse (none for what is skipped unread once reading).
    let data: unknown = NOT_JSON;
    const skipped = named ? name === 'message' : f.data === DONE_MARKER;
    if (!skipped || this.#state === 'scanning') {
      try {
        data = JSON.parse(f.data);
      } catch {
        // NOT_JSON
      }
    }
    if (this.#state === 'reading') return this.#read(f, skipped, data);
    if (PROFILES[this.#profile].knows(name, f.data, data)) {
      this.#state = 'reading';
      const out = this.#held;
      this.#held = [];
      for (const e of this.#read(f, skipped, data)) out.push(e);
      return out;
    }
    this.#tally(name, f.data, data);
    for (const e of this.#read(f, skipped, data)) this.#held.push(e);
    return ++this.#seen >= SCAN_FRAMES ? this.#stop() : [];
  }

  /** The event of a frame over the cap (`message` says why). */
  oversized(message: string): WireEvent[] {
    const e = invalid(message);
    if (this.#state === 'reading') return [e];
    if (this.#state === 'scanning') this.#held.push(e);
    return [];
  }

  /** The end of the stream: a stream of frames none of which was the profile's is reported. */
  end(): WireEvent[] {
    if (this.#state !== 'scanning') return [];
    if (this.#seen > 0) return this.#stop();
    this.#state = 'reading';
    const out = this.#held;
    this.#held = [];
    return out;
  }

  #read(f: SseFrame, skipped: boolean, data: unknown): WireEvent[] {
    if (skipped) return [];
    const name = f.event;
    if (data === NOT_JSON) return [invalid(`${name} frame: data is not JSON`, f)];
    if (!isObject(data)) return [invalid(`${name} frame: data is not a JSON object`, f)];
    try {
      return this.#reader.read(name, data);
    } catch (err) {
      return [invalid(`${this.#reader.named ? name : str(own(data, 'type'))} frame: ${errorText(err)}`, f)];
    }
  }

  /** The last frame of a stream its server stopped (SseLog `stop()`, in every profile): an error and `done`. */
  #stopped(raw: string): WireEvent[] {
    let data: unknown = null;
    try {
      data = JSON.parse(raw);
    } catch {
      // no code or message
    }
    const out = this.#held;
    this.#held = [];
    this.#state = 'stopped';
    out.push(
      { type: 'error', code: str(own(data, 'code')) || 'stream_stopped', message: str(own(data, 'message')) },
      { ...FAILED_DONE, finish: 'stopped' },
    );
    return out;
  }

  #tally(name: string, raw: string, data: unknown): void {
    const others = NAMES.filter((p) => p !== this.#profile && PROFILES[p].knows(name, raw, data));
    for (const p of others) {
      const n = this.#looks.get(p) ?? { only: 0, shared: 0 };
      if (others.length === 1) n.only++;
      else n.shared++;
      this.#looks.set(p, n);
    }
  }

  #stop(): WireEvent[] {
    this.#state = 'stopped';
    this.#held = [];
    const score = (p: Profile) => {
      const n = this.#looks.get(p);
      return n ? n.only * SCAN_FRAMES + n.shared : 0;
    };
    const best = Math.max(...NAMES.map(score));
    const like = best > 0 ? NAMES.filter((p) => score(p) === best) : [];
    const first = this.#seen < SCAN_FRAMES ? `none of its ${this.#seen} frames` : `none of its first ${SCAN_FRAMES} frames`;
    const message =
      `the stream is not of the "${this.#profile}" profile: ${first} is of that vocabulary` +
      (like.length ? `; they look like "${like.join('" or "')}" frames (fromSse("${like[0]}") reads them)` : '');
    const error: ErrorEvent = invalid(message);
    return [error, { ...FAILED_DONE }];
  }
}

/** A frame over the cap: the decoder's `sse_event_too_large`, as a message. */
export interface OversizedFrame {
  oversized: string;
}

/** What `FrameReader` gives: decoded frames, and frames over the cap in their place. */
export type FrameItem = SseEvent | OversizedFrame;

/**
 * Where the skip of a frame over the cap stands: in one of its lines (`Line`), just after a
 * CR that ended one (`LineCr`: an LF next belongs to it), at the start of one (`LineStart`: a
 * line end here is the blank line that ends the frame), or just after a blank line that was a
 * CR (`DoneCr`: an LF next belongs to it; the fresh decoder reads what follows).
 */
const enum Skip {
  Off,
  Line,
  LineCr,
  LineStart,
  DoneCr,
}

const LF = 0x0a;
const CR = 0x0d;
const utf8 = new TextEncoder();
const UTF8_DECODER = new TextDecoder();
const REPLACEMENT = utf8.encode('\ufffd');
/** The longest line of a skipped frame read for its `id` or `retry` (longer ones are ignored). */
const FIELD_LINE_MAX = 4096;

/**
 * SSE frames from bytes or text, with a cap on one frame's data (`maxEventBytes`, default 8
 * MiB; a frame up to it is read whole, whatever its line length). A frame over the cap gives
 * one `OversizedFrame` and is skipped through its terminating blank line: the decoder stops at
 * the line that broke the cap (`err.offset`), `Skip` finds that line's end and then a blank
 * line, and a fresh decoder reads from there, told the last event ID and retry first so
 * nothing of the old one's state is lost. Text is turned into UTF-8 here (a high surrogate at a
 * chunk's end waits for the next chunk) so the decoder's offsets are offsets into what it was
 * fed. `finish()` ends a stream; the reader may then be fed a new one (a reconnection).
 */
export class FrameReader {
  readonly #caps: { maxEventBytes?: number; maxLineBytes?: number };
  /** `null` while a frame is skipped (until its blank line). */
  #decoder: SseDecoder | null;
  /** UTF-8 bytes the current decoder has been fed since its stream began. */
  #fed = 0;
  #skip = Skip.Off;
  /** A UTF-16 high surrogate that ended the last string chunk. */
  #high = '';
  /** The last event ID and retry of the decoder last dropped. */
  #lastEventId = '';
  #retry: number | undefined = undefined;
  /**
   * The line of a skipped frame read so far, while it may be an `id` or `retry` field (`null`
   * otherwise: the offending line's tail, or a line longer than `FIELD_LINE_MAX`), and the id
   * the frame's lines set (`null`: none).
   */
  #line: number[] | null = null;
  #skippedId: string | null = null;
  /** The digits of the last `retry` of a skipped frame (`null`: none). */
  #skippedRetry: string | null = null;

  constructor(maxEventBytes?: unknown) {
    this.#caps = decoderCaps(maxEventBytes);
    this.#decoder = new SseDecoder(this.#caps);
  }

  /** The last event ID in force (`""` when none). */
  get lastEventId(): string {
    return this.#decoder ? this.#decoder.lastEventId : this.#lastEventId;
  }

  /** The last reconnection time the stream gave, `undefined` before any. */
  get retry(): number | undefined {
    return this.#decoder ? this.#decoder.retry : this.#retry;
  }

  /** The frames `chunk` completes. A chunk that is neither text nor bytes is `invalid_input`. */
  feed(chunk: unknown): FrameItem[] {
    const out: FrameItem[] = [];
    this.#read(this.#bytes(chunk), out);
    return out;
  }

  /**
   * Ends the stream: the last frames (an unterminated frame, or the rest of a skipped one, is
   * dropped). The reader may then be fed a new stream.
   */
  finish(): FrameItem[] {
    const out: FrameItem[] = [];
    if (this.#high !== '') {
      this.#high = '';
      this.#read(REPLACEMENT, out);
    }
    if (this.#decoder === null) {
      // A frame cut off by the end is not dispatched: its id does not count.
      this.#skippedId = null;
      this.#resume();
    }
    this.#skip = Skip.Off;
    for (const e of this.#decoder!.finish()) out.push(e);
    this.#fed = 0;
    return out;
  }

  free(): void {
    this.#decoder?.free();
    this.#decoder = null;
  }

  /** `chunk` as UTF-8 bytes, with the surrogate carry for text. */
  #bytes(chunk: unknown): Uint8Array {
    if (typeof chunk === 'string') {
      let text = this.#high + chunk;
      this.#high = '';
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last < 0xdc00) {
        this.#high = text[text.length - 1]!;
        text = text.slice(0, -1);
      }
      return utf8.encode(text);
    }
    const view = chunkView(chunk);
    if (view === null) throw badChunk();
    if (this.#high === '') return view;
    // A held high surrogate had no low half: U+FFFD before the bytes.
    this.#high = '';
    const bytes = new Uint8Array(REPLACEMENT.length + view.length);
    bytes.set(REPLACEMENT);
    bytes.set(view, REPLACEMENT.length);
    return bytes;
  }

  #read(bytes: Uint8Array, out: FrameItem[]): void {
    let at = 0;
    while (at < bytes.length) {
      if (this.#skip !== Skip.Off) {
        at = this.#skipTo(bytes, at);
        continue;
      }
      const decoder = this.#decoder!;
      const part = at === 0 ? bytes : bytes.subarray(at);
      const start = this.#fed;
      try {
        for (const e of decoder.feed(part)) out.push(e);
        this.#fed += part.length;
        return;
      } catch (err) {
        // Only a frame over the cap is the wire's fault (the decoder is then dead); anything
        // else (out of memory) is thrown on.
        if (!(err instanceof StreamrouteError) || err.code !== 'sse_event_too_large') throw err;
        for (const e of (err.events ?? []) as SseEvent[]) out.push(e);
        out.push({ oversized: `${err.code}: a frame longer than ${this.#caps.maxEventBytes} bytes (maxEventBytes) was skipped` });
        this.#lastEventId = decoder.lastEventId;
        this.#retry = decoder.retry;
        this.#line = null;
        // An id the frame gave before the line over the cap counts at its blank line.
        this.#skippedId = decoder.pendingId ?? null;
        this.#skippedRetry = null;
        decoder.free();
        this.#decoder = null;
        // The offending line starts at or before `err.offset` and ends at or after it: skip
        // from there (an offset before this chunk is a line carried from earlier ones).
        const offset = typeof err.offset === 'number' ? err.offset - start : 0;
        at += Math.min(part.length, Math.max(0, offset));
        this.#skip = Skip.Line;
      }
    }
  }

  /** Runs `Skip` over `bytes` from `at`; where reading goes on (`bytes.length`: the chunk is used up). */
  #skipTo(bytes: Uint8Array, at: number): number {
    // The next LF and CR at or after `at` (-1: none left in the chunk), found at most once
    // each per position, so the skip is linear in the chunk.
    let lf = -2;
    let cr = -2;
    let i = at;
    while (i < bytes.length) {
      switch (this.#skip) {
        case Skip.Line: {
          if (lf !== -1 && lf < i) lf = bytes.indexOf(LF, i);
          if (cr !== -1 && cr < i) cr = bytes.indexOf(CR, i);
          const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
          this.#keep(bytes, i, end < 0 ? bytes.length : end);
          if (end < 0) return bytes.length;
          this.#field();
          this.#skip = bytes[end] === CR ? Skip.LineCr : Skip.LineStart;
          i = end + 1;
          break;
        }
        case Skip.LineCr:
          if (bytes[i] === LF) i++;
          this.#skip = Skip.LineStart;
          break;
        case Skip.LineStart: {
          const b = bytes[i];
          if (b !== LF && b !== CR) {
            this.#line = [];
            this.#skip = Skip.Line;
            break;
          }
          // The blank line: the frame ends here.
          this.#skip = b === CR ? Skip.DoneCr : Skip.Off;
          this.#resume();
          i++;
          if (b === LF) return i;
          break;
        }
        case Skip.DoneCr:
          if (bytes[i] === LF) i++;
          this.#skip = Skip.Off;
          return i;
        default:
          return i;
      }
    }
    return bytes.length;
  }

  /** Keeps `bytes[from, to)` of a skipped line that may be a field. */
  #keep(bytes: Uint8Array, from: number, to: number): void {
    const line = this.#line;
    if (line === null) return;
    if (line.length + to - from > FIELD_LINE_MAX) this.#line = null;
    else for (let k = from; k < to; k++) line.push(bytes[k]!);
  }

  /**
   * A skipped line ended: an `id` sets the id the frame ends with, a `retry` of digits the
   * reconnection time, as the decoder would have (the standard's field rules).
   */
  #field(): void {
    const line = this.#line;
    this.#line = null;
    if (line === null) return;
    const colon = line.indexOf(0x3a);
    const name = String.fromCharCode(...(colon < 0 ? line : line.slice(0, colon)));
    let from = colon < 0 ? line.length : colon + 1;
    if (line[from] === 0x20) from++;
    const value = line.slice(from);
    if (name === 'id' && !value.includes(0)) this.#skippedId = UTF8_DECODER.decode(new Uint8Array(value));
    else if (name === 'retry' && value.length > 0 && value.every((d) => d >= 0x30 && d <= 0x39)) {
      this.#skippedRetry = String.fromCharCode(...value);
      this.#retry = Number(this.#skippedRetry);
    }
  }

  /** A fresh decoder where the dropped one left off: its last event ID and retry, mid-stream. */
  #resume(): void {
    // The skipped frame's own id, if it had one, is the last event ID now (a reconnection
    // then resumes after it).
    if (this.#skippedId !== null) this.#lastEventId = this.#skippedId;
    const retry = this.#skippedRetry ?? this.#retry;
    this.#skippedId = null;
    this.#skippedRetry = null;
    this.#line = null;
    const prefix = utf8.encode(
      `${this.#lastEventId ? `id: ${this.#lastEventId}\n` : ''}` + `${retry !== undefined ? `retry: ${retry}\n` : ''}\n`,
    );
    const decoder = new SseDecoder(this.#caps);
    decoder.feed(prefix);
    this.#decoder = decoder;
    this.#fed = prefix.length;
  }
}

/**
 * One profile's reading of a wire, bytes to events: `FrameReader` then `ProfileFrames`.
 * `fromSse` and `connectSse({ profile })` run it. `drop()` ends one connection (the stream may
 * go on in another, `Last-Event-ID` from `lastEventId`); `finish()` ends the stream.
 */
export class WireStream {
  readonly #frames: ProfileFrames;
  readonly #reader: FrameReader;

  constructor(profile: unknown, maxEventBytes?: unknown) {
    this.#frames = new ProfileFrames(profile);
    this.#reader = new FrameReader(maxEventBytes);
  }

  /** Whether no event comes any more (the wire is not the profile's, or its server stopped it). */
  get stopped(): boolean {
    return this.#frames.stopped;
  }

  get lastEventId(): string {
    return this.#reader.lastEventId;
  }

  get retry(): number | undefined {
    return this.#reader.retry;
  }

  /** The events of one chunk. */
  feed(chunk: unknown): WireEvent[] {
    if (this.stopped) return [];
    return this.#events(this.#reader.feed(chunk));
  }

  /** The end of one connection: the events of its last frames. */
  drop(): WireEvent[] {
    if (this.stopped) return [];
    return this.#events(this.#reader.finish());
  }

  /** The end of the stream after `drop()` ended its last connection. */
  end(): WireEvent[] {
    return this.#frames.end();
  }

  /** The end of the stream: `drop()` and `end()`. */
  finish(): WireEvent[] {
    const out = this.drop();
    for (const e of this.end()) out.push(e);
    return out;
  }

  free(): void {
    this.#reader.free();
  }

  #events(items: FrameItem[]): WireEvent[] {
    const out: WireEvent[] = [];
    for (const item of items) {
      const events = 'oversized' in item ? this.#frames.oversized(item.oversized) : this.#frames.frame(item);
      for (const e of events) out.push(e);
      if (this.stopped) {
        this.free();
        break;
      }
    }
    return out;
  }
}

/** What `connectSse({ profile, maxEventBytes })` reads with (connect.js). */
export const wireStream = (profile: unknown, options?: { maxEventBytes?: unknown }): WireStream =>
  new WireStream(profile, options?.maxEventBytes);

/**
 * A TransformStream<Uint8Array | string, WireEvent>: the inverse of `toSse(profile)`. Gives
 * routed events, artifact chunks and a `done` carrying `payload`; a frame it cannot read is an
 * `error {code: "wire_invalid"}` and reading goes on. `options.maxEventBytes` caps one frame
 * (default 8 MiB): a longer one is one `wire_invalid` and is skipped through its blank line. A
 * wire that is not the profile's is one `wire_invalid` and a `done {ok: false}`. Another
 * option is `invalid_input`, as for `toSse`.
 */
export function fromSse(profile: unknown, options?: unknown): TransformStream<unknown, WireEvent> {
  const name = profileName(profile);
  const wire = wireStream(name, optionsIn(options, ['maxEventBytes']));
  return new TransformStream<unknown, WireEvent>({
    transform(chunk, controller) {
      for (const e of wire.feed(chunk)) controller.enqueue(e);
    },
    flush(controller) {
      try {
        for (const e of wire.finish()) controller.enqueue(e);
      } finally {
        wire.free();
      }
    },
  });
}
