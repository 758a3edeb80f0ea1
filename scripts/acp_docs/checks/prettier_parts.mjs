// Formats long Markdown files part by part with the checkout's Prettier (see mdparts.py).
//
// Usage: node prettier_parts.mjs <prettier/index.mjs> <checkout root> [<cache file>]
// Reads {"files": [{"path": "rfds/x.md", "parts": [{"line": 1, "text": "..."}]}]} on stdin
// and prints one JSON object per file: {"path", "ignored"} and, for each part
// Prettier would change, {"line", "formatted"}; a part it cannot format gives
// {"line", "error"}. Options are Prettier's defaults (no configuration file is
// read), and .gitignore and .prettierignore apply, as for `prettier --check .`.
// The cache file holds the keys (Prettier's version, the options, the path and
// the text) of the parts found formatted on the last run; they are not formatted again.
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [entry, root, cacheFile] = process.argv.slice(2);
const prettier = await import(pathToFileURL(entry).href);
let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const request = JSON.parse(input);
const ignorePath = [join(root, ".gitignore"), join(root, ".prettierignore")];

let known = new Set();
if (cacheFile) {
  try {
    const keys = JSON.parse(readFileSync(cacheFile, "utf8"));
    if (Array.isArray(keys))
      known = new Set(keys.filter((k) => typeof k === "string"));
  } catch {
    // No cache yet, or one that cannot be read: every part is formatted.
  }
}
const clean = [];

for (const file of request.files) {
  const filepath = join(root, file.path);
  const info = await prettier.getFileInfo(filepath, { ignorePath });
  const result = { path: file.path, ignored: info.ignored, changed: [] };
  if (!info.ignored) {
    // Prettier's defaults, as `prettier --no-config --no-editorconfig` uses them.
    const options = {};
    for (const part of file.parts) {
      const key = createHash("sha256")
        .update(
          JSON.stringify([prettier.version, options, file.path, part.text]),
        )
        .digest("hex");
      if (known.has(key)) {
        clean.push(key);
        continue;
      }
      try {
        const formatted = await prettier.format(part.text, {
          ...options,
          filepath,
        });
        if (formatted === part.text) clean.push(key);
        else result.changed.push({ line: part.line, formatted });
      } catch (error) {
        const message = String(error?.message ?? error).split("\n")[0];
        result.changed.push({ line: part.line, error: message });
      }
    }
  }
  process.stdout.write(JSON.stringify(result) + "\n");
}

if (cacheFile) {
  try {
    const temporary = `${cacheFile}.${process.pid}`;
    writeFileSync(temporary, JSON.stringify(clean));
    renameSync(temporary, cacheFile);
  } catch {
    // A cache only saves time.
  }
}
