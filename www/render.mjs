// Rendering helpers of the demo page that know nothing about streams: a small Markdown
// renderer and an SVG chart drawn from an ECharts-style option. Both build DOM nodes with
// textContent only (model text never becomes HTML), so a half-written or hostile artifact
// cannot inject markup.

const SVG = 'http://www.w3.org/2000/svg';

/** `h('p', { class: 'x' }, 'text', child)`: an element with attributes and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

/** Only http(s) and mailto links become anchors. */
export function safeUrl(url) {
  try {
    const u = new URL(url, 'https://invalid.example/');
    return ['http:', 'https:', 'mailto:'].includes(u.protocol) && !url.startsWith('/') ? u.href : null;
  } catch {
    return null;
  }
}

// Inline Markdown: `code`, **bold**, *em* / _em_, [text](url). One left-to-right pass.
const INLINE = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*|_[^_\s][^_]*_)|(\[[^\]]+\]\([^)\s]+\))/g;

function inline(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    if (m.index > last) out.push(text.slice(last, m.index));
    const t = m[0];
    if (m[1]) out.push(h('code', {}, t.slice(1, -1)));
    else if (m[2]) out.push(h('strong', {}, ...inline(t.slice(2, -2))));
    else if (m[3]) out.push(h('em', {}, ...inline(t.slice(1, -1))));
    else {
      const close = t.indexOf('](');
      const href = safeUrl(t.slice(close + 2, -1));
      const label = inline(t.slice(1, close));
      out.push(href ? h('a', { href, rel: 'noopener noreferrer', target: '_blank' }, ...label) : h('span', {}, ...label));
    }
    last = m.index + t.length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * Markdown (headings, paragraphs, lists, block quotes, fenced code, inline code, emphasis,
 * links) as a DocumentFragment. Works on a prefix of a document: an unclosed fence renders as
 * code so far, a half-typed `**` stays literal until it closes.
 */
export function markdown(text) {
  const frag = document.createDocumentFragment();
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let para = [];
  let list = null;
  const flushPara = () => {
    if (para.length) frag.append(h('p', {}, ...inline(para.join(' '))));
    para = [];
  };
  const flushList = () => {
    if (list) frag.append(list);
    list = null;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)\s*([\w-]*)\s*$/.exec(line);
    if (fence) {
      flushPara();
      flushList();
      const body = [];
      for (i++; i < lines.length && !lines[i].trim().startsWith(fence[1]); i++) body.push(lines[i]);
      frag.append(h('pre', {}, h('code', fence[2] ? { 'data-lang': fence[2] } : {}, body.join('\n'))));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    const quote = /^>\s?(.*)$/.exec(line);
    if (heading) {
      flushPara();
      flushList();
      // Headings inside a panel start at h3 so the page outline stays right.
      frag.append(h(`h${Math.min(6, heading[1].length + 2)}`, {}, ...inline(heading[2])));
    } else if (bullet || numbered) {
      flushPara();
      const tag = bullet ? 'ul' : 'ol';
      if (list?.tagName.toLowerCase() !== tag) {
        flushList();
        list = h(tag);
      }
      list.append(h('li', {}, ...inline((bullet ?? numbered)[1])));
    } else if (quote) {
      flushPara();
      flushList();
      frag.append(h('blockquote', {}, ...inline(quote[1])));
    } else if (!line.trim()) {
      flushPara();
      flushList();
    } else {
      flushList();
      para.push(line.trim());
    }
  }
  flushPara();
  flushList();
  return frag;
}

/** Does this value look like an ECharts option with something to draw? */
export function isChartOption(v) {
  return !!v && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.series) && v.series.some((x) => x && Array.isArray(x.data));
}

const first = (v) => (Array.isArray(v) ? v[0] : v);
const num = (d) => {
  const v = d !== null && typeof d === 'object' ? (Array.isArray(d) ? d[1] : d.value) : d;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};
const PALETTE = ['#1f5fbf', '#b3541e', '#237a3b', '#8a2f8f', '#8a6d00', '#0f6f77'];

