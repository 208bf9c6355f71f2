// `{base_url}/reference`: the human reference of the management API, rendered from the same
// OpenAPI document `/openapi.json` serves and stamped with its `catalog_version`, so the page, the
// document and the agent tools are one generation (spec "Versioning"). Plain HTML, no script:
// a table of contents by tag, then each operation with its parameters, body and answers.
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
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<
    string,
    { description?: string; $ref?: string; content?: Record<string, { schema?: unknown }> }
  >;
}

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

function answerOf(
  doc: OpenApiDocument,
  status: string,
  r: NonNullable<Operation['responses']>[string],
): string {
  const shared = r.$ref
    ? (doc.components.responses?.[r.$ref.split('/').pop()!] as typeof r | undefined)
    : undefined;
  const answer = shared ?? r;
  const schema = answer.content ? Object.values(answer.content)[0]?.schema : undefined;
  const name = (schema as { $ref?: string } | undefined)?.$ref?.split('/').pop();
  return `<li><strong>${escapeHtml(status)}</strong> ${prose(answer.description)}${name ? ` <code>${escapeHtml(name)}</code>` : ''}</li>`;
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
      const body = o.requestBody?.content ? Object.values(o.requestBody.content)[0]?.schema : undefined;
      return [
        `<section id="${escapeHtml(o.operationId)}" aria-labelledby="${escapeHtml(o.operationId)}-title">`,
        `<h3 id="${escapeHtml(o.operationId)}-title"><code>${escapeHtml(o.operationId)}</code></h3>`,
        `<p><code>${escapeHtml(o.method)} ${escapeHtml(o.path)}</code> — ${prose(o.summary)}</p>`,
        o.description ? `<p>${prose(o.description)}</p>` : '',
        params
          ? `<table><caption>Parameters</caption><thead><tr><th scope="col">name</th><th scope="col">in</th><th scope="col">required</th><th scope="col">schema</th><th scope="col">description</th></tr></thead><tbody>${params}</tbody></table>`
          : '',
        body
          ? `<h4>Request body</h4><pre>${escapeHtml(JSON.stringify(schemaOf(doc, body), null, 2))}</pre>`
          : '',
        `<h4>Answers</h4><ul>${Object.entries(o.responses ?? {})
          .map(([status, r]) => answerOf(doc, status, r))
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
