// docs/benchmarks-gateway.svg, drawn by hand: deliveries per second at saturation and server CPU
// per delivery at the fixed rate, by server and Redis-fed shape.
import type { VariantName } from './messages.ts';
import { type BenchReport, fixed, SHAPE_TEXT, type Summary } from './report.ts';

const COLORS: Record<VariantName, string> = { lattice: '#d9480f', 'bare-ws': '#1c7ed6', socketio: '#2f9e44' };

function bars(
  title: string,
  x0: number,
  y0: number,
  w: number,
  h: number,
  groups: Array<{ label: string; values: Array<{ variant: VariantName; value: number; text: string }> }>,
): string[] {
  const max =
    Math.max(...groups.flatMap((g) => g.values.map((v) => (Number.isNaN(v.value) ? 0 : v.value))), 1) * 1.15;
  const out = [`<text x="${x0}" y="${y0 - 8}" font-size="13">${title}</text>`];
  out.push(`<line x1="${x0}" x2="${x0 + w}" y1="${y0 + h}" y2="${y0 + h}" stroke="#999"/>`);
  const groupW = w / groups.length;
  groups.forEach((g, gi) => {
    const barW = Math.min(50, (groupW - 30) / Math.max(1, g.values.length));
    const gx = x0 + gi * groupW + (groupW - barW * g.values.length) / 2;
    g.values.forEach((v, vi) => {
      const value = Number.isNaN(v.value) ? 0 : v.value;
      const bh = (value / max) * h;
      const x = gx + vi * barW;
      out.push(
        `<rect x="${x.toFixed(1)}" y="${(y0 + h - bh).toFixed(1)}" width="${(barW - 6).toFixed(1)}" height="${bh.toFixed(1)}" fill="${COLORS[v.variant]}"/>`,
      );
      out.push(
        `<text x="${(x + (barW - 6) / 2).toFixed(1)}" y="${(y0 + h - bh - 4).toFixed(1)}" text-anchor="middle" font-size="10">${v.text}</text>`,
      );
    });
    out.push(
      `<text x="${(x0 + gi * groupW + groupW / 2).toFixed(1)}" y="${y0 + h + 16}" text-anchor="middle" font-size="11">${g.label}</text>`,
    );
  });
  return out;
}

export function svgOf(report: BenchReport, summaries: Map<string, Summary>): string {
  const w = 760;
  const h = 330;
  const groupsOf = (figure: (s: Summary) => number, text: (v: number) => string) =>
    report.shapes.map((shape) => ({
      label: SHAPE_TEXT(shape),
      values: report.variants.map((variant) => {
        const value = figure(summaries.get(`${variant}|${shape.id}`)!);
        return { variant, value, text: text(value) };
      }),
    }));
  const legend = report.variants.map(
    (v, i) =>
      `<rect x="${20 + i * 110}" y="${h - 18}" width="10" height="10" fill="${COLORS[v]}"/><text x="${34 + i * 110}" y="${h - 9}" font-size="11">${v}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    '<title>Gateway benchmark: fan-out deliveries per second and server CPU per delivery, by server and shape</title>',
    '<rect width="100%" height="100%" fill="white"/>',
    ...bars(
      'Deliveries per second at saturation (median)',
      20,
      40,
      340,
      220,
      groupsOf(
        (s) => s.deliveriesPerS,
        (v) => `${fixed(v / 1000)}k`,
      ),
    ),
    ...bars(
      `Server CPU µs per delivery at ${report.settings.fixedDeliveriesPerS.toLocaleString('en')}/s (median)`,
      400,
      40,
      340,
      220,
      groupsOf(
        (s) => s.fixedUs,
        (v) => fixed(v, 2),
      ),
    ),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
