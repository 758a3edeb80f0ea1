// Parse payloads with the pinned TypeScript SDK's zod schemas (the real SDK, from
// node_modules). Reads [{version, schema, payload}] as JSON on stdin and prints
// [{success, data}] as JSON on stdout. Used by tests/test_sdks.py. A schema name
// the SDK does not export is an error (exit status 2), never a "rejected" result.
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
const missing = cases.filter(
  ({ version, schema }) => !modules[version] || !modules[version][schema],
);
if (missing.length > 0) {
  const names = missing.map(({ version, schema }) => `${version} ${schema}`);
  process.stderr.write(
    `no such zod schema in the SDK: ${[...new Set(names)]}\n`,
  );
  process.exit(2);
}
const results = cases.map(({ version, schema, payload }) => {
  const parser = modules[version][schema];
  const parsed = parser.safeParse(payload);
  return parsed.success
    ? { success: true, data: parsed.data }
    : { success: false };
});
process.stdout.write(JSON.stringify(results));
