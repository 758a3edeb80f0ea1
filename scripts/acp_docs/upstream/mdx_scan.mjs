// Read MDX pages as Mintlify's MDX parser reads them (the pinned @mdx-js/mdx),
// and print what the upstream check needs of each page, one JSON line a page:
// its fenced code blocks, headings and links, or where it does not parse.
//
// Usage: node mdx_scan.mjs <path of @mdx-js/mdx's index.js>, with
// {"files": [{"path", "text"}]} on standard input. Node reads no file of the
// checked tree: Python reads each page (safely) and sends its text.
import { pathToFileURL } from "node:url";

const mdx = await import(pathToFileURL(process.argv[2]).href);
const processor = mdx.createProcessor({ format: "mdx" });

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));

// A block's kind declared by hand, in an MDX comment right before its fence
// (Mintlify renders nothing for it): {/* acp-docs: ToolCallContent v2 */}.
// Read by slicing, not by a regular expression: a comment is page text, and a
// pattern with nested spaces would backtrack for minutes on a long one.
function declaration(value) {
  const text = value.trim();
  if (!text.startsWith("/*") || !text.endsWith("*/")) return null;
  const inner = text.slice(2, -2).trim();
  if (!inner.startsWith("acp-docs:")) return null;
  const words = inner.slice("acp-docs:".length).trim();
  return words.includes("*") ? null : words;
}

function text(node) {
  if (node.type === "text" || node.type === "inlineCode") return node.value;
  return (node.children ?? []).map(text).join("");
}

function attribute(node, name) {
  const found = (node.attributes ?? []).find(
    (a) => a.type === "mdxJsxAttribute" && a.name === name,
  );
  return found && typeof found.value === "string" ? found.value : null;
}

// Mintlify reads YAML front matter first; blank it, keeping the lines, so that
// the parser does not take it for a rule and a heading.
function blankFrontMatter(text) {
  const match = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?=\r?\n|$)/.exec(text);
  return match
    ? match[0].replace(/[^\n]/g, "") + text.slice(match[0].length)
    : text;
}

function scan(tree) {
  const blocks = [];
  const headings = [];
  const links = [];
  const ids = [];
  const stray = [];
  let declared = null;
  const walk = (node, groups) => {
    const at = node.position?.start ?? { line: 1, column: 1 };
    if (declared !== null && node.type !== "code") {
      stray.push(declared.line);
      declared = null;
    }
    const words =
      node.type === "mdxFlowExpression" ? declaration(node.value) : null;
    if (words !== null) {
      declared = { line: at.line, text: words };
      return;
    }
    if (node.type === "code") {
      blocks.push({
        line: at.line,
        end: node.position?.end?.line ?? at.line,
        lang: node.lang ?? "",
        meta: node.meta ?? "",
        value: node.value,
        group: groups.at(-1) ?? null,
        declared: declared?.text ?? null,
        declaredLine: declared?.line ?? null,
      });
      declared = null;
    } else if (node.type === "heading") {
      headings.push({ line: at.line, depth: node.depth, text: text(node) });
    } else if (node.type === "link" || node.type === "definition") {
      links.push({ line: at.line, col: at.column, url: node.url });
    } else if (
      node.type === "mdxJsxFlowElement" ||
      node.type === "mdxJsxTextElement"
    ) {
      const href = attribute(node, "href");
      if (href !== null)
        links.push({ line: at.line, col: at.column, url: href });
      const id = attribute(node, "id");
      if (id !== null) ids.push(id);
      // Mintlify anchors a field of an API description by its name.
      if (/Field$/.test(node.name ?? "")) {
        for (const name of ["name", "path", "query", "body", "header"]) {
          const value = attribute(node, name);
          if (value !== null) ids.push(value);
        }
      }
    }
    const inner =
      node.type === "mdxJsxFlowElement" && node.name === "CodeGroup"
        ? [...groups, at.line]
        : groups;
    for (const child of node.children ?? []) walk(child, inner);
  };
  walk(tree, []);
  if (declared !== null) stray.push(declared.line);
  return { blocks, headings, links, ids, stray };
}

for (const file of request.files) {
  let answer;
  try {
    answer = {
      path: file.path,
      ...scan(processor.parse(blankFrontMatter(file.text))),
    };
  } catch (error) {
    const place = error.place?.start ?? error.place ?? {};
    const reason = String(error.reason ?? error.message ?? error);
    // An error at the end of the page names its place only in its text: `(7:1-7:7)`.
    const named = /\((\d+):(\d+)(?:-\d+:\d+)?\)\s*$/.exec(reason);
    answer = {
      path: file.path,
      error: reason,
      line: error.line ?? place.line ?? (named ? Number(named[1]) : 1),
      col: error.column ?? place.column ?? (named ? Number(named[2]) : 1),
    };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
