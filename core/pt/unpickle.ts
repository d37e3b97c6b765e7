/**
 * A pickle machine for the protocol-2 subset `torch.save` writes for a PETRA model, and no
 * more: only the opcodes of `OP` run, only the globals of {@link ALLOWED_GLOBALS} appear (each
 * a record or a data builder written here, nothing looked up by a name from the file), dicts
 * are `Map`s so no key reaches a prototype, and every cost is bounded by {@link PtLimits}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unpickle } from "./unpickle.ts";
 * // protocol 2: EMPTY_DICT, STOP
 * assert.deepEqual(unpickle(new Uint8Array([0x80, 2, 0x7d, 0x2e])), new Map());
 * ```
 *
 * @module
 */

import { PT_LIMITS, type PtLimits } from "./pt_limits.ts";
import {
  type GlobalRole,
  type PickleValue,
  PyGlobal,
  PyObject,
  PySet,
  PyStorage,
  PyTensor,
  PyTuple,
  typeOfValue,
} from "./pickle_values.ts";

/** The globals a PETRA bundle uses, and the role each plays (see {@link GlobalRole}). */
export const ALLOWED_GLOBALS: ReadonlyMap<string, GlobalRole> = new Map<string, GlobalRole>([
  ["petri_net_nn.compiler PetriNetModule", "class"],
  ["petri_net_nn.petri_net PetriNet", "class"],
  ["torch.nn.modules.container ParameterDict", "class"],
  ["collections OrderedDict", "dict"],
  ["__builtin__ set", "set"],
  ["torch._utils _rebuild_tensor_v2", "tensor"],
  ["torch._utils _rebuild_parameter", "parameter"],
  ["torch FloatStorage", "storage"],
  ["petri_net_nn.compiler _fire_sigmoid", "function"],
  ["petri_net_nn.compiler _fire_ste", "function"],
]);

/** Opcode byte -> name, for the opcodes this machine runs. */
const OP = {
  PROTO: 0x80,
  STOP: 0x2e, // .
  MARK: 0x28, // (
  BINPUT: 0x71, // q
  LONG_BINPUT: 0x72, // r
  BINGET: 0x68, // h
  LONG_BINGET: 0x6a, // j
  NONE: 0x4e, // N
  NEWTRUE: 0x88,
  NEWFALSE: 0x89,
  BININT: 0x4a, // J
  BININT1: 0x4b, // K
  BININT2: 0x4d, // M
  LONG1: 0x8a,
  BINFLOAT: 0x47, // G
  BINUNICODE: 0x58, // X
  EMPTY_TUPLE: 0x29, // )
  TUPLE: 0x74, // t
  TUPLE1: 0x85,
  TUPLE2: 0x86,
  TUPLE3: 0x87,
  EMPTY_LIST: 0x5d, // ]
  APPEND: 0x61, // a
  APPENDS: 0x65, // e
  EMPTY_DICT: 0x7d, // }
  SETITEM: 0x73, // s
  SETITEMS: 0x75, // u
  GLOBAL: 0x63, // c
  NEWOBJ: 0x81,
  REDUCE: 0x52, // R
  BUILD: 0x62, // b
  BINPERSID: 0x51, // Q
} as const;

/** Names of opcodes outside the subset, so a refusal can say what the file asked for. */
const OTHER_OPCODES: Readonly<Record<number, string>> = {
  0x69: "INST",
  0x6f: "OBJ",
  0x92: "NEWOBJ_EX",
  0x93: "STACK_GLOBAL",
  0x50: "PERSID",
  0x49: "INT",
  0x4c: "LONG",
  0x46: "FLOAT",
  0x53: "STRING",
  0x54: "BINSTRING",
  0x55: "SHORT_BINSTRING",
  0x56: "UNICODE",
  0x8c: "SHORT_BINUNICODE",
  0x8d: "BINUNICODE8",
  0x8e: "BINBYTES8",
  0x42: "BINBYTES",
  0x43: "SHORT_BINBYTES",
  0x8b: "LONG4",
  0x64: "DICT",
  0x6c: "LIST",
  0x30: "POP",
  0x31: "POP_MARK",
  0x32: "DUP",
  0x67: "GET",
  0x70: "PUT",
  0x94: "MEMOIZE",
  0x95: "FRAME",
  0x8f: "EMPTY_SET",
  0x90: "ADDITEMS",
  0x91: "FROZENSET",
  0x82: "EXT1",
  0x83: "EXT2",
  0x84: "EXT4",
  0x96: "BYTEARRAY8",
  0x97: "NEXT_BUFFER",
  0x98: "READONLY_BUFFER",
};

