/**
 * Hostile and broken `.pt` files built by the tests: other globals that would run code
 * (each REDUCE would create a marker file), opcodes outside the subset, misuse of allowed
 * globals, `__proto__` keys, deep nesting, a huge memo, compressed (zip-bomb) and oversized
 * entries, a damaged entry, missing and malformed parts. Each case names the reason its refusal must give.
 * Also the recorded files of `tests/fixtures/conformance/hostile_pt/` with the reasons their
 * refusals must give in process and through the CLI, and the marker file the recorded attack
 * would create.
 *
 * @module
 */

import { zipSync } from "fflate";
import { fixtureEntries, Pickle, torchZip } from "./pickles.ts";

/**
 * The file the recorded `hostile_pt/exec_os_system.pt` would create if its pickle ran
 * (`posix.system("touch /tmp/petri-serve-pwned")`).
 */
export const MARKER = "/tmp/petri-serve-pwned";

/** One recorded file of `tests/fixtures/conformance/hostile_pt/` and what its refusal must match. */
export interface RecordedHostile {
  readonly file: string;
  /** What `readPtModel`'s error must match (./hostile_test.ts). */
  readonly inProcess: RegExp;
  /** What the CLI's one stderr line must match (./hostile_cli_test.ts). */
  readonly cli: RegExp;
}

/** The four recorded hostile files. */
export const RECORDED_HOSTILE: readonly RecordedHostile[] = [
  {
    file: "exec_os_system.pt",
    inProcess: /pickle global 'posix system' is not allowed/,
    cli: /pickle global 'posix system' is not allowed/,
  },
  {
    file: "raw_not_a_zip.pt",
    inProcess: /is not a torch\.save zip archive/,
    cli: /is not a torch\.save zip archive/,
  },
  {
    file: "state_dict_only.pt",
    inProcess: /the pickle holds a dict, not a PETRA PetriNetModule/,
    cli: /not a PETRA PetriNetModule/,
  },
  {
    file: "truncated.pt",
    inProcess: /not a zip file, or a truncated one/,
    cli: /a truncated one/,
  },
];

/** One hostile file and the reason its refusal must state. */
export interface HostileCase {
  readonly name: string;
  /** The `.pt` file's bytes. */
  readonly pt: Uint8Array;
  /** What the one-line error must match. */
  readonly reason: RegExp;
}

/** A pickle that, run by Python's `pickle.loads`, calls `module.name(argument)`. */
function callGlobal(module: string, name: string, argument: string | string[]): Uint8Array {
  const pickle = new Pickle().proto().global(module, name);
  if (typeof argument === "string") {
    pickle.unicode(argument);
  } else {
    pickle.emptyList();
    for (const item of argument) pickle.unicode(item).append();
  }
  return pickle.tuple1().reduce().stop().bytes();
}

function asPt(pickle: Uint8Array): Uint8Array {
  return torchZip("model", { "data.pkl": pickle, "version": new TextEncoder().encode("3\n") });
}

