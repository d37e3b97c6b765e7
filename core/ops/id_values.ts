/**
 * Numbers by id, read from a run's output array without copying: a `ReadonlyMap` for library
 * callers, written as JSON straight from the array, with each id quoted once per net.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { IdValues } from "./id_values.ts";
 * import { stringifyJson } from "./json.ts";
 * const ids = ["p_a", "p_b"];
 * const index = new Map(ids.map((id, i) => [id, i]));
 * const values = new IdValues(ids, index, new Float32Array([0.5, 2]));
 * assert.equal(values.get("p_b"), 2);
 * assert.deepEqual([...values.keys()], ids);
 * assert.equal(stringifyJson(values), '{"p_a":0.5,"p_b":2}');
 * ```
 *
 * @module
 */

import { JSON_TEXT, jsonNumber, type WritesJson } from "./json.ts";

/** Each id list's quoted keys (`"id":`), made once per net. */
const quotedKeys = new WeakMap<readonly string[], readonly string[]>();

function keysOf(ids: readonly string[]): readonly string[] {
  let keys = quotedKeys.get(ids);
  if (keys === undefined) quotedKeys.set(ids, keys = ids.map((id) => `${JSON.stringify(id)}:`));
  return keys;
}

/** Numbers by `ids` (in sorted order), read from `values` (one per id) without copying. */
export class IdValues implements ReadonlyMap<string, number>, WritesJson {
  readonly #ids: readonly string[];
  readonly #index: ReadonlyMap<string, number>;
  readonly #values: ArrayLike<number>;

  /**
   * A view of `values` by `ids`.
   *
   * @param ids the ids, in sorted order
   * @param index the position of each id in `ids`
   * @param values one number per id
   */
  constructor(
    ids: readonly string[],
    index: ReadonlyMap<string, number>,
    values: ArrayLike<number>,
  ) {
    this.#ids = ids;
    this.#index = index;
    this.#values = values;
  }

  /** How many ids. */
  get size(): number {
    return this.#ids.length;
  }

  /** The number of `id`, if it is one of the ids. */
  get(id: string): number | undefined {
    const i = this.#index.get(id);
    return i === undefined ? undefined : this.#values[i];
  }

  /** Whether `id` is one of the ids. */
  has(id: string): boolean {
    return this.#index.has(id);
  }

  /** Calls `callback` with each number and id, in id order. */
  forEach(
    callback: (value: number, id: string, map: ReadonlyMap<string, number>) => void,
    thisArg?: unknown,
  ): void {
    for (let i = 0; i < this.#ids.length; i++) {
      callback.call(thisArg, this.#values[i]!, this.#ids[i]!, this);
    }
  }

  /** The ids, in order. */
  *keys(): MapIterator<string> {
    yield* this.#ids;
  }

  /** The numbers, in id order. */
  *values(): MapIterator<number> {
    for (let i = 0; i < this.#ids.length; i++) yield this.#values[i]!;
  }

  /** The `[id, number]` pairs, in id order. */
  *entries(): MapIterator<[string, number]> {
    for (let i = 0; i < this.#ids.length; i++) yield [this.#ids[i]!, this.#values[i]!];
  }

  /** The `[id, number]` pairs, in id order. */
  [Symbol.iterator](): MapIterator<[string, number]> {
    return this.entries();
  }

  /** The JSON object, keys in id order, non-finite numbers as `null`. */
  [JSON_TEXT](): string {
    const keys = keysOf(this.#ids);
    const values = this.#values;
    let text = "{";
    for (let i = 0; i < keys.length; i++) {
      const x = values[i]!;
      text += (i === 0 ? "" : ",") + keys[i] + jsonNumber(x);
    }
    return text + "}";
  }

  /** For `console.log` and friends: a plain Map of the same entries. */
  toMap(): Map<string, number> {
    return new Map(this.entries());
  }
}
