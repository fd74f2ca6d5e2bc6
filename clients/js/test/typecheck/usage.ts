// A strict TypeScript program against index.d.ts (and the generated protocol.d.ts it re-exports),
// as an adopter writes one (compiled by test/types.test.js with `tsc --noEmit --strict`; never run).
import {
  connect, Mirror, webAnimations, attributesAt, CURVES, cubicBezier, elementKey, LayoutdError, StaleEpochError,
  ERROR_CODES, isLayoutdError, reconnecting, CallTimeoutError, ProtocolError, ConnectionClosedError, DEFAULT_LINE_CAP,
  type MirrorChange, type ProtocolErrorKind,
  type Attributes, type Invalidation, type Snapshot, type Transition, type AnimationCurve, type Point,
  type ViewCreateParams, type ViewScrollEndResult, type ViewUpdateParams, type ProtocolEvents, type ProtocolMethods,
} from "../../index";

async function main(): Promise<void> {
  const client = await connect({ hello: true });
  const limit: number | undefined = client.hello?.limits.maximumBatchSize;
  void limit;
  const photos: ViewCreateParams = {
    view: "photos", strategy: "flow", params: { itemSize: { width: 100, height: 100 } },
    viewport: { width: 375, height: 667, contentInsets: { top: 20 } },
    sections: [{ id: "s", items: [{ id: "a" }, { id: "b", size: { width: 50, height: 50 } }] }],
  };
  const created: Snapshot = await client.view.create(photos);
  const mirror = new Mirror();
  mirror.reset(created);
  // Params are typed per method: `updates` is the union of the batch operations, selected by op.
  const batch: ViewUpdateParams = { view: "photos", ifEpoch: created.epoch, animated: true, updates: [{ op: "moveItem", id: "a", section: "s", at: 1 }] };
  const moved = await client.view.update(batch);
  const inserted: string[] = moved.changes.insertedItems; // view.update's result always has changes
  void inserted;
  mirror.apply(moved);
  const transition: Transition | undefined = moved.transition;
  if (transition) {
    const curve: AnimationCurve = transition.segments[0]?.curve ?? "linear";
    const eased: number = CURVES[curve].ease(0.5) + cubicBezier(0.42, 0, 0.58, 1)(0.25);
    const at: Map<string, Attributes> = attributesAt(transition, eased);
    for (const { keyframes, options } of webAnimations(transition, { origin: { x: 0, y: 0 } })) {
      const delay: number = options.delay;
      void keyframes.length;
      void delay;
    }
    void at.size;
  }
  const scrolled: Invalidation = await client.view.scroll({ view: "photos", offset: { x: 0, y: 100 }, velocity: { x: 0, y: 800 } });
  void scrolled.prefetch;
  // allOf with required: scrollEnd's targetContentOffset is always there.
  const rest: ViewScrollEndResult = await client.view.scrollEnd({ view: "photos", proposed: { x: 0, y: 120 }, velocity: { x: 0, y: 0 } });
  const target: Point = rest.targetContentOffset;
  void target;
  const hit = await client.view.hitTest({ view: "photos", point: { x: 10, y: 10 } });
  if (hit.element) void hit.element.frame.width;
  const listed: ProtocolMethods["view.list"]["result"] = await client.view.list();
  void listed.views.length;
  const begun = await client.view.stage.begin({ view: "photos" });
  await client.view.stage.append({ upload: begun.upload, sections: [{ id: "t", items: [] }] });
  const committed = await client.view.stage.commit({ upload: begun.upload, animated: false });
  void committed.changes.insertedSections;
  // call() by name is typed too, and takes any other name.
  const again: Snapshot = await client.call("view.get", { view: "photos" });
  const future: unknown = await client.call("view.somethingNewer", { x: 1 });
  void again;
  void future;
  for (const element of mirror) {
    const key: string = elementKey(element);
    void key;
  }
  const subscription = await client.subscribe("photos");
  for await (const event of subscription) {
    if (event.event === "view.invalidated") {
      const params: ProtocolEvents["view.invalidated"]["params"] = event.params;
      void params.epoch;
    }
    void event.seq;
    break;
  }
  try {
    await client.view.update({ view: "photos", ifEpoch: 0, updates: [{ op: "deleteItems", ids: ["a"] }] });
  } catch (error) {
    if (error instanceof StaleEpochError) {
      const expected: number = error.data.expected;
      void expected;
    } else if (isLayoutdError(error, "ViewNotFound")) {
      const view: string = error.data.view;
      void view;
    } else if (error instanceof LayoutdError) {
      void error.name;
    }
  }
  const code: number = ERROR_CODES.StaleEpoch;
  void code;
  // Deadlines and bounds: per connection and per call; the client's own errors; what it counts.
  const bounded = await connect({ timeout: 5000, connectTimeout: 1000, lineCap: DEFAULT_LINE_CAP / 4, eventQueueLimit: 64 });
  try {
    await bounded.daemon.sync(undefined, { timeout: 250 });
  } catch (error) {
    if (error instanceof CallTimeoutError) {
      const waited: number = error.timeout;
      const operation: string = error.operation;
      void waited, operation;
    } else if (error instanceof ProtocolError) {
      const kind: ProtocolErrorKind = error.kind;
      void kind;
    } else if (error instanceof ConnectionClosedError) {
      void error.shutdown;
    }
  }
  const counts: number[] = [bounded.strayCount, bounded.pendingCount, bounded.droppedEventCount, bounded.transport instanceof Object ? 1 : 0];
  void counts;
  const strayIds: Array<string | number | null> = bounded.strays.map((stray) => stray.id);
  void strayIds;
  mirror.onChange((event, m, outcome, change: MirrorChange) => {
    const touched: string[] = [...change.entered, ...change.changed].map((e: Attributes) => e.id).concat(change.left.map((k) => k.id));
    void event.event, m.epoch, outcome, touched;
  });
  await bounded.close();
  const session = await reconnecting({ connect: () => connect(), views: () => [photos] });
  const followed: Mirror = await session.mirror("photos");
  void followed.epoch;
  await session.close();
  await client.close();
}

void main();
