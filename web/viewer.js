// The live viewer: one view of the daemon drawn as absolutely positioned cells in a scroll
// container of the content's size, kept from the deltas by the JavaScript client's Mirror.
// Served by `layoutctl web` (the WebSocket at ./socket is one daemon connection).
//
// The protocol choices a browser client makes (README, "Live viewer"):
// - The DOM follows the mirror: every invalidation (our replies and the subscription's events)
//   is applied once, by epoch; entered/changed/left touch only those cells. Nothing re-queries.
// - Scrolling sends view.scroll at most once per animation frame and never more than one at a
//   time (the newest offset wins), with the velocity; view.scrollEnd on release, and the page
//   scrolls to its targetContentOffset (ultravisual's snapping).
// - An epoch gap or a view.resync resets from a snapshot; transitions play with Web Animations
//   from the daemon's segments (their delays, durations and curves).
import { Client, Mirror, attributesAt, connectWebSocket, elementKey, segmentsByElement, webAnimations } from "./layoutd/index.js";

const $ = (id) => document.getElementById(id);
const scroller = $("scroller"), content = $("content");

const state = {
  client: null,
  view: null,
  /** the open view's viewport (width, height, offset, insets) as its last snapshot gave it */
  viewport: null,
  subscription: null,
  mirror: new Mirror(),
  /** key → cell element */
  nodes: new Map(),
  /** key → Animation of an element that has left the window but is still animating out */
  leaving: new Map(),
  strategies: [],
  strategy: null,
  params: {},
  selected: new Set(),
  /** the top card of each stack of cells → the stack's ids (markStacks) */
  stackTops: new Map(),
  /** key → the ids of the stack the element is in, for every member of a stack of two or more */
  stackOf: new Map(),
  scroll: { inFlight: null, again: false, frame: 0, endTimer: 0, last: null, programmatic: null },
  move: null,
  /** the element the inspector shows */
  inspected: null,
  /** milliseconds of DOM work per applied invalidation (the newest 5,000 to 10,000) */
  applyTimes: [],
};

// For tests and the console: the page's state and a promise for "nothing pending".
window.viewer = {
  state,
  get mirror() { return state.mirror; },
  open: (name) => openView(name),
  /** Resolves once no scroll or move request is in flight and the DOM matches the mirror. */
  settled: () => settled(),
  rects: () => domRects(),
  /** The last transition played, and its elements' attributes at t seconds by the client's math. */
  get lastTransition() { return state.lastTransition; },
  transitionAt: (t) => Object.fromEntries(attributesAt(state.lastTransition, t)),
};

function status(text, bad = false) {
  $("status").textContent = text;
  $("status").classList.toggle("bad", bad);
}

function log(text) {
  const item = document.createElement("li");
  item.textContent = text;
  const list = $("log");
  list.prepend(item);
  while (list.childElementCount > 200) list.lastElementChild.remove();
}

// MARK: cells

/** A colour per id that neighbours do not share: FNV-1a, spread by the golden angle. */
function hue(id) {
  let h = 0x811c9dc5;
  for (const c of id) h = Math.imul(h ^ c.codePointAt(0), 0x01000193) >>> 0;
  return Math.round((h % 1000) * 137.508) % 360;
}

function makeNode(e) {
  const node = document.createElement("div");
  node.className = "cell " + e.kind;
  node.dataset.kind = e.kind;
  node.dataset.id = e.id;
  node.style.setProperty("--hue", String(hue(e.id)));
  node.innerHTML = '<div class="cover"></div><span class="title"></span><span class="detail"></span>';
  node.querySelector(".title").textContent = e.kind === "cell" ? e.id : e.kind + " " + e.id;
  return node;
}

/** Puts a cell where its attributes say (content coordinates). */
function place(node, e) {
  const f = e.frame, s = node.style;
  s.left = f.x + "px";
  s.top = f.y + "px";
  s.width = f.width + "px";
  s.height = f.height + "px";
  s.zIndex = String(e.zIndex ?? 0);
  s.opacity = e.hidden ? "0" : String(e.alpha ?? 1);
  s.visibility = e.hidden ? "hidden" : "";
  const t = e.transform;
  s.transform = t ? `matrix(${t.a}, ${t.b}, ${t.c}, ${t.d}, ${t.tx}, ${t.ty})` : "";
  for (const name of ["coverAlpha", "detailAlpha", "titleScale"]) {
    const value = e.effects && e.effects[name];
    if (value === undefined) s.removeProperty("--" + name);
    else s.setProperty("--" + name, String(value));
  }
  node.querySelector(".detail").textContent = e.kind === "cell" ? `${e.section}·${e.item}` : "";
  node.classList.toggle("selected", e.kind === "cell" && state.selected.has(e.id));
  node._element = e;
}

function upsert(e) {
  const key = elementKey(e);
  let node = state.nodes.get(key);
  const gone = state.leaving.get(key);
  if (gone) {
    state.leaving.delete(key);
    node = gone.node;
  }
  if (!node) {
    node = makeNode(e);
    content.appendChild(node);
  }
  state.nodes.set(key, node);
  place(node, e);
  return node;
}

