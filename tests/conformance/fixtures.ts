/**
 * Where the recorded PETRA conformance data lives (`tests/fixtures/conformance/`) and which of
 * its folders hold a recorded model (`hostile_pt/` holds only broken bundles).
 *
 * @module
 */

/** The recorded PETRA conformance data, one folder per model. */
export const CONFORMANCE: URL = new URL("../fixtures/conformance/", import.meta.url);

/** The folders of {@link CONFORMANCE} that hold a recorded model (`model.json`), sorted. */
export const RECORDED_MODELS: readonly string[] = [...Deno.readDirSync(CONFORMANCE)]
  .filter((entry) => entry.isDirectory && isFile(new URL(`${entry.name}/model.json`, CONFORMANCE)))
  .map((entry) => entry.name)
  .sort();

function isFile(url: URL): boolean {
  try {
    return Deno.statSync(url).isFile;
  } catch {
    return false;
  }
}
