/**
 * The playground page: loads a bundle (the one the server serves, else the embedded example,
 * else files the user picks), draws its net, and runs every operation of the table in the
 * browser on WebGPU or WASM, with forms built from the same zod schemas as the server's. The
 * page mirrors its state on `<body>` (`data-state`, `data-backend`, `data-model`) for tests and
 * scripts; `?backend=wasm|webgpu` picks the backend.
 *
 * @example
 * ```ts
 * // Bundled by tools/build_web.ts into web/build/main.js and loaded by index.html:
 * // <script type="module" src="./main.js"></script>
 * import "./main.ts";
 * ```
 *
 * @module
 */

import { messageOf, type Model } from "../core/bundle/mod.ts";
import { OPERATIONS, RequestError } from "../core/ops/mod.ts";
import type { Schemas } from "../core/schemas/mod.ts";
import { parseWithSchema } from "../core/schemas/parse.ts";
import { type Backend, type BackendName, loadBackend, webGpuAdapter } from "./backends.ts";
import { fetchBundle, pairPickedBundle, readPickedFiles } from "./bundle_files.ts";
import { type AnyBundleFiles, bundleFileName, openBundle } from "./open_bundle.ts";
import { html, onFileDrop } from "./dom.ts";
import { describeRequest, type RequestForm } from "./form_fields.ts";
import { buildRequestForm, type RequestFormView } from "./form_view.ts";
import { layoutNet } from "./layout.ts";
import { NetView } from "./net_view.ts";
import { LogView } from "./log_view.ts";
import { ScoreClient } from "./score_client.ts";
import { browserSchemas } from "./schemas.ts";
import { runOperation } from "./operations.ts";

/** The directory the page's assets live in (`main.js`, `ort/`, `examples/`). */
const ASSETS = new URL("./", import.meta.url);
const EXAMPLE = new URL("examples/credit_approval_coloured.onnx", ASSETS);
/**
 * The model a server serves, named by the page's `<meta name="petri-serve-model">` (relative
 * to the page; `cli.ts serve` adds it): opened instead of the example. A static site has none.
 */
const SERVED = servedModel();
/** The scoring worker's script, bundled beside this one. */
const SCORE_WORKER = new URL("./score_worker.js", import.meta.url);