function remove(key) {
  const node = state.nodes.get(key);
  if (!node) return;
  state.nodes.delete(key);
  node.remove();
}

/**
 * The scroll container is the view's viewport: its client area is exactly the viewport, so a
 * W-wide view shows W points and DOM positions are the daemon's frames. A scrollbar is drawn
 * only along an axis the content scrolls (longer than the viewport), its width added outside
 * the viewport; overlay scrollbars measure 0 and add nothing. Along an axis that does not
 * scroll, the content is the viewport's length and clips there, as the view's bounds clip: a
 * cell reaching past the edge (an orthogonal carousel's) neither shows nor makes the scroller
 * scrollable sideways.
 */
function setContentSize(size) {
  const viewport = state.viewport;
  const scrollsX = !viewport || size.width - viewport.width >= SCROLL_SLACK;
  const scrollsY = !viewport || size.height - viewport.height >= SCROLL_SLACK;
  const bar = viewport ? scrollbarWidth() : 0;
  const wanted = {
    content: [scrollsX ? size.width : viewport.width, scrollsY ? size.height : viewport.height, scrollsX ? "visible" : "clip", scrollsY ? "visible" : "clip"],
    scroller: viewport ? [viewport.width + (scrollsY ? bar : 0), viewport.height + (scrollsX ? bar : 0), scrollsX ? "scroll" : "hidden", scrollsY ? "scroll" : "hidden"] : null,
  };
  // Called on every applied delta: styles are written only when they change.
  const key = JSON.stringify(wanted);
  if (content.dataset.size === key) return;
  content.dataset.size = key;
  const [width, height, overflowX, overflowY] = wanted.content;
  Object.assign(content.style, { width: width + "px", height: height + "px", overflowX, overflowY });
  if (wanted.scroller) {
    const [width, height, overflowX, overflowY] = wanted.scroller;
    Object.assign(scroller.style, { width: width + "px", height: height + "px", overflowX, overflowY });
  }
}

/** Content longer than the viewport by less than this gets no scrollbar (rounding, not scrolling). */
const SCROLL_SLACK = 0.5;

/** Moves the scroll container to the daemon's offset without echoing it back as a scroll. */
function scrollToOffset(offset) {
  if (Math.abs(scroller.scrollLeft - offset.x) < 0.5 && Math.abs(scroller.scrollTop - offset.y) < 0.5) return;
  state.scroll.programmatic = { x: offset.x, y: offset.y };
  scroller.scrollLeft = offset.x;
  scroller.scrollTop = offset.y;
}

function renderAll() {
  for (const key of [...state.nodes.keys()]) remove(key);
  for (const { node } of state.leaving.values()) node.remove();
  state.leaving.clear();
  const m = state.mirror;
  setContentSize(m.contentSize || { width: 0, height: 0 });
  for (const e of m.map.values()) upsert(e);
  markStacks();
  if (m.contentOffset) scrollToOffset(m.contentOffset);
  caption();
}

function caption() {
  const m = state.mirror;
  if (!state.view) return ($("caption").textContent = "");
  $("caption").textContent = `${state.view} · ${state.strategy} · epoch ${m.epoch} · ${m.size} elements in the window · content ` +
    `${Math.round(m.contentSize.width)}×${Math.round(m.contentSize.height)} · offset ${Math.round(m.contentOffset.x)},${Math.round(m.contentOffset.y)}`;
}

// MARK: stacks

/** Two cell origins closer than this (points) are one stack, as in layoutctl's SVG pictures. */
const STACK_TOLERANCE = 0.5;

/**
 * Cells at one origin (collapsible's collapsed stacks) look like a single cell: the top card of
 * each stack wears a ×N badge, with cards peeking out from under it, as layoutctl's SVG pictures
 * mark them (SVGRenderer.stacks). A stack is the window's visible cells whose origins lie within
 * STACK_TOLERANCE of its first one's, in drawing order (zIndex); its top card is the one drawn
 * last (the highest zIndex, then the later in the DOM). Recomputed after every applied change;
 * only the cells whose mark changes are touched.
 *
 * - Complexity: O(n log n) in the window's elements (the sort by zIndex); origins are bucketed
 *   by the whole point, so a stack is found among its nine neighbouring buckets.
 */
