// Compile MDX files with the pinned @mdx-js/mdx, as Mintlify's MDX would be
// read. Prints one line per file that does not compile; exits 1 if any.
import { readFileSync } from "node:fs";
import { compile } from "@mdx-js/mdx";

let failed = 0;
for (const path of process.argv.slice(2)) {
  try {
    await compile(readFileSync(path, "utf8"));
  } catch (error) {
    failed += 1;
    const where = error.place
      ? `${error.place.line ?? error.place.start?.line}`
      : "?";
    process.stdout.write(
      `${path}:${where}: ${error.reason ?? error.message}\n`,
    );
  }
}
process.exit(failed ? 1 : 0);
