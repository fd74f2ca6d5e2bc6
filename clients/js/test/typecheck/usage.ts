// A strict TypeScript program against index.d.ts, as an adopter writes one (compiled by
// test/types.test.js with `tsc --noEmit --strict`; never run).
import {
  connect, Mirror, webAnimations, attributesAt, CURVES, cubicBezier, elementKey, LayoutdError, reconnecting,
  type Attributes, type Invalidation, type Snapshot, type Transition, type AnimationCurve,
} from "../../index";

async function main(): Promise<void> {
  const client = await connect({ hello: true });
  const created: Snapshot = await client.view.create({
    view: "photos", strategy: "flow", viewport: { width: 375, height: 667 },
    sections: [{ id: "s", items: [{ id: "a" }, { id: "b" }] }],
  });
  const mirror = new Mirror();
  mirror.reset(created);
  const moved: Invalidation = await client.view.update({ view: "photos", animated: true, updates: [{ op: "moveItem", id: "a", section: "s", at: 1 }] });
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
  for (const element of mirror) {
    const key: string = elementKey(element);
    void key;
  }
  const subscription = await client.subscribe("photos");
  for await (const event of subscription) {
    void event.seq;
    break;
  }
  try {
    await client.view.get({ view: "missing" });
  } catch (error) {
    if (error instanceof LayoutdError) void error.name;
  }
  const session = await reconnecting({ connect: () => connect(), views: () => [{ view: "photos", strategy: "flow", viewport: { width: 375, height: 667 } }] });
  const followed: Mirror = await session.mirror("photos");
  void followed.epoch;
  await session.close();
  await client.close();
}

void main();