function markStacks() {
  const cells = [];
  for (const e of state.mirror.map.values()) if (e.kind === "cell" && !e.hidden) cells.push(e);
  cells.sort((a, b) => a.zIndex - b.zIndex);
  const stacks = [], buckets = new Map();
  for (const e of cells) {
    const { x, y } = e.frame;
    const bx = Math.floor(x), by = Math.floor(y);
    let stack = null;
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (const s of buckets.get(`${bx + dx},${by + dy}`) || []) {
          if (Math.abs(s.x - x) <= STACK_TOLERANCE && Math.abs(s.y - y) <= STACK_TOLERANCE && (!stack || s.order < stack.order)) stack = s;
        }
      }
    }
    if (!stack) {
      stack = { x, y, order: stacks.length, members: [] };
      stacks.push(stack);
      const key = `${bx},${by}`;
      if (buckets.has(key)) buckets.get(key).push(stack);
      else buckets.set(key, [stack]);
    }
    stack.members.push(e);
  }
  const tops = new Map();
  state.stackOf = new Map();
  for (const { members } of stacks) {
    if (members.length < 2) continue;
    const ids = members.map((e) => e.id);
    let top = null;
    for (const e of members) {
      const key = elementKey(e), node = state.nodes.get(key);
      state.stackOf.set(key, ids);
      if (!node) continue;
      const z = top && top._element.zIndex;
      if (!top || e.zIndex > z || (e.zIndex === z && top.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING)) top = node;
    }
    if (top) tops.set(top, ids);
  }
  for (const node of state.stackTops.keys()) if (!tops.has(node)) markStack(node, 0);
  for (const [node, ids] of tops) markStack(node, ids.length);
  state.stackTops = tops;
}

/** Marks a cell as the top card of a stack of `count` (0: of none). */
function markStack(node, count) {
  if (Number(node.dataset.stack || 0) === count) return;
  node.classList.toggle("stack-top", count > 1);
  let badge = node.querySelector(".stack-count");
  if (count > 1) {
    node.dataset.stack = String(count);
    // Up to three cards peek out, as in the SVG pictures.
    node.dataset.peek = String(Math.min(count - 1, 3));
    if (!badge) {
      badge = document.createElement("span");
      badge.className = "stack-count";
      node.appendChild(badge);
    }
    badge.textContent = "×" + count;
  } else {
    delete node.dataset.stack;
    delete node.dataset.peek;
    badge?.remove();
  }
}

// MARK: invalidations

/**
 * Applies an invalidation (a reply of ours or a view.invalidated event) once: the mirror takes
 * it only at the next epoch, and then the DOM takes exactly its delta.
 */
function absorb(p, source) {
  const m = state.mirror;
  if (!p || p.view !== state.view || p.dryRun) return false;
  if (p.epoch > m.epoch + 1) {
    log(`gap: epoch ${m.epoch} → ${p.epoch}, resyncing`);
    resync();
    return false;
  }
  const started = performance.now();
  if (!m.apply(p)) return false;
  setContentSize(p.contentSize);
  const animated = p.transition && p.transition.segments.length > 0 ? p.transition : null;
  // Element key → its segments, once per transition (not a scan of them per element).
  const segments = animated ? segmentsByElement(animated) : null;
  for (const k of p.left) {
    const key = elementKey(k);
    if (segments && segments.has(key)) {
      // It leaves the window animated: keep it until its animation ends.
      const node = state.nodes.get(key);
      state.nodes.delete(key);
      if (node) state.leaving.set(key, { node });
    } else {
      remove(key);
    }
  }
  for (const e of p.entered) upsert(e);
  for (const e of p.changed) upsert(e);
  markStacks();
  if (animated) play(animated, segments);
  if (source !== "scroll" && !state.scroll.inFlight && !state.move) scrollToOffset(p.contentOffset);
  caption();
  state.applyTimes.push(performance.now() - started);
  if (state.applyTimes.length > 10000) state.applyTimes.splice(0, 5000);
  // What invalidations do not carry, asked for once per change that can alter it (whoever made
  // it, whichever of its reply and its event came first): the selection when items were
  // invalidated (listed, or counted in omittedIDs for a change too large to list), the strategy
  // and its parameters when everything was.
  const context = p.context;
  if (context && (context.invalidated.length > 0 || p.omittedIDs || context.everything)) refreshSelection().catch(() => {});
  if (context && context.everything) refreshStrategy().catch(() => {});
  return true;
}

/** Plays a transition's segments on the cells (from → to, each with its delay, duration and curve). */
function play(transition, segments) {
  state.lastTransition = transition;
  for (const a of webAnimations(transition)) {
    let node = state.nodes.get(a.key) || (state.leaving.get(a.key) || {}).node;
    if (!node) {
      // Animated in from outside the window (or only present while animating): draw it from `from`.
      const last = segments.get(a.key).at(-1).to;
      node = makeNode(last);
      place(node, last);
      content.appendChild(node);
      state.leaving.set(a.key, { node });
    }
    const animation = node.animate(a.keyframes, a.options);
    node._animation = animation;
    animation.finished.then(() => {
      // Its last keyframe is the inline style underneath: drop the fill so nothing lingers.
      animation.cancel();
      const gone = state.leaving.get(a.key);
      if (gone && gone.node === node && node._animation === animation) {
        state.leaving.delete(a.key);
        node.remove();
      }
    }, () => {});
  }
}

async function resync() {
  if (!state.subscription) return;
  try {
    // The subscription queues a local view.resync with the new snapshot; follow() resets from it.
    await state.subscription.resync();
  } catch (error) {
    log("resync failed: " + error.message);
  }
}

/**
 * The selection is not in the attributes: ask for the window's selected cells when the view opens
 * and when a change invalidated items (a selection by any client does), one query per such
 * change, never per frame.
 */
