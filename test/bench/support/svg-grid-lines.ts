// Light horizontal grid lines across a panel of the benchmarks' hand-drawn plots, each with its
// value written left of the axis.

export function gridLines(x0: number, w: number, rows: Array<{ y: number; text: string }>): string[] {
  return rows.flatMap(({ y, text }) => [
    `<line x1="${x0}" x2="${x0 + w}" y1="${y.toFixed(1)}" y2="${y.toFixed(1)}" stroke="#ddd"/>`,
    `<text x="${x0 - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end" font-size="10">${text}</text>`,
  ]);
}
