/**
 * `--shard I/N` parsing and membership.
 *
 * @module
 */

import assert from "node:assert/strict";
import { UsageError } from "../../../cli/args.ts";
import { Shard } from "../../../cli/batch/shard.ts";

Deno.test("Shard.parse() takes I/N with 0 <= I < N and assigns index i to shard i mod N", () => {
  const shard = Shard.parse("2/3");
  assert.deepEqual([...Array(9).keys()].filter((i) => shard.has(i)), [2, 5, 8]);
  assert.equal(String(Shard.parse(" 0/1 ")), "0/1");
  assert.ok([0, 1, 99].every((i) => Shard.ALL.has(i)));
});

Deno.test("Shard.parse() names the option and the text it rejects", () => {
  for (const text of ["3/3", "1/0", "-1/2", "a/b", "1", "1/2/3", "0.5/2", ""]) {
    assert.throws(
      () => Shard.parse(text),
      (error: unknown) =>
        error instanceof UsageError &&
        error.message === `option --shard expects I/N with N >= 1 and 0 <= I < N (such as 0/4), ` +
            `got '${text}'`,
      text,
    );
  }
});