async function refreshSelection() {
  const view = state.view, m = state.mirror;
  if (!view || !m.window) return;
  const { selected } = await state.client.view.query({ view, rect: m.window });
  if (view !== state.view) return;
  state.selected = new Set(selected);
  for (const node of state.nodes.values()) node.classList.toggle("selected", node.dataset.kind === "cell" && state.selected.has(node.dataset.id));
  if (state.inspected) inspect(state.inspected);
}

/**
 * A change of everything (a configure, a strategy switch, a resize: by anyone) may have changed
 * the strategy, its parameters or the viewport, which invalidations do not carry: one view.get
 * brings them, and the panel shows them unless the user is editing it.
 */
async function refreshStrategy() {
  const view = state.view;
  const snapshot = await state.client.view.get({ view });
  if (view !== state.view) return;
  state.strategy = snapshot.strategy;
  state.params = snapshot.params;
  // A resize (by anyone) changes everything too: the scroller follows the new viewport.
  state.viewport = snapshot.viewport;
  setContentSize(state.mirror.contentSize);
  if (!$("strategy-panel").contains(document.activeElement)) showStrategy(snapshot.strategy, snapshot.params);
  caption();
}

function describeEvent(message) {
  const p = message.params || {};
  if (message.event === "view.invalidated") {
    const extra = p.transition ? ` · transition ${p.transition.duration}s` : "";
    return `seq ${message.seq} · epoch ${p.epoch} · +${p.entered.length} ~${p.changed.length} −${p.left.length}${extra}`;
  }
  return `seq ${message.seq} · ${message.event}` + (p.epoch !== undefined ? ` · epoch ${p.epoch}` : "");
}

async function follow(subscription) {
  for await (const message of subscription) {
    if (subscription !== state.subscription) return;
    log(describeEvent(message));
    if (message.event === "view.invalidated") {
      absorb(message.params, "event");
    } else if (message.event === "view.resync" && message.params.snapshot) {
      state.mirror.reset(message.params.snapshot);
      renderAll();
    } else if (message.event === "view.deleted") {
      status(`view ${state.view} was deleted`, true);
      state.view = null;
      state.mirror = new Mirror();
      renderAll();
      refreshViews();
      return;
    } else if (message.event === "view.moveEnded" || message.event === "view.transitionInterrupted") {
      endDragLocally();
    }
  }
}

// MARK: opening views

async function openView(name) {
  const client = state.client;
  if (state.subscription) {
    const old = state.subscription;
    state.subscription = null;
    old.unsubscribe().catch(() => {});
  }
  state.view = name;
  state.selected = new Set();
  const subscription = await client.view.subscribe({ view: name });
  state.subscription = subscription;
  const snapshot = subscription.snapshot;
  state.mirror = new Mirror().reset(snapshot);
  state.strategy = snapshot.strategy;
  state.params = snapshot.params;
  state.viewport = snapshot.viewport;
  renderAll();
  location.hash = "view=" + encodeURIComponent(name);
  for (const li of $("views").children) li.classList.toggle("open", li.dataset.view === name);
  showStrategy(snapshot.strategy, snapshot.params);
  await refreshSelection();
  status(`connected · ${name}`);
  follow(subscription).catch((error) => log("subscription ended: " + error.message));
}

let measuredScrollbar = null;
function scrollbarWidth() {
  if (measuredScrollbar === null) {
    const probe = document.createElement("div");
    probe.style.cssText = "position:absolute;top:-200px;width:100px;height:100px;overflow:scroll";
    document.body.appendChild(probe);
    measuredScrollbar = probe.offsetWidth - probe.clientWidth;
    probe.remove();
  }
  return measuredScrollbar;
}

async function refreshViews() {
  const { views } = await state.client.view.list();
  const list = $("views");
  list.replaceChildren();
  for (const v of views) {
    const li = document.createElement("li");
    li.dataset.view = v.view;
    li.textContent = `${v.view} · ${v.strategy} · ${v.itemCount}`;
    li.classList.toggle("open", v.view === state.view);
    li.addEventListener("click", () => openView(v.view).catch((e) => status(e.message, true)));
    list.appendChild(li);
  }
}

// MARK: sample data