/** Every built case; `marker` is a path a successful attack would create. */
export async function hostileCases(marker: string): Promise<HostileCase[]> {
  const touch = `touch ${marker}`;
  // Each argument makes the call create the marker under Python's own unpickler.
  const global = (module: string, name: string, argument: string | string[] = touch) => ({
    name: `global ${module}.${name}`,
    pt: asPt(callGlobal(module, name, argument)),
    reason: new RegExp(`pickle global '${module} ${name}' is not allowed`),
  });
  const evalTouch = `__import__('os').system(${JSON.stringify(touch)})`;
  const depth = 100_000;
  const nested = new Pickle().proto();
  for (let i = 0; i < depth; i++) nested.emptyList();
  for (let i = 0; i < depth - 1; i++) nested.append();
  const marks = new Pickle().proto();
  for (let i = 0; i < depth; i++) marks.mark();
  const memo = new Pickle().proto().emptyList();
  for (let i = 0; i <= 1_000_000; i++) memo.longBinput(i);

  const real = await fixtureEntries("rest_serving");
  const bomb = zipSync({
    "model/data.pkl": [new Uint8Array(32 * 1024 * 1024), { level: 9 }],
  });
  const oversized = declareSize(asPt(new Pickle().proto().emptyDict().stop().bytes()), 300e6);
  const many: Record<string, Uint8Array> = { "data.pkl": real["data.pkl"]! };
  for (let i = 0; i < 100_000; i++) many[`extra/${i}`] = new Uint8Array(0);
  const withoutStorage = { ...real };
  delete withoutStorage["data/0"];

  return [
    global("os", "system"),
    global("posix", "system"),
    global("builtins", "eval", evalTouch),
    global("__builtin__", "eval", evalTouch),
    global("builtins", "exec", evalTouch),
    global("subprocess", "Popen", ["touch", marker]),
    global("subprocess", "check_call", ["touch", marker]),
    global("torch", "load"),
    {
      name: "opcode INST",
      pt: asPt(
        new Pickle().proto().mark().unicode(touch).raw(0x69).raw(
          ...new TextEncoder().encode("os\nsystem\n"),
        ).stop().bytes(),
      ),
      reason: /pickle opcode INST \(0x69\) is not allowed/,
    },
    {
      name: "opcode STACK_GLOBAL",
      pt: asPt(new Pickle().proto().unicode("os").unicode("system").raw(0x93).stop().bytes()),
      reason: /pickle opcode STACK_GLOBAL \(0x93\) is not allowed/,
    },
    {
      name: "protocol 4",
      pt: asPt(new Pickle().proto(4).emptyDict().stop().bytes()),
      reason: /pickle protocol 4 is not supported/,
    },
    {
      name: "an allowed class applied by REDUCE",
      pt: asPt(
        new Pickle().proto().global("petri_net_nn.compiler", "PetriNetModule").unicode(touch)
          .tuple1().reduce().stop().bytes(),
      ),
      reason: /REDUCE of 'petri_net_nn\.compiler PetriNetModule', which is not applied/,
    },
    {
      name: "an allowed function applied by REDUCE",
      pt: asPt(
        new Pickle().proto().global("petri_net_nn.compiler", "_fire_sigmoid").unicode(touch)
          .tuple1().reduce().stop().bytes(),
      ),
      reason: /REDUCE of 'petri_net_nn\.compiler _fire_sigmoid', which is not applied/,
    },
    {
      name: "OrderedDict with arguments",
      pt: asPt(
        new Pickle().proto().global("collections", "OrderedDict").emptyList().tuple1().reduce()
          .stop().bytes(),
      ),
      reason: /'collections OrderedDict' with arguments/,
    },
    {
      name: "a __proto__ key in a state dict",
      pt: asPt(
        new Pickle().proto().emptyDict().unicode("__proto__").emptyDict().unicode("polluted")
          .raw(0x88).setitem().setitem().stop().bytes(),
      ),
      reason: /the pickle holds a dict, not a PETRA PetriNetModule/,
    },
    {
      name: "a __proto__ key in a module's BUILD state",
      pt: asPt(
        new Pickle().proto().global("petri_net_nn.compiler", "PetriNetModule").emptyTuple()
          .newobj().emptyDict().unicode("__proto__").emptyDict().unicode("net").raw(0x88)
          .setitem().setitem().build().stop().bytes(),
      ),
      reason: /the PetriNetModule has no net field/,
    },
    {
      name: "lists nested 100000 deep",
      pt: asPt(nested.stop().bytes()),
      reason: /the pickle nests deeper than 64 levels/,
    },
    {
      name: "MARKs nested 100000 deep",
      pt: asPt(marks.stop().bytes()),
      reason: /the pickle nests deeper than 64 levels/,
    },
    {
      name: "a memo of over a million entries",
      pt: asPt(memo.stop().bytes()),
      reason: /the pickle memo grows past 1000000 entries/,
    },
    {
      name: "a memo read before it is written",
      pt: asPt(new Pickle().proto().binget(7).stop().bytes()),
      reason: /memo entry 7 is read before it is written/,
    },
    {
      name: "a pickle cut short",
      pt: asPt(real["data.pkl"]!.subarray(0, 300)),
      reason: /truncated/,
    },
    {
      name: "a zip bomb (a deflated 32 MiB entry)",
      pt: bomb,
      reason: /entry model\/data\.pkl is compressed \(method 8\)/,
    },
    {
      name: "an entry declaring 300 MB",
      pt: oversized,
      reason: /entry model\/data\.pkl is 300000000 bytes, over the 67108864 limit/,
    },
    {
      name: "100001 zip entries (counted by a zip64 end record)",
      pt: withZip64End(torchZip("model", many)),
      reason: /has more than 100000 zip entries/,
    },
    {
      name: "a zip without data.pkl",
      pt: torchZip("model", { "version": new TextEncoder().encode("3\n") }),
      reason: /it has no data\.pkl entry/,
    },
    {
      name: "a parameter whose storage entry is missing",
      pt: torchZip("model", withoutStorage),
      reason: /storage entry data\/0 is missing/,
    },
    {
      name: "a parameter whose bytes changed after torch.save (CRC-32 mismatch)",
      pt: flipLastByte(torchZip("model", real), "model/data/0"),
      reason: /entry model\/data\/0 does not match its CRC-32 checksum/,
    },
    {
      name: "a parameter whose storage entry has the wrong size",
      pt: torchZip("model", { ...real, "data/0": new Uint8Array(8) }),
      reason: /storage entry data\/0 is 8 bytes, expected 4/,
    },
  ];
}