/** A "nice" axis step for a range (1, 2 or 5 times a power of ten). */
function niceStep(range, ticks) {
  const raw = range / ticks;
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 5, 10].map((m) => m * p).find((x) => x >= raw) ?? raw;
}

/**
 * An SVG bar/line chart from an ECharts option (`xAxis.data` categories, `series[]` of
 * `type: "bar" | "line"` with numbers, `{ value }` or `[x, y]` points, `title.text`). Every
 * mark carries `data-series`, `data-category` and `data-value`, and a `<title>` tooltip.
 */
export function chart(option) {
  const series = option.series.filter((x) => x && Array.isArray(x.data));
  const n = Math.max(...series.map((x) => x.data.length));
  const cats = Array.from({ length: n }, (_, i) => String(first(option.xAxis)?.data?.[i] ?? i + 1));
  const values = series.flatMap((x) => x.data.map(num)).filter((v) => v !== null);
  const lo = Math.min(0, ...values);
  const hi = Math.max(0, ...values);
  const step = niceStep(hi - lo || 1, 5);
  const y0 = Math.floor(lo / step) * step;
  const y1 = Math.max(Math.ceil(hi / step) * step, y0 + step);
  const W = 560;
  const H = 300;
  const L = 48;
  const R = 12;
  const T = 36;
  const B = 56;
  const pw = W - L - R;
  const ph = H - T - B;
  const y = (v) => T + ph - ((v - y0) / (y1 - y0)) * ph;
  const band = pw / n;
  const bars = series.filter((x) => (x.type ?? 'bar') === 'bar');
  const bw = (band * 0.7) / Math.max(1, bars.length);
  const title = first(option.title)?.text ?? '';
  const svg = s('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title || 'chart', class: 'chart' });
  if (title) svg.append(s('text', { x: W / 2, y: 20, 'text-anchor': 'middle', class: 'chart-title' }, title));
  for (let v = y0; v <= y1 + step / 2; v += step) {
    const yy = y(v);
    svg.append(s('line', { x1: L, x2: W - R, y1: yy, y2: yy, class: 'grid' }));
    svg.append(s('text', { x: L - 6, y: yy + 4, 'text-anchor': 'end', class: 'tick' }, String(+v.toFixed(6))));
  }
  cats.forEach((c, i) => svg.append(s('text', { x: L + band * (i + 0.5), y: T + ph + 18, 'text-anchor': 'middle', class: 'tick' }, c)));
  series.forEach((sr, k) => {
    const color = PALETTE[k % PALETTE.length];
    const name = String(sr.name ?? `series ${k + 1}`);
    const mark = (el, i, v) => {
      el.setAttribute('data-series', name);
      el.setAttribute('data-category', cats[i]);
      el.setAttribute('data-value', String(v));
      el.append(s('title', {}, `${name} · ${cats[i]}: ${v}`));
      return el;
    };
    if ((sr.type ?? 'bar') === 'bar') {
      const b = bars.indexOf(sr);
      sr.data.forEach((d, i) => {
        const v = num(d);
        if (v === null) return;
        const x = L + band * i + band * 0.15 + bw * b;
        svg.append(
          mark(s('rect', { x, y: Math.min(y(v), y(0)), width: Math.max(1, bw - 2), height: Math.abs(y(v) - y(0)), fill: color }), i, v),
        );
      });
    } else {
      const pts = sr.data.map((d, i) => [i, num(d)]).filter(([, v]) => v !== null);
      svg.append(
        s('polyline', {
          points: pts.map(([i, v]) => `${L + band * (i + 0.5)},${y(v)}`).join(' '),
          fill: 'none',
          stroke: color,
          'stroke-width': 2.5,
        }),
      );
      for (const [i, v] of pts) svg.append(mark(s('circle', { cx: L + band * (i + 0.5), cy: y(v), r: 4, fill: color }), i, v));
    }
    const lx = L + k * 110;
    svg.append(s('rect', { x: lx, y: H - 18, width: 12, height: 12, fill: color }));
    svg.append(s('text', { x: lx + 16, y: H - 8, class: 'legend' }, name));
  });
  return svg;
}
