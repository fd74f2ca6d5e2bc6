// Playing a transition (protocol/mutations.md, "The invalidation object", `transition`):
// attributes at time t, and keyframes for the Web Animations API.
//
// The protocol gives each segment a delay, a duration (seconds) and a curve, and says to
// interpolate from → to between delay and delay + duration at progress curve(elapsed fraction):
// UIKit's curves, cubic Béziers with CSS's control points (protocol/mutations.md). A caller's
// `easing` replaces every segment's curve.

import { elementKey } from "./mirror.js";

const IDENTITY = { a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0 };

// Seconds within which a time counts as a segment's end (delay + duration is a sum of doubles).
const EPSILON = 1e-9;

const lerp = (a, b, p) => a + (b - a) * p;

/**
 * The timing function of a cubic Bézier from (0, 0) to (1, 1) with inner points (x1, y1), (x2, y2),
 * as CSS's cubic-bezier(): y where x is the elapsed fraction, x solved by Newton's method with
 * bisection as the fallback. @returns {(x: number) => number}
 */
export function cubicBezier(x1, y1, x2, y2) {
  const at = (t, p1, p2) => 3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t;
  const slope = (t, p1, p2) => 3 * (1 - t) * (1 - t) * p1 + 6 * (1 - t) * t * (p2 - p1) + 3 * t * t * (1 - p2);
  return (x) => {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    let t = x;
    for (let i = 0; i < 8; i++) {
      const error = at(t, x1, x2) - x;
      if (Math.abs(error) < 1e-12) return at(t, y1, y2);
      const d = slope(t, x1, x2);
      if (Math.abs(d) < 1e-9) break;
      t -= error / d;
    }
    let low = 0, high = 1;
    t = x;
    for (let i = 0; i < 60; i++) {
      const value = at(t, x1, x2);
      if (Math.abs(value - x) < 1e-12) break;
      if (value < x) low = t; else high = t;
      t = (low + high) / 2;
    }
    return at(t, y1, y2);
  };
}

/**
 * The protocol's curves (`segments[].curve`): control points, the CSS name Web Animations takes,
 * and the timing function.
 */
export const CURVES = Object.freeze({
  linear: Object.freeze({ points: [0, 0, 1, 1], css: "linear", ease: (p) => Math.min(1, Math.max(0, p)) }),
  easeIn: Object.freeze({ points: [0.42, 0, 1, 1], css: "ease-in", ease: cubicBezier(0.42, 0, 1, 1) }),
  easeOut: Object.freeze({ points: [0, 0, 0.58, 1], css: "ease-out", ease: cubicBezier(0, 0, 0.58, 1) }),
  easeInOut: Object.freeze({ points: [0.42, 0, 0.58, 1], css: "ease-in-out", ease: cubicBezier(0.42, 0, 0.58, 1) }),
});

/** The same timing functions by CSS name, for an `easing` that overrides every segment's curve. */
export const EASINGS = Object.freeze(Object.fromEntries(Object.values(CURVES).map((c) => [c.css, c.ease])));

/** A segment's curve (linear when the daemon names none, as before the field existed). */
const curveOf = (segment) => {
  const curve = CURVES[segment.curve || "linear"];
  if (!curve) throw new Error("unknown curve " + segment.curve);
  return curve;
};

/**
 * Attributes between `from` and `to` at progress p (0…1): frame, alpha, transform and effects
 * interpolated; discrete fields (section, item, zIndex, hidden) are `from`'s at p = 0 and `to`'s after.
 * @param {import("../protocol").Attributes} from @param {import("../protocol").Attributes} to @param {number} p @returns {import("../protocol").Attributes}
 */
export function interpolateAttributes(from, to, p) {
  if (p <= 0) return from;
  if (p >= 1) return to;
  const out = { ...to };
  out.frame = {
    x: lerp(from.frame.x, to.frame.x, p), y: lerp(from.frame.y, to.frame.y, p),
    width: lerp(from.frame.width, to.frame.width, p), height: lerp(from.frame.height, to.frame.height, p),
  };
  out.alpha = lerp(from.alpha, to.alpha, p);
  if (from.transform || to.transform) {
    const a = from.transform || IDENTITY, b = to.transform || IDENTITY;
    out.transform = {};
    for (const k of Object.keys(IDENTITY)) out.transform[k] = lerp(a[k], b[k], p);
  }
  if (from.effects || to.effects) {
    const a = from.effects || {}, b = to.effects || {};
    out.effects = {};
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      out.effects[k] = k in a && k in b ? lerp(a[k], b[k], p) : (k in b ? b[k] : a[k]);
    }
  }
  return out;
}

/** Segments grouped by element key, each group in time order. @param {import("../protocol").Transition} transition @returns {Map<string, import("../protocol").TransitionSegment[]>} */
export function segmentsByElement(transition) {
  const groups = new Map();
  for (const s of transition.segments) {
    const key = elementKey(s);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(s);
  }
  for (const list of groups.values()) list.sort((x, y) => x.delay - y.delay);
  return groups;
}

/**
 * One element's attributes at time t (seconds since the transition started) from its segments:
 * before the first segment its `from`, inside one interpolated on the segment's curve (or the
 * caller's `easing`), between two the earlier `to`, after the last its `to`.
 * @param {import("../protocol").TransitionSegment[]} segments one element's, in time order @param {number} t
 * @param {{easing?: string | ((p: number) => number)}} [options]
 */
