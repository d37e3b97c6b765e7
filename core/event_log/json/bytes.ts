/**
 * The byte codes of JSON's structural characters, shared by the JSON list splitter
 * (`split.ts`) and the range scanner (`scan.ts`), which both walk UTF-8 bytes.
 *
 * @module
 */

/** `{` */
export const OPEN_BRACE = 0x7b;
/** `}` */
export const CLOSE_BRACE = 0x7d;
/** `[` */
export const OPEN_BRACKET = 0x5b;
/** `]` */
export const CLOSE_BRACKET = 0x5d;
/** `"` */
export const QUOTE = 0x22;
/** `\` */
export const BACKSLASH = 0x5c;
/** `,` */
export const COMMA = 0x2c;
