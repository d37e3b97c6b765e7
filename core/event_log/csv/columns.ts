/**
 * Finds the case and activity columns in a CSV header: `case_id` and `activity`, or pm4py's
 * names for them when the defaults are absent, with a one-line note saying so.
 *
 * @module
 */

import { quoteId } from "../../net/quote_id.ts";
import { TraceReadError } from "../errors.ts";

/** The case and activity columns a CSV reader uses. */
export interface CsvColumnOptions {
  /** The case id column; absent: `case_id`, else pm4py's `case:concept:name`. */
  caseColumn?: string | undefined;
  /** The activity column; absent: `activity`, else pm4py's `concept:name`. */
  activityColumn?: string | undefined;
}

/** The columns chosen for a file, with their positions in the header. */
export interface CsvColumnChoice {
  /** The case id column's name. */
  caseColumn: string;
  /** The activity column's name. */
  activityColumn: string;
  /** Position of the case column in the header (its last occurrence, as Python's DictReader). */
  caseIndex: number;
  /** Position of the activity column in the header (its last occurrence). */
  activityIndex: number;
  /** Set when pm4py's column names were used: a line saying so, starting with the file name. */
  note?: string;
}

const DEFAULT_CASE = "case_id";
const DEFAULT_ACTIVITY = "activity";
const PM4PY_CASE = "case:concept:name";
const PM4PY_ACTIVITY = "concept:name";

/**
 * Picks the case and activity columns of `header`.
 *
 * @throws {TraceReadError} naming each missing column and listing the header's columns.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { chooseColumns } from "./columns.ts";
 * const choice = chooseColumns(["case:concept:name", "concept:name", "amount"], {}, "log.csv");
 * assert.equal(choice.caseColumn, "case:concept:name");
 * assert.equal(
 *   choice.note,
 *   "log.csv: no 'case_id' or 'activity' column; using pm4py's 'case:concept:name' as the case id and 'concept:name' as the activity",
 * );
 * ```
 */
export function chooseColumns(
  header: readonly string[],
  options: CsvColumnOptions,
  name: string,
): CsvColumnChoice {
  const present = new Set(header);
  const pick = (given: string | undefined, fallback: string, pm4py: string): string =>
    given ?? (!present.has(fallback) && present.has(pm4py) ? pm4py : fallback);
  const caseColumn = pick(options.caseColumn, DEFAULT_CASE, PM4PY_CASE);
  const activityColumn = pick(options.activityColumn, DEFAULT_ACTIVITY, PM4PY_ACTIVITY);
  const missing = [
    ...(present.has(caseColumn) ? [] : [`case column ${quoteId(caseColumn)}`]),
    ...(present.has(activityColumn) ? [] : [`activity column ${quoteId(activityColumn)}`]),
  ];
  if (missing.length > 0) {
    throw new TraceReadError(
      `${name}: the header has no ${missing.join(" and no ")} (its columns: ${
        header.map(quoteId).join(", ")
      })`,
    );
  }
  const choice: CsvColumnChoice = {
    caseColumn,
    activityColumn,
    caseIndex: header.lastIndexOf(caseColumn),
    activityIndex: header.lastIndexOf(activityColumn),
  };
  const caseFellBack = caseColumn === PM4PY_CASE && options.caseColumn === undefined;
  const activityFellBack = activityColumn === PM4PY_ACTIVITY &&
    options.activityColumn === undefined;
  if (caseFellBack || activityFellBack) {
    const absent = [
      ...(caseFellBack ? [quoteId(DEFAULT_CASE)] : []),
      ...(activityFellBack ? [quoteId(DEFAULT_ACTIVITY)] : []),
    ];
    const used = [
      ...(caseFellBack ? [`${quoteId(PM4PY_CASE)} as the case id`] : []),
      ...(activityFellBack ? [`${quoteId(PM4PY_ACTIVITY)} as the activity`] : []),
    ];
    choice.note = `${name}: no ${absent.join(" or ")} column; using pm4py's ${used.join(" and ")}`;
  }
  return choice;
}