/** Flips the bits of the last byte of stored entry `name`, leaving its recorded CRC-32. */
function flipLastByte(zip: Uint8Array, name: string): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  const wanted = new TextEncoder().encode(name);
  for (let at = 0; at + 30 <= out.length; at++) {
    if (view.getUint32(at, true) !== 0x04034b50) continue;
    const nameLength = view.getUint16(at + 26, true);
    const found = out.subarray(at + 30, at + 30 + nameLength);
    if (nameLength !== wanted.length || !found.every((b, i) => b === wanted[i])) continue;
    const start = at + 30 + nameLength + view.getUint16(at + 28, true);
    const size = view.getUint32(at + 18, true);
    out[start + size - 1] = out[start + size - 1]! ^ 0xff;
    return out;
  }
  throw new Error(`no local header for ${name}`);
}

/** Sets both sizes of every central-directory record (the local headers keep the truth). */
function declareSize(zip: Uint8Array, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  for (let at = 0; at + 46 <= out.length; at++) {
    if (view.getUint32(at, true) !== 0x02014b50) continue;
    view.setUint32(at + 20, size, true);
    view.setUint32(at + 24, size, true);
  }
  return out;
}

/**
 * Adds a zip64 end record and its locator before the end record, as torch writes them, so the
 * entry count is not cut to 16 bits (fflate's writer has no zip64).
 */
function withZip64End(zip: Uint8Array): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (view.getUint32(end, true) !== 0x06054b50) end--;
  const cdSize = view.getUint32(end + 12, true);
  const cdOffset = view.getUint32(end + 16, true);
  let count = 0;
  for (let at = cdOffset; at < cdOffset + cdSize; count++) {
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) +
      view.getUint16(at + 32, true);
  }
  const record = new DataView(new ArrayBuffer(56 + 20));
  record.setUint32(0, 0x06064b50, true);
  record.setBigUint64(4, 44n, true);
  record.setUint16(12, 45, true);
  record.setUint16(14, 45, true);
  record.setBigUint64(24, BigInt(count), true);
  record.setBigUint64(32, BigInt(count), true);
  record.setBigUint64(40, BigInt(cdSize), true);
  record.setBigUint64(48, BigInt(cdOffset), true);
  record.setUint32(56, 0x07064b50, true);
  record.setBigUint64(64, BigInt(end), true);
  record.setUint32(72, 1, true);
  const out = new Uint8Array(zip.length + 76);
  out.set(zip.subarray(0, end));
  out.set(new Uint8Array(record.buffer), end);
  out.set(zip.subarray(end), end + 76);
  return out;
}
