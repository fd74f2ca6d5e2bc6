// Must NOT compile: a parameter view.get does not take (the daemon refuses unknown fields, so the
// types do), and view.scroll's targetContentOffset used as always there (only scrollEnd's is).
// test/types.test.js checks that tsc refuses it with exactly these two errors.
import { connect, type Point } from "../../index";

async function wrong(): Promise<void> {
  const client = await connect();
  await client.view.get({ view: "photos", epoch: 3 });
  const offset: Point = (await client.view.scroll({ view: "photos", offset: { x: 0, y: 1 } })).targetContentOffset;
  void offset;
}

void wrong();
