/**
 * The playground's "Event log" section: pick or drop a log, choose the CSV columns, score
 * every trace in the scoring worker with a progress bar and a cancel button, then see the
 * results and download them as `batch` writes them or as CSV. The log never leaves the
 * browser: the worker streams the picked `File`. The section mirrors its state in `data-*`
 * attributes (`data-state`, `data-traces`, ...) for tests and scripts.
 *
 * @example
 * ```ts
 * import { LogView } from "./log_view.ts";
 * import { ScoreClient } from "./score_client.ts";
 * declare const host: import("./log_view.ts").LogHost;
 * const client = new ScoreClient(new URL("./score_worker.js", import.meta.url));
 * const view = new LogView(document.querySelector("#log")!, client, host);
 * view.modelChanged(); // a new bundle was loaded: the results are cleared
 * ```
 *
 * @module
 */

import type { AnyBundleFiles } from "../core/pt/mod.ts";
import { detectFormat } from "../core/event_log/format.ts";
import { messageOf } from "../core/bundle/mod.ts";
import type { BackendName } from "./backends.ts";
import { html, onFileDrop } from "./dom.ts";
import { LogResults } from "./log_results.ts";
import type { StoredTrace } from "./result_store.ts";
import { CancelledError, type ScoreClient } from "./score_client.ts";
import {
  type CsvColumns,
  DOWNLOAD_FORMATS,
  type DownloadFormat,
  LOG_FORMATS,
  type LogFormat,
  type Progress,
} from "./score_protocol.ts";

/** What the log section needs from the page. */
export interface LogHost {
  /** The loaded bundle, or undefined while none is loaded. */
  current(): AnyBundleFiles | undefined;
  /** The loaded bundle once the load in progress (if any) has ended. */
  settled(): Promise<AnyBundleFiles | undefined>;
  /** Whether the browser gives a WebGPU adapter. */
  webGpu(): boolean;
  /** The directory holding `ort/`. */
  readonly assets: URL;
  /** A transition's label. */
  label(transition: string): string;
  /** Colours the net by a trace's residuals; undefined restores the last run's activations. */
  showOnNet(trace: StoredTrace | undefined, residuals: ReadonlyMap<string, number>): void;
}

const DOWNLOAD_LABELS: Readonly<Record<DownloadFormat, string>> = {
  json: "Download JSON (as cli.ts batch writes it)",
  jsonl: "Download JSONL (one entry a line)",
  csv: "Download CSV (one column per transition)",
};

/** The event log section. */
export class LogView {
  readonly #root: HTMLElement;
  readonly #client: ScoreClient;
  readonly #host: LogHost;
  readonly #results: LogResults;
  #file: File | undefined;
  #columns: CsvColumns | undefined;
  /** The bundle and backend the worker has open. */
  #opened: { files: AnyBundleFiles; backend: BackendName } | undefined;
  #busy = false;
  /** Set by Cancel while a run is starting (loading the model), so it does not start. */
  #stopRequested = false;
  /** A log was picked before any model had loaded: the run waits for the first one. */
  #waitingForModel = false;

