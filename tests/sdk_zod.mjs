// Parse payloads with the pinned TypeScript SDK's zod schemas (the real SDK, from
// node_modules). Reads [{version, schema, payload}] as JSON on stdin and prints
// [{success, data}] as JSON on stdout. Used by tests/test_sdks.py.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const root = join(
  process.cwd(),
  "node_modules",
  "@agentclientprotocol",
  "sdk",
  "dist",
);
const load = (version) =>
  import(pathToFileURL(join(root, version, "schema", "zod.gen.js")).href);
const modules = { v1: await load("v1"), v2: await load("v2") };

const cases = JSON.parse(readFileSync(0, "utf8"));
const results = cases.map(({ version, schema, payload }) => {
  const parser = modules[version][schema];
  if (!parser) return { success: false, error: `no ${schema} in ${version}` };
  const parsed = parser.safeParse(payload);
  return parsed.success
    ? { success: true, data: parsed.data }
    : { success: false };
});
process.stdout.write(JSON.stringify(results));