function seeded(seed) {
  let x = seed >>> 0;
  return () => ((x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 4294967296);
}

function sampleSections(kind) {
  const random = seeded(7);
  const items = (n, prefix, sized) => Array.from({ length: n }, (_, i) => {
    const item = { id: prefix + i };
    if (sized) item.size = { width: 40 + Math.round(random() * 80), height: 40 + Math.round(random() * 120) };
    return item;
  });
  switch (kind) {
    case "showcase": return SHOWCASE_SECTIONS.map(([id, n]) => ({ id, items: items(n, id, false) }));
    case "sizes": return [{ id: "s", items: items(1000, "v", true) }];
    case "sections": return Array.from({ length: 10 }, (_, s) => ({ id: "s" + s, items: items(30, `s${s}i`, false), headerSize: { width: 0, height: 30 } }));
    case "large": return [{ id: "s", items: items(100000, "i", false) }];
    default: return [{ id: "s", items: items(200, "i", false) }];
  }
}

/** The showcase's sections (id, item count): each has its own layout in COMPOSITIONAL_SHOWCASE. */
const SHOWCASE_SECTIONS = [["featured", 8], ["grid", 24], ["mosaic", 15], ["list", 12]];

/**
 * What a view made here with the compositional strategy gets: not the default plain list but one
 * section of each kind the layout is for. `featured` is a carousel (an orthogonal section paging
 * by group, its cells reaching past the edge); every other section, `grid` among them, is three
 * fractional squares a row with a badge on each; `mosaic` nests a vertical group of two beside a
 * large item, on a background decoration; `list` is an inset grouped list. Each but the list has
 * a header (a boundary item). Every sample's sections take the grid unless named here.
 */
const COMPOSITIONAL_SHOWCASE = (() => {
  const inset = (n) => ({ top: n, leading: n, bottom: n, trailing: n });
  const fraction = (width, height) => ({ width: { fractionalWidth: width }, height: { fractionalHeight: height } });
  const header = { kind: "header", size: { width: { fractionalWidth: 1 }, height: { absolute: 30 } }, alignment: "top" };
  const badge = { kind: "badge", size: { width: { absolute: 16 }, height: { absolute: 16 } },
    containerAnchor: { edges: ["top", "trailing"], fractionalOffset: { x: 0.3, y: -0.3 } } };
  return {
    interSectionSpacing: 12,
    section: {
      group: { direction: "horizontal", size: { width: { fractionalWidth: 1 }, height: { fractionalWidth: 1 / 3 } },
        subitems: [{ size: fraction(1 / 3, 1), contentInsets: inset(4), supplementaryItems: [badge] }] },
      contentInsets: { leading: 8, trailing: 8 },
      boundarySupplementaryItems: [header],
    },
    sections: {
      featured: {
        group: { direction: "horizontal", size: { width: { fractionalWidth: 0.8 }, height: { absolute: 150 } }, subitems: [{ size: fraction(1, 1) }] },
        interGroupSpacing: 10, contentInsets: { top: 4, leading: 16, bottom: 4, trailing: 16 },
        orthogonalScrollingBehavior: "groupPaging", boundarySupplementaryItems: [header],
      },
      mosaic: {
        group: { direction: "horizontal", size: { width: { fractionalWidth: 1 }, height: { absolute: 180 } }, subitems: [
          { size: fraction(0.6, 1), contentInsets: inset(4) },
          { direction: "vertical", size: fraction(0.4, 1), subitems: [
            { size: fraction(1, 0.5), contentInsets: inset(4) },
            { size: fraction(1, 0.5), contentInsets: inset(4) },
          ] },
        ] },
        contentInsets: inset(8), decorationItems: [{ kind: "background" }], boundarySupplementaryItems: [header],
      },
      list: { list: { appearance: "insetGrouped" } },
    },
  };
})();

async function createView(form) {
  const data = new FormData(form);
  const name = String(data.get("view"));
  const strategy = String(data.get("strategy"));
  const sections = sampleSections(String(data.get("sample")));
  const rect = document.body.getBoundingClientRect();
  const viewport = { width: Math.max(280, Math.min(520, Math.round(rect.width - 760))), height: 560 };
  const params = strategy === "compositional" ? COMPOSITIONAL_SHOWCASE : undefined;
  const total = sections.reduce((n, s) => n + s.items.length, 0);
  if (total > 5000) {
    await state.client.view.create({ view: name, strategy, viewport, params });
    await state.client.upload({ view: name, sections });
  } else {
    await state.client.view.create({ view: name, strategy, viewport, params, sections });
  }
  await refreshViews();
  await openView(name);
}

// MARK: strategy panel

function showStrategy(name, params) {
  $("strategy").value = name;
  buildParams(name, params || {});
}

function buildParams(name, current) {
  const form = $("params");
  form.replaceChildren();
  const descriptor = state.strategies.find((s) => s.name === name);
  $("strategy-summary").textContent = descriptor ? descriptor.summary : "";
  if (!descriptor) return;
  for (const p of descriptor.parameters) {
    const value = name === state.strategy && current[p.name] !== undefined ? current[p.name] : p.default;
    const label = document.createElement("label");
    label.title = p.summary;
    label.textContent = p.name + " ";
    label.dataset.param = p.name;
    label.dataset.type = p.type;
    let input;
    if (p.type === "bool") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = value === true;
      label.className = "inline-param";
    } else if (p.type === "choice") {
      input = document.createElement("select");
      for (const c of p.choices) input.add(new Option(c, c, false, c === value));
    } else if (p.type === "number" || p.type === "integer") {
      input = document.createElement("input");
      input.type = "number";
      input.step = p.type === "integer" ? "1" : "any";
      if (p.minimum !== undefined) input.min = String(p.minimum);
      if (p.maximum !== undefined) input.max = String(p.maximum);
      input.value = value === null || value === undefined ? "" : String(value);
    } else if (p.type === "size" || p.type === "size?") {
      input = document.createElement("span");
      input.className = "pair";
      for (const axis of ["width", "height"]) {
        const field = document.createElement("input");
        field.type = "number";
        field.step = "any";
        field.placeholder = axis;
        field.dataset.axis = axis;
        field.value = value ? String(value[axis]) : "";
        input.appendChild(field);
      }
    } else {
      input = document.createElement("input");
      input.value = JSON.stringify(value);
      input.dataset.json = "1";
    }
    input.classList.add("value");
    label.appendChild(input);
    form.appendChild(label);
  }
}

