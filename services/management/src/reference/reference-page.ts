// `{base_url}/reference`: the human reference of the management API, rendered from the same
// OpenAPI document `/openapi.json` serves and stamped with its `catalog_version`, so the page, the
// document and the agent tools are one generation (spec "Versioning"). Plain HTML, no script:
// a table of contents by tag, then each operation with its parameters, body, answers and their
// examples (error answers by code, with the body the API sends).
import type { OpenApiDocument } from '@lattice/http';

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<{
    name: string;
    in: string;
    required?: boolean;
    description?: string;
    schema?: unknown;
  }>;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { summary?: string; value?: unknown }>;
}

const json = (value: unknown): string => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Backticked words as code, the rest escaped: descriptions are written in that small markdown. */
const prose = (text: string | undefined): string =>
  escapeHtml(text ?? '').replace(/`([^`]+)`/g, (_m, code: string) => `<code>${code}</code>`);

function schemaOf(doc: OpenApiDocument, schema: unknown): unknown {
  const ref = (schema as { $ref?: string } | undefined)?.$ref;
  if (!ref) return schema;
  const [, , , name] = ref.split('/');
  return doc.components.schemas?.[name!] ?? schema;
}

function operationsOf(doc: OpenApiDocument): Array<Operation & { method: string; path: string }> {
  const ops: Array<Operation & { method: string; path: string }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op === 'object' && op !== null && 'operationId' in op) {
        ops.push({ ...(op as Operation), method: method.toUpperCase(), path });
      }
    }
  }
  return ops;
}

function answerOf(status: string, answer: NonNullable<Operation['responses']>[string]): string {
  const media = answer.content ? Object.values(answer.content)[0] : undefined;
  const name = (media?.schema as { $ref?: string } | undefined)?.$ref?.split('/').pop();
  const head = `<strong>${escapeHtml(status)}</strong>${name ? ` <code>${escapeHtml(name)}</code>` : ''}`;
  if (media?.examples) {
    // An error answer: one line per code, each with the body the API sends.
    const codes = Object.entries(media.examples)
      .map(([code, e]) => `<li><code>${escapeHtml(code)}</code>: ${prose(e.summary)}${json(e.value)}</li>`)
      .join('');
    return `<li>${head}<ul>${codes}</ul></li>`;
  }
  const example = media?.example === undefined ? '' : `<p>Example</p>${json(media.example)}`;
  return `<li>${head} ${prose(answer.description)}${example}</li>`;
}

export function renderReference(doc: OpenApiDocument): string {
  const version = doc['x-lattice'].catalog_version;
  const ops = operationsOf(doc);
  const tags = [...new Set(ops.map((o) => o.tags?.[0] ?? 'other'))];
  const toc = tags
    .map(
      (tag) =>
        `<li>${escapeHtml(tag)}<ul>${ops
          .filter((o) => (o.tags?.[0] ?? 'other') === tag)
          .map(
            (o) =>
              `<li><a href="#${escapeHtml(o.operationId)}"><code>${escapeHtml(o.operationId)}</code></a></li>`,
          )
          .join('')}</ul></li>`,
    )
    .join('');
  const sections = ops
    .map((o) => {
      const params = (o.parameters ?? [])
        .map(
          (p) =>
            `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${escapeHtml(JSON.stringify(p.schema ?? {}))}</code></td><td>${prose(p.description)}</td></tr>`,
        )
        .join('');
      const bodyMedia = o.requestBody?.content ? Object.values(o.requestBody.content)[0] : undefined;
      const body = bodyMedia?.schema;
      return [
        `<section id="${escapeHtml(o.operationId)}" aria-labelledby="${escapeHtml(o.operationId)}-title">`,
        `<h3 id="${escapeHtml(o.operationId)}-title"><code>${escapeHtml(o.operationId)}</code></h3>`,
        `<p><code>${escapeHtml(o.method)} ${escapeHtml(o.path)}</code> — ${prose(o.summary)}</p>`,
        o.description ? `<p>${prose(o.description)}</p>` : '',
        params
          ? `<table><caption>Parameters</caption><thead><tr><th scope="col">name</th><th scope="col">in</th><th scope="col">required</th><th scope="col">schema</th><th scope="col">description</th></tr></thead><tbody>${params}</tbody></table>`
          : '',
        body ? `<h4>Request body</h4>${json(schemaOf(doc, body))}` : '',
        bodyMedia?.example === undefined ? '' : `<h4>Request example</h4>${json(bodyMedia.example)}`,
        `<h4>Answers</h4><ul>${Object.entries(o.responses ?? {})
          .map(([status, r]) => answerOf(status, r))
          .join('')}</ul>`,
        '</section>',
      ].join('\n');
    })
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="catalog-version" content="${escapeHtml(version)}">
<title>${escapeHtml(doc.info.title)}: reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f4f5f7;padding:.75rem;overflow:auto}
table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #d0d4da;padding:.25rem .5rem;text-align:left;vertical-align:top}
section{border-top:1px solid #d0d4da;margin-top:1.5rem}
</style>
</head>
<body>
<header>
<h1>${escapeHtml(doc.info.title)}</h1>
<p>Catalog version <code>${escapeHtml(version)}</code> (as in <a href="/openapi.json"><code>/openapi.json</code></a>; every operation below is also the MCP tool of the same name at <code>/mcp</code>).</p>
${doc.info.description ? `<p>${prose(doc.info.description)}</p>` : ''}
</header>
<nav aria-label="Operations"><h2>Operations</h2><ul>${toc}</ul></nav>
<main><h2>Reference</h2>
${sections}
</main>
</body>
</html>
`;
}