function byId<E extends HTMLElement>(id: string): E {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}`);
  return element as E;
}

class Playground {
  readonly #schemas: Schemas;
  readonly #forms: ReadonlyMap<string, RequestForm>;
  readonly #views = new Map<string, RequestFormView>();
  readonly #results = new Map<string, HTMLElement>();
  readonly #net: NetView;
  readonly #log: LogView;
  /** The last run's activations, shown again when no trace is picked. */
  #activations: { transitions: ReadonlyMap<string, number>; places: ReadonlyMap<string, number> } =
    { transitions: new Map(), places: new Map() };
  #adapter: string | undefined;
  #backend: Backend | undefined;
  #model: Model | undefined;
  #files: AnyBundleFiles | undefined;
  #busy = false;
  #firstForward = true;
  /** Runs in flight by the model they run on: a model is released only once they are done. */
  readonly #inFlight = new Map<Model, Set<Promise<unknown>>>();
  /** The load in progress (the first model's from the start): the log waits for it. */
  #pending: Promise<unknown> = Promise.resolve();

  constructor() {
    this.#schemas = browserSchemas();
    this.#forms = new Map(
      OPERATIONS.map(({ name }) => [name, describeRequest(this.#schemas.requests[name])]),
    );
    this.#net = new NetView(byId("net-figure"), byId("net-scale"));
    this.#log = new LogView(byId("log"), new ScoreClient(SCORE_WORKER), {
      assets: ASSETS,
      current: () => this.#files,
      settled: () => this.#settled(),
      webGpu: () => this.#adapter !== undefined,
      label: (t) => this.#model?.label(t) ?? t,
      showOnNet: (trace, residuals) => {
        if (!trace) {
          const { transitions, places } = this.#activations;
          this.#net.colour(transitions, places);
          return;
        }
        const notes = new Map<string, string>();
        for (const id of residuals.keys()) {
          const label = this.#model?.label(id) ?? id;
          const seen = trace.events.some((e) => e.name === label);
          notes.set(id, seen ? "observed in the trace" : "not observed in the trace");
        }
        this.#net.colour(residuals, new Map(), { measure: "residual", notes });
      },
    });
  }

  start(): Promise<void> {
    const started = this.#start();
    this.#pending = started;
    return started;
  }

  async #start(): Promise<void> {
    this.#wireControls();
    if (SERVED) this.#setSummary("Loading the served model…");
    // The model downloads while WebGPU is probed.
    const example = fetchBundle(SERVED ?? EXAMPLE).then(
      (files) => ({ files }),
      (error) => ({ error }),
    );
    this.#adapter = await webGpuAdapter();
    const webgpu = this.#backendRadio("webgpu");
    webgpu.disabled = this.#adapter === undefined;
    const asked = new URLSearchParams(location.search).get("backend");
    let name: BackendName = this.#adapter ? "webgpu" : "wasm";
    if (asked === "wasm" || (asked === "webgpu" && this.#adapter)) name = asked;
    this.#setBackendStatus(
      asked === "webgpu" && !this.#adapter ? "WebGPU is not available here; using WASM." : "",
    );
    const fetched = await example;
    if ("error" in fetched) {
      this.#showBundleError(fetched.error);
      this.#setSummary("No model is loaded.");
      document.body.dataset.state = "error";
      return;
    }
    let loaded = await this.#load(fetched.files, name);
    if (!loaded && name === "webgpu") {
      loaded = await this.#load(fetched.files, "wasm");
      if (loaded) this.#setBackendStatus("WebGPU could not run this model: running on WASM.");
    }
    if (loaded) await this.#run("forward");
  }

  /** The bundle loaded once no load is in progress (undefined when none could be). */
  async #settled(): Promise<AnyBundleFiles | undefined> {
    let pending;
    do {
      pending = this.#pending;
      await pending.catch(() => {});
    } while (pending !== this.#pending);
    return this.#files;
  }

  /** Loads `files` on backend `name`; the current model stays when anything fails. */
  #load(files: AnyBundleFiles, name: BackendName): Promise<boolean> {
    if (this.#busy) return Promise.resolve(false);
    const loading = this.#loadNow(files, name);
    this.#pending = loading;
    return loading;
  }

  async #loadNow(files: AnyBundleFiles, name: BackendName): Promise<boolean> {
    this.#busy = true;
    document.body.dataset.state = "loading";
    this.#setSummary(`Loading ${bundleFileName(files)}…`);
    try {
      let backend: Backend;
      try {
        backend = await loadBackend(name, ASSETS);
      } catch (error) {
        throw new Error(
          `The ${name === "webgpu" ? "WebGPU" : "WASM"} backend cannot start: ` +
            messageOf(error),
        );
      }
      performance.mark(`petri:backend-ready:${name}`);
      const model = await openBundle(backend.ort, files, {
        sessionOptions: backend.sessionOptions,
      });
      performance.mark(`petri:model-loaded:${bundleFileName(files)}`);
      const previous = this.#model;
      // A backend switch keeps the net, so the picture and the forms (and their input) stay.
      const sameBundle = files === this.#files;
      this.#model = model;
      this.#files = files;
      this.#backend = backend;
      if (previous) await this.#release(previous);
      this.#hideBundleError();
      this.#showModel(model, !sameBundle);
      if (!sameBundle) this.#log.modelChanged();
      return true;
    } catch (error) {
      this.#showBundleError(error);
      if (this.#model) this.#showModel(this.#model, false);
      else this.#setSummary("No model is loaded.");
      return false;
    } finally {
      this.#busy = false;
      this.#syncBackend();
      document.body.dataset.state = this.#model ? "ready" : "error";
    }
  }

  #showModel(model: Model, redraw: boolean): void {
    const { net } = model;
    const name = model.sidecar.scenario_name ??
      (this.#files ? bundleFileName(this.#files) : "model");
    document.body.dataset.model = name;
    const summary = byId("model-summary");
    const file = this.#files ? bundleFileName(this.#files) : name;
    summary.replaceChildren(
      html("strong", {}, name),
      `${file === name ? "" : ` (${file})`}: ${count(net.places.length, "place")}, ` +
        `${count(net.transitions.length, "transition")}, ${count(net.arcs.length, "arc")}` +
        (net.inhibitorArcs.length ? `, ${count(net.inhibitorArcs.length, "inhibitor arc")}` : "") +
        `; running on ${this.#backend?.label}.`,
      ...(model.sidecar.scenario_description
        ? [html("span", { class: "description" }, model.sidecar.scenario_description)]
        : []),
    );
    if (!redraw) return;
    this.#net.show((direction) => layoutNet(net, (t) => model.label(t), direction));
    this.#buildForms(model);
  }

  #buildForms(model: Model): void {
    const panels = byId("panels");
    const context = {
      places: model.net.places,
      transitions: model.net.transitions,
      label: (t: string) => model.label(t),
      specs: new Map([
        ["input_marking", model.inputMarkingSpec],
        ["input_values", model.inputValuesSpec],
      ]),
      inputPlaces: [
        ...new Set([...model.structure.sourcePlaces, ...model.net.initialMarking.keys()]),
      ],
    };
    const selected = this.#selectedOperation();
    panels.replaceChildren();
    for (const { name: kind } of OPERATIONS) {
      const view = buildRequestForm(kind, this.#forms.get(kind)!, context, () => this.#run(kind));
      const result = html("div", {
        id: `result-${kind}`,
        class: "result-box",
        "aria-live": "polite",
        "data-run": "0",
      });
      const panel = html(
        "div",
        { class: "panel", id: `panel-${kind}`, hidden: kind !== selected },
        html("h3", {}, kind),
        view.element,
        result,
      );
      this.#views.set(kind, view);
      this.#results.set(kind, result);
      panels.append(panel);
    }
  }

  async #run(kind: string): Promise<void> {
    const view = this.#views.get(kind);
    const box = this.#results.get(kind);
    const model = this.#model;
    if (!view || !box || !model) return;
    const read = view.read();
    if (!read.ok) return view.showIssues(read.issues);
    const operation = OPERATIONS.find((row) => row.name === kind);
    if (!operation) return;
    const parsed = parseWithSchema(this.#schemas.requests[kind], read.body);
    if (!parsed.success) return view.showIssues(parsed.issues);
    view.showIssues([]);
    view.setBusy(true);
    try {
      const room = {
        width: box.clientWidth || byId("panels").clientWidth,
        viewportHeight: globalThis.innerHeight,
      };
      const { element, activations } = await this.#track(
        model,
        runOperation(operation, model, parsed.data, room),
      );
      if (model !== this.#model) return; // another bundle was loaded meanwhile
      this.#activations = {
        transitions: activations.transition_activations,
        places: activations.place_activations,
      };
      this.#net.colour(activations.transition_activations, activations.place_activations);
      box.replaceChildren(element);
      box.dataset.run = String(Number(box.dataset.run ?? "0") + 1);
      if (kind === "forward" && this.#firstForward) {
        this.#firstForward = false;
        performance.mark("petri:first-forward");
      }
    } catch (error) {
      // A model replaced (and released) while this run was going: its failure is not news.
      if (model !== this.#model) return;
      if (error instanceof RequestError || error instanceof RangeError) {
        view.showError(error.message);
      } else {
        view.showError(`The model could not run: ${messageOf(error)}`);
      }
    } finally {
      view.setBusy(false);
    }
  }

  #track<T>(model: Model, task: Promise<T>): Promise<T> {
    let tasks = this.#inFlight.get(model);
    if (!tasks) this.#inFlight.set(model, tasks = new Set());
    tasks.add(task);
    const done = () => {
      tasks.delete(task);
      if (tasks.size === 0) this.#inFlight.delete(model);
    };
    task.then(done, done);
    return task;
  }

  /** Releases a replaced model once the runs still using its session have ended. */
  async #release(model: Model): Promise<void> {
    await Promise.allSettled([...this.#inFlight.get(model) ?? []]);
    await model[Symbol.asyncDispose]();
  }

  #wireControls(): void {
    const input = byId<HTMLInputElement>("bundle-files");
    input.addEventListener("change", () => {
      if (input.files && input.files.length > 0) void this.#openFiles([...input.files]);
      input.value = "";
    });
    onFileDrop(byId("drop-zone"), (files) => void this.#openFiles(files));
    const reload = (id: string, url: URL) =>
      byId(id).addEventListener("click", async () => {
        try {
          const files = await fetchBundle(url);
          if (await this.#load(files, this.#backend?.name ?? "wasm")) await this.#run("forward");
        } catch (error) {
          this.#showBundleError(error);
        }
      });
    reload("load-example", EXAMPLE);
    if (SERVED) {
      reload("load-served", SERVED);
      byId("load-served").hidden = false;
    }
    for (const radio of document.querySelectorAll<HTMLInputElement>("input[name=backend]")) {
      radio.addEventListener("change", async () => {
        const name = radio.value as BackendName;
        if (!this.#files || name === this.#backend?.name) return;
        if (await this.#load(this.#files, name)) await this.#run("forward");
      });
    }
    const choice = document.querySelector(".operation-choice");
    OPERATIONS.forEach(({ name }, i) => {
      const radio = html("input", { type: "radio", name: "operation", value: name });
      radio.checked = i === 0;
      choice?.append(html("label", {}, radio, ` ${name}`));
    });
    for (const radio of document.querySelectorAll<HTMLInputElement>("input[name=operation]")) {
      radio.addEventListener("change", () => {
        for (const { name: kind } of OPERATIONS) {
          const panel = document.getElementById(`panel-${kind}`);
          if (panel) panel.hidden = kind !== radio.value;
        }
      });
    }
  }

  async #openFiles(files: File[]): Promise<void> {
    let bundle: AnyBundleFiles;
    try {
      bundle = pairPickedBundle(await readPickedFiles(files));
    } catch (error) {
      this.#showBundleError(error);
      return;
    }
    if (await this.#load(bundle, this.#backend?.name ?? "wasm")) await this.#run("forward");
  }

  #selectedOperation(): string {
    const checked = document.querySelector<HTMLInputElement>("input[name=operation]:checked");
    return checked?.value ?? "forward";
  }

  #backendRadio(name: BackendName): HTMLInputElement {
    return document.querySelector<HTMLInputElement>(`input[name=backend][value=${name}]`)!;
  }

  #syncBackend(): void {
    const backend = this.#backend;
    if (!backend) return;
    this.#backendRadio(backend.name).checked = true;
    document.body.dataset.backend = backend.name;
    const adapter = this.#adapter ? ` (adapter: ${this.#adapter})` : " (no WebGPU adapter)";
    this.#setBackendStatus(
      `Running on ${backend.label}${backend.name === "webgpu" ? adapter : ""}.` +
        (this.#adapter ? "" : " WebGPU is not available in this browser."),
    );
  }

  #setBackendStatus(text: string): void {
    if (text) byId("backend-status").textContent = text;
  }

  #setSummary(text: string): void {
    byId("model-summary").textContent = text;
  }

  #showBundleError(error: unknown): void {
    const box = byId("bundle-error");
    box.replaceChildren(
      html("strong", {}, messageOf(error)),
      html("span", {}, hintFor(messageOf(error))),
    );
    box.hidden = false;
  }

  #hideBundleError(): void {
    const box = byId("bundle-error");
    box.hidden = true;
    box.replaceChildren();
  }
}