/** The panel's values, as protocol parameter values. */
function readParams() {
  const params = {};
  for (const label of $("params").children) {
    const input = label.querySelector(".value");
    const type = label.dataset.type;
    let value;
    if (type === "bool") value = input.checked;
    else if (type === "choice") value = input.value;
    else if (type === "number" || type === "integer") value = input.value === "" ? null : Number(input.value);
    else if (type === "size" || type === "size?") {
      const [w, h] = input.querySelectorAll("input");
      value = w.value === "" && h.value === "" ? null : { width: Number(w.value), height: Number(h.value) };
    } else value = JSON.parse(input.value);
    if (value === null && !type.endsWith("?")) continue;
    params[label.dataset.param] = value;
  }
  return params;
}

async function applyStrategy() {
  $("apply-error").textContent = "";
  if (!state.view) return;
  const strategy = $("strategy").value;
  const animated = $("animated").checked;
  try {
    const params = readParams();
    let result;
    if (strategy === state.strategy) {
      const changed = {};
      for (const [k, v] of Object.entries(params)) if (JSON.stringify(v) !== JSON.stringify(state.params[k])) changed[k] = v;
      result = await state.client.view.configure({ view: state.view, params: changed, animated });
    } else {
      result = await state.client.view.setStrategy({ view: state.view, strategy, params, animated });
    }
    absorb(result, "reply");
  } catch (error) {
    $("apply-error").textContent = (error.name || "Error") + ": " + error.message;
  }
}

// MARK: scrolling

function onScroll() {
  if (state.scroll.endTimer) {
    clearTimeout(state.scroll.endTimer);
    state.scroll.endTimer = 0;
  }
  const programmatic = state.scroll.programmatic;
  if (programmatic && Math.abs(scroller.scrollTop - programmatic.y) < 0.5 && Math.abs(scroller.scrollLeft - programmatic.x) < 0.5) {
    state.scroll.programmatic = null;
    return;
  }
  state.scroll.programmatic = null;
  if (!state.scroll.frame) state.scroll.frame = requestAnimationFrame(sendScroll);
}

/** The scroll position on the device pixel grid (where the browser can put it). */
function scrollerOffset() {
  const ratio = window.devicePixelRatio || 1;
  return { x: Math.round(scroller.scrollLeft * ratio) / ratio, y: Math.round(scroller.scrollTop * ratio) / ratio };
}

/** At most one view.scroll per animation frame and one in flight; the newest offset wins. */
function sendScroll(now) {
  state.scroll.frame = 0;
  if (!state.view) return;
  if (state.scroll.inFlight) {
    state.scroll.again = true;
    return;
  }
  const offset = scrollerOffset();
  const m = state.mirror;
  if (m.contentOffset && offset.x === m.contentOffset.x && offset.y === m.contentOffset.y) return;
  const last = state.scroll.last;
  const dt = last ? Math.max(1, now - last.time) / 1000 : 1;
  const velocity = last ? { x: (offset.x - last.offset.x) / dt, y: (offset.y - last.offset.y) / dt } : { x: 0, y: 0 };
  state.scroll.last = { time: now, offset };
  const view = state.view;
  state.scroll.inFlight = state.client.view.scroll({ view, offset, velocity }).then(
    (result) => { if (view === state.view) absorb(result, "scroll"); },
    (error) => log("view.scroll: " + error.message),
  ).finally(() => {
    state.scroll.inFlight = null;
    if (state.scroll.again) {
      state.scroll.again = false;
      if (!state.scroll.frame) state.scroll.frame = requestAnimationFrame(sendScroll);
    }
  });
}

/**
 * The browser says scrolling ended (also after every programmatic scrollTop): wait a little for
 * it to stay ended, since one fling can end many times over.
 */
function scheduleScrollEnd() {
  clearTimeout(state.scroll.endTimer);
  state.scroll.endTimer = setTimeout(() => {
    state.scroll.endTimer = 0;
    onScrollEnd().catch((error) => log("view.scrollEnd: " + error.message));
  }, SCROLL_END_QUIET_MS);
}

const SCROLL_END_QUIET_MS = 120;

