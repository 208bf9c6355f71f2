// Grouped bar charts for the benchmarks' plots, drawn as plain SVG (the shape of the gateway
// report's bars): a panel is groups along the x axis (a shape, a rate), one bar per series in
// each (a server, an arm) with its value written above it, light grid lines with their values.

export interface BarGroup {
  label: string;
  bars: Array<{ series: string; value: number; text: string }>;
}

export interface BarPanel {
  title: string;
  x0: number;
  y0: number;
  w: number;
  h: number;
  groups: BarGroup[];
  colors: Record<string, string>;
}

/** A grid line's value: whole numbers from 10 up, two significant digits below. */
const tick = (v: number) => (v >= 10 ? Math.round(v).toLocaleString('en') : v.toPrecision(2));
const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function groupedBars(p: BarPanel): string[] {
  const values = p.groups.flatMap((g) => g.bars.map((b) => (Number.isFinite(b.value) ? b.value : 0)));
  const max = Math.max(...values, 1e-9) * 1.15;
  const y = (v: number) => p.y0 + p.h - (v / max) * p.h;
  const out = [`<text x="${p.x0}" y="${p.y0 - 10}" font-size="13">${esc(p.title)}</text>`];
  for (const f of [0.25, 0.5, 0.75, 1]) {
    const v = (max / 1.15) * f;
    out.push(
      `<line x1="${p.x0}" x2="${p.x0 + p.w}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e5e5"/>`,
      `<text x="${p.x0 - 4}" y="${(y(v) + 3).toFixed(1)}" text-anchor="end" font-size="9" fill="#666">${tick(v)}</text>`,
    );
  }
  out.push(`<line x1="${p.x0}" x2="${p.x0 + p.w}" y1="${p.y0 + p.h}" y2="${p.y0 + p.h}" stroke="#999"/>`);
  const groupW = p.w / Math.max(1, p.groups.length);
  p.groups.forEach((g, gi) => {
    const barW = Math.min(50, (groupW - 20) / Math.max(1, g.bars.length));
    const gx = p.x0 + gi * groupW + (groupW - barW * g.bars.length) / 2;
    g.bars.forEach((b, bi) => {
      const value = Number.isFinite(b.value) ? b.value : 0;
      const x = gx + bi * barW;
      const top = y(value);
      out.push(
        `<rect x="${x.toFixed(1)}" y="${top.toFixed(1)}" width="${(barW - 4).toFixed(1)}" height="${(p.y0 + p.h - top).toFixed(1)}" fill="${p.colors[b.series] ?? '#868e96'}"/>`,
        `<text x="${(x + (barW - 4) / 2).toFixed(1)}" y="${(top - 3).toFixed(1)}" text-anchor="middle" font-size="9">${esc(b.text)}</text>`,
      );
    });
    out.push(
      `<text x="${(p.x0 + gi * groupW + groupW / 2).toFixed(1)}" y="${p.y0 + p.h + 15}" text-anchor="middle" font-size="11">${esc(g.label)}</text>`,
    );
  });
  return out;
}

/** One swatch and name per series, left to right from (x, y). */
export function legend(series: string[], colors: Record<string, string>, x: number, y: number, step = 140) {
  return series.map(
    (s, i) =>
      `<rect x="${x + i * step}" y="${y - 9}" width="10" height="10" fill="${colors[s] ?? '#868e96'}"/><text x="${x + i * step + 14}" y="${y}" font-size="11">${esc(s)}</text>`,
  );
}

export function svgDocument(w: number, h: number, title: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">`,
    `<title>${esc(title)}</title>`,
    '<rect width="100%" height="100%" fill="white"/>',
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