  constructor(root: HTMLElement, client: ScoreClient, host: LogHost) {
    this.#root = root;
    this.#client = client;
    this.#host = host;
    client.onRestart = () => {
      this.#opened = undefined;
    };
    this.#results = new LogResults(this.#el("log-results"), {
      rows: (order, offset, limit) => client.request({ op: "rows", order, offset, limit }),
      histogram: (bins) => client.request({ op: "histogram", bins }),
      label: (t) => host.label(t),
      showOnNet: (trace, residuals) => host.showOnNet(trace, residuals),
    });
    this.#wire();
    this.#setState("idle");
  }

  /** A new bundle: the results are cleared and the worker reopens the model. */
  modelChanged(): void {
    const webgpu = this.#el<HTMLSelectElement>("log-backend").querySelector<HTMLOptionElement>(
      "option[value=webgpu]",
    );
    if (webgpu) webgpu.disabled = !this.#host.webGpu();
    // A run waiting for this very model goes on; what was said about an earlier one is stale.
    this.#hideError();
    if (this.#waitingForModel) return;
    if (this.#busy) this.#client.cancel();
    this.#opened = undefined;
    this.#results.clear();
    this.#el("log-downloads").hidden = true;
    this.#el("log-summary").textContent = "";
    this.#host.showOnNet(undefined, new Map());
    this.#setState("idle");
  }

  #wire(): void {
    const input = this.#el<HTMLInputElement>("log-file");
    input.addEventListener("change", () => {
      const file = input.files?.[0];
      // Cleared, so that picking the same file again (changed since) scores it again.
      input.value = "";
      if (file) void this.#pick(file);
    });
    onFileDrop(this.#el("log-drop"), (files) => void this.#pick(files[0]!));
    const format = this.#el<HTMLSelectElement>("log-format");
    format.replaceChildren(
      ...LOG_FORMATS.map((f) =>
        html("option", { value: f }, f === "auto" ? "from the file name" : f.toUpperCase())
      ),
    );
    format.addEventListener("change", () => {
      if (this.#file) void this.#pick(this.#file);
    });
    this.#el("log-score").addEventListener("click", () => void this.#score());
    this.#el("log-cancel").addEventListener("click", () => {
      this.#stopRequested = true;
      this.#client.cancel();
    });
    const downloads = this.#el("log-downloads");
    downloads.replaceChildren(
      ...DOWNLOAD_FORMATS.map((f) => {
        const button = html(
          "button",
          { type: "button", class: "secondary", id: `log-download-${f}`, "data-format": f },
          DOWNLOAD_LABELS[f],
        );
        button.addEventListener("click", () => void this.#download(f));
        return button;
      }),
    );
  }

  /** A log was picked: CSV logs get their columns read; the others are scored at once. */
  async #pick(file: File): Promise<void> {
    this.#file = file;
    this.#columns = undefined;
    this.#hideError();
    const format = this.#el<HTMLSelectElement>("log-format").value as LogFormat;
    this.#el("log-file-name").textContent = `${file.name} (${bytes(file.size)})`;
    this.#el("log-options").hidden = false;
    let detected;
    try {
      detected = detectFormat(file.name, format);
    } catch (error) {
      this.#showError(messageOf(error), "Choose the log's format below, then score it.");
      this.#el("log-csv-columns").hidden = true;
      return;
    }
    const csv = detected.format === "csv";
    this.#el("log-csv-columns").hidden = !csv;
    if (!csv) return await this.#score();
    try {
      if (!await this.#ensureModel()) return;
      this.#columns = await this.#client.request({ op: "columns", file, format });
    } catch (error) {
      this.#showError(messageOf(error));
      return;
    }
    const { header, caseColumn, activityColumn } = this.#columns;
    for (const [id, chosen] of [["log-case", caseColumn], ["log-activity", activityColumn]]) {
      const select = this.#el<HTMLSelectElement>(id!);
      select.replaceChildren(
        ...(chosen === undefined ? [html("option", { value: "" }, "choose a column")] : []),
        ...header.map((name) => html("option", { value: name }, name)),
      );
      select.value = chosen ?? "";
    }
    if (caseColumn !== undefined && activityColumn !== undefined) {
      await this.#score();
    } else {
      this.#showError(
        `${file.name}: the header has no case_id or activity column (nor pm4py's names)`,
        "Choose the case and activity columns, then score the log.",
      );
    }
  }

  /** Opens the current bundle in the worker unless it is open there. */
  async #ensureModel(): Promise<boolean> {
    let current = this.#host.current();
    if (!current) {
      this.#setStatus("Waiting for the model to finish loading…");
      this.#waitingForModel = true;
      try {
        current = await this.#host.settled();
      } finally {
        this.#waitingForModel = false;
        this.#setStatus("");
      }
    }
    if (!current) {
      this.#showError("No model is loaded.", "Load a bundle first.");
      return false;
    }
    const backend = this.#el<HTMLSelectElement>("log-backend").value as BackendName;
    const opened = this.#opened;
    if (opened && opened.files === current && opened.backend === backend) return true;
    this.#setStatus("Loading the model in the scoring worker…");
    this.#opened = undefined;
    await this.#client.request({
      op: "open",
      files: current,
      backend,
      assets: this.#host.assets.href,
    });
    this.#opened = { files: current, backend };
    this.#setStatus("");
    return true;
  }

  async #score(): Promise<void> {
    const file = this.#file;
    if (!file || this.#busy) return;
    this.#hideError();
    const format = this.#el<HTMLSelectElement>("log-format").value as LogFormat;
    const csv = !this.#el("log-csv-columns").hidden;
    const caseColumn = csv ? this.#el<HTMLSelectElement>("log-case").value : undefined;
    const activityColumn = csv ? this.#el<HTMLSelectElement>("log-activity").value : undefined;
    if (csv && (!caseColumn || !activityColumn)) {
      this.#showError("Choose the case and activity columns first.");
      return;
    }
    this.#busy = true;
    this.#stopRequested = false;
    this.#results.clear();
    this.#host.showOnNet(undefined, new Map());
    this.#el("log-downloads").hidden = true;
    this.#el("log-summary").textContent = "";
    this.#setState("scoring");
    this.#drawProgress({ traces: 0, fraction: 0, seconds: 0 });
    this.#showProgress(true);
    this.#el<HTMLButtonElement>("log-score").disabled = true;
    try {
      if (!await this.#ensureModel()) {
        this.#setState("error");
        return;
      }
      if (this.#stopRequested) throw new CancelledError();
      const summary = await this.#client.request(
        { op: "score", file, format, caseColumn, activityColumn },
        (progress) => this.#drawProgress(progress),
      );
      const rate = summary.seconds > 0 ? Math.round(summary.traces / summary.seconds) : 0;
      const scored = summary.traces - summary.errors;
      this.#el("log-summary").replaceChildren(
        html("strong", {}, file.name),
        `: ${n(summary.traces)} traces in ${summary.seconds.toFixed(2)} s (${n(rate)} traces/s), ` +
          `${n(scored)} scored, ${n(summary.errors)} ` +
          `${summary.errors === 1 ? "error entry" : "error entries"}.`,
        ...summary.notes.map((note) => html("span", { class: "note-line" }, note)),
      );
      this.#root.dataset.traces = String(summary.traces);
      this.#root.dataset.errors = String(summary.errors);
      this.#root.dataset.seconds = String(summary.seconds);
      this.#root.dataset.storeBytes = String(summary.storeBytes);
      await this.#results.show(summary);
      this.#el("log-downloads").hidden = false;
      this.#setState("done");
    } catch (error) {
      if (error instanceof CancelledError) {
        this.#setStatus("Cancelled: nothing was kept from the stopped run.");
        this.#setState("cancelled");
      } else {
        this.#showError(messageOf(error));
        this.#setState("error");
      }
    } finally {
      this.#busy = false;
      this.#showProgress(false);
      this.#el<HTMLButtonElement>("log-score").disabled = false;
    }
  }

  async #download(format: DownloadFormat): Promise<void> {
    const file = this.#file;
    if (!file || this.#busy) return;
    this.#busy = true;
    const button = this.#el<HTMLButtonElement>(`log-download-${format}`);
    button.disabled = true;
    this.#setStatus(`Writing the ${format.toUpperCase()} file…`);
    try {
      const blob = await this.#client.request({ op: "download", format }, (progress) => {
        this.#setStatus(`Writing the ${format.toUpperCase()} file: ${n(progress.traces)} traces…`);
      });
      const url = URL.createObjectURL(blob);
      const link = html("a", { href: url, download: downloadName(file.name, format) });
      link.hidden = true;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      this.#setStatus(`${downloadName(file.name, format)}: ${bytes(blob.size)} written.`);
    } catch (error) {
      this.#showError(messageOf(error));
    } finally {
      button.disabled = false;
      this.#busy = false;
    }
  }

  #drawProgress(progress: Progress): void {
    const bar = this.#el<HTMLProgressElement>("log-progress-bar");
    const { traces, fraction, seconds } = progress;
    if (fraction === undefined) bar.removeAttribute("value");
    else bar.value = fraction;
    const rate = seconds > 0 ? traces / seconds : 0;
    const parts = [`${n(traces)} traces scored`, `${n(Math.round(rate))} traces/s`];
    if (fraction !== undefined && fraction > 0.005 && seconds > 1) {
      parts.push(`about ${clock((seconds * (1 - fraction)) / fraction)} left`);
    }
    if (fraction !== undefined) parts.unshift(`${Math.floor(fraction * 100)}% read`);
    this.#el("log-progress-text").textContent = parts.join(" · ");
  }

  #showProgress(on: boolean): void {
    this.#el("log-progress").hidden = !on;
  }

  #setState(state: "idle" | "scoring" | "done" | "cancelled" | "error"): void {
    this.#root.dataset.state = state;
    if (state !== "done") {
      for (const key of ["traces", "errors", "seconds", "storeBytes"]) {
        delete this.#root.dataset[key];
      }
    }
  }

  #setStatus(text: string): void {
    this.#el("log-status").textContent = text;
  }

  #showError(message: string, hint = ""): void {
    const box = this.#el("log-error");
    box.replaceChildren(html("strong", {}, message), ...(hint ? [html("span", {}, hint)] : []));
    box.hidden = false;
  }

  #hideError(): void {
    const box = this.#el("log-error");
    box.hidden = true;
    box.replaceChildren();
    this.#setStatus("");
  }

  #el<E extends HTMLElement = HTMLElement>(id: string): E {
    const element = this.#root.querySelector<E>(`#${id}`);
    if (!element) throw new Error(`The log section has no #${id}`);
    return element;
  }
}

/** `traces.xes.gz` → `traces.scores.json`. */
function downloadName(logName: string, format: DownloadFormat): string {
  const stem = logName.replace(/\.gz$/i, "").replace(/\.[^.]*$/, "") || "log";
  return `${stem}.scores.${format}`;
}

function bytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

function clock(seconds: number): string {
  const s = Math.round(seconds);
  const m = Math.floor(s / 60);
  return m >= 60
    ? `${Math.floor(m / 60)}:${String(m % 60).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`
    : `${m}:${String(s % 60).padStart(2, "0")}`;
}

function n(value: number): string {
  return value.toLocaleString("en");
}
