// Must NOT compile: a curve the protocol does not have, and a number where a view name goes.
// test/types.test.js checks that tsc refuses it (so the type check can fail).
import { CURVES, Mirror } from "../../index";

const wobbly = CURVES["wobbly"];
const mirror: Mirror = new Mirror();
mirror.reset(42);
void wobbly;
