/**
 * Constant sparse matrices: the weights of every linear map in a compiled graph. A map
 * `y = M x` sends an input row of width `cols` to an output row of width `rows`; its adjoint
 * is the transposed matrix.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { SparseMatrix } from "./sparse.ts";
 * const pick = SparseMatrix.selection([2, 0], 3); // y = [x2, x0]
 * assert.deepEqual(pick.transpose().rows, 3);
 * ```
 *
 * @module
 */

/** One non-zero entry: output column `row` receives `weight · input column col`. */
export interface Entry {
  readonly row: number;
  readonly col: number;
  readonly weight: number;
}

/** An immutable sparse matrix of shape `rows × cols` (output width × input width). */
export class SparseMatrix {
  /** Entries grouped by row, each group in insertion order. */
  readonly byRow: readonly (readonly Entry[])[];

  constructor(readonly rows: number, readonly cols: number, entries: readonly Entry[]) {
    const byRow: Entry[][] = Array.from({ length: rows }, () => []);
    for (const e of entries) {
      if (e.row < 0 || e.row >= rows || e.col < 0 || e.col >= cols) {
        throw new RangeError(`sparse entry (${e.row}, ${e.col}) is outside ${rows}×${cols}`);
      }
      byRow[e.row]!.push(e);
    }
    this.byRow = byRow;
  }

  /**
   * The matrix that picks input columns: output column i is input column `indices[i]`, or 0
   * where `indices[i]` is -1.
   */
  static selection(indices: readonly number[], cols: number): SparseMatrix {
    const entries: Entry[] = [];
    indices.forEach((col, row) => {
      if (col >= 0) entries.push({ row, col, weight: 1 });
    });
    return new SparseMatrix(indices.length, cols, entries);
  }

  /** Number of stored entries. */
  get entryCount(): number {
    return this.byRow.reduce((n, r) => n + r.length, 0);
  }

  /** Largest number of entries in one row. */
  get maxRowLength(): number {
    return this.byRow.reduce((n, r) => Math.max(n, r.length), 0);
  }

  /** True when every row holds exactly one entry of weight 1 and columns are 0..rows-1 in order. */
  get isIdentity(): boolean {
    return this.rows === this.cols &&
      this.byRow.every((r, i) => r.length === 1 && r[0]!.col === i && r[0]!.weight === 1);
  }

  /** True when every row holds at most one entry, of weight 1: a column gather. */
  get isSelection(): boolean {
    return this.byRow.every((r) => r.length === 0 || (r.length === 1 && r[0]!.weight === 1));
  }

  /** The adjoint map (input and output swapped). */
  transpose(): SparseMatrix {
    const entries: Entry[] = [];
    for (const row of this.byRow) {
      for (const e of row) entries.push({ row: e.col, col: e.row, weight: e.weight });
    }
    return new SparseMatrix(this.cols, this.rows, entries);
  }
}