function servedModel(): URL | undefined {
  const meta = document.querySelector<HTMLMetaElement>("meta[name=petri-serve-model]");
  return meta?.content ? new URL(meta.content, location.href) : undefined;
}

/** One plain sentence on what to do about a bundle error. */
function hintFor(message: string): string {
  if (/ is missing/.test(message)) {
    return "A bundle is two files: NAME.onnx and NAME.onnx.meta.json, or PETRA's NAME.pt and " +
      "NAME.pt.meta.json. Pick both at once.";
  }
  if (/does not match/.test(message)) {
    return "The model file was changed after its sidecar was written, or the two files come " +
      "from different bundles. Compile the model again to get a matching pair.";
  }
  if (/format|not an ONNX model|graph contract|metadata|not valid JSON|JSON object/.test(message)) {
    return "These files are not a petri-serve bundle. Compile a model description with " +
      "`cli.ts compile MODEL.json -o NAME.onnx` to get one.";
  }
  if (/is not a PETRA model|torch\.save|holds an invalid model/.test(message)) {
    return "petri-serve reads a PETRA .pt without running anything in it, and this file is not " +
      "a PETRA model it can serve. The model that was loaded before stays loaded.";
  }
  return "The model that was loaded before stays loaded.";
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

await new Playground().start();
