import assert from "node:assert/strict";
import { sha256 } from "../../../core/bundle/sha256.ts";
import { mulberry32 } from "../../random.ts";

async function subtleHex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return hex(new Uint8Array(digest));
}

function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("sha256() is Web Crypto's SHA-256 at every padding boundary and for 3 MB", async () => {
  const random = mulberry32(256);
  const lengths = [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 3 << 20];
  for (const length of lengths) {
    const bytes = Uint8Array.from({ length }, () => Math.floor(random() * 256));
    assert.equal(hex(sha256(bytes)), await subtleHex(bytes), `${length} bytes`);
  }
});

Deno.test("sha256() gives FIPS 180-4's digest of the two-block message", () => {
  const message = new TextEncoder().encode(
    "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
  );
  assert.equal(
    hex(sha256(message)),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});