async function onScrollEnd() {
  if (!state.view || state.move) return;
  while (state.scroll.inFlight || state.scroll.frame) await nextFrame();
  // Scrolled again meanwhile: that scroll's own end will come.
  if (state.scroll.endTimer) return;
  const proposed = scrollerOffset();
  // scrollend comes when the browser's own fling has stopped: the finger's velocity is spent.
  const velocity = { x: 0, y: 0 };
  state.scroll.last = null;
  try {
    const view = state.view;
    state.scroll.inFlight = state.client.view.scrollEnd({ view, proposed, velocity });
    const result = await state.scroll.inFlight;
    state.scroll.inFlight = null;
    if (view !== state.view) return;
    absorb(result, "scroll");
    const target = result.targetContentOffset;
    // Within a device pixel is where the browser can put it already: gliding there would only
    // end in another scrollend, and another, each a pixel's rounding off.
    const pixel = 1 / (window.devicePixelRatio || 1);
    const now = scrollerOffset();
    const moved = now.x !== proposed.x || now.y !== proposed.y;
    if (!moved && (Math.abs(target.y - scroller.scrollTop) > pixel || Math.abs(target.x - scroller.scrollLeft) > pixel)) {
      // Snapping: glide to where the strategy rests (the daemon is already there).
      state.scroll.programmatic = null;
      scroller.scrollTo({ left: target.x, top: target.y, behavior: "smooth" });
    }
  } catch (error) {
    state.scroll.inFlight = null;
    log("view.scrollEnd: " + error.message);
  }
}

// MARK: selection, dragging

function contentPoint(event) {
  const r = scroller.getBoundingClientRect();
  return { x: event.clientX - r.left - scroller.clientLeft + scroller.scrollLeft, y: event.clientY - r.top - scroller.clientTop + scroller.scrollTop };
}

async function select(event) {
  const point = contentPoint(event);
  const { element } = await state.client.view.hitTest({ view: state.view, point, kinds: ["cell"] });
  if (!element) return;
  const additive = event.shiftKey || event.metaKey || event.ctrlKey;
  const mode = additive ? "toggle" : "set";
  const animated = $("animated").checked;
  const result = await state.client.view.select({ view: state.view, ids: [element.id], mode, animated });
  state.inspected = element;
  // Applying it asks for the window's selection (refreshSelection), which marks the cells.
  absorb(result, "reply");
}

function viewportPoint(event) {
  const r = scroller.getBoundingClientRect();
  return { x: event.clientX - r.left - scroller.clientLeft, y: event.clientY - r.top - scroller.clientTop };
}

function onPointerDown(event) {
  const node = event.target.closest(".cell");
  if (!node || event.button !== 0 || !state.view) return;
  state.press = { id: node.dataset.id, kind: node.dataset.kind, x: event.clientX, y: event.clientY, pointer: event.pointerId };
}

async function onPointerMove(event) {
  const press = state.press;
  if (press && !state.move && press.kind === "cell" && Math.hypot(event.clientX - press.x, event.clientY - press.y) > 6) {
    state.move = { id: press.id, point: viewportPoint(event), inFlight: null, again: false, autoScroll: { x: 0, y: 0 }, ticking: false };
    scroller.setPointerCapture(press.pointer);
    try {
      const result = await state.client.view.beginMove({ view: state.view, id: press.id });
      absorb(result, "move");
      state.nodes.get("cell\u0000" + press.id)?.classList.add("dragging");
    } catch (error) {
      log("view.beginMove: " + error.message);
      state.move = null;
      return;
    }
    updateMove();
  } else if (state.move) {
    state.move.point = viewportPoint(event);
    updateMove();
  }
}

function updateMove() {
  const move = state.move;
  if (!move) return;
  if (move.inFlight) {
    move.again = true;
    return;
  }
  move.inFlight = state.client.view.updateMove({ view: state.view, point: move.point }).then((result) => {
    absorb(result, "move");
    move.autoScroll = result.autoScroll || { x: 0, y: 0 };
    if ((move.autoScroll.x || move.autoScroll.y) && !move.ticking) autoScroll(move);
  }, (error) => log("view.updateMove: " + error.message)).finally(() => {
    move.inFlight = null;
    if (move.again && state.move === move) {
      move.again = false;
      updateMove();
    }
  });
}

