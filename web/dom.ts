/**
 * Small DOM helpers for the page: element builders, drop zones and number formatting. `style`
 * is set through the CSSOM (the page's Content-Security-Policy refuses style attributes), and
 * children are nodes or text, never parsed as HTML.
 *
 * @example
 * ```ts
 * import { html, svg } from "./dom.ts";
 * const button = html("button", { type: "button", disabled: false }, "Run");
 * const dot = svg("circle", { cx: 4, cy: 4, r: 3 });
 * ```
 *
 * @module
 */

/** An attribute value: left out when `undefined` or `false`. */
export type AttributeValue = string | number | boolean | undefined;

/** A child: a node, or text. */
export type Child = Node | string;

const SVG_NS = "http://www.w3.org/2000/svg";

/** Creates an HTML element; attributes `undefined` or `false` are left out, `true` is empty. */
export function html<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, AttributeValue>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attributes, children);
}

/** Creates an SVG element, with the attributes and children {@link html} takes. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: Readonly<Record<string, AttributeValue>> = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  return fill(document.createElementNS(SVG_NS, tag), attributes, children);
}

function fill<E extends Element>(
  element: E,
  attributes: Readonly<Record<string, AttributeValue>>,
  children: readonly Child[],
): E {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    // Through the CSSOM: the page's Content-Security-Policy refuses style attributes.
    if (name === "style") {
      (element as unknown as ElementCSSInlineStyle).style.cssText = String(value);
    } else element.setAttribute(name, value === true ? "" : String(value));
  }
  element.append(...children);
  return element;
}

/**
 * Makes `zone` take dropped files: it is marked `dragging` while files hover over it, and
 * `onFiles` gets what is dropped (never an empty list).
 *
 * @example
 * ```ts
 * import { onFileDrop } from "./dom.ts";
 * onFileDrop(document.querySelector("#drop-zone")!, (files) => console.log(files.length));
 * ```
 */
export function onFileDrop(zone: HTMLElement, onFiles: (files: File[]) => void): void {
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    const files = event.dataTransfer?.files;
    if (files && files.length > 0) onFiles([...files]);
  });
}

/**
 * Formats a number for display: 6 significant digits, `null` for non-finite results (as the
 * server writes them).
 *
 * @example
 * ```ts
 * import { formatNumber } from "./dom.ts";
 * formatNumber(0.97448843717); // "0.974488"
 * formatNumber(NaN); // "null"
 * ```
 */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return "null";
  if (value === 0) return "0";
  const abs = Math.abs(value);
  return abs >= 1e6 || abs < 1e-4 ? value.toExponential(4) : String(Number(value.toPrecision(6)));
}
