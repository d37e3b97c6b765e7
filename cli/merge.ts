/**
 * `cli.ts merge PART... [-o FILE]`: joins the parts of a sharded `batch` run into the output
 * one whole run writes, byte for byte, streaming so memory holds one entry a part. Every check
 * (all shards there, one log, one model, range shards chaining end to start) comes before
 * anything is written.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeCommand } from "./merge.ts";
 * const dir = await Deno.makeTempDir();
 * // The jsonl parts of a `batch --shard 0/2` and `--shard 1/2` run (modulo, on a CSV log).
 * const part = (index: number, entries: string, traces: number) =>
 *   `{"petri_serve_part":{"count":2,"format":"csv","index":${index},"mode":"modulo"}}\n` +
 *   entries +
 *   `{"petri_serve_part_end":{"log_head":"ab","log_size":9,"model":"cd","traces":${traces}}}\n`;
 * await Deno.writeTextFile(`${dir}/0.jsonl`, part(0, '{"trace_index":0}\n{"trace_index":2}\n', 2));
 * await Deno.writeTextFile(`${dir}/1.jsonl`, part(1, '{"trace_index":1}\n', 1));
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
import { entryLayout, type OutputFormat } from "../core/log_scoring/mod.ts";
import { openEntrySink } from "./batch/entry_sink.ts";
import { type PartEntry, PartReader } from "./batch/part_reader.ts";
import { PART_KEY, type PartTrailer, type RangeHeader, renumberEntry } from "./batch/part_meta.ts";

const OPTIONS = { output: { type: "string", short: "o" } } as const;
/** Entries written a time. */
const CHUNK = 512;

const HELP = `Usage: cli.ts merge PART... [-o FILE]

Joins the parts of a sharded batch run (batch --shard 0/N ... --shard N-1/N, in any order)
into the output a single batch run over the whole log writes, byte for byte, in the parts'
format (json or jsonl; all parts must share it). It streams, so memory stays flat whatever
the parts' size. Two kinds of parts (see 'cli.ts batch --help', Sharding):
  range   (XES, JSON, JSONL logs) each part says which shard of which log it is and where
          its traces start and end in the log; merge checks that the N shards are all there
          and that each starts where the one before ended, before writing anything, then
          writes the parts in shard order, numbering the traces across them
  modulo  (CSV, gzip, stdin) each part says which shard it is; merge checks that the N
          shards are all there, then merges the entries in trace_index order (it fails
          when two parts hold the same trace_index, or an index is missing)
Each part's last entry names the log it was scored from (its size, the SHA-256 of its
first 64 KiB, and from a URL its ETag) and the model (its onnx_sha256); merge refuses,
naming two parts, when they differ, and when a part is not a complete shard's part (a
whole run's output included). These checks come before anything is written.

Arguments:
  PART                    a batch --shard output (json or jsonl), one per shard

Options:
  -o, --output FILE       write to FILE, creating parent directories (default: standard
                          output); FILE appears only once complete
  -h, --help              show this help

Example: score a log on four processes, then merge
  seq 0 3 | xargs -P 4 -I{} deno run --allow-read --allow-write cli.ts batch BUNDLE \\
    --traces log.xes --shard {}/4 -o parts/{}.json -q
  deno run --allow-read --allow-write cli.ts merge parts/*.json -o scores.json

Permissions: deno run --allow-read cli.ts merge ... (add --allow-write with --output).
`;

