/**
 * The values the pickle machine builds: plain data only. Python dicts are `Map`s (so a key
 * such as `__proto__` is an ordinary key), and no value holds a function: an allowed global
 * is a {@link PyGlobal} record, never something callable.
 *
 * @module
 */

/** A value read from a pickle. */
export type PickleValue =
  | null
  | boolean
  | number
  | string
  | PickleValue[]
  | PyTuple
  | PyDict
  | PySet
  | PyObject
  | PyGlobal
  | PyStorage
  | PyTensor;

/** A Python dict (or `OrderedDict`): insertion order kept, keys compared as JS values. */
export type PyDict = Map<PickleValue, PickleValue>;

/** A Python tuple. */
export class PyTuple {
  /** The items, frozen. */
  readonly items: readonly PickleValue[];
  /** Wraps (and freezes) the items. */
  constructor(items: PickleValue[]) {
    this.items = Object.freeze(items);
    Object.freeze(this);
  }
}

/** A Python set, built by `REDUCE(set, [items])`; the items in file order. */
export class PySet {
  /** The items, frozen. */
  readonly items: readonly PickleValue[];
  /** Wraps (and freezes) the items. */
  constructor(items: PickleValue[]) {
    this.items = Object.freeze(items);
    Object.freeze(this);
  }
}

/** An allowed global (`module name`), as data; its role says what the machine may do with it. */
export class PyGlobal {
  /** `module name`, as the pickle wrote it. */
  readonly name: string;
  /** What the global stands for; see `ALLOWED_GLOBALS` in `unpickle.ts`. */
  readonly role: GlobalRole;
  /** Records the global. */
  constructor(name: string, role: GlobalRole) {
    this.name = name;
    this.role = role;
    Object.freeze(this);
  }
}

/**
 * What an allowed global stands for: a class instantiated by `NEWOBJ` (`class`), one of the
 * data builders applied by `REDUCE` (`dict`, `set`, `tensor`, `parameter`), a storage type in a
 * persistent id (`storage`), or a function only referred to, never applied (`function`).
 */
export type GlobalRole = "class" | "dict" | "set" | "tensor" | "parameter" | "storage" | "function";

/** An instance of an allowed class (`NEWOBJ`), with the state `BUILD` gave it. */
export class PyObject {
  /** The class, `module name`. */
  readonly className: string;
  /** The `__dict__` set by `BUILD`; `undefined` before. */
  state: PyDict | undefined = undefined;
  /** Records an instance with no state yet. */
  constructor(className: string) {
    this.className = className;
    Object.seal(this);
  }
}

/** A tensor storage named by a persistent id: the zip entry `data/KEY` holds its bytes. */
export class PyStorage {
  /** The storage type, e.g. `torch FloatStorage`. */
  readonly type: string;
  /** The entry name under `data/`. */
  readonly key: string;
  /** Elements in the storage. */
  readonly numel: number;
  /** Records the reference. */
  constructor(type: string, key: string, numel: number) {
    this.type = type;
    this.key = key;
    this.numel = numel;
    Object.freeze(this);
  }
}

/** A tensor (or parameter) view of a storage, as `_rebuild_tensor_v2` describes it. */
export class PyTensor {
  /** The storage the tensor views. */
  readonly storage: PyStorage;
  /** First element's index in the storage. */
  readonly offset: number;
  /** Sizes; empty for a 0-dimensional tensor. */
  readonly shape: readonly number[];
  /** Records the view. */
  constructor(storage: PyStorage, offset: number, shape: number[]) {
    this.storage = storage;
    this.offset = offset;
    this.shape = Object.freeze(shape);
    Object.freeze(this);
  }
}

/** A short description of a value's type for messages; never walks into the value. */
export function typeOfValue(value: PickleValue | undefined): string {
  if (value === undefined) return "nothing";
  if (value === null) return "None";
  if (typeof value === "boolean") return "a bool";
  if (typeof value === "number") return Number.isInteger(value) ? "an int" : "a float";
  if (typeof value === "string") return "a string";
  if (Array.isArray(value)) return "a list";
  if (value instanceof Map) return "a dict";
  if (value instanceof PyTuple) return "a tuple";
  if (value instanceof PySet) return "a set";
  if (value instanceof PyObject) return `a ${value.className} object`;
  if (value instanceof PyGlobal) return `the global '${value.name}'`;
  if (value instanceof PyStorage) return "a storage";
  return "a tensor";
}
