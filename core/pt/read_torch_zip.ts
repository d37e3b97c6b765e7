/**
 * The zip layer of a `torch.save` file: returns `data.pkl` and the `data/K` storages, skipping
 * other entries unread. Sizes are bounded in `fflate`'s per-entry filter, before any byte is
 * copied; a compressed entry is refused (torch stores entries), so no decompression ever runs;
 * every entry read must match its recorded CRC-32, as torch's own reader requires.
 *
 * @module
 */

import { unzipSync } from "fflate";
import { BundleError, messageOf } from "../bundle/bundle_error.ts";
import { PT_LIMITS, type PtLimits } from "./pt_limits.ts";
import { crc32, zipEntryCrcs } from "./zip_crc.ts";

/** What {@link readTorchZip} found in the archive. */
export interface TorchZip {
  /** The archive's top folder (the stem of the file when torch saved it). */
  readonly prefix: string;
  /** The bytes of `PREFIX/data.pkl`. */
  readonly pickle: Uint8Array;
  /** Storage key (`K` of `PREFIX/data/K`) -> its bytes. */
  readonly storages: ReadonlyMap<string, Uint8Array>;
}

const DATA_PKL = /^([^/]+)\/data\.pkl$/;
const STORAGE = /^([^/]+)\/data\/([0-9]{1,9})$/;

/**
 * Reads the entries of a `torch.save` zip that a PETRA model needs.
 *
 * @param name how messages name the file
 * @throws {BundleError} when the bytes are not a zip, an entry is compressed, truncated, too
 * large or fails its CRC-32 check, there are too many entries, or `data.pkl` is missing or
 * ambiguous.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readTorchZip } from "./read_torch_zip.ts";
 * const fixture = new URL("../../tests/fixtures/conformance/rest_serving/", import.meta.url);
 * const zip = readTorchZip(await Deno.readFile(new URL("model.pt", fixture)), "model.pt");
 * assert.equal(zip.prefix, "rest_serving");
 * assert.equal(zip.storages.size, 6); // one storage per trained parameter
 * assert.throws(() => readTorchZip(new TextEncoder().encode("not a zip"), "x.pt"), {
 *   message: /^Cannot load bundle: x\.pt is not a torch\.save zip archive/,
 * });
 * ```
 */
export function readTorchZip(
  bytes: Uint8Array,
  name: string,
  limits: PtLimits = PT_LIMITS,
): TorchZip {
  if (bytes.length > limits.maxFileBytes) {
    throw new BundleError(
      `${name} is ${bytes.length} bytes, over the ${limits.maxFileBytes} limit`,
    );
  }
  let entries = 0;
  let total = 0;
  const declared = new Map<string, number>();
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter(file) {
        entries += 1;
        if (entries > limits.maxEntries) {
          throw new ZipLimit(`has more than ${limits.maxEntries} zip entries`);
        }
        if (!DATA_PKL.test(file.name) && !STORAGE.test(file.name)) return false;
        if (file.compression !== 0) {
          throw new ZipLimit(
            `entry ${file.name} is compressed (method ${file.compression}); ` +
              "torch.save stores entries uncompressed",
          );
        }
        const size = file.originalSize;
        if (!Number.isSafeInteger(size) || size < 0 || size !== file.size) {
          throw new ZipLimit(`entry ${file.name} declares inconsistent sizes`);
        }
        if (size > limits.maxEntryBytes) {
          throw new ZipLimit(
            `entry ${file.name} is ${size} bytes, over the ${limits.maxEntryBytes} limit`,
          );
        }
        total += size;
        if (total > limits.maxTotalBytes) {
          throw new ZipLimit(`entries add up to over the ${limits.maxTotalBytes} byte limit`);
        }
        if (declared.has(file.name)) throw new ZipLimit(`entry ${file.name} appears twice`);
        declared.set(file.name, size);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof ZipLimit) throw new BundleError(`${name} ${error.message}`);
    // fflate's "invalid zip data" means it found no end-of-central-directory record.
    const why = /invalid zip data/.test(messageOf(error))
      ? "no zip end record: not a zip file, or a truncated one"
      : messageOf(error);
    throw new BundleError(`${name} is not a torch.save zip archive (${why})`);
  }
  for (const [entry, size] of declared) {
    // fflate clamps a stored entry that runs past the end of the file: that is truncation.
    if (files[entry]?.length !== size) {
      throw new BundleError(`${name} is truncated: entry ${entry} is cut short`);
    }
  }
  const recorded = zipEntryCrcs(bytes);
  for (const entry of declared.keys()) {
    const crc = recorded.get(entry);
    if (crc === undefined) {
      throw new BundleError(`${name}: the zip's central directory has no record of ${entry}`);
    }
    if (crc32(files[entry]!) !== crc) {
      throw new BundleError(
        `${name} is damaged: entry ${entry} does not match its CRC-32 checksum ` +
          "(the file changed after torch.save wrote it)",
      );
    }
  }
  return collect(files, name);
}

function collect(files: Record<string, Uint8Array>, name: string): TorchZip {
  const pickles = Object.keys(files).filter((entry) => DATA_PKL.test(entry));
  if (pickles.length === 0) {
    throw new BundleError(`${name} is not a torch.save archive: it has no data.pkl entry`);
  }
  if (pickles.length > 1) {
    throw new BundleError(`${name} holds ${pickles.length} data.pkl entries; expected one`);
  }
  const prefix = DATA_PKL.exec(pickles[0]!)![1]!;
  const storages = new Map<string, Uint8Array>();
  for (const [entry, data] of Object.entries(files)) {
    const match = STORAGE.exec(entry);
    if (match !== null && match[1] === prefix) storages.set(match[2]!, data);
  }
  return { prefix, pickle: files[pickles[0]!]!, storages };
}

/** A limit crossed inside fflate's filter, told apart from fflate's own errors. */
class ZipLimit extends Error {}