/** While the daemon asks for auto-scroll, scroll by it every frame; the target follows. */
function autoScroll(move) {
  move.ticking = true;
  let last = performance.now();
  const tick = (now) => {
    if (state.move !== move || (!move.autoScroll.x && !move.autoScroll.y)) {
      move.ticking = false;
      return;
    }
    const dt = Math.min(0.05, (now - last) / 1000);
    last = now;
    scroller.scrollLeft += move.autoScroll.x * dt;
    scroller.scrollTop += move.autoScroll.y * dt;
    updateMove();
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

async function onPointerUp(event) {
  const press = state.press;
  state.press = null;
  const move = state.move;
  if (!move) {
    if (press && Math.hypot(event.clientX - press.x, event.clientY - press.y) <= 6) select(event).catch((e) => log("select: " + e.message));
    return;
  }
  move.point = viewportPoint(event);
  updateMove();
  await finishMove(true);
}

async function finishMove(commit) {
  const move = state.move;
  if (!move) return;
  // The drop goes where the last point put the target: every point sent before endMove.
  while (move.inFlight || move.again) {
    if (!move.inFlight) {
      move.again = false;
      updateMove();
    }
    await move.inFlight;
  }
  try {
    const result = await state.client.view.endMove({ view: state.view, commit });
    endDragLocally();
    absorb(result, "reply");
  } catch (error) {
    endDragLocally();
    log("view.endMove: " + error.message);
  }
}

function endDragLocally() {
  if (state.move) state.nodes.get("cell\u0000" + state.move.id)?.classList.remove("dragging");
  state.move = null;
}

// MARK: inspector

function inspect(e) {
  if (!e) return;
  state.inspected = e;
  const why = {
    kind: e.kind, id: e.id, section: e.section, item: e.item,
    stack: state.stackOf.get(elementKey(e)),
    selected: e.kind === "cell" ? state.selected.has(e.id) : undefined,
  };
  $("inspector").textContent = JSON.stringify(why, null, 1) + "\n\nattributes " + JSON.stringify(e, null, 1);
}

// MARK: settling (tests)

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

function busy() {
  return !!(state.scroll.inFlight || state.scroll.frame || state.scroll.endTimer || (state.move && state.move.inFlight));
}

/** Frames go by until two in a row find nothing in flight. */
async function settled() {
  let idle = 0;
  while (idle < 2) {
    await nextFrame();
    idle = busy() ? 0 : idle + 1;
  }
  return true;
}

/** The DOM rectangles of the window's cells, in viewport coordinates (what a test compares). */
function domRects() {
  const origin = scroller.getBoundingClientRect();
  const out = [];
  for (const [key, node] of state.nodes) {
    const r = node.getBoundingClientRect();
    out.push({ key, kind: node.dataset.kind, id: node.dataset.id, x: r.left - origin.left - scroller.clientLeft, y: r.top - origin.top - scroller.clientTop, width: r.width, height: r.height });
  }
  return out;
}

// MARK: start

/**
 * One connection to the daemon through the bridge: hello, the strategies, the views. Called
 * again after the connection drops (a daemon restart, a stopped bridge): views live in the
 * daemon's memory, so the one that was open comes back only if someone made it again.
 */
async function connect() {
  const url = new URL("socket", location.href);
  url.protocol = "ws:";
  url.hash = "";
  const transport = await connectWebSocket(url.href);
  const client = new Client(transport);
  state.client = client;
  client.on("close", () => {
    if (state.client !== client) return;
    state.subscription = null;
    state.scroll.inFlight = null;
    state.move = null;
    status("disconnected from the daemon; reconnecting…", true);
    log("connection closed");
    reconnectLater();
  });
  const hello = await client.daemon.hello();
  state.strategies = (await client.strategy.list()).strategies.filter((s) => s.status !== "unavailable");
  for (const select of [$("strategy"), document.querySelector("#create select[name=strategy]")]) {
    const chosen = select.value;
    select.replaceChildren(...state.strategies.map((s) => new Option(s.name, s.name)));
    if (chosen) select.value = chosen;
  }
  await refreshViews();
  status(`connected to ${hello.server} ${hello.version}`);
  return hello;
}

const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 5000];
let reconnectAttempt = 0;

function reconnectLater() {
  const delay = RECONNECT_DELAYS_MS[Math.min(reconnectAttempt, RECONNECT_DELAYS_MS.length - 1)];
  reconnectAttempt++;
  setTimeout(async () => {
    try {
      await connect();
      reconnectAttempt = 0;
      log("reconnected");
      const { views } = await state.client.view.list();
      if (state.view && views.some((v) => v.view === state.view)) await openView(state.view);
      else if (state.view) {
        status(`connected; view ${state.view} is gone (the daemon restarted): make it again or pick another`, true);
        state.view = null;
        state.mirror = new Mirror();
        renderAll();
      }
    } catch (error) {
      reconnectLater();
    }
  }, delay);
}

async function start() {
  await connect();
  $("strategy").addEventListener("change", () => buildParams($("strategy").value, state.params));
  $("apply").addEventListener("click", applyStrategy);
  $("refresh").addEventListener("click", () => refreshViews());
  // Choosing compositional for a new view proposes the data its showcase is made for.
  document.querySelector("#create select[name=strategy]").addEventListener("change", (event) => {
    if (event.target.value === "compositional") document.querySelector("#create select[name=sample]").value = "showcase";
  });
  $("create").addEventListener("submit", (event) => {
    event.preventDefault();
    createView(event.target).catch((error) => status((error.name || "Error") + ": " + error.message, true));
  });
  scroller.addEventListener("scroll", onScroll, { passive: true });
  scroller.addEventListener("scrollend", scheduleScrollEnd);
  scroller.addEventListener("pointerdown", onPointerDown);
  scroller.addEventListener("pointermove", (e) => onPointerMove(e).catch((error) => log(error.message)));
  scroller.addEventListener("pointerup", (e) => onPointerUp(e).catch((error) => log(error.message)));
  scroller.addEventListener("keydown", (e) => { if (e.key === "Escape" && state.move) finishMove(false); });
  content.addEventListener("mouseover", (event) => {
    const node = event.target.closest(".cell");
    if (node && node._element) inspect(node._element);
  });
  const wanted = new URLSearchParams(location.hash.slice(1)).get("view");
  if (wanted) await openView(wanted);
  document.body.dataset.ready = "true";
}

start().catch((error) => status("could not connect: " + error.message, true));
