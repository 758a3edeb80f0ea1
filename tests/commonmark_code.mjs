// The inline code of each line as micromark reads CommonMark (the parser MDX is
// built on): a JSON list of lines on standard input, a JSON list of lists out.
import { readFileSync } from "node:fs";
import { fromMarkdown } from "mdast-util-from-markdown";

const lines = JSON.parse(readFileSync(0, "utf8"));
const codes = lines.map((line) => {
  const found = [];
  const walk = (node) => {
    if (node.type === "inlineCode") found.push(node.value);
    for (const child of node.children ?? []) walk(child);
  };
  walk(fromMarkdown(line));
  return found;
});
process.stdout.write(JSON.stringify(codes));