export function elementAt(segments, t, options = {}) {
  const override = typeof options.easing === "function" ? options.easing : options.easing ? EASINGS[options.easing] : null;
  if (options.easing && !override) throw new Error("unknown easing " + options.easing);
  let current = segments[0].from;
  for (const s of segments) {
    if (t < s.delay) return current;
    if (s.duration <= 0 || t >= s.delay + s.duration - EPSILON) {
      current = s.to;
      continue;
    }
    const ease = override || curveOf(s).ease;
    return interpolateAttributes(s.from, s.to, ease((t - s.delay) / s.duration));
  }
  return current;
}

/**
 * Every animated element's attributes at time t: a Map from element key (see elementKey) to
 * attributes. Elements without segments do not move (take them from the mirror).
 * @param {import("../protocol").Transition} transition @param {number} t seconds
 * @param {{easing?: string | ((p: number) => number)}} [options] @returns {Map<string, import("../protocol").Attributes>}
 */
export function attributesAt(transition, t, options = {}) {
  const out = new Map();
  for (const [key, segments] of segmentsByElement(transition)) out.set(key, elementAt(segments, t, options));
  return out;
}

/**
 * The window to draw at time t: the mirror's elements (its state after the mutation) with the
 * animated ones replaced by their interpolated attributes, and elements that left still shown
 * until their segments end. @param {Iterable<import("../protocol").Attributes>} elements the mirror after the mutation
 * @param {import("../protocol").Transition} transition @param {number} t @returns {import("../protocol").Attributes[]}
 */
export function frameAt(elements, transition, t, options = {}) {
  const animated = attributesAt(transition, t, options);
  const out = [];
  for (const e of elements) {
    const key = elementKey(e);
    out.push(animated.has(key) ? animated.get(key) : e);
    animated.delete(key);
  }
  for (const [, e] of animated) out.push(e);
  return out;
}

function cssKeyframe(attributes, options) {
  const ox = options.origin ? options.origin.x : 0, oy = options.origin ? options.origin.y : 0;
  const f = attributes.frame;
  const keyframe = {
    left: f.x - ox + "px", top: f.y - oy + "px", width: f.width + "px", height: f.height + "px",
    opacity: attributes.hidden ? 0 : attributes.alpha,
  };
  const t = attributes.transform || IDENTITY;
  keyframe.transform = `matrix(${t.a}, ${t.b}, ${t.c}, ${t.d}, ${t.tx}, ${t.ty})`;
  if (attributes.zIndex !== undefined) keyframe.zIndex = String(attributes.zIndex);
  if (options.effects && attributes.effects) {
    for (const [name, value] of Object.entries(attributes.effects)) keyframe["--" + name] = String(value);
  }
  return keyframe;
}

/**
 * Keyframes and options for `element.animate(keyframes, options)`, one entry per animated
 * element: the element's segments as keyframes at offsets along the whole transition, so every
 * element's animation starts at the transition's start and ends at its `duration` (fill "both":
 * before its first segment it shows `from`, after the last `to`). Frames are CSS left/top/width/height
 * in px (minus `origin`, e.g. the content offset, when the elements are positioned in the viewport),
 * alpha is opacity, the transform a CSS matrix about the centre (CSS's default transform-origin,
 * UIKit's anchor point). zIndex is discrete (Web Animations flips it halfway through a segment).
 * Pure: nothing here touches the DOM.
 * @param {import("../protocol").Transition} transition
 * @param {{origin?: import("../protocol").Point, easing?: string, effects?: boolean}} [options]
 *   easing: a CSS easing for every segment instead of each segment's curve (by its CSS name);
 *   effects: also animate each effect as a CSS custom property `--name`
 * @returns {Array<{kind: string, id: string, key: string, keyframes: object[], options: {duration: number, delay: number, endDelay: number, fill: string, easing: string}}>}
 */
export function webAnimations(transition, options = {}) {
  const total = transition.duration;
  const out = [];
  for (const [key, segments] of segmentsByElement(transition)) {
    const start = segments[0].delay;
    const end = Math.max(...segments.map((s) => s.delay + s.duration));
    const span = end - start;
    const offsetOf = (t) => (span > 0 ? Math.min(1, Math.max(0, (t - start) / span)) : 0);
    const keyframes = [];
    for (const s of segments) {
      const a = cssKeyframe(s.from, options), b = cssKeyframe(s.to, options);
      a.offset = offsetOf(s.delay);
      b.offset = span > 0 ? offsetOf(s.delay + s.duration) : 1;
      // A keyframe's easing runs from it to the next: the segment's curve from its start; its end
      // holds until the element's next segment (linear: nothing changes in between).
      a.easing = options.easing || curveOf(s).css;
      b.easing = "linear";
      keyframes.push(a, b);
    }
    // element.animate() refuses decreasing offsets; sums of doubles can make them so by an ulp.
    for (let i = 1; i < keyframes.length; i++) keyframes[i].offset = Math.max(keyframes[i].offset, keyframes[i - 1].offset);
    out.push({
      kind: segments[0].kind, id: segments[0].id, key, keyframes,
      options: {
        duration: end * 1000 - start * 1000, delay: start * 1000, endDelay: Math.max(0, total * 1000 - end * 1000),
        fill: "both", easing: "linear",
      },
    });
  }
  return out;
}