/** The `merge` subcommand. */
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
      const plain = parts.find((p) => p.header === undefined);
      if (plain !== undefined) {
        throw new InputError(
          `${plain.path} is not a shard's part (it has no ${PART_KEY} header entry: a whole ` +
            `run's output, or a part written by another version of petri-serve); merge the ` +
            `parts of one batch --shard run`,
        );
      }
      const mode = parts[0]!.header!.mode;
      const mixed = parts.find((p) => p.header!.mode !== mode);
      if (mixed !== undefined) {
        throw new InputError(
          `${parts[0]!.path} is a ${mode} shard's part but ${mixed.path} a ` +
            `${mixed.header!.mode} shard's; merge the parts of one sharded run`,
        );
      }
      const trailers = await checkIdentity(parts);
      const order = mode === "range" ? rangeOrder(parts, trailers) : moduloOrder(parts);
      const file = output === undefined ? undefined : await AtomicFile.create(output);
      const sink = openEntrySink(file, entryLayout(format), io.out);
      let count: number;
      try {
        const write = (texts: string[]) => sink.write(texts);
        count = order === undefined
          ? await mergeParts(parts, trailers, write)
          : await concatRanges(order, format, write);
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
  trailers: ReadonlyMap<PartReader, PartTrailer>,
  write: (texts: string[]) => Promise<void>,
): Promise<number> {
  const counts = new Map(parts.map((part) => [part, 0]));
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
    counts.set(head.part, counts.get(head.part)! + 1);
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
  for (const part of parts) checkCount(part, trailers.get(part)!, counts.get(part)!);
  return expected;
}

/** The part's trailer (read at its end) must be the one read first and count its entries. */
function checkCount(part: PartReader, trailer: PartTrailer, entries: number): void {
  const read = part.trailer!;
  if (read.traces !== entries || read.end !== trailer.end || read.logHead !== trailer.logHead) {
    throw new InputError(
      `${part.path}: its trailer counts ${read.traces} traces but the part holds ${entries}`,
    );
  }
}

/**
 * Every part's trailer, read from its end before anything is written, and the check that all
 * were scored from one log (its size, head digest and ETag) with one model.
 */
async function checkIdentity(
  parts: readonly PartReader[],
): Promise<Map<PartReader, PartTrailer>> {
  const trailers = new Map<PartReader, PartTrailer>();
  for (const part of parts) {
    const trailer = await part.trailerFromTail();
    if (trailer === undefined) {
      throw new InputError(`${part.path}: not a complete shard's part: no trailer entry`);
    }
    trailers.set(part, trailer);
  }
  const first = parts[0]!;
  const a = trailers.get(first)!;
  for (const part of parts.slice(1)) {
    const b = trailers.get(part)!;
    if (a.model !== b.model) {
      throw new InputError(
        `${first.path} was scored with the model ${short(a.model)} but ${part.path} with ` +
          `${short(b.model)} (their bundles' onnx_sha256); merge the parts of one run`,
      );
    }
    if (a.logSize !== b.logSize || a.logHead !== b.logHead || a.logEtag !== b.logEtag) {
      throw new InputError(
        `${first.path} was scored from ${logName(a)} but ${part.path} from ${logName(b)}; ` +
          `merge the parts of one run over one log`,
      );
    }
  }
  return trailers;
}

function short(digest: string): string {
  return digest.length > 12 ? `${digest.slice(0, 12)}…` : digest;
}

/** A log as a message names it: its size, head digest and ETag. */
function logName(trailer: PartTrailer): string {
  const etag = trailer.logEtag === undefined ? "" : ` and ETag ${trailer.logEtag}`;
  return `a ${trailer.logSize}-byte log whose first 64 KiB hash to ${
    short(trailer.logHead)
  }${etag}`;
}

/**
 * Modulo shards' parts, checked before anything is written: one part for each shard 0 … N-1,
 * all of the same N and log format.
 */
function moduloOrder(parts: readonly PartReader[]): undefined {
  const first = parts[0]!;
  const { count, format } = first.header!;
  const byIndex = new Map<number, PartReader>();
  for (const part of parts) {
    const header = part.header!;
    if (header.count !== count || header.format !== format) {
      throw new InputError(
        `${first.path} is shard ${first.header!.index}/${count} of a ${format} log but ` +
          `${part.path} is shard ${header.index}/${header.count} of a ${header.format} log; ` +
          `merge the parts of one sharded run`,
      );
    }
    const twin = byIndex.get(header.index);
    if (twin !== undefined) {
      throw new InputError(
        `${twin.path} and ${part.path} are both shard ${header.index}/${count} ` +
          `(merge each shard's part once)`,
      );
    }
    byIndex.set(header.index, part);
  }
  for (let index = 0; index < count; index++) {
    if (!byIndex.has(index)) {
      throw new InputError(`no part is shard ${index}/${count}; a part is missing`);
    }
  }
  return undefined;
}

