// Format files of an upstream tree as its own `prettier --check .` would, and
// print, one JSON line a file, whether Prettier would change it and where.
//
// Usage: node prettier_tree.mjs <path of prettier's index.mjs>, with
// {"files": [{"path", "text", "config", "virtual", "want"}]} on standard
// input. Python reads every file (safely) and sends its text; it also reads
// and vets the tree's configuration, and writes what it allows to `config`
// (a JSON file of its own), so Prettier never reads a file of the tree and
// never loads a plugin or a configuration that is code. `virtual` is the
// file's name beside that configuration, for its `overrides`. With `"want":
// "text"`, the answer is the formatted text itself.
import { pathToFileURL } from "node:url";

const prettier = await import(pathToFileURL(process.argv[2]).href);

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));

// The parser Prettier would infer from the file's name alone: inferring it
// from a path could read the file's first line, and Node reads no file here.
const languages = (await prettier.getSupportInfo()).languages;
function parserOf(path) {
  const name = path.split("/").pop();
  const language =
    languages.find((l) => (l.filenames ?? []).includes(name)) ??
    languages.find((l) => (l.extensions ?? []).some((e) => name.endsWith(e)));
  return language?.parsers[0];
}

function firstChange(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line += 1;
  return line + 1;
}

for (const file of request.files) {
  let answer;
  try {
    const resolved = file.config
      ? await prettier.resolveConfig(file.virtual, {
          config: file.config,
          editorconfig: false,
          useCache: true,
        })
      : null;
    const options = { ...(resolved ?? {}), filepath: file.path };
    delete options.plugins;
    options.parser ??= parserOf(file.path);
    if (!options.parser) {
      answer = { path: file.path, skipped: true };
    } else {
      const formatted = await prettier.format(file.text, options);
      if (file.want === "text") answer = { path: file.path, formatted };
      else
        answer =
          formatted === file.text
            ? { path: file.path }
            : { path: file.path, line: firstChange(file.text, formatted) };
    }
  } catch (error) {
    const start = error?.loc?.start;
    answer = {
      path: file.path,
      error: String(error?.message ?? error).split("\n")[0],
      line: Number.isInteger(start?.line) ? start.line : 1,
    };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
