/**
 * One `/metrics` for all the instances of `deno serve --parallel`: the shared port hands each
 * scrape to one isolate, so the one answering asks the others over a `BroadcastChannel` and
 * responds with every instance's series labelled `instance_id` (random per instance, so each
 * stays monotonic). Instances slow to respond show their last report; silent ones are forgotten.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { InstanceMetrics } from "./instances.ts";
 * const metric = (n: number) => `# HELP x_total X.\n# TYPE x_total counter\nx_total ${n}\n`;
 * const channel = `doc-${crypto.randomUUID()}`;
 * using a = new InstanceMetrics(() => metric(1), { channel, id: "a" });
 * using b = new InstanceMetrics(() => metric(2), { channel, id: "b" });
 * await new Promise((resolve) => setTimeout(resolve, 50)); // they greet each other
 * const pieces = await a.gather();
 * assert.deepEqual(pieces.sort(), [
 *   '# HELP x_total X.\n# TYPE x_total counter\nx_total{instance_id="a"} 1\n',
 *   '# HELP x_total X.\n# TYPE x_total counter\nx_total{instance_id="b"} 2\n',
 * ]);
 * ```
 *
 * @module
 */

import { withLabel } from "./exposition.ts";

/** How long a scrape waits for the other instances, in ms. */
export const DEFAULT_WAIT_MS = 250;

/** An instance not heard from for this long (ms) is left out of the scrapes. */
export const FORGET_MS = 300_000;

/** The label that tells the instances apart. */
export const INSTANCE_LABEL = "instance_id";

/** Options of {@link InstanceMetrics}. */
export interface InstanceMetricsOptions {
  /**
   * The channel's name.
   * @default {"petri-serve-metrics"}
   */
  readonly channel?: string;
  /**
   * This instance's id.
   * @default 8 random hex digits
   */
  readonly id?: string;
  /**
   * How long {@link InstanceMetrics.gather} waits for the others.
   * @default {DEFAULT_WAIT_MS}
   */
  readonly waitMs?: number;
}

type Message =
  | { readonly kind: "hello"; readonly from: string }
  | { readonly kind: "collect"; readonly from: string; readonly nonce: string }
  | {
    readonly kind: "report";
    readonly from: string;
    readonly nonce: string | null;
    readonly text: string;
  };

/** What is known of another instance. */
interface Peer {
  text: string | undefined;
  heard: number;
}

/** This instance's part in the shared `/metrics`; see the module doc. */
export class InstanceMetrics implements Disposable {
  /** This instance's `instance_id`. */
  readonly id: string;
  readonly #render: () => string;
  readonly #channel: BroadcastChannel;
  readonly #waitMs: number;
  readonly #peers = new Map<string, Peer>();
  readonly #pending = new Map<string, { waiting: Set<string>; done: () => void }>();

  /** Joins the channel; `render` gives this instance's own metrics (unlabelled) when asked. */
  constructor(render: () => string, options: InstanceMetricsOptions = {}) {
    this.id = options.id ?? crypto.randomUUID().slice(0, 8);
    this.#render = render;
    this.#waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    this.#channel = new BroadcastChannel(options.channel ?? "petri-serve-metrics");
    this.#channel.onmessage = (event: MessageEvent<Message>) => this.#receive(event.data);
    this.#post({ kind: "hello", from: this.id });
  }

  /** This instance's metrics and every known instance's, each labelled with its `instance_id`. */
  async gather(): Promise<string[]> {
    const now = Date.now();
    for (const [id, peer] of this.#peers) if (now - peer.heard > FORGET_MS) this.#peers.delete(id);
    if (this.#peers.size > 0) {
      const nonce = crypto.randomUUID();
      const { promise, resolve } = Promise.withResolvers<void>();
      this.#pending.set(nonce, { waiting: new Set(this.#peers.keys()), done: resolve });
      const timer = setTimeout(resolve, this.#waitMs);
      this.#post({ kind: "collect", from: this.id, nonce });
      await promise;
      clearTimeout(timer);
      this.#pending.delete(nonce);
    }
    const others = [...this.#peers.values()].flatMap((peer) => peer.text ?? []);
    return [this.#labelled(), ...others];
  }

  /** Leaves the channel. */
  [Symbol.dispose](): void {
    this.#channel.close();
    for (const pending of this.#pending.values()) pending.done();
  }

  #labelled(): string {
    return withLabel(this.#render(), INSTANCE_LABEL, this.id);
  }

  #receive(message: Message): void {
    if (message.from === this.id) return;
    let peer = this.#peers.get(message.from);
    if (peer === undefined) this.#peers.set(message.from, peer = { text: undefined, heard: 0 });
    peer.heard = Date.now();
    if (message.kind === "hello") {
      // Greet back, so that the newcomer knows this instance too.
      this.#post({ kind: "report", from: this.id, nonce: null, text: this.#labelled() });
    } else if (message.kind === "collect") {
      this.#post({ kind: "report", from: this.id, nonce: message.nonce, text: this.#labelled() });
    } else {
      peer.text = message.text;
      const pending = message.nonce === null ? undefined : this.#pending.get(message.nonce);
      pending?.waiting.delete(message.from);
      if (pending?.waiting.size === 0) pending.done();
    }
  }

  #post(message: Message): void {
    this.#channel.postMessage(message);
  }
}