/** A pickle the machine refuses: the message names the opcode, global or limit, and the offset. */
export class PickleError extends Error {
  /** Builds the error; `offset` is the opcode's position in the pickle. */
  constructor(detail: string, offset: number) {
    super(`${detail} (at byte ${offset})`);
    this.name = "PickleError";
  }
}

/**
 * Runs a pickle through the restricted machine and returns the value it builds.
 *
 * @throws {PickleError} for any opcode or global outside the subset, a malformed stream,
 * misuse of an allowed global, or a crossed limit.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unpickle } from "./unpickle.ts";
 * // GLOBAL 'os system' is refused before anything else happens.
 * const bytes = Uint8Array.of(0x80, 2, ...new TextEncoder().encode("cos\nsystem\n."));
 * assert.throws(() => unpickle(bytes), {
 *   message: "pickle global 'os system' is not allowed (only PETRA's own classes are read) (at byte 2)",
 * });
 * ```
 */
export function unpickle(bytes: Uint8Array, limits: PtLimits = PT_LIMITS): PickleValue {
  if (bytes.length > limits.maxPickleBytes) {
    throw new PickleError(
      `the pickle is ${bytes.length} bytes, over the ${limits.maxPickleBytes} limit`,
      0,
    );
  }
  return new Machine(bytes, limits).run();
}

type Slot = PickleValue | typeof MARK_SLOT;
const MARK_SLOT: unique symbol = Symbol("mark");

class Machine {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  readonly #limits: PtLimits;
  readonly #memo = new Map<number, PickleValue>();
  readonly #depth = new WeakMap<object, number>();
  readonly #stack: Slot[] = [];
  #marks = 0;
  #pos = 0;
  #at = 0;

