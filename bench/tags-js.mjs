// The peer of the tag benchmark: a straightforward JS implementation of the same nonce-tag
// contract as streamroute's TagFilter, as an app would write it: a string buffer, `indexOf` on
// each marker, and a held-back tail from the last `[` that may still start a marker.
// Same deltas and verdict as TagFilter on the benchmark's inputs (checked by tags.mjs);
// violation offsets are in UTF-16 units here (TagFilter reports UTF-8 bytes).

const isWs = (s) => /^[ \t\n\r\f]*$/.test(s);

export class JsTagFilter {
  constructor(nonce, blocks = ['ARTIFACT', 'USER']) {
    this.markers = blocks.flatMap((b, i) => [
      { text: `[${b}:${nonce}]`, block: i, close: false },
      { text: `[/${b}:${nonce}]`, block: i, close: true },
    ]);
    this.maxLen = Math.max(...this.markers.map((m) => m.text.length));
    this.types = blocks.map((b) => `${b.toLowerCase()}_delta`);
    this.names = blocks.map((b) => b.toLowerCase());
    this.blocks = blocks.map(() => '');
    this.opened = blocks.map(() => false);
    this.closed = blocks.map(() => false);
    this.highest = -1;
    this.mode = -1; // -1 outside, else the block index
    this.emit = true;
    this.openAt = 0;
    this.reported = false;
    this.violations = [];
    this.buf = '';
    this.at = 0; // offset of buf[0] in the response (UTF-16 units)
  }

  text(s, at, out) {
    if (s === '') return;
    if (this.mode < 0) {
      if (!this.reported && !isWs(s)) {
        this.reported = true;
        this.violations.push({ code: 'text_outside_blocks', offset: at + s.search(/[^ \t\n\r\f]/) });
      }
    } else if (this.emit) {
      this.blocks[this.mode] += s;
      const last = out[out.length - 1];
      if (last && last.type === this.types[this.mode]) last.text += s;
      else out.push({ type: this.types[this.mode], text: s });
    }
  }

  marker(m, at) {
    if (this.mode < 0 && !m.close) {
      this.emit = !this.opened[m.block];
      if (!this.emit) this.violations.push({ code: 'duplicate_block', offset: at });
      else if (this.highest > m.block) this.violations.push({ code: 'wrong_order', offset: at });
      this.opened[m.block] = true;
      this.highest = Math.max(this.highest, m.block);
      this.openAt = at;
      this.mode = m.block;
    } else if (this.mode >= 0 && m.close && m.block === this.mode) {
      this.closed[m.block] = true;
      this.mode = -1;
      this.reported = false;
    } else if (this.mode >= 0) {
      this.violations.push({ code: 'nested_marker', offset: at });
      if (this.emit) return true; // the caller puts U+FFFD in its place
    } else {
      this.violations.push({ code: this.closed[m.block] ? 'duplicate_block' : 'wrong_order', offset: at });
      this.reported = false;
    }
  }

  feed(chunk) {
    const out = [];
    this.buf += chunk;
    for (;;) {
      // The earliest marker in the buffer.
      let best = -1;
      let m = null;
      for (const mk of this.markers) {
        const i = this.buf.indexOf(mk.text);
        if (i >= 0 && (best < 0 || i < best)) {
          best = i;
          m = mk;
        }
      }
      if (m) {
        this.text(this.buf.slice(0, best), this.at, out);
        if (this.marker(m, this.at + best)) this.text('\ufffd', this.at + best, out);
        const end = best + m.text.length;
        this.buf = this.buf.slice(end);
        this.at += end;
        continue;
      }
      // No marker: keep the tail from the first `[` that may still start one.
      let keep = this.buf.length;
      for (let k = this.buf.indexOf('[', Math.max(0, this.buf.length - this.maxLen + 1)); k >= 0; k = this.buf.indexOf('[', k + 1)) {
        const tail = this.buf.slice(k);
        if (this.markers.some((mk) => mk.text.startsWith(tail))) {
          keep = k;
          break;
        }
      }
      this.text(this.buf.slice(0, keep), this.at, out);
      this.buf = this.buf.slice(keep);
      this.at += keep;
      return out;
    }
  }

  finish() {
    const deltas = [];
    this.text(this.buf, this.at, deltas);
    this.at += this.buf.length;
    this.buf = '';
    if (this.mode >= 0) this.violations.push({ code: 'unclosed_block', offset: this.openAt });
    this.opened.forEach((o) => {
      if (!o) this.violations.push({ code: 'missing_block', offset: this.at });
    });
    const blocks = {};
    this.names.forEach((n, i) => (blocks[n] = this.blocks[i]));
    return { ok: true, parse_ok: this.violations.length === 0, blocks, violations: this.violations, deltas };
  }
}