/** A range shard's part with its header and trailer. */
interface RangePart {
  readonly part: PartReader;
  readonly header: RangeHeader;
  readonly trailer: PartTrailer & { readonly end: number };
}

/**
 * Range shards' parts in shard order, checked before anything is written: one part for each
 * shard of one log, each starting where the one before ended (by induction from shard 0, whose
 * start is exact, every shard started at a true trace boundary), the last at the log's end.
 */
function rangeOrder(
  parts: readonly PartReader[],
  trailers: ReadonlyMap<PartReader, PartTrailer>,
): RangePart[] {
  const first = parts[0]!;
  const { count, format, size } = first.header! as RangeHeader;
  const byIndex = new Map<number, RangePart>();
  for (const part of parts) {
    const header = part.header! as RangeHeader;
    if (header.count !== count || header.size !== size || header.format !== format) {
      throw new InputError(
        `${first.path} is shard ${first.header!.index}/${count} of a ${size}-byte ${format} ` +
          `log but ${part.path} is shard ${header.index}/${header.count} of a ${header.size}-byte ` +
          `${header.format} log; merge the parts of one sharded run`,
      );
    }
    const twin = byIndex.get(header.index);
    if (twin !== undefined) {
      throw new InputError(
        `${twin.part.path} and ${part.path} are both shard ${header.index}/${count} ` +
          `(merge each shard's part once)`,
      );
    }
    const trailer = trailers.get(part)!;
    if (trailer.end === undefined) {
      throw new InputError(`${part.path}: its trailer entry has no 'end' (a range shard's has)`);
    }
    byIndex.set(header.index, { part, header, trailer: { ...trailer, end: trailer.end } });
  }
  const ordered: RangePart[] = [];
  for (let index = 0; index < count; index++) {
    const part = byIndex.get(index);
    if (part === undefined) {
      throw new InputError(`no part is shard ${index}/${count}; a part is missing`);
    }
    const before = ordered.at(-1);
    if (before !== undefined && before.trailer.end !== part.header.start) {
      throw new InputError(
        `shards ${before.header.index}/${count} (${before.part.path}) and ${index}/${count} ` +
          `(${part.part.path}) disagree where their traces meet: one ends at byte ` +
          `${before.trailer.end}, the next starts at byte ${part.header.start}. A shard's scan ` +
          `for its first trace was misled (a comment, CDATA section or entry longer than ` +
          `64 KiB holding trace markup; see docs/batch.md): run the shards with ` +
          `--shard-mode modulo`,
      );
    }
    ordered.push(part);
  }
  const last = ordered.at(-1)!;
  if (last.trailer.end !== size) {
    throw new InputError(
      `${last.part.path} (shard ${count - 1}/${count}) ends at byte ${last.trailer.end}, ` +
        `before the log's end (${size} bytes)`,
    );
  }
  return ordered;
}

/**
 * Writes the entries of range shards' parts, shard after shard, each `trace_index` (and the
 * `trace N:` of an error) renumbered from the part's own to the log's; returns their number.
 */
async function concatRanges(
  parts: readonly RangePart[],
  format: OutputFormat,
  write: (texts: string[]) => Promise<void>,
): Promise<number> {
  let offset = 0;
  let texts: string[] = [];
  for (const { part, trailer } of parts) {
    let local = 0;
    for (let entry = await part.next(); entry !== undefined; entry = await part.next()) {
      try {
        texts.push(renumberEntry(entry.text, format, local, offset + local));
      } catch (error) {
        throw new InputError(`${part.path}: entry ${local + 1}: ${(error as Error).message}`);
      }
      local++;
      if (texts.length >= CHUNK) {
        await write(texts);
        texts = [];
      }
    }
    checkCount(part, trailer, local);
    offset += local;
  }
  if (texts.length > 0) await write(texts);
  if (offset === 0) {
    throw new InputError(
      `the parts hold no traces: no trace was parsed from the log (as a whole run would say)`,
    );
  }
  return offset;
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
