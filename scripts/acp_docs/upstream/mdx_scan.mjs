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

// A heading's text in parts, [isCode, value]: Mintlify's typography (curly
// quotes, dashes) applies to prose, not to inline code, before it makes an id.
function parts(node, out = []) {
  if (node.type === "text") out.push([false, node.value]);
  else if (node.type === "inlineCode") out.push([true, node.value]);
  else for (const child of node.children ?? []) parts(child, out);
  return out;
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

// Mintlify takes a custom heading id, `## Title {#custom-id}`, before MDX reads
// the page (MDX would read `{#custom-id}` as a broken expression). Blank it,
// keeping every column, and remember the id by line. A line is read by slicing,
// not by a pattern that could backtrack.
function customIds(text) {
  const ids = new Map();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const trimmed = line.trimEnd();
    if (!/^ {0,3}#{1,6}[ \t]/.test(line) || !trimmed.endsWith("}")) continue;
    const open = trimmed.lastIndexOf("{#");
    if (open < 0) continue;
    const id = trimmed.slice(open + 2, -1);
    if (!/^[^\s{}]+$/.test(id)) continue;
    ids.set(i + 1, id);
    lines[i] = line.slice(0, open) + " ".repeat(line.length - open);
  }
  return { text: lines.join("\n"), ids };
}

// The `href` string literals of JSX elements inside an attribute's expression:
// `post={[<a href="/rfds/x">…</a>]}`, which Mintlify renders as links too.
function expressionLinks(attribute, links) {
  const estree = attribute.value?.data?.estree;
  if (!estree) return;
  const visit = (node) => {
    if (!node || typeof node.type !== "string") return;
    if (
      node.type === "JSXAttribute" &&
      node.name?.name === "href" &&
      node.value?.type === "Literal" &&
      typeof node.value.value === "string"
    ) {
      const at = node.value.loc?.start ?? { line: 1, column: 0 };
      links.push({ line: at.line, col: at.column + 1, url: node.value.value });
    }
    for (const key of Object.keys(node)) {
      if (key === "loc" || key === "range" || key === "parent") continue;
      const value = node[key];
      if (Array.isArray(value)) value.forEach(visit);
      else if (value && typeof value === "object") visit(value);
    }
  };
  visit(estree);
}

const RESOURCES = new Set(["use", "image", "feImage"]);
const MEDIA = new Set(["img", "video", "audio", "source", "track"]);
const LIVE = new Set([
  "mdxFlowExpression",
  "mdxTextExpression",
  "mdxjsEsm",
  "mdxJsxFlowElement",
  "mdxJsxTextElement",
]);
const COMPONENTS = new Set(["Tab", "Accordion"]);

function scan(tree, custom) {
  const blocks = [];
  const headings = [];
  const links = [];
  const media = [];
  const ids = [];
  const components = [];
  const stray = [];
  const live = [];
  let declared = null;
  const walk = (node, groups) => {
    const at = node.position?.start ?? { line: 1, column: 1 };
    // What MDX turns into code when the page renders: expressions, module
    // statements and components (the export admits only its own components).
    if (LIVE.has(node.type)) {
      const value = String(node.value ?? "").trim();
      live.push({
        line: at.line,
        col: at.column,
        kind: node.type,
        name: node.name ?? null,
        attributes: (node.attributes ?? []).length,
        comment:
          value.startsWith("/*") &&
          value.endsWith("*/") &&
          !value.slice(2, -2).includes("*/"),
      });
    }
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
      headings.push({
        line: at.line,
        depth: node.depth,
        text: text(node),
        parts: parts(node),
        id: custom.get(at.line) ?? null,
      });
    } else if (
      node.type === "link" ||
      (node.type === "definition" && !String(node.label ?? "").startsWith("^"))
    ) {
      // `[^note]: ...` is a footnote (Mintlify reads GitHub's Markdown), not a link.
      links.push({ line: at.line, col: at.column, url: node.url });
    } else if (node.type === "image") {
      media.push({ line: at.line, col: at.column, url: node.url });
    } else if (
      node.type === "mdxJsxFlowElement" ||
      node.type === "mdxJsxTextElement"
    ) {
      // An SVG `<use href>` or `<image href>` names a drawing's resource, not a page.
      const href = RESOURCES.has(node.name) ? null : attribute(node, "href");
      if (href !== null)
        links.push({ line: at.line, col: at.column, url: href });
      for (const each of node.attributes ?? []) expressionLinks(each, links);
      // Images and media a page shows are files the site must have, as links are.
      const src = MEDIA.has(node.name) ? attribute(node, "src") : null;
      if (src !== null) media.push({ line: at.line, col: at.column, url: src });
      const id = attribute(node, "id");
      if (id !== null) ids.push(id);
      // Components Mintlify anchors by a title or a name when they have no id.
      const title = attribute(node, "title");
      if (id === null && title !== null && COMPONENTS.has(node.name))
        components.push([node.name, title]);
      if (/Field$/.test(node.name ?? "")) {
        for (const name of ["name", "path", "query", "body", "header"]) {
          const value = attribute(node, name);
          if (value !== null) components.push(["Field", value]);
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
  return { blocks, headings, links, media, ids, components, stray, live };
}

for (const file of request.files) {
  let answer;
  try {
    const { text, ids } = customIds(blankFrontMatter(file.text));
    answer = { path: file.path, ...scan(processor.parse(text), ids) };
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
