/**
 * `cli.ts merge PART... [-o FILE]`: joins the outputs of a sharded `batch` run
 * (`--shard 0/N` ... `--shard N-1/N`) into the output one whole run writes, byte for byte. A
 * k-way merge by `trace_index`: each part is read one entry at a time ({@link PartReader}) and
 * the entry with the lowest index is copied as is, so memory holds one entry a part whatever
 * the sizes. The indices must cover 0, 1, 2, … with no gap and no repeat, and the parts must
 * share one format (`json` or `jsonl`, which the merged output keeps).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeCommand } from "./merge.ts";
 * const dir = await Deno.makeTempDir();
 * // The jsonl parts of a `batch --shard 0/2` and `--shard 1/2` run.
 * await Deno.writeTextFile(`${dir}/0.jsonl`, '{"trace_index":0}\n{"trace_index":2}\n');
 * await Deno.writeTextFile(`${dir}/1.jsonl`, '{"trace_index":1}\n');
 * const code = await mergeCommand.run(
 *   [`${dir}/0.jsonl`, `${dir}/1.jsonl`, "-o", `${dir}/scores.jsonl`],
 *   { out: () => {}, err: () => {} },
 * );
 * assert.equal(code, 0);
 * assert.equal(
 *   await Deno.readTextFile(`${dir}/scores.jsonl`),
 *   '{"trace_index":0}\n{"trace_index":1}\n{"trace_index":2}\n',
 * );
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

import { parseArgs, UsageError } from "./args.ts";
import { type Command, InputError } from "./command.ts";
import { sameFile } from "./file_problems.ts";
import { AtomicFile } from "./batch/atomic_file.ts";
import { entryLayout } from "../core/batch/entry_layout.ts";
import { openEntrySink } from "./batch/entry_sink.ts";
import { type PartEntry, PartReader } from "./batch/part_reader.ts";

const OPTIONS = { output: { type: "string", short: "o" } } as const;
/** Entries written a time. */
const CHUNK = 512;

const HELP = `Usage: cli.ts merge PART... [-o FILE]

Joins the outputs of a sharded batch run (batch --shard 0/N ... --shard N-1/N, in any order)
into the output a single batch run over the whole log writes, byte for byte: entries in
trace_index order, in the parts' format (json or jsonl; all parts must share it). It streams
(a k-way merge), so memory stays flat whatever the parts' size. It fails, naming the file,
when a part is not a complete batch output, when two parts hold the same trace_index
(overlapping shards), or when an index is missing (a part left out). A part left out whose
traces all come after the others' (a log with fewer traces than shards) cannot be noticed.

Arguments:
  PART                    a batch output (json or jsonl), one per shard

Options:
  -o, --output FILE       write to FILE, creating parent directories (default: standard
                          output); FILE appears only once complete
  -h, --help              show this help

Example: score a log on four processes, then merge
  seq 0 3 | xargs -P 4 -I{} deno run --allow-read --allow-write cli.ts batch BUNDLE \\
    --traces log.csv --shard {}/4 -o parts/{}.json -q
  deno run --allow-read --allow-write cli.ts merge parts/*.json -o scores.json

Permissions: deno run --allow-read cli.ts merge ... (add --allow-write with --output).
`;

/**
 * The `merge` subcommand.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeCommand } from "./merge.ts";
 * assert.equal(mergeCommand.name, "merge");
 * ```
 */
export const mergeCommand: Command = {
  name: "merge",
  summary: "join the outputs of a sharded batch run (--shard I/N) into one",
  help: HELP,
  async run(args, io) {
    const { flags, positionals: paths } = parseArgs(args, OPTIONS);
    if (paths.length === 0) throw new UsageError("merge needs at least one PART file");
    const output = flags.output;
    if (output !== undefined) await checkOutput(output, paths);
    const parts: PartReader[] = [];
    try {
      for (const path of paths) parts.push(await PartReader.open(path));
      const format = parts[0]!.format;
      const other = parts.find((p) => p.format !== format);
      if (other !== undefined) {
        throw new InputError(
          `${parts[0]!.path} is ${format} but ${other.path} is ${other.format}; ` +
            `merge parts written with one --output-format`,
        );
      }
      const file = output === undefined ? undefined : await AtomicFile.create(output);
      const sink = openEntrySink(file, entryLayout(format), io.out);
      let count: number;
      try {
        count = await mergeParts(parts, (texts) => sink.write(texts));
        await sink.close();
      } catch (error) {
        await sink.abort();
        throw error;
      }
      io.err(
        `merge: ${count} ${count === 1 ? "entry" : "entries"} from ${paths.length} ` +
          `${paths.length === 1 ? "part" : "parts"}${output === undefined ? "" : ` -> ${output}`}`,
      );
      return 0;
    } finally {
      await Promise.all(parts.map((p) => p[Symbol.asyncDispose]()));
    }
  },
};

/** The output must not be one of the parts (it would be replaced while being read). */
async function checkOutput(output: string, paths: readonly string[]): Promise<void> {
  if (await sameFile(output, paths)) {
    throw new UsageError(`--output ${output} is one of the parts`);
  }
}

interface Head {
  readonly part: PartReader;
  entry: PartEntry;
}

/**
 * Writes the entries of `parts` in `trace_index` order, `CHUNK` at a time; returns their
 * number.
 */
async function mergeParts(
  parts: readonly PartReader[],
  write: (texts: string[]) => Promise<void>,
): Promise<number> {
  const heap = new HeadHeap();
  for (const part of parts) {
    const entry = await part.next();
    if (entry !== undefined) heap.push({ part, entry });
  }
  let expected = 0;
  let previous: PartReader | undefined;
  let texts: string[] = [];
  for (let head = heap.peek(); head !== undefined; head = heap.peek()) {
    const { index, text } = head.entry;
    if (index !== expected) {
      throw new InputError(
        index < expected
          ? `${previous?.path} and ${head.part.path} both hold trace_index ${index}; ` +
            `the parts overlap (merge each shard's output once)`
          : `no part holds trace_index ${expected} (the next is ${index}, in ` +
            `${head.part.path}); a part is missing`,
      );
    }
    expected++;
    previous = head.part;
    texts.push(text);
    if (texts.length >= CHUNK) {
      await write(texts);
      texts = [];
    }
    const next = await head.part.next();
    if (next === undefined) heap.pop();
    else {
      head.entry = next;
      heap.replaceTop();
    }
  }
  if (texts.length > 0) await write(texts);
  return expected;
}

/** A binary min-heap of the parts' current entries by `trace_index`. */
class HeadHeap {
  readonly #items: Head[] = [];

  peek(): Head | undefined {
    return this.#items[0];
  }

  push(head: Head): void {
    this.#items.push(head);
    let i = this.#items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#less(parent, i)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  pop(): void {
    const last = this.#items.pop()!;
    if (this.#items.length === 0) return;
    this.#items[0] = last;
    this.replaceTop();
  }

  /** Restores the order after the top's entry changed. */
  replaceTop(): void {
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < this.#items.length && this.#less(left, least)) least = left;
      if (right < this.#items.length && this.#less(right, least)) least = right;
      if (least === i) return;
      this.#swap(i, least);
      i = least;
    }
  }

  #less(a: number, b: number): boolean {
    return this.#items[a]!.entry.index < this.#items[b]!.entry.index;
  }

  #swap(a: number, b: number): void {
    [this.#items[a], this.#items[b]] = [this.#items[b]!, this.#items[a]!];
  }
}
