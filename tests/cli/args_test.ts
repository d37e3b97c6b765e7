import assert from "node:assert/strict";
import { parseArgs, UsageError } from "../../cli/args.ts";

const SPECS = {
  output: { type: "string", short: "o" },
  port: { type: "string" },
  verbose: { type: "boolean", short: "v" },
} as const;

Deno.test("parseArgs() reads --x value, --x=value, -o value, booleans and positionals", () => {
  const parsed = parseArgs(
    ["a.json", "--port", "8080", "-o=out.onnx", "-v", "b", "--", "--port", "-"],
    SPECS,
  );
  assert.deepEqual(parsed.flags, { port: "8080", output: "out.onnx", verbose: true });
  assert.deepEqual(parsed.positionals, ["a.json", "b", "--port", "-"]);
  assert.deepEqual(parseArgs(["--output=a", "-o", "b"], SPECS).flags, { output: "b" });
  assert.deepEqual(parseArgs(["--port="], SPECS).flags, { port: "" });
});

Deno.test("parseArgs() names the argument it cannot read", () => {
  const cases: [string[], string][] = [
    [["--fast"], "unknown option --fast"],
    [["-x"], "unknown option -x"],
    [["--__proto__=1"], "unknown option --__proto__"],
    [["--port"], "option --port needs a value"],
    [["-o", "--verbose"], "option -o needs a value"],
    [["--verbose=yes"], "option --verbose takes no value"],
  ];
  for (const [args, message] of cases) {
    assert.throws(() => parseArgs(args, SPECS), new UsageError(message));
  }
});