  constructor(bytes: Uint8Array, limits: PtLimits) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#limits = limits;
  }

  run(): PickleValue {
    while (this.#pos < this.#bytes.length) {
      this.#at = this.#pos;
      const code = this.#u8();
      if (code === OP.STOP) {
        if (this.#marks !== 0 || this.#stack.length !== 1) {
          this.#fail("STOP with an unbalanced stack");
        }
        return this.#pop();
      }
      this.#step(code);
    }
    return this.#fail("the pickle ends without STOP (truncated)");
  }

  #step(code: number): void {
    switch (code) {
      case OP.PROTO: {
        const version = this.#u8();
        if (version !== 2) this.#fail(`pickle protocol ${version} is not supported (expected 2)`);
        return;
      }
      case OP.MARK:
        if (this.#marks >= this.#limits.maxDepth) this.#tooDeep();
        this.#marks += 1;
        return this.#push(MARK_SLOT);
      case OP.BINPUT:
        return this.#put(this.#u8());
      case OP.LONG_BINPUT:
        return this.#put(this.#u32());
      case OP.BINGET:
        return this.#get(this.#u8());
      case OP.LONG_BINGET:
        return this.#get(this.#u32());
      case OP.NONE:
        return this.#push(null);
      case OP.NEWTRUE:
        return this.#push(true);
      case OP.NEWFALSE:
        return this.#push(false);
      case OP.BININT:
        return this.#push(this.#take(4, (v, at) => v.getInt32(at, true)));
      case OP.BININT1:
        return this.#push(this.#u8());
      case OP.BININT2:
        return this.#push(this.#take(2, (v, at) => v.getUint16(at, true)));
      case OP.LONG1:
        return this.#push(this.#long1());
      case OP.BINFLOAT:
        return this.#push(this.#take(8, (v, at) => v.getFloat64(at, false)));
      case OP.BINUNICODE:
        return this.#push(this.#unicode());
      case OP.EMPTY_TUPLE:
        return this.#push(new PyTuple([]));
      case OP.TUPLE:
        return this.#push(this.#container(new PyTuple(this.#popMark())));
      case OP.TUPLE1:
      case OP.TUPLE2:
      case OP.TUPLE3: {
        const n = code - OP.TUPLE1 + 1;
        const items: PickleValue[] = [];
        for (let i = 0; i < n; i++) items.unshift(this.#pop());
        return this.#push(this.#container(new PyTuple(items)));
      }
      case OP.EMPTY_LIST:
        return this.#push([]);
      case OP.APPEND: {
        const value = this.#pop();
        return this.#extend(this.#top(), [value]);
      }
      case OP.APPENDS: {
        const values = this.#popMark();
        return this.#extend(this.#top(), values);
      }
      case OP.EMPTY_DICT:
        return this.#push(new Map());
      case OP.SETITEM: {
        const value = this.#pop();
        const key = this.#pop();
        return this.#setItems(this.#top(), [key, value]);
      }
      case OP.SETITEMS: {
        const items = this.#popMark();
        return this.#setItems(this.#top(), items);
      }
      case OP.GLOBAL:
        return this.#push(this.#global());
      case OP.NEWOBJ:
        return this.#newObj();
      case OP.REDUCE:
        return this.#reduce();
      case OP.BUILD:
        return this.#build();
      case OP.BINPERSID:
        return this.#push(this.#persistent(this.#pop()));
      default: {
        // Every opcode of OP has its case above (STOP is handled by run), so this is one outside.
        const name = OTHER_OPCODES[code];
        const hex = `0x${code.toString(16).padStart(2, "0")}`;
        this.#fail(
          name === undefined
            ? `byte ${hex} is not a pickle opcode`
            : `pickle opcode ${name} (${hex}) is not allowed`,
        );
      }
    }
  }

  // -- globals and the data builders they stand for ----------------------------------------

  #global(): PyGlobal {
    const module = this.#line();
    const name = this.#line();
    const full = `${module} ${name}`;
    const role = ALLOWED_GLOBALS.get(full);
    if (role === undefined) {
      this.#fail(
        `pickle global ${quote(full)} is not allowed (only PETRA's own classes are read)`,
      );
    }
    return new PyGlobal(full, role);
  }

  #newObj(): void {
    const args = this.#pop();
    const cls = this.#pop();
    if (!(cls instanceof PyGlobal) || cls.role !== "class") {
      this.#fail(`NEWOBJ on ${typeOfValue(cls)}, which is not an allowed class`);
    }
    if (!(args instanceof PyTuple) || args.items.length !== 0) {
      this.#fail(`NEWOBJ of ${quote(cls.name)} with arguments; expected none`);
    }
    this.#push(new PyObject(cls.name));
  }

  #reduce(): void {
    const args = this.#pop();
    const fn = this.#pop();
    if (!(fn instanceof PyGlobal)) this.#fail(`REDUCE on ${typeOfValue(fn)}`);
    if (!(args instanceof PyTuple)) {
      this.#fail(`REDUCE of ${quote(fn.name)} without an argument tuple`);
    }
    const a = args.items;
    switch (fn.role) {
      case "dict":
        if (a.length !== 0) this.#fail(`${quote(fn.name)} with arguments; expected none`);
        return this.#push(new Map());
      case "set": {
        const items = a[0];
        if (a.length !== 1 || !Array.isArray(items)) {
          this.#fail(`${quote(fn.name)} takes one list`);
        }
        return this.#push(this.#container(new PySet([...items])));
      }
      case "tensor":
        return this.#push(this.#tensor(fn.name, a));
      case "parameter": {
        const [tensor, grad, hooks] = a;
        if (
          a.length !== 3 || !(tensor instanceof PyTensor) || typeof grad !== "boolean" ||
          !isEmptyDict(hooks)
        ) {
          this.#fail(`${quote(fn.name)} takes (tensor, bool, empty dict)`);
        }
        return this.#push(tensor);
      }
      default:
        this.#fail(`REDUCE of ${quote(fn.name)}, which is not applied by this reader`);
    }
  }

  /** `_rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])`. */
  #tensor(name: string, a: readonly PickleValue[]): PyTensor {
    const [storage, offset, size, stride, grad, hooks, metadata] = a;
    const ints = (v: PickleValue | undefined): number[] | undefined =>
      v instanceof PyTuple && v.items.every(isCount) ? v.items as number[] : undefined;
    const shape = ints(size);
    const strides = ints(stride);
    if (
      (a.length !== 6 && a.length !== 7) || !(storage instanceof PyStorage) ||
      !isCount(offset) || shape === undefined || strides === undefined ||
      shape.length !== strides.length || typeof grad !== "boolean" || !isEmptyDict(hooks) ||
      (a.length === 7 && !isEmptyDict(metadata))
    ) {
      this.#fail(`${quote(name)} with arguments other than a plain tensor's`);
    }
    return new PyTensor(storage, offset, [...shape]);
  }

  /** torch's persistent id: `('storage', StorageType, key, location, numel)`. */
  #persistent(pid: PickleValue): PyStorage {
    const [tag, type, key, location, numel] = pid instanceof PyTuple ? pid.items : [];
    if (
      !(pid instanceof PyTuple) || pid.items.length !== 5 || tag !== "storage" ||
      !(type instanceof PyGlobal) || type.role !== "storage" || typeof key !== "string" ||
      !/^[0-9]{1,9}$/.test(key) || typeof location !== "string" || !isCount(numel)
    ) {
      this.#fail("persistent id is not a torch storage reference");
    }
    return new PyStorage(type.name, key, numel);
  }

  #build(): void {
    const state = this.#pop();
    const target = this.#top();
    if (!(target instanceof PyObject)) this.#fail(`BUILD on ${typeOfValue(target)}`);
    if (target.state !== undefined) this.#fail(`BUILD twice on ${quote(target.className)}`);
    if (!(state instanceof Map)) {
      this.#fail(`BUILD of ${quote(target.className)} with ${typeOfValue(state)}, not a dict`);
    }
    target.state = state;
  }

  // -- containers ------------------------------------------------------------------------

  #extend(list: PickleValue, values: PickleValue[]): void {
    if (!Array.isArray(list)) this.#fail(`APPEND to ${typeOfValue(list)}`);
    for (const value of values) {
      if (list.length >= this.#limits.maxStack) this.#fail("a list is too long");
      list.push(value);
      this.#nest(list, value);
    }
  }

  #setItems(dict: PickleValue, items: PickleValue[]): void {
    if (!(dict instanceof Map)) this.#fail(`SETITEM on ${typeOfValue(dict)}`);
    if (items.length % 2 !== 0) this.#fail("SETITEMS with an odd number of items");
    for (let i = 0; i < items.length; i += 2) {
      const key = items[i]!;
      if (!isHashable(key)) this.#fail(`dict key is ${typeOfValue(key)}`);
      if (dict.size >= this.#limits.maxStack) this.#fail("a dict is too large");
      dict.set(key, items[i + 1]!);
      this.#nest(dict, key);
      this.#nest(dict, items[i + 1]!);
    }
  }

  /** Records a new container's depth from its items. */
  #container<T extends PyTuple | PySet>(value: T): T {
    for (const item of value.items) this.#nest(value, item);
    return value;
  }

  /** Containers nest at most `maxDepth` deep: later readers may walk them. */
  #nest(parent: object, child: PickleValue): void {
    if (typeof child !== "object" || child === null) return;
    const depth = (this.#depth.get(child) ?? 1) + 1;
    if (depth > this.#limits.maxDepth) this.#tooDeep();
    if (depth > (this.#depth.get(parent) ?? 1)) this.#depth.set(parent, depth);
  }

  #tooDeep(): never {
    return this.#fail(`the pickle nests deeper than ${this.#limits.maxDepth} levels`);
  }

  // -- stack and memo ----------------------------------------------------------------------

  #push(value: Slot): void {
    if (this.#stack.length >= this.#limits.maxStack) {
      this.#fail(`the pickle stack grows past ${this.#limits.maxStack} values`);
    }
    this.#stack.push(value);
  }

  #pop(): PickleValue {
    const value = this.#stack.pop();
    if (value === undefined || value === MARK_SLOT) this.#fail("stack underflow");
    return value;
  }

  #top(): PickleValue {
    const value = this.#stack[this.#stack.length - 1];
    if (value === undefined || value === MARK_SLOT) this.#fail("stack underflow");
    return value;
  }

  #popMark(): PickleValue[] {
    const at = this.#stack.lastIndexOf(MARK_SLOT);
    if (at < 0) this.#fail("no MARK on the stack");
    const items = this.#stack.splice(at) as PickleValue[];
    items.shift();
    this.#marks -= 1;
    return items;
  }

  #put(index: number): void {
    if (!this.#memo.has(index) && this.#memo.size >= this.#limits.maxMemo) {
      this.#fail(`the pickle memo grows past ${this.#limits.maxMemo} entries`);
    }
    this.#memo.set(index, this.#top());
  }

  #get(index: number): void {
    const value = this.#memo.get(index);
    if (value === undefined) this.#fail(`memo entry ${index} is read before it is written`);
    this.#push(value);
  }

  // -- reading bytes -----------------------------------------------------------------------

  #need(n: number): number {
    const at = this.#pos;
    if (at + n > this.#bytes.length) this.#fail("the pickle ends inside an opcode (truncated)");
    this.#pos = at + n;
    return at;
  }

  #take<T>(n: number, read: (view: DataView, at: number) => T): T {
    return read(this.#view, this.#need(n));
  }

  #u8(): number {
    return this.#bytes[this.#need(1)]!;
  }

  #u32(): number {
    return this.#take(4, (v, at) => v.getUint32(at, true));
  }

  #long1(): number {
    const n = this.#u8();
    if (n > 7) this.#fail(`LONG1 of ${n} bytes is out of range`);
    const at = this.#need(n);
    let value = 0;
    for (let i = n - 1; i >= 0; i--) value = value * 256 + this.#bytes[at + i]!;
    // Two's complement: the top bit of the last byte is the sign.
    if (n > 0 && this.#bytes[at + n - 1]! >= 0x80) value -= 2 ** (8 * n);
    return value;
  }

  #unicode(): string {
    const n = this.#u32();
    const at = this.#need(n);
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(this.#bytes.subarray(at, at + n));
    } catch {
      return this.#fail("BINUNICODE holds invalid UTF-8");
    }
  }

  /** A GLOBAL argument: printable ASCII up to a newline, at most 200 bytes. */
  #line(): string {
    const start = this.#pos;
    const end = this.#bytes.indexOf(0x0a, start);
    if (end < 0 || end - start > 200) this.#fail("GLOBAL without a short newline-ended name");
    this.#pos = end + 1;
    let text = "";
    for (let i = start; i < end; i++) {
      const byte = this.#bytes[i]!;
      if (byte < 0x20 || byte > 0x7e) this.#fail("GLOBAL name is not printable ASCII");
      text += String.fromCharCode(byte);
    }
    return text;
  }

  #fail(detail: string): never {
    throw new PickleError(detail, this.#at);
  }
}

function isCount(value: PickleValue | undefined): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function isEmptyDict(value: PickleValue | undefined): boolean {
  return value instanceof Map && value.size === 0;
}

function isHashable(value: PickleValue): boolean {
  return value === null || typeof value !== "object" || value instanceof PyTuple ||
    value instanceof PyGlobal;
}

function quote(text: string): string {
  return `'${text}'`;
}
